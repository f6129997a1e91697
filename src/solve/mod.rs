//! Perfect play: the exact value of a position, its principal variation and the value of every
//! move, by alpha-beta search to the end of the game.
//!
//! **Values.** A value is a final disc difference under perfect play by both sides, under a
//! [`Scoring`] rule: by default empty squares left at the end count for nobody (as in the
//! reversi-nxn blog's scores); [`Scoring::WinnerTakesEmpties`] gives them to the winner (the
//! Othello rules of the FFO suite, Edax and Egaroucid). The [`SolveReport`] gives
//! every value *black-relative* (black's discs minus white's: positive means black wins);
//! [`Solver::value`] and [`Solver::window`] give them *relative to the side to move* (its discs
//! minus the other side's), the natural form for negamax callers.
//!
//! **Method.** Negamax alpha-beta, fail-soft, with principal-variation search (or MTD(f), see
//! [`Tuning::mtdf`]), a shared transposition table ([`table`]) keyed by symmetry-canonical forms
//! near the root, move ordering (hash move, fewest opponent replies, corners, parity, and a
//! shallow search whose evaluation counts stable discs, or on a board with shipped weights
//! (8x8, 6x6, 5x7, ...) the trained [`pattern`] evaluation), enhanced transposition cutoff, a
//! stability cutoff ([`stability`]), a special solver for the last few empty squares
//! ([`endgame`]) and a parallel young-brothers-wait search on rayon ([`parallel`]). At the root,
//! MTD(f) starts from a guess by a short heuristic search ([`train`] fits the pattern
//! evaluation); with the pattern evaluation, from 20 empty squares, selective passes with
//! probcut ([`probcut`])
//! come first and leave their best moves in the table for the exact search. Each is switched by a field of
//! [`Tuning`] so it can be measured; BENCHMARKS.md has the figures.
//!
//! **Determinism.** Values are exact, so they do not depend on the number of threads. The
//! principal variation is rebuilt from the exact value by a fixed rule (the first best root move
//! in row-major order; after it, at each turn the first move that keeps the value in the order
//! of a fixed depth-2 search with the mobility evaluation on every board, [`Tuning::pv_rule`],
//! ties in row-major order), so it does not depend on them either, nor on the tuning or the
//! shipped pattern weights (only [`Tuning::pv_order`] off changes it, to row-major order at
//! every turn, and a guide, [`Solver::set_pv_guide`], where it offers another move that keeps
//! the value).
//!
//! # Examples
//!
//! ```
//! use reversi_nxn::board::Shape;
//! use reversi_nxn::progress::Silent;
//! use reversi_nxn::solve::{SolveOptions, Solver};
//! // 4x4: the second player wins (reversi-nxn blog, 2008-07-03).
//! let start = Shape::square(4).unwrap().start();
//! let mut solver = Solver::new(16);
//! let report = solver.solve(&start, &SolveOptions::default(), &Silent);
//! assert!(report.value < 0);
//! assert_eq!(solver.value(&start), report.value); // black is to move at the start
//! ```

pub mod abort;
pub mod context;
pub mod dispatch;
pub mod endgame;
pub mod guess;
pub mod ordering;
pub mod parallel;
pub mod pattern;
pub mod probcut;
pub mod prove;
pub mod report;
pub mod sample;
pub mod search;
pub mod stability;
pub mod state;
pub mod table;
pub mod train;
pub mod tuning;
pub mod watch;

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::board::{Move, Position, Scoring, Shape, Side, Squares};
use crate::progress::Progress;

use abort::Abort;
use context::Ctx;
use dispatch::{searcher, Search};
pub use prove::{Mode, Outcome, Proof};
pub use report::{convention, SolveReport};
use search::Step;
use table::Table;
pub use tuning::Tuning;

/// How to solve: the search's switches and the scoring rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SolveOptions {
    /// The search's switches.
    pub tuning: Tuning,
    /// How a finished game is scored (what empty squares left at the end count for).
    pub scoring: Scoring,
}

/// A reusable perfect-play solver: owns the transposition table, which keeps its bounds across
/// queries on the same board under the same scoring rule (they are facts about positions) and
/// is cleared when the board or the rule changes.
#[derive(Debug)]
pub struct Solver {
    table: Table,
    shape: Option<(Shape, Scoring)>,
    tuning: Tuning,
    scoring: Scoring,
    guide: Vec<Move>,
}

impl Solver {
    /// A solver whose table takes at most `hash_mb` MiB. Check the budget against the machine
    /// first with [`crate::memory::check_available`].
    #[must_use]
    pub fn new(hash_mb: usize) -> Solver {
        Solver {
            table: Table::new(hash_mb),
            shape: None,
            tuning: Tuning::default(),
            scoring: Scoring::Discs,
            guide: Vec::new(),
        }
    }

    /// Bytes the table occupies.
    #[must_use]
    pub fn table_bytes(&self) -> usize {
        self.table.bytes()
    }

    /// The running count of nodes this solver has searched, for a thread that reports
    /// progress while a query runs (it lags by a few tens of thousands of nodes per thread,
    /// and only grows; the reports' node counts are exact).
    #[must_use]
    pub fn node_counter(&self) -> std::sync::Arc<std::sync::atomic::AtomicU64> {
        std::sync::Arc::clone(self.table.searched())
    }

    /// How far the search of the root move in progress has got at the top of its tree, for a
    /// thread that reports progress while [`Solver::solve`] runs ([`watch::Top::words`]).
    #[must_use]
    pub fn top(&self) -> std::sync::Arc<watch::Top> {
        std::sync::Arc::clone(self.table.top())
    }

    /// Sets the tuning used by [`Solver::value`], [`Solver::window`] and [`Solver::beats`].
    pub fn set_tuning(&mut self, tuning: Tuning) {
        self.tuning = tuning;
    }

    /// Sets the scoring rule used by [`Solver::value`], [`Solver::window`] and
    /// [`Solver::beats`] (default [`Scoring::Discs`]).
    pub fn set_scoring(&mut self, scoring: Scoring) {
        self.scoring = scoring;
    }

    /// Sets the turns, from the position [`Solver::solve`] and [`Solver::solve_kept`] are
    /// given, of a variation whose moves the principal variation's walk tests first (another
    /// run's variation, say, to check it in far fewer nodes than the rule's walk: refuting the
    /// moves the rule tries before the one that keeps the value can cost many times more than
    /// proving that one). At each turn where the walk has followed the guide so far, the
    /// guide's move is tested first and played if it keeps the value; where it does not, or
    /// past the guide's end, the walk goes on by its rule. So the variation found keeps the
    /// value at every turn, as without a guide, but it is the rule's own only where the
    /// guide's move is the rule's first to keep it. Empty (the default): the rule alone.
    pub fn set_pv_guide(&mut self, guide: Vec<Move>) {
        self.guide = guide;
    }

    /// Forgets the table's entries.
    pub fn clear(&mut self) {
        self.table.clear();
    }

    fn prepare(&mut self, shape: Shape, scoring: Scoring) {
        let key = Some((shape, scoring));
        if self.shape != key {
            if self.shape.is_some() {
                self.table.clear();
            }
            self.shape = key;
        }
    }

