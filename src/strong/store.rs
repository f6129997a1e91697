//! The on-disk format of a strong table (`strong.bin`).
//!
//! All integers little-endian:
//!
//! ```text
//! offset  size        field
//! 0       8           magic "RVSTRONG"
//! 8       4   u32     format version (1)
//! 12      1   u8      rows
//! 13      1   u8      cols
//! 14      2   u16     reserved, 0
//! 16      4   u32     number of layers L
//! 20      12*L        per layer: u32 disc count, u64 number of entries n
//! ...                 per layer, in the same order:
//!             8*n       keys, u64, strictly increasing
//!             n   i8    values (side to move minus the other side)
//!             n   u8    moves-to-end
//! end-8   8   u64     FNV-1a 64 of every byte before it
//! ```
//!
//! A key is [`key_of`](super::key_of) of the canonical discs (the smallest image under the
//! board's symmetries, as [`Position::canonical`](crate::board::Position::canonical)): the
//! *code* packs the discs of the side to move in its low `R*C` bits and those of the other side
//! in the next `R*C` bits, each row after row, `C` bits per row; the key is the code times
//! `0x9e3779b97f4a7c15` modulo 2^64 (a bijection whose top bits are evenly spread, so a reader
//! can index a layer by them; multiply by the inverse to get the code back). The side to move
//! is not in the key: the value from the side to move's point of view does not depend on the
//! colour. 10 bytes per position; no compression.

use std::io::{BufWriter, Read, Write};
use std::path::Path;

use thiserror::Error;

use super::{Layer, StrongTable};
use crate::board::Shape;
use crate::fnv::{fnv1a, OFFSET as FNV_OFFSET};

/// The file's first eight bytes.
pub const MAGIC: &[u8; 8] = b"RVSTRONG";
/// The format version this code reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// What can go wrong reading or writing a table file.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The file system refused. (The cause is in the message, not a `source`: a chain of
    /// errors printed whole would name it twice.)
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        error: std::io::Error,
    },
    /// The file is not a strong table this code can read.
    #[error("{path}: not a strong table of format version {FORMAT_VERSION}: {why}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
}

// Reading and writing live here, the type and its queries in `mod.rs`, so that `mod.rs` does
// not import this file: the imports go one way, from here to `mod.rs`.
impl StrongTable {
    /// Writes the table in the binary format documented in `src/strong/store.rs`: [`MAGIC`],
    /// [`FORMAT_VERSION`], shape, a layer directory, then per layer the sorted keys, values and
    /// moves-to-end, and an FNV-1a checksum.
    ///
    /// # Errors
    ///
    /// [`StoreError::Io`] if the file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), StoreError> {
        let io = |error| StoreError::Io {
            path: path.display().to_string(),
            error,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = std::fs::File::create(path).map_err(io)?;
        let mut inner = BufWriter::with_capacity(1 << 20, file);
        let mut w = crate::sealed::HashWriter::new(&mut inner);
        let layers: Vec<&Layer> = self.layers().collect();
        let shape = self.shape();
        let mut head = Vec::new();
        head.extend_from_slice(MAGIC);
        head.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        head.push(shape.rows() as u8);
        head.push(shape.cols() as u8);
        head.extend_from_slice(&0u16.to_le_bytes());
        head.extend_from_slice(&(layers.len() as u32).to_le_bytes());
        for l in &layers {
            head.extend_from_slice(&l.discs.to_le_bytes());
            head.extend_from_slice(&(l.keys.len() as u64).to_le_bytes());
        }
        w.write_all(&head).map_err(io)?;
        let mut buf: Vec<u8> = Vec::with_capacity(1 << 20);
        for l in &layers {
            for chunk in l.keys.chunks(1 << 16) {
                buf.clear();
                for k in chunk {
                    buf.extend_from_slice(&k.to_le_bytes());
                }
                w.write_all(&buf).map_err(io)?;
            }
            let values: Vec<u8> = l.values.iter().map(|&v| v as u8).collect();
            w.write_all(&values).map_err(io)?;
            w.write_all(&l.moves_to_end).map_err(io)?;
        }
        let hash = w.sum();
        inner.write_all(&hash.to_le_bytes()).map_err(io)?;
        inner.flush().map_err(io)?;
        Ok(())
    }

    /// Loads a table written by [`StrongTable::save`].
    ///
    /// # Errors
    ///
    /// [`StoreError`] if the file cannot be read or is not a strong table of this version.
    pub fn load(path: &Path) -> Result<StrongTable, StoreError> {
        let name = path.display().to_string();
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(|error| StoreError::Io {
                path: name.clone(),
                error,
            })?;
        let bad = |why: String| StoreError::Format {
            path: name.clone(),
            why,
        };
        if bytes.len() < 28 || &bytes[..8] != MAGIC {
            return Err(bad("bad magic or too short".into()));
        }
        let (body, tail) = bytes.split_at(bytes.len() - 8);
        let stored_hash = u64::from_le_bytes(tail.try_into().expect("8 bytes"));
        if fnv1a(FNV_OFFSET, body) != stored_hash {
            return Err(bad("checksum mismatch (truncated or damaged file)".into()));
        }
        let u32_at = |i: usize| u32::from_le_bytes(body[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_le_bytes(body[i..i + 8].try_into().expect("8 bytes"));
        let version = u32_at(8);
        if version != FORMAT_VERSION {
            return Err(bad(format!("version {version}")));
        }
        let shape = Shape::new(u32::from(body[12]), u32::from(body[13]))
            .map_err(|e| bad(format!("bad shape: {e}")))?;
        let nl = u32_at(16) as usize;
        let mut at = 20usize;
        if body.len() < at + 12 * nl {
            return Err(bad("layer directory runs past the end".into()));
        }
        let mut dir = Vec::with_capacity(nl);
        for _ in 0..nl {
            dir.push((u32_at(at), u64_at(at + 4) as usize));
            at += 12;
        }
        let mut layers = Vec::with_capacity(nl);
        for (discs, n) in dir {
            if discs > shape.squares() || body.len() < at + 10 * n {
                return Err(bad(format!("layer of {discs} discs does not fit the file")));
            }
            let keys: Vec<u64> = body[at..at + 8 * n]
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect();
            at += 8 * n;
            if keys.windows(2).any(|w| w[0] >= w[1]) {
                return Err(bad(format!("keys of layer {discs} are not sorted")));
            }
            let values = body[at..at + n].iter().map(|&b| b as i8).collect();
            at += n;
            let moves_to_end = body[at..at + n].to_vec();
            at += n;
            layers.push(Layer::new(discs, keys, values, moves_to_end));
        }
        if at != body.len() {
            return Err(bad("trailing bytes after the last layer".into()));
        }
        Ok(StrongTable::from_layers(shape, layers))
    }
}
