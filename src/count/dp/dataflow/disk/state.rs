//! A worker's state on the disk store (`state.json`), saved after every part with the state
//! before it as a sealed JSON line (see [`crate::sealed`]: it holds the worker's tallies, which
//! must not be trusted unchecked), and the directories of a run.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::super::job::Fail;
use crate::count::dp::disk::SegmentRec;

const STATE: &str = "state.json";

/// The directory of this run's worker directories under `tmp`.
pub(crate) fn run_dir(tmp: &Path, shape: &str, run_id: u64) -> PathBuf {
    tmp.join(format!("reversi-dataflow-{shape}-{run_id:016x}"))
}

pub(crate) fn worker_dir(base: &Path, me: usize, peers: usize) -> PathBuf {
    base.join(format!("w{me:04}-of-{peers:04}"))
}

/// A worker's state after some parts.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct State {
    pub(super) run_id: u64,
    /// Parts taken since the start of the run.
    pub(super) step: u64,
    /// Discs of the current layer.
    pub(super) discs: u32,
    /// Positions of the current layer, over every worker.
    pub(super) layer_total: u64,
    /// This worker's segments of the current layer.
    pub(super) layer: Vec<SegmentRec>,
    /// This worker's finished parts of the next layer, in signature order.
    pub(super) next: Vec<SegmentRec>,
    /// Positions of the finished parts of the next layer, over every worker.
    pub(super) next_total: u64,
    /// The split level of the next layer's parts, and the finest one a part has needed.
    pub(super) level: u32,
    pub(super) floor: u32,
    /// This worker's score tallies (decimal), including its finished parts.
    pub(super) tally: Vec<String>,
    /// Layers expanded: `(discs, positions)` over every worker.
    pub(super) rows: Vec<(u32, u64)>,
    /// Bytes sent per layer expanded: `(discs, within processes, between processes)`.
    pub(super) exchanged: Vec<(u32, u64, u64)>,
    /// The last layer's growth.
    pub(super) growth: f64,
    /// This worker's disk traffic.
    pub(super) written: u64,
    pub(super) read: u64,
    pub(super) peak_disk: u64,
    /// Seconds on the disk store, over every start of the run.
    pub(super) seconds: f64,
}

impl State {
    pub(super) fn disk_in_use(&self) -> u64 {
        self.layer.iter().chain(&self.next).map(|s| s.bytes).sum()
    }
    pub(super) fn covered(&self) -> f64 {
        self.next.iter().map(|s| s.range().fraction()).sum()
    }
    fn names(&self) -> impl Iterator<Item = &str> {
        self.layer.iter().chain(&self.next).map(|s| &s.file[..])
    }
}

/// What `state.json` holds: the newest state and the one before it.
#[derive(Serialize, Deserialize)]
pub(super) struct Saved {
    /// The program that wrote it ([`crate::sealed::build`]).
    build: String,
    /// The worker whose state it is: the name of its directory (`w0001-of-0004`), so that a
    /// state file copied into another worker's directory is refused.
    worker: String,
    pub(super) now: State,
    pub(super) before: Option<State>,
}

/// The saved state in `dir`, if it is whole, of this build, of the run `run_id` and of the
/// worker of `dir` ([`check_saved`] says what is wrong with one that is not).
pub(super) fn read_saved(dir: &Path, run_id: u64) -> Option<Saved> {
    let s: Saved = crate::sealed::read_json(&dir.join(STATE)).ok()?;
    (s.now.run_id == run_id && s.build == crate::sealed::build() && s.worker == worker_name(dir))
        .then_some(s)
}

/// The name of a worker's directory, which its state records.
fn worker_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The first state file of `workers` that exists but cannot be used (damaged, truncated, of
/// another build or run), and why: a resume must stop on it rather than take it for absent.
pub(crate) fn check_saved(
    base: &Path,
    run_id: u64,
    workers: std::ops::Range<usize>,
    peers: usize,
) -> Option<(PathBuf, String)> {
    workers.into_iter().find_map(|me| {
        let path = worker_dir(base, me, peers).join(STATE);
        if !path.exists() {
            return None;
        }
        let why = match crate::sealed::read_json::<Saved>(&path) {
            Err(e) => e.to_string(),
            Ok(s) if s.build != crate::sealed::build() => {
                format!(
                    "written by {}, not by this {}",
                    s.build,
                    crate::sealed::build()
                )
            }
            Ok(s) if s.now.run_id != run_id => "belongs to another run".into(),
            Ok(s) if s.worker != worker_name(&worker_dir(base, me, peers)) => {
                format!("is the state of worker {}, not of this one", s.worker)
            }
            Ok(_) => return None,
        };
        Some((path, why))
    })
}

/// The handshake's word for this worker: the step of its newest saved state plus one (0: none).
pub(crate) fn saved_step(base: &Path, run_id: u64, me: usize, peers: usize) -> u64 {
    read_saved(&worker_dir(base, me, peers), run_id).map_or(0, |s| s.now.step + 1)
}

/// Whether some worker of this process has a saved state of the run.
pub(crate) fn has_saved(
    base: &Path,
    run_id: u64,
    workers: std::ops::Range<usize>,
    peers: usize,
) -> bool {
    workers
        .into_iter()
        .any(|me| saved_step(base, run_id, me, peers) > 0)
}

/// An error about `path`, for the worker's record.
pub(super) fn at(path: &Path, e: impl std::fmt::Display) -> Fail {
    Fail::Other(format!("{}: {e}", path.display()))
}

pub(super) fn parse(cells: &[String]) -> Result<Vec<u128>, std::num::ParseIntError> {
    cells.iter().map(|c| c.parse()).collect()
}

/// Saves `state` (with the state before it) and deletes the files neither names.
pub(super) fn save(dir: &Path, state: &State, before: Option<&State>) -> Result<(), Fail> {
    let saved = Saved {
        build: crate::sealed::build(),
        worker: worker_name(dir),
        now: state.clone(),
        before: before.cloned(),
    };
    crate::sealed::write_json(&dir.join(STATE), &saved).map_err(|e| at(dir, e))?;
    let keep: Vec<&str> = state
        .names()
        .chain(before.into_iter().flat_map(State::names))
        .collect();
    for entry in fs::read_dir(dir).map_err(|e| at(dir, e))? {
        let entry = entry.map_err(|e| at(dir, e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name != STATE && !keep.contains(&&name[..]) {
            let _ = fs::remove_file(entry.path());
        }
    }
    Ok(())
}
