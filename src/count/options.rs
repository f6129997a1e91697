//! How to count: the method, where dp keeps its layers, and the options of one count.

use std::path::PathBuf;

use serde::Serialize;

use super::dp::dataflow::Dataflow;
use crate::board::Position;

/// The two independent ways of counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Paths through the layered graph of positions (fast, memory-bound).
    Dp,
    /// Depth-first enumeration of every game (slow, needs no memory).
    Dfs,
}

impl Method {
    /// `dp` or `dfs`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Method::Dp => "dp",
            Method::Dfs => "dfs",
        }
    }
}

/// Where dp keeps its layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Store {
    /// In memory while the next layer is expected to fit `--memory`, then on disk.
    Auto,
    /// Always in memory: a layer that does not fit is refused.
    Memory,
    /// Always on disk (every layer written and read back; for checking and measuring).
    Disk,
}

/// How to count.
#[derive(Debug, Clone)]
pub struct CountOptions {
    /// Which method.
    pub method: Method,
    /// Memory budget for the dp layers, in MiB; a board that needs more is refused.
    pub memory_mb: u64,
    /// Where to keep the checkpoint (none: no checkpoint, no resume).
    pub checkpoint: Option<PathBuf>,
    /// Start from the checkpoint if it exists and matches this run.
    pub resume: bool,
    /// Merge positions equal up to a symmetry of the board.
    pub symmetry: bool,
    /// Test hook: behave as if interrupted after this many units of work (dfs subtrees, dp
    /// layers) are done in this run.
    pub stop_after: Option<u64>,
    /// Where dp keeps its layers.
    pub store: Store,
    /// The directory of the disk store's files (a directory of its own is made inside).
    pub tmp_dir: PathBuf,
    /// Bytes the disk store may put on disk (`None`: the free space of `tmp_dir`, less 1 GiB).
    pub disk_bytes: Option<u64>,
    /// dfs: merge the first plies until the frontier holds at least this many positions.
    pub frontier: usize,
    /// dp as a timely-dataflow computation over these workers and processes (`None`: the
    /// one-process count).
    pub dataflow: Option<Dataflow>,
    /// Seconds of work between two checkpoints of dp in memory or as a dataflow, saved at a
    /// layer's end (0: every layer). The memory store lengthens it so that saving takes at
    /// most a twentieth of the run.
    pub checkpoint_secs: u64,
    /// dp: `memory_mb` bounds this whole process's resident memory (less a fixed 64 MiB), as
    /// well as what the count tracks itself, which misses the C allocator's overhead. For a
    /// process that runs nothing else (the command-line tool); off, the count's own tally
    /// is the bound, as a library inside a larger process needs.
    pub whole_process: bool,
}

impl Default for CountOptions {
    fn default() -> Self {
        CountOptions {
            method: Method::Dp,
            memory_mb: 4096,
            checkpoint: None,
            resume: false,
            symmetry: true,
            stop_after: None,
            store: Store::Auto,
            tmp_dir: std::env::temp_dir(),
            disk_bytes: None,
            frontier: FRONTIER_TARGET,
            dataflow: None,
            checkpoint_secs: 60,
            whole_process: false,
        }
    }
}

/// Frontier size aimed for by default, fixed (not per thread) so that a checkpoint taken with
/// one thread count resumes with another. At ~10^4 subtrees, the last ones are small enough that
/// both cores stay busy to the end.
pub const FRONTIER_TARGET: usize = 4096;

/// The directory the disk store of dp uses for a count of `pos` with `opts`: a directory of its
/// own inside `opts.tmp_dir`, named by the board and a hash of the position, so that a stopped
/// run is found again by `--resume`.
#[must_use]
pub fn disk_run_dir(pos: &Position, opts: &CountOptions) -> PathBuf {
    let text = format!("{} {}", pos.to_board_string(), opts.symmetry);
    let h = crate::fnv::fnv1a(crate::fnv::OFFSET, text.as_bytes());
    opts.tmp_dir
        .join(format!("reversi-count-{}-{h:016x}", pos.shape().name()))
}
