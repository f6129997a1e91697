//! `reversi solve`: the exact value, principal variation and value of every move of one
//! position, or a file of positions (`--file`, see [`super::batch`]).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use reversi_nxn::board::{Move, Position, Scoring};
use reversi_nxn::solve::probcut::MAX_LEVELS;
use reversi_nxn::solve::state::{SolveState, Stop, SAVED_BYTES};
use reversi_nxn::solve::{convention, proven_words, Mode, SolveOptions, SolveReport, Solver};

use super::{BoardArgs, UsageError};
use crate::bar::Bar;

/// Arguments of `reversi solve`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// Solve every position of this OBF file (one per line: board string, side to move,
    /// optional `;` annotations; `-` reads standard input) and print one row per position.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["size", "rows", "cols", "moves", "board", "save"])]
    pub file: Option<PathBuf>,
    /// What to prove: best (the value and one best move), all (every move's value; the
    /// default for one position) or wld (only win, draw or loss). With --file the default is
    /// best.
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// How a finished game is scored: discs (empty squares count for nobody; the default) or
    /// winner-takes-empties (the Othello rules of the FFO suite, Edax and Egaroucid: the empty
    /// squares go to the player with more discs).
    #[arg(long, value_enum, default_value_t = Scoring::Discs)]
    pub scoring: Scoring,
    /// With --file: mark a bad line's row and go on (the run still exits with code 2).
    #[arg(long, requires = "file")]
    pub keep_going: bool,
    /// With --file: keep the transposition table from one position to the next instead of
    /// clearing it (see BENCHMARKS.md: no help measured on FFO #40-59).
    #[arg(long, requires = "file")]
    pub keep_table: bool,
    /// With --file: solve up to this many positions at once (at most the threads), each with
    /// a table of --hash-mb (so the memory is this many times that), positions with more
    /// empty squares first; threads left idle at the end help the last positions' searches.
    /// Rows stay in file order; their seconds overlap, and the total line gives the wall time.
    #[arg(long, requires = "file", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub jobs: u32,
    /// Transposition table size in MiB: the solver's one large allocation, so its memory is
    /// this and a few MiB more. Up to 8 MiB of it (an eighth at most) is a near part for the
    /// positions of small subtrees on 8x8.
    #[arg(long, default_value_t = 512)]
    pub hash_mb: usize,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Start even when the position is estimated to take more than an hour to solve (more than
    /// 32 empty squares).
    #[arg(long)]
    pub yes: bool,
    /// Also write the JSON report to this file (with --file: CSV if the name ends in .csv,
    /// else JSON).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Write the JSON report to results/ROWSxCOLS/solution.json, or under the Othello rule
    /// solution-winner-takes-empties.json (start position only).
    #[arg(long)]
    pub save: bool,
    /// Keep the solve's state in this directory, so that a crash or `kill -9` loses only the
    /// last few minutes: each root move's value as it is found, then each step of the
    /// principal variation's walk, and every --snapshot-secs the table's bounds of the largest
    /// subtrees (Ctrl-C or SIGTERM writes a last snapshot before it stops, exit code 130). Run
    /// the same command with --resume to go on (start position or --moves/--board; --mode
    /// all).
    #[arg(long, value_name = "DIR", conflicts_with = "file")]
    pub state: Option<PathBuf>,
    /// Go on with the solve kept in --state (or start it, if the directory has none).
    #[arg(long, requires = "state")]
    pub resume: bool,
    /// Print what the solve kept in --state has proven (each root move's value or its bounds
    /// so far, and the root's), and solve nothing; it may run meanwhile.
    #[arg(long, requires = "state", conflicts_with = "resume")]
    pub status: bool,
    /// Under --scoring winner-takes-empties, start from the bounds that the solve of the same
    /// position under the blog's rule kept in DIR (its --state, finished or running) proves and
    /// that hold under both rules (at least a >= 0, at most b <= 0): the same answer, in fewer
    /// nodes. With --state, give it on every run.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["file", "status"])]
    pub import: Option<PathBuf>,
    /// Turns of a variation from the position (another run's, such as a check's report's
    /// "pv") whose moves the principal variation's walk tests first while it follows them: a
    /// check of that variation in far fewer nodes than the rule's own walk, which also refutes
    /// every move its order tries before the one that keeps the value. The variation found
    /// keeps the value at every turn either way, but is the rule's own only where the guide's
    /// move is the rule's first to keep it. With --state, give it on every run.
    #[arg(long, value_name = "MOVES", conflicts_with_all = ["file", "status"])]
    pub pv_guide: Option<String>,
    /// Seconds between the table snapshots written into --state.
    #[arg(long, requires = "state", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub snapshot_secs: u64,
    /// MiB at most of a table snapshot in --state (24 bytes a bound): the bounds of the
    /// positions with the most empty squares that fit. The default is small enough to commit
    /// beside the state, and keeps about as much of the work as a snapshot of hundreds of MiB.
    #[arg(long, requires = "state", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=65_536))]
    pub state_mb: u64,
    /// Find exact values by one principal-variation search with the full window instead of
    /// MTD(f)'s null-window tests.
    #[arg(long)]
    pub pvs: bool,
    /// Turn techniques off, for measuring them (repeat the flag or separate them by commas):
    /// table, near-table (8x8), prefetch, symmetry, etc, ordering, potential, corner-squares,
    /// own-mobility, stable-order, hash-move, table-ordering, endgame, parallel, stability,
    /// stability-margin, edge-stability, stable-eval, pattern-order, pattern-guess,
    /// pattern-shallow, ordered-guess, pv-null-window, pv-order, guess-scale, last-two, probcut,
    /// defer-ordering.
    #[arg(long, value_name = "TECHNIQUE", value_delimiter = ',')]
    pub without: Vec<String>,
    /// Empty squares at and below which the special end solver takes over.
    #[arg(long, value_name = "N")]
    pub endgame_empties: Option<u32>,
    /// Fewest empty squares at which a node is split among threads.
    #[arg(long, value_name = "N")]
    pub split_empties: Option<u32>,
    /// Fewest empty squares for enhanced transposition cutoff.
    #[arg(long, value_name = "N")]
    pub etc_empties: Option<u32>,
    /// Fewest empty squares for ordering by a shallow search (any of the three --shallow
    /// options replaces the 8x8 schedule: from 16 empties at depth 1, one ply more per 3).
    #[arg(long, value_name = "N")]
    pub shallow_empties: Option<u32>,
    /// Depth of the shallow ordering search (at --shallow-empties).
    #[arg(long, value_name = "N")]
    pub shallow_depth: Option<u32>,
    /// One more ply of the shallow ordering search per N empty squares above
    /// --shallow-empties (0: the same depth everywhere).
    #[arg(long, value_name = "N")]
    pub shallow_step: Option<u32>,
    /// With the pattern evaluation (8x8): evaluation units (1/64 disc) added to the shallow
    /// search's key per point of the mobility ordering key (16 per opponent reply).
    #[arg(long, value_name = "N")]
    pub order_mix: Option<i32>,
    /// Nodes of the heuristic search that guesses the first root move's value at 31 empty
    /// squares, a third of it per empty square fewer (all of it with --without guess-scale);
    /// 0 or a budget under 10,000: MTD(f) starts at 0. On 8x8 the pattern evaluation's guess
    /// takes 100,000 nodes from 18 empty squares and 100,000,000 from 28 instead (this budget
    /// with --without guess-scale).
    #[arg(long, value_name = "N")]
    pub guess_nodes: Option<u64>,
    /// Guess every root move's value, not only the first one's.
    #[arg(long)]
    pub guess_all: bool,
    /// Fewest empty squares for counting the mover's stable discs in the move ordering (on
    /// every board; by default 11, and off on 8x8).
    #[arg(long, value_name = "N")]
    pub stable_order_empties: Option<u32>,
    /// Fewest empty squares for the stability cutoff.
    #[arg(long, value_name = "N")]
    pub stability_empties: Option<u32>,
    /// Fewest empty squares for symmetry-canonical table keys.
    #[arg(long, value_name = "N")]
    pub symmetry_empties: Option<u32>,
    /// The margins of the selective passes before the exact search (8x8), in hundredths of a
    /// standard deviation of the evaluation's error, in the order the passes run (1 to 15,
    /// comma-separated; default 150,200).
    #[arg(long, value_name = "T,...")]
    pub probcut_levels: Option<String>,
    /// Fewest empty squares at a node for the selective passes' probcut test (default 12).
    #[arg(long, value_name = "N")]
    pub probcut_empties: Option<u32>,
    /// Fewest empty squares at the root for the selective passes (default 20).
    #[arg(long, value_name = "N")]
    pub probcut_root_empties: Option<u32>,
}