    /// Puts `bounds`, facts about positions of `shape` under `scoring` (such as those
    /// [`state::import`] carries over from another rule), into the table for the next queries
    /// of that board and rule.
    pub fn give(&mut self, shape: Shape, scoring: Scoring, bounds: &[table::Saved]) {
        self.prepare(shape, scoring);
        self.table.restore(bounds);
    }

    /// The exact value of `pos` **for the side to move**: its discs minus the other side's at
    /// the end under perfect play (under the rule of [`Solver::set_scoring`]).
    pub fn value(&mut self, pos: &Position) -> i32 {
        self.prepare(pos.shape(), self.scoring);
        let ctx = Ctx::new(&self.table, self.tuning, pos.shape(), self.scoring);
        let mut s = searcher(&ctx);
        s.exact(pos.player(), pos.opponent(), 0)
    }

    /// [`Solver::value`], with MTD(f) starting from the root guess that `solve --mode best`
    /// makes (on 8x8 with the pattern evaluation from 18 empty squares) instead of 0: the same
    /// value, in fewer null-window tests when it is far from 0.
    pub fn guessed_value(&mut self, pos: &Position) -> i32 {
        self.prepare(pos.shape(), self.scoring);
        let ctx = Ctx::new(&self.table, self.tuning, pos.shape(), self.scoring);
        let mut s = searcher(&ctx);
        exact_from_guess(&mut *s, &self.tuning, pos)
    }

    /// A fail-soft window search of `pos` for the side to move: a result `r` strictly inside
    /// `(alpha, beta)` is the exact value, `r <= alpha` means the value is at most `r`, and
    /// `r >= beta` means it is at least `r`. With `beta = alpha + 1` it is the cheapest test of
    /// "is the value above `alpha`?".
    pub fn window(&mut self, pos: &Position, alpha: i32, beta: i32) -> i32 {
        self.prepare(pos.shape(), self.scoring);
        let ctx = Ctx::new(&self.table, self.tuning, pos.shape(), self.scoring);
        let mut s = searcher(&ctx);
        s.search(pos.player(), pos.opponent(), alpha, beta)
    }

    /// Whether the side to move can finish with more than `bound` discs over the other side
    /// (`beats(pos, 0)`: is this position won for the side to move?).
    pub fn beats(&mut self, pos: &Position, bound: i32) -> bool {
        self.window(pos, bound, bound + 1) > bound
    }

    /// A heuristic guess of the value of `pos` for the side to move, in discs, from about
    /// `budget` nodes of heuristic search (the guess MTD(f) starts from). Deterministic: one
    /// thread, and the table is not read. Returns the guess and the nodes it took.
    pub fn heuristic(&mut self, pos: &Position, budget: u64) -> (i32, u64) {
        self.prepare(pos.shape(), self.scoring);
        let ctx = Ctx::new(&self.table, self.tuning, pos.shape(), self.scoring);
        let mut s = searcher(&ctx);
        let v = s.guess(pos.player(), pos.opponent(), budget);
        drop(s);
        (v, ctx.nodes())
    }

    /// [`Solver::window`]'s answer by MTD(f) confined to the window, and the nodes it took:
    /// null-window tests sharing the table, the first at the root guess `solve` makes (clamped
    /// into the window), each next at the last one's fail-soft result, until the value is
    /// exact or proven outside `(alpha, beta)`. A position far outside the window costs about
    /// one null-window test, one inside it its exact value (a proof's unit that finds a value
    /// near its hypothesis once, instead of testing it again at each new hypothesis).
    pub fn confined(&mut self, pos: &Position, alpha: i32, beta: i32) -> (i32, u64) {
        self.prepare(pos.shape(), self.scoring);
        let ctx = Ctx::new(&self.table, self.tuning, pos.shape(), self.scoring);
        let mut s = searcher(&ctx);
        let (p, o) = (pos.player(), pos.opponent());
        let budget = guess_budget(&self.tuning, pos.shape(), pos.empty().count_ones());
        let guess = if budget > 0 { s.guess(p, o, budget) } else { 0 };
        let (mut lower, mut upper) = (-search::INF, search::INF);
        let mut g = guess;
        // Proven: lower <= v <= upper. Stop once exact or outside the window.
        while lower < upper && upper > alpha && lower < beta {
            // Test v >= t for a t not yet decided, in alpha < t <= beta.
            let t = g.clamp((alpha + 1).max(lower + 1), beta.min(upper));
            g = s.search(p, o, t - 1, t);
            if g < t {
                upper = g;
            } else {
                lower = g;
            }
        }
        drop(s);
        let r = if upper <= alpha { upper } else { lower };
        (r, ctx.nodes())
    }

    /// [`Solver::window`] with the null window `(alpha, alpha + 1)`, and the nodes it took.
    pub fn test(&mut self, pos: &Position, alpha: i32) -> (i32, u64) {
        self.prepare(pos.shape(), self.scoring);
        let ctx = Ctx::new(&self.table, self.tuning, pos.shape(), self.scoring);
        let mut s = searcher(&ctx);
        let r = s.search(pos.player(), pos.opponent(), alpha, alpha + 1);
        drop(s);
        (r, ctx.nodes())
    }

    /// The legal moves of `pos` with their children in the order the principal variation
    /// tries them (see the module docs): a fixed depth-2 search with the mobility evaluation
    /// ([`Tuning::pv_rule`]), independent of the table, the tuning and the shipped weights, ties
    /// in row-major order. Empty when the side to move must pass.
    pub fn pv_order(&mut self, pos: &Position) -> Vec<(Move, Position)> {
        self.prepare(pos.shape(), self.scoring);
        let ctx = Ctx::new(&self.table, Tuning::pv_rule(), pos.shape(), self.scoring);
        let mut s = searcher(&ctx);
        pv_order(&mut *s, pos)
            .into_iter()
            .map(|(sq, child)| (Move::Place(sq), child))
            .collect()
    }

    /// Perfect play from `pos` whose value for the side to move is `value` (which must be its
    /// exact value): the principal variation [`Solver::solve`] gives after its first move, and
    /// the nodes its tests took.
    pub fn continuation(&mut self, pos: &Position, value: i32) -> (Vec<Move>, u64) {
        self.prepare(pos.shape(), self.scoring);
        let ctx = Ctx::new(&self.table, self.tuning, pos.shape(), self.scoring);
        let mut pv = Vec::new();
        let mut walk = Walk::default();
        continue_pv(
            &ctx,
            pos,
            value,
            &mut pv,
            &crate::progress::Silent,
            &mut walk,
        );
        (pv, ctx.nodes())
    }

    /// The exact value of every legal turn of `pos` for the side to move (in row-major order;
    /// a forced pass is the single turn, a finished game has none), under the rule of
    /// [`Solver::set_scoring`], if they are found before `deadline`; `None` when the deadline
    /// stops the search first. The values are those of [`Solver::solve`]; what the stopped
    /// search had proved stays in the table, so a later query gains from it.
    pub fn move_values_within(
        &mut self,
        pos: &Position,
        deadline: Instant,
    ) -> Option<Vec<(Move, i32)>> {
        self.prepare(pos.shape(), self.scoring);
        let ctx = Ctx::new(&self.table, self.tuning, pos.shape(), self.scoring);
        let root = Abort::under(None);
        let (done, wait) = std::sync::mpsc::channel::<()>();
        std::thread::scope(|scope| {
            // The timer raises the root flag at the deadline unless the search ends first
            // (dropping `done` wakes it).
            let root = &root;
            scope.spawn(move || {
                let left = deadline.saturating_duration_since(Instant::now());
                if wait.recv_timeout(left) == Err(std::sync::mpsc::RecvTimeoutError::Timeout) {
                    root.set();
                }
            });
            let values = values_under(&ctx, root, pos);
            drop(done);
            values
        })
    }

