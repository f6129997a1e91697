//! The root guess of MTD(f) (`Searcher::guess`): iterative deepening of a heuristic search;
//! with the pattern evaluation (8x8), of an ordered principal-variation search, as below.
//!
//! Each iteration searches one ply deeper with the full window. At a node with at least
//! `LEAF_DEPTH + 1` plies to go, the move that was best there in the iteration before comes
//! first, then the others by a shallower search's value (`sort_depth`); below, the plain
//! shallow search of `Searcher::shallow` (row-major order) finishes the line. The best moves
//! live in a small table of the guess's own (`BestMoves`), never in the solver's table, whose
//! entries are exact bounds. Everything is deterministic: one thread, a table that starts
//! empty, and a budget in nodes.
//!
//! The budget: an iteration starts only if its cost, predicted from the two iterations before
//! it of the same parity (odd and even depths grow apart, as the evaluation swings with the
//! side that moved last), fits in what is left of the budget. So a guess spends at most about
//! its budget; the plain search it replaces checked the budget only after each depth and
//! overshot it up to fourfold.
//!
//! **Twin.** With every move ordered and no pruning beyond alpha-beta, the value at a given depth
//! is the plain shallow search's to the same depth; the tests check that.

use crate::board::{legal_moves, Squares};
use crate::cpu::Cpu;

use super::ordering::SHALLOW_INF;
use super::search::{Cand, Searcher};

/// Plies to go at which the ordered search hands over to the plain shallow search.
const LEAF_DEPTH: u32 = 2;

/// Slots of [`BestMoves`] (a power of two).
const SLOTS: usize = 1 << 16;

/// The depth of the search that orders the moves at a node with `depth` plies to go: the
/// evaluation itself up to 4, one ply more per three.
fn sort_depth(depth: u32) -> u32 {
    depth.saturating_sub(2) / 3
}

/// The best move found at each position of the guess's search: one slot per hash, the newest
/// store kept.
struct BestMoves {
    slots: Vec<(u64, u64, u32)>,
}

impl BestMoves {
    /// An empty table.
    fn new() -> BestMoves {
        BestMoves {
            slots: vec![(0, 0, u32::MAX); SLOTS],
        }
    }

    fn slot(p: u64, o: u64) -> usize {
        let h = (p ^ o.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 48) as usize & (SLOTS - 1)
    }

    /// The best move stored for `(p, o)`, if any.
    fn get(&self, p: u64, o: u64) -> Option<u32> {
        let (sp, so, m) = self.slots[Self::slot(p, o)];
        (sp == p && so == o && m != u32::MAX).then_some(m)
    }

    fn put(&mut self, p: u64, o: u64, m: u32) {
        self.slots[Self::slot(p, o)] = (p, o, m);
    }
}

