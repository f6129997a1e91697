//! What the disk store works within ([`DiskPlan`]) and how its failures are told.
//!
//! Below `mod.rs` and its files, which all use these: the folder's files import this one
//! rather than `mod.rs`, which drives them.

use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};

use crate::count::CountError;

/// Where and within what the disk store works.
#[derive(Debug, Clone)]
pub(crate) struct DiskPlan {
    /// The run's own directory (created; removed at the end of the run).
    pub dir: PathBuf,
    /// Bytes the layer files may take.
    pub disk_budget: u64,
    /// Bytes the tables and buffers may take.
    pub memory_budget: u64,
    /// The budget bounds the process's resident memory too (`CountOptions::whole_process`).
    pub whole_process: bool,
}

/// A failure of the disk store in `dir`.
pub(super) fn fail(dir: &Path, msg: impl std::fmt::Display) -> CountError {
    CountError::Disk {
        dir: dir.to_path_buf(),
        msg: msg.to_string(),
    }
}

/// More disk needed than allowed or free.
pub(super) fn over_disk(dir: &Path, msg: String) -> CountError {
    CountError::DiskBudget {
        dir: dir.to_path_buf(),
        msg,
    }
}

/// An I/O error as a count error: a full disk or an exhausted budget says so and how to go on.
pub(super) fn io_fail(dir: &Path, e: &io::Error) -> CountError {
    if e.kind() == ErrorKind::StorageFull {
        over_disk(
            dir,
            format!("{e}; raise --disk or free space, then run again with --resume"),
        )
    } else {
        fail(dir, e)
    }
}

/// Why one part could not be built.
pub(super) enum PartError {
    /// Its tables outgrew the memory budget: split it finer. The bytes in use, and what held
    /// them, in words.
    Memory(usize, String),
    Count(CountError),
}

impl From<CountError> for PartError {
    fn from(e: CountError) -> PartError {
        PartError::Count(e)
    }
}

/// The finest split tried before giving up on the memory budget.
pub(crate) const MAX_LEVEL: u32 = 24;
