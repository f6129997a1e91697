//! Negamax alpha-beta with principal-variation search, the transposition table, move ordering
//! and enhanced transposition cutoff.
//!
//! Values are final disc differences from the side to move's point of view (its discs minus the
//! other side's at the end of the game), in `-64..=64`, under the context's [`Scoring`]: empty
//! squares at the end count for nobody, or go to the winner. The rule enters only where a game
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
//! helper inlined into it; [`searcher`] picks the copy the CPU can run.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::board::{legal_moves, Scoring, Shape, Squares, Symmetry};
use crate::cpu::{Call, Cpu, Job, Level};

use super::abort::Abort;
use super::pattern::{self, Weights};
use super::probcut::Probcut;
use super::stability::Stability;
use super::table::{Bound, Part, Table};

/// Larger than any value.
pub const INF: i32 = 65;
/// Heuristic points of [`Searcher::shallow`] per disc of final value, fitted on 80 random 6x6
/// positions with 20-22 empty squares (slope 0.31-0.35 at depths 4-8, correlation 0.93-0.96).
const POINTS_PER_DISC: i32 = 3;
/// Heuristic points per stable disc in the evaluation.
const STABLE_WEIGHT: i32 = 12;
/// By empty squares (7 for 7 or more), how far `alpha` must exceed `squares - 2 * (the other
/// side's discs)` before the stability cutoff looks for stable discs. Without a margin the
/// search can only cut if every disc of the other side is stable: on a 6x6 position 28 plies
/// in, 1% of the tries with 3 empty squares and no margin cut, 26% of those with a margin of 10
/// (counted in a scratch build). Near the end a failed try costs about as much as the
/// small subtree it would have cut, so the margin is wide there. Measured on 6x6 after
/// `c2 b4 c5 d2 e4 e3 d1`, three interleaved runs each: 11.0-12.0 CPU s against 12.0-13.2 with
/// no margin, for 3% more nodes (see BENCHMARKS.md).
pub const STABILITY_MARGIN: [i32; 8] = [0, 0, 0, 24, 14, 8, 4, 2];
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