    /// Solves `pos`: its value, a principal variation, and the value of every legal turn.
    pub fn solve(
        &mut self,
        pos: &Position,
        opts: &SolveOptions,
        progress: &dyn Progress,
    ) -> SolveReport {
        self.prepare(pos.shape(), opts.scoring);
        solve_in(&self.table, pos, opts, &self.guide, progress, None)
            .expect("a solve without a state has nothing to write")
    }

    /// [`Solver::solve`] keeping its state in `state` ([`state`]): the root moves' values
    /// found by earlier runs are taken from it, its table snapshot is put into the table
    /// first, each root move's value is kept as it is found, and a thread writes a snapshot
    /// of the table every `state.every`, and once more at the end; when `state.stop` is
    /// raised it writes one at once and ends the process ([`state::Stop`]). The report's value,
    /// principal variation and move values are those of [`Solver::solve`]; its nodes and
    /// seconds add those of the earlier runs (as far as their files kept them).
    ///
    /// # Errors
    ///
    /// A root move's value cannot be written to the state (a failed snapshot is only
    /// reported on standard error: the next one may succeed, and a lost one loses only time).
    pub fn solve_kept(
        &mut self,
        pos: &Position,
        opts: &SolveOptions,
        progress: &dyn Progress,
        state: &mut state::SolveState,
    ) -> Result<SolveReport, state::StateError> {
        self.prepare(pos.shape(), opts.scoring);
        state.restore(&self.table);
        let saver = state.saver();
        let last = saver.clone();
        let (nodes_before, seconds_before) = state.before();
        let t0 = Instant::now();
        let counter = std::sync::Arc::clone(self.table.searched());
        let start_count = counter.load(std::sync::atomic::Ordering::Relaxed);
        let (done, wait) = std::sync::mpsc::channel::<()>();
        let table = &self.table;
        let guide = &self.guide;
        let noted = Noted {
            inner: progress,
            at: std::sync::Mutex::new(String::new()),
        };
        let noted = &noted;
        let stop = state.stop.clone();
        std::thread::scope(|scope| {
            scope.spawn(move || {
                // A stop is looked for this often; without one, the wait is the whole period.
                let poll = if stop.is_some() {
                    Duration::from_millis(100)
                } else {
                    saver.every
                };
                let mut next = Instant::now() + saver.every;
                // Until the solve ends (dropping `done` wakes this at once).
                while wait.recv_timeout(poll.min(next.saturating_duration_since(Instant::now())))
                    == Err(std::sync::mpsc::RecvTimeoutError::Timeout)
                {
                    let stopping = stop
                        .as_ref()
                        .filter(|s| s.flag.load(std::sync::atomic::Ordering::SeqCst));
                    if stopping.is_none() && Instant::now() < next {
                        continue;
                    }
                    let nodes = nodes_before + counter.load(std::sync::atomic::Ordering::Relaxed)
                        - start_count;
                    let seconds = seconds_before + t0.elapsed().as_secs_f64();
                    let at = noted.at(table);
                    match saver.save(table, nodes, seconds, &at) {
                        Ok(bounds) if stopping.is_some() => eprintln!(
                            "\nstopped: a last table snapshot of {bounds} bounds written ({nodes} \
                             nodes, {seconds:.0} s so far); --resume goes on from it"
                        ),
                        Ok(_) => {}
                        Err(e) => eprintln!("warning: table snapshot not written: {e}"),
                    }
                    if let Some(s) = stopping {
                        (s.exit)();
                    }
                    next = Instant::now() + saver.every;
                }
            });
            let report = solve_in(table, pos, opts, guide, noted, Some(state));
            drop(done);
            report
        })
        .inspect(|r| {
            // The whole table's largest subtrees, for a solve under the other rule to start
            // from ([`state::import`]).
            if let Err(e) = last.save(table, r.nodes, r.seconds, "") {
                eprintln!("warning: table snapshot not written: {e}");
            }
        })
    }
}

/// A solve's progress passed on to `inner`, keeping the last words of what it is busy with for
/// its snapshots to say where the search was.
struct Noted<'a> {
    inner: &'a dyn Progress,
    at: std::sync::Mutex<String>,
}

impl Noted<'_> {
    /// Where the search is: the last words it was busy with, and how far the watched root
    /// move's tree has got ([`watch::Top::words`]); empty before the first words.
    fn at(&self, table: &Table) -> String {
        let mut at = self.at.lock().map(|a| a.clone()).unwrap_or_default();
        if let Some(words) = table.top().words().filter(|_| !at.is_empty()) {
            at += &format!("; in its tree, {words}");
        }
        at
    }
}

impl Progress for Noted<'_> {
    fn start(&self, label: &str, total: u64) {
        self.inner.start(label, total);
    }
    fn resize(&self, total: u64) {
        self.inner.resize(total);
    }
    fn advance(&self, n: u64) {
        self.inner.advance(n);
    }
    fn finish(&self) {
        if let Ok(mut at) = self.at.lock() {
            at.clear();
        }
        self.inner.finish();
    }
    fn note(&self, line: &str) {
        self.inner.note(line);
    }
    fn working_on(&self, what: &str) {
        if let Ok(mut at) = self.at.lock() {
            what.clone_into(&mut at);
        }
        self.inner.working_on(what);
    }
    fn should_stop(&self) -> bool {
        self.inner.should_stop()
    }
}

