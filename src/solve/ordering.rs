//! Move ordering: the ordering key of a move, the shallow alpha-beta search that sorts the
//! moves of a node where it pays, and the heuristic evaluation at its leaves (the trained
//! patterns on 8x8, else mobility and corners).
//!
//! Every function here only orders moves or guesses values: the exact search's values never
//! depend on them, only its node counts.

use crate::board::{legal_moves, neighbours, Squares};
use crate::cpu::{Cpu, Job};

use super::pattern;
use super::search::{Cand, Searcher};

/// Heuristic points of [`Searcher::shallow`] per disc of final value, fitted on 80 random 6x6
/// positions with 20-22 empty squares (slope 0.31-0.35 at depths 4-8, correlation 0.93-0.96).
const POINTS_PER_DISC: i32 = 3;
/// Heuristic points per stable disc in the evaluation.
const STABLE_WEIGHT: i32 = 12;

/// Ordering points (16 per opponent reply) for a move on a corner.
const CORNER_BONUS: i32 = 16;
/// Ordering points against a move next to an empty corner.
const NEAR_CORNER_PENALTY: i32 = 8;
/// Ordering points off per opponent reply next to an empty corner (a reply it would rather
/// not play).
const NEAR_CORNER_REPLY: i32 = 4;
/// Ordering points off per move the mover has after its move.
const OWN_MOVE_BONUS: i32 = 4;
/// Ordering points off per stable disc of the mover after its move.
const STABLE_ORDER_BONUS: i32 = 8;
/// Larger than any value of the shallow ordering search.
pub(super) const SHALLOW_INF: i32 = 1 << 20;

