//! Retrograde analysis: enumerate the reachable layers forward, resolve values backward.

use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;
use thiserror::Error;

use super::{discs_of, key_of, Entry, Group, Layer, StrongTable, MAX_SQUARES};
use crate::board::{canonical_discs, canonical_discs_by, legal_moves, Shape};
use crate::cpu::Portable;
use crate::layers::Children;
use crate::memory::MemoryError;
use crate::progress::Progress;

/// How to build a strong solution.
#[derive(Debug, Clone, Copy)]
pub struct StrongOptions {
    /// Memory budget in MiB for the layers and the temporary child lists; the build stops with
    /// [`MemoryError::OverBudget`] as soon as it would need more.
    pub memory_mb: u64,
}

impl Default for StrongOptions {
    fn default() -> Self {
        StrongOptions { memory_mb: 4096 }
    }
}

/// Why a strong solution could not be built.
#[derive(Debug, Error)]
pub enum StrongError {
    /// The board has too many squares for a 64-bit key.
    #[error("strong solutions need at most {MAX_SQUARES} squares; {0} has {1}")]
    TooLarge(String, u32),
    /// The memory budget is too small for this board.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// The user asked to stop.
    #[error("stopped by the user before the table was complete")]
    Stopped,
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

/// The perfect-play result after one first move.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FirstMove {
    /// The square, such as `c2`.
    pub square: String,
    /// Value after the move, black minus white.
    pub value: i8,
    /// Placements from the start to the end, this move included.
    pub moves_to_end: u8,
}

/// The summary of a strong solution.
#[derive(Debug, Clone, Serialize)]
pub struct StrongReport {
    /// Board size, such as `4x4`.
    pub board: String,
    /// What a position is, in words.
    pub convention: &'static str,
    /// Table entries: reachable positions up to symmetry, sides to move merged.
    pub canonical: u64,
    /// Reachable positions up to symmetry, side to move counted.
    pub canonical_with_side: u64,
    /// Of those, the positions where the game goes on (see [`LayerCount::in_play`]).
    pub in_play: u64,
    /// Reachable positions without symmetry, side to move counted.
    pub positions: u64,
    /// Per disc count.
    pub layers: Vec<LayerCount>,
    /// Value of the start, black minus white under perfect play.
    pub start_value: i8,
    /// Placements from the start to the end under perfect play.
    pub start_moves_to_end: u8,
    /// Value and moves-to-end after each first move.
    pub first_moves: Vec<FirstMove>,
    /// Most memory the build estimated it held at once, in MiB.
    pub peak_mb: u64,
    /// Seconds spent enumerating the layers.
    pub seconds_forward: f64,
    /// Seconds spent resolving values.
    pub seconds_backward: f64,
}

/// The convention printed with every report.
pub const CONVENTION: &str = "positions reachable from the start; a forced pass is folded into \
the position after it; value = final black minus white discs under perfect play (empty squares \
count for nobody); moves-to-end = placements to the end, quickest for a side that wins or draws, \
longest for a side that loses";

/// Parents sampled to size the next layer.
const SAMPLE: usize = 1 << 16;
/// Parents per parallel task (children are sorted and deduplicated per task first).
const TASK: usize = 1 << 15;
/// Bytes of one temporary child (a padded `(u64, u16)`).
const CHILD_BYTES: u64 = 16;