/// Switches and thresholds of the search, one per technique, so each can be measured on and
/// off (see BENCHMARKS.md). [`Tuning::default`] is the measured best.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tuning {
    /// Use the transposition table.
    pub table: bool,
    /// On 8x8, positions with at most this many empty squares keep their bounds in the table's
    /// near part ([`Part::Near`], at most [`NEAR_MB`](super::table::NEAR_MB) MiB), the
    /// others in its main part; 0: all in the main part, as on other boards. 9: on FFO #50
    /// and #53-54 (one thread, 128 MiB) 1.005x and 1.002x the nodes, 0.97x and 0.99x the time;
    /// the whole suite two positions at once 0.97x the time, 1.002x the nodes (BENCHMARKS.md,
    /// session 27).
    pub near_empties: u32,
    /// Prefetch the children's table buckets before probing them (ETC) or searching them.
    pub prefetch: bool,
    /// Key positions with at least this many empty squares by their symmetry-canonical form
    /// (`u32::MAX` turns it off).
    pub symmetry_empties: u32,
    /// Enhanced transposition cutoff at nodes with at least this many empty squares
    /// (`u32::MAX` turns it off).
    pub etc_empties: u32,
    /// Order moves by the opponent's (corner-weighted) mobility after them, corners and parity
    /// first; off means row-major order (the hash move still first).
    pub ordering: bool,
    /// Break ties in the ordering by the opponent's potential mobility (empty squares next to
    /// the mover's discs).
    pub potential: bool,
    /// In the ordering, weigh corners double and put moves next to an empty corner later
    /// (off: the weights before this was measured, corner -8 and no such penalty).
    pub corner_squares: bool,
    /// In the ordering, count the mover's own mobility after the move (more first) and the
    /// opponent's replies next to an empty corner at three quarters.
    pub own_mobility: bool,
    /// At nodes with at least this many empty squares, count the mover's stable discs after
    /// the move in the ordering (more first; `u32::MAX` turns it off).
    pub stable_order_empties: u32,
    /// With the pattern evaluation (8x8), the threshold in place of `stable_order_empties`
    /// (`None`: that one applies). Off on 8x8: on FFO #40-59 (one thread) leaving the stable
    /// discs out took 0.92x the nodes and 0.92x the time (BENCHMARKS.md, session 23).
    pub pattern_stable_order_empties: Option<u32>,
    /// Try the move stored in the table first.
    pub hash_move: bool,
    /// Put first the moves whose resulting positions the table already bounds low (for the
    /// opponent), ordered by that bound (read during enhanced transposition cutoff).
    pub table_ordering: bool,
    /// At nodes with at least this many empty squares, order moves by a shallow search with a
    /// heuristic evaluation (mobility and corners) instead of the opponent's mobility alone
    /// (`u32::MAX` turns it off). From 18: on FFO #41-49 it took 5-9% fewer nodes than from
    /// 16, which 6x6 had found equal (BENCHMARKS.md). With the pattern evaluation (8x8),
    /// `pattern_shallow` replaces it and the two fields below.
    pub shallow_empties: u32,
    /// Depth of that shallow search (plies after the move) at `shallow_empties`.
    pub shallow_depth: u32,
    /// One more ply of the shallow search per this many empty squares above
    /// `shallow_empties` (0: the same depth everywhere).
    pub shallow_step: u32,
    /// Positions with at most this many empty squares go to the special end solver (no table,
    /// parity ordering).
    pub endgame_empties: u32,
    /// Solve two empty squares by unrolled code in the end solver.
    pub last_two: bool,
    /// Split null-window nodes with at least this many empty squares among threads
    /// (`u32::MAX` turns the parallel search off).
    pub split_empties: u32,
    /// Cut off nodes with at least this many empty squares when the other side's stable discs
    /// already keep the value at or below alpha (`u32::MAX` turns it off).
    pub stability_empties: u32,
    /// Find the stable discs on the board's edges exactly (by a table of every edge pattern)
    /// before the fixed point that finds the rest.
    pub edge_stability: bool,
    /// Look for stable discs only where the cutoff is likely (see [`STABILITY_MARGIN`]); off:
    /// wherever it is possible at all.
    pub stability_margin: bool,
    /// Count stable discs in the heuristic evaluation of the shallow ordering search.
    pub stable_eval: bool,
    /// On 8x8, evaluate with the trained pattern evaluation ([`pattern`]) in the shallow
    /// ordering search instead of the mobility evaluation.
    pub pattern_order: bool,
    /// On 8x8, guess the root's value with the trained pattern evaluation.
    pub pattern_guess: bool,
    /// Guess with the pattern evaluation by an ordered search that keeps its best moves from
    /// one depth to the next ([`super::guess`]), stopping before a depth that would
    /// overrun the budget; off: the plain shallow search deepened until the budget is spent.
    pub ordered_guess: bool,
    /// With the pattern evaluation (8x8), the shallow ordering search's schedule, in place of
    /// `shallow_empties`, `shallow_depth` and `shallow_step` (`None`: those apply). From 16
    /// empty squares at depth 1, one more ply per 3 empties (depth 5 at 28 empties), as Edax
    /// deepens its sort search with the depth: on FFO #41-52 (one thread) it took 0.82x the
    /// nodes and 0.85x the time of depth 2 from 18 empties (BENCHMARKS.md).
    pub pattern_shallow: Option<Schedule>,
    /// With the pattern evaluation, the shallow search's ordering key adds this many
    /// evaluation units (1/64 disc) per point of the mobility ordering key
    /// (16 per opponent reply), so that of two good moves the one that leaves fewer replies,
    /// cheaper to prove, goes first. 128 (two discs per reply): on FFO #41-48 (one thread) 0
    /// took 1.09x the nodes, 64 0.99x and 256 1.08x (BENCHMARKS.md).
    pub order_mix: i32,
    /// Rebuild the principal variation with null-window tests ("does this move keep the
    /// value?") instead of windows of width two around the value.
    pub pv_null_window: bool,
    /// Start MTD(f) at the root from a guess by a heuristic search of this many nodes (0: start
    /// at 0).
    pub guess_nodes: u64,
    /// Guess every root move's value (else only the first; the others start from the value of
    /// the move before).
    pub guess_all: bool,
    /// Scale the guess's budget with the work: `guess_nodes` at 31 empty squares, a third of it
    /// for each empty square fewer, and no guess below 10,000 nodes (MTD(f) starts at 0).
    pub guess_scale: bool,
    /// Rebuild the principal variation taking, at each turn after the root, the first move
    /// that keeps the value in the order of a fixed shallow search (the moves the value search
    /// itself tried first, so their proofs are mostly in the table) instead of row-major order.
    pub pv_order: bool,
    /// Find exact values by a sequence of null-window searches (MTD(f)) instead of one
    /// principal-variation search with the full window (PVS is still used inside).
    pub mtdf: bool,
    /// With the pattern evaluation (8x8), selective MTD(f) passes with probcut before the
    /// exact one ([`super::probcut`]). On FFO #49-52 (one thread) levels 1.5 then 2.0 from 12
    /// empty squares took 0.80x the nodes and 0.86x the time of none, on #54 0.66x the nodes
    /// (BENCHMARKS.md).
    pub probcut: Option<Probcut>,
    /// With the pattern evaluation (8x8), at a node with a hash move, run the shallow ordering
    /// searches of the other moves only after the hash move has failed to cut off (on FFO
    /// #49-52 with probcut, one thread, 0.99x the nodes; other boards are unchanged, their
    /// node counts recorded in `results/`).
    pub defer_ordering: bool,
}