/// The body of [`Solver::solve`] and [`Solver::solve_kept`] on `table`, prepared for `pos`'s
/// board and the scoring rule, with the principal variation's `guide`
/// ([`Solver::set_pv_guide`]).
fn solve_in(
    table: &Table,
    pos: &Position,
    opts: &SolveOptions,
    guide: &[Move],
    progress: &dyn Progress,
    mut state: Option<&mut state::SolveState>,
) -> Result<SolveReport, state::StateError> {
    let t0 = Instant::now();
    let (nodes_before, seconds_before) = state.as_ref().map_or((0, 0.0), |s| s.before());
    let ctx = Ctx::new(table, opts.tuning, pos.shape(), opts.scoring);
    let searched0 = table.searched().load(Ordering::Relaxed);
    let sign = if pos.black_to_move() { 1 } else { -1 };
    let turns = pos.legal_turns();

    // The exact value of each child, once per symmetry class.
    let mut by_class: HashMap<(u64, u64), i32> = HashMap::new();
    let children: Vec<(Move, Position)> = turns
        .iter()
        .map(|&m| (m, pos.apply(m).expect("legal turn")))
        .collect();
    let classes: usize = {
        let mut keys: Vec<_> = children.iter().map(|(_, c)| c.canonical()).collect();
        keys.sort_unstable();
        keys.dedup();
        keys.len()
    };
    progress.start("solve", classes as u64);
    let mut move_values = Vec::with_capacity(turns.len());
    let mut side_value = -search::INF;
    // MTD(f) guesses each move's value from the previous one's.
    let mut guess = 0;
    let mut first = true;
    for (m, child) in &children {
        let key = child.canonical();
        let kept = state.as_ref().and_then(|s| s.known(key));
        let v = match (by_class.get(&key), kept) {
            (Some(&v), _) => v,
            (None, Some(v)) => {
                // Found by an earlier run.
                first = false;
                guess = v;
                by_class.insert(key, v);
                progress.advance(1);
                v
            }
            (None, None) => {
                let doing = format!(
                    "root move {} ({} of {classes})",
                    pos.move_name(*m),
                    by_class.len() + 1
                );
                // Bounds of the move's value for the side to move at the root, proven by an
                // earlier run and then by this one.
                let squares = pos.shape().squares() as i32;
                let mut known = state
                    .as_ref()
                    .and_then(|s| s.proven(key))
                    .unwrap_or((-squares, squares));
                progress.working_on(&proven_words(&doing, known, sign, squares));
                let empties = child.empty().count_ones();
                // Searchers read the watched root when they are made.
                table.top().start(empties);
                let mut s = searcher(&ctx);
                let budget = guess_budget(&opts.tuning, pos.shape(), empties);
                if budget > 0 && (first || opts.tuning.guess_all) {
                    guess = -s.guess(child.player(), child.opponent(), budget);
                }
                first = false;
                let (n0, s0) = (ctx.nodes(), t0.elapsed().as_secs_f64());
                let mut kept = Ok(());
                // The selective passes' last estimate. (The exact tests are named by their
                // question, not counted: a resumed run starts inside the bounds proven, so a
                // count would restart from 1 for the same test.)
                let mut estimate = None;
                let v = -s.exact_within(
                    child.player(),
                    child.opponent(),
                    -guess,
                    (-known.1, -known.0),
                    &mut |step| {
                        let (lower, upper) = match step {
                            Step::Proven { lower, upper } => (lower, upper),
                            Step::Selective {
                                pass,
                                passes,
                                lower,
                                upper,
                            } => {
                                let phase = match bounds_words((-upper, -lower), sign, squares) {
                                    Some(guess) => {
                                        let words = format!(", an estimate: {guess}");
                                        estimate = Some(guess);
                                        words
                                    }
                                    // A pass starts.
                                    None => match &estimate {
                                        Some(before) => {
                                            format!(" under way (the pass before: {before})")
                                        }
                                        None => " under way".to_string(),
                                    },
                                };
                                progress.working_on(&format!(
                                    "{}; selective pass {pass} of {passes}{phase}",
                                    proven_words(&doing, known, sign, squares)
                                ));
                                return;
                            }
                            Step::Testing { beta } => {
                                let mut line = format!(
                                    "{}; exact test: {}?",
                                    proven_words(&doing, known, sign, squares),
                                    test_words(beta, sign)
                                );
                                if let Some(guess) = &estimate {
                                    line += &format!(" (the selective passes' estimate: {guess})");
                                }
                                progress.working_on(&line);
                                return;
                            }
                        };
                        let now = (-upper, -lower);
                        if now.0 <= known.0 && now.1 >= known.1 {
                            return;
                        }
                        known = (known.0.max(now.0), known.1.min(now.1));
                        progress.working_on(&proven_words(&doing, known, sign, squares));
                        if let (Some(state), Ok(())) = (state.as_mut(), &kept) {
                            // The live count (ctx.nodes() counts finished searchers only).
                            let n1 = table.searched().load(Ordering::Relaxed) - searched0;
                            let s1 = t0.elapsed().as_secs_f64();
                            kept =
                                state.narrow(key, known, (nodes_before + n1, seconds_before + s1));
                        }
                    },
                );
                drop(s);
                table.top().stop();
                kept?;
                guess = v;
                by_class.insert(key, v);
                if let Some(state) = state.as_mut() {
                    let (n1, s1) = (ctx.nodes(), t0.elapsed().as_secs_f64());
                    state.record(
                        key,
                        v,
                        (n1 - n0, s1 - s0),
                        (nodes_before + n1, seconds_before + s1),
                    )?;
                }
                progress.advance(1);
                v
            }
        };
        side_value = side_value.max(v);
        move_values.push((*m, sign * v));
    }
    if turns.is_empty() {
        side_value = opts.scoring.margin(
            pos.player().count_ones(),
            pos.opponent().count_ones(),
            pos.shape().squares(),
        );
    }
    // The walk goes on from where a kept one stopped, and is kept after each test.
    let (replay, refuted) = state.as_ref().and_then(|s| s.walk()).unwrap_or_default();
    let mut kept = Ok(());
    let mut keep = |found: &[Move], refuted: &[Move]| {
        if let (Some(state), Ok(())) = (state.as_mut(), &kept) {
            let n1 = table.searched().load(Ordering::Relaxed) - searched0;
            let s1 = t0.elapsed().as_secs_f64();
            kept = state.keep_walk(found, refuted, (nodes_before + n1, seconds_before + s1));
        }
    };
    let mut walk = Walk {
        replay,
        refuted,
        guide,
        keep: Some(&mut keep),
    };
    let pv = principal_variation(
        &ctx,
        pos,
        side_value,
        &move_values,
        sign,
        progress,
        &mut walk,
    );
    drop(walk);
    kept?;
    progress.finish();
    let mut end = *pos;
    for &m in &pv {
        end = end.apply(m).expect("the principal variation replays");
    }
    let value = sign * side_value;
    let winner = match value.signum() {
        1 => Some(Side::Black),
        -1 => Some(Side::White),
        _ => None,
    };
    Ok(SolveReport {
        position: *pos,
        value,
        winner,
        pv,
        final_score: (end.black_count(), end.white_count()),
        move_values,
        nodes: nodes_before + ctx.nodes(),
        ordering_nodes: ctx.ordering_nodes(),
        seconds: seconds_before + t0.elapsed().as_secs_f64(),
        threads: rayon::current_num_threads(),
        scoring: opts.scoring,
    })
}

/// What a solve is busy with, `doing`, and the bounds `known` of the value of the root move
/// in progress for the side to move at the root (`sign`: 1 when that is black), in black's
/// terms as the report gives move values; `±squares` is no bound.
pub fn proven_words(doing: &str, known: (i32, i32), sign: i32, squares: i32) -> String {
    match bounds_words(known, sign, squares) {
        Some(words) => format!("{doing}, proven {words}"),
        None => doing.to_string(),
    }
}

/// The question a null-window test of a root move asks, in black's terms: whether the
/// move's value for the side to move at the move's child is at least `beta`, that is whether
/// the root's side (`sign`: 1 when that is black) gets at most `-beta`: "is it at most -2 for
/// black".
fn test_words(beta: i32, sign: i32) -> String {
    if sign > 0 {
        format!("is it at most {:+} for black", -beta)
    } else {
        format!("is it at least {beta:+} for black")
    }
}