/// The margins of `--probcut-levels`, kept for the process's life (the tuning holds a static
/// slice).
fn probcut_levels(text: &str) -> Result<&'static [u32]> {
    let bad = || {
        UsageError(format!(
            "--probcut-levels '{text}': expected 1 to 15 comma-separated margins from 1 to 1000 \
             (hundredths of a standard deviation), e.g. 150,200"
        ))
    };
    let levels = text
        .split(',')
        .map(|t| {
            t.trim()
                .parse::<u32>()
                .ok()
                .filter(|t| (1..=1000).contains(t))
        })
        .collect::<Option<Vec<u32>>>()
        .ok_or_else(bad)?;
    if levels.is_empty() || levels.len() > MAX_LEVELS {
        return Err(bad().into());
    }
    Ok(Box::leak(levels.into_boxed_slice()))
}

/// The solve options the arguments ask for.
fn options(args: &SolveArgs) -> Result<SolveOptions> {
    let mut opts = SolveOptions {
        scoring: args.scoring,
        ..SolveOptions::default()
    };
    opts.tuning.mtdf = !args.pvs;
    let t = &mut opts.tuning;
    t.endgame_empties = args.endgame_empties.unwrap_or(t.endgame_empties);
    t.split_empties = args.split_empties.unwrap_or(t.split_empties);
    t.etc_empties = args.etc_empties.unwrap_or(t.etc_empties);
    t.symmetry_empties = args.symmetry_empties.unwrap_or(t.symmetry_empties);
    t.shallow_empties = args.shallow_empties.unwrap_or(t.shallow_empties);
    t.shallow_depth = args.shallow_depth.unwrap_or(t.shallow_depth);
    t.shallow_step = args.shallow_step.unwrap_or(t.shallow_step);
    if args.shallow_empties.is_some() || args.shallow_depth.is_some() || args.shallow_step.is_some()
    {
        // Asked for a schedule: it replaces the 8x8 one.
        t.pattern_shallow = None;
    }
    t.order_mix = args.order_mix.unwrap_or(t.order_mix);
    t.stability_empties = args.stability_empties.unwrap_or(t.stability_empties);
    if let Some(n) = args.stable_order_empties {
        // Asked for a threshold: it applies on 8x8 too.
        t.stable_order_empties = n;
        t.pattern_stable_order_empties = None;
    }
    t.guess_nodes = args.guess_nodes.unwrap_or(t.guess_nodes);
    t.guess_all |= args.guess_all;
    if let Some(pc) = t.probcut.as_mut() {
        pc.empties = args.probcut_empties.unwrap_or(pc.empties);
        pc.root_empties = args.probcut_root_empties.unwrap_or(pc.root_empties);
        if let Some(text) = &args.probcut_levels {
            pc.levels = probcut_levels(text)?;
        }
    }
    without(&mut opts.tuning, &args.without)?;
    Ok(opts)
}

