//! `reversi prove`: perfect play proven in work units, kept in a proof log that survives any
//! stop and is shared by any number of processes (see [`reversi_nxn::proof`]).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use reversi_nxn::board::{Position, Scoring};
use reversi_nxn::proof::{prove, ProveOptions, ProveReport};
use reversi_nxn::solve::SolveOptions;

use super::{BoardArgs, UsageError};
use crate::bar::Bar;

/// Arguments of `reversi prove`.
#[derive(Debug, Args)]
pub struct ProveArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// How a finished game is scored: discs (empty squares count for nobody) or
    /// winner-takes-empties (the Othello rules).
    #[arg(long, value_enum, default_value_t = Scoring::Discs)]
    pub scoring: Scoring,
    /// The directory of the proof log (default for the start position:
    /// results/RxC/proof-SCORING; required for any other position).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Go on with this process's log already in --dir (without it, an existing log of this
    /// process is refused, so that a proof is not continued by mistake).
    #[arg(long)]
    pub resume: bool,
    /// Only read the log and print what it proves so far (the root's bounds, each move's);
    /// solve nothing.
    #[arg(long, conflicts_with_all = ["save", "resume"])]
    pub status: bool,
    /// Positions with at most this many empty squares are units (default: six fewer than the
    /// root, at most 30).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=60))]
    pub unit_empties: Option<u32>,
    /// Units this process solves at once, each on one thread with a table of --hash-mb
    /// (default: the threads).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub workers: Option<u32>,
    /// Processes sharing the proof (on this machine or any with the directory mounted).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub processes: u32,
    /// This process's index, from 0 to --processes minus 1.
    #[arg(long, default_value_t = 0)]
    pub process: u32,
    /// Each worker's transposition table in MiB.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub hash_mb: u64,
    /// Nodes of the heuristic search that orders the tree's children and guesses the root
    /// moves' values.
    #[arg(long, default_value_t = 100_000)]
    pub order_nodes: u64,
    /// Which tests the units are: `retest` (a null-window test the first time a position is
    /// asked; once the hypothesis has moved through it, a search confined to a window 3 discs
    /// beyond the bounds asked, exact inside it), `null` (null-window tests only, as proofs
    /// before session 33) or `exact` (every unit finds its position's exact value). Default:
    /// the log's, or `retest` for a new proof.
    #[arg(long, value_name = "WINDOW", value_parser = ["retest", "null", "exact"])]
    pub unit_window: Option<String>,
    /// Milliseconds between reads of the other processes' logs while waiting for them.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(10..=600_000))]
    pub poll_ms: u64,
    /// Turn techniques of the units' solver off (as `solve --without` takes them).
    #[arg(long, value_name = "TECHNIQUE", value_delimiter = ',')]
    pub without: Vec<String>,
    /// Start even when the proof is estimated to take more than an hour.
    #[arg(long)]
    pub yes: bool,
    /// Write the solution to results/RxC/solution.json (or its Othello-rule twin) when proven
    /// (start position only).
    #[arg(long)]
    pub save: bool,
    /// Also write the solution's JSON to this file.
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Solve only N units drawn at random from the current selection, then stop and print
    /// their costs and what the selection would cost at their mean (a sample to size a proof
    /// before running it; the units stay in the log and count for the proof).
    #[arg(long, value_name = "N", conflicts_with_all = ["status", "save", "out"],
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub sample: Option<u64>,
    /// The seed of `--sample`'s draw: the same selection and seed draw the same units.
    #[arg(long, default_value_t = 1, requires = "sample")]
    pub seed: u64,
    /// With --scoring winner-takes-empties: first carry over the bounds of the proof of the
    /// same position under the blog's rule in DIR that hold under both rules (a win, loss or
    /// draw is the same under both, and a margin only grows), into --dir's units-imported.log;
    /// the units then prove only what is left, the margins under the Othello rule.
    #[arg(long, value_name = "DIR", conflicts_with = "status")]
    pub import: Option<PathBuf>,
}

/// The directory of the proof log.
fn log_dir(args: &ProveArgs, pos: &Position, from_start: bool) -> Result<PathBuf> {
    match &args.dir {
        Some(d) => Ok(d.clone()),
        None if from_start => Ok(PathBuf::from("results")
            .join(pos.shape().name())
            .join(format!("proof-{}", args.scoring.name()))),
        None => Err(UsageError(
            "--dir is required for a position other than the start (the default directory, \
             results/RxC/proof-SCORING, holds the start's proof)"
                .into(),
        )
        .into()),
    }
}