/// When the shallow ordering search runs, and how deep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// Fewest empty squares at which it runs.
    pub empties: u32,
    /// Its depth there (plies after the move).
    pub depth: u32,
    /// One more ply per this many empty squares above `empties` (0: the same depth
    /// everywhere).
    pub step: u32,
}

impl Schedule {
    /// The depth of the shallow search at a node with `n_empty` empty squares, if it runs.
    #[inline(always)]
    #[must_use]
    pub fn depth_at(self, n_empty: u32) -> Option<u32> {
        if n_empty < self.empties {
            return None;
        }
        Some(match self.step {
            0 => self.depth,
            step => self.depth + (n_empty - self.empties) / step,
        })
    }
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            table: true,
            near_empties: 9,
            prefetch: true,
            symmetry_empties: 26,
            etc_empties: 10,
            ordering: true,
            potential: true,
            corner_squares: true,
            own_mobility: true,
            stable_order_empties: 11,
            pattern_stable_order_empties: Some(u32::MAX),
            hash_move: true,
            table_ordering: true,
            shallow_empties: 18,
            shallow_depth: 2,
            shallow_step: 0,
            endgame_empties: 6,
            last_two: true,
            split_empties: 12,
            stability_empties: 3,
            stability_margin: true,
            edge_stability: true,
            stable_eval: true,
            pattern_order: true,
            pattern_guess: true,
            ordered_guess: true,
            order_mix: 128,
            pattern_shallow: Some(Schedule {
                empties: 16,
                depth: 1,
                step: 3,
            }),
            pv_null_window: true,
            guess_nodes: 1_000_000,
            guess_all: false,
            guess_scale: true,
            pv_order: true,
            mtdf: true,
            probcut: Some(Probcut {
                root_empties: 20,
                empties: 12,
                levels: &[150, 200],
            }),
            defer_ordering: true,
        }
    }
}

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

/// The squares next to any of `b` in the 8x8 frame (the caller masks them with empty squares,
/// which never include off-board bits).
#[inline]
pub(super) fn neighbours(b: u64) -> u64 {
    const NOT_A: u64 = 0xFEFE_FEFE_FEFE_FEFE;
    const NOT_H: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let h = ((b << 1) & NOT_A) | ((b >> 1) & NOT_H);
    let row = b | h;
    h | (row << 8) | (row >> 8)
}