impl<C: Cpu> Searcher<'_, C> {
    /// Orders `list`, moves of `(p, o)`, by the shallow search to `depth` after each (moves the
    /// table already ranked keep their keys).
    pub(super) fn shallow_keys(
        &mut self,
        list: &mut [Cand],
        p: u64,
        o: u64,
        empty: u64,
        depth: u32,
    ) {
        let mix = self.ctx.tuning.order_mix;
        for c in list.iter_mut() {
            if c.key > -5_000 {
                let bit = 1u64 << c.sq;
                let (np, no) = (o ^ c.flips, p | c.flips | bit);
                // The opponent's view: lower is better for the mover.
                let v = self.shallow(np, no, empty ^ bit, depth, -SHALLOW_INF, SHALLOW_INF);
                c.key = if self.patterned {
                    v + mix * c.key / 16
                } else {
                    v
                };
            }
        }
    }

    /// The ordering key of the principal variation's moves for the position `(p, o)` reached
    /// by a move (opponent to move): the shallow search's value for the opponent, so lower
    /// first. Independent of the table and the thread count; the tuning's evaluation switches
    /// apply, so callers pass a searcher on a default-tuned context for a fixed rule.
    pub(super) fn pv_order_key(&mut self, p: u64, o: u64) -> i32 {
        let empty = self.ctx.mask & !(p | o);
        self.shallow(p, o, empty, 2, -SHALLOW_INF, SHALLOW_INF)
    }

    /// Points of [`Searcher::evaluate`] per disc of final value.
    #[inline(always)]
    pub(super) fn points_per_disc(&self) -> i32 {
        if self.patterned {
            pattern::UNITS_PER_DISC
        } else {
            POINTS_PER_DISC
        }
    }

    /// Points per disc of a finished game in [`Searcher::shallow`]: above any mobility
    /// evaluation, or the pattern evaluation's own scale.
    #[inline(always)]
    pub(super) fn end_points(&self) -> i32 {
        if self.patterned {
            pattern::UNITS_PER_DISC
        } else {
            1000
        }
    }

    /// A heuristic evaluation for the side to move, whose legal moves are `mp`: the trained
    /// patterns on 8x8, else mobility (corners double) and corners.
    #[inline(always)]
    pub(super) fn evaluate(&self, p: u64, o: u64, empty: u64, mp: u64) -> i32 {
        if let (true, Some(w)) = (self.patterned, self.ctx.pattern) {
            return w.evaluate_with(self.cpu, p, o, empty, mp);
        }
        let c = self.ctx.corners;
        let mo = legal_moves(o, p, empty);
        let corners = (p & c).count_ones() as i32 - (o & c).count_ones() as i32;
        let potential = (neighbours(o) & empty).count_ones() as i32
            - (neighbours(p) & empty).count_ones() as i32;
        // Mobility with corners counted twice.
        let mobility = (mp.count_ones() + (mp & c).count_ones()) as i32
            - (mo.count_ones() + (mo & c).count_ones()) as i32;
        let mut v = 8 * mobility + 24 * corners + 2 * potential;
        if self.ctx.tuning.stable_eval {
            let st = &self.ctx.stability;
            v += STABLE_WEIGHT
                * (st.stable(p, o).count_ones() as i32 - st.stable(o, p).count_ones() as i32);
        }
        v
    }

    /// Fail-soft alpha-beta to `depth` plies with [`Searcher::evaluate`] at the leaves and the
    /// real score (scaled past any evaluation) at the end of the game: for move ordering only.
    #[inline(always)]
    pub(super) fn shallow(
        &mut self,
        p: u64,
        o: u64,
        empty: u64,
        depth: u32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let cpu = self.cpu;
        cpu.run(ShallowCall {
            s: self,
            p,
            o,
            empty,
            depth,
            alpha,
            beta,
        })
    }

    /// The body of [`Searcher::shallow`], inlined into its copy.
    #[inline(always)]
    fn shallow_body(
        &mut self,
        p: u64,
        o: u64,
        empty: u64,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.nodes += 1;
        self.ordering_nodes += 1;
        let moves = legal_moves(p, o, empty);
        if moves == 0 {
            if legal_moves(o, p, empty) == 0 {
                return self.end_points() * self.game_over(p, o);
            }
            return -self.shallow(o, p, empty, depth, -beta, -alpha);
        }
        if depth == 0 {
            return self.evaluate(p, o, empty, moves);
        }
        let mut best = -SHALLOW_INF;
        for sq in Squares(moves) {
            let f = self.cpu.flips(p, o, sq);
            let bit = 1u64 << sq;
            let v = -self.shallow(o ^ f, p | f | bit, empty ^ bit, depth - 1, -beta, -alpha);
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// The ordering key of a move leading to `(np, no)` (opponent to move) that placed `bit`,
    /// at a node with `n_empty` empty squares: fewest opponent replies first (corner replies
    /// counting double, replies next to an empty corner three quarters), then most moves and
    /// (from `stable_order_empties`, or its 8x8 replacement) most stable discs for the mover,
    /// corners, and moves into a region with an odd number of empty squares; moves next to an
    /// empty corner (which may give it away) later. The weights were scanned on four 6x6
    /// positions of 27 and 28 empty squares (see BENCHMARKS.md, sixth round).
    #[inline(always)]
    pub(super) fn order_key(&self, np: u64, no: u64, empty: u64, bit: u64, n_empty: u32) -> i32 {
        let ctx = self.ctx;
        let t = ctx.tuning;
        let replies = legal_moves(np, no, empty);
        let mob = replies.count_ones() + (replies & ctx.corners).count_ones();
        let mut key = 16 * mob as i32;
        // The squares next to an empty corner.
        let near = neighbours(ctx.corners & empty);
        if t.own_mobility {
            key -= NEAR_CORNER_REPLY * (replies & near).count_ones() as i32;
            key -= OWN_MOVE_BONUS * legal_moves(no, np, empty).count_ones() as i32;
        }
        let stable_from = match (self.patterned, t.pattern_stable_order_empties) {
            (true, Some(n)) => n,
            _ => t.stable_order_empties,
        };
        if n_empty >= stable_from {
            key -= STABLE_ORDER_BONUS * ctx.stability.stable(no, np).count_ones() as i32;
        }
        if t.potential {
            key += 2 * (neighbours(no) & empty).count_ones() as i32;
        }
        if t.corner_squares {
            if bit & ctx.corners != 0 {
                key -= CORNER_BONUS;
            }
            if bit & near != 0 {
                key += NEAR_CORNER_PENALTY;
            }
        } else if bit & ctx.corners != 0 {
            key -= 8;
        }
        for q in ctx.quadrants {
            if q & bit != 0 && (q & empty).count_ones().is_multiple_of(2) {
                // The region had an odd count before this move.
                key -= 4;
            }
        }
        key
    }
}

/// One call of [`Searcher::shallow`], run by the searcher's copy.
struct ShallowCall<'s, 'a, C> {
    s: &'s mut Searcher<'a, C>,
    p: u64,
    o: u64,
    empty: u64,
    depth: u32,
    alpha: i32,
    beta: i32,
}

impl<C: Cpu> Job for ShallowCall<'_, '_, C> {
    type Output = i32;
    #[inline(always)]
    fn run<D: Cpu>(self, _: D) -> i32 {
        let ShallowCall {
            s,
            p,
            o,
            empty,
            depth,
            alpha,
            beta,
        } = self;
        s.shallow_body(p, o, empty, depth, alpha, beta)
    }
}

#[cfg(test)]
mod tests {
    use crate::board::{Scoring, Shape};
    use crate::rng::Xoshiro256;
    use crate::solve::context::Ctx;
    use crate::solve::dispatch::searcher;
    use crate::solve::dispatch::tests::random_position;
    use crate::solve::table::Table;
    use crate::solve::tuning::{Schedule, Tuning};

    #[test]
    fn pattern_evaluation_changes_no_value() {
        // 8x8 positions of 13 empty squares from seeded random games, under both rules: the
        // value with the pattern evaluation ordering every node from 8 empty squares up and
        // guessing the root, against the value with the mobility evaluation, no shallow
        // ordering and MTD(f) from 0.
        let shape = Shape::square(8).unwrap();
        let patterned = Tuning {
            pattern_shallow: Some(Schedule {
                empties: 8,
                depth: 1,
                step: 2,
            }),
            ..Tuning::default()
        };
        let plain = Tuning {
            pattern_order: false,
            pattern_guess: false,
            shallow_empties: u32::MAX,
            ..Tuning::default()
        };
        let mut rng = Xoshiro256::from_seed(21);
        for game in 0..24 {
            let pos = random_position(shape, &mut rng, 13);
            let (p, o) = (pos.player(), pos.opponent());
            let scoring = if game % 2 == 0 {
                Scoring::Discs
            } else {
                Scoring::WinnerTakesEmpties
            };
            let value = |tuning: Tuning, guess_nodes: u64| {
                let table = Table::new(8);
                let ctx = Ctx::new(&table, tuning, shape, scoring);
                assert_eq!(ctx.pattern.is_some(), tuning.pattern_order);
                let mut s = searcher(&ctx);
                let guess = if guess_nodes > 0 {
                    s.guess(p, o, guess_nodes)
                } else {
                    0
                };
                s.exact(p, o, guess)
            };
            let exact = value(plain, 0);
            assert_eq!(value(patterned, 20_000), exact, "{pos}");
            if game % 3 == 0 {
                // The mover's stable discs in the ordering keys, off on 8x8 by default.
                let stable_order = Tuning {
                    pattern_stable_order_empties: None,
                    ..patterned
                };
                assert_eq!(value(stable_order, 20_000), exact, "{pos}");
            }
        }
    }
}
