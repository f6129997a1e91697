//! The rules of Reversi on any board of up to 64 squares, and nothing else.
//!
//! Every board of `R x C` squares (3 <= R, C <= 8) lives in the top-left corner of one 64-bit
//! 8x8 frame: square `(row r, col c)` is bit `8 * r + c`. One 8x8 move generator serves every
//! size; the [`Shape`] supplies the mask of squares that exist.
//!
//! ```text
//!  bit:  0  1  2  3  4  5  6  7      a 5x5 board uses bits 0-4, 8-12, 16-20, 24-28, 32-36
//!        8  9 10 11 12 13 14 15
//!       ..
//!       56 57 58 59 60 61 62 63
//! ```

mod bitboard;
mod notation;
mod position;
mod scoring;
mod shape;
mod symmetry;

#[cfg(target_arch = "x86_64")]
pub use bitboard::flips_avx2;
pub use bitboard::{
    after_move, flips, has_moves, last_flip_count, legal_moves, neighbours, square_bit, Next,
    Squares,
};
pub use notation::{parse_moves, parse_square, square_name, MoveToken};
pub use position::{Move, Position, Side};
pub use scoring::{othello_rule_bounds, Scoring};
pub use shape::{Shape, MAX_SIDE, MIN_SIDE};
pub(crate) use symmetry::flip_frame_horizontal;
pub use symmetry::{canonical_discs, canonical_discs_by, Symmetry};

use thiserror::Error;

/// What can be wrong with a board size, square, move or board string given by a user.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BoardError {
    /// The board has fewer than 3 or more than 8 rows or columns.
    #[error("impossible board size {rows}x{cols}: rows and columns must each be between 3 and 8")]
    BadSize {
        /// Rows asked for.
        rows: u32,
        /// Columns asked for.
        cols: u32,
    },
    /// A square name that does not parse or lies off the board.
    #[error("bad square '{0}': expected a column letter and a row number on the board, like c4")]
    BadSquare(String),
    /// A move list token that is neither a square nor a pass.
    #[error("bad move '{0}': expected a square like c4, or 'pass'")]
    BadMoveToken(String),
    /// A move that the rules do not allow in the position reached.
    #[error("illegal move {mv} at ply {ply}: legal moves are {legal}")]
    IllegalMove {
        /// The move as written.
        mv: String,
        /// The 1-based ply of the move.
        ply: usize,
        /// The legal moves in that position.
        legal: String,
    },
    /// A board string that does not describe a position.
    #[error("malformed board string: {0}")]
    BadBoardString(String),
}
