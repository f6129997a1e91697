//! Exploring and playing: advice on every move of a position, and an interactive session.
//!
//! An [`Advisor`] scores the legal turns of a position for the side to move: exactly where the
//! game can be solved, or by a depth-limited heuristic search ([`midgame`]) where it cannot,
//! always saying which.

pub mod eval;
pub mod midgame;
pub mod session;

use std::time::Duration;

use crate::board::{Move, Position, Scoring};

/// How the scores of an [`Advice`] were obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdviceKind {
    /// Exact final disc margins under perfect play.
    Exact,
    /// A depth-limited search with a heuristic evaluation: not exact.
    Heuristic {
        /// Plies searched.
        depth: u32,
    },
}

/// Scores of every legal turn of a position, for the side to move (larger is better for it).
#[derive(Debug, Clone)]
pub struct Advice {
    /// Each legal turn (placements in row-major order, or a single pass) and its score.
    pub scores: Vec<(Move, i32)>,
    /// Exact margins, or heuristic scores.
    pub kind: AdviceKind,
}

impl Advice {
    /// The best score, if there is a legal turn.
    #[must_use]
    pub fn best_score(&self) -> Option<i32> {
        self.scores.iter().map(|s| s.1).max()
    }

    /// The best turns (all that share the best score), in row-major order.
    #[must_use]
    pub fn best_moves(&self) -> Vec<Move> {
        let best = self.best_score();
        self.scores
            .iter()
            .filter(|s| Some(s.1) == best)
            .map(|s| s.0)
            .collect()
    }

    /// One line per turn: `c4 +2 (best)`; heuristic scores are labelled as such.
    #[must_use]
    pub fn describe(&self, pos: &Position) -> String {
        let best = self.best_score();
        let label = match self.kind {
            AdviceKind::Exact => "exact final margin for the side to move".to_string(),
            AdviceKind::Heuristic { depth } => format!(
                "heuristic evaluation for the side to move, in hundredths of a disc of \
                 advantage, roughly (mobility, corners, stable edges; a depth-limited search of \
                 {depth} plies, not exact)"
            ),
        };
        let mut s = format!("move values ({label}):\n");
        for &(m, v) in &self.scores {
            let mark = if Some(v) == best { "  best" } else { "" };
            s.push_str(&format!("  {:<5} {:>+6}{mark}\n", pos.move_name(m), v));
        }
        s
    }
}

/// Something that scores the legal turns of a position.
pub trait Advisor {
    /// Scores every legal turn of `pos` (empty when the game is over).
    fn advise(&mut self, pos: &Position) -> Advice;
}

impl<A: Advisor + ?Sized> Advisor for Box<A> {
    fn advise(&mut self, pos: &Position) -> Advice {
        (**self).advise(pos)
    }
}

/// Exact scores looked up in a strong solution ([`crate::strong::StrongTable`]): instant perfect
/// play. Positions the table does not hold (not reachable from the start) go to `fallback`.
pub struct StrongAdvisor<F: Advisor> {
    /// The strong solution of the board.
    pub table: crate::strong::StrongTable,
    /// The advisor for positions outside the table.
    pub fallback: F,
}

impl<F: Advisor> StrongAdvisor<F> {
    fn lookup(&self, pos: &Position) -> Option<Advice> {
        let mover = |black_value: i8| {
            let v = i32::from(black_value);
            if pos.black_to_move() {
                v
            } else {
                -v
            }
        };
        let scores = pos
            .legal_turns()
            .into_iter()
            .map(|t| {
                let child = pos.apply(t)?;
                let (v, _) = self.table.value(&child)?;
                Some((t, mover(v)))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Advice {
            scores,
            kind: AdviceKind::Exact,
        })
    }
}

impl<F: Advisor> Advisor for StrongAdvisor<F> {
    fn advise(&mut self, pos: &Position) -> Advice {
        match self.lookup(pos) {
            Some(a) => a,
            None => self.fallback.advise(pos),
        }
    }
}

/// Exact scores from the alpha-beta solver ([`crate::solve::Solver`]) for positions with at
/// most `max_empties` empty squares; deeper positions go to `fallback`.
pub struct SolverAdvisor<F: Advisor> {
    /// The solver (its transposition table persists between moves).
    pub solver: crate::solve::Solver,
    /// The most empty squares solved exactly.
    pub max_empties: u32,
    /// How finished games are scored.
    pub scoring: Scoring,
    /// The advisor for deeper positions.
    pub fallback: F,
}

impl<F: Advisor> Advisor for SolverAdvisor<F> {
    fn advise(&mut self, pos: &Position) -> Advice {
        if pos.empty().count_ones() > self.max_empties {
            return self.fallback.advise(pos);
        }
        let opts = crate::solve::SolveOptions {
            scoring: self.scoring,
            ..crate::solve::SolveOptions::default()
        };
        let report = self.solver.solve(pos, &opts, &crate::progress::Silent);
        let sign = if pos.black_to_move() { 1 } else { -1 };
        Advice {
            scores: report
                .move_values
                .into_iter()
                .map(|(m, v)| (m, sign * v))
                .collect(),
            kind: AdviceKind::Exact,
        }
    }
}

/// Scores by the heuristic iterative-deepening search with a time limit per call. When the
/// search reaches the end of every line, the scores it gives are exact.
#[derive(Debug, Clone)]
pub struct HeuristicAdvisor {
    /// Time allowed per position.
    pub limit: Duration,
    /// How finished games are scored (where the search reaches them).
    pub scoring: Scoring,
}

impl Advisor for HeuristicAdvisor {
    fn advise(&mut self, pos: &Position) -> Advice {
        let r = midgame::search(pos, self.limit, self.scoring);
        if r.exact {
            Advice {
                scores: r.scores.into_iter().map(|(m, v)| (m, v / 10_000)).collect(),
                kind: AdviceKind::Exact,
            }
        } else {
            Advice {
                scores: r.scores,
                kind: AdviceKind::Heuristic { depth: r.depth },
            }
        }
    }
}