/// Proves the position and prints the report.
pub fn run(args: &ProveArgs) -> Result<()> {
    let (pos, _) = args.board.position(6)?;
    let from_start = args.board.moves.is_none() && args.board.board.is_none();
    if args.save && !from_start {
        return Err(UsageError(
            "--save writes the solution of the start position; use --out for other positions"
                .into(),
        )
        .into());
    }
    if args.import.is_some() && args.scoring != Scoring::WinnerTakesEmpties {
        return Err(UsageError(
            "--import carries bounds over from the blog's rule to the Othello rule: add \
             --scoring winner-takes-empties"
                .into(),
        )
        .into());
    }
    if let Some(source) = &args.import {
        reversi_nxn::proof::import::check_source(source, &pos)?;
    }
    if args.process >= args.processes {
        return Err(UsageError(format!(
            "--process {} is out of range: processes are numbered 0 to {} (--processes {})",
            args.process,
            args.processes - 1,
            args.processes
        ))
        .into());
    }
    if pos.is_over() {
        return Err(UsageError(format!(
            "the game is already over ({}:{}); nothing to prove",
            pos.black_count(),
            pos.white_count()
        ))
        .into());
    }
    let mut solve_opts = SolveOptions::default();
    super::solve::without(&mut solve_opts.tuning, &args.without)?;
    let dir = log_dir(args, &pos, from_start)?;
    let mut window = args.unit_window.as_deref().map(|w| {
        reversi_nxn::proof::Window::from_name(w).expect("clap checks the unit window's name")
    });
    // A proof keeps the evaluation it started with (it chooses the units): a log ordered by
    // the hand-made evaluation goes on with it, whatever weights this build has for the board.
    // So it keeps its unit window, unless another is asked for (and then refused by the log).
    let existing = reversi_nxn::proof::log::existing_header(&dir)?;
    if let (None, Some(h)) = (window, &existing) {
        window = reversi_nxn::proof::Window::from_name(&h.unit_window);
        if window.is_none() {
            return Err(UsageError(format!(
                "the log in {} has unit window '{}', which this build does not know",
                dir.display(),
                h.unit_window
            ))
            .into());
        }
    }
    let window = window.unwrap_or_default();
    if let Some(h) = existing {
        let ours = reversi_nxn::proof::evaluation(pos.shape(), &solve_opts.tuning);
        if h.eval == "mobility" && ours != h.eval {
            solve_opts.tuning.pattern_order = false;
            solve_opts.tuning.pattern_guess = false;
            eprintln!(
                "the log in {} was ordered by the mobility evaluation: the proof goes on with it",
                dir.display()
            );
        }
    }
    let empties = pos.empty().count_ones();
    let unit_empties = args
        .unit_empties
        .unwrap_or_else(|| empties.saturating_sub(6).min(30));
    let workers = args
        .workers
        .map_or_else(rayon::current_num_threads, |w| w as usize);
    let hash_mb = usize::try_from(args.hash_mb)?;
    if !args.status {
        if dir.exists() && !dir.is_dir() {
            return Err(UsageError(format!("--dir {}: not a directory", dir.display())).into());
        }
        // Only this process's own log asks for --resume: the others' may appear at any moment
        // when several processes start at once (a log of another proof is refused anyway).
        let own = reversi_nxn::proof::log::file_name(&dir, args.process, args.processes);
        if own.exists() && !args.resume {
            return Err(UsageError(format!(
                "{} exists already: add --resume to go on with this proof, or give another --dir",
                own.display()
            ))
            .into());
        }
        super::prepare_output_dir(&dir, "--dir")?;
        if let Some(path) = &args.out {
            super::prepare_output_file(path, "--out")?;
        }
        if args.save {
            super::prepare_output_file(
                &super::solve::solution_path(pos.shape(), args.scoring),
                "--save",
            )?;
        }
        if empties > 32 {
            let size = reversi_nxn::solve::long_solve_estimate(pos.shape(), empties);
            super::check_long(
                args.yes,
                &format!("proving {empties} empty squares on {}", pos.shape()),
                size.seconds,
                &format!(
                    "{}; a proof takes a few times a solve's nodes, shared by processes, \
                     and its log keeps every finished unit, so it can be stopped and resumed",
                    size.basis
                ),
            )?;
        }
        reversi_nxn::memory::check_available(args.hash_mb * workers as u64)?;
    }
    let opts = ProveOptions {
        scoring: args.scoring,
        tuning: solve_opts.tuning,
        tuning_name: args.without.join(","),
        unit_empties,
        hash_mb,
        order_nodes: args.order_nodes,
        window,
        workers,
        process: args.process,
        processes: args.processes,
        dir: dir.clone(),
        poll: Duration::from_millis(args.poll_ms),
        status_only: args.status,
        sample: args.sample.map(|k| (k as usize, args.seed)),
        import: args.import.clone(),
    };
    let stop = super::stop_flag();
    let bar = Bar::new(stop);
    let report = prove(&pos, &opts, &bar)?;
    let mut outs: Vec<PathBuf> = args.out.iter().cloned().collect();
    if args.save {
        outs.push(super::solve::solution_path(pos.shape(), args.scoring));
    }
    if let Some(from) = report.sampled_from {
        print_sample(&report, from, args.seed, args.json)?;
        if args.json {
            return Ok(());
        }
    } else if let Some(solution) = &report.solution {
        let json = serde_json::to_string_pretty(&reversi_nxn::export::json::solution(solution))?;
        for path in &outs {
            reversi_nxn::atomic::write_atomic(path, &format!("{json}\n"))
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        }
        if args.json {
            println!("{json}");
            return Ok(());
        }
        super::solve::print_report(solution);
    } else if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&status_json(&pos, &report))?
        );
        return Ok(());
    } else {
        print_bounds(&pos, &report);
    }
    let carried = if report.imported > 0 {
        format!(
            " and {} bounds carried over from the blog's rule",
            report.imported
        )
    } else {
        String::new()
    };
    println!(
        "proof log {}: {} units{carried} ({} solved by this run, {} selected and not yet \
         done), {:.3e} nodes, {:.2} core-hours; tree of {} positions, {:.3e} nodes of ordering",
        dir.display(),
        report.units,
        report.units_here,
        report.units_left,
        report.unit_nodes as f64,
        report.unit_seconds / 3600.0,
        report.tree_nodes,
        report.heuristic_nodes as f64
    );
    for path in &outs {
        if report.solution.is_some() {
            println!("wrote {}", path.display());
        }
    }
    Ok(())
}

