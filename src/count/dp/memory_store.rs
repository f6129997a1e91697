//! The one-process count: the driver that expands layer after layer in memory, saves
//! checkpoints, and hands the layers to the disk store when the next one would not fit.

use std::time::{Duration, Instant};

use super::building::{Building, Tally, BATCH, CHUNK};
use super::checkpoint::DpCheckpoint;
use super::disk;
use super::expand::Expansion;
use super::key::{Key, Packer};
use super::layer::half;
use super::layer::Layer;
use super::slot::Slot;
use crate::board::{legal_moves, Position};
use crate::count::{Class, CountError, CountOptions, LayerRow, MethodResult, Store};
use crate::memory::{HugeBuf, MemoryError};
use crate::progress::Progress;

pub(crate) fn run_typed<S: Slot<N>, const N: usize>(
    root: &Position,
    classes: &[Class],
    opts: &CountOptions,
    progress: &dyn Progress,
) -> Result<MethodResult, CountError> {
    let shape = root.shape();
    let pk = Packer::new(shape, true);
    let stride = shape.squares() as usize + 1;
    let ss = stride * stride;
    let k = classes.len();
    let budget = opts.memory_mb.saturating_mul(1 << 20);
    let plan = disk_plan(root, opts);
    let to_result = |out: disk::DiskOutcome, peak: usize, resumed: u64| MethodResult {
        exchanged: None,
        matrices: out.matrices,
        layers: Some(out.rows),
        peak_layer_mb: Some(peak.max(out.stats.peak_memory as usize) as f64 / f64::from(1 << 20)),
        disk: Some(out.stats),
        resumed_units: resumed + out.resumed_layers,
    };
    if opts.store != Store::Memory && opts.resume && disk::has_run(&plan.dir) {
        let out = disk::resume::<S, N>(root, &pk, k, &plan, progress)?;
        return Ok(to_result(out, 0, 0));
    }

    let mut matrices = vec![vec![0u128; ss]; k];
    let mut rows: Vec<LayerRow> = Vec::new();
    let discs = classes[0].pos.disc_count();
    let roots = classes.iter().enumerate().map(|(i, c)| {
        debug_assert_eq!(c.pos.disc_count(), discs);
        let mut counts = [0u64; N];
        counts[i] = 1;
        let key = S::K::canonical(&pk, c.pos.player(), c.pos.opponent());
        (
            half(c.pos.black_to_move()),
            S::pack(key, counts).expect("counts of one"),
        )
    });
    let mut layer = Layer::from_entries(discs, 1, roots.collect()).expect("counts of one");

    let cp = DpCheckpoint::new(opts.checkpoint.clone(), root, opts.symmetry, k, N);
    let mut resumed_units = 0;
    if opts.resume {
        if let Some(state) = cp.load::<S, N>(shape.squares(), budget, progress)? {
            layer = state.layer;
            matrices = state.matrices;
            rows = state.rows;
            resumed_units = rows.len() as u64;
        }
    }

    let mut peak = layer.bytes();
    let mut growth = 4.0;
    let mut done_here = 0u64;
    let mut last_save = Instant::now();
    let mut saved_once = false;
    // Saving costs time and disk: save after `checkpoint_secs` of work at the earliest, and
    // spend at most a twentieth of the run on it. (A stop asked for by Ctrl-C or SIGTERM
    // always saves.)
    let mut save_every = Duration::from_secs(opts.checkpoint_secs);
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
        let first = first_need(&layer, &pk, growth);
        if opts.store == Store::Disk
            || (opts.store == Store::Auto
                && opts.memory_mb >= AUTO_DISK_MIN_MB
                && (!fits_in_memory(&layer, growth, budget) || first as u64 > budget))
        {
            // From here on the layers live on disk; the memory checkpoint is superseded.
            cp.remove();
            let out = disk::start(
                root, &pk, k, layer, &matrices, &rows, growth, &plan, progress,
            )?;
            return Ok(to_result(out, peak, resumed_units));
        }
        rows.push(LayerRow {
            discs: layer.discs,
            positions: layer.len() as u64,
        });
        progress.start(&format!("dp {:>2} discs", layer.discs), layer.len() as u64);
        let before = layer.len();
        layer = match expand(
            layer,
            &pk,
            growth,
            k,
            &mut matrices,
            &mut peak,
            (budget, first, opts.whole_process),
            progress,
        ) {
            // Stopped mid-layer: the layer is half freed, so the last checkpoint saved (by this
            // run or the one it resumed) is what can be resumed.
            Err(CountError::Interrupted { .. }) => {
                progress.finish();
                let saved = if cp.enabled() && (saved_once || resumed_units > 0) {
                    "the last checkpoint (saved at a layer's end, see --checkpoint-secs) stays: \
                     run the same command with --resume to continue"
                        .to_string()
                } else {
                    "nothing saved yet (a layer is saved after --checkpoint-secs of work)"
                        .to_string()
                };
                return Err(CountError::Interrupted {
                    done: rows.len() as u64 - 1,
                    total: total_layers,
                    unit: "layers",
                    saved,
                });
            }
            r => r?,
        };
        progress.finish();
        growth = layer.len() as f64 / before as f64;
        done_here += 1;
        if cp.enabled() && layer.len() > 0 && last_save.elapsed() >= save_every {
            let t = Instant::now();
            cp.save(&layer, &matrices, &rows)?;
            saved_once = true;
            save_every = save_every.max(20 * t.elapsed());
            last_save = Instant::now();
        }
    }
    cp.remove();
    Ok(MethodResult {
        exchanged: None,
        matrices,
        layers: Some(rows),
        peak_layer_mb: Some(peak as f64 / f64::from(1 << 20)),
        disk: None,
        resumed_units,
    })
}

