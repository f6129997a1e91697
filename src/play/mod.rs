//! Exploring and playing: advice on every move of a position, and an interactive session.
//!
//! An [`Advisor`] scores the legal turns of a position for the side to move: exactly where the
//! game can be solved or a published solution settles the position ([`known`]), or by a
//! depth-limited heuristic search ([`midgame`]) where it cannot, always saying which.

pub mod eval;
pub mod known;
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
    /// A published solution's principal variation passes through the position
    /// ([`known::Known`]): the scores hold its move, which keeps the position's exact value;
    /// every other turn is worth at most that, and is left out.
    Line {
        /// The position's exact value for the side to move.
        value: i32,
    },
}

/// Scores of every legal turn of a position, for the side to move (larger is better for it).
#[derive(Debug, Clone)]
pub struct Advice {
    /// Each legal turn (placements in row-major order, or a single pass) and its score; of
    /// [`AdviceKind::Line`], its one known turn.
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

    /// One line per turn: `c4 +2 best`. Exact values are final margins in discs; heuristic
    /// scores are labelled as such, and one that is a finished game the search found forced
    /// (a multiple of [`midgame::FINAL`]) is shown as that margin in discs, a bound.
    #[must_use]
    pub fn describe(&self, pos: &Position) -> String {
        let best = self.best_score();
        let label = match self.kind {
            AdviceKind::Exact => {
                "exact final margin in discs for the side to move, under perfect play".to_string()
            }
            AdviceKind::Heuristic { depth } => format!(
                "heuristic evaluation for the side to move, in hundredths of a disc of \
                 advantage, roughly (mobility, corners, stable edges; a depth-limited search of \
                 {depth} plies, not exact)"
            ),
            AdviceKind::Line { .. } => "exact final margin in discs for the side to move, under \
                 perfect play: the move of the published solution's principal variation"
                .to_string(),
        };
        let mut s = format!("move values ({label}):\n");
        for &(m, v) in &self.scores {
            let mark = if Some(v) == best { "  best" } else { "" };
            s.push_str(&format!(
                "  {:<5} {:>6}{mark}\n",
                pos.move_name(m),
                self.value_text(v)
            ));
        }
        if let AdviceKind::Line { value } = self.kind {
            s.push_str(&format!(
                "  the other moves: at most {value:+}, not known exactly\n"
            ));
        }
        s
    }

    /// A score as shown: `+13` (exact, in discs; heuristic, in hundredths of a disc), or for a
    /// heuristic score that is a forced finished game, `<=-16 discs` (the search found that
    /// the other side can force an end this bad, so the margin is at most that) or `>=+4 discs`.
    #[must_use]
    pub fn value_text(&self, v: i32) -> String {
        match self.kind {
            AdviceKind::Heuristic { .. } if v != 0 && v % midgame::FINAL == 0 => {
                let discs = v / midgame::FINAL;
                let bound = if discs < 0 { "<=" } else { ">=" };
                format!("{bound}{discs:+} discs")
            }
            _ => format!("{v:+}"),
        }
    }

    /// How the move `mv` was chosen, for the engine's move lines: `exact: +13 for black` (the
    /// final margin it keeps for the side to move `side`) or `heuristic, depth 7`.
    #[must_use]
    pub fn annotation(&self, mv: Move, side: &str) -> String {
        let v = self.scores.iter().find(|s| s.0 == mv).map_or(0, |s| s.1);
        match self.kind {
            AdviceKind::Exact => format!("exact: {v:+} for {side}"),
            AdviceKind::Line { .. } => {
                format!("exact: {v:+} for {side}, on the published principal variation")
            }
            AdviceKind::Heuristic { depth } => format!("heuristic, depth {depth}"),
        }
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

/// Exact scores from the alpha-beta solver ([`crate::solve::Solver`]) wherever the solver's
/// estimate of the cost ([`crate::solve::estimated_seconds`]) fits the time allowed per
/// position; elsewhere, or when the solve overruns that time after all (it is stopped then),
/// the scores of `fallback`, which gets the same time again.
pub struct SolverAdvisor<F: Advisor> {
    /// The solver (its transposition table persists between moves).
    pub solver: crate::solve::Solver,
    /// The time allowed per position.
    pub limit: Duration,
    /// How finished games are scored.
    pub scoring: Scoring,
    /// The advisor for positions the solver cannot solve in time.
    pub fallback: F,
}

/// Whether the solver is expected to solve `pos` within `limit`: its cost estimate
/// ([`crate::solve::estimated_seconds`]) fits.
#[must_use]
pub fn solvable_within(pos: &Position, limit: Duration) -> bool {
    crate::solve::estimated_seconds(pos.shape(), pos.empty().count_ones()) <= limit.as_secs_f64()
}

impl<F: Advisor> Advisor for SolverAdvisor<F> {
    fn advise(&mut self, pos: &Position) -> Advice {
        if solvable_within(pos, self.limit) {
            self.solver.set_scoring(self.scoring);
            let deadline = std::time::Instant::now() + self.limit;
            if let Some(scores) = self.solver.move_values_within(pos, deadline) {
                return Advice {
                    scores,
                    kind: AdviceKind::Exact,
                };
            }
        }
        self.fallback.advise(pos)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forced_end_found_by_the_heuristic_search_shows_in_discs() {
        let advice = Advice {
            scores: vec![(Move::Place(0), -160_000), (Move::Place(1), 250)],
            kind: AdviceKind::Heuristic { depth: 5 },
        };
        assert_eq!(advice.value_text(-160_000), "<=-16 discs");
        assert_eq!(advice.value_text(40_000), ">=+4 discs");
        assert_eq!(advice.value_text(250), "+250");
        assert_eq!(
            advice.annotation(Move::Place(1), "white"),
            "heuristic, depth 5"
        );
        let exact = Advice {
            scores: vec![(Move::Place(1), 13)],
            kind: AdviceKind::Exact,
        };
        assert_eq!(exact.value_text(13), "+13");
        assert_eq!(
            exact.annotation(Move::Place(1), "black"),
            "exact: +13 for black"
        );
    }
}