/// Where the published solution of `pos`, the start of its board, is and what it says, for a
/// refusal to start a long solve of it; `None` for other positions or where there is none
/// (or one that fails its checks).
fn published(pos: &Position, scoring: Scoring) -> Option<String> {
    use reversi_nxn::play::known::Known;
    if *pos != pos.shape().start() {
        return None;
    }
    let known = Known::load(std::path::Path::new("results"), pos.shape(), scoring).ok()??;
    let v = known.value();
    let result = match v.signum() {
        1 => "black wins",
        -1 => "white wins",
        _ => "a draw",
    };
    Some(format!(
        "its published solution, {}, says {result}, black {v:+}; `reversi analyze --rows {} \
         --cols {}{}` gives every first move's value",
        known.source().display(),
        pos.shape().rows(),
        pos.shape().cols(),
        match scoring {
            Scoring::Discs => "",
            Scoring::WinnerTakesEmpties => " --scoring winner-takes-empties",
        }
    ))
}

/// Where `--save` writes the solution of `shape`'s start under `scoring`:
/// `results/RxC/solution.json`, or `solution-winner-takes-empties.json` under the Othello rule.
pub fn solution_path(shape: reversi_nxn::board::Shape, scoring: Scoring) -> PathBuf {
    PathBuf::from("results")
        .join(shape.name())
        .join(super::report::solution_file(scoring))
}

