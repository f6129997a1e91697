//! `reversi count`: every complete game counted exactly, printed and written under `results/`.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use reversi_nxn::count::dp::dataflow::{read_hostfile, Dataflow};
use reversi_nxn::count::{
    count, disk_run_dir, moves_text, CountError, CountOptions, CountReport, Method, Store,
};

use super::{BoardArgs, UsageError};
use crate::bar::Bar;

/// Arguments of `reversi count`.
#[derive(Debug, Args)]
pub struct CountArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// dp: paths through the layered graph of positions (fast, needs memory); dfs: enumerate
    /// every game depth-first (slow, needs none).
    #[arg(long, value_enum, default_value_t = Method::Dp)]
    pub method: Method,
    /// Memory budget for dp, in MiB: a board needing more is refused.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..))]
    pub memory: u64,
    /// Continue from the checkpoint a stopped run of the same command left.
    #[arg(long)]
    pub resume: bool,
    /// Directory for the result files (default: results/RxC/, or
    /// results/RxC/after-MOVES/ with --moves; with --board, files are written only here).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print and write nothing but the summary on stdout.
    #[arg(long)]
    pub no_files: bool,
    /// Do not merge symmetric positions (for checking and measuring what symmetry saves).
    #[arg(long)]
    pub no_symmetry: bool,
    /// Print the report as JSON on stdout instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Where dp keeps its layers: in memory while the next one is sure to fit --memory, then
    /// on disk (auto; with --memory of at least 64 MiB); always in memory (memory); always on
    /// disk (disk). As a dataflow, each worker keeps its part on its own disk.
    #[arg(long, value_enum, default_value_t = Store::Auto)]
    pub store: Store,
    /// Directory for the disk store's layer files (a directory of its own is made inside;
    /// default: the system's temporary directory).
    #[arg(long, value_name = "DIR")]
    pub tmp_dir: Option<PathBuf>,
    /// Disk budget of the layer files in GiB (default: the free space of --tmp-dir less 1 GiB).
    #[arg(long, value_name = "GIB", value_parser = positive_gib)]
    pub disk: Option<f64>,
    /// dfs: merge the first plies (equal and symmetric positions) until at least this many
    /// positions are left to walk. A larger frontier merges more transpositions, so the walk
    /// enumerates fewer games (5x5 after c2 b2 b3 b4: 2.7x less time with 10^6 than with the
    /// default), at about 400 bytes of memory per position.
    #[arg(long, value_name = "N", default_value_t = reversi_nxn::count::dfs::FRONTIER_TARGET,
          value_parser = frontier_size)]
    pub frontier: usize,
    /// Count by dp as a timely-dataflow computation with this many worker threads in each
    /// process (alone: one process). The results are those of the one-process count.
    #[arg(long, value_name = "W", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub workers: Option<u32>,
    /// Processes of the dataflow count (with --process and --hostfile; see cluster/README.md).
    #[arg(long, value_name = "P", value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub processes: Option<u32>,
    /// This process's index in the dataflow count, from 0 to --processes minus 1.
    #[arg(long, value_name = "I")]
    pub process: Option<u32>,
    /// The dataflow count's hostfile: one host:port line per process, in process order.
    #[arg(long, value_name = "FILE")]
    pub hostfile: Option<PathBuf>,
    /// dp in memory or as a dataflow: seconds of work between two saved layers (0: save every
    /// layer; the disk store saves after every part). Saving never takes more than a
    /// twentieth of the run.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub checkpoint_secs: u64,
    /// Start even when the count is estimated to take more than an hour (dfs: a quick Knuth
    /// estimate of the games, at about 10^8 games a second per thread).
    #[arg(long)]
    pub yes: bool,
    /// Test hook: stop as if interrupted after this many units of work (dfs subtrees, dp
    /// layers), saving the checkpoint.
    #[arg(long, hide = true)]
    pub stop_after: Option<u64>,
}

/// The most empty squares counted by dp here (4x7 from the start): beyond them a count asks
/// for `--yes` when its extrapolated time is over an hour.
const DP_MEASURED_EMPTIES: u32 = 24;

/// The dfs walk's speed assumed by the estimate of a run's time (measured: 8.5e7 games per
/// CPU second on 5x5 with the default frontier, 2-3 times that with a larger one).
const DFS_GAMES_PER_THREAD_SECOND: f64 = 1e8;

/// The positions (up to symmetry) a dp count from `empties` empty squares meets in all its
/// layers: extrapolated from the largest count measured here, 4x7 from the start (see
/// cluster/PLAN.md for the boards beyond it, within a factor of about two of this rule).
fn dp_positions(empties: u32) -> f64 {
    7.6e9 * 3.3f64.powi(empties as i32 - DP_MEASURED_EMPTIES as i32)
}

