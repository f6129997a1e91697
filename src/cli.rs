//! Command-line arguments: one subcommand per job, shared board options flattened in.

use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use reversi_nxn::board::{Move, Position, Shape};

use crate::cmd;

/// Settles small-board Reversi (Othello) by brute force and proof.
///
/// Boards of R x C squares, 3 <= R, C <= 8. Squares are named column letter then row number,
/// a1 top-left. Black (X) moves first.
#[derive(Debug, Parser)]
#[command(name = "reversi", version, about, long_about = None)]
pub struct Cli {
    /// Worker threads (default: one per core). Results never depend on it.
    #[arg(long, global = true, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    /// The job to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The jobs.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count games per ply (perft) and the games that end at each ply.
    Perft(cmd::perft::PerftArgs),
    /// Count games, distinct positions and positions reached by one path, per ply.
    Positions(cmd::positions::PositionsArgs),
    /// Show a position and the value of every legal move.
    Analyze(cmd::analyze::AnalyzeArgs),
    /// Play against the engine, watch it play itself, or explore with hints.
    Play(cmd::play::PlayArgs),
    /// Estimate the number of games, their scores and lengths by random playouts (Knuth).
    Estimate(cmd::estimate::EstimateArgs),
    /// Render PNG charts of everything in results/ into plots/.
    Plot(cmd::plot::PlotArgs),
    /// Regenerate every result, chart and the summary table (reusing what is computed).
    Report(cmd::report::ReportArgs),
    /// Strongly solve a board: value and moves-to-end of every reachable position.
    Strong(cmd::strong::StrongArgs),
    /// Audit simple strategies (greedy, mobility, corners, random) against perfect play.
    Heuristics(cmd::heuristics::HeuristicsArgs),
    /// Prove perfect play: exact value, principal variation, value of every move.
    Solve(cmd::solve::SolveArgs),
    /// Count every complete game exactly: score matrix, lengths, first moves (dp or dfs).
    Count(cmd::count::CountArgs),
}

/// A mistake in the command line that clap's own checks cannot see.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// A run stopped by Ctrl-C, SIGTERM or SIGHUP after saving or showing what it had: exit code
/// 130.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Interrupted(pub String);

/// Which board, and where on it to start.
#[derive(Debug, Clone, Args)]
pub struct BoardArgs {
    /// A square board of N x N squares.
    #[arg(long, short = 'n', value_parser = clap::value_parser!(u32).range(3..=8),
          conflicts_with_all = ["rows", "cols"])]
    pub size: Option<u32>,
    /// Rows of a rectangular board (with --cols).
    #[arg(long, value_parser = clap::value_parser!(u32).range(3..=8), requires = "cols")]
    pub rows: Option<u32>,
    /// Columns of a rectangular board (with --rows).
    #[arg(long, value_parser = clap::value_parser!(u32).range(3..=8), requires = "rows")]
    pub cols: Option<u32>,
    /// Start after these moves from the start position, e.g. "c4c3e6" or "f5 d6 pass c3".
    #[arg(long)]
    pub moves: Option<String>,
    /// Start from this board string: one character per square, row-major (X/*/b black,
    /// O/w white, -/. empty), then the side to move (X or O).
    #[arg(long, allow_hyphen_values = true)]
    pub board: Option<String>,
}

impl BoardArgs {
    /// The board shape asked for, or a square board of `default` squares a side. A board string
    /// alone fixes a square board by its length.
    pub fn shape(&self, default: u32) -> Result<Shape> {
        Ok(match (self.size, self.rows, self.cols) {
            (Some(n), _, _) => Shape::square(n)?,
            (None, Some(r), Some(c)) => Shape::new(r, c)?,
            _ => match &self.board {
                Some(b) => Position::from_board_string(b, None)?.shape(),
                None => Shape::square(default)?,
            },
        })
    }

    /// The position to start from, and the turns played from the start to reach it (empty when
    /// given as a board string).
    pub fn position(&self, default: u32) -> Result<(Position, Vec<Move>)> {
        let shape = self.shape(default)?;
        let start = match &self.board {
            Some(b) => Position::from_board_string(b, Some(shape))?,
            None => shape.start(),
        };
        match &self.moves {
            Some(m) => Ok(start.after_moves(m)?),
            None => Ok((start, Vec::new())),
        }
    }
}