/// Bounds `(lower, upper)` of a value for the side to move at the root (`sign`: 1 when that
/// is black) in black's terms, "at most -2 for black"; `None` when neither is a bound (one of
/// `±squares` or beyond is none).
fn bounds_words((lower, upper): (i32, i32), sign: i32, squares: i32) -> Option<String> {
    let (lower, upper) = if sign > 0 {
        (lower, upper)
    } else {
        (-upper, -lower)
    };
    match (lower > -squares, upper < squares) {
        _ if lower == upper => Some(format!("{lower:+} for black")),
        (true, true) => Some(format!("between {lower:+} and {upper:+} for black")),
        (true, false) => Some(format!("at least {lower:+} for black")),
        (false, true) => Some(format!("at most {upper:+} for black")),
        (false, false) => None,
    }
}

/// The body of [`Solver::move_values_within`]: the children's values by searchers under
/// `root`, `None` once it is raised.
fn values_under(ctx: &Ctx<'_>, root: &Abort<'_>, pos: &Position) -> Option<Vec<(Move, i32)>> {
    let mut by_class: HashMap<(u64, u64), i32> = HashMap::new();
    let mut values = Vec::new();
    let mut guess = 0;
    let mut first = true;
    for m in pos.legal_turns() {
        let child = pos.apply(m).expect("legal turn");
        let key = child.canonical();
        let v = if let Some(&v) = by_class.get(&key) {
            v
        } else {
            let mut s = dispatch::searcher_under(ctx, root);
            let budget = guess_budget(&ctx.tuning, pos.shape(), child.empty().count_ones());
            if budget > 0 && (first || ctx.tuning.guess_all) {
                guess = -s.guess(child.player(), child.opponent(), budget);
            }
            first = false;
            let v = -s.exact(child.player(), child.opponent(), -guess);
            if s.aborted() || root.is_set() {
                return None;
            }
            guess = v;
            by_class.insert(key, v);
            v
        };
        values.push((m, v));
    }
    Some(values)
}

/// Seconds [`Solver::solve`] takes on two cores for the 6x6 start, 32 empty squares
/// (BENCHMARKS.md: 40-50 s, one thread 92 s): the anchor of [`estimated_seconds`].
pub const SECS_AT_32: f64 = 60.0;

/// An estimate of the seconds [`Solver::solve`] takes on two cores for a position of `shape`
/// with `empties` empty squares, which decides where the engine of `play` solves exactly
/// (`solve` and `prove` ask `--yes` by [`long_solve_estimate`] instead). It is anchored at the
/// 6x6 start as it took before the trained patterns ([`SECS_AT_32`]; now 10-13 s), so it leans
/// high, as that engine wants; above 32 empty squares each one multiplies it by 3; below
/// 32 each empty square multiplies it by 2.3, the measured rate (6x6: 28 empty squares 2.6 s on
/// one thread, 32 empty squares 40-90 s), and an 8x8 position takes as long as a 6x6 one of 4
/// more empty squares (FFO #53-54: 28 empty squares, 60-126 s; #40: 20, 0.5 s), boards in
/// between an interpolated share of that, boards of 36 squares or fewer as 6x6 (5x5, 21 empty
/// squares: 0.03 s; 5x6, 26: 1.2 s). Single positions stray from it tenfold and more either
/// way, so a caller with a deadline stops the search there ([`Solver::move_values_within`]).
#[must_use]
pub fn estimated_seconds(shape: Shape, empties: u32) -> f64 {
    let squares = shape.squares() as i32;
    // Empty squares that make a 6x6 position as hard: 0 up to 36 squares, 4 on 8x8.
    let harder = ((squares - 36).max(0) * 4 + 14) / 28;
    let e = empties as i32 + harder - 32;
    if e >= 0 {
        SECS_AT_32 * 3f64.powi(e)
    } else {
        SECS_AT_32 * 2.3f64.powi(e)
    }
}

/// Nodes per second of [`Solver::solve`] on two cores on the long starts: the 6x7 start took
/// 3.02e11 nodes in 12,901 s (BENCHMARKS.md), 2.3e7 a second.
const LONG_NODES_PER_SEC: f64 = 2.3e7;

/// The starts of at least 32 empty squares whose [`Solver::solve`] cost on two cores (trained
/// patterns) is known, the anchors of [`long_solve_estimate`]: rows, columns, empty squares,
/// nodes, and where the nodes come from. 6x8 is the check's solve, the one whose principal
/// variation's walk followed the rule alone (the first solve took 2.67e12 nodes with a guided
/// walk, its value alone about 2.6e12); 7x7 from session 48's sample of its proof: a first
/// selection of 4,091 units at 1.70e9 nodes each, 7.0e12 nodes, three to nine times that with
/// reselections, and a fifth of that for one solve (6x7's solve took 0.21 times its proof's
/// nodes), the high end of which is taken (cluster/PLAN.md, section 9). 7x7 also anchors the
/// boards larger than it.
const START_COSTS: [(u32, u32, u32, f64, &str); 5] = [
    (6, 6, 32, 3.96e8, "measured (BENCHMARKS.md)"),
    (5, 8, 36, 3.12e9, "measured (BENCHMARKS.md)"),
    (
        6,
        7,
        38,
        3.02e11,
        "measured over three runs (BENCHMARKS.md)",
    ),
    (
        6,
        8,
        44,
        3.6e12,
        "measured over the 15 runs of the check's solve (BENCHMARKS.md)",
    ),
    (
        7,
        7,
        45,
        1.3e13,
        "sized from a random sample of its proof's units and 6x7's solve, a fifth of its proof \
         (cluster/PLAN.md, section 9)",
    ),
];

/// The size of a long solve estimated before it starts ([`long_solve_estimate`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LongEstimate {
    /// Nodes.
    pub nodes: f64,
    /// Seconds on two cores.
    pub seconds: f64,
    /// Its basis in words, for a message.
    pub basis: String,
}

/// An estimate of the nodes and seconds [`Solver::solve`] (or a proof in work units, which
/// takes a few times more nodes but shares them among processes) takes on two cores for a
/// position of `shape` with `empties` empty squares: the cost of the start of the same board
/// (or the largest known, for boards with none), multiplied by three for each empty square
/// more and divided by three for each one fewer (6x6 to 6x7 grew 3.2 times an empty square,
/// 5x7 to 5x8 1.6 times, so three leans high). It is what `solve` and `prove` ask `--yes` by,
/// and what a long solve's progress reckons the time left by; single positions stray from it
/// tenfold and more either way.
#[must_use]
pub fn long_solve_estimate(shape: Shape, empties: u32) -> LongEstimate {
    let (r, c) = (
        shape.rows().min(shape.cols()),
        shape.rows().max(shape.cols()),
    );
    let own = START_COSTS.iter().find(|a| (a.0, a.1) == (r, c));
    let &(ar, ac, ae, start, source) = own.unwrap_or(&START_COSTS[START_COSTS.len() - 1]);
    let nodes = start * 3f64.powi(empties as i32 - ae as i32);
    let basis = format!(
        "the {ar}x{ac} start, {ae} empty squares, takes about {start:.1e} nodes, {} on two \
         cores, {source}; each empty square more multiplies that by about three",
        crate::progress::human_duration(start / LONG_NODES_PER_SEC),
    );
    LongEstimate {
        nodes,
        seconds: nodes / LONG_NODES_PER_SEC,
        basis,
    }
}

