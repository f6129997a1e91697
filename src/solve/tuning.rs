//! The search's switches and thresholds ([`Tuning`]), one per technique so that each can be
//! measured on and off, with the schedules of the shallow ordering searches ([`Schedule`]) and
//! the parameters of the selective passes ([`Probcut`]).

/// Switches and thresholds of the search, one per technique, so each can be measured on and
/// off (see BENCHMARKS.md). [`Tuning::default`] is the measured best.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tuning {
    /// Use the transposition table.
    pub table: bool,
    /// On 8x8, positions with at most this many empty squares keep their bounds in the table's
    /// near part ([`Part::Near`](super::table::Part::Near), at most
    /// [`NEAR_MB`](super::table::NEAR_MB) MiB), the others in its main part; 0: all in the main
    /// part, as on other boards. 9: on FFO #50 and #53-54 (one thread, 128 MiB) 1.005x and
    /// 1.002x the nodes, 0.97x and 0.99x the time; the whole suite two positions at once 0.97x
    /// the time, 1.002x the nodes (BENCHMARKS.md, session 27).
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
    /// Look for stable discs only where the cutoff is likely (see
    /// [`STABILITY_MARGIN`](super::search::STABILITY_MARGIN)); off: wherever it is possible at
    /// all.
    pub stability_margin: bool,
    /// Count stable discs in the heuristic evaluation of the shallow ordering search.
    pub stable_eval: bool,
    /// On 8x8, evaluate with the trained pattern evaluation ([`pattern`](super::pattern)) in the
    /// shallow ordering search instead of the mobility evaluation.
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

impl Tuning {
    /// The tuning of the principal variation's fixed move order ([`Tuning::pv_order`]): the
    /// default with the mobility evaluation on every board, so that shipping a board's pattern
    /// weights changes no principal variation (every committed one was chosen this way).
    #[must_use]
    pub fn pv_rule() -> Tuning {
        Tuning {
            pattern_order: false,
            pattern_guess: false,
            ..Tuning::default()
        }
    }
}

/// When the selective passes run and how sure each is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probcut {
    /// Fewest empty squares at the root for the selective passes.
    pub root_empties: u32,
    /// Fewest empty squares at a node for the probcut test.
    pub empties: u32,
    /// Each pass's `t`, in hundredths of a standard deviation, in the order the passes run
    /// (the first [`MAX_LEVELS`] only: the table has four bits for the level).
    pub levels: &'static [u32],
}

/// Most selective passes.
pub const MAX_LEVELS: usize = 15;

impl Probcut {
    /// The levels that run.
    pub(super) fn passes(&self) -> &'static [u32] {
        &self.levels[..self.levels.len().min(MAX_LEVELS)]
    }
}