/// The smallest `--memory` with which `auto` moves to the disk store: under it, a board too
/// large for memory is refused at once, as by the memory store, rather than counted in
/// thousands of parts (`--store disk` takes any budget).
pub const AUTO_DISK_MIN_MB: u64 = 64;

/// Whether the memory store is sure to expand `layer` within `budget`, so that `auto` keeps
/// it in memory: the whole current layer (its batches are freed as they are expanded, but
/// early on most of it is still held), the next layer's tables at their load when they grow,
/// guessed from the last growth with a third to spare, and a batch's staged children (about
/// six per position, in buffers up to twice their length). An expansion that went over the
/// budget half-way would have freed part of the layer it needs, so this errs on the side of
/// the disk store. (On 4x7 a guess without the whole current layer went over by a twentieth.)
fn fits_in_memory<S: Slot<N>, const N: usize>(
    layer: &Layer<S, N>,
    growth: f64,
    budget: u64,
) -> bool {
    let slot = std::mem::size_of::<S>() as f64;
    let next = layer.len() as f64 * growth.clamp(0.5, 4.0) * slot * 8.0 / 7.0 * 1.3;
    let staged = (BATCH.min(layer.len())) as f64 * slot * 12.0;
    next + layer.bytes() as f64 + staged <= budget as f64
}

/// The disk store's directory and budgets for a count of `root`.
fn disk_plan(root: &Position, opts: &CountOptions) -> disk::DiskPlan {
    let dir = crate::count::disk_run_dir(root, opts);
    let disk_budget = opts.disk_bytes.unwrap_or_else(|| {
        disk::free_bytes(&opts.tmp_dir)
            .unwrap_or(0)
            .saturating_sub(1 << 30)
    });
    disk::DiskPlan {
        dir,
        disk_budget,
        memory_budget: opts.memory_mb.saturating_mul(1 << 20),
        whole_process: opts.whole_process,
    }
}

/// Entries of the first batch of a layer at most (more when its first partition is larger):
/// small, so that the children per position it measures budget the later batches.
const FIRST_BATCH: usize = 1 << 16;

/// The batch of whole partitions from partition `i` holding at most `cap` entries (at least
/// one partition): the partition after it and its entries.
fn batch_from<S: Slot<N>, const N: usize>(
    layer: &Layer<S, N>,
    i: usize,
    cap: usize,
) -> (usize, usize) {
    let (mut j, mut n) = (i, 0);
    while j < layer.parts.len() && (n == 0 || n + layer.parts[j].len() <= cap) {
        n += layer.parts[j].len();
        j += 1;
    }
    (j, n)
}

/// The first batch of a layer (see [`FIRST_BATCH`]).
fn first_batch<S: Slot<N>, const N: usize>(layer: &Layer<S, N>) -> (usize, usize) {
    batch_from(layer, 0, FIRST_BATCH)
}

/// The memory the expansion of `layer` needs before its first batch is merged: the layer, the
/// next layer's first tables, and the first batch's staged children (their number from the
/// moves of a sample of its entries) with the growth of the tables they may cause.
fn first_need<S: Slot<N>, const N: usize>(layer: &Layer<S, N>, pk: &Packer, growth: f64) -> usize {
    let slot = std::mem::size_of::<S>();
    let (guess, black) = next_layer_guess(layer, growth);
    let (j, n) = first_batch(layer);
    let mask = pk.shape.mask();
    let (mut sampled, mut moves) = (0usize, 0usize);
    for part in &layer.parts[..j] {
        let step = part.len().div_ceil(256).max(1);
        for e in part.iter().step_by(step) {
            let (p, o) = e.key().decode(pk);
            moves += (legal_moves(p, o, mask & !(p | o)).count_ones() as usize).max(1);
            sampled += 1;
        }
    }
    let per_position = moves as f64 / sampled.max(1) as f64;
    let children = (n as f64 * per_position * 1.2) as usize;
    let tables = Building::<S, N>::bytes_for(guess, black).max(children * slot * 12 / 7);
    layer.bytes() + tables + children * slot * 2
}

