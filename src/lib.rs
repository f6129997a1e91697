//! reversi-nxn: settles small-board Reversi (Othello) by brute force and proof.
//!
//! - [`board`]: the rules on any board of `R x C` squares (3 <= R, C <= 8) as bitboards.
//! - [`perft`]: games per ply from any position, in OEIS A124004's convention.
//! - [`estimate`]: random-probe (Knuth) estimates of the number of games, scores and lengths.
//! - [`export::plot`]: PNG charts (score heatmaps, histograms, games per ply).
//! - [`heuristics`]: simple strategies audited against a strong solution.
//! - [`strong`]: retrograde analysis of every reachable position (value and moves-to-end).
//! - [`solve`]: perfect play: exact values, principal variations, values of every move.
//! - [`obf`]: the one-position-per-line format of endgame suites (FFO, Edax).
//! - [`count`]: every complete game counted exactly (two methods); [`export`] writes the files.

#![warn(missing_docs)]

pub mod atomic;
pub mod board;
pub mod count;
pub mod cpu;
pub mod estimate;
pub mod export;
mod fnv;
pub mod heuristics;
pub mod layers;
pub mod lock;
pub mod memory;
pub mod obf;
pub mod perft;
pub mod play;
pub mod positions;
pub mod progress;
pub mod proof;
pub mod rng;
pub mod sealed;
pub mod solve;
pub mod strong;
