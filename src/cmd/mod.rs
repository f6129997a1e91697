//! One module per subcommand: each calls the library and prints; parsing lives in `cli.rs`.

pub mod analyze;
pub mod args;
pub mod batch;
pub mod count;
pub mod estimate;
pub mod heuristics;
pub mod perft;
pub mod play;
pub mod plot;
pub mod positions;
pub mod prove;
pub mod report;
pub mod solve;
pub mod strong;
pub mod train;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use reversi_nxn::board::Scoring;

pub use args::{BoardArgs, Interrupted, ShapeArgs, UsageError};

/// The flag the signal handler sets for a command that saves its work.
static STOP: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
/// Whether the running command polls [`STOP`] (it asked for it with [`stop_flag`]).
static COOPERATIVE: AtomicBool = AtomicBool::new(false);
/// Signals received.
static SIGNALS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// The exit code of a run stopped by Ctrl-C (SIGINT), SIGTERM or SIGHUP, whatever the command.
pub const INTERRUPTED: i32 = 130;

/// Installs the one handler of Ctrl-C (SIGINT), SIGTERM and SIGHUP, at start-up. A command that
/// saves its work took [`stop_flag`] and polls it: the first signal asks it to stop (it saves
/// what can be resumed and exits with [`INTERRUPTED`]), a second exits at once. Any other
/// command has nothing to save and exits with [`INTERRUPTED`] at the first signal.
pub fn install_signal_handler() {
    let _ = ctrlc::set_handler(|| {
        let n = SIGNALS.fetch_add(1, Ordering::SeqCst) + 1;
        if COOPERATIVE.load(Ordering::SeqCst) && n == 1 {
            stop_handle().store(true, Ordering::SeqCst);
            eprintln!("\nstopping: saving the work done (a second Ctrl-C quits at once)");
        } else {
            eprintln!("\ninterrupted");
            std::process::exit(INTERRUPTED);
        }
    });
}

fn stop_handle() -> &'static Arc<AtomicBool> {
    STOP.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// The stop flag, for a command that polls it and saves its work when it is set (see
/// [`install_signal_handler`]).
pub fn stop_flag() -> Arc<AtomicBool> {
    COOPERATIVE.store(true, Ordering::SeqCst);
    Arc::clone(stop_handle())
}

/// A flag no signal sets, for the progress bar of a command that does not save its work (a
/// signal ends it at once).
pub fn no_stop() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(false))
}

/// Makes sure results can be written to `dir` before any work starts: creates it and writes
/// and removes a probe file there. `flag` names the option that chose it, for the one-line
/// usage error (exit code 2) that names the directory and what failed.
pub fn prepare_output_dir(dir: &std::path::Path, flag: &str) -> anyhow::Result<()> {
    let bad = |what: String| -> anyhow::Error {
        UsageError(format!("{flag} {}: {what}", dir.display())).into()
    };
    if dir.exists() && !dir.is_dir() {
        return Err(bad("not a directory".into()));
    }
    std::fs::create_dir_all(dir).map_err(|e| bad(format!("cannot create it ({e})")))?;
    let probe = dir.join(format!(".reversi-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| bad(format!("cannot write there ({e})")))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// [`prepare_output_dir`] for the directory of an output file.
pub fn prepare_output_file(path: &std::path::Path, flag: &str) -> anyhow::Result<()> {
    if path.is_dir() {
        return Err(UsageError(format!(
            "{flag} {}: is a directory; give the name of a file",
            path.display()
        ))
        .into());
    }
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => prepare_output_dir(dir, flag),
        None => prepare_output_dir(std::path::Path::new("."), flag),
    }
}

/// A request estimated to run longer than this starts only with `--yes`.
pub const LONG_RUN_SECS: f64 = 3600.0;

/// Refuses (a usage error, exit code 2) a request estimated to take over [`LONG_RUN_SECS`]
/// unless `yes`: `what` names it, `seconds` is the estimate on this run's threads, `basis`
/// says how it was made.
pub fn check_long(yes: bool, what: &str, seconds: f64, basis: &str) -> anyhow::Result<()> {
    if yes || seconds <= LONG_RUN_SECS {
        return Ok(());
    }
    Err(UsageError(format!(
        "{what} would take about {} on {} threads ({basis}); pass --yes to start it anyway",
        human_duration(seconds),
        rayon::current_num_threads()
    ))
    .into())
}

use reversi_nxn::progress::human_duration;

/// The best advisor available for positions like `pos` under `scoring`: a strong solution of
/// the board if one is on disk (`results/RxC/strong.bin` or `data/RxC/strong.bin`, written by
/// `reversi strong`, whose values empty squares count for nobody in, so only under
/// [`Scoring::Discs`]), else the exact solver wherever its cost estimate fits `limit` (see
/// [`reversi_nxn::play::SolverAdvisor`]), else the board's published solution where it settles
/// the position (`results/RxC/solution.json` or its twin under the Othello rule: the start's
/// moves and the principal variation, [`reversi_nxn::play::known`]), else a depth-limited
/// heuristic search (exact only where it reaches the end of the game). A solution file that
/// fails its checks is not used, and a line on stderr says why. Also whether the published
/// solution settles `pos` itself (so that the caller need not load and check it again).
pub fn advisor_for(
    pos: &reversi_nxn::board::Position,
    limit: std::time::Duration,
    scoring: Scoring,
) -> (Box<dyn reversi_nxn::play::Advisor>, bool) {
    use reversi_nxn::play::known::{Known, KnownAdvisor};
    use reversi_nxn::play::{HeuristicAdvisor, SolverAdvisor, StrongAdvisor};
    let name = pos.shape().name();
    let strong = (scoring == Scoring::Discs)
        .then(|| {
            ["results", "data"].iter().find_map(|dir| {
                let path = std::path::Path::new(dir).join(&name).join("strong.bin");
                let table = reversi_nxn::strong::StrongTable::load(&path).ok()?;
                (table.shape() == pos.shape()).then_some((table, path))
            })
        })
        .flatten();
    let results = std::path::Path::new("results");
    let known = match Known::load(results, pos.shape(), scoring) {
        Ok(Some(known)) => {
            if strong.is_none() {
                eprintln!(
                    "perfect play at the start and along the principal variation from {}",
                    known.source().display()
                );
            }
            Some(known)
        }
        Ok(None) => None,
        Err(why) => {
            eprintln!("not using the published solution {why}");
            None
        }
    };
    let settled = known.as_ref().is_some_and(|k| k.lookup(pos).is_some());
    let fallback = SolverAdvisor {
        solver: reversi_nxn::solve::Solver::new(256),
        limit,
        scoring,
        fallback: KnownAdvisor {
            known,
            fallback: HeuristicAdvisor { limit, scoring },
        },
    };
    match strong {
        Some((table, path)) => {
            eprintln!("perfect play from {}", path.display());
            (Box::new(StrongAdvisor { table, fallback }), settled)
        }
        None => (Box::new(fallback), settled),
    }
}