/// A sample's unit costs and what the selection it was drawn from would cost at their mean,
/// with the standard error of that mean (unit costs spread over orders of magnitude, so a
/// small sample gives a wide range).
fn print_sample(r: &ProveReport, from: usize, seed: u64, json: bool) -> Result<()> {
    let n = r.solved_here.len();
    let nodes: Vec<f64> = r.solved_here.iter().map(|&(x, _)| x as f64).collect();
    let secs: f64 = r.solved_here.iter().map(|&(_, t)| t).sum();
    let mean = nodes.iter().sum::<f64>() / n.max(1) as f64;
    let var = nodes.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n.max(2) - 1) as f64;
    let se = (var / n.max(1) as f64).sqrt();
    let mut sorted = nodes.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted.get(n / 2).copied().unwrap_or(0.0);
    let rate = nodes.iter().sum::<f64>() / secs.max(1e-9);
    if json {
        let v = serde_json::json!({
            "sample": n,
            "seed": seed,
            "drawn_from": from,
            "unit_nodes": r.solved_here.iter().map(|&(x, _)| x).collect::<Vec<_>>(),
            "unit_seconds": r.solved_here.iter().map(|&(_, t)| t).collect::<Vec<_>>(),
            "mean_nodes": mean,
            "standard_error": se,
            "selection_nodes": mean * from as f64,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!(
        "sample of {n} units drawn at random (seed {seed}) from this process's {from} units of \
         the selection"
    );
    println!(
        "nodes per unit: mean {mean:.3e} (standard error {se:.2e}), median {median:.3e}, \
         min {:.3e}, max {:.3e}; {:.2e} nodes/s per worker",
        sorted.first().copied().unwrap_or(0.0),
        sorted.last().copied().unwrap_or(0.0),
        rate
    );
    println!(
        "the {from} units at that mean: {:.2e} nodes (from {:.2e} to {:.2e} within two standard \
         errors); reselections add more (cluster/proof-estimate.py)",
        mean * from as f64,
        ((mean - 2.0 * se) * from as f64).max(0.0),
        (mean + 2.0 * se) * from as f64
    );
    Ok(())
}

/// The bounds proven so far, as `--status` prints them.
fn print_bounds(pos: &Position, r: &ProveReport) {
    println!("prove {} from {}", pos.shape(), pos);
    let (lo, hi) = r.bounds.root;
    println!("value (black minus white) proven so far: {lo:+} <= value <= {hi:+}");
    let moves: Vec<String> = r
        .bounds
        .moves
        .iter()
        .map(|&(m, (lo, hi))| {
            if lo == hi {
                format!("{}:{lo:+}", pos.move_name(m))
            } else {
                format!("{}:[{lo:+},{hi:+}]", pos.move_name(m))
            }
        })
        .collect();
    println!("moves (black minus white): {}", moves.join(" "));
}

/// The status as JSON.
fn status_json(pos: &Position, r: &ProveReport) -> serde_json::Value {
    let moves: Vec<serde_json::Value> = r
        .bounds
        .moves
        .iter()
        .map(|&(m, (lo, hi))| {
            serde_json::json!({"move": pos.move_name(m), "at_least": lo, "at_most": hi})
        })
        .collect();
    serde_json::json!({
        "value_at_least": r.bounds.root.0,
        "value_at_most": r.bounds.root.1,
        "moves": moves,
        "units": r.units,
        "unit_nodes": r.unit_nodes,
        "unit_seconds": r.unit_seconds,
        "units_selected_not_done": r.units_left,
        "bounds_carried_over": r.imported,
    })
}
