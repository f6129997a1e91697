//! Per-layer checkpoints of the dataflow count: each worker saves its part of a layer, with the
//! tallies and the layer sizes so far, in a file of its own on its process's disk
//! (`w<index>-of-<workers>-d<discs>.layer`), written atomically. A worker keeps its two newest
//! files: when it saves layer `L`, every worker has saved the layer saved before `L` (it could
//! not have reached `L` otherwise), so a layer saved by all is always on disk.
//!
//! A file is the magic `RNXDFL01`, then little-endian words: run id, worker, workers, discs,
//! tally cells, words per entry, rows, entries with black to move, entries with white to move;
//! the rows as (discs, positions); each tally cell as (low, high); the entries as
//! `worker::words_of` writes them; last, the FNV-1a of everything before it.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::part::Part;
use super::wire::{entry_of, key_words, words_of};
use super::Dataflow;
use crate::count::dp::{Layer, Slot};
use crate::count::LayerRow;
use crate::fnv::{fnv1a, OFFSET};

const MAGIC: &[u8; 8] = b"RNXDFL01";

fn file(dir: &Path, me: usize, peers: usize, discs: u32) -> PathBuf {
    dir.join(format!("w{me:04}-of-{peers:04}-d{discs:02}.layer"))
}

/// The disc counts of this worker's files, from their names.
fn listed(dir: &Path, me: usize, peers: usize) -> Vec<u32> {
    let prefix = format!("w{me:04}-of-{peers:04}-d");
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<u32> = rd
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_prefix(&prefix)?
                .strip_suffix(".layer")?
                .parse()
                .ok()
        })
        .collect();
    v.sort_unstable();
    v
}

/// The layers (bit = disc count) this worker saved for the run `run_id`.
pub(crate) fn saved_mask(dir: &Path, run_id: u64, me: usize, peers: usize) -> u64 {
    let mut mask = 0;
    for d in listed(dir, me, peers) {
        if d < 64 && header_matches(&file(dir, me, peers, d), run_id) {
            mask |= 1 << d;
        }
    }
    mask
}

/// The layers saved by any worker of this process.
pub(crate) fn saved_layers(dir: &Path, run_id: u64, df: &Dataflow, peers: usize) -> u64 {
    local_workers(df)
        .map(|me| saved_mask(dir, run_id, me, peers))
        .fold(0, |a, b| a | b)
}

pub(crate) fn local_workers(df: &Dataflow) -> std::ops::Range<usize> {
    df.process * df.workers..(df.process + 1) * df.workers
}

/// Deletes this process's files of the run, and the directory when it is left empty.
pub(crate) fn remove_mine(dir: &Path, run_id: u64, df: &Dataflow, peers: usize) {
    for me in local_workers(df) {
        for d in listed(dir, me, peers) {
            let f = file(dir, me, peers, d);
            if header_matches(&f, run_id) {
                let _ = std::fs::remove_file(f);
            }
        }
    }
    let _ = std::fs::remove_dir(dir);
}

fn header_matches(path: &Path, run_id: u64) -> bool {
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && &head[..8] == MAGIC
        && head[8..] == run_id.to_le_bytes()
}

/// A writer that hashes what passes through it.
struct Hashing<'a> {
    inner: &'a mut dyn Write,
    h: u64,
}

impl Hashing<'_> {
    fn words(&mut self, w: &[u64]) -> std::io::Result<()> {
        let mut buf = Vec::with_capacity(w.len() * 8);
        for x in w {
            buf.extend_from_slice(&x.to_le_bytes());
        }
        self.h = fnv1a(self.h, &buf);
        self.inner.write_all(&buf)
    }
}