/// The disk store's peak use for a dp count from `empties` empty squares, in bytes: 4x7 peaked
/// at 32 GiB for its 7.6e9 positions, 4.5 bytes a position.
fn dp_peak_disk_bytes(empties: u32) -> f64 {
    dp_positions(empties) * 4.5
}

/// Refuses, before any work, a disk-store count whose expected peak is more than the free
/// space of `tmp_dir` (the run would stop at the layer that does not fit).
fn check_disk_room(tmp_dir: &std::path::Path, empties: u32) -> Result<()> {
    let need = dp_peak_disk_bytes(empties);
    match reversi_nxn::count::free_disk_bytes(tmp_dir) {
        Some(free) if need > free as f64 => Err(UsageError(format!(
            "the disk store needs about {:.1} GiB of disk at its peak (extrapolated from 4x7: \
             32 GiB for 24 empty squares, about 3.3 times more per further empty square) but \
             {} has {:.1} GiB free: free space, choose another --tmp-dir, or pass --yes to \
             start anyway (the run stops with a checkpoint at the first layer that does not \
             fit)",
            need / f64::from(1u32 << 30),
            tmp_dir.display(),
            free as f64 / f64::from(1u32 << 30)
        ))
        .into()),
        _ => Ok(()),
    }
}

/// Runs the count, prints the summary and writes the files.
pub fn run(args: &CountArgs) -> Result<()> {
    let (pos, played) = args.board.position(4)?;
    let start = args.board.shape(4)?.start();
    let moves = if args.board.board.is_some() {
        String::new()
    } else {
        moves_text(&start, &played)
    };
    let shape = pos.shape();
    let out_dir: Option<PathBuf> = if args.no_files {
        None
    } else if let Some(o) = &args.out {
        Some(o.clone())
    } else if args.board.board.is_some() {
        None
    } else if played.is_empty() {
        Some(PathBuf::from("results").join(shape.name()))
    } else {
        let tag: Vec<&str> = moves.split_whitespace().collect();
        Some(
            PathBuf::from("results")
                .join(shape.name())
                .join(format!("after-{}", tag.join("-"))),
        )
    };
    if args.method == Method::Dp {
        reversi_nxn::memory::check_available(args.memory)?;
    }
    if let Some(dir) = &out_dir {
        super::prepare_output_dir(dir, "--out")?;
    }
    let empties = pos.empty().count_ones();
    let tmp_dir = args.tmp_dir.clone().unwrap_or_else(std::env::temp_dir);
    if args.method == Method::Dp && (args.tmp_dir.is_some() || args.store == Store::Disk) {
        check_writable_dir(&tmp_dir)?;
    }
    // The auto store goes to disk once a layer would not fit --memory.
    let to_disk = args.store == Store::Disk
        || (args.store == Store::Auto
            && dp_peak_disk_bytes(empties) > args.memory as f64 * f64::from(1u32 << 20));
    if args.method == Method::Dp && to_disk && !args.resume && !args.yes {
        check_disk_room(&tmp_dir, empties)?;
    }
    if args.method == Method::Dp
        && args.store == Store::Disk
        && args.disk.is_none()
        && reversi_nxn::count::default_disk_bytes(&tmp_dir) == 0
    {
        return Err(UsageError(format!(
            "--tmp-dir {} has under 1 GiB free, and the disk store leaves 1 GiB free \
             unless --disk says how much it may use: free space, pass --disk GIB, or \
             choose another --tmp-dir",
            tmp_dir.display()
        ))
        .into());
    }
    if args.method == Method::Dp && !args.resume && empties > DP_MEASURED_EMPTIES {
        let positions = dp_positions(empties);
        let threads = rayon::current_num_threads() as f64;
        super::check_long(
            args.yes,
            &format!(
                "counting {shape} from {empties} empty squares by dp (about {positions:.0e} \
                 positions up to symmetry, about {:.0} GiB of disk at the peak)",
                dp_peak_disk_bytes(empties) / f64::from(1u32 << 30)
            ),
            positions * 6.5e-7 * 2.0 / threads,
            "extrapolated from 4x7, 24 empty squares: 7.6e9 positions in 4,951 s on two \
             threads with 32 GiB of disk, about 3.3 times more per further empty square",
        )?;
    }
    if args.method == Method::Dfs && !args.resume {
        let games = reversi_nxn::estimate::games_quick(&pos, 2000);
        let threads = rayon::current_num_threads() as f64;
        super::check_long(
            args.yes,
            &format!("counting about {games:.1e} games of {shape} one by one (--method dfs)"),
            games / (DFS_GAMES_PER_THREAD_SECOND * threads),
            "a Knuth estimate of 2,000 games at 10^8 games a second per thread; --method dp \
             counts far faster where it fits",
        )?;
    }
    let checkpoint = out_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("."))
        .join(format!("count-{}.checkpoint", args.method.name()));
    let dataflow = dataflow_plan(args)?;
    let opts = CountOptions {
        method: args.method,
        memory_mb: args.memory,
        checkpoint: Some(checkpoint.clone()),
        resume: args.resume,
        symmetry: !args.no_symmetry,
        stop_after: args.stop_after,
        store: args.store,
        tmp_dir,
        disk_bytes: args.disk.map(|g| (g * f64::from(1u32 << 30)) as u64),
        frontier: args.frontier,
        dataflow,
        checkpoint_secs: args.checkpoint_secs,
        whole_process: true,
    };
    let disk_dir = disk_run_dir(&pos, &opts);
    // Two runs in one place would overwrite each other's checkpoint or disk layers; the
    // processes of a dataflow count each keep files of their own (and bind their own port).
    let mut _locks = Vec::new();
    if opts.dataflow.is_none() {
        // Without --out the checkpoint goes to the current directory, where counts of
        // different boards often run side by side (--no-files): not locked.
        if let Some(dir) = &out_dir {
            _locks.push(reversi_nxn::lock::lock_dir(dir, "--out")?);
        }
        if args.method == Method::Dp && (args.tmp_dir.is_some() || args.store == Store::Disk) {
            _locks.push(reversi_nxn::lock::lock_file(
                &disk_dir,
                "the disk store's directory",
            )?);
        }
    }
    if args.resume
        && opts.dataflow.is_none()
        && !checkpoint.exists()
        && !(args.method == Method::Dp && disk_dir.join("manifest.json").exists())
    {
        return Err(UsageError(format!(
            "--resume: no checkpoint at {} nor a disk run in {} (nothing to resume)",
            checkpoint.display(),
            disk_dir.display()
        ))
        .into());
    }
    let bar = Bar::new(super::stop_flag());
    let report = match count(&pos, &moves, &opts, &bar) {
        Ok(r) => r,
        Err(CountError::Memory(e)) => return Err(e.into()),
        Err(e) => return Err(e.into()),
    };
    if args.json {
        println!("{}", reversi_nxn::export::json::report(&report)?.trim_end());
    } else {
        print_summary(&report);
    }
    let writer = opts.dataflow.as_ref().is_none_or(|d| d.process == 0);
    if let (Some(dir), true) = (out_dir, writer) {
        let written = reversi_nxn::export::write_count(&report, &dir)?;
        if !args.json {
            println!("wrote {} files to {}", written.len(), dir.display());
        }
    } else if args.board.board.is_some() && !args.no_files && !args.json {
        println!("(no files written for a board string: give --out DIR)");
    }
    Ok(())
}