/// Builds the strong solution of `shape`: every reachable position's value and moves-to-end.
///
/// Results do not depend on the number of threads: children are merged by sorting, flags by
/// bitwise or, values by a deterministic rule.
///
/// # Errors
///
/// [`StrongError::TooLarge`] beyond 32 squares, [`StrongError::Memory`] when the layers outgrow
/// `opts.memory_mb`, [`StrongError::Stopped`] when `progress` asks to stop.
pub fn build(
    shape: Shape,
    opts: &StrongOptions,
    progress: &dyn Progress,
) -> Result<(StrongTable, StrongReport), StrongError> {
    if shape.squares() > MAX_SQUARES {
        return Err(StrongError::TooLarge(shape.name(), shape.squares()));
    }
    let budget = opts.memory_mb.saturating_mul(1 << 20);
    let group = Group::new(shape);
    let remap = remap_tables(&group);
    let t0 = Instant::now();

    // Forward: layers by disc count. Only the newest layer keeps its reachability flags.
    let start = shape.start();
    let ((cp, co), s) = canonical_discs_by(shape, start.player(), start.opponent());
    let side_shift = if start.black_to_move() { 0 } else { 8 };
    let first_discs = start.disc_count();
    let mut keys_layers: Vec<Vec<u64>> = vec![vec![key_of(shape, cp, co)]];
    let mut flags: Vec<u16> = vec![1u16 << (group.inv[s] + side_shift)];
    let mut layer_counts = vec![count_layer(
        shape,
        &group,
        first_discs,
        &keys_layers[0],
        &flags,
    )];
    let mut stored_keys: u64 = 8;
    let mut peak: u64 = 0;
    progress.start("layers", u64::from(shape.squares() - first_discs + 1));
    progress.advance(1);
    loop {
        if progress.should_stop() {
            return Err(StrongError::Stopped);
        }
        let cur = keys_layers.last().expect("one layer at least");
        let discs = first_discs + keys_layers.len() as u32;
        let over = |need: u64| check(shape, discs, need, budget, opts.memory_mb);
        let base = stored_keys + 2 * flags.len() as u64;

        // A strided sample of the parents sizes the next layer and splits its keys into ranges
        // small enough to sort within the budget.
        let stride = (cur.len() / SAMPLE).max(1);
        let sample_keys: Vec<u64> = cur.iter().step_by(stride).copied().collect();
        let sample_flags: Vec<u16> = flags.iter().step_by(stride).copied().collect();
        let mut sample: Vec<u64> = expand(shape, &remap, &sample_keys, &sample_flags, 0, None)
            .into_iter()
            .map(|c| c.0)
            .collect();
        sample.sort_unstable();
        let scale = cur.len() as f64 / sample_keys.len() as f64;
        let raw = sample.len();
        sample.dedup();
        let children_est = (raw as f64 * scale) as u64;
        // Distinct children of the sample, scaled: more than the layer will hold, since the
        // whole layer merges more duplicates than a sample does.
        let layer_est = (sample.len() as f64 * scale) as u64;
        let fixed = base + layer_est * 10;
        over(fixed + CHILD_BYTES)?;
        let per_pass = budget.saturating_sub(fixed).max(1);
        let passes = (children_est * 2 * CHILD_BYTES)
            .div_ceil(per_pass)
            .clamp(1, sample.len().max(1) as u64) as usize;
        let bounds: Vec<u64> = (1..passes)
            .map(|i| sample[i * sample.len() / passes])
            .collect();

        let mut new_keys: Vec<u64> = Vec::new();
        let mut new_flags: Vec<u16> = Vec::new();
        for b in 0..passes {
            if progress.should_stop() {
                return Err(StrongError::Stopped);
            }
            let lo = if b == 0 { 0 } else { bounds[b - 1] };
            let hi = bounds.get(b).copied();
            let runs: Vec<Vec<(u64, u16)>> = cur
                .par_chunks(TASK)
                .zip(flags.par_chunks(TASK))
                .map(|(k, f)| expand(shape, &remap, k, f, lo, hi))
                .collect();
            let len: usize = runs.iter().map(Vec::len).sum();
            let need = base + 10 * new_keys.len() as u64 + 2 * CHILD_BYTES * len as u64;
            peak = peak.max(need);
            over(need)?;
            let mut all: Vec<(u64, u16)> = Vec::with_capacity(len);
            for r in runs {
                all.extend_from_slice(&r);
            }
            all.par_sort_unstable_by_key(|e| e.0);
            let from = new_keys.len();
            for (k, f) in all {
                if new_keys.len() > from && new_keys.last() == Some(&k) {
                    *new_flags.last_mut().expect("same length") |= f;
                } else {
                    new_keys.push(k);
                    new_flags.push(f);
                }
            }
        }
        if new_keys.is_empty() {
            break;
        }
        new_keys.shrink_to_fit();
        new_flags.shrink_to_fit();
        stored_keys += 8 * new_keys.len() as u64;
        peak = peak.max(stored_keys + 2 * (flags.len() + new_flags.len()) as u64);
        over(stored_keys + 2 * new_flags.len() as u64)?;
        layer_counts.push(count_layer(shape, &group, discs, &new_keys, &new_flags));
        flags = new_flags;
        keys_layers.push(new_keys);
        progress.advance(1);
    }
    drop(flags);
    progress.finish();
    let seconds_forward = t0.elapsed().as_secs_f64();
    peak = peak.max(stored_keys + 2 * stored_keys / 8);

    // Backward: values from the last layer to the first.
    let t1 = Instant::now();
    let total: u64 = keys_layers.iter().map(|k| k.len() as u64).sum();
    progress.start("values", total);
    let mask = shape.mask();
    let mut layers: Vec<Layer> = Vec::with_capacity(keys_layers.len());
    let mut next: Option<Layer> = None;
    for (i, keys) in keys_layers.into_iter().enumerate().rev() {
        if progress.should_stop() {
            return Err(StrongError::Stopped);
        }
        let child_layer = next.as_ref();
        let entries: Vec<Entry> = keys
            .par_chunks(TASK)
            .flat_map_iter(|chunk| {
                let out: Vec<Entry> = chunk
                    .iter()
                    .map(|&k| resolve(shape, mask, k, child_layer))
                    .collect();
                progress.advance(chunk.len() as u64);
                out
            })
            .collect();
        let layer = Layer::new(
            first_discs + i as u32,
            keys,
            entries.iter().map(|e| e.value).collect(),
            entries.iter().map(|e| e.moves_to_end).collect(),
        );
        if let Some(n) = next.take() {
            layers.push(n);
        }
        next = Some(layer);
    }
    if let Some(n) = next.take() {
        layers.push(n);
    }
    progress.finish();
    let seconds_backward = t1.elapsed().as_secs_f64();

    let table = StrongTable::from_layers(shape, layers);
    let (start_value, start_moves_to_end) = table.value(&start).expect("the start is stored");
    let first_moves = table
        .move_values(&start)
        .expect("the first moves are stored")
        .into_iter()
        .map(|(sq, value, moves_to_end)| FirstMove {
            square: crate::board::square_name(sq),
            value,
            moves_to_end,
        })
        .collect();
    let report = StrongReport {
        board: shape.name(),
        convention: CONVENTION,
        canonical: layer_counts.iter().map(|l| l.canonical).sum(),
        canonical_with_side: layer_counts.iter().map(|l| l.canonical_with_side).sum(),
        in_play: layer_counts.iter().map(|l| l.in_play).sum(),
        positions: layer_counts.iter().map(|l| l.positions).sum(),
        layers: layer_counts,
        start_value,
        start_moves_to_end,
        first_moves,
        peak_mb: peak.div_ceil(1 << 20),
        seconds_forward,
        seconds_backward,
    };
    Ok((table, report))
}

