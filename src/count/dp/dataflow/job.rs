//! What the workers of a dataflow count share: the [`Job`] they run, what each returns
//! ([`WorkerOut`]) and why one stops ([`Fail`]).
//!
//! Below `mod.rs` and the files of this folder, which all use these.

use std::path::PathBuf;
use std::time::Duration;

use super::meter::Meter;
use crate::board::Position;
use crate::count::{DiskStats, ExchangeRow, LayerRow};

/// What every worker needs: the same on every process of a run.
pub(crate) struct Job {
    pub(super) root: Position,
    pub(super) classes: Vec<Position>,
    pub(super) symmetry: bool,
    /// Names the run: board, options, entry layout and the number of workers.
    pub(super) run_id: u64,
    /// `run_id` and whether this start resumes: processes must agree on both.
    pub(super) handshake: u64,
    /// Memory budget of one worker, in bytes.
    pub(super) worker_budget: u64,
    pub(super) checkpoint: Option<PathBuf>,
    /// The directory of the run's worker directories on the disk store (`None` with `--store
    /// memory`), used from the start (`disk_from_start`, `--store disk`) or from the first layer
    /// whose expansion would not fit a worker's memory budget (`--store auto`).
    pub(super) disk: Option<PathBuf>,
    pub(super) disk_from_start: bool,
    /// Bytes of layer files one worker may keep on disk.
    pub(super) disk_budget: u64,
    /// The disk store plans a worker's tables for this many times its even share of a layer
    /// ([`super::disk::UNEVEN`]; the test hook `REVERSI_TEST_PLAN_SHARE` sets it lower, so that
    /// parts outgrow their budget and are built again).
    pub(super) uneven: f64,
    pub(super) resume: bool,
    pub(super) save_every: Duration,
    /// Test hook: the round after which every worker stops as if interrupted.
    pub(super) stop_after: Option<u64>,
    pub(super) meter: Meter,
}

/// What a worker returns: the whole result (every worker has all of it).
pub(crate) struct WorkerOut {
    pub(super) matrices: Vec<Vec<u128>>,
    pub(super) rows: Vec<LayerRow>,
    pub(super) exchanged: Vec<ExchangeRow>,
    pub(super) peak: usize,
    pub(super) resumed: u64,
    /// The disk store's figures, for this worker.
    pub(super) disk: Option<DiskStats>,
}

/// Why a worker stopped.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) enum Fail {
    /// Input the user can correct (processes started differently, nothing to resume).
    Input(String),
    /// A path count overflowed its slot.
    Overflow,
    /// The memory budget: `(needed, budget)` in MiB.
    Memory(u64, u64),
    /// The test hook stopped the run after a round.
    Stopped,
    /// The disk store's budget or the disk is full: the directory and what to do.
    DiskBudget(PathBuf, String),
    /// Anything else (a checkpoint that cannot be written or read).
    Other(String),
}