/// The next layer's expected positions (from the last growth, aimed a little low: a table
/// that fills grows by half, and a guess too high would cost memory at the peak; layers grow
/// by up to about four times early on) and share with black to move (children mostly have
/// the other colour to move).
fn next_layer_guess<S: Slot<N>, const N: usize>(layer: &Layer<S, N>, growth: f64) -> (usize, f64) {
    let guess = (layer.len() as f64 * (0.75 * growth).clamp(0.5, 4.0)) as usize;
    let black_here = layer.half_len(0) as f64 / layer.len().max(1) as f64;
    (guess, 1.0 - black_here)
}

/// Expands one layer into the next, freeing it as it goes, and tallies ended games into
/// `matrices`. Every large allocation is checked against `budget` before it is made; `first`
/// is what the tables' first size and the first batch need ([`first_need`], which the caller
/// also chose the store by).
#[allow(clippy::too_many_arguments)]
fn expand<S: Slot<N>, const N: usize>(
    mut layer: Layer<S, N>,
    pk: &Packer,
    growth: f64,
    k: usize,
    matrices: &mut [Vec<u128>],
    peak: &mut usize,
    (budget, first, whole_process): (u64, usize, bool),
    progress: &dyn Progress,
) -> Result<Layer<S, N>, CountError> {
    let shape = pk.shape;
    let (guess, black_next) = next_layer_guess(&layer, growth);
    let over = |needed: usize| {
        CountError::Memory(MemoryError::OverBudget {
            what: format!(
                "counting by layers on {shape} (the layer of {} discs and growing)",
                layer.discs + 1
            ),
            needed_mb: (needed as u64).div_ceil(1 << 20),
            budget_mb: budget >> 20,
        })
    };
    // Every allocation is budgeted before it is made: the tables' first size and the first
    // batch here, the staging and the tables' growth before each later batch.
    if first as u64 > budget {
        *peak = (*peak).max(first);
        return Err(over(first));
    }
    let mut next = Building::new(guess, black_next);
    let x = Expansion::new(pk, next.per_half, None);
    let mut tally = Tally::new(k, shape);
    let mut ok = true;
    let slot = std::mem::size_of::<S>();
    // Children staged per position, and the share of them that were new positions, as the
    // last batch found them (the first batch, small, is budgeted by `first_need`).
    let mut per_position = 0.0f64;
    let mut novel = 1.0f64;
    let mut i = 0;
    while i < layer.parts.len() {
        // A batch of whole partitions of the current layer, its staging within a quarter of
        // the budget.
        let (j, n) = if i == 0 {
            first_batch(&layer)
        } else {
            let by_budget = budget as f64 / 4.0 / (per_position * slot as f64 * 2.0);
            batch_from(&layer, i, (by_budget as usize).clamp(1, BATCH))
        };
        if i > 0 {
            let children = (n as f64 * per_position * 1.2) as usize;
            let staging = next.staged_capacity_bytes().max(children * slot * 2);
            let projected =
                layer.bytes() + next.bytes_after((children as f64 * novel) as usize) + staging;
            if projected as u64 > budget {
                *peak = (*peak).max(projected);
                return Err(over(projected));
            }
        }
        let len_before = next.len();
        let tasks: Vec<(&[S], bool)> = (i..j)
            .flat_map(|p| {
                let btm = p < layer.per_half;
                layer.parts[p].chunks(CHUNK).map(move |c| (c, btm))
            })
            .collect();
        let staged_bytes = next.expand_batch(&tasks, &x, &mut tally, &mut ok);
        let now = layer.bytes() + next.bytes() + staged_bytes;
        *peak = (*peak).max(now);
        // The process's resident memory too, for what the count does not track.
        let now = now.max(crate::memory::resident_over_fixed(whole_process) as usize);
        if now as u64 > budget {
            return Err(over(now));
        }
        for p in &mut layer.parts[i..j] {
            *p = HugeBuf::new(0, S::FREE);
        }
        if n > 0 {
            per_position = (next.last_staged as f64 / n as f64).max(0.5);
            novel = ((next.len() - len_before) as f64 / next.last_staged.max(1) as f64)
                .clamp(0.05, 1.0);
        }
        progress.advance(n as u64);
        i = j;
        if progress.should_stop() && i < layer.parts.len() {
            return Err(CountError::Interrupted {
                done: 0,
                total: 0,
                unit: "layers",
                saved: String::new(),
            });
        }
    }
    if !ok {
        return Err(CountError::Overflow("the path counts of a layer"));
    }
    tally.add_into(matrices);
    Ok(next.into_layer(layer.discs + 1))
}