/// Refuses to go on when `need` bytes exceed the budget.
fn check(
    shape: Shape,
    discs: u32,
    need: u64,
    budget: u64,
    budget_mb: u64,
) -> Result<(), MemoryError> {
    if need > budget {
        return Err(MemoryError::OverBudget {
            what: format!(
                "the strong solution of {} (at the layer of {discs} discs)",
                shape.name()
            ),
            needed_mb: need.div_ceil(1 << 20),
            budget_mb,
        });
    }
    Ok(())
}

/// `remap[s][m]`: the flags of one side after the canonicalising symmetry `s`. A parent image
/// `g` becomes the child image `g ∘ s⁻¹`.
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

/// The children of some parents whose keys fall in `lo..hi` (no upper end if `None`),
/// canonical, sorted, duplicates merged (flags or-ed).
fn expand(
    shape: Shape,
    remap: &[[u8; 256]],
    keys: &[u64],
    flags: &[u16],
    lo: u64,
    hi: Option<u64>,
) -> Vec<(u64, u16)> {
    let mask = shape.mask();
    let mut out: Vec<(u64, u16)> = Vec::with_capacity(keys.len() * 6);
    for (&k, &f) in keys.iter().zip(flags) {
        let (p, o) = discs_of(shape, k);
        let mut reach = Reach {
            shape,
            remap,
            flags: f,
            lo,
            hi,
            out: &mut out,
        };
        crate::layers::expand(Portable, p, o, mask, &mut reach);
    }
    out.sort_unstable_by_key(|e| e.0);
    out.dedup_by(|later, earlier| {
        if later.0 == earlier.0 {
            earlier.1 |= later.1;
            true
        } else {
            false
        }
    });
    out
}

/// Where the children of one parent go in the forward pass: their canonical keys, with the
/// images and sides to move reached, if the key falls in `lo..hi`.
struct Reach<'a> {
    shape: Shape,
    remap: &'a [[u8; 256]],
    /// The parent's reached images: bit `g` of the low byte black to move under symmetry `g`,
    /// of the high byte white to move.
    flags: u16,
    lo: u64,
    hi: Option<u64>,
    out: &'a mut Vec<(u64, u16)>,
}

