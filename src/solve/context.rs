//! What every searcher of one query shares ([`Ctx`]): the board's masks, the table, the tuning,
//! the evaluation and the node counts.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::board::{Scoring, Shape};

use super::pattern::{self, Weights};
use super::stability::Stability;
use super::table::{Part, Table};
use super::tuning::Tuning;

/// What every searcher of one query shares: the board's masks, the table, the tuning, and the
/// node count.
#[derive(Debug)]
pub struct Ctx<'a> {
    /// The table.
    pub table: &'a Table,
    /// The tuning.
    pub tuning: Tuning,
    /// The board.
    pub shape: Shape,
    /// How a finished game is scored.
    pub scoring: Scoring,
    /// The board's squares.
    pub mask: u64,
    /// The four corners.
    pub corners: u64,
    /// The board cut into four quadrants (for parity ordering).
    pub quadrants: [u64; 4],
    /// The tables of the stable-disc bound.
    pub stability: Stability,
    /// Squares on the board.
    pub squares: i32,
    /// Nodes counted by finished searchers.
    pub nodes: AtomicU64,
    /// Of those, the nodes of the heuristic searches that order moves or guess a value.
    pub ordering_nodes: AtomicU64,
    /// The trained evaluation, on 8x8 when the tuning asks for it.
    pub pattern: Option<&'static Weights>,
    /// Positions with at most this many empty squares use the table's near part (0: none).
    pub near_empties: u32,
}

impl<'a> Ctx<'a> {
    /// The context for searching positions on `shape`, finished games scored by `scoring`.
    /// The table's bounds must have been found under the same rule.
    #[must_use]
    pub fn new(table: &'a Table, tuning: Tuning, shape: Shape, scoring: Scoring) -> Ctx<'a> {
        let pattern = (tuning.pattern_order || tuning.pattern_guess)
            .then(|| pattern::shipped(shape))
            .flatten();
        Ctx {
            table,
            tuning,
            shape,
            scoring,
            mask: shape.mask(),
            corners: shape.corners(),
            quadrants: shape.quadrants(),
            stability: Stability::with_edges(shape, tuning.edge_stability),
            squares: shape.squares() as i32,
            nodes: AtomicU64::new(0),
            ordering_nodes: AtomicU64::new(0),
            pattern,
            // 8x8 only: from the 6x6 and 5x7 starts with their patterns the near part took
            // 9% and 2% more nodes (docs/pattern-eval.md).
            near_empties: if shape.squares() == 64 {
                tuning.near_empties
            } else {
                0
            },
        }
    }

    /// The part of the table that keeps positions with `empties` empty squares.
    #[inline(always)]
    #[must_use]
    pub fn part(&self, empties: u32) -> Part {
        if empties <= self.near_empties {
            Part::Near
        } else {
            Part::Main
        }
    }

    /// Nodes searched so far by searchers that have finished.
    #[must_use]
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }

    /// Of [`Ctx::nodes`], those of the heuristic searches that order moves (and guess a value
    /// at the root): what the proof spent on ordering rather than on proving.
    #[must_use]
    pub fn ordering_nodes(&self) -> u64 {
        self.ordering_nodes.load(Ordering::Relaxed)
    }
}

/// Whether the pattern evaluation applies to `shape`: whether weights trained on that board
/// are shipped ([`pattern::shipped`]).
#[must_use]
pub fn patterned(shape: Shape) -> bool {
    pattern::shipped(shape).is_some()
}