impl<C: Cpu> Searcher<'_, C> {
    /// A cheap estimate of the value of `(p, o)` for the side to move, in the units of
    /// [`Searcher::shallow`] (heuristic points, or [`Searcher::end_points`] per disc at the end
    /// of the game): an alpha-beta search to `depth` plies with the heuristic evaluation at the
    /// leaves.
    fn estimate_raw(&mut self, p: u64, o: u64, depth: u32) -> i32 {
        let empty = self.ctx.mask & !(p | o);
        self.shallow(p, o, empty, depth, -SHALLOW_INF, SHALLOW_INF)
    }

    /// A first guess at the value of `(p, o)` for the side to move, in discs, for MTD(f):
    /// iterative deepening of a heuristic search, the last two depths averaged (the evaluation
    /// swings with the side that moved last), converted by the evaluation's points per disc.
    /// With the pattern evaluation, the ordered search of [`guess`](super::guess) deepens while
    /// the next depth is predicted to fit in `budget` nodes; else the plain shallow search
    /// deepens until it has spent `budget`. Deterministic: one thread, not the solver's table.
    pub(super) fn guess(&mut self, p: u64, o: u64, budget: u64) -> i32 {
        let empties = (self.ctx.mask & !(p | o)).count_ones();
        let ordering = self.patterned;
        self.patterned = self.ctx.pattern.is_some() && self.ctx.tuning.pattern_guess;
        let start = self.nodes;
        let mut last = None;
        let mut prev = None;
        if self.patterned && self.ctx.tuning.ordered_guess {
            (prev, last) = self.deepen(p, o, budget);
        } else {
            for depth in 1..=empties {
                prev = last;
                last = Some(self.estimate_raw(p, o, depth));
                if self.nodes - start >= budget {
                    break;
                }
            }
        }
        let sq = self.ctx.squares;
        let ppd = self.points_per_disc();
        let v = if self.patterned {
            // One scale for evaluations and finished games.
            match (prev, last) {
                (Some(a), Some(b)) => (a + b) / (2 * ppd),
                (_, Some(l)) => l / ppd,
                _ => 0,
            }
        } else {
            match (prev, last) {
                (_, Some(l)) if l.abs() >= 500 => l / 1000,
                (Some(a), Some(b)) if a.abs() < 500 => (a + b) / (2 * ppd),
                (_, Some(l)) => l / ppd,
                _ => 0,
            }
        };
        self.patterned = ordering;
        v.clamp(-sq, sq)
    }

    /// The values of the last two depths (`(one before, last)`) of the ordered search of
    /// `(p, o)`, deepened while the next depth is predicted to fit in what is left of `budget`
    /// nodes.
    pub(super) fn deepen(&mut self, p: u64, o: u64, budget: u64) -> (Option<i32>, Option<i32>) {
        let empties = (self.ctx.mask & !(p | o)).count_ones();
        let start = self.nodes;
        let mut best = BestMoves::new();
        let (mut prev, mut last) = (None, None);
        // Each depth's nodes, for predicting the next from the two before it of its parity.
        let mut costs: Vec<u64> = Vec::new();
        for depth in 1..=empties {
            if let [.., a, _, b, _] = costs[..] {
                let next = b as f64 * b as f64 / a.max(1) as f64;
                if (self.nodes - start) as f64 + next > budget as f64 {
                    break;
                }
            }
            let before = self.nodes;
            prev = last;
            last = Some(self.midgame(&mut best, p, o, depth, -SHALLOW_INF, SHALLOW_INF));
            costs.push(self.nodes - before);
        }
        (prev, last)
    }

    /// The heuristic value of `(p, o)` for the side to move, searched `depth` plies deep with the
    /// window `(alpha, beta)` (fail-soft), in the units of [`Searcher::shallow`]: an ordered
    /// principal-variation search that records its best moves in `best`.
    fn midgame(
        &mut self,
        best: &mut BestMoves,
        p: u64,
        o: u64,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        let empty = self.ctx.mask & !(p | o);
        if depth <= LEAF_DEPTH {
            return self.shallow(p, o, empty, depth, alpha, beta);
        }
        self.nodes += 1;
        self.ordering_nodes += 1;
        let moves = legal_moves(p, o, empty);
        if moves == 0 {
            if legal_moves(o, p, empty) == 0 {
                return self.end_points() * self.game_over(p, o);
            }
            return -self.midgame(best, o, p, depth, -beta, -alpha);
        }
        let first = best.get(p, o);
        let sort = sort_depth(depth);
        let mut list: Vec<Cand> = Vec::with_capacity(moves.count_ones() as usize);
        for sq in Squares(moves) {
            let flips = self.cpu.flips(p, o, sq);
            let bit = 1u64 << sq;
            let key = if Some(sq) == first {
                i32::MIN
            } else {
                // The opponent's view: lower is better for the mover.
                self.shallow(
                    o ^ flips,
                    p | flips | bit,
                    empty ^ bit,
                    sort,
                    -SHALLOW_INF,
                    SHALLOW_INF,
                )
            };
            list.push(Cand { sq, flips, key });
        }
        // Stable: equal keys stay in row-major order.
        list.sort_by_key(|c| c.key);
        let mut value = -SHALLOW_INF;
        let mut best_move = list[0].sq;
        for (i, c) in list.iter().enumerate() {
            let (np, no) = (o ^ c.flips, p | c.flips | (1u64 << c.sq));
            let v = if i == 0 {
                -self.midgame(best, np, no, depth - 1, -beta, -alpha)
            } else {
                let v = -self.midgame(best, np, no, depth - 1, -alpha - 1, -alpha);
                if v > alpha && v < beta {
                    -self.midgame(best, np, no, depth - 1, -beta, -v)
                } else {
                    v
                }
            };
            if v > value {
                value = v;
                best_move = c.sq;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best.put(p, o, best_move);
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Scoring, Shape};
    use crate::cpu::Job;
    use crate::rng::Xoshiro256;
    use crate::solve::context::Ctx;
    use crate::solve::table::Table;
    use crate::solve::tuning::Tuning;

    /// Each position's ordered and plain values at depths 1 to 5 (the ordered search reusing
    /// its best moves from one depth to the next, as the guess does).
    struct BothSearches<'a> {
        ctx: &'a Ctx<'a>,
        positions: &'a [(u64, u64)],
    }

    impl Job for BothSearches<'_> {
        type Output = Vec<(i32, i32)>;
        fn run<C: Cpu>(self, cpu: C) -> Vec<(i32, i32)> {
            let mut s = Searcher::new(self.ctx, cpu, None);
            let mut out = Vec::new();
            for &(p, o) in self.positions {
                let mut best = BestMoves::new();
                let empty = self.ctx.mask & !(p | o);
                for depth in 1..=5 {
                    out.push((
                        s.midgame(&mut best, p, o, depth, -SHALLOW_INF, SHALLOW_INF),
                        s.shallow(p, o, empty, depth, -SHALLOW_INF, SHALLOW_INF),
                    ));
                }
            }
            out
        }
    }

    #[test]
    fn ordered_search_has_the_plain_searchs_value_at_every_level() {
        let shape = Shape::square(8).unwrap();
        let table = Table::new(1);
        let ctx = Ctx::new(
            &table,
            Tuning::default(),
            shape,
            Scoring::WinnerTakesEmpties,
        );
        assert!(ctx.pattern.is_some());
        let mut rng = Xoshiro256::from_seed(7);
        let mut positions = Vec::new();
        for game in 0..12 {
            // From 20 to 53 empty squares, some games near their end.
            let stop = 20 + 3 * game;
            let mut pos = shape.start();
            while pos.empty().count_ones() > stop && !pos.is_over() {
                let turns = pos.legal_turns();
                pos = pos
                    .apply(turns[rng.below(turns.len() as u32) as usize])
                    .unwrap();
            }
            positions.push((pos.player(), pos.opponent()));
        }
        for level in crate::cpu::levels() {
            let job = BothSearches {
                ctx: &ctx,
                positions: &positions,
            };
            let values = crate::cpu::run_at(level, job);
            assert_eq!(values.len(), 60);
            for (i, (ordered, plain)) in values.into_iter().enumerate() {
                assert_eq!(
                    ordered,
                    plain,
                    "{level:?}: position {}, depth {}",
                    i / 5,
                    i % 5 + 1
                );
            }
        }
    }
}