impl Reach<'_> {
    /// Records the child `(p, o)`, `p` to move.
    fn push(&mut self, p: u64, o: u64, passed: bool) {
        let ((cp, co), s) = canonical_discs_by(self.shape, p, o);
        let t = &self.remap[s];
        let f = self.flags;
        let (black, white) = (t[(f & 0xff) as usize], t[(f >> 8) as usize]);
        // A placement hands the turn over; a folded pass hands it back.
        let cf = if passed {
            u16::from(black) | (u16::from(white) << 8)
        } else {
            u16::from(white) | (u16::from(black) << 8)
        };
        let key = key_of(self.shape, cp, co);
        if key >= self.lo && self.hi.is_none_or(|h| key < h) {
            self.out.push((key, cf));
        }
    }
}

impl Children for Reach<'_> {
    fn goes_on(&mut self, p: u64, o: u64, passed: bool) {
        self.push(p, o, passed);
    }
    /// An ended game is stored with the placer's opponent to move.
    fn over(&mut self, np: u64, no: u64) {
        self.push(np, no, false);
    }
}

/// Counts of one forward layer.
fn count_layer(shape: Shape, group: &Group, discs: u32, keys: &[u64], flags: &[u16]) -> LayerCount {
    let mask = shape.mask();
    let (with_side, in_play, positions, terminal) = keys
        .par_iter()
        .zip(flags.par_iter())
        .map(|(&k, &fl)| {
            let (p, o) = discs_of(shape, k);
            let mut images = 0u64;
            let mut sides = 0u64;
            for half in [fl & 0xff, fl >> 8] {
                if half == 0 {
                    continue;
                }
                sides += 1;
                let mut seen: [(u64, u64); 8] = [(0, 0); 8];
                let mut n = 0;
                for (g, sym) in group.syms.iter().enumerate() {
                    if half & (1 << g) != 0 {
                        let img = (sym.apply(shape, p), sym.apply(shape, o));
                        if !seen[..n].contains(&img) {
                            seen[n] = img;
                            n += 1;
                        }
                    }
                }
                images += n as u64;
            }
            let empty = mask & !(p | o);
            // Passes are folded in, so a position without a move has ended.
            let over = legal_moves(p, o, empty) == 0;
            let in_play = if over { 0 } else { sides };
            (sides, in_play, images, u64::from(over))
        })
        .reduce(
            || (0, 0, 0, 0),
            |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2, a.3 + b.3),
        );
    LayerCount {
        discs,
        canonical: keys.len() as u64,
        canonical_with_side: with_side,
        in_play,
        positions,
        terminal,
    }
}

/// The value and moves-to-end of one canonical key from its children in the next layer.
fn resolve(shape: Shape, mask: u64, key: u64, next: Option<&Layer>) -> Entry {
    let (p, o) = discs_of(shape, key);
    let moves = legal_moves(p, o, mask & !(p | o));
    if moves == 0 {
        // Passes are folded, so no move here means the game is over.
        let v = p.count_ones() as i32 - o.count_ones() as i32;
        return Entry {
            value: v as i8,
            moves_to_end: 0,
        };
    }
    let next = next.expect("a position with a move has children in the next layer");
    let mut best = Best {
        shape,
        next,
        value: i8::MIN,
        quick: u8::MAX,
        slow: 0,
    };
    crate::layers::expand(Portable, p, o, mask, &mut best);
    Entry {
        value: best.value,
        moves_to_end: if best.value >= 0 {
            best.quick
        } else {
            best.slow
        },
    }
}

/// The best value over a position's children found in the next layer, with the quickest and
/// the longest moves-to-end among the moves that reach it.
struct Best<'a> {
    shape: Shape,
    next: &'a Layer,
    value: i8,
    quick: u8,
    slow: u8,
}

impl Best<'_> {
    /// The child `(p, o)`, `p` to move; `passed`: `p` is the mover's side again.
    fn child(&mut self, p: u64, o: u64, passed: bool) {
        let (cp, co) = canonical_discs(self.shape, p, o);
        let e = self
            .next
            .get(key_of(self.shape, cp, co))
            .expect("every child was enumerated in the next layer");
        let v = if passed { e.value } else { -e.value };
        let m = e.moves_to_end + 1;
        if v > self.value {
            self.value = v;
            self.quick = m;
            self.slow = m;
        } else if v == self.value {
            self.quick = self.quick.min(m);
            self.slow = self.slow.max(m);
        }
    }
}

impl Children for Best<'_> {
    fn goes_on(&mut self, p: u64, o: u64, passed: bool) {
        self.child(p, o, passed);
    }
    /// An ended game is stored with the placer's opponent to move.
    fn over(&mut self, np: u64, no: u64) {
        self.child(np, no, false);
    }
}
