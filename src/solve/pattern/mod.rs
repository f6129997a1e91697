//! A pattern evaluation of the positions of one board, trained on its exactly solved positions,
//! for the solver's move ordering and its first guess at the root.
//!
//! **What it is.** The evaluation is a sum of weights, one per line or block of squares: the
//! four edges each with the two X squares (diagonally next to its corners), the 2x5 and 3x3
//! blocks in the corners, the second, third and fourth rows and columns, and the diagonals of
//! five to eight squares on 8x8, much as in Edax. Each square of a pattern is empty, the
//! mover's or the other side's, so a pattern of `n` squares has `3^n` configurations, each with
//! its own weight; the instances of a pattern that a symmetry of the board maps onto each other
//! share its table. Two counts are added: the mobility and the potential mobility (empty squares
//! next to the other side's discs) of each side. The value is an estimate of the final disc
//! difference for the side to move, in units of 1/[`UNITS_PER_DISC`] disc.
//!
//! **Any board.** Every `R x C` board has its own [`layout`]: the same kinds of pattern as
//! they exist on that shape, each inside the board (no 2x5 block under five columns, the rows
//! above the middle only, diagonals of at least `max(4, min(R, C) - 3)` squares). A square
//! board has the eight symmetries of the square, so its rows and columns are one pattern; a
//! rectangle has four (the mirrors and the half turn), so its rows of `C` squares and its
//! columns of `R` squares, its top and its side edges, are different patterns with tables of
//! their own. A board uses the pattern evaluation when weights trained on it are shipped
//! (`assets/eval/patternRxC.bin`, [`shipped`]); the others keep the mobility evaluation.
//!
//! **Where the weights come from.** `reversi train-eval` plays games with a noisy heuristic
//! player, solves one position of each game exactly (Othello scoring), and fits the weights to
//! those values by least squares with every symmetric image of each position
//! ([`super::train`]). Each shipped file was written by the board's command in the README;
//! [`shipped`] parses it once.
//!
//! **Twin.** [`indices`] computes each pattern's configuration from the bitboards through
//! precomputed square lists; the tests check it against a twin that reads the squares of a
//! [`Position`](crate::board::Position) by row and column, on square and rectangular boards.
//! The search evaluates by [`Weights::evaluate_with`], which gathers each pattern's squares at
//! once with `pext` (on the 8x8 frame flipped so that the instances of a pattern share a table
//! rearranged by square order), or by six shifts where `pext` is slow (AMD before Zen 3); the
//! tests check both against [`Weights::evaluate`].
//!
//! **Files.** `layout.rs`: the patterns of each board and making weights symmetric;
//! `weights.rs`: the weights, their file format, the extraction the search reads
//! them by and the shipped files; here the features both use.

mod layout;
mod weights;

pub use layout::{indices, layout, symmetrize, Layout};
pub use weights::{shipped, Weights};

use crate::board::{legal_moves, neighbours, Shape};

/// Evaluation units per disc of final value.
pub const UNITS_PER_DISC: i32 = 64;

/// Number of scalar features after the patterns: the mover's mobility, the other side's
/// mobility, the mover's and the other side's potential mobility, and a constant.
pub const SCALARS: usize = 5;

/// Symmetry `s` (`0..8`, or `0..4` on a rectangle) of the `rows x cols` board as a map of
/// `(row, col)`: bit 2 transposes first (square boards only), bit 0 flips the rows, bit 1 the
/// columns. With `rows = cols = 8` and `s < 4` these are also the flips of the frame that
/// [`Weights::evaluate_with`] reads a board through.
fn symmetric(rows: u8, cols: u8, s: u8, (r, c): (u8, u8)) -> (u8, u8) {
    let (r, c) = if s & 4 != 0 { (c, r) } else { (r, c) };
    let r = if s & 1 != 0 { rows - 1 - r } else { r };
    let c = if s & 2 != 0 { cols - 1 - c } else { c };
    (r, c)
}

/// The index of `shape` in tables of one entry per board.
fn board_index(shape: Shape) -> usize {
    (6 * (shape.rows() - 3) + shape.cols() - 3) as usize
}

/// The configuration of `squares` in `(p, o)`, base 3 (see [`indices`]).
#[inline]
fn configuration(p: u64, o: u64, squares: &[u8]) -> usize {
    let mut idx = 0usize;
    for &sq in squares {
        let cell = ((p >> sq) & 1) + 2 * ((o >> sq) & 1);
        idx = 3 * idx + cell as usize;
    }
    idx
}

/// The scalar features of `(p, o)` with empty squares `empty` (see [`SCALARS`]).
#[must_use]
pub fn scalars(p: u64, o: u64, empty: u64) -> [i32; SCALARS] {
    scalars_given(p, o, empty, legal_moves(p, o, empty))
}

/// [`scalars`] given the mover's legal moves `moves`.
#[inline(always)]
fn scalars_given(p: u64, o: u64, empty: u64, moves: u64) -> [i32; SCALARS] {
    [
        moves.count_ones() as i32,
        legal_moves(o, p, empty).count_ones() as i32,
        (neighbours(o) & empty).count_ones() as i32,
        (neighbours(p) & empty).count_ones() as i32,
        1,
    ]
}

#[cfg(test)]
mod tests;
