//! One module per subcommand: each calls the library and prints; parsing lives in `cli.rs`.

pub mod analyze;
pub mod batch;
pub mod count;
pub mod estimate;
pub mod heuristics;
pub mod perft;
pub mod play;
pub mod plot;
pub mod positions;
pub mod report;
pub mod solve;
pub mod strong;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use reversi_nxn::board::Scoring;

use crate::cli::Command;

/// Runs one subcommand.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Perft(args) => perft::run(&args),
        Command::Positions(args) => positions::run(&args),
        Command::Analyze(args) => analyze::run(&args),
        Command::Play(args) => play::run(&args),
        Command::Estimate(args) => estimate::run(&args),
        Command::Plot(args) => plot::run(&args),
        Command::Report(args) => report::run(&args),
        Command::Strong(args) => strong::run(&args),
        Command::Heuristics(args) => heuristics::run(&args),
        Command::Solve(args) => solve::run(&args),
        Command::Count(args) => count::run(&args),
    }
}

/// A stop flag set by Ctrl-C (SIGINT) or SIGTERM, for jobs that save their work and stop.
pub fn stop_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    // A second handler cannot be installed; the first flag then stays the only one.
    let _ = ctrlc::set_handler(move || f.store(true, Ordering::Relaxed));
    flag
}

/// The most empty squares for which `play` and `analyze` call the exact solver (about a second
/// or less per position on two cores).
pub const SOLVE_EMPTIES: u32 = 18;

/// The best advisor available for positions like `pos` under `scoring`: a strong solution of
/// the board if one is on disk (`results/RxC/strong.bin` or `data/RxC/strong.bin`, written by
/// `reversi strong`, whose values empty squares count for nobody in, so only under
/// [`Scoring::Discs`]), else the exact solver for positions with at most [`SOLVE_EMPTIES`]
/// empty squares, else a depth-limited heuristic search (exact only where it reaches the end
/// of the game).
pub fn advisor_for(
    pos: &reversi_nxn::board::Position,
    limit: std::time::Duration,
    scoring: Scoring,
) -> Box<dyn reversi_nxn::play::Advisor> {
    use reversi_nxn::play::{HeuristicAdvisor, SolverAdvisor, StrongAdvisor};
    let fallback = SolverAdvisor {
        solver: reversi_nxn::solve::Solver::new(256),
        max_empties: SOLVE_EMPTIES,
        scoring,
        fallback: HeuristicAdvisor { limit, scoring },
    };
    if scoring != Scoring::Discs {
        return Box::new(fallback);
    }
    let name = pos.shape().name();
    for dir in ["results", "data"] {
        let path = std::path::Path::new(dir).join(&name).join("strong.bin");
        if let Ok(table) = reversi_nxn::strong::StrongTable::load(&path) {
            if table.shape() == pos.shape() {
                eprintln!("perfect play from {}", path.display());
                return Box::new(StrongAdvisor { table, fallback });
            }
        }
    }
    Box::new(fallback)
}