/// Nodes of the root guess with the pattern evaluation (8x8), from [`PATTERN_GUESS_EMPTIES`]
/// empty squares: on FFO #41-49 (one thread) a guess of 100,000 nodes took 5-9% fewer nodes
/// than none, and one of 300,000 no fewer (BENCHMARKS.md).
const PATTERN_GUESS_NODES: u64 = 100_000;
/// Fewest empty squares for the pattern evaluation's root guess: below, a position solves in
/// about the time of the guess.
const PATTERN_GUESS_EMPTIES: u32 = 18;
/// Nodes of the root guess with the pattern evaluation from [`PATTERN_GUESS_LARGE_EMPTIES`]
/// empty squares. There each disc the guess is off costs MTD(f) a null-window proof of 1e9
/// nodes or more, a hundred times this: on FFO #54 (28 empties, -2) the guess of 100,000 nodes
/// was +9, and MTD(f) walked down through five proofs of 1.0-2.4e9 nodes each; this one is -1
/// (the ordered guess reaches depth 14 in 4.2e7 nodes and stops before depth 15). Below, on
/// FFO #49-52, budgets of 1e7-5e7 cost more than they saved (BENCHMARKS.md).
const PATTERN_GUESS_LARGE: u64 = 100_000_000;
/// Fewest empty squares for [`PATTERN_GUESS_LARGE`].
const PATTERN_GUESS_LARGE_EMPTIES: u32 = 28;
/// [`PATTERN_GUESS_LARGE`] on the smaller boards with a pattern evaluation. From the 6x6 and
/// 5x7 starts (32 and 31 empty squares, one thread) a guess of 1e6 nodes took 0.88x and 0.85x
/// the nodes of one of 1e8, and one of 1e7 0.89x and 0.87x (docs/pattern-eval.md): a whole
/// proof there takes a few 1e8 nodes, not the 1e10 of FFO #54.
const PATTERN_GUESS_LARGE_SMALL_BOARD: u64 = 1_000_000;

/// The exact value of `pos` for the side to move by `s`, MTD(f) starting from the root guess
/// of [`guess_budget`] (from 0 when there is none).
fn exact_from_guess(s: &mut dyn Search, t: &Tuning, pos: &Position) -> i32 {
    let (p, o) = (pos.player(), pos.opponent());
    let budget = guess_budget(t, pos.shape(), pos.empty().count_ones());
    let guess = if budget > 0 { s.guess(p, o, budget) } else { 0 };
    s.exact(p, o, guess)
}

/// The node budget of the root guess for a position of `shape` with `empties` empty squares (0:
/// no guess).
fn guess_budget(t: &Tuning, shape: Shape, empties: u32) -> u64 {
    if !t.guess_scale {
        return t.guess_nodes;
    }
    if t.pattern_guess && context::patterned(shape) {
        return if empties >= PATTERN_GUESS_LARGE_EMPTIES {
            if shape.squares() == 64 {
                PATTERN_GUESS_LARGE
            } else {
                PATTERN_GUESS_LARGE_SMALL_BOARD
            }
        } else if empties >= PATTERN_GUESS_EMPTIES {
            PATTERN_GUESS_NODES
        } else {
            0
        };
    }
    let budget = (empties..31).fold(t.guess_nodes, |b, _| b / 3);
    if budget < 10_000 {
        0
    } else {
        budget
    }
}

/// Perfect play from `pos` whose value for the side to move is `value`: at each turn the first
/// move whose child keeps the value, in the order of [`Searcher::pv_order_key`] on a
/// context of [`Tuning::pv_rule`] (row-major with [`Tuning::pv_order`] off), tested by a null-window
/// search at the value, or with [`Tuning::pv_null_window`] off by a search with the window just
/// around it. The root's choice comes from `move_values` (black-relative, times `sign`): the
/// guide's first turn ([`Walk::guide`]) if it is a best move, else the first best move.
/// `progress` is told each test as it starts (on a large board the tests after the root take
/// hours), and `walk` keeps the steps ([`Walk`]; a kept walk whose first turn is not the
/// root's choice is not replayed).
fn principal_variation(
    ctx: &Ctx<'_>,
    pos: &Position,
    value: i32,
    move_values: &[(Move, i32)],
    sign: i32,
    progress: &dyn Progress,
    walk: &mut Walk<'_>,
) -> Vec<Move> {
    let mut pv = Vec::new();
    let best = |m: &Move| {
        move_values
            .iter()
            .any(|&(b, v)| b == *m && sign * v == value)
    };
    let guided = walk.guide.first().filter(|m| best(m)).copied();
    let Some(first) = guided.or_else(|| move_values.iter().map(|&(m, _)| m).find(best)) else {
        return pv;
    };
    pv.push(first);
    if walk.replay.first() == Some(&first) {
        walk.replay.remove(0);
    } else {
        walk.replay.clear();
        walk.refuted.clear();
    }
    let pos = pos.apply(first).expect("legal turn");
    continue_pv(ctx, &pos, -value, &mut pv, progress, walk);
    pv
}

/// What a principal variation's walk tells after each test: the turns found and the moves of
/// the next turn refuted.
type KeepWalk<'a> = &'a mut dyn FnMut(&[Move], &[Move]);

/// Where a principal variation's walk starts and whom it tells its steps: a walk kept outside
/// the process (a solve's state) is taken up at the test it stopped in.
#[derive(Default)]
struct Walk<'a> {
    /// Turns a kept walk found after those the walk is given, replayed without a test.
    replay: Vec<Move>,
    /// Moves of the turn after them that the kept walk refuted, skipped without a test.
    refuted: Vec<Move>,
    /// Turns from the root whose moves are tested first while the walk follows them
    /// ([`Solver::set_pv_guide`]).
    guide: &'a [Move],
    /// Told after each test the turns found and the moves of the next turn refuted.
    keep: Option<KeepWalk<'a>>,
}

