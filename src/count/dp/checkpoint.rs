//! The memory store's checkpoint, written atomically (a temporary file, then a rename), so a run
//! stopped at any moment resumes from the last complete one to the identical result: a binary
//! file holding the next layer to expand, the score tallies so far and the layer sizes met (a
//! JSON header line, then the raw entries). It names the position, method and options it
//! belongs to; a checkpoint of another run is refused rather than silently mixed in. (The disk
//! store keeps its own manifest, see `disk.rs`.)

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{partitions_for, Key, Layer, Slot};
use crate::board::Position;
use crate::count::{CountError, LayerRow};

fn err(path: &Path, msg: impl std::fmt::Display) -> CountError {
    CountError::Checkpoint {
        path: path.to_path_buf(),
        msg: msg.to_string(),
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
        crate::atomic::write_atomic_with(path, |w| {
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
