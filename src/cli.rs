//! Command-line arguments: one subcommand per job, shared board options flattened in.

use clap::{Parser, Subcommand};

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
    /// Prove perfect play in work units kept in a proof log: resumable, shared by processes.
    Prove(cmd::prove::ProveArgs),
    /// Count every complete game exactly: score matrix, lengths, first moves (dp or dfs).
    Count(cmd::count::CountArgs),
    /// Solve sample positions of a board and fit the pattern evaluation the solver orders moves
    /// by.
    TrainEval(cmd::train::TrainArgs),
}

impl Command {
    /// Runs one subcommand.
    pub fn run(self) -> anyhow::Result<()> {
        match self {
            Command::Perft(args) => cmd::perft::run(&args),
            Command::Positions(args) => cmd::positions::run(&args),
            Command::Analyze(args) => cmd::analyze::run(&args),
            Command::Play(args) => cmd::play::run(&args),
            Command::Estimate(args) => cmd::estimate::run(&args),
            Command::Plot(args) => cmd::plot::run(&args),
            Command::Report(args) => cmd::report::run(&args),
            Command::Strong(args) => cmd::strong::run(&args),
            Command::Heuristics(args) => cmd::heuristics::run(&args),
            Command::Solve(args) => cmd::solve::run(&args),
            Command::Prove(args) => cmd::prove::run(&args),
            Command::Count(args) => cmd::count::run(&args),
            Command::TrainEval(args) => cmd::train::run(&args),
        }
    }
}
