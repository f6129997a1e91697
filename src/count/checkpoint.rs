//! Checkpoints of unfinished counts, written atomically (a temporary file, then a rename), so a
//! run stopped at any moment resumes from the last complete one to the identical result.
//!
//! - dfs: a JSON file listing the finished frontier subtrees and their score tallies.
//! - dp: a binary file holding the next layer to expand, the score tallies so far and the layer
//!   sizes met (a JSON header line, then the raw entries).
//!
//! Each names the position, method and options it belongs to; a checkpoint of another run is
//! refused rather than silently mixed in.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::dfs::Task;
use super::dp::{partitions_for, Key, Layer, Slot};
use super::{CountError, LayerRow};
use crate::board::Position;

fn err(path: &Path, msg: impl std::fmt::Display) -> CountError {
    CountError::Checkpoint {
        path: path.to_path_buf(),
        msg: msg.to_string(),
    }
}

/// FNV-1a over the frontier's positions and weights: two runs share a checkpoint only if they
/// split the work identically.
fn frontier_hash(tasks: &[Task]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |x: u128| {
        for b in x.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for t in tasks {
        eat(u128::from(t.pos.player()) | (u128::from(t.pos.opponent()) << 64));
        eat(u128::from(t.pos.black_to_move()));
        t.weights.iter().for_each(|&w| eat(w));
    }
    format!("{h:016x}")
}

/// The dfs checkpoint file.
#[derive(Debug, Serialize, Deserialize)]
struct DfsFile {
    method: String,
    position: String,
    subtrees: usize,
    frontier_hash: String,
    /// Finished subtrees: index and the non-zero cells `(b * stride + w, games)` of its tally.
    done: Vec<(usize, Vec<(u32, u64)>)>,
}

/// The finished subtrees of a dfs run, saved now and then.
pub(crate) struct DfsCheckpoint {
    path: Option<PathBuf>,
    position: String,
    hash: String,
    stride: usize,
    done: Vec<Option<Vec<(u32, u64)>>>,
    last_save: Instant,
    save_error: Option<String>,
}

impl DfsCheckpoint {
    /// No file: results are only kept in memory.
    pub fn none(root: &Position, tasks: &[Task]) -> DfsCheckpoint {
        DfsCheckpoint {
            path: None,
            position: root.to_board_string(),
            hash: frontier_hash(tasks),
            stride: root.shape().squares() as usize + 1,
            done: vec![None; tasks.len()],
            last_save: Instant::now(),
            save_error: None,
        }
    }

    /// A checkpoint at `path`, loaded from it if `resume` and the file exists.
    pub fn open(
        path: &Path,
        root: &Position,
        tasks: &[Task],
        resume: bool,
    ) -> Result<DfsCheckpoint, CountError> {
        let mut cp = DfsCheckpoint::none(root, tasks);
        cp.path = Some(path.to_path_buf());
        if resume && path.exists() {
            let text = fs::read_to_string(path).map_err(|e| err(path, e))?;
            let file: DfsFile = serde_json::from_str(&text).map_err(|e| err(path, e))?;
            if file.method != "dfs"
                || file.position != cp.position
                || file.subtrees != tasks.len()
                || file.frontier_hash != cp.hash
            {
                return Err(err(
                    path,
                    "belongs to another count (position, method or frontier differ); delete it or drop --resume",
                ));
            }
            for (i, cells) in file.done {
                if i >= tasks.len() {
                    return Err(err(path, format!("subtree {i} out of range")));
                }
                cp.done[i] = Some(cells);
            }
        }
        Ok(cp)
    }

    /// Subtrees finished.
    pub fn done_count(&self) -> usize {
        self.done.iter().filter(|d| d.is_some()).count()
    }

    /// Whether subtree `i` is finished.
    pub fn is_done(&self, i: usize) -> bool {
        self.done[i].is_some()
    }

    /// The dense tally of finished subtree `i`.
    pub fn tally(&self, i: usize) -> Option<Vec<u64>> {
        let cells = self.done[i].as_ref()?;
        let mut t = vec![0u64; self.stride * self.stride];
        for &(c, n) in cells {
            t[c as usize] = n;
        }
        Some(t)
    }

    /// Records subtree `i`, saving the file if the last save is 10 s old.
    pub fn record(&mut self, i: usize, tally: &[u64]) {
        let cells = tally
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(c, &n)| (c as u32, n))
            .collect();
        self.done[i] = Some(cells);
        if self.path.is_some() && self.last_save.elapsed().as_secs() >= 10 {
            if let Err(e) = self.save() {
                self.save_error = Some(e.to_string());
            }
            self.last_save = Instant::now();
        }
    }

    /// Writes the file; returns where, in words.
    pub fn save(&self) -> Result<String, CountError> {
        let Some(path) = &self.path else {
            return Ok("no checkpoint kept (none was asked for)".into());
        };
        let file = DfsFile {
            method: "dfs".into(),
            position: self.position.clone(),
            subtrees: self.done.len(),
            frontier_hash: self.hash.clone(),
            done: self
                .done
                .iter()
                .enumerate()
                .filter_map(|(i, d)| d.as_ref().map(|c| (i, c.clone())))
                .collect(),
        };
        let text = serde_json::to_string(&file).map_err(|e| err(path, e))?;
        crate::export::tables::write_atomic_bytes(path, text.as_bytes())
            .map_err(|e| err(path, e))?;
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

/// The header line of a dp checkpoint.
#[derive(Debug, Serialize, Deserialize)]
struct DpHeader {
    method: String,
    position: String,
    symmetry: bool,
    classes: usize,
    width: usize,
    key_bytes: usize,
    discs: u32,
    lens: [usize; 2],
    /// Score tallies so far, per class, as decimal strings (u128).
    matrices: Vec<Vec<String>>,
    rows: Vec<(u32, u64)>,
}

/// A dp state read back from a checkpoint.
pub(crate) struct DpState<S: Copy, const N: usize> {
    pub layer: Layer<S, N>,
    pub matrices: Vec<Vec<u128>>,
    pub rows: Vec<LayerRow>,
}

/// The dp checkpoint: one layer, the tallies, the layer sizes so far.
pub(crate) struct DpCheckpoint {
    path: Option<PathBuf>,
    position: String,
    symmetry: bool,
    classes: usize,
    width: usize,
}

const DP_MAGIC: &[u8] = b"reversi-nxn dp checkpoint 1\n";

impl DpCheckpoint {
    /// A checkpoint at `path` (none: nothing is saved).
    pub fn new(
        path: Option<PathBuf>,
        root: &Position,
        symmetry: bool,
        classes: usize,
        width: usize,
    ) -> DpCheckpoint {
        DpCheckpoint {
            path,
            position: root.to_board_string(),
            symmetry,
            classes,
            width,
        }
    }

    /// Whether a file is kept.
    pub fn enabled(&self) -> bool {
        self.path.is_some()
    }

    /// Writes the state; returns where, in words.
    pub fn save<S: Slot<N>, const N: usize>(
        &self,
        layer: &Layer<S, N>,
        matrices: &[Vec<u128>],
        rows: &[LayerRow],
    ) -> Result<String, CountError> {
        let Some(path) = &self.path else {
            return Ok("no checkpoint kept (none was asked for)".into());
        };
        let lens = [layer.half_len(0), layer.half_len(1)];
        let header = DpHeader {
            method: "dp".into(),
            position: self.position.clone(),
            symmetry: self.symmetry,
            classes: self.classes,
            width: N,
            key_bytes: <S::K as Key>::BYTES,
            discs: layer.discs,
            lens,
            matrices: matrices
                .iter()
                .map(|m| m.iter().map(u128::to_string).collect())
                .collect(),
            rows: rows.iter().map(|r| (r.discs, r.positions)).collect(),
        };
        let head = serde_json::to_string(&header).map_err(|e| err(path, e))?;
        // Streamed in blocks, so that saving a layer does not hold a second copy of it.
        crate::export::tables::write_atomic_with(path, |w| {
            w.write_all(DP_MAGIC)?;
            w.write_all(head.as_bytes())?;
            w.write_all(b"\n")?;
            let mut buf = Vec::with_capacity(1 << 20);
            for h in 0..2 {
                for e in layer.half(h) {
                    e.key().write(&mut buf);
                    for c in e.counts() {
                        buf.extend_from_slice(&c.to_le_bytes());
                    }
                    if buf.len() >= 1 << 20 {
                        w.write_all(&buf)?;
                        buf.clear();
                    }
                }
            }
            w.write_all(&buf)
        })
        .map_err(|e| err(path, e))?;
        Ok(format!(
            "checkpoint saved to {}; run the same command with --resume to continue",
            path.display()
        ))
    }

    /// Reads the state back, if the file exists.
    pub fn load<S: Slot<N>, const N: usize>(&self) -> Result<Option<DpState<S, N>>, CountError> {
        let Some(path) = &self.path else {
            return Ok(None);
        };
        if !path.exists() {
            return Ok(None);
        }
        let bytes = fs::read(path).map_err(|e| err(path, e))?;
        let rest = bytes
            .strip_prefix(DP_MAGIC)
            .ok_or_else(|| err(path, "not a dp checkpoint"))?;
        let nl = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| err(path, "truncated header"))?;
        let header: DpHeader = serde_json::from_slice(&rest[..nl]).map_err(|e| err(path, e))?;
        if header.method != "dp"
            || header.position != self.position
            || header.symmetry != self.symmetry
            || header.classes != self.classes
            || header.width != self.width
            || header.key_bytes != <S::K as Key>::BYTES
        {
            return Err(err(
                path,
                "belongs to another count (position, method or options differ); delete it or drop --resume",
            ));
        }
        let mut data = &rest[nl + 1..];
        let size = <S::K as Key>::BYTES + 8 * N;
        if data.len() != (header.lens[0] + header.lens[1]) * size {
            return Err(err(path, "truncated entries"));
        }
        let total = header.lens[0] + header.lens[1];
        let mut entries = Vec::with_capacity(total);
        for (h, &len) in header.lens.iter().enumerate() {
            for _ in 0..len {
                let key = S::K::read(data);
                let mut counts = [0u64; N];
                for (i, c) in counts.iter_mut().enumerate() {
                    let at = <S::K as Key>::BYTES + 8 * i;
                    *c = u64::from_le_bytes(data[at..at + 8].try_into().expect("8 bytes"));
                }
                // A count too wide for these slots: the caller retries with wider ones.
                let slot = S::pack(key, counts)
                    .ok_or(CountError::Overflow("a path count of the checkpoint"))?;
                entries.push((h, slot));
                data = &data[size..];
            }
        }
        drop(bytes);
        let per_half = partitions_for(total, std::mem::size_of::<S>());
        let layer = Layer::from_entries(header.discs, per_half, entries)
            .ok_or(CountError::Overflow("a path count of the checkpoint"))?;
        let matrices = header
            .matrices
            .iter()
            .map(|m| m.iter().map(|s| s.parse::<u128>()).collect())
            .collect::<Result<Vec<Vec<u128>>, _>>()
            .map_err(|e| err(path, e))?;
        Ok(Some(DpState {
            layer,
            matrices,
            rows: header
                .rows
                .iter()
                .map(|&(discs, positions)| LayerRow { discs, positions })
                .collect(),
        }))
    }

    /// Deletes the file after a finished run.
    pub fn remove(&self) {
        if let Some(p) = &self.path {
            let _ = fs::remove_file(p);
        }
    }
}
