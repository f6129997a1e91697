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

/// A duration in the largest unit that keeps it readable: "40 minutes", "3.2 hours",
/// "5.0e6 years".
#[must_use]
pub fn human_duration(seconds: f64) -> String {
    const YEAR: f64 = 365.25 * 86_400.0;
    if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 7_200.0 {
        format!("{:.0} minutes", seconds / 60.0)
    } else if seconds < 2.0 * 86_400.0 {
        format!("{:.1} hours", seconds / 3_600.0)
    } else if seconds < YEAR {
        format!("{:.0} days", seconds / 86_400.0)
    } else if seconds < 10.0 * YEAR {
        format!("{:.1} years", seconds / YEAR)
    } else if seconds < 1e4 * YEAR {
        format!("{:.0} years", seconds / YEAR)
    } else {
        format!("{:.1e} years", seconds / YEAR)
    }
}
