//! Layers on disk: the file format of one *segment*, a part of a layer written in one go.
//!
//! ```text
//! segment  = header block*
//! header   = "RNXSEG1\n" counts:u32 key_bytes:u32 discs:u32          (little-endian)
//! block    = black_to_move:u8 entries:u32 payload_len:u32 checksum:u64 payload
//! payload  = entry*                    (the entries of one partition, sorted by key)
//! entry    = varint(key - previous key) varint(count)*counts
//! ```
//!
//! Varints are LEB128 (seven bits a byte, low first); the previous key of a block's first
//! entry is 0. Sorting a partition's keys makes their gaps small: on 4x6 an entry of two
//! classes takes about 10 bytes instead of the 24 it takes in memory (BENCHMARKS.md). Blocks
//! are independent, so they are encoded and decoded in parallel, and each carries a checksum
//! of its payload: a damaged file is refused, never counted. A segment is written to a
//! temporary name, flushed to the disk and then renamed, so a segment that exists is complete.

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, ErrorKind, Read, Write};
use std::path::Path;

use rayon::prelude::*;

use super::{Key, Layer, Slot};
use crate::memory::HugeBuf;

const MAGIC: &[u8; 8] = b"RNXSEG1\n";
const HEADER_BYTES: u64 = 20;
const BLOCK_HEADER_BYTES: u64 = 17;

/// What a written segment holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SegmentInfo {
    /// Positions.
    pub entries: u64,
    /// Bytes of the file.
    pub bytes: u64,
    /// Positions with black to move.
    pub black: u64,
}

/// Appends `x` as a LEB128 varint.
#[inline]
fn put_varint(out: &mut Vec<u8>, mut x: u128) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// Reads a LEB128 varint at `*at`; `None` past the end or beyond 128 bits.
#[inline]
fn get_varint(b: &[u8], at: &mut usize) -> Option<u128> {
    let mut x = 0u128;
    let mut shift = 0;
    loop {
        let byte = *b.get(*at)?;
        *at += 1;
        if shift >= 128 {
            return None;
        }
        x |= u128::from(byte & 0x7F) << shift;
        if byte < 0x80 {
            return Some(x);
        }
        shift += 7;
    }
}

/// A fast checksum of a payload (multiply-rotate over 8-byte words): it catches a torn or
/// damaged block, not an adversary.
fn checksum(b: &[u8]) -> u64 {
    let mut h = 0x9E37_79B9_7F4A_7C15u64 ^ b.len() as u64;
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        h = (h ^ w).wrapping_mul(0xFF51_AFD7_ED55_8CCD).rotate_left(29);
    }
    for &x in words.remainder() {
        h = (h ^ u64::from(x)).wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    }
    h
}

/// Encodes one sorted partition as a block: the header, then the payload, in one buffer.
fn encode<S: Slot<N>, const N: usize>(black_to_move: bool, part: &[S]) -> Vec<u8> {
    let head = BLOCK_HEADER_BYTES as usize;
    let mut out = Vec::with_capacity(head + part.len() * (6 + 3 * N));
    out.resize(head, 0);
    let mut prev = 0u128;
    for e in part {
        let key = e.key().bits();
        put_varint(&mut out, key - prev);
        prev = key;
        for c in e.counts() {
            put_varint(&mut out, u128::from(c));
        }
    }
    let payload_len = out.len() - head;
    let sum = checksum(&out[head..]);
    out[0] = u8::from(black_to_move);
    out[1..5].copy_from_slice(&(part.len() as u32).to_le_bytes());
    out[5..9].copy_from_slice(&(payload_len as u32).to_le_bytes());
    out[9..17].copy_from_slice(&sum.to_le_bytes());
    out
}

/// Parts encoded in parallel at a time: bounds the encoded bytes held at once (a few MiB
/// each), which the memory budget does not count.
const PARTS_AT_ONCE: usize = 16;

