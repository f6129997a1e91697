//! Perfect play proven in work units that outlast one process and share many: the tree near
//! the root is expanded to positions of a few minutes each ([`tree`]), a hypothesis of each
//! root move's value selects the fewest leaf tests that decide it, each leaf test is one unit
//! solved by [`crate::solve`]'s solver, and every finished unit is a line of the proof log
//! ([`log`]), the run's whole state.
//!
//! **Method** (Takizawa, "Othello is solved", arXiv 2310.19387, section 3). For each distinct
//! move of the root, MTD(f) from a heuristic guess `g` asks "is the value at least `g`?" and
//! "at most `g`?" of the tree at once; each question selects its units ([`tree::Select`]): where
//! the side that must reach the bound moves, one child, the heuristic's best; where the other
//! side moves, every child. When a unit's result refutes a choice, the next selection takes
//! the next child; when it refutes the hypothesis, `g` moves to the proven bound. Once every
//! root move's value is exact, the principal variation is walked down the tree by the rule of
//! [`crate::solve::Solver::solve`] (its first best move in row-major order, then at each turn
//! the first move in a fixed heuristic order that keeps the value), each step's test being a
//! unit too, and completed from the leaf it reaches by the solver itself. So the value, the
//! principal variation and every move's value are those `solve` gives.
//!
//! **Many processes.** Process `I` of `P` solves the units whose hash is `I` modulo `P` and
//! appends them to its own log; every process reads every log of the directory, so all see
//! the same facts and select alike; one whose units are all done waits for the others'.
//! Within a process, `workers` threads solve units at once, each on one thread with a table of
//! its own cleared before each unit, so a unit's result and node count depend only on the unit
//! and the options in the log's header: never on the number of processes, threads or the order
//! in which units finish. Which units are solved can depend on that order (a unit started
//! while another's result was on its way may turn out not to be needed), and so can the
//! proof's total nodes; its value, principal variation and move values cannot.

pub mod error;
pub mod import;
pub mod log;
pub mod tree;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::board::{Move, Position, Scoring, Side};
use crate::progress::Progress;
use crate::solve::{SolveReport, Solver, Tuning};

pub use error::ProofError;
use log::{Header, Reader, Record, Writer};
pub use tree::Window;
use tree::{Facts, Select, Status, Tree, Unit};

/// How to prove.
#[derive(Debug, Clone)]
pub struct ProveOptions {
    /// The scoring rule.
    pub scoring: Scoring,
    /// The solver's switches for the units (split search is turned off: one thread a unit).
    pub tuning: Tuning,
    /// The switches in words, as `solve --without` takes them, for the log's header.
    pub tuning_name: String,
    /// Leaves have at most this many empty squares.
    pub unit_empties: u32,
    /// Each worker's table, in MiB.
    pub hash_mb: usize,
    /// Nodes of the heuristic search that orders children and guesses root values.
    pub order_nodes: u64,
    /// Which tests the leaves get.
    pub window: Window,
    /// Units solved at once by this process.
    pub workers: usize,
    /// This process's index, from 0.
    pub process: u32,
    /// Processes sharing the proof.
    pub processes: u32,
    /// The directory of the logs.
    pub dir: PathBuf,
    /// How often a process with nothing to do reads the other processes' logs.
    pub poll: Duration,
    /// Only read the logs and report the bounds proven so far; solve nothing.
    pub status_only: bool,
    /// Solve only this many units, drawn at random with this seed from this process's units
    /// of the current selection, then stop: a sample of the proof's unit costs (the units
    /// are recorded like any other, so the proof goes on from them).
    pub sample: Option<(usize, u64)>,
    /// Under the Othello rule: the directory of a proof of the same position under the blog's
    /// rule, whose bounds that hold under both rules are carried over first ([`import`]).
    pub import: Option<PathBuf>,
}

/// What is proven so far about each root move, for progress and `--status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounds {
    /// The root's value bounds, black-relative.
    pub root: (i32, i32),
    /// Each legal turn of the root (row-major) with its value bounds, black-relative.
    pub moves: Vec<(Move, (i32, i32))>,
}

