//! Counting games as paths through the layered graph of positions.
//!
//! Every placement adds exactly one disc and a forced pass adds none, so with passes folded into
//! the edge that leads to them, the positions fall into layers by disc count and every edge goes
//! from one layer to the next. A layer is a sorted `Vec` of `(key, counts)` entries: the key is
//! the position's canonical form (smallest image under the board's symmetries), kept apart by the
//! colour to move (one `Vec` per colour), and `counts[c]` is the number of paths from first-move
//! class `c` into it. Expanding a layer pushes each child with its parent's counts; sorting and
//! merging equal keys gives the next layer. A child that ends the game adds its counts to the
//! score tally of each class. Memory is one layer plus the next, checked against the budget.
//!
//! A sorted `Vec` of 16- or 24-byte entries merged in place is several times leaner than a
//! `HashMap` of the same positions. Keys pack both discs sets densely into a `u64` on boards of at
//! most 32 squares, and use the two 64-bit frames as a `u128` otherwise. Path counts are `u64`
//! (checked: an overflow is reported, never wrapped); the score tally is `u128`.

use std::time::Instant;

use rayon::prelude::*;

use super::checkpoint::DpCheckpoint;
use super::{Class, CountError, CountOptions, LayerRow, MethodResult};
use crate::board::{flips, legal_moves, Position, Shape, Squares};
use crate::memory::MemoryError;
use crate::progress::Progress;

/// A position's key in a layer (the colour to move is implied by the layer's half).
pub(crate) trait Key: Copy + Ord + Send + Sync + Default + 'static {
    /// Bytes of the key in a checkpoint.
    const BYTES: usize;
    /// The key of the discs of the side to move `p` and of the other side `o`.
    fn encode(pk: &Packer, p: u64, o: u64) -> Self;
    /// The discs back.
    fn decode(self, pk: &Packer) -> (u64, u64);
    /// Little-endian bytes.
    fn write(self, out: &mut Vec<u8>);
    /// From little-endian bytes.
    fn read(b: &[u8]) -> Self;
}

/// Packs the squares of a board densely, row after row.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Packer {
    rows: u32,
    cols: u32,
    row_mask: u64,
}

impl Packer {
    fn new(shape: Shape) -> Packer {
        Packer {
            rows: shape.rows(),
            cols: shape.cols(),
            row_mask: (1u64 << shape.cols()) - 1,
        }
    }

    #[inline]
    fn pack(&self, b: u64) -> u64 {
        let mut out = 0;
        for r in 0..self.rows {
            out |= ((b >> (8 * r)) & self.row_mask) << (self.cols * r);
        }
        out
    }

    #[inline]
    fn unpack(&self, d: u64) -> u64 {
        let mut out = 0;
        for r in 0..self.rows {
            out |= ((d >> (self.cols * r)) & self.row_mask) << (8 * r);
        }
        out
    }
}

impl Key for u64 {
    const BYTES: usize = 8;
    #[inline]
    fn encode(pk: &Packer, p: u64, o: u64) -> u64 {
        pk.pack(p) | (pk.pack(o) << 32)
    }
    #[inline]
    fn decode(self, pk: &Packer) -> (u64, u64) {
        (pk.unpack(self & 0xFFFF_FFFF), pk.unpack(self >> 32))
    }
    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn read(b: &[u8]) -> u64 {
        u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
    }
}

impl Key for u128 {
    const BYTES: usize = 16;
    #[inline]
    fn encode(_: &Packer, p: u64, o: u64) -> u128 {
        u128::from(p) | (u128::from(o) << 64)
    }
    #[inline]
    fn decode(self, _: &Packer) -> (u64, u64) {
        (self as u64, (self >> 64) as u64)
    }
    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn read(b: &[u8]) -> u128 {
        u128::from_le_bytes(b[..16].try_into().expect("16 bytes"))
    }
}

/// A position of a layer and the paths into it from each class.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry<K, const N: usize> {
    pub key: K,
    pub counts: [u64; N],
}

/// A layer: the positions with black to move and those with white to move, each sorted by key
/// with no key twice.
pub(crate) struct Layer<K, const N: usize> {
    pub discs: u32,
    pub halves: [Vec<Entry<K, N>>; 2],
}

impl<K, const N: usize> Layer<K, N> {
    fn len(&self) -> usize {
        self.halves[0].len() + self.halves[1].len()
    }

    fn bytes(&self) -> usize {
        (self.halves[0].capacity() + self.halves[1].capacity()) * std::mem::size_of::<Entry<K, N>>()
    }
}

/// Input entries expanded between two memory checks.
const BATCH: usize = 1 << 18;
/// Input entries per parallel chunk.
const CHUNK: usize = 1 << 12;

