//! Retrograde analysis: enumerate the reachable layers forward, resolve values backward.

use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::error::StrongError;
use super::forward::{forward, Forward, LayerCount};
use super::{discs_of, key_of, Entry, Group, Layer, StrongTable, MAX_SQUARES};
use crate::board::{canonical_discs, legal_moves, Shape};
use crate::cpu::Portable;
use crate::layers::Children;
use crate::progress::Progress;

/// How to build a strong solution.
#[derive(Debug, Clone, Copy)]
pub struct StrongOptions {
    /// Memory budget in MiB for the layers and the children staged; the build stops with
    /// [`MemoryError::OverBudget`](crate::memory::MemoryError::OverBudget) as soon as it would
    /// need more.
    pub memory_mb: u64,
}

impl Default for StrongOptions {
    fn default() -> Self {
        StrongOptions { memory_mb: 4096 }
    }
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

/// Positions per parallel task of the backward pass.
const TASK: usize = 1 << 15;

/// Builds the strong solution of `shape`: every reachable position's value and moves-to-end.
///
/// The layers are enumerated forward in the layer tables of dp's count (see
/// `strong/forward.rs`), then resolved backward. Results do not depend on the number of
/// threads: reached images are merged by bitwise or, keys sorted, values chosen by a
/// deterministic rule.
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
    let t0 = Instant::now();
    let start = shape.start();
    let first_discs = start.disc_count();
    let Forward {
        keys: keys_layers,
        counts: layer_counts,
        peak,
    } = forward(shape, &group, budget, opts.memory_mb, progress)?;
    let seconds_forward = t0.elapsed().as_secs_f64();
    let stored_keys: u64 = keys_layers.iter().map(|k| 8 * k.len() as u64).sum();
    let peak = peak.max(stored_keys + 2 * stored_keys / 8);

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