/// The result of a proof.
#[derive(Debug, Clone)]
pub struct ProveReport {
    /// Value, principal variation and every move's value, as `solve` reports them; `nodes`
    /// counts the units of the logs, the ordering searches and the principal variation's
    /// completion; `seconds` is the CPU time of the proof, one thread each: the units' seconds
    /// in the logs, of every run and process, plus this run's wall time (its tree and the
    /// principal variation's completion), and `threads` is 1 accordingly.
    pub solution: Option<SolveReport>,
    /// What is proven (the whole answer once `solution` is there).
    pub bounds: Bounds,
    /// Distinct units in the logs.
    pub units: u64,
    /// Their nodes.
    pub unit_nodes: u64,
    /// Their seconds, each on one thread.
    pub unit_seconds: f64,
    /// Bounds carried over from a proof under the blog's rule ([`import`]).
    pub imported: u64,
    /// Units this run solved.
    pub units_here: u64,
    /// Units the last selection asked for that were not finished (0 once proven).
    pub units_left: usize,
    /// Nodes of the tree made.
    pub tree_nodes: usize,
    /// Nodes of the heuristic searches that ordered the tree's children.
    pub heuristic_nodes: u64,
    /// The nodes and seconds of each unit this run solved, in the order they finished.
    pub solved_here: Vec<(u64, f64)>,
    /// With [`ProveOptions::sample`]: this process's units of the selection the sample was
    /// drawn from.
    pub sampled_from: Option<usize>,
}

/// How often a progress line is written while the root's bounds stay where they are.
const NOTE_EVERY: Duration = Duration::from_secs(10);

/// The evaluation that orders a proof's tree and its units' searches on `shape` under
/// `tuning`: `mobility` (the hand-made one), or the trained patterns named by a checksum of
/// their weights.
#[must_use]
pub fn evaluation(shape: crate::board::Shape, tuning: &Tuning) -> String {
    match crate::solve::pattern::shipped(shape) {
        Some(w) if tuning.pattern_order || tuning.pattern_guess => format!(
            "pattern {:016x}",
            crate::fnv::fnv1a(crate::fnv::OFFSET, &w.to_bytes())
        ),
        _ => "mobility".to_string(),
    }
}

/// The header of the logs of a proof of `root` under `opts`.
#[must_use]
pub fn header(root: &Position, opts: &ProveOptions) -> Header {
    Header {
        format: Header::FORMAT.to_string(),
        board: root.shape().name(),
        root: root.to_board_string(),
        scoring: opts.scoring.name().to_string(),
        unit_empties: opts.unit_empties,
        hash_mb: opts.hash_mb,
        tuning: opts.tuning_name.clone(),
        order_nodes: opts.order_nodes,
        eval: evaluation(root.shape(), &opts.tuning),
        unit_window: opts.window.name().to_string(),
    }
}

/// The process that solves `unit` among `processes`.
#[must_use]
pub fn owner(unit: Unit, processes: u32) -> u32 {
    let mut h = crate::fnv::OFFSET;
    for x in [unit.key.0, unit.key.1, unit.alpha as u32 as u64] {
        h = crate::fnv::fnv1a(h, &x.to_le_bytes());
    }
    if !unit.is_null() {
        h = crate::fnv::fnv1a(h, &(unit.beta as u32 as u64).to_le_bytes());
    }
    (h % u64::from(processes)) as u32
}

/// A unit handed to a worker, and what it gives back.
struct Job {
    unit: Unit,
    pos: Position,
}

struct Done {
    unit: Unit,
    pos: Position,
    result: i32,
    nodes: u64,
    seconds: f64,
}

/// Where the selection stands.
enum Plan {
    /// These units decide the next questions.
    Units(BTreeSet<Unit>),
    /// Every root move's value is exact (in the bounds) and the principal variation reaches
    /// `leaf` (a leaf position with its value for the side to move, or none at a finished
    /// game).
    Proven {
        pv: Vec<Move>,
        leaf: Option<(Position, i32)>,
    },
}

/// The state of a proof in one process.
struct Prover<'a> {
    root: Position,
    opts: &'a ProveOptions,
    tree: Tree,
    facts: Facts,
    order: Solver,
    /// MTD(f)'s first guess of each distinct child of the root (in [`Tree::children`] order).
    guesses: Vec<i32>,
    heuristic_nodes: u64,
    /// The bounds of the last selection.
    last_bounds: Bounds,
    /// The nodes the last selection made (not counting those made for [`Prover::proven_bounds`]).
    tree_nodes: usize,
}

