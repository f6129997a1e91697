//! The node search: negamax alpha-beta with principal-variation search, the transposition
//! table and enhanced transposition cutoff, and MTD(f) above it. Its moves are ordered by
//! [`super::ordering`]; its context is [`Ctx`], its switches [`super::tuning`].
//!
//! Values are final disc differences from the side to move's point of view (its discs minus the
//! other side's at the end of the game), in `-64..=64`, under the context's
//! [`Scoring`](crate::board::Scoring): empty squares at the end count for nobody, or go to the
//! winner. The rule enters only where a game
//! ends (`Searcher::game_over` and the end solver's last squares); every bound the search
//! uses (the stability cutoff's included) holds under both. Every
//! search is *fail-soft*: a result `r` of a search with window `(alpha, beta)` is the exact value
//! when `alpha < r < beta`, an upper bound when `r <= alpha` and a lower bound when `r >= beta`.
//!
//! The search is compiled once per CPU level ([`crate::cpu`]): `Searcher<C>` runs the copy of
//! the [`Cpu`] token `C`, whose x86-64-v3 copy (hardware `popcnt` and `lzcnt`, AVX2) solves
//! about a fifth faster than the portable one. Its recursive methods (`Searcher::search`, the
//! end solver, the shallow ordering search) each run in the token's copy ([`Cpu::call`] with
//! the position and the window in registers, or [`Cpu::run`]), with their bodies and every hot
//! helper inlined into it; [`super::dispatch::searcher`] picks the copy the CPU can run.

use std::mem::MaybeUninit;
use std::sync::atomic::Ordering;

use crate::board::{legal_moves, Squares, Symmetry};
use crate::cpu::{Call, Cpu};

use super::abort::Abort;
use super::context::Ctx;
use super::table::Bound;
use super::tuning::Schedule;
use super::watch::PLIES;

/// Larger than any value.
pub const INF: i32 = 65;

/// What one null-window test of an exact search found of the position's value
/// ([`Search::exact_within`](super::dispatch::Search::exact_within)), for a report of
/// progress (bounds inclusive, within -64 and +64, for the side to move).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Pass `pass` (1 first) of `passes` selective ones (probcut) bounds the value thus: an
    /// estimate that steers the exact search, not a proof. Each pass starts with -64 and 64
    /// (nothing bounded yet).
    Selective {
        /// The pass, from 1.
        pass: usize,
        /// The passes.
        passes: usize,
        /// The pass's lower bound.
        lower: i32,
        /// The pass's upper bound.
        upper: i32,
    },
    /// The selective passes are over and an exact null-window test of whether the value is
    /// at least `beta` starts (inside the bounds of the last `Proven` step, or the known ones).
    Testing {
        /// The test's bound: it proves either at least `beta` or at most `beta - 1`.
        beta: i32,
    },
    /// The value is proven to lie in these bounds.
    Proven {
        /// The lower bound.
        lower: i32,
        /// The upper bound.
        upper: i32,
    },
}

/// By empty squares (7 for 7 or more), how far `alpha` must exceed `squares - 2 * (the other
/// side's discs)` before the stability cutoff looks for stable discs. Without a margin the
/// search can only cut if every disc of the other side is stable: on a 6x6 position 28 plies
/// in, 1% of the tries with 3 empty squares and no margin cut, 26% of those with a margin of 10
/// (counted in a scratch build). Near the end a failed try costs about as much as the
/// small subtree it would have cut, so the margin is wide there. Measured on 6x6 after
/// `c2 b4 c5 d2 e4 e3 d1`, three interleaved runs each: 11.0-12.0 CPU s against 12.0-13.2 with
/// no margin, for 3% more nodes (see BENCHMARKS.md).
pub const STABILITY_MARGIN: [i32; 8] = [0, 0, 0, 24, 14, 8, 4, 2];

/// One thread's search: a reference to the shared context, its own node count, and the abort
/// flags of the parallel splits it works under.
pub struct Searcher<'a, C> {
    pub(super) ctx: &'a Ctx<'a>,
    pub(super) nodes: u64,
    /// Of `nodes`, those of the heuristic searches that order moves or guess a value.
    pub(super) ordering_nodes: u64,
    pub(super) abort: Option<&'a Abort<'a>>,
    /// The copy of the search this searcher runs.
    pub(super) cpu: C,
    /// Whether the heuristic searches now evaluate with the context's pattern evaluation.
    pub(super) patterned: bool,
    /// 0 for the exact search; else the probcut level of a selective search.
    pub(super) sel: u8,
    /// Whether this searcher has seen its abort flags raised (then it stays stopped).
    stopped: bool,
    /// Interior nodes entered since the abort flags were last read.
    unpolled: u32,
    /// Of `nodes`, those already added to the table's running count ([`Table::searched`]).
    published: u64,
    /// Empty squares of the root of the search the table watches ([`Table::top`]; 0: none),
    /// as of this searcher's creation.
    pub(super) top: u32,
}