/// Turns off the techniques `names` (as `--without` lists them) in `t`.
pub fn without(t: &mut reversi_nxn::solve::Tuning, names: &[String]) -> Result<()> {
    for w in names {
        match w.as_str() {
            "table" => t.table = false,
            "prefetch" => t.prefetch = false,
            "near-table" => t.near_empties = 0,
            "last-two" => t.last_two = false,
            "guess-scale" => t.guess_scale = false,
            "pv-order" => t.pv_order = false,
            "symmetry" => t.symmetry_empties = u32::MAX,
            "etc" => t.etc_empties = u32::MAX,
            "ordering" => t.ordering = false,
            "potential" => t.potential = false,
            "corner-squares" => t.corner_squares = false,
            "own-mobility" => t.own_mobility = false,
            "stable-order" => {
                t.stable_order_empties = u32::MAX;
                t.pattern_stable_order_empties = None;
            }
            "hash-move" => t.hash_move = false,
            "table-ordering" => t.table_ordering = false,
            "endgame" => t.endgame_empties = 0,
            "parallel" => t.split_empties = u32::MAX,
            "stability" => t.stability_empties = u32::MAX,
            "stability-margin" => t.stability_margin = false,
            "edge-stability" => t.edge_stability = false,
            "stable-eval" => t.stable_eval = false,
            "pattern-order" => t.pattern_order = false,
            "pattern-guess" => t.pattern_guess = false,
            "pattern-shallow" => t.pattern_shallow = None,
            "ordered-guess" => t.ordered_guess = false,
            "pv-null-window" => t.pv_null_window = false,
            "probcut" => t.probcut = None,
            "defer-ordering" => t.defer_ordering = false,
            other => {
                return Err(UsageError(format!(
                    "unknown technique '{other}' for --without: expected table, near-table, \
                     prefetch, symmetry, etc, ordering, potential, corner-squares, own-mobility, \
                     stable-order, hash-move, table-ordering, endgame, last-two, parallel, \
                     stability, stability-margin, edge-stability, stable-eval, pattern-order, \
                     pattern-guess, pattern-shallow, ordered-guess, pv-null-window, pv-order, \
                     guess-scale, probcut or defer-ordering"
                ))
                .into())
            }
        }
    }
    Ok(())
}

/// The most empty squares solved without `--yes` (the 6x6 start).
const SOLVE_WITHOUT_YES: u32 = 32;