impl Prover<'_> {
    /// The selection under the current facts, on the tree grown again from the root (so that it
    /// depends on the facts alone and every process selects alike), made again until a pass
    /// expands no node: a pass that expands nodes works with the bounds they had before (too
    /// wide, see [`Select::forget_bounds`]), and might then select units the facts make
    /// needless or miss a proof they hold.
    fn plan(&mut self) -> (Plan, Bounds) {
        self.tree.reset();
        loop {
            let before = self.tree.expansions();
            let out = self.plan_once();
            if self.tree.expansions() == before {
                let plan = out.0;
                self.tree_nodes = self.tree.len();
                let bounds = self.proven_bounds();
                self.last_bounds = bounds.clone();
                return (plan, bounds);
            }
        }
    }

    /// The bounds of the root and its moves that the facts prove: the selection's tree expanded
    /// toward every tested leaf (a selection expands only what its current questions need, so a
    /// bound proven for an earlier question could show as unknown again there). Expanding only
    /// narrows bounds, so these are never wider than the selection's. The nodes expanded for
    /// this go with the next [`Prover::plan`]'s reset, so the selection never depends on them.
    fn proven_bounds(&mut self) -> Bounds {
        self.tree.expand_toward(&self.facts);
        let mut sel = Select::new(
            &mut self.tree,
            &self.facts,
            &mut self.order,
            self.opts.order_nodes,
            self.opts.window,
        );
        root_bounds(&mut sel, &self.root)
    }

    /// One pass of [`Prover::plan`].
    fn plan_once(&mut self) -> (Plan, Bounds) {
        let order_nodes = self.opts.order_nodes;
        let mut sel = Select::new(
            &mut self.tree,
            &self.facts,
            &mut self.order,
            order_nodes,
            self.opts.window,
        );
        let root = sel.tree().root();
        let children = sel.tree().children(root);
        let values: Vec<Option<i32>> = children
            .iter()
            .zip(&self.guesses)
            .map(|(&c, &g)| sel.exact(c, g))
            .collect();
        let bounds = root_bounds(&mut sel, &self.root);
        let plan = if values.iter().any(Option::is_none) {
            Plan::Units(sel.take_units())
        } else {
            walk_pv(&mut sel, &self.root, &bounds)
                .map_or_else(Plan::Units, |(pv, leaf)| Plan::Proven { pv, leaf })
        };
        self.heuristic_nodes += sel.heuristic_nodes;
        (plan, bounds)
    }
}

/// The bounds of the root and of each of its turns, black-relative.
fn root_bounds(sel: &mut Select<'_>, root: &Position) -> Bounds {
    sel.forget_bounds();
    let sign = if root.black_to_move() { 1 } else { -1 };
    let black = |(lo, hi): (i32, i32)| {
        if sign > 0 {
            (lo, hi)
        } else {
            (-hi, -lo)
        }
    };
    let mut moves = Vec::new();
    for turn in root.legal_turns() {
        let child = root.apply(turn).expect("a legal turn");
        let id = sel.tree().node_of(&child);
        let (lo, hi) = sel.bounds(id);
        moves.push((turn, black((-hi, -lo))));
    }
    let r = sel.tree().root();
    let rb = sel.bounds(r);
    Bounds {
        root: black(rb),
        moves,
    }
}

