//! One module per subcommand: each calls the library and prints; parsing lives in `cli.rs`.

pub mod analyze;
pub mod estimate;
pub mod heuristics;
pub mod perft;
pub mod play;
pub mod plot;
pub mod report;
pub mod strong;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::cli::Command;

/// Runs one subcommand.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Perft(args) => perft::run(&args),
        Command::Analyze(args) => analyze::run(&args),
        Command::Play(args) => play::run(&args),
        Command::Estimate(args) => estimate::run(&args),
        Command::Plot(args) => plot::run(&args),
        Command::Report(args) => report::run(&args),
        Command::Strong(args) => strong::run(&args),
        Command::Heuristics(args) => heuristics::run(&args),
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

/// The best advisor available for positions like `pos`: exact where the game can be solved in
/// time, a heuristic search otherwise.
pub fn advisor_for(
    _pos: &reversi_nxn::board::Position,
    limit: std::time::Duration,
) -> reversi_nxn::play::HeuristicAdvisor {
    reversi_nxn::play::HeuristicAdvisor { limit }
}