/// Saves this worker's part of `layer`, with the tallies and rows so far; then deletes its
/// files older than the one saved before.
pub(crate) fn save<S: Slot<N>, const N: usize>(
    dir: &Path,
    run_id: u64,
    me: usize,
    peers: usize,
    layer: &Layer<S>,
    tally: &[u128],
    rows: &[LayerRow],
) -> Result<(), String> {
    let path = file(dir, me, peers, layer.discs);
    let halves = [layer.half_len(0) as u64, layer.half_len(1) as u64];
    crate::atomic::write_atomic_with(&path, |out| {
        out.write_all(MAGIC)?;
        let mut w = Hashing {
            inner: out,
            h: fnv1a(OFFSET, MAGIC),
        };
        w.words(&[
            run_id,
            me as u64,
            peers as u64,
            u64::from(layer.discs),
            tally.len() as u64,
            (key_words::<S::K>() + N) as u64,
            rows.len() as u64,
            halves[0],
            halves[1],
        ])?;
        let r: Vec<u64> = rows
            .iter()
            .flat_map(|r| [u64::from(r.discs), r.positions])
            .collect();
        w.words(&r)?;
        let t: Vec<u64> = tally
            .iter()
            .flat_map(|&c| [c as u64, (c >> 64) as u64])
            .collect();
        w.words(&t)?;
        let mut buf = Vec::new();
        for part in &layer.parts {
            for chunk in part.chunks(1 << 16) {
                buf.clear();
                words_of::<S, N>(chunk, &mut buf);
                w.words(&buf)?;
            }
        }
        let h = w.h;
        out_words(w.inner, &[h])
    })
    .map_err(|e| format!("checkpoint {}: cannot write it ({e})", path.display()))?;
    let older: Vec<u32> = listed(dir, me, peers)
        .into_iter()
        .filter(|&d| d < layer.discs)
        .collect();
    if older.len() > 1 {
        for &d in &older[..older.len() - 1] {
            let _ = std::fs::remove_file(file(dir, me, peers, d));
        }
    }
    Ok(())
}

fn out_words(out: &mut dyn Write, w: &[u64]) -> std::io::Result<()> {
    for x in w {
        out.write_all(&x.to_le_bytes())?;
    }
    Ok(())
}

/// A worker's state read back.
pub(crate) struct Saved<S: Copy, const N: usize> {
    pub layer: Layer<S>,
    pub tally: Vec<u128>,
    pub rows: Vec<LayerRow>,
}

/// A reader that hashes what passes through it.
struct Reading<R> {
    inner: R,
    h: u64,
}

impl<R: Read> Reading<R> {
    fn words(&mut self, n: usize) -> std::io::Result<Vec<u64>> {
        let mut buf = vec![0u8; n * 8];
        self.inner.read_exact(&mut buf)?;
        self.h = fnv1a(self.h, &buf);
        Ok(buf
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect())
    }
}

/// Reads this worker's part of the layer of `discs` discs back, checking every byte.
pub(crate) fn load<S: Slot<N>, const N: usize>(
    dir: &Path,
    run_id: u64,
    me: usize,
    peers: usize,
    discs: u32,
    cells: usize,
) -> Result<Saved<S, N>, String> {
    let path = file(dir, me, peers, discs);
    let bad = |what: &str| format!("checkpoint {}: {what}", path.display());
    let f = std::fs::File::open(&path).map_err(|e| bad(&format!("cannot read it ({e})")))?;
    let mut r = Reading {
        inner: std::io::BufReader::with_capacity(1 << 20, f),
        h: OFFSET,
    };
    let io = |e: std::io::Error| bad(&format!("cannot read it ({e})"));
    let mut magic = [0u8; 8];
    r.inner.read_exact(&mut magic).map_err(io)?;
    r.h = fnv1a(r.h, &magic);
    let head = r.words(9).map_err(io)?;
    let stride = key_words::<S::K>() + N;
    if &magic != MAGIC
        || head[..5]
            != [
                run_id,
                me as u64,
                peers as u64,
                u64::from(discs),
                cells as u64,
            ]
        || head[5] != stride as u64
    {
        return Err(bad("written by another run"));
    }
    let n_rows = usize::try_from(head[6]).map_err(|_| bad("damaged"))?;
    let rows = r
        .words(2 * n_rows)
        .map_err(io)?
        .chunks_exact(2)
        .map(|w| LayerRow {
            discs: w[0] as u32,
            positions: w[1],
        })
        .collect();
    let tally = r
        .words(2 * cells)
        .map_err(io)?
        .chunks_exact(2)
        .map(|w| u128::from(w[0]) | u128::from(w[1]) << 64)
        .collect();
    let total = usize::try_from(head[7] + head[8]).map_err(|_| bad("damaged"))?;
    let black = head[7] as f64 / total.max(1) as f64;
    let mut part = Part::<S, N>::new(me, peers, total, black);
    let mut left = [head[7], head[8]];
    for (h, left) in left.iter_mut().enumerate() {
        while *left > 0 {
            let n = (*left).min(1 << 16) as usize;
            for w in r.words(n * stride).map_err(io)?.chunks_exact(stride) {
                part.insert(h, entry_of::<S, N>(w).ok_or_else(|| bad("damaged entry"))?);
            }
            *left -= n as u64;
        }
    }
    let expect = r.h;
    let mut sum = [0u8; 8];
    r.inner.read_exact(&mut sum).map_err(io)?;
    if u64::from_le_bytes(sum) != expect || !part.ok {
        return Err(bad("damaged (its checksum does not match)"));
    }
    Ok(Saved {
        layer: part.into_layer(discs),
        tally,
        rows,
    })
}