/// Writes `layer` as the segment `path`, emptying it part by part (each part is sorted, encoded
/// and freed). `room` is the most bytes the file may take: a layer that needs more stops the
/// write with [`ErrorKind::StorageFull`] and leaves no file.
///
/// # Errors
///
/// Any I/O error, and [`ErrorKind::StorageFull`] past `room` or when the disk is full.
pub(crate) fn write<S: Slot<N>, const N: usize>(
    path: &Path,
    layer: &mut Layer<S>,
    room: u64,
) -> io::Result<SegmentInfo> {
    let tmp = path.with_extension("tmp");
    let result = write_to(&tmp, layer, room);
    match result {
        Ok(info) => {
            fs::rename(&tmp, path)?;
            if let Some(dir) = path.parent() {
                // The rename itself reaches the disk with the directory.
                File::open(dir)?.sync_all()?;
            }
            Ok(info)
        }
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

fn write_to<S: Slot<N>, const N: usize>(
    tmp: &Path,
    layer: &mut Layer<S>,
    room: u64,
) -> io::Result<SegmentInfo> {
    let file = File::create(tmp)?;
    let mut w = BufWriter::with_capacity(1 << 22, file);
    w.write_all(MAGIC)?;
    w.write_all(&(N as u32).to_le_bytes())?;
    w.write_all(&(<S::K as Key>::BYTES as u32).to_le_bytes())?;
    w.write_all(&layer.discs.to_le_bytes())?;
    let mut info = SegmentInfo {
        entries: 0,
        bytes: HEADER_BYTES,
        black: 0,
    };
    let per_half = layer.per_half;
    let n = layer.parts.len();
    let mut i = 0;
    while i < n {
        let j = (i + PARTS_AT_ONCE).min(n);
        let blocks: Vec<Vec<u8>> = layer.parts[i..j]
            .par_iter_mut()
            .enumerate()
            .filter(|(_, part)| !part.is_empty())
            .map(|(at, part)| {
                part.sort_unstable_by_key(|e| e.key());
                let block = encode(i + at < per_half, part);
                *part = HugeBuf::new(0, S::FREE);
                block
            })
            .collect();
        for b in blocks {
            info.bytes += b.len() as u64;
            let entries = u64::from(u32::from_le_bytes(b[1..5].try_into().expect("4")));
            info.entries += entries;
            if b[0] == 1 {
                info.black += entries;
            }
            if info.bytes > room {
                return Err(io::Error::new(
                    ErrorKind::StorageFull,
                    format!("the layer needs more than the {room} bytes of disk allowed"),
                ));
            }
            w.write_all(&b)?;
        }
        i = j;
    }
    let file = w.into_inner().map_err(io::IntoInnerError::into_error)?;
    file.sync_all()?;
    Ok(info)
}

/// One block read back, not yet decoded.
pub(crate) struct Block {
    black_to_move: bool,
    entries: u32,
    checksum: u64,
    payload: Vec<u8>,
}

impl Block {
    /// Positions in it.
    pub(crate) fn len(&self) -> usize {
        self.entries as usize
    }

    /// Bytes of its payload.
    pub(crate) fn bytes(&self) -> usize {
        self.payload.len()
    }

    /// Whether black is to move in its positions.
    pub(crate) fn black_to_move(&self) -> bool {
        self.black_to_move
    }

    /// The entries, checked against the block's checksum and count. `Err` names what is
    /// wrong; a count that does not fit `S` is [`DecodeError::Overflow`].
    pub(crate) fn decode<S: Slot<N>, const N: usize>(&self) -> Result<Vec<S>, DecodeError> {
        if checksum(&self.payload) != self.checksum {
            return Err(DecodeError::Damaged("a block's checksum does not match"));
        }
        let mut out = Vec::with_capacity(self.len());
        let (b, mut at) = (&self.payload[..], 0);
        let mut key = 0u128;
        for _ in 0..self.entries {
            let gap = get_varint(b, &mut at).ok_or(DecodeError::Damaged("truncated entry"))?;
            key = key
                .checked_add(gap)
                .ok_or(DecodeError::Damaged("key out of range"))?;
            let k = S::K::from_bits(key).ok_or(DecodeError::Damaged("key out of range"))?;
            let mut counts = [0u64; N];
            for c in &mut counts {
                let v = get_varint(b, &mut at).ok_or(DecodeError::Damaged("truncated entry"))?;
                *c = u64::try_from(v).map_err(|_| DecodeError::Damaged("count out of range"))?;
            }
            out.push(S::pack(k, counts).ok_or(DecodeError::Overflow)?);
        }
        if at != b.len() {
            return Err(DecodeError::Damaged("a block has bytes past its entries"));
        }
        Ok(out)
    }
}

/// Why a block could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DecodeError {
    /// The bytes are not what was written.
    Damaged(&'static str),
    /// A count does not fit the slots in use.
    Overflow,
}

/// Reads a segment's blocks in order.
pub(crate) struct SegmentReader {
    r: BufReader<File>,
    /// Bytes read so far.
    pub read: u64,
    size: u64,
}

impl SegmentReader {
    /// Opens `path`, checking its header against the run (`counts` classes, `key_bytes`,
    /// `discs`) and its size against `info`.
    ///
    /// # Errors
    ///
    /// I/O errors, and [`ErrorKind::InvalidData`] for a file of another run or of the wrong
    /// size.
    pub(crate) fn open(
        path: &Path,
        counts: usize,
        key_bytes: usize,
        discs: u32,
        info: SegmentInfo,
    ) -> io::Result<SegmentReader> {
        let file = File::open(path)?;
        let size = file.metadata()?.len();
        let bad = |what: &str| io::Error::new(ErrorKind::InvalidData, what.to_string());
        if size != info.bytes {
            return Err(bad("its size is not the size recorded for it"));
        }
        let mut r = BufReader::with_capacity(1 << 22, file);
        let mut head = [0u8; HEADER_BYTES as usize];
        r.read_exact(&mut head)?;
        let word = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().expect("4 bytes"));
        if &head[..8] != MAGIC
            || word(8) as usize != counts
            || word(12) as usize != key_bytes
            || word(16) != discs
        {
            return Err(bad("not a layer segment of this count"));
        }
        Ok(SegmentReader {
            r,
            read: HEADER_BYTES,
            size,
        })
    }

    /// Whole blocks until they hold at least `want` entries, or the end of the file.
    ///
    /// # Errors
    ///
    /// I/O errors; a block cut short is [`ErrorKind::UnexpectedEof`].
    pub(crate) fn blocks(&mut self, want: usize) -> io::Result<Vec<Block>> {
        let mut out = Vec::new();
        let mut n = 0;
        while n < want && self.read < self.size {
            let mut head = [0u8; BLOCK_HEADER_BYTES as usize];
            self.r.read_exact(&mut head)?;
            let entries = u32::from_le_bytes(head[1..5].try_into().expect("4 bytes"));
            let len = u32::from_le_bytes(head[5..9].try_into().expect("4 bytes"));
            let checksum = u64::from_le_bytes(head[9..17].try_into().expect("8 bytes"));
            let mut payload = vec![0u8; len as usize];
            self.r.read_exact(&mut payload)?;
            self.read += BLOCK_HEADER_BYTES + u64::from(len);
            n += entries as usize;
            out.push(Block {
                black_to_move: head[0] == 1,
                entries,
                checksum,
                payload,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::dp::Entry;

    #[test]
    fn varints_round_trip() {
        let mut b = Vec::new();
        let xs = [0u128, 1, 127, 128, 300, u128::from(u64::MAX), u128::MAX];
        for &x in &xs {
            put_varint(&mut b, x);
        }
        let mut at = 0;
        for &x in &xs {
            assert_eq!(get_varint(&b, &mut at), Some(x));
        }
        assert_eq!(get_varint(&b, &mut at), None);
    }

    #[test]
    fn blocks_round_trip_and_refuse_damage() {
        let mut part: Vec<Entry<u64, 2>> = (1..500u64)
            .map(|i| Entry {
                key: i * 7919 % 100_003 + 1,
                counts: [i, i * i * i],
            })
            .collect();
        part.sort_unstable_by_key(|e| e.key);
        let bytes = encode(false, &part);
        let block = Block {
            black_to_move: bytes[0] == 1,
            entries: u32::from_le_bytes(bytes[1..5].try_into().unwrap()),
            checksum: u64::from_le_bytes(bytes[9..17].try_into().unwrap()),
            payload: bytes[17..].to_vec(),
        };
        let back: Vec<Entry<u64, 2>> = block.decode().unwrap();
        assert_eq!(back.len(), part.len());
        for (a, b) in back.iter().zip(&part) {
            assert_eq!((a.key, a.counts), (b.key, b.counts));
        }
        assert!(!block.black_to_move());
        let mut bad = Block {
            payload: block.payload.clone(),
            ..block
        };
        bad.payload[3] ^= 1;
        assert!(matches!(
            bad.decode::<Entry<u64, 2>, 2>(),
            Err(DecodeError::Damaged(_))
        ));
    }
}