/// The dataflow count's workers and processes from the flags, checked; `None` for the
/// one-process count.
fn dataflow_plan(args: &CountArgs) -> Result<Option<Dataflow>> {
    let cluster = args.processes.is_some() || args.process.is_some() || args.hostfile.is_some();
    if args.workers.is_none() && !cluster {
        return Ok(None);
    }
    let bad = |m: String| -> anyhow::Error { UsageError(m).into() };
    if args.method != Method::Dp {
        return Err(bad(
            "--workers, --processes: only --method dp runs as a dataflow".into(),
        ));
    }
    let workers = args.workers.unwrap_or(1) as usize;
    let processes = args.processes.unwrap_or(1);
    if processes == 1 && args.hostfile.is_none() {
        if args.process.is_some_and(|i| i > 0) {
            return Err(bad(format!(
                "--process {} is out of range for --processes 1 (0 only)",
                args.process.unwrap_or(0)
            )));
        }
        return Ok(Some(Dataflow {
            workers,
            process: 0,
            hosts: Vec::new(),
        }));
    }
    let Some(process) = args.process else {
        return Err(bad(
            "--processes and --hostfile need --process I (this process's index)".into(),
        ));
    };
    if process >= processes {
        return Err(bad(format!(
            "--process {process} is out of range for --processes {processes} (0 to {})",
            processes - 1
        )));
    }
    let Some(path) = &args.hostfile else {
        return Err(bad(
            "--processes needs --hostfile FILE (one host:port line per process)".into(),
        ));
    };
    let hosts = read_hostfile(path).map_err(bad)?;
    if hosts.len() != processes as usize {
        return Err(bad(format!(
            "hostfile {} has {} host:port lines, --processes is {processes}",
            path.display(),
            hosts.len()
        )));
    }
    Ok(Some(Dataflow {
        workers,
        process: process as usize,
        hosts,
    }))
}

/// A disk budget in GiB: a positive number.
fn positive_gib(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(g) if g.is_finite() && g > 0.0 => Ok(g),
        _ => Err(format!("'{s}' is not a positive number of GiB")),
    }
}

