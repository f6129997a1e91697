//! reversi-nxn: settles small-board Reversi (Othello) by brute force and proof.
//!
//! - [`board`]: the rules on any board of `R x C` squares (3 <= R, C <= 8) as bitboards.
//! - [`perft`]: games per ply from any position, in OEIS A124004's convention.
//! - [`count`]: every complete game counted exactly (two methods); [`export`] writes the files.

#![warn(missing_docs)]

pub mod board;
pub mod count;
pub mod export;
pub mod memory;
pub mod perft;
pub mod progress;
