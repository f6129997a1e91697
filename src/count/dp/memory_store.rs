//! The one-process count: the driver that expands layer after layer in memory, saves
//! checkpoints, and hands the layers to the disk store when the next one would not fit.

use std::time::{Duration, Instant};

use super::building::{expand_layer, first_need, Tally, BATCH};
use super::checkpoint::DpCheckpoint;
use super::disk;
use super::expand::{expand_chunk, Expansion, Local};
use super::key::{Key, Packer};
use super::layer::half;
use super::layer::Layer;
use super::slot::Slot;
use crate::board::Position;
use crate::count::{Class, CountError, CountOptions, LayerRow, MethodResult, Store};
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
fn fits_in_memory<S: Slot<N>, const N: usize>(layer: &Layer<S>, growth: f64, budget: u64) -> bool {
    let slot = std::mem::size_of::<S>() as f64;
    let next = layer.len() as f64 * growth.clamp(0.5, 4.0) * slot * 8.0 / 7.0 * 1.3;
    let staged = (BATCH.min(layer.len())) as f64 * slot * 12.0;
    next + layer.bytes() as f64 + staged <= budget as f64
}

/// The disk store's directory and budgets for a count of `root`.
fn disk_plan(root: &Position, opts: &CountOptions) -> disk::DiskPlan {
    let dir = crate::count::disk_run_dir(root, opts);
    let disk_budget = opts
        .disk_bytes
        .unwrap_or_else(|| crate::count::default_disk_bytes(&opts.tmp_dir));
    disk::DiskPlan {
        dir,
        disk_budget,
        memory_budget: opts.memory_mb.saturating_mul(1 << 20),
        whole_process: opts.whole_process,
    }
}

/// Expands one layer into the next by [`expand_layer`], tallying ended games into
/// `matrices`.
#[allow(clippy::too_many_arguments)]
fn expand<S: Slot<N>, const N: usize>(
    layer: Layer<S>,
    pk: &Packer,
    growth: f64,
    k: usize,
    matrices: &mut [Vec<u128>],
    peak: &mut usize,
    limits: (u64, usize, bool),
    progress: &dyn Progress,
) -> Result<Layer<S>, CountError> {
    let mut tally = Tally::new(k, pk.shape);
    let stage = |per_half| {
        let x = Expansion::new(pk, per_half, None);
        move |c: &[S], b: bool, l: &mut Local<S>| expand_chunk(c, b, &x, l)
    };
    let next = expand_layer(layer, pk, growth, stage, &mut tally, peak, limits, progress)?;
    tally.add_into(matrices);
    Ok(next)
}