/// Perfect play from `pos`, whose value for the side to move is `value`, appended to `pv`: at
/// each turn the first move whose child keeps the value in the order of [`pv_order`] (row-major
/// with [`Tuning::pv_order`] off), tested by a null-window search at the value, or with
/// [`Tuning::pv_null_window`] off by a search with the window just around it; while the
/// variation so far is the start of `walk`'s guide, the guide's next move comes first.
/// `progress` is told each test as it starts: [`pv_words`]. The walk begins with `walk`'s
/// replayed turns and skips the moves it says were refuted, and tells `walk` each step.
fn continue_pv(
    ctx: &Ctx<'_>,
    pos: &Position,
    value: i32,
    pv: &mut Vec<Move>,
    progress: &dyn Progress,
    walk: &mut Walk<'_>,
) {
    let mut pos = *pos;
    let mut v = value;
    for m in std::mem::take(&mut walk.replay) {
        pos = pos
            .apply(m)
            .expect("a kept walk's turns are legal (checked on reading)");
        pv.push(m);
        v = -v;
    }
    let mut skip = std::mem::take(&mut walk.refuted);
    let mut s = searcher(ctx);
    // The move order of the PV rule: a fixed shallow search, whatever the tuning.
    let fixed_ctx = Ctx::new(ctx.table, Tuning::pv_rule(), ctx.shape, ctx.scoring);
    let mut fixed = searcher(&fixed_ctx);
    loop {
        let moves = pos.moves();
        if moves == 0 {
            if pos.opponent_moves() == 0 {
                break;
            }
            pv.push(Move::Pass);
            pos = pos.pass();
            v = -v;
            continue;
        }
        let mut order: Vec<(u32, Position)> = if ctx.tuning.pv_order {
            pv_order(&mut *fixed, &pos)
        } else {
            Squares(moves)
                .filter_map(|sq| pos.play(sq).map(|child| (sq, child)))
                .collect()
        };
        if let Some(Move::Place(g)) = walk.guide.get(pv.len()) {
            if walk.guide.starts_with(pv) {
                if let Some(i) = order.iter().position(|&(sq, _)| sq == *g) {
                    let guided = order.remove(i);
                    order.insert(0, guided);
                }
            }
        }
        let count = order.len();
        let mut refuted = Vec::new();
        let next = order.into_iter().enumerate().find_map(|(i, (sq, child))| {
            if skip.contains(&Move::Place(sq)) {
                refuted.push(Move::Place(sq));
                return None;
            }
            progress.working_on(&pv_words(
                pv.len(),
                &pos.move_name(Move::Place(sq)),
                i + 1,
                count,
            ));
            // A null window suffices: no move does better than `v`, so "at least v" is "v".
            let r = if ctx.tuning.pv_null_window {
                -s.search(child.player(), child.opponent(), -v, -v + 1)
            } else {
                -s.search(child.player(), child.opponent(), -v - 1, -v + 1)
            };
            if r >= v {
                return Some((sq, child));
            }
            refuted.push(Move::Place(sq));
            if let Some(keep) = walk.keep.as_mut() {
                keep(pv, &refuted);
            }
            None
        });
        skip.clear();
        let Some((sq, child)) = next else {
            // Unreachable for a sound search; stop rather than loop.
            debug_assert!(false, "no move keeps the value {v} at {pos}");
            break;
        };
        pv.push(Move::Place(sq));
        pos = child;
        v = -v;
        if let Some(keep) = walk.keep.as_mut() {
            keep(pv, &[]);
        }
    }
    drop(fixed);
    ctx.nodes
        .fetch_add(fixed_ctx.nodes(), std::sync::atomic::Ordering::Relaxed);
    ctx.ordering_nodes.fetch_add(
        fixed_ctx.ordering_nodes(),
        std::sync::atomic::Ordering::Relaxed,
    );
}

/// What the principal variation's search is busy with: after `found` moves, testing `m`, the
/// `k`-th of the `n` moves of its rule's order.
fn pv_words(found: usize, m: &str, k: usize, n: usize) -> String {
    format!(
        "principal variation: move {}, testing {m} ({k} of {n})",
        found + 1
    )
}

