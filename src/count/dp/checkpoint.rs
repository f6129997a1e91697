//! The memory store's checkpoint, written atomically (a temporary file, then a rename), so a run
//! stopped at any moment resumes from the last complete one to the identical result: a binary
//! file holding the next layer to expand, the score tallies so far and the layer sizes met: a
//! magic line, a JSON header line sealed with its own checksum (see [`crate::sealed`]), the raw
//! entries, and an 8-byte trailer, the checksum of everything before it. It names the position,
//! method and options it belongs to and the build that wrote it; a checkpoint of another run, a
//! damaged or a truncated one is refused rather than silently mixed in. The trailer is checked
//! during the first of the two passes of loading, before anything is kept. (The disk store
//! keeps its own manifest, see `disk.rs`.)

use std::fs::{self, File};
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{partitions_for, table_index, Filling, Key, Layer, Slot};
use crate::board::Position;
use crate::count::{CountError, LayerRow};
use crate::memory::MemoryError;
use crate::progress::Progress;
use crate::sealed::{self, HashReader, SealError};

fn sealing(path: &Path, e: SealError) -> CountError {
    if e.is_damage() {
        CountError::refused(path, e)
    } else {
        CountError::checkpoint(path, e)
    }
}

/// The header line of a dp checkpoint.
#[derive(Debug, Serialize, Deserialize)]
struct DpHeader {
    /// The program that wrote it ([`sealed::build`]).
    build: String,
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
    pub layer: Layer<S>,
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

const DP_MAGIC: &[u8] = b"reversi-nxn dp checkpoint 2\n";

/// The magic of the first version, which had no checksums.
const DP_MAGIC_1: &[u8] = b"reversi-nxn dp checkpoint 1\n";

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
        layer: &Layer<S>,
        matrices: &[Vec<u128>],
        rows: &[LayerRow],
    ) -> Result<String, CountError> {
        let Some(path) = &self.path else {
            return Ok("no checkpoint kept (none was asked for)".into());
        };
        let lens = [layer.half_len(0), layer.half_len(1)];
        let header = DpHeader {
            build: sealed::build(),
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
        let head = sealed::to_line(&header).map_err(|e| CountError::checkpoint(path, e))?;
        // Streamed in blocks, so that saving a layer does not hold a second copy of it; hashed
        // as it goes, for the trailer.
        sealed::write_with(path, |w| {
            w.write_all(DP_MAGIC)?;
            w.write_all(head.as_bytes())?;
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
        .map_err(|e| CountError::checkpoint(path, e))?;
        Ok(format!(
            "checkpoint saved to {}; run the same command with --resume to continue",
            path.display()
        ))
    }

    /// Reads the state back, if the file exists, for a board of `squares` squares. The
    /// entries are streamed twice, to size each table and then to fill it, so loading holds
    /// nothing but the layer's tables, which must fit `budget` bytes; a stop asked for by
    /// `progress` ends it within a second.
    pub fn load<S: Slot<N>, const N: usize>(
        &self,
        squares: u32,
        budget: u64,
        progress: &dyn Progress,
    ) -> Result<Option<DpState<S, N>>, CountError> {
        let Some(path) = &self.path else {
            return Ok(None);
        };
        if !path.exists() {
            return Ok(None);
        }
        let file = File::open(path).map_err(|e| CountError::checkpoint(path, e))?;
        let mut r = HashReader::new(BufReader::with_capacity(1 << 20, file));
        let mut magic = [0u8; DP_MAGIC.len()];
        r.read_exact(&mut magic)
            .map_err(|_| CountError::refused(path, "not a dp checkpoint (too short)"))?;
        if magic != DP_MAGIC {
            return Err(CountError::refused(
                path,
                if magic == DP_MAGIC_1 {
                    "written by an older version, without a checksum"
                } else {
                    "not a dp checkpoint of this version"
                },
            ));
        }
        let mut line = Vec::new();
        r.read_line(&mut line)
            .map_err(|e| CountError::checkpoint(path, e))?;
        let text = std::str::from_utf8(&line)
            .map_err(|_| CountError::refused(path, SealError::Damaged))?;
        let header: DpHeader = sealed::from_line(text).map_err(|e| sealing(path, e))?;
        if header.build != sealed::build() {
            return Err(CountError::refused(
                path,
                format!(
                    "written by {}, not by this {}",
                    header.build,
                    sealed::build()
                ),
            ));
        }
        if header.method != "dp"
            || header.position != self.position
            || header.symmetry != self.symmetry
            || header.classes != self.classes
            || header.width != self.width
            || header.key_bytes != <S::K as Key>::BYTES
        {
            return Err(CountError::refused(
                path,
                "belongs to another count (position, method or options differ)",
            ));
        }
        let start = (DP_MAGIC.len() + line.len()) as u64;
        let size = <S::K as Key>::BYTES + 8 * N;
        let total = header.lens[0].saturating_add(header.lens[1]);
        let expected = (total as u64)
            .saturating_mul(size as u64)
            .saturating_add(start + sealed::TRAILER as u64);
        let file_len = fs::metadata(path)
            .map_err(|e| CountError::checkpoint(path, e))?
            .len();
        if file_len < expected {
            return Err(CountError::refused(path, SealError::Truncated));
        }
        if file_len > expected {
            return Err(CountError::refused(
                path,
                "damaged (longer than its header says)",
            ));
        }
        let per_half = partitions_for(total, std::mem::size_of::<S>());
        // Stopped while loading: the checkpoint is untouched.
        let done = header.rows.len() as u64;
        let saved = format!(
            "stopped while loading the checkpoint {}, which stays: run the same command with \
             --resume to continue",
            path.display()
        );
        let interrupted = || CountError::Interrupted {
            done,
            total: done + u64::from(squares.saturating_sub(header.discs)) + 1,
            unit: "layers",
            saved: saved.clone(),
        };
        let mut sizes = vec![0usize; 2 * per_half];
        let fits = each_entry::<S, N>(&mut r, path, header.lens, progress, |h, e| {
            sizes[table_index(h, e.key().hash(), per_half)] += 1;
        })?
        .ok_or_else(interrupted)?;
        // Every byte has been through the hash: check it before anything is kept.
        let mut r = r.finish().map_err(|e| sealing(path, e))?;
        if !fits {
            // A count too wide for these slots: the caller retries with wider ones.
            return Err(CountError::Overflow("a path count of the checkpoint"));
        }
        let need = Filling::<S>::bytes_for(&sizes) as u64;
        if need > budget {
            return Err(CountError::Memory(MemoryError::OverBudget {
                what: format!("the checkpoint's layer of {total} positions"),
                needed_mb: need.div_ceil(1 << 20),
                budget_mb: budget >> 20,
            }));
        }
        r.seek(SeekFrom::Start(start))
            .map_err(|e| CountError::checkpoint(path, e))?;
        let mut filling = Filling::<S>::new(header.discs, per_half, &sizes);
        each_entry::<S, N>(&mut r, path, header.lens, progress, |h, e| {
            filling.insert(h, e);
        })?
        .ok_or_else(interrupted)?;
        let layer = filling
            .finish()
            .ok_or(CountError::Overflow("a path count of the checkpoint"))?;
        let matrices = header
            .matrices
            .iter()
            .map(|m| m.iter().map(|s| s.parse::<u128>()).collect())
            .collect::<Result<Vec<Vec<u128>>, _>>()
            .map_err(|e| {
                CountError::refused(path, format!("a tally that is not a number ({e})"))
            })?;
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

/// Entries read at a time between two looks at the stop flag.
const ENTRIES_PER_READ: usize = 1 << 16;

/// Reads the `lens[0] + lens[1]` entries (black to move, then white) that follow the header
/// and calls `each` on every one that fits the slots `S`, with its colour to move; `None` if
/// `progress` asked to stop first, else whether all fit. An entry that does not fit is not an
/// error here, so that the first pass reads on to the checksum: a damaged count is reported as
/// damage, not as an overflow.
fn each_entry<S: Slot<N>, const N: usize>(
    r: &mut impl Read,
    path: &Path,
    lens: [usize; 2],
    progress: &dyn Progress,
    mut each: impl FnMut(usize, S),
) -> Result<Option<bool>, CountError> {
    let mut fits = true;
    let size = <S::K as Key>::BYTES + 8 * N;
    let mut buf = vec![0u8; ENTRIES_PER_READ * size];
    for (h, &len) in lens.iter().enumerate() {
        let mut left = len;
        while left > 0 {
            if progress.should_stop() {
                return Ok(None);
            }
            let n = left.min(ENTRIES_PER_READ);
            let bytes = &mut buf[..n * size];
            r.read_exact(bytes).map_err(|e| match e.kind() {
                std::io::ErrorKind::UnexpectedEof => {
                    CountError::refused(path, SealError::Truncated)
                }
                _ => CountError::checkpoint(path, e),
            })?;
            for entry in bytes.chunks_exact(size) {
                let key = S::K::read(entry);
                let mut counts = [0u64; N];
                for (i, c) in counts.iter_mut().enumerate() {
                    let at = <S::K as Key>::BYTES + 8 * i;
                    *c = u64::from_le_bytes(entry[at..at + 8].try_into().expect("8 bytes"));
                }
                match S::pack(key, counts) {
                    Some(slot) => each(h, slot),
                    None => fits = false,
                }
            }
            left -= n;
        }
    }
    Ok(Some(fits))
}