impl<C> Searcher<'_, C> {
    /// Adds the nodes not yet published to the table's running count.
    #[cold]
    #[inline(never)]
    fn publish(&mut self) {
        self.ctx
            .table
            .searched()
            .fetch_add(self.nodes - self.published, Ordering::Relaxed);
        self.published = self.nodes;
    }
}

impl<C> Drop for Searcher<'_, C> {
    fn drop(&mut self) {
        self.publish();
        self.ctx.nodes.fetch_add(self.nodes, Ordering::Relaxed);
        self.ctx
            .ordering_nodes
            .fetch_add(self.ordering_nodes, Ordering::Relaxed);
    }
}

/// Interior nodes a searcher under a parallel split enters between two reads of the split's
/// abort flags (a walk up the chain of splits above it): a stopped search goes on for at most
/// this many nodes, whose results are sound and only wasted. Reading them at every node took
/// 1-2% more time on FFO #49-52 (one thread, three pairs side by side: 1.7%, 1.5%, 0.6%;
/// BENCHMARKS.md, session 27).
const POLL_EVERY: u32 = 16;

/// Nodes a searcher counts before it adds them to the table's running count
/// ([`Table::searched`]) for progress reports: one atomic addition per this many, a compare per
/// interior node in between, so the search does not slow (at 2e7 nodes a second, 300 reports a
/// second per thread).
const PUBLISH_EVERY: u64 = 1 << 16;

/// A move with its flips and its ordering key (smaller first).
#[derive(Debug, Clone, Copy)]
pub(super) struct Cand {
    pub sq: u32,
    pub flips: u64,
    pub key: i32,
}

/// The final score for the side to move when nobody can move and no square is empty (or when
/// empty squares count for nobody; `Searcher::game_over` applies the context's rule).
#[inline]
pub(super) fn final_score(p: u64, o: u64) -> i32 {
    p.count_ones() as i32 - o.count_ones() as i32
}

/// The inverse of a symmetry.
fn inverse(s: Symmetry) -> Symmetry {
    match s {
        Symmetry::Rotate90 => Symmetry::Rotate270,
        Symmetry::Rotate270 => Symmetry::Rotate90,
        other => other,
    }
}

impl<'a, C: Cpu> Searcher<'a, C> {
    /// A searcher on `ctx` running the copy of `cpu`, under the abort flags `abort` (none at
    /// the top).
    #[must_use]
    pub(super) fn new(ctx: &'a Ctx<'a>, cpu: C, abort: Option<&'a Abort<'a>>) -> Self {
        Searcher {
            ctx,
            nodes: 0,
            ordering_nodes: 0,
            abort,
            cpu,
            patterned: ctx.pattern.is_some() && ctx.tuning.pattern_order,
            sel: 0,
            stopped: false,
            unpolled: 0,
            published: 0,
            top: ctx.table.top().root(),
        }
    }

    /// Whether this searcher has stopped because a parallel split above it was cut off (its
    /// result is then unused). Only [`Searcher::poll_abort`] reads the flags: once per
    /// [`POLL_EVERY`] interior nodes, and after each split this searcher waited for (whose
    /// searchers may have dropped moves for a raised flag). Until it sees them raised, the
    /// searcher's own results are complete and sound.
    #[inline(always)]
    pub(super) fn aborted(&self) -> bool {
        self.stopped
    }

    /// Reads the abort flags of the splits above this searcher (a walk up their chain) and
    /// stops it for good if one is raised; returns whether it has stopped.
    #[inline(always)]
    fn poll_abort(&mut self) -> bool {
        self.unpolled = 0;
        if !self.stopped && self.abort.is_some_and(Abort::is_set) {
            self.stopped = true;
        }
        self.stopped
    }

