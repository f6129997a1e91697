//! What can go wrong in a proof ([`ProofError`]).

use std::path::{Path, PathBuf};

/// What went wrong in a proof.
#[derive(Debug, thiserror::Error)]
pub enum ProofError {
    /// A log file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A log line is damaged.
    #[error(
        "{path} line {line}: {why}; the log is damaged: delete that line and every line after \
         it (their units are solved again) and run again with --resume"
    )]
    Damaged {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        why: String,
    },
    /// A log file of another proof.
    #[error(
        "{path} belongs to another proof ({found}), not this one ({wanted}); give another \
         --dir, or the options it was started with"
    )]
    OtherRun {
        /// The file.
        path: PathBuf,
        /// Its header in words.
        found: String,
        /// This run's in words.
        wanted: String,
    },
    /// Another process writes this process's log.
    #[error(
        "{0} is in use: another process with the same --process index is running on this \
         directory"
    )]
    Locked(PathBuf),
    /// Options that cannot work.
    #[error("{0}")]
    Usage(String),
    /// Stopped by the user; the log keeps every finished unit.
    #[error("stopped: {units} units are in the log; run again with --resume to go on")]
    Stopped {
        /// Units in the logs.
        units: u64,
    },
}

impl ProofError {
    pub(super) fn io(path: &Path, source: std::io::Error) -> ProofError {
        ProofError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// Whether the user can mend it (a usage error, exit code 2): everything but I/O and stops.
    #[must_use]
    pub fn is_usage(&self) -> bool {
        !matches!(self, ProofError::Io { .. } | ProofError::Stopped { .. })
    }
}