/// Whether the pattern evaluation applies to `shape`: whether weights trained on that board
/// are shipped ([`pattern::shipped`]).
#[must_use]
pub fn patterned(shape: Shape) -> bool {
    pattern::shipped(shape).is_some()
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
        if !self.ctx.tuning.mtdf {
            return self.search(p, o, -INF, INF);
        }
        let guess = self.selective(p, o, guess);
        if self.aborted() {
            return 0;
        }
        let (mut lower, mut upper) = (-INF + 1, INF - 1);
        let mut g = guess.clamp(-64, 64);
        while lower < upper {
            let beta = if g == lower { g + 1 } else { g };
            g = self.search(p, o, beta - 1, beta);
            if self.aborted() {
                return 0;
            }
            if g < beta {
                upper = g;
            } else {
                lower = g;
            }
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
                let (v, sq) = self.split(p, o, &list[i..], alpha, beta);
                // The split's searchers saw the flags above this one, but this searcher did
                // not: when they were raised, moves the split dropped count as searched.
                if self.poll_abort() {
                    return 0;
                }
                if v > best {
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
                return 0;
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

    /// Orders `list`, moves of `(p, o)`, by the shallow search to `depth` after each (moves the
    /// table already ranked keep their keys).
    fn shallow_keys(&mut self, list: &mut [Cand], p: u64, o: u64, empty: u64, depth: u32) {
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

    /// The ordering key of the principal variation's moves for the position `(p, o)` reached
    /// by a move (opponent to move): the shallow search's value for the opponent, so lower
    /// first. Independent of the table and the thread count; the tuning's evaluation switches
    /// apply, so callers pass a searcher on a default-tuned context for a fixed rule.
    pub(super) fn pv_order_key(&mut self, p: u64, o: u64) -> i32 {
        let empty = self.ctx.mask & !(p | o);
        self.shallow(p, o, empty, 2, -SHALLOW_INF, SHALLOW_INF)
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

    /// Points of [`Searcher::evaluate`] per disc of final value.
    #[inline(always)]
    fn points_per_disc(&self) -> i32 {
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
    fn order_key(&self, np: u64, no: u64, empty: u64, bit: u64, n_empty: u32) -> i32 {
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

/// What the root driver asks of a searcher, whichever copy of the search it runs.
pub trait Search {
    /// The exact value of `(p, o)` for the side to move (MTD(f) from `guess`).
    fn exact(&mut self, p: u64, o: u64, guess: i32) -> i32;
    /// A fail-soft search of `(p, o)` with the window `(alpha, beta)`.
    fn search(&mut self, p: u64, o: u64, alpha: i32, beta: i32) -> i32;
    /// A heuristic guess of the value of `(p, o)` from about `budget` nodes.
    fn guess(&mut self, p: u64, o: u64, budget: u64) -> i32;
    /// The key that orders the moves of the principal variation (smaller first).
    fn pv_order_key(&mut self, p: u64, o: u64) -> i32;
    /// The best move the table holds for `(p, o)`, if any and legal (a frame bit).
    fn table_move(&self, p: u64, o: u64) -> Option<u32>;
    /// Whether the search stopped because an abort flag above it was raised (its results since
    /// are then unusable; see [`searcher_under`]).
    fn aborted(&self) -> bool;
}

impl<C: Cpu> Search for Searcher<'_, C> {
    fn exact(&mut self, p: u64, o: u64, guess: i32) -> i32 {
        Searcher::exact(self, p, o, guess)
    }
    fn search(&mut self, p: u64, o: u64, alpha: i32, beta: i32) -> i32 {
        Searcher::search(self, p, o, alpha, beta)
    }
    fn guess(&mut self, p: u64, o: u64, budget: u64) -> i32 {
        Searcher::guess(self, p, o, budget)
    }
    fn pv_order_key(&mut self, p: u64, o: u64) -> i32 {
        Searcher::pv_order_key(self, p, o)
    }
    fn table_move(&self, p: u64, o: u64) -> Option<u32> {
        Searcher::table_move(self, p, o)
    }
    fn aborted(&self) -> bool {
        Searcher::aborted(self)
    }
}

/// Makes a searcher on `ctx` for the copy of the level it runs at.
struct NewSearcher<'a> {
    ctx: &'a Ctx<'a>,
    abort: Option<&'a Abort<'a>>,
}

impl<'a> Job for NewSearcher<'a> {
    type Output = Box<dyn Search + 'a>;
    /// The x86-64-v4 copy measured no faster than the x86-64-v3 one (BENCHMARKS.md).
    const TOP: Level = Level::V3;
    fn run<C: Cpu>(self, cpu: C) -> Box<dyn Search + 'a> {
        Box::new(Searcher::new(self.ctx, cpu, self.abort))
    }
}

/// A searcher on `ctx` running the fastest copy of the search this CPU has ([`crate::cpu`]):
/// the x86-64-v3 copy solves about a quarter faster than the portable one.
#[must_use]
pub fn searcher<'a>(ctx: &'a Ctx<'a>) -> Box<dyn Search + 'a> {
    crate::cpu::run(NewSearcher { ctx, abort: None })
}

/// A searcher on `ctx` under the flag `abort`, which another thread may raise to stop it (a
/// deadline): the search then returns within 16 interior nodes without storing
/// anything, as under a parallel split that was cut off, and [`Search::aborted`] says so. It
/// reads the flag every 16 nodes, which costs 1-2% of the time, so the searches
/// that are not stopped this way ([`searcher`]) do not take one.
#[must_use]
pub fn searcher_under<'a>(ctx: &'a Ctx<'a>, abort: &'a Abort<'a>) -> Box<dyn Search + 'a> {
    crate::cpu::run(NewSearcher {
        ctx,
        abort: Some(abort),
    })
}

/// A searcher on `ctx` running the copy of `level` (or the best below it the CPU has).
#[must_use]
pub fn searcher_at<'a>(ctx: &'a Ctx<'a>, level: Level) -> Box<dyn Search + 'a> {
    crate::cpu::run_at(level, NewSearcher { ctx, abort: None })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::rng::Xoshiro256;

    /// A position of `shape` from a seeded random game, stopped at `empties` empty squares
    /// or at the game's end.
    pub(in crate::solve) fn random_position(
        shape: Shape,
        rng: &mut Xoshiro256,
        empties: u32,
    ) -> crate::board::Position {
        let mut pos = shape.start();
        while pos.empty().count_ones() > empties && !pos.is_over() {
            let turns = pos.legal_turns();
            pos = pos
                .apply(turns[rng.below(turns.len() as u32) as usize])
                .unwrap();
        }
        pos
    }

    #[test]
    fn every_copy_agrees() {
        // Every copy of the search this CPU runs (`searcher` runs only the best one) against
        // the portable one: the same value and the same number of nodes (one searcher, no
        // parallel split, a fresh table each) on 6x6 positions of 16 empty squares from seeded
        // random games.
        let shape = Shape::square(6).unwrap();
        let tuning = Tuning {
            split_empties: u32::MAX,
            ..Tuning::default()
        };
        let mut rng = Xoshiro256::from_seed(11);
        for _ in 0..30 {
            let pos = random_position(shape, &mut rng, 16);
            let (p, o) = (pos.player(), pos.opponent());
            let run = |level: Level| {
                let table = Table::new(8);
                let ctx = Ctx::new(&table, tuning, shape, Scoring::Discs);
                let v = searcher_at(&ctx, level).exact(p, o, 0);
                (v, ctx.nodes())
            };
            let portable = run(Level::Portable);
            for level in crate::cpu::levels() {
                assert_eq!(run(level), portable, "{level:?}");
            }
        }
    }

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

    #[test]
    fn the_near_table_changes_no_value() {
        // 8x8 positions of 15 empty squares, under both rules: the value with the positions of
        // up to 12 empty squares in a near part of 96 KiB (a 1 MiB table, so that they collide
        // often), against the value with every position in the main part.
        let shape = Shape::square(8).unwrap();
        let near = Tuning {
            near_empties: 12,
            ..Tuning::default()
        };
        let main_only = Tuning {
            near_empties: 0,
            ..Tuning::default()
        };
        let mut rng = Xoshiro256::from_seed(27);
        for game in 0..12 {
            let pos = random_position(shape, &mut rng, 15);
            let (p, o) = (pos.player(), pos.opponent());
            let scoring = if game % 2 == 0 {
                Scoring::Discs
            } else {
                Scoring::WinnerTakesEmpties
            };
            let value = |tuning: Tuning| {
                let table = Table::new(1);
                let ctx = Ctx::new(&table, tuning, shape, scoring);
                let v = searcher(&ctx).exact(p, o, 0);
                (v, ctx.nodes())
            };
            let (with, nodes_with) = value(near);
            let (without, nodes_without) = value(main_only);
            assert_eq!(with, without, "{pos}");
            assert!(nodes_with > 0 && nodes_without > 0);
        }
        // The near part is for 8x8 only: other boards' node counts are kept in `results/`.
        let table = Table::new(1);
        let eight = Ctx::new(&table, near, shape, Scoring::Discs);
        assert_eq!((eight.part(12), eight.part(13)), (Part::Near, Part::Main));
        let six = Ctx::new(&table, near, Shape::square(6).unwrap(), Scoring::Discs);
        assert_eq!(six.part(7), Part::Main);
    }
}
