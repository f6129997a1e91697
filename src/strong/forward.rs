//! The forward pass of a strong solution: the layers of positions reachable from the start,
//! built in the layer tables of dp's count ([`crate::count::dp`]), by the same expansion
//! ([`expand_layer`]: batches, budget checks, a layer freed as it is expanded). What differs
//! is what a position carries: dp adds up path counts and tallies ended games; here a
//! position carries the images of it that are reached, merged by bitwise or, and ended games
//! are kept as positions, since they have values.
//!
//! Each finished layer is summarised into its counts and the sorted keys of the strong table
//! ([`key_of`] of the canonical discs), which the backward pass resolves.

use rayon::prelude::*;
use serde::Serialize;

use super::error::StrongError;
use super::{discs_of, key_of, Group};
use crate::board::{canonical_discs, legal_moves, Shape};
use crate::count::dp::building::{expand_layer, first_need, Tally};
use crate::count::dp::expand::Local;
use crate::count::dp::layer::{half, table_index};
use crate::count::dp::{Key, Layer, Packer, Stored};
use crate::count::CountError;
use crate::cpu::Portable;
use crate::layers::Children;
use crate::memory::MemoryError;
use crate::progress::Progress;

/// A position of a forward layer (its colour to move is its half of the layer): dp's
/// canonical key, and bit `g` set if the image of the key's discs under symmetry `g` of
/// [`crate::board::Symmetry::all`] is reached with this colour to move.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reached {
    key: u64,
    images: u8,
}

impl Stored for Reached {
    type K = u64;
    const FREE: Self = Reached { key: 0, images: 0 };
    #[inline(always)]
    fn key(&self) -> u64 {
        self.key
    }
    #[inline(always)]
    fn merge(&mut self, other: &Self) -> bool {
        self.images |= other.images;
        true
    }
}

/// Positions of one layer (one disc count).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct LayerCount {
    /// Discs on the board.
    pub discs: u32,
    /// Reachable positions up to the board's symmetries, sides to move merged (the table's
    /// entries).
    pub canonical: u64,
    /// Reachable positions up to the board's symmetries, counting the side to move (a disc
    /// pattern reachable with either side to move counts twice).
    pub canonical_with_side: u64,
    /// Of those counted with the side to move, the ones where the game goes on: the positions
    /// that `count --method dp` holds in its layers (it tallies the ended games instead), so
    /// its positions per layer equal this column from the layer after the start on.
    pub in_play: u64,
    /// Reachable positions without symmetry, side to move counted.
    pub positions: u64,
    /// Of the canonical entries, those where the game is over.
    pub terminal: u64,
}

/// What the forward pass hands to the backward one.
pub(super) struct Forward {
    /// Per layer from the start's, the sorted keys of the strong table.
    pub(super) keys: Vec<Vec<u64>>,
    /// Per layer, its counts.
    pub(super) counts: Vec<LayerCount>,
    /// Bytes held at the peak (the forward layers' keys, the current layer and the next).
    pub(super) peak: u64,
}

/// Enumerates the layers of `shape` from the start within `budget` bytes (`memory_mb` for
/// messages).
pub(super) fn forward(
    shape: Shape,
    group: &Group,
    budget: u64,
    memory_mb: u64,
    progress: &dyn Progress,
) -> Result<Forward, StrongError> {
    let pk = Packer::new(shape, true);
    let remap = remap_tables(group);
    let start = shape.start();
    let (key, s) = pk.canonical_by(start.player(), start.opponent());
    let root = Reached {
        key,
        images: 1 << group.inv[s],
    };
    let mut layer = Layer::from_entries(
        start.disc_count(),
        1,
        vec![(half(start.black_to_move()), root)],
    )
    .expect("or-ed images never overflow");
    let mut out = Forward {
        keys: Vec::new(),
        counts: Vec::new(),
        peak: 0,
    };
    let mut stored = 0u64;
    let mut growth = 4.0;
    let over = |discs: u32, need: u64| {
        StrongError::Memory(MemoryError::OverBudget {
            what: format!(
                "the strong solution of {} (at the layer of {discs} discs)",
                shape.name()
            ),
            needed_mb: need.div_ceil(1 << 20),
            budget_mb: memory_mb,
        })
    };
    loop {
        if progress.should_stop() {
            return Err(StrongError::Stopped);
        }
        let (keys, counts) = summarise(shape, group, &pk, &layer);
        stored += 8 * keys.len() as u64;
        let now = stored + layer.bytes() as u64;
        out.peak = out.peak.max(now);
        if now > budget {
            return Err(over(layer.discs, now));
        }
        out.keys.push(keys);
        out.counts.push(counts);
        let (discs, before) = (layer.discs, layer.len());
        let left = budget - stored;
        let first = first_need(&layer, &pk, growth);
        let stage = |per_half| {
            let (pk, remap) = (&pk, &remap);
            move |chunk: &[Reached], btm: bool, l: &mut Local<Reached>| {
                stage_chunk(pk, remap, per_half, chunk, btm, l)
            }
        };
        let mut peak = 0usize;
        progress.start(&format!("strong {discs:>2} discs"), before as u64);
        let next = expand_layer(
            layer,
            &pk,
            growth,
            stage,
            &mut Tally::new(0, shape),
            &mut peak,
            (left, first, false),
            progress,
        );
        progress.finish();
        out.peak = out.peak.max(stored + peak as u64);
        layer = match next {
            Ok(next) => next,
            Err(CountError::Memory(MemoryError::OverBudget { needed_mb, .. })) => {
                return Err(over(discs + 1, stored + (needed_mb << 20)))
            }
            Err(CountError::Interrupted { .. }) => return Err(StrongError::Stopped),
            Err(e) => unreachable!("the forward pass merges without overflow: {e}"),
        };
        if layer.len() == 0 {
            return Ok(out);
        }
        growth = layer.len() as f64 / before as f64;
    }
}