/// Refuses a directory that does not exist or cannot be written, before any work.
fn check_writable_dir(dir: &std::path::Path) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(UsageError(format!(
            "--tmp-dir {}: not a directory (give a directory for the disk store's files)",
            dir.display()
        ))
        .into());
    }
    if !dir.is_dir() {
        return Err(UsageError(format!("--tmp-dir {}: no such directory", dir.display())).into());
    }
    let probe = dir.join(format!(".reversi-write-test-{}", std::process::id()));
    match std::fs::write(&probe, b"") {
        Ok(()) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(UsageError(format!(
            "--tmp-dir {}: cannot write there ({e})",
            dir.display()
        ))
        .into()),
    }
}

fn pct(n: u128, d: u128) -> f64 {
    if d == 0 {
        0.0
    } else {
        100.0 * n as f64 / d as f64
    }
}

fn print_summary(r: &CountReport) {
    println!(
        "count on {} by {} from {}",
        r.board,
        r.method.name(),
        r.position
    );
    if !r.moves.is_empty() {
        println!("after the moves: {}", r.moves);
    }
    println!("games        {:>24}", r.games);
    println!(
        "black wins   {:>24}  ({:.2}%)",
        r.black_wins,
        pct(r.black_wins, r.games)
    );
    println!(
        "draws        {:>24}  ({:.2}%)",
        r.draws,
        pct(r.draws, r.games)
    );
    println!(
        "white wins   {:>24}  ({:.2}%)",
        r.white_wins,
        pct(r.white_wins, r.games)
    );
    if !r.first_moves.is_empty() {
        println!("by first move (moves of one symmetry class are computed once):");
        println!(
            "  {:<6} {:>22} {:>22} {:>18} {:>22}",
            "move", "games", "black wins", "draws", "white wins"
        );
        for m in &r.first_moves {
            println!(
                "  {:<6} {:>22} {:>22} {:>18} {:>22}",
                m.mv, m.games, m.black_wins, m.draws, m.white_wins
            );
        }
    }
    if let (Some(first), Some(q)) = (r.lengths.first(), &r.length_quantiles) {
        let shortest: Vec<String> = r
            .score_matrix
            .iter()
            .enumerate()
            .flat_map(|(b, row)| {
                row.iter()
                    .enumerate()
                    .filter(move |&(w, &n)| n > 0 && (b + w) as u32 == first.placements + 4)
                    .map(move |(w, &n)| format!("{b}:{w} ({n})"))
            })
            .collect();
        println!(
            "length (placements from the start): shortest {} [{}], mean {:.2}, median {}, p90 {}, longest {}",
            first.placements,
            shortest.join(", "),
            q.mean,
            q.p50,
            q.p90,
            q.max
        );
    }
    if let Some(q) = &r.margin_quantiles {
        println!(
            "margin (black - white): min {}, mean {:+.2}, median {}, p90 {}, max {}",
            q.min, q.mean, q.p50, q.p90, q.max
        );
    }
    if let Some(layers) = &r.positions_per_layer {
        let total: u64 = layers.iter().map(|l| l.positions).sum();
        let widest = layers.iter().max_by_key(|l| l.positions);
        if let Some(w) = widest {
            println!(
                "positions in play (side to move counted, merged by symmetry, after the \
                 start; strong's \"in play\"): {total} in all, at most {} with {} discs",
                w.positions, w.discs
            );
        }
    }
    let mut tail = match r.dataflow {
        Some(d) => format!(
            "time {:.3} s as a dataflow of {} process{} x {} worker{}",
            r.seconds,
            d.processes,
            if d.processes == 1 { "" } else { "es" },
            d.workers,
            if d.workers == 1 { "" } else { "s" }
        ),
        None => format!("time {:.3} s on {} threads", r.seconds, r.threads),
    };
    if let Some(mb) = r.peak_layer_mb {
        tail.push_str(&format!(", peak layer memory {mb:.1} MiB"));
    }
    if let Some(d) = &r.disk {
        tail.push_str(&format!(
            ", disk store: peak {:.2} GiB on disk, {:.2} GiB written, {:.2} GiB read",
            d.peak_disk as f64 / f64::from(1u32 << 30),
            d.bytes_written as f64 / f64::from(1u32 << 30),
            d.bytes_read as f64 / f64::from(1u32 << 30)
        ));
    }
    if let Some(rss) = reversi_nxn::memory::peak_resident_mb() {
        tail.push_str(&format!(", peak RSS {rss} MiB"));
    }
    if r.resumed_units > 0 {
        tail.push_str(&format!(
            ", {} units taken from the checkpoint",
            r.resumed_units
        ));
    }
    println!("{tail}");
}

/// `--frontier`: a whole number from 1 to 10^8.
fn frontier_size(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=100_000_000).contains(&n) => Ok(n),
        _ => Err(format!("{s:?} is not a frontier size from 1 to 100000000")),
    }
}