/// Runs the layered count, choosing the key type by board size and the counts width by the
/// number of classes.
pub(crate) fn run(
    root: &Position,
    classes: &[Class],
    opts: &CountOptions,
    progress: &dyn Progress,
) -> Result<MethodResult, CountError> {
    let small = root.shape().squares() <= 32;
    macro_rules! go {
        ($n:literal) => {
            if small {
                run_typed::<u64, $n>(root, classes, opts, progress)
            } else {
                run_typed::<u128, $n>(root, classes, opts, progress)
            }
        };
    }
    match classes.len() {
        1 => go!(1),
        2 => go!(2),
        3 | 4 => go!(4),
        5..=8 => go!(8),
        9..=32 => go!(32),
        k => Err(CountError::Checkpoint {
            path: "-".into(),
            msg: format!("{k} first-move classes: dp handles at most 32; use --method dfs"),
        }),
    }
}

/// Sorts a half-layer by key and merges equal keys, adding their counts. Returns `false` if a
/// sum overflowed.
fn sort_merge<K: Key, const N: usize>(v: &mut Vec<Entry<K, N>>) -> bool {
    v.par_sort_unstable_by_key(|e| e.key);
    let mut ok = true;
    v.dedup_by(|later, kept| {
        if later.key == kept.key {
            for i in 0..N {
                let (s, o) = kept.counts[i].overflowing_add(later.counts[i]);
                kept.counts[i] = s;
                ok &= !o;
            }
            true
        } else {
            false
        }
    });
    ok
}

/// What one worker gathered from a run of input entries.
struct Local<K, const N: usize> {
    out: [Vec<Entry<K, N>>; 2],
    tally: Vec<u128>,
}

fn run_typed<K: Key, const N: usize>(
    root: &Position,
    classes: &[Class],
    opts: &CountOptions,
    progress: &dyn Progress,
) -> Result<MethodResult, CountError> {
    let shape = root.shape();
    let pk = Packer::new(shape);
    let stride = shape.squares() as usize + 1;
    let ss = stride * stride;
    let k = classes.len();
    let budget = opts.memory_mb.saturating_mul(1 << 20);
    let entry_bytes = std::mem::size_of::<Entry<K, N>>();

    let mut matrices = vec![vec![0u128; ss]; k];
    let mut rows: Vec<LayerRow> = Vec::new();
    let mut layer = Layer::<K, N> {
        discs: classes[0].pos.disc_count(),
        halves: [Vec::new(), Vec::new()],
    };
    for (i, c) in classes.iter().enumerate() {
        debug_assert_eq!(c.pos.disc_count(), layer.discs);
        let (p, o) = key_discs(&c.pos, opts.symmetry);
        let mut counts = [0u64; N];
        counts[i] = 1;
        layer.halves[half(c.pos.black_to_move())].push(Entry {
            key: K::encode(&pk, p, o),
            counts,
        });
    }
    for h in &mut layer.halves {
        sort_merge(h);
    }

    let cp = DpCheckpoint::new(opts.checkpoint.clone(), root, opts.symmetry, k, N);
    let mut resumed_units = 0;
    if opts.resume {
        if let Some(state) = cp.load::<K, N>()? {
            layer = state.layer;
            matrices = state.matrices;
            rows = state.rows;
            resumed_units = rows.len() as u64;
        }
    }

    let mut peak = layer.bytes();
    let mut done_here = 0u64;
    let mut last_save = Instant::now();
    let total_layers = u64::from(shape.squares().saturating_sub(layer.discs) + 1) + resumed_units;
    while layer.len() > 0 {
        let stop = progress.should_stop() || opts.stop_after.is_some_and(|n| done_here >= n);
        if stop {
            let saved = cp.save(&layer, &matrices, &rows)?;
            return Err(CountError::Interrupted {
                done: rows.len() as u64,
                total: total_layers,
                unit: "layers",
                saved,
            });
        }
        rows.push(LayerRow {
            discs: layer.discs,
            positions: layer.len() as u64,
        });
        progress.start(&format!("dp {:>2} discs", layer.discs), layer.len() as u64);
        let next = expand(
            &layer,
            &pk,
            shape,
            opts.symmetry,
            k,
            &mut matrices,
            &mut peak,
            budget,
            entry_bytes,
            progress,
        )?;
        progress.finish();
        layer = next;
        done_here += 1;
        if cp.enabled() && last_save.elapsed().as_secs() >= 30 {
            cp.save(&layer, &matrices, &rows)?;
            last_save = Instant::now();
        }
    }
    cp.remove();
    Ok(MethodResult {
        matrices,
        layers: Some(rows),
        peak_layer_mb: Some(peak as f64 / f64::from(1 << 20)),
        resumed_units,
    })
}

/// The half of a layer for a colour to move.
#[inline]
fn half(black_to_move: bool) -> usize {
    usize::from(!black_to_move)
}

/// The discs under which a position is stored: its canonical form, or itself.
#[inline]
fn key_discs(pos: &Position, symmetry: bool) -> (u64, u64) {
    if symmetry {
        pos.canonical()
    } else {
        (pos.player(), pos.opponent())
    }
}

