//! dfs's checkpoint: which frontier subtrees are finished, and the weighted sum of their score
//! tallies per first-move class.
//!
//! A finished subtree is added into the sums at once (its tally times the paths into it from
//! each class), so the file stays small however large the frontier is: the finished subtrees as
//! index ranges and the non-zero cells of each class's sum. The file is written atomically every
//! [`SAVE_EVERY`] of work and when the run stops, so `kill -9` loses at most that much. It names
//! the position, the frontier (a hash of its positions and weights) and the build that wrote it,
//! and is sealed with a checksum of its content (see [`crate::sealed`]); a checkpoint of another
//! run, a damaged or a truncated one is refused rather than silently mixed in.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::frontier::Task;
use crate::board::Position;
use crate::count::{add_scaled, CountError};
use crate::fnv;
use crate::sealed;

/// How often a run with a checkpoint saves it.
pub(crate) const SAVE_EVERY: Duration = Duration::from_secs(10);

/// Version of the file; files of other versions are refused. (3: sealed, with the build.)
const FORMAT: u32 = 3;

/// FNV-1a over the frontier's positions and weights: two runs share a checkpoint only if they
/// split the work identically.
fn frontier_hash(tasks: &[Task]) -> String {
    let mut h = fnv::OFFSET;
    let mut eat = |x: u128| h = fnv::fnv1a(h, &x.to_le_bytes());
    for t in tasks {
        eat(u128::from(t.pos.player()) | (u128::from(t.pos.opponent()) << 64));
        eat(u128::from(t.pos.black_to_move()));
        t.weights.iter().for_each(|&w| eat(w));
    }
    format!("{h:016x}")
}

/// The file.
#[derive(Debug, Serialize, Deserialize)]
struct DfsFile {
    format: u32,
    /// The program that wrote it ([`sealed::build`]).
    build: String,
    method: String,
    position: String,
    subtrees: usize,
    frontier_hash: String,
    /// Finished subtrees as half-open index ranges.
    done: Vec<(usize, usize)>,
    /// Per class, the non-zero cells `(b * stride + w, games)` of the sum so far, the games as
    /// decimal strings (they may pass 2^64).
    sums: Vec<Vec<(u32, String)>>,
}

/// The finished subtrees of a dfs run and what they add up to.
pub(crate) struct DfsCheckpoint {
    path: Option<PathBuf>,
    position: String,
    hash: String,
    done: Vec<bool>,
    done_count: usize,
    sums: Vec<Vec<u128>>,
    last_save: Instant,
    save_error: Option<String>,
}

impl DfsCheckpoint {
    /// No file: results are only kept in memory.
    pub fn none(root: &Position, tasks: &[Task], classes: usize) -> DfsCheckpoint {
        let stride = root.shape().squares() as usize + 1;
        DfsCheckpoint {
            path: None,
            position: root.to_board_string(),
            hash: frontier_hash(tasks),
            done: vec![false; tasks.len()],
            done_count: 0,
            sums: vec![vec![0; stride * stride]; classes],
            last_save: Instant::now(),
            save_error: None,
        }
    }

    /// A checkpoint at `path`, loaded from it if `resume` and the file exists.
    pub fn open(
        path: &Path,
        root: &Position,
        tasks: &[Task],
        classes: usize,
        resume: bool,
    ) -> Result<DfsCheckpoint, CountError> {
        let mut cp = DfsCheckpoint::none(root, tasks, classes);
        cp.path = Some(path.to_path_buf());
        if !(resume && path.exists()) {
            return Ok(cp);
        }
        let file: DfsFile = sealed::read_json(path).map_err(|e| {
            if e.is_damage() {
                CountError::refused(path, e)
            } else {
                CountError::checkpoint(path, e)
            }
        })?;
        if file.format != FORMAT {
            return Err(CountError::refused(
                path,
                "not a dfs checkpoint of this version",
            ));
        }
        if file.build != sealed::build() {
            return Err(CountError::refused(
                path,
                format!("written by {}, not by this {}", file.build, sealed::build()),
            ));
        }
        if file.method != "dfs"
            || file.position != cp.position
            || file.subtrees != tasks.len()
            || file.frontier_hash != cp.hash
            || file.sums.len() != classes
        {
            return Err(CountError::refused(
                path,
                "belongs to another count (position, method or frontier differ)",
            ));
        }
        for (lo, hi) in file.done {
            if lo > hi || hi > tasks.len() {
                return Err(CountError::refused(
                    path,
                    format!("subtrees {lo}..{hi} out of range"),
                ));
            }
            for d in &mut cp.done[lo..hi] {
                cp.done_count += usize::from(!*d);
                *d = true;
            }
        }
        for (sum, cells) in cp.sums.iter_mut().zip(file.sums) {
            for (cell, games) in cells {
                let slot = sum.get_mut(cell as usize).ok_or_else(|| {
                    CountError::refused(path, format!("score cell {cell} out of range"))
                })?;
                *slot = games
                    .parse()
                    .map_err(|_| CountError::refused(path, format!("bad game count {games:?}")))?;
            }
        }
        Ok(cp)
    }

    /// Subtrees finished.
    pub fn done_count(&self) -> usize {
        self.done_count
    }

    /// Whether subtree `i` is finished.
    pub fn is_done(&self, i: usize) -> bool {
        self.done[i]
    }

    /// The sums of the finished subtrees per class.
    pub fn sums(&self) -> &[Vec<u128>] {
        &self.sums
    }

    /// Adds finished subtree `i`'s tally, times the paths into it from each class, and saves the
    /// file if the last save is [`SAVE_EVERY`] old.
    pub fn record(&mut self, i: usize, tally: &[u64], weights: &[u128]) {
        if self.done[i] {
            return;
        }
        for (sum, &w) in self.sums.iter_mut().zip(weights) {
            if w > 0 {
                add_scaled(sum, tally, w);
            }
        }
        self.done[i] = true;
        self.done_count += 1;
        if self.path.is_some() && self.last_save.elapsed() >= SAVE_EVERY {
            if let Err(e) = self.save() {
                self.save_error = Some(e.to_string());
            }
            self.last_save = Instant::now();
        }
    }

    /// The last failed periodic save, if any.
    pub fn save_error(&self) -> Option<&str> {
        self.save_error.as_deref()
    }

    /// Writes the file; returns where, in words.
    pub fn save(&self) -> Result<String, CountError> {
        let Some(path) = &self.path else {
            return Ok("no checkpoint kept (none was asked for)".into());
        };
        let mut done = Vec::new();
        let mut i = 0;
        while i < self.done.len() {
            if self.done[i] {
                let lo = i;
                while i < self.done.len() && self.done[i] {
                    i += 1;
                }
                done.push((lo, i));
            } else {
                i += 1;
            }
        }
        let file = DfsFile {
            format: FORMAT,
            build: sealed::build(),
            method: "dfs".into(),
            position: self.position.clone(),
            subtrees: self.done.len(),
            frontier_hash: self.hash.clone(),
            done,
            sums: self
                .sums
                .iter()
                .map(|s| {
                    s.iter()
                        .enumerate()
                        .filter(|(_, &n)| n > 0)
                        .map(|(c, &n)| (c as u32, n.to_string()))
                        .collect()
                })
                .collect(),
        };
        sealed::write_json(path, &file).map_err(|e| CountError::checkpoint(path, e))?;
        Ok(format!(
            "checkpoint saved to {}; run the same command with --resume to continue",
            path.display()
        ))
    }

    /// Deletes the file after a finished run.
    pub fn remove(&self) {
        if let Some(p) = &self.path {
            let _ = fs::remove_file(p);
        }
    }
}