/// The legal moves of `pos` (which must have one) with their children, in the order of the
/// principal variation's rule: the key of a fixed depth-2 heuristic search of each child
/// ([`Search::pv_order_key`], independent of the table), lower first, ties in row-major order.
fn pv_order(fixed: &mut dyn Search, pos: &Position) -> Vec<(u32, Position)> {
    let mut order: Vec<(i32, u32, Position)> = Squares(pos.moves())
        .filter_map(|sq| pos.play(sq).map(|child| (0, sq, child)))
        .collect();
    for (key, _, child) in &mut order {
        *key = fixed.pv_order_key(child.player(), child.opponent());
    }
    // Stable: equal keys stay in row-major order.
    order.sort_by_key(|&(key, _, _)| key);
    order
        .into_iter()
        .map(|(_, sq, child)| (sq, child))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each known start is its own anchor, either way round; every empty square more costs
    /// three times as much; boards past 7x7 grow from it.
    #[test]
    fn long_estimates_grow_from_the_known_starts() {
        for &(r, c, e, nodes, _) in &START_COSTS {
            for shape in [Shape::new(r, c).unwrap(), Shape::new(c, r).unwrap()] {
                let at = long_solve_estimate(shape, e);
                assert!((at.nodes - nodes).abs() < 1e-6 * nodes);
                assert!((at.seconds - nodes / LONG_NODES_PER_SEC).abs() < 1e-6 * at.seconds);
                assert!(at
                    .basis
                    .starts_with(&format!("the {r}x{c} start, {e} empty")));
                let more = long_solve_estimate(shape, e + 1);
                assert!((more.seconds / at.seconds - 3.0).abs() < 1e-9);
            }
        }
        let start68 = long_solve_estimate(Shape::new(6, 8).unwrap(), 44).seconds;
        assert!(start68 > 86_400.0 && start68 < 7.0 * 86_400.0, "{start68}");
        let s77 = long_solve_estimate(Shape::new(7, 7).unwrap(), 45);
        let s88 = long_solve_estimate(Shape::new(8, 8).unwrap(), 60);
        assert!(s88.seconds > s77.seconds * 1e6 && s88.basis.starts_with("the 7x7 start"));
    }

    /// A test that the child's side gets at least 3 asks whether the root's side gets at
    /// most -3, put in black's terms whichever side moves at the root.
    #[test]
    fn a_test_is_asked_in_blacks_terms() {
        assert_eq!(test_words(3, 1), "is it at most -3 for black");
        assert_eq!(test_words(3, -1), "is it at least +3 for black");
        assert_eq!(test_words(-2, 1), "is it at most +2 for black");
    }

    /// Every line of what a solve is busy with, in order.
    #[derive(Default)]
    struct Lines(std::sync::Mutex<Vec<String>>);

    impl Progress for Lines {
        fn working_on(&self, what: &str) {
            self.0.lock().unwrap().push(what.to_string());
        }
    }

    /// What a kept solve's snapshot says of where it was: the last words the solve was busy
    /// with and how far the watched tree has got, passed on to the progress it wraps; nothing
    /// once the solve has finished.
    #[test]
    fn snapshots_say_where_the_search_was() {
        let table = Table::new(1);
        let noted = Noted {
            inner: &crate::progress::Silent,
            at: std::sync::Mutex::new(String::new()),
        };
        table.top().start(20);
        let root = table.top().enter(0, 0, 0, 3);
        assert_eq!(noted.at(&table), "", "no words yet");
        noted.working_on("root move d2 (1 of 2)");
        assert_eq!(
            noted.at(&table),
            "root move d2 (1 of 2); in its tree, moves done by ply: 0 of 3"
        );
        table.top().leave(root);
        table.top().stop();
        noted.working_on("root move c3 (2 of 2)");
        assert_eq!(noted.at(&table), "root move c3 (2 of 2)");
        noted.finish();
        assert_eq!(noted.at(&table), "");
    }

    /// The words a solve gives its progress name each selective pass as it starts, then its
    /// estimates, then the exact tests.
    #[test]
    fn progress_names_each_selective_pass_as_it_starts() {
        // 27 empty squares of 6x6, where the selective passes apply.
        let (pos, _) = Shape::square(6)
            .unwrap()
            .start()
            .after_moves("c2 b4 c5 d2 e4 e3 d1 c1 b1")
            .unwrap();
        let lines = Lines::default();
        Solver::new(64).solve(&pos, &SolveOptions::default(), &lines);
        let lines = lines.0.into_inner().unwrap();
        let first = lines
            .iter()
            .position(|l| l.ends_with("; selective pass 1 of 2 under way"));
        let at = |words: &str| lines.iter().position(|l| l.contains(words));
        let estimate = at("; selective pass 1 of 2, an estimate: ");
        let second = at("; selective pass 2 of 2 under way (the pass before: ");
        let test = at("; exact test: is it at ");
        assert!(
            matches!((first, estimate, second, test), (Some(a), Some(b), Some(c), Some(d)) if a < b && b < c && c < d),
            "{lines:#?}"
        );
    }

    /// After the root moves, the solve tells its progress each test of the principal
    /// variation's search as it starts, in order: the last test named for each move is the
    /// move the variation plays.
    #[test]
    fn progress_names_each_test_of_the_principal_variation() {
        let pos = Shape::new(4, 5).unwrap().start();
        let lines = Lines::default();
        let report = Solver::new(16).solve(&pos, &SolveOptions::default(), &lines);
        let lines = lines.0.into_inner().unwrap();
        let first = lines
            .iter()
            .position(|l| l.starts_with("principal variation: "))
            .expect("the variation's tests are named");
        assert!(lines[..first].iter().any(|l| l.starts_with("root move ")));
        // The last test named for each move, by the move's number.
        let mut last = std::collections::BTreeMap::new();
        for l in &lines[first..] {
            let rest = l.strip_prefix("principal variation: move ").expect(l);
            let (n, rest) = rest.split_once(", testing ").expect(l);
            let n: usize = n.parse().unwrap();
            assert!(last.keys().all(|&m| m <= n), "in order: {lines:#?}");
            last.insert(n, rest.split(' ').next().unwrap().to_string());
        }
        let mut at = pos;
        for (i, &m) in report.pv.iter().enumerate() {
            if i > 0 && m != Move::Pass {
                assert_eq!(
                    last.remove(&(i + 1)),
                    Some(at.move_name(m)),
                    "move {}",
                    i + 1
                );
            }
            at = at.apply(m).unwrap();
        }
        assert!(last.is_empty(), "no test past the variation: {last:?}");
    }

    /// Whether every turn of `pv` from `pos` keeps the value `value` for the side to move,
    /// each child's value found by a solve of its own (a fresh table each time).
    fn keeps_the_value(pos: &Position, value: i32, pv: &[Move]) -> bool {
        let (mut at, mut v) = (*pos, value);
        for &m in pv {
            let child = at.apply(m).unwrap();
            let w = if m == Move::Pass {
                -v
            } else {
                Solver::new(16).value(&child)
            };
            if w != -v {
                return false;
            }
            (at, v) = (child, -v);
        }
        at.is_over()
    }

    /// A guided walk plays the guide's moves wherever they keep the value, though the rule
    /// would play others (a guide built by brute force: at each turn the last move in
    /// row-major order whose child keeps the value); where a guide's move loses, the walk
    /// leaves it and still keeps the value at every turn. The value and the move values are
    /// those of the solve without a guide.
    #[test]
    fn a_guided_walk_follows_the_guide_where_it_keeps_the_value() {
        let pos = Shape::new(4, 5).unwrap().start();
        let plain = Solver::new(16).solve(&pos, &SolveOptions::default(), &crate::progress::Silent);
        let v0 = Solver::new(16).value(&pos);
        let mut guide = Vec::new();
        let (mut at, mut v) = (pos, v0);
        while !at.is_over() {
            let m = if at.moves() == 0 {
                Move::Pass
            } else {
                Squares(at.moves())
                    .map(Move::Place)
                    .filter(|&m| Solver::new(16).value(&at.apply(m).unwrap()) == -v)
                    .last()
                    .unwrap()
            };
            guide.push(m);
            (at, v) = (at.apply(m).unwrap(), -v);
        }
        assert_ne!(guide, plain.pv, "the rule's variation is another one here");
        let guided = |g: Vec<Move>| {
            let mut solver = Solver::new(16);
            solver.set_pv_guide(g);
            solver.solve(&pos, &SolveOptions::default(), &crate::progress::Silent)
        };
        let r = guided(guide.clone());
        assert_eq!(r.pv, guide);
        assert_eq!((r.value, &r.move_values), (plain.value, &plain.move_values));
        // A loser at the guide's third turn: the walk leaves the guide there.
        let two = pos.apply(guide[0]).unwrap().apply(guide[1]).unwrap();
        let loser = Squares(two.moves())
            .map(Move::Place)
            .find(|&m| Solver::new(16).value(&two.apply(m).unwrap()) != -v0)
            .expect("a losing third turn");
        let r = guided(vec![guide[0], guide[1], loser]);
        assert_eq!(r.pv[..2], guide[..2]);
        assert_ne!(r.pv[2], loser);
        assert!(keeps_the_value(&pos, v0, &r.pv), "{:?}", r.pv);
        assert!(keeps_the_value(&pos, v0, &plain.pv));
    }

    /// Read from another thread while a solve runs on three threads (its splits searched in
    /// parallel), the watched tree's words are well formed and follow lines down, and no node
    /// stays watched once the solve has ended.
    #[test]
    fn the_watch_follows_a_parallel_solve_and_forgets_it() {
        let start = Shape::new(5, 6).unwrap().start();
        let (pos, _) = start.after_moves("c2 b2").unwrap();
        let mut solver = Solver::new(64);
        let top = solver.top();
        let done = std::sync::atomic::AtomicBool::new(false);
        let seen = std::thread::scope(|scope| {
            let reader = scope.spawn(|| {
                let mut seen = std::collections::BTreeSet::new();
                while !done.load(Ordering::Relaxed) {
                    seen.extend(top.words());
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
                seen
            });
            rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap()
                .install(|| solver.solve(&pos, &SolveOptions::default(), &crate::progress::Silent));
            done.store(true, Ordering::Relaxed);
            reader.join().unwrap()
        });
        assert_eq!(top.watched(), 0, "every watched node is forgotten");
        assert!(
            seen.iter().any(|w| w.matches(" of ").count() >= 2),
            "no line followed down: {seen:?}"
        );
        assert!(
            seen.iter().any(|w| w.contains(" (searching ")),
            "no move named: {seen:?}"
        );
        for words in &seen {
            let counts = words.strip_prefix("moves done by ply: ").unwrap();
            let plies: Vec<&str> = counts.split(", ").collect();
            assert!(plies.len() <= watch::PLIES, "{words}");
            for (i, ply) in plies.iter().enumerate() {
                let (count, searching) = match ply.split_once(" (searching ") {
                    Some((count, names)) => (count, names.strip_suffix(')').unwrap()),
                    None => (*ply, ""),
                };
                let (done, moves) = count.split_once(" of ").unwrap();
                let (done, moves): (u32, u32) = (done.parse().unwrap(), moves.parse().unwrap());
                assert!(done <= moves && moves > 0, "{words}");
                // The moves searched: squares empty at the start, one unless at the line's end.
                let names: Vec<&str> = searching.split(" and ").filter(|n| !n.is_empty()).collect();
                assert!(names.len() <= 1 || i + 1 == plies.len(), "{words}");
                for name in names {
                    let sq = crate::board::parse_square(name, pos.shape()).unwrap();
                    assert!(pos.empty() >> sq & 1 == 1, "{words}");
                }
            }
        }
    }
}