/// `remap[s][m]`: the images `m` of one colour after the canonicalising symmetry `s`. A parent
/// image `g` becomes the child image `g ∘ s⁻¹`.
fn remap_tables(group: &Group) -> Vec<[u8; 256]> {
    let n = group.syms.len();
    (0..n)
        .map(|s| {
            let mut t = [0u8; 256];
            for (m, slot) in t.iter_mut().enumerate() {
                let mut out = 0u8;
                for g in 0..n {
                    if m & (1 << g) != 0 {
                        out |= 1 << group.mul[g][group.inv[s]];
                    }
                }
                *slot = out;
            }
            t
        })
        .collect()
}

/// Stages the children of the entries of `chunk` (colour `btm` to move) in `l`, by table of
/// a next layer of `per_half` partitions per colour.
fn stage_chunk(
    pk: &Packer,
    remap: &[[u8; 256]],
    per_half: usize,
    chunk: &[Reached],
    btm: bool,
    l: &mut Local<Reached>,
) -> bool {
    let mask = pk.shape.mask();
    for e in chunk {
        let (p, o) = e.key.decode(pk);
        let mut reach = Reach {
            pk,
            remap,
            per_half,
            btm,
            images: e.images,
            staged: &mut l.staged,
        };
        crate::layers::expand(Portable, p, o, mask, &mut reach);
    }
    true
}

/// Where the children of one position go: staged with the images reached.
struct Reach<'a> {
    pk: &'a Packer,
    remap: &'a [[u8; 256]],
    per_half: usize,
    /// Black is to move in the parent.
    btm: bool,
    /// The parent's images reached.
    images: u8,
    staged: &'a mut [Vec<Reached>],
}

impl Reach<'_> {
    /// Stages the child `(p, o)`, `p` to move; `passed`: `p` is the parent's mover again.
    #[inline(always)]
    fn push(&mut self, p: u64, o: u64, passed: bool) {
        let (key, s) = self.pk.canonical_by(p, o);
        // A placement hands the turn to the other colour; a folded pass hands it back.
        let child_btm = self.btm == passed;
        let t = table_index(half(child_btm), key.hash(), self.per_half);
        self.staged[t].push(Reached {
            key,
            images: self.remap[s][usize::from(self.images)],
        });
    }
}

impl Children for Reach<'_> {
    #[inline(always)]
    fn goes_on(&mut self, p: u64, o: u64, passed: bool) {
        self.push(p, o, passed);
    }
    /// An ended game is stored with the placer's opponent to move.
    #[inline(always)]
    fn over(&mut self, np: u64, no: u64) {
        self.push(np, no, false);
    }
}

/// The sorted keys of the strong table in `layer` and the layer's counts.
fn summarise(
    shape: Shape,
    group: &Group,
    pk: &Packer,
    layer: &Layer<Reached>,
) -> (Vec<u64>, LayerCount) {
    let mask = shape.mask();
    // Per entry (a position with its colour to move): its images reached, whether the game
    // goes on, and the strong table's key of its discs.
    let (in_play, positions) = layer
        .parts
        .par_iter()
        .flat_map_iter(|part| part.iter())
        .map(|e| {
            let (p, o) = e.key.decode(pk);
            let mut seen: [(u64, u64); 8] = [(0, 0); 8];
            let mut n = 0;
            for (g, sym) in group.syms.iter().enumerate() {
                if e.images & (1 << g) != 0 {
                    let img = (sym.apply(shape, p), sym.apply(shape, o));
                    if !seen[..n].contains(&img) {
                        seen[n] = img;
                        n += 1;
                    }
                }
            }
            // Passes are folded in, so a position without a move has ended.
            let goes_on = legal_moves(p, o, mask & !(p | o)) != 0;
            (u64::from(goes_on), n as u64)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let mut keys: Vec<u64> = layer
        .parts
        .par_iter()
        .flat_map_iter(|part| part.iter())
        .map(|e| {
            let (p, o) = e.key.decode(pk);
            let (cp, co) = canonical_discs(shape, p, o);
            key_of(shape, cp, co)
        })
        .collect();
    keys.par_sort_unstable();
    keys.dedup();
    keys.shrink_to_fit();
    let terminal = keys
        .par_iter()
        .filter(|&&k| {
            let (p, o) = discs_of(shape, k);
            legal_moves(p, o, mask & !(p | o)) == 0
        })
        .count() as u64;
    let counts = LayerCount {
        discs: layer.discs,
        canonical: keys.len() as u64,
        canonical_with_side: layer.len() as u64,
        in_play,
        positions,
        terminal,
    };
    (keys, counts)
}