/// Solves the position (or with `--file` every position of a file) and prints the report.
pub fn run(args: &SolveArgs) -> Result<()> {
    let opts = options(args)?;
    if let Some(path) = &args.file {
        let jobs = (args.jobs as usize).min(rayon::current_num_threads());
        reversi_nxn::memory::check_available(args.hash_mb as u64 * jobs as u64)?;
        let batch = super::batch::BatchArgs {
            jobs,
            keep_going: args.keep_going,
            mode: args.mode,
            hash_mb: args.hash_mb,
            json: args.json,
            scoring: args.scoring,
            keep_table: args.keep_table,
            out: args.out.clone(),
        };
        return super::batch::run(&batch, path, &opts);
    }
    let (pos, _) = args.board.position(6)?;
    if args.save && (args.board.moves.is_some() || args.board.board.is_some()) {
        return Err(UsageError(
            "--save writes the solution of the start position; use --out for other positions"
                .into(),
        )
        .into());
    }
    let mode = args.mode.unwrap_or(Mode::All);
    // A finished game has a value (its score), which --mode all reports; the other modes
    // prove a best move, and there is none.
    if mode != Mode::All && pos.is_over() {
        return Err(UsageError(format!(
            "the game is already over ({}:{}); nothing to solve",
            pos.black_count(),
            pos.white_count()
        ))
        .into());
    }
    if let Some(path) = &args.out {
        super::prepare_output_file(path, "--out")?;
    }
    if args.status {
        let dir = args.state.as_deref().expect("--status requires --state");
        return print_status(dir, &pos, args.scoring);
    }
    let empties = pos.empty().count_ones();
    if empties > SOLVE_WITHOUT_YES {
        let size = reversi_nxn::solve::long_solve_estimate(pos.shape(), empties);
        super::check_long(
            args.yes,
            &format!("solving {empties} empty squares on {}", pos.shape()),
            size.seconds,
            &size.basis,
        )
        .map_err(|e| match published(&pos, args.scoring) {
            Some(note) => UsageError(format!("{e} ({note})")).into(),
            None => e,
        })?;
    }
    if args.save && mode != Mode::All {
        return Err(UsageError("--save writes the solution of --mode all".into()).into());
    }
    if args.state.is_some() && mode != Mode::All {
        return Err(UsageError("--state keeps the state of --mode all only".into()).into());
    }
    let guide = match &args.pv_guide {
        Some(_) if mode != Mode::All => {
            return Err(UsageError("--pv-guide guides the variation of --mode all".into()).into())
        }
        Some(text) => {
            pos.after_moves(text)
                .map_err(|e| UsageError(format!("--pv-guide: {e}")))?
                .1
        }
        None => Vec::new(),
    };
    // A snapshot is built in memory (40 bytes a bound) as it is written (24).
    let state_mb = if args.state.is_some() {
        args.state_mb * 3
    } else {
        0
    };
    // One read the same way: the file, then its bounds.
    let import_mb = match &args.import {
        Some(dir) => {
            if args.scoring != Scoring::WinnerTakesEmpties {
                return Err(UsageError(
                    "--import carries bounds over from the blog's rule's solve to the Othello \
                     rule: add --scoring winner-takes-empties"
                        .into(),
                )
                .into());
            }
            let table = dir.join(reversi_nxn::solve::state::TABLE_FILE);
            std::fs::metadata(table).map_or(0, |m| m.len() >> 20) * 3
        }
        None => 0,
    };
    reversi_nxn::memory::check_available(args.hash_mb as u64 + state_mb + import_mb)?;
    let imported = match &args.import {
        Some(dir) => Some((dir, reversi_nxn::solve::state::import(dir, &pos)?)),
        None => None,
    };
    let mut state = match &args.state {
        Some(dir) => {
            super::prepare_output_dir(dir, "--state")?;
            let mut state = SolveState::open(
                dir,
                &pos,
                args.scoring,
                args.resume,
                Duration::from_secs(args.snapshot_secs),
                (args.state_mb << 20) as usize / SAVED_BYTES,
            )?;
            if state.runs() > 1 {
                let (nodes, seconds) = state.before();
                eprintln!(
                    "resuming the solve in {}: {} root moves solved, {} table bounds, {:.3e} \
                     nodes and {:.0} s before{}",
                    dir.display(),
                    state.roots_done(),
                    state.snapshot_len(),
                    nodes as f64,
                    seconds,
                    at_words(state.last_at())
                );
            }
            // Ctrl-C or SIGTERM: a last snapshot, then exit code 130 (a second one quits at
            // once).
            state.stop = Some(Stop {
                flag: super::stop_flag(),
                exit: exit_interrupted,
            });
            Some(state)
        }
        None => None,
    };
    let mut solver = Solver::new(args.hash_mb);
    solver.set_pv_guide(guide);
    // The bounds are in the table now; their list is dropped here.
    if let Some((dir, bounds)) = imported {
        solver.give(pos.shape(), args.scoring, &bounds);
        eprintln!(
            "carried over {} bounds from {} (the solve of this position under the blog's rule: \
             those that hold under the Othello rule too)",
            bounds.len(),
            dir.display()
        );
    }
    if mode != Mode::All {
        let bar = Bar::new(Arc::new(AtomicBool::new(false)));
        let counter = solver.node_counter();
        // One unit: the proof reports no steps, so the bar shows the watch's nodes and time.
        reversi_nxn::progress::Progress::start(&bar, "solve", 1);
        let proof = bar.watch("solve", &counter, "searching", || {
            solver.prove(&pos, mode, &opts)
        });
        reversi_nxn::progress::Progress::finish(&bar);
        let row = super::batch::Row::new(1, 0, &proof);
        let json = serde_json::to_string_pretty(&row)?;
        if let Some(path) = &args.out {
            super::batch::write_file(path, format!("{json}\n").as_bytes())?;
        }
        if args.json {
            println!("{json}");
        } else {
            println!("solve {} from {}", pos.shape(), pos);
            println!("{}", pos.diagram());
            println!("{}", super::batch::convention_line(mode, args.scoring));
            print!("{}", super::batch::table(&[row], false));
            if let Some(path) = &args.out {
                println!("wrote {}", path.display());
            }
        }
        return Ok(());
    }
    // Without --state a solve keeps nothing, so a signal just ends it; with it, the state's
    // stop above writes a last snapshot first.
    let bar = Bar::new(Arc::new(AtomicBool::new(false)));
    // The bar counts root moves; the watch adds the nodes, the move being searched and how far
    // its search has got, since one root move can take all the time (the 6x6 start has one up
    // to symmetry).
    let counter = solver.node_counter();
    let top = solver.top();
    bar.set_detail(Box::new(move || {
        top.words().map(|w| format!("in its tree, {w}"))
    }));
    if empties > SOLVE_WITHOUT_YES {
        let (nodes_before, seconds_before) = state.as_ref().map_or((0, 0.0), SolveState::before);
        bar.set_whole(crate::bar::Whole {
            nodes_before,
            seconds_before,
            sized_nodes: Some(reversi_nxn::solve::long_solve_estimate(pos.shape(), empties).nodes),
        });
    }
    let report = if let Some(state) = state.as_mut() {
        bar.watch("solve", &counter, "starting", || {
            solver.solve_kept(&pos, &opts, &bar, state)
        })?
    } else {
        bar.watch("solve", &counter, "starting", || {
            solver.solve(&pos, &opts, &bar)
        })
    };
    let json = serde_json::to_string_pretty(&reversi_nxn::export::json::solution(&report))?;
    let mut outs: Vec<PathBuf> = args.out.iter().cloned().collect();
    if args.save {
        outs.push(solution_path(pos.shape(), args.scoring));
    }
    for path in &outs {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        reversi_nxn::atomic::write_atomic(path, &format!("{json}\n"))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if args.json {
        println!("{json}");
    } else {
        print_report(&report);
        for path in &outs {
            println!("wrote {}", path.display());
        }
    }
    Ok(())
}

/// Ends a kept solve stopped by a signal, once its last snapshot is written.
fn exit_interrupted() -> ! {
    std::process::exit(super::INTERRUPTED)
}

/// Where a kept solve's last snapshot says its search was, to follow a line about the state:
/// "; at its last snapshot: root move d2 ..." (nothing when it does not say).
fn at_words(at: &str) -> String {
    if at.is_empty() {
        String::new()
    } else {
        format!("; at its last snapshot: {at}")
    }
}

/// Prints what the solve of `pos` under `scoring` kept in `dir` has proven: each root move's
/// value or the bounds proven so far, in black's terms as the report's move values, and the
/// root's bounds that follow.
fn print_status(dir: &std::path::Path, pos: &Position, scoring: Scoring) -> Result<()> {
    let st = reversi_nxn::solve::state::status(dir, pos, scoring)?;
    let squares = pos.shape().squares() as i32;
    let sign = if pos.black_to_move() { 1 } else { -1 };
    println!(
        "solve {} from {}, scoring {}, kept in {}",
        pos.shape(),
        pos,
        scoring.name(),
        dir.display()
    );
    println!(
        "{} runs, {:.3e} nodes, {:.0} s so far; {} table bounds in the snapshot{}",
        st.runs,
        st.nodes as f64,
        st.seconds,
        st.bounds,
        at_words(&st.at)
    );
    for &m in &pos.legal_turns() {
        let key = pos.apply(m).expect("legal turn").canonical();
        let name = pos.move_name(m);
        if let Some(&(_, v, nodes, secs)) = st.solved.iter().find(|r| r.0 == key) {
            println!(
                "{name}: {:+} for black ({:.3e} nodes, {secs:.0} s)",
                sign * v,
                nodes as f64
            );
        } else {
            let words = proven_words(&name, st.child_bounds(key, squares), sign, squares);
            if words == name {
                println!("{name}: nothing proven yet");
            } else {
                println!("{words}");
            }
        }
    }
    if let Some((found, refuted)) = &st.walk {
        let names: Vec<String> = found.iter().map(|&m| pos.move_name(m)).collect();
        let names = names.join(" ");
        let end = found
            .iter()
            .fold(*pos, |at, &m| at.apply(m).expect("checked on reading"));
        if end.legal_turns().is_empty() {
            println!(
                "principal variation, complete ({} turns): {names}",
                found.len()
            );
        } else {
            let refuted: Vec<String> = refuted.iter().map(|&m| end.move_name(m)).collect();
            println!(
                "principal variation so far ({} turns): {names}; move {} next, {}",
                found.len(),
                found.len() + 1,
                if refuted.is_empty() {
                    "no move of it refuted yet".to_string()
                } else {
                    format!("refuted: {}", refuted.join(" "))
                }
            );
        }
    }
    match st.root_bounds(pos) {
        None => println!("no legal move: solve it without --state"),
        Some(bounds) => {
            let doing = "the position's value";
            let words = proven_words(doing, bounds, sign, squares);
            if words == doing {
                println!("{doing}: nothing proven yet");
            } else {
                println!("{words}");
            }
        }
    }
    Ok(())
}

pub fn print_report(r: &SolveReport) {
    let pos = &r.position;
    println!("solve {} from {}", pos.shape(), pos);
    println!("{}", pos.diagram());
    println!("convention: {}", convention(r.scoring));
    let winner = match r.winner {
        Some(side) => format!("{} ({}) wins", side.name(), side.symbol()),
        None => "draw".to_string(),
    };
    println!("value: {:+} (black minus white), {winner}", r.value);
    println!(
        "principal variation ({} turns): {}",
        r.pv.len(),
        if r.pv.is_empty() {
            "none (the game is over)".to_string()
        } else {
            r.pv_text()
        }
    );
    println!(
        "final score of the principal variation: X {} - O {}",
        r.final_score.0, r.final_score.1
    );
    let best = r.best_moves();
    let list: Vec<String> = r
        .move_values
        .iter()
        .map(|&(m, v)| {
            let mark = if best.contains(&m) { "*" } else { "" };
            format!("{}:{v:+}{mark}", pos.move_name(m))
        })
        .collect();
    println!(
        "move values (black minus white, * best for {}): {}",
        pos.side_to_move().name(),
        if list.is_empty() {
            "none".to_string()
        } else {
            list.join(" ")
        }
    );
    if r.move_values.iter().any(|&(m, _)| m != Move::Pass) {
        println!("{}", value_map(r));
    }
    println!(
        "nodes {}, time {:.3} s, {:.3e} nodes/s, {} threads",
        r.nodes,
        r.seconds,
        r.nodes_per_second(),
        r.threads
    );
}

/// The board with each legal square showing its value (black-relative, `*` after the best) and
/// the discs as `X` and `O`.
fn value_map(r: &SolveReport) -> String {
    let pos = &r.position;
    let shape = pos.shape();
    let best = r.best_moves();
    let mut s = String::from("value map:\n   ");
    for c in 0..shape.cols() {
        s.push_str(&format!("{:>5}", (b'a' + c as u8) as char));
    }
    s.push('\n');
    for row in 0..shape.rows() {
        s.push_str(&format!("{:>3}", row + 1));
        for col in 0..shape.cols() {
            let sq = 8 * row + col;
            let bit = 1u64 << sq;
            let cell =
                if let Some(&(m, v)) = r.move_values.iter().find(|&&(m, _)| m == Move::Place(sq)) {
                    let mark = if best.contains(&m) { "*" } else { " " };
                    format!("{v:+}{mark}")
                } else if pos.black() & bit != 0 {
                    "X ".to_string()
                } else if pos.white() & bit != 0 {
                    "O ".to_string()
                } else {
                    ". ".to_string()
                };
            s.push_str(&format!("{cell:>5}"));
        }
        s.push('\n');
    }
    s.pop();
    s
}
