//! Progress reporting from long computations, without printing from the library.

use std::sync::atomic::{AtomicBool, Ordering};

/// Receives progress from a long computation. The library calls it; the command line draws a
/// bar; tests pass [`Silent`].
pub trait Progress: Sync {
    /// The amount of work ahead, in units the algorithm chooses (tasks, layers, positions).
    fn start(&self, _label: &str, _total: u64) {}
    /// The amount of work ahead changed (a proof's new selection), the work done and the clock
    /// of the time left kept.
    fn resize(&self, _total: u64) {}
    /// `n` more units are done.
    fn advance(&self, _n: u64) {}
    /// The work is over.
    fn finish(&self) {}
    /// A line worth keeping in a log (a finished layer, a change of plan).
    fn note(&self, _line: &str) {}
    /// What the computation is busy with now (a root move of a solve), for a progress report
    /// to show: replaced by the next call, not logged.
    fn working_on(&self, _what: &str) {}
    /// Whether the user asked to stop (Ctrl-C): algorithms that can resume save and return.
    fn should_stop(&self) -> bool {
        false
    }
}

/// Reports nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct Silent;

impl Progress for Silent {}

/// A stop flag that algorithms poll, for interruption in tests and from signal handlers.
#[derive(Debug, Default)]
pub struct StopFlag(AtomicBool);

impl StopFlag {
    /// Asks the computation to stop.
    pub fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was asked for.
    #[must_use]
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}
