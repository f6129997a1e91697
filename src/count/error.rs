//! Why a count did not finish ([`CountError`]).

use std::path::PathBuf;

use thiserror::Error;

use crate::memory::MemoryError;

/// Why a count did not finish.
#[derive(Debug, Error)]
pub enum CountError {
    /// The dp layers need more memory than the budget.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// Stopped by the user (or the test hook) after saving a checkpoint.
    #[error("interrupted after {done} of {total} {unit}; {saved}")]
    Interrupted {
        /// Units of work done.
        done: u64,
        /// Units of work in all.
        total: u64,
        /// `subtrees` or `layers`.
        unit: &'static str,
        /// Where the checkpoint is, in words.
        saved: String,
    },
    /// A path count does not fit the counters of the method.
    #[error("a count overflowed 64 bits inside {0}; this board is too large for it")]
    Overflow(&'static str),
    /// The disk store cannot go on (no room, an unreadable or foreign file).
    #[error("disk store {dir}: {msg}")]
    Disk {
        /// The run's directory.
        dir: PathBuf,
        /// What went wrong.
        msg: String,
    },
    /// The disk store would need more disk than the budget or the free space.
    #[error("disk store {dir}: {msg}")]
    DiskBudget {
        /// The run's directory.
        dir: PathBuf,
        /// What is needed and what is allowed.
        msg: String,
    },
    /// A fresh count found the files of a stopped run of the same count.
    #[error(
        "a stopped run of this count is in {0}: continue it with --resume, or delete the directory"
    )]
    StoppedRun(PathBuf),
    /// The dataflow count failed (a process lost, a checkpoint unreadable).
    #[error("dataflow: {0}")]
    Dataflow(String),
    /// The processes of a dataflow count disagree, or there is nothing to resume.
    #[error("dataflow: {0}")]
    DataflowInput(String),
    /// The checkpoint cannot be read or written.
    #[error("checkpoint {path}: {msg}")]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        msg: String,
    },
    /// The checkpoint is refused: damaged, truncated, or written by another run or version. The
    /// message says what to do (delete it and start again).
    #[error("checkpoint {path}: {msg}")]
    CheckpointRefused {
        /// The file.
        path: PathBuf,
        /// What is wrong with it and what to do.
        msg: String,
    },
}

impl CountError {
    /// The checkpoint `path` cannot be read or written: `msg` says why.
    pub(crate) fn checkpoint(path: &std::path::Path, msg: impl std::fmt::Display) -> Self {
        CountError::Checkpoint {
            path: path.to_path_buf(),
            msg: msg.to_string(),
        }
    }

    /// The checkpoint `path` must not be used: `what` is wrong with it, and the only way on is
    /// a fresh run (a checkpoint is rewritten in place, so there is no older state to go back
    /// to).
    pub(crate) fn refused(path: &std::path::Path, what: impl std::fmt::Display) -> Self {
        CountError::CheckpointRefused {
            path: path.to_path_buf(),
            msg: format!("{what}; delete it and run the count again without --resume"),
        }
    }

    /// Whether the user can correct it by changing the command (a budget, a flag), as
    /// opposed to a failure of the machine or the files.
    #[must_use]
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            CountError::Memory(_)
                | CountError::DiskBudget { .. }
                | CountError::StoppedRun(_)
                | CountError::DataflowInput(_)
                | CountError::CheckpointRefused { .. }
        )
    }
}