    /// The value for the side to move of `(p, o)` when neither side can move, under the
    /// context's scoring rule.
    #[inline(always)]
    pub(super) fn game_over(&self, p: u64, o: u64) -> i32 {
        self.ctx
            .scoring
            .margin(p.count_ones(), o.count_ones(), self.ctx.squares as u32)
    }

    /// The table key of `(p, o)` and the symmetry that maps the position onto it.
    #[inline(always)]
    fn key(&self, p: u64, o: u64, empties: u32) -> (u64, u64, Symmetry) {
        if empties < self.ctx.tuning.symmetry_empties {
            return (p, o, Symmetry::Identity);
        }
        let shape = self.ctx.shape;
        let mut best = (p, o, Symmetry::Identity);
        for &s in &Symmetry::all(shape)[1..] {
            let (sp, so) = (s.apply(shape, p), s.apply(shape, o));
            if (sp, so) < (best.0, best.1) {
                best = (sp, so, s);
            }
        }
        best
    }

    /// The exact value of `(p, o)` for the side to move, by the configured driver; MTD(f)
    /// starts its null-window tests at `guess`, or after the selective passes of
    /// [`probcut`](super::probcut) (when they apply) at their value.
    pub(super) fn exact(&mut self, p: u64, o: u64, guess: i32) -> i32 {
        self.exact_within(p, o, guess, (-INF + 1, INF - 1), &mut |_| {})
    }

    /// [`Searcher::exact`] of a position whose value is known to lie in `known` (bounds
    /// proven earlier, inclusive), calling `step` after each null-window test with what it
    /// found: the selective passes' bounds (guesses), then MTD(f)'s proven ones.
    pub(super) fn exact_within(
        &mut self,
        p: u64,
        o: u64,
        guess: i32,
        known: (i32, i32),
        step: &mut dyn FnMut(Step),
    ) -> i32 {
        let (mut lower, mut upper) = known;
        if lower == upper {
            return lower;
        }
        if !self.ctx.tuning.mtdf {
            return self.search(p, o, (lower - 1).max(-INF), (upper + 1).min(INF));
        }
        let guess = self.selective(p, o, guess, step);
        if self.aborted() {
            return 0;
        }
        let mut g = guess.clamp(-64, 64).clamp(lower, upper);
        while lower < upper {
            let beta = if g == lower { g + 1 } else { g };
            step(Step::Testing { beta });
            g = self.search(p, o, beta - 1, beta);
            if self.aborted() {
                return 0;
            }
            if g < beta {
                upper = g;
            } else {
                lower = g;
            }
            step(Step::Proven {
                lower: lower.max(-64),
                upper: upper.min(64),
            });
        }
        g
    }

    /// Fail-soft principal-variation search of `(p, o)` with window `(alpha, beta)`.
    #[inline(always)]
    pub(super) fn search(&mut self, p: u64, o: u64, alpha: i32, beta: i32) -> i32 {
        let cpu = self.cpu;
        cpu.call(SearchCall(self), p, o, alpha as u64, beta as u64)
    }

