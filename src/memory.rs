//! Memory budgets: how much the machine has, and refusing what it has not.

use thiserror::Error;

/// A request for more memory than allowed or available.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MemoryError {
    /// More than the machine has free.
    #[error("asked for {asked_mb} MiB but the machine has only {available_mb} MiB available")]
    MoreThanAvailable {
        /// MiB asked for.
        asked_mb: u64,
        /// MiB the machine reports available.
        available_mb: u64,
    },
    /// More than the budget given with `--memory`/`--hash-mb`.
    #[error("{what} needs about {needed_mb} MiB, more than the budget of {budget_mb} MiB (raise --memory)")]
    OverBudget {
        /// What needed it.
        what: String,
        /// MiB needed.
        needed_mb: u64,
        /// MiB allowed.
        budget_mb: u64,
    },
}

/// Memory the machine reports available (`MemAvailable` in `/proc/meminfo`), in MiB, if known.
#[must_use]
pub fn available_mb() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// Refuses a budget of `mb` MiB that the machine cannot give.
///
/// # Errors
///
/// [`MemoryError::MoreThanAvailable`] when `mb` exceeds what the machine reports available.
pub fn check_available(mb: u64) -> Result<(), MemoryError> {
    match available_mb() {
        Some(available_mb) if mb > available_mb => Err(MemoryError::MoreThanAvailable {
            asked_mb: mb,
            available_mb,
        }),
        _ => Ok(()),
    }
}
