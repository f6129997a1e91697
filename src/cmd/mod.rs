//! One module per subcommand: each calls the library and prints; parsing lives in `cli.rs`.

pub mod count;
pub mod perft;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::cli::Command;

/// Runs one subcommand.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Perft(args) => perft::run(&args),
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