    /// The body of [`Searcher::search`], inlined into its copy.
    #[inline(always)]
    fn search_body(&mut self, p: u64, o: u64, mut alpha: i32, mut beta: i32) -> i32 {
        let ctx = self.ctx;
        let t = ctx.tuning;
        let empty = ctx.mask & !(p | o);
        let n_empty = empty.count_ones();
        if n_empty <= t.endgame_empties {
            return self.endgame(p, o, alpha, beta, empty, n_empty);
        }
        self.nodes += 1;
        if self.nodes - self.published >= PUBLISH_EVERY {
            self.publish();
        }
        if n_empty >= t.stability_empties {
            if let Some(v) = self.stability_cutoff(p, o, alpha, n_empty) {
                return v;
            }
        }
        let moves = legal_moves(p, o, empty);
        if moves == 0 {
            if legal_moves(o, p, empty) == 0 {
                return self.game_over(p, o);
            }
            return -self.search(o, p, -beta, -alpha);
        }
        if self.abort.is_some() {
            self.unpolled += 1;
            if self.unpolled >= POLL_EVERY && self.poll_abort() {
                return 0;
            }
        }

        // Transposition table.
        let (kp, ko, sym) = if t.table {
            self.key(p, o, n_empty)
        } else {
            (p, o, Symmetry::Identity)
        };
        let mut hash_move = None;
        if t.table {
            if let Some(b) = ctx.table.get(ctx.part(n_empty), kp, ko) {
                if b.sel <= self.sel {
                    if b.lower >= beta || b.lower == b.upper {
                        return b.lower;
                    }
                    if b.upper <= alpha {
                        return b.upper;
                    }
                    alpha = alpha.max(b.lower);
                    beta = beta.min(b.upper);
                }
                if t.hash_move {
                    hash_move = b
                        .best
                        .map(|m| inverse(sym).apply_square(ctx.shape, m))
                        .filter(|&m| moves & (1u64 << m) != 0);
                }
            }
        }

        if self.sel > 0 && beta == alpha + 1 && self.patterned {
            if let Some(v) = self.probcut(p, o, empty, moves, n_empty, alpha) {
                return v;
            }
        }

        // Moves, with enhanced transposition cutoff on the way. The children's table buckets
        // are fetched first, so their cache misses overlap each other and the ordering work
        // (with `prefetch` off each probe waits for memory in turn).
        // Left uninitialised: filling 2 KiB per node took 3-5% of the time.
        let mut slots = [const { MaybeUninit::<Cand>::uninit() }; 64];
        let mut child_keys = [const { MaybeUninit::<(u64, u64)>::uninit() }; 64];
        let mut n = 0;
        let etc = t.table && n_empty >= t.etc_empties;
        // Children that probe the table themselves (above the end solver) benefit too.
        let fetch = t.prefetch && t.table && (etc || n_empty - 1 > t.endgame_empties);
        let child_part = ctx.part(n_empty - 1);
        for sq in Squares(moves) {
            let f = self.cpu.flips(p, o, sq);
            let bit = 1u64 << sq;
            let (np, no) = (o ^ f, p | f | bit);
            let (cp, co) = if etc {
                let (cp, co, _) = self.key(np, no, n_empty - 1);
                (cp, co)
            } else {
                (np, no)
            };
            if fetch {
                ctx.table.prefetch(child_part, cp, co);
            }
            child_keys[n].write((cp, co));
            slots[n].write(Cand {
                sq,
                flips: f,
                key: 0,
            });
            n += 1;
        }
        // SAFETY: the loop above wrote the first `n` slots of both arrays, and `Cand` and
        // `(u64, u64)` have the layout of their `MaybeUninit`s.
        let (list, child_keys) = unsafe {
            (
                std::slice::from_raw_parts_mut(slots.as_mut_ptr().cast::<Cand>(), n),
                std::slice::from_raw_parts(child_keys.as_ptr().cast::<(u64, u64)>(), n),
            )
        };
        if t.ordering {
            for c in list.iter_mut() {
                let bit = 1u64 << c.sq;
                let (np, no) = (o ^ c.flips, p | c.flips | bit);
                c.key = self.order_key(np, no, empty ^ bit, bit, n_empty);
            }
        }
        for (c, &(cp, co)) in list.iter_mut().zip(child_keys) {
            let mut known = None;
            if etc {
                if let Some(b) = ctx
                    .table
                    .get(child_part, cp, co)
                    .filter(|b| b.sel <= self.sel)
                {
                    if -b.upper >= beta {
                        return -b.upper;
                    }
                    known = (b.upper < 64).then_some(b.upper);
                }
            }
            if Some(c.sq) == hash_move {
                c.key = i32::MIN;
            } else if let (Some(upper), true) = (known, t.table_ordering) {
                c.key = -10_000 + 32 * upper;
            }
        }
        let schedule = match (self.patterned, t.pattern_shallow) {
            (true, Some(s)) => s,
            _ => Schedule {
                empties: t.shallow_empties,
                depth: t.shallow_depth,
                step: t.shallow_step,
            },
        };
        let sort_depth = schedule.depth_at(n_empty).filter(|_| t.ordering);
        // With a hash move, the shallow searches wait until it has failed to cut off.
        let defer =
            t.defer_ordering && self.patterned && hash_move.is_some() && sort_depth.is_some();
        if let (Some(depth), false) = (sort_depth, defer) {
            self.shallow_keys(list, p, o, empty, depth);
        }
        if t.ordering || t.table_ordering || hash_move.is_some() {
            // Stable: equal keys stay in row-major order.
            list.sort_by_key(|c| c.key);
        }

        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = list[0].sq;
        // The ply below the watched root, when it is watched (to the end of the loop, which
        // every return of an aborted search goes through).
        let ply = self.top.wrapping_sub(n_empty) as usize;
        let watched = (ply < PLIES).then(|| ctx.table.top().enter(ply, p, o, list.len()));
        for i in 0..list.len() {
            if i == 1 && defer {
                if let Some(depth) = sort_depth {
                    self.shallow_keys(&mut list[1..], p, o, empty, depth);
                    list[1..].sort_by_key(|c| c.key);
                }
            }
            let c = list[i];
            let (np, no) = (o ^ c.flips, p | c.flips | (1u64 << c.sq));
            let v = if i == 0 {
                -self.search(np, no, -beta, -alpha)
            } else if beta == alpha + 1 && n_empty >= t.split_empties {
                // Young brothers wait: the first move is done, the rest go in parallel.
                let (v, sq) = self.split(p, o, &list[i..], alpha, beta, watched);
                // The split's searchers saw the flags above this one, but this searcher did
                // not: when they were raised, moves the split dropped count as searched.
                if !self.poll_abort() && v > best {
                    best = v;
                    best_move = sq;
                }
                break;
            } else {
                let mut v = -self.search(np, no, -alpha - 1, -alpha);
                if v > alpha && v < beta && !self.aborted() {
                    v = v.max(-self.search(np, no, -beta, -v));
                }
                v
            };
            if self.aborted() {
                break;
            }
            if let Some(w) = watched {
                ctx.table.top().done(w, i + 1);
            }
            if v > best {
                best = v;
                best_move = c.sq;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if let Some(w) = watched {
            ctx.table.top().leave(w);
        }
        if self.aborted() {
            return 0;
        }

        if t.table {
            let (lower, upper) = if best <= alpha0 {
                (-64, best)
            } else if best >= beta {
                (best, 64)
            } else {
                (best, best)
            };
            let stored = sym.apply_square(ctx.shape, best_move);
            let bound = Bound {
                lower,
                upper,
                best: Some(stored),
                sel: self.sel,
            };
            ctx.table.put(ctx.part(n_empty), kp, ko, n_empty, bound);
        }
        best
    }

    /// The stability cutoff: the side to move ends with at most the squares the other side's
    /// stable discs leave it, so its final disc difference is at most `squares - 2 * stable`.
    /// The bound holds under both scoring rules: when the empty squares go to the winner, a
    /// winning side to move ends with `squares - 2 * (the other side's discs)` and a losing one
    /// with `2 * (its discs) - squares`, both at most `squares - 2 * stable`. Returns that upper
    /// bound when it is at or below `alpha` (a fail-soft fail low).
    #[inline(always)]
    pub(super) fn stability_cutoff(&self, p: u64, o: u64, alpha: i32, n_empty: u32) -> Option<i32> {
        let ctx = self.ctx;
        // Cheap test first: even if every disc of the other side were stable (by a margin
        // where a cutoff is unlikely to pay).
        let margin = if ctx.tuning.stability_margin {
            STABILITY_MARGIN[n_empty.min(7) as usize]
        } else {
            0
        };
        if ctx.squares - 2 * o.count_ones() as i32 > alpha - margin {
            return None;
        }
        let upper = ctx.squares - 2 * ctx.stability.stable(o, p).count_ones() as i32;
        (upper <= alpha).then_some(upper)
    }

    /// The best move the table holds for `(p, o)`, if any and legal (a frame bit).
    pub(super) fn table_move(&self, p: u64, o: u64) -> Option<u32> {
        let ctx = self.ctx;
        if !ctx.tuning.table {
            return None;
        }
        let empty = ctx.mask & !(p | o);
        let n_empty = empty.count_ones();
        let (kp, ko, sym) = self.key(p, o, n_empty);
        ctx.table
            .get(ctx.part(n_empty), kp, ko)?
            .best
            .map(|m| inverse(sym).apply_square(ctx.shape, m))
            .filter(|&m| legal_moves(p, o, empty) & (1u64 << m) != 0)
    }
}

/// One call of [`Searcher::search`], run by the searcher's copy with the position and the
/// window in registers (sign-extended).
struct SearchCall<'s, 'a, C>(&'s mut Searcher<'a, C>);

impl<C: Cpu> Call for SearchCall<'_, '_, C> {
    type Output = i32;
    #[inline(always)]
    fn call<D: Cpu>(self, _: D, p: u64, o: u64, alpha: u64, beta: u64) -> i32 {
        self.0.search_body(p, o, alpha as i32, beta as i32)
    }
}
