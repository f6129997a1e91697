//! What several commands share: the board arguments and the errors of the command line.

use anyhow::Result;
use clap::Args;
use reversi_nxn::board::{Move, Position, Shape};

/// A mistake in the command line that clap's own checks cannot see.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// A run stopped by Ctrl-C, SIGTERM or SIGHUP after saving or showing what it had: exit code
/// 130.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Interrupted(pub String);

/// Which board: a square of `-n` squares a side, or `--rows` by `--cols`.
#[derive(Debug, Clone, Args)]
pub struct ShapeArgs {
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
}

impl ShapeArgs {
    /// The board asked for, or `None` when neither `-n` nor `--rows/--cols` was given.
    pub fn given(&self) -> Result<Option<Shape>> {
        Ok(match (self.size, self.rows, self.cols) {
            (Some(n), _, _) => Some(Shape::square(n)?),
            (None, Some(r), Some(c)) => Some(Shape::new(r, c)?),
            _ => None,
        })
    }
}

/// Which board, and where on it to start.
#[derive(Debug, Clone, Args)]
pub struct BoardArgs {
    #[command(flatten)]
    pub shape: ShapeArgs,
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
        Ok(match self.shape.given()? {
            Some(shape) => shape,
            None => match &self.board {
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
