//! reversi-nxn: settles small-board Reversi (Othello) by brute force and proof.
//!
//! - [`board`]: the rules on any board of `R x C` squares (3 <= R, C <= 8) as bitboards.
//! - [`perft`]: games per ply from any position, in OEIS A124004's convention.
//! - [`solve`]: perfect play: exact values, principal variations, values of every move.

#![warn(missing_docs)]

pub mod board;
pub mod memory;
pub mod perft;
pub mod progress;
pub mod solve;