/// The principal variation down the tree once every root move is exact: `Ok` with its moves
/// and the leaf it reaches, or `Err` with the units its next step needs.
#[allow(clippy::type_complexity)]
fn walk_pv(
    sel: &mut Select<'_>,
    root: &Position,
    bounds: &Bounds,
) -> Result<(Vec<Move>, Option<(Position, i32)>), BTreeSet<Unit>> {
    let sign = if root.black_to_move() { 1 } else { -1 };
    let value = sign * bounds.root.0;
    // The first best turn in row-major order, as solve chooses it.
    let &(first, _) = bounds
        .moves
        .iter()
        .find(|&&(_, (lo, _))| sign * lo == value)
        .expect("a best move");
    let mut pv = vec![first];
    let mut pos = root.apply(first).expect("a legal turn");
    let mut v = -value;
    loop {
        if pos.is_over() {
            return Ok((pv, None));
        }
        let id = sel.tree().node_of(&pos);
        if sel.tree().is_leaf(id) {
            return Ok((pv, Some((pos, v))));
        }
        if pos.moves() == 0 {
            pv.push(Move::Pass);
            pos = pos.pass();
            v = -v;
            continue;
        }
        let mut next = None;
        for (m, child) in sel.pv_order(&pos) {
            let c = sel.tree().node_of(&child);
            match sel.at_most(c, -v) {
                Status::Proven => {
                    next = Some((m, child));
                    break;
                }
                Status::Refuted => {}
                Status::Pending => return Err(sel.take_units()),
            }
        }
        let (m, child) = next.expect("a move keeps the exact value");
        pv.push(m);
        pos = child;
        v = -v;
    }
}