/// Expands one layer into the next, tallying ended games into `matrices`.
#[allow(clippy::too_many_arguments)]
fn expand<K: Key, const N: usize>(
    layer: &Layer<K, N>,
    pk: &Packer,
    shape: Shape,
    symmetry: bool,
    k: usize,
    matrices: &mut [Vec<u128>],
    peak: &mut usize,
    budget: u64,
    entry_bytes: usize,
    progress: &dyn Progress,
) -> Result<Layer<K, N>, CountError> {
    let stride = shape.squares() as usize + 1;
    let ss = stride * stride;
    let mask = shape.mask();
    let mut next = Layer::<K, N> {
        discs: layer.discs + 1,
        halves: [Vec::new(), Vec::new()],
    };
    let mut compact_at = [1usize << 22; 2];
    let mut ok = true;
    for (h, input) in layer.halves.iter().enumerate() {
        let btm = h == 0;
        for batch in input.chunks(BATCH) {
            let mut locals: Vec<Local<K, N>> = batch
                .par_chunks(CHUNK)
                .fold(
                    || Local {
                        out: [Vec::new(), Vec::new()],
                        tally: vec![0u128; k * ss],
                    },
                    |mut l, chunk| {
                        for e in chunk {
                            expand_one(e, btm, pk, shape, mask, symmetry, stride, &mut l);
                        }
                        l
                    },
                )
                .collect();
            ok &= locals
                .par_iter_mut()
                .map(|l| sort_merge(&mut l.out[0]) & sort_merge(&mut l.out[1]))
                .reduce(|| true, |a, b| a & b);
            let local_bytes: usize = locals
                .iter()
                .map(|l| (l.out[0].capacity() + l.out[1].capacity()) * entry_bytes)
                .sum();
            for l in &mut locals {
                for (m, t) in matrices.iter_mut().zip(l.tally.chunks(ss)) {
                    for (a, b) in m.iter_mut().zip(t) {
                        *a += b;
                    }
                }
                for side in 0..2 {
                    next.halves[side].append(&mut l.out[side]);
                }
            }
            let now = layer.bytes() + next.bytes() + local_bytes;
            *peak = (*peak).max(now);
            drop(locals);
            for (h, at) in next.halves.iter_mut().zip(compact_at.iter_mut()) {
                if h.len() >= *at {
                    ok &= sort_merge(h);
                    *at = (2 * h.len()).max(1 << 22);
                }
            }
            let now = layer.bytes() + next.bytes();
            *peak = (*peak).max(now);
            if (*peak as u64) > budget {
                return Err(CountError::Memory(MemoryError::OverBudget {
                    what: format!(
                        "counting by layers on {shape} (the layer of {} discs and growing)",
                        next.discs
                    ),
                    needed_mb: (*peak as u64) >> 20,
                    budget_mb: budget >> 20,
                }));
            }
            progress.advance(batch.len() as u64);
        }
    }
    for side in 0..2 {
        ok &= sort_merge(&mut next.halves[side]);
        next.halves[side].shrink_to_fit();
    }
    if !ok {
        return Err(CountError::Overflow("the path counts of a layer"));
    }
    Ok(next)
}

/// Pushes the children of one entry into `l`, tallying those that end the game.
#[allow(clippy::too_many_arguments)]
#[inline]
fn expand_one<K: Key, const N: usize>(
    e: &Entry<K, N>,
    btm: bool,
    pk: &Packer,
    shape: Shape,
    mask: u64,
    symmetry: bool,
    stride: usize,
    l: &mut Local<K, N>,
) {
    let ss = stride * stride;
    let (p, o) = e.key.decode(pk);
    let empty = mask & !(p | o);
    for sq in Squares(legal_moves(p, o, empty)) {
        let bit = 1u64 << sq;
        let f = flips(p, o, sq);
        let (np, no) = (o ^ f, p | f | bit);
        let ne = empty ^ bit;
        // The child, with a forced pass folded in.
        let (cp, co, cbtm) = if legal_moves(np, no, ne) != 0 {
            (np, no, !btm)
        } else if legal_moves(no, np, ne) != 0 {
            (no, np, btm)
        } else {
            let (b, w) = if btm { (no, np) } else { (np, no) };
            let idx = b.count_ones() as usize * stride + w.count_ones() as usize;
            for (c, &n) in e.counts.iter().enumerate() {
                if n > 0 {
                    l.tally[c * ss + idx] += u128::from(n);
                }
            }
            continue;
        };
        let (kp, ko) = if symmetry {
            Position::from_player(shape, cp, co, cbtm).canonical()
        } else {
            (cp, co)
        };
        l.out[half(cbtm)].push(Entry {
            key: K::encode(pk, kp, ko),
            counts: e.counts,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips() {
        for (r, c) in [(3, 3), (4, 8), (5, 5), (8, 4)] {
            let shape = Shape::new(r, c).unwrap();
            let pk = Packer::new(shape);
            let m = shape.mask();
            for b in [m, m & 0x5555_5555_5555_5555, 0, 1] {
                assert_eq!(pk.unpack(pk.pack(b)), b);
                assert!(pk.pack(b) < (1u64 << 32));
            }
        }
    }
}