/// Proves perfect play from `root` under `opts`, resuming from the logs in `opts.dir`, or with
/// `opts.status_only` only reports what they prove.
///
/// # Errors
///
/// A damaged log or one of another proof, a log locked by another process, bad options, an
/// I/O error, or a stop asked through `progress` ([`ProofError::Stopped`]).
pub fn prove(
    root: &Position,
    opts: &ProveOptions,
    progress: &dyn Progress,
) -> Result<ProveReport, ProofError> {
    let t0 = Instant::now();
    if opts.processes == 0 || opts.process >= opts.processes {
        return Err(ProofError::Usage(format!(
            "--process {} is not below --processes {}: processes are numbered from 0",
            opts.process, opts.processes
        )));
    }
    if root.is_over() {
        return Err(ProofError::Usage(format!(
            "the game is already over ({}:{}); nothing to prove",
            root.black_count(),
            root.white_count()
        )));
    }
    let header = header(root, opts);
    if let (Some(source), false) = (&opts.import, opts.status_only) {
        if let Some(n) = import::carry_over(root, &header, source, &opts.dir)? {
            progress.note(&format!(
                "carried {n} bounds over from the proof under the blog's rule in {}",
                source.display()
            ));
        }
    }
    let mut writer = if opts.status_only {
        None
    } else {
        std::fs::create_dir_all(&opts.dir).map_err(|e| ProofError::io(&opts.dir, e))?;
        let path = log::file_name(&opts.dir, opts.process, opts.processes);
        Some(Writer::open(&path, &header)?)
    };
    let mut reader = Reader::new(&opts.dir, &header, root.shape());
    let mut facts = Facts::default();
    reader.refresh(&mut facts)?;

    let mut order = Solver::new(1);
    order.set_tuning(opts.tuning);
    order.set_scoring(opts.scoring);
    let mut tree = Tree::new(root, opts.unit_empties, opts.scoring);
    let children = tree.children(tree.root());
    let mut heuristic_nodes = 0;
    let guesses = children
        .iter()
        .map(|&c| {
            let pos = tree.position_of_node(c);
            let budget = tree::order_budget(opts.order_nodes, pos.empty().count_ones());
            let (g, n) = order.heuristic(&pos, budget);
            heuristic_nodes += n;
            g
        })
        .collect();
    let mut prover = Prover {
        root: *root,
        opts,
        tree,
        facts,
        order,
        guesses,
        heuristic_nodes,
        last_bounds: Bounds {
            root: (0, 0),
            moves: Vec::new(),
        },
        tree_nodes: 0,
    };

    let (jobs, done) = spawn_workers(opts);
    let mut in_flight: BTreeSet<Unit> = BTreeSet::new();
    // This process's units of the last selection, not yet started.
    let mut queue: Vec<Unit> = Vec::new();
    let mut left = 0;
    let mut units_here = 0;
    // The root's bounds and time of the last progress line, and the last total of the bar.
    let mut shown: Option<((i32, i32), Instant)> = None;
    let mut last_total = None;
    // Whether results came in since the last selection; how long it took, and the last unit.
    let mut fresh = true;
    let (mut plan_secs, mut unit_secs) = (0.0, 0.0);
    let mut bounds;
    let mut solved_here = Vec::new();
    // With a sample: this process's units of the selection it is drawn from, and the rest.
    let mut sampled_from = None;
    let mut unsampled = BTreeSet::new();
    let plan = loop {
        if sampled_from.is_some() {
            // The sample is drawn: no selection again, the run ends with its last unit.
            if queue.is_empty() && in_flight.is_empty() {
                bounds = prover.last_bounds.clone();
                break Plan::Units(std::mem::take(&mut unsampled));
            }
            fresh = false;
        }
        queue.retain(|&u| !prover.facts.decides(u) && !in_flight.contains(&u));
        // Select again after every result, unless selecting costs more than a twentieth of a
        // unit and units of the last selection are still waiting (tiny units, big trees).
        if fresh && (queue.is_empty() || plan_secs * 20.0 <= unit_secs) {
            let t = Instant::now();
            let (plan, b) = prover.plan();
            plan_secs = t.elapsed().as_secs_f64();
            fresh = false;
            bounds = b;
            match plan {
                Plan::Units(units) if !opts.status_only => {
                    left = units.len();
                    if opts.sample.is_some() {
                        unsampled.clone_from(&units);
                    }
                    queue = units
                        .into_iter()
                        .filter(|&u| owner(u, opts.processes) == opts.process)
                        .filter(|u| !in_flight.contains(u))
                        .collect();
                    if let Some((k, seed)) = opts.sample {
                        sampled_from = Some(queue.len());
                        queue = draw(queue, k, seed);
                        for u in &queue {
                            unsampled.remove(u);
                        }
                    }
                }
                plan => break plan,
            }
        } else {
            bounds = prover.last_bounds.clone();
        }
        if progress.should_stop() {
            return Err(ProofError::Stopped {
                units: reader.units,
            });
        }
        while in_flight.len() < opts.workers && !queue.is_empty() {
            let unit = queue.remove(0);
            in_flight.insert(unit);
            let pos = prover.tree.position_of(unit.key);
            jobs.send(Job { unit, pos }).expect("the workers run");
        }
        let total = reader.units + left as u64;
        // A new selection changes the total only: the time left is reckoned from the rate
        // since this run's first unit, not since the last selection.
        match last_total {
            Some((t, done)) => {
                if t != total {
                    progress.resize(total);
                }
                progress.advance(reader.units - done);
            }
            None => {
                progress.start("prove", total);
                progress.advance(reader.units);
            }
        }
        last_total = Some((total, reader.units));
        // A line when the bounds move, else at most every NOTE_EVERY.
        let due = shown.is_none_or(|(b, t)| b != bounds.root || t.elapsed() >= NOTE_EVERY);
        if due {
            progress.note(&format!(
                "{} units done ({:.3e} nodes), {left} selected, {} running here; root value in \
                 [{:+}, {:+}]",
                reader.units,
                reader.nodes as f64,
                in_flight.len(),
                bounds.root.0,
                bounds.root.1
            ));
            shown = Some((bounds.root, Instant::now()));
        }
        match done.recv_timeout(opts.poll) {
            Ok(d) => {
                in_flight.remove(&d.unit);
                units_here += 1;
                unit_secs = d.seconds;
                solved_here.push((d.nodes, d.seconds));
                let w = writer.as_mut().expect("a writer when solving");
                w.record(&Record {
                    position: d.pos.to_board_string(),
                    alpha: d.unit.alpha,
                    beta: (!d.unit.is_null()).then_some(d.unit.beta),
                    result: d.result,
                    nodes: d.nodes,
                    seconds: d.seconds,
                    build: log::build(),
                    derived: None,
                })?;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => unreachable!("the workers outlive this"),
        }
        fresh |= reader.refresh(&mut prover.facts)? > 0;
    };
    drop(jobs);
    progress.finish();

    let (solution, units_left) = match plan {
        Plan::Units(units) => (None, units.len()),
        Plan::Proven { .. } if opts.status_only => (None, 0),
        Plan::Proven { mut pv, leaf } => {
            let mut extra = 0;
            if let Some((pos, v)) = leaf {
                let mut solver = Solver::new(opts.hash_mb);
                solver.set_tuning(unit_tuning(opts.tuning));
                solver.set_scoring(opts.scoring);
                let (rest, n) = solver.continuation(&pos, v);
                pv.extend(rest);
                extra = n;
            }
            let report = solution(
                root,
                &bounds,
                pv,
                reader.nodes + extra + prover.heuristic_nodes,
                prover.heuristic_nodes,
                reader.seconds + t0.elapsed().as_secs_f64(),
                opts,
            );
            (Some(report), 0)
        }
    };
    Ok(ProveReport {
        solution,
        bounds,
        units: reader.units,
        unit_nodes: reader.nodes,
        unit_seconds: reader.seconds,
        imported: reader.imported,
        units_here,
        units_left,
        tree_nodes: prover.tree_nodes,
        heuristic_nodes: prover.heuristic_nodes,
        solved_here,
        sampled_from,
    })
}

/// `k` of `units` drawn at random with `seed` (all of them if they are fewer), in the order
/// drawn: the same units for the same selection and seed.
fn draw(mut units: Vec<Unit>, k: usize, seed: u64) -> Vec<Unit> {
    let mut rng = crate::rng::Xoshiro256::from_seed(seed);
    let k = k.min(units.len());
    for i in 0..k {
        let j = i + (rng.next() % (units.len() - i) as u64) as usize;
        units.swap(i, j);
    }
    units.truncate(k);
    units
}

/// The report `solve` would give, from the proven bounds (exact) and principal variation.
fn solution(
    root: &Position,
    bounds: &Bounds,
    pv: Vec<Move>,
    nodes: u64,
    ordering_nodes: u64,
    seconds: f64,
    opts: &ProveOptions,
) -> SolveReport {
    let value = bounds.root.0;
    let mut end = *root;
    for &m in &pv {
        end = end.apply(m).expect("the principal variation replays");
    }
    SolveReport {
        position: *root,
        value,
        winner: match value.signum() {
            1 => Some(Side::Black),
            -1 => Some(Side::White),
            _ => None,
        },
        pv,
        final_score: (end.black_count(), end.white_count()),
        move_values: bounds.moves.iter().map(|&(m, (lo, _))| (m, lo)).collect(),
        nodes,
        ordering_nodes,
        seconds,
        threads: 1,
        scoring: opts.scoring,
    }
}

/// The tuning of a unit: `tuning` on one thread (no split search), so its result and nodes do
/// not depend on the threads.
fn unit_tuning(mut tuning: Tuning) -> Tuning {
    tuning.split_empties = u32::MAX;
    tuning
}

/// Solves `unit` of the position `pos` with `solver` (its table as it is): the result and the
/// nodes it took.
pub fn solve_unit(solver: &mut Solver, pos: &Position, unit: Unit) -> (i32, u64) {
    if unit.is_null() {
        solver.test(pos, unit.alpha)
    } else {
        solver.confined(pos, unit.alpha, unit.beta)
    }
}

/// Starts `opts.workers` threads, each with a solver of its own, taking jobs from the first
/// channel and giving results to the second; they end when the first is dropped.
fn spawn_workers(opts: &ProveOptions) -> (mpsc::Sender<Job>, mpsc::Receiver<Done>) {
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    for _ in 0..opts.workers {
        let job_rx = Arc::clone(&job_rx);
        let done_tx = done_tx.clone();
        let (hash_mb, tuning, scoring) = (opts.hash_mb, unit_tuning(opts.tuning), opts.scoring);
        std::thread::spawn(move || {
            let mut solver: Option<Solver> = None;
            loop {
                let job = match job_rx.lock().map(|rx| rx.recv()) {
                    Ok(Ok(job)) => job,
                    _ => return,
                };
                // The table is made at the first unit and cleared before each next one.
                let s = solver.get_or_insert_with(|| {
                    let mut s = Solver::new(hash_mb);
                    s.set_tuning(tuning);
                    s.set_scoring(scoring);
                    s
                });
                s.clear();
                let t = Instant::now();
                let (result, nodes) = solve_unit(s, &job.pos, job.unit);
                let d = Done {
                    unit: job.unit,
                    pos: job.pos,
                    result,
                    nodes,
                    seconds: t.elapsed().as_secs_f64(),
                };
                if done_tx.send(d).is_err() {
                    return;
                }
            }
        });
    }
    (job_tx, done_rx)
}
