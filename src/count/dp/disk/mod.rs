//! The disk store: layers too large for memory kept as files, built part by part.
//!
//! **Design: hash-based delayed duplicate detection** (Korf's frontier search on disk, in the
//! variant that needs no temporary runs). The current layer lives on disk as segments (see
//! [`super::segment`]). The next layer is built one *part* at a time: a part is an aligned range
//! of a symmetry-invariant signature of the positions (see [`super::split`]), sized so that its
//! hash tables fit `--memory`. Each part streams the whole current layer from disk, expands every
//! position, keeps only the children whose signature falls in the part, and builds them in the
//! same in-memory tables as the memory store ([`super::Building`]); the finished part is sorted,
//! written as one segment, and freed. When every part is written the old layer's files are
//! deleted. Disk therefore holds only two layers, compactly encoded, and all disk traffic is
//! sequential.
//!
//! The other classic variant, sorting the children of the whole layer in memory-sized runs and
//! merging them, reads the current layer once but writes every child before duplicates are
//! merged: about five children per position at about ten bytes each, 40-80 GB of runs for
//! 4x7's widest layers (estimated from 4x6's figures), more than this project's machine has.
//! The price of the variant chosen here is that each extra part expands the current layer
//! again; the signature is tested right after a move's flips, before the pass check and the
//! canonical key, so a child of another part costs only its flips and two lookups a row.
//!
//! **Resume.** A manifest (`manifest.json`, written atomically after every part) names the
//! current layer's segments, the finished parts of the next layer, the score tallies that
//! include those parts, and the layer sizes met. A run stopped at any moment (Ctrl-C, `kill
//! -9`, a full disk) continues from the last finished part; files the manifest does not name
//! are leftovers of the part that was being built and are deleted. The manifest is sealed with
//! a checksum (as the segments are): a damaged one is refused, never trusted.

mod estimate;
mod manifest;
mod parts;
mod plan;
mod room;

pub(crate) use estimate::predicted_growth;
pub(crate) use manifest::SegmentRec;
pub(crate) use parts::{batch_for, level_for};
pub(crate) use plan::{DiskPlan, MAX_LEVEL};
pub use room::default_disk_bytes;
pub(crate) use room::{free_bytes, room_for, NoRoom};

use estimate::{parity_share, share, GIB};
use manifest::{Manifest, FORMAT, MANIFEST};
use parts::part;
use plan::{fail, io_fail, over_disk, PartError};

use std::fs;
use std::path::Path;
use std::time::Instant;

use super::segment;
use super::split::{SplitRange, Splitter};
use super::{Key, Layer, Packer, Slot};
use crate::board::Position;
use crate::count::{CountError, DiskStats, LayerRow};
use crate::memory::MemoryError;
use crate::progress::Progress;

/// Whether the run directory holds a stopped disk run.
pub(crate) fn has_run(dir: &Path) -> bool {
    dir.join(MANIFEST).exists()
}

/// What the disk run hands back to the layered count.
pub(crate) struct DiskOutcome {
    pub matrices: Vec<Vec<u128>>,
    pub rows: Vec<LayerRow>,
    pub stats: DiskStats,
    /// Layers taken from the manifest of an earlier run.
    pub resumed_layers: u64,
}

/// Starts a disk run from a layer in memory (written out first), with the tallies and layer
/// sizes so far.
#[allow(clippy::too_many_arguments)]
pub(crate) fn start<S: Slot<N>, const N: usize>(
    root: &Position,
    pk: &Packer,
    k: usize,
    mut layer: Layer<S>,
    matrices: &[Vec<u128>],
    rows: &[LayerRow],
    growth: f64,
    plan: &DiskPlan,
    progress: &dyn Progress,
) -> Result<DiskOutcome, CountError> {
    let dir = &plan.dir;
    if has_run(dir) {
        return Err(CountError::StoppedRun(dir.clone()));
    }
    fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
    let entries = layer.len() as u64;
    let file = format!("layer-{:02}-all.seg", layer.discs);
    let info = segment::write(&dir.join(&file), &mut layer, plan.disk_budget)
        .map_err(|e| io_fail(dir, &e))?;
    debug_assert_eq!(info.entries, entries);
    let mut m = Manifest {
        format: FORMAT,
        build: crate::sealed::build(),
        position: root.to_board_string(),
        classes: k,
        counts: N,
        key_bytes: <S::K as Key>::BYTES,
        discs: layer.discs,
        layer: vec![SegmentRec {
            file,
            lo: 0,
            level: 0,
            entries,
            bytes: info.bytes,
            black: Some(info.black),
        }],
        next: Vec::new(),
        level: 0,
        matrices: Vec::new(),
        rows: rows.iter().map(|r| (r.discs, r.positions)).collect(),
        growth,
        stats: DiskStats {
            bytes_written: info.bytes,
            ..DiskStats::default()
        },
    };
    m.set_matrices(matrices);
    m.save(dir)?;
    drive::<S, N>(pk, m, 0, plan, progress)
}

/// Continues the stopped disk run in `plan.dir`.
pub(crate) fn resume<S: Slot<N>, const N: usize>(
    root: &Position,
    pk: &Packer,
    k: usize,
    plan: &DiskPlan,
    progress: &dyn Progress,
) -> Result<DiskOutcome, CountError> {
    let dir = &plan.dir;
    let path = dir.join(MANIFEST);
    // Nothing of the run can be trusted without its manifest: the way on is a fresh run.
    let refused = |what: &dyn std::fmt::Display| CountError::CheckpointRefused {
        path: path.clone(),
        msg: format!(
            "{what}; delete the directory {} and run the count again without --resume",
            dir.display()
        ),
    };
    let m: Manifest = crate::sealed::read_json(&path).map_err(|e| {
        if e.is_damage() {
            refused(&e)
        } else {
            fail(dir, e)
        }
    })?;
    if m.format != FORMAT {
        return Err(refused(&"not a disk store manifest of this version"));
    }
    if m.build != crate::sealed::build() {
        return Err(refused(&format!(
            "written by {}, not by this {}",
            m.build,
            crate::sealed::build()
        )));
    }
    if m.position != root.to_board_string()
        || m.classes != k
        || m.counts != N
        || m.key_bytes != <S::K as Key>::BYTES
    {
        return Err(refused(
            &"holds a run of another count (position or layout differ)",
        ));
    }
    // Files the manifest does not name belong to a part that was not finished.
    let named: Vec<&str> = m.layer.iter().chain(&m.next).map(|s| &s.file[..]).collect();
    for entry in fs::read_dir(dir).map_err(|e| fail(dir, e))? {
        let entry = entry.map_err(|e| fail(dir, e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name != MANIFEST && !named.contains(&&name[..]) {
            fs::remove_file(entry.path()).map_err(|e| fail(dir, e))?;
        }
    }
    let resumed = m.rows.len() as u64;
    drive::<S, N>(pk, m, resumed, plan, progress)
}

/// The finest split a layer may be planned with: each part reads the whole current layer, so
/// a budget that needs more than 1,024 parts is refused as too small.
const MAX_PLANNED_LEVEL: u32 = 10;

/// Expands layer after layer until none is left.
fn drive<S: Slot<N>, const N: usize>(
    pk: &Packer,
    mut m: Manifest,
    resumed_layers: u64,
    plan: &DiskPlan,
    progress: &dyn Progress,
) -> Result<DiskOutcome, CountError> {
    let dir = &plan.dir;
    let splitter = Splitter::new(pk.shape);
    let t0 = Instant::now();
    let seconds_before = m.stats.seconds;
    let slot = std::mem::size_of::<S>() as f64;
    while m.layer_entries() > 0 {
        let entries = m.layer_entries();
        let layer_bytes: u64 = m.layer.iter().map(|s| s.bytes).sum();
        let guess = entries as f64 * predicted_growth(&m.rows, entries, m.growth);
        if m.next.is_empty() {
            // Disk: this layer and the next, at this layer's bytes per position and a margin.
            let next_bytes = guess * layer_bytes as f64 / entries as f64 * 1.2;
            match room_for(dir, m.discs + 1, layer_bytes, next_bytes, plan.disk_budget) {
                Ok(()) => {}
                Err(NoRoom::Budget(msg)) => {
                    return Err(over_disk(
                        dir,
                        format!("{msg} (raise --disk, then run again with --resume)"),
                    ))
                }
                Err(NoRoom::Free(msg)) => {
                    return Err(over_disk(
                        dir,
                        format!("{msg} (free space, then run again with --resume)"),
                    ))
                }
            }
            m.level = level_for(guess, slot, plan);
            if m.level > MAX_PLANNED_LEVEL {
                return Err(CountError::Memory(MemoryError::OverBudget {
                    what: format!(
                        "the disk store on {} (the layer of {} discs in at most {} parts)",
                        pk.shape,
                        m.discs + 1,
                        1u32 << MAX_PLANNED_LEVEL
                    ),
                    needed_mb: (guess * slot * 8.0 / 7.0 / f64::from(1u32 << MAX_PLANNED_LEVEL))
                        as u64
                        >> 20,
                    budget_mb: plan.memory_budget >> 20,
                }));
            }
        }
        let mut matrices = m.matrices(dir)?;
        // The finest split a part of this layer has needed: never coarser than that again.
        let mut floor = 0;
        let layer_t0 = Instant::now();
        let covered_at_start: f64 = m.next.iter().map(|s| s.range().fraction()).sum();
        loop {
            let lo = match m.next.last() {
                None => 0,
                Some(last) => match last.range().end() {
                    Some(lo) => lo,
                    None => break,
                },
            };
            // The parts are equal in expectation: once some are built, they tell the size of
            // the layer better than the growth did. Split finer when it is larger than thought,
            // coarser (where the ranges stay aligned) when it is smaller.
            let done: u64 = m.next.iter().map(|s| s.entries).sum();
            let covered: f64 = m.next.iter().map(|s| s.range().fraction()).sum();
            let estimate = if covered > 0.0 {
                done as f64 / covered
            } else {
                guess
            };
            // The growth guesses the first part's size less well than finished parts do.
            let margin = if covered > 0.0 { 1.0 } else { 1.2 };
            let want = level_for(estimate * margin, slot, plan).max(floor);
            if want > m.level {
                m.level = want;
            }
            while m.level > want && u128::from(lo) % (1u128 << (65 - m.level)) == 0 {
                m.level -= 1;
            }
            let range = SplitRange { lo, level: m.level };
            let parts_left = ((1u128 << 64) - u128::from(lo)) / range.width();
            progress.start(
                &format!(
                    "dp {:>2} discs, part {} of {} (disk {:.1} GiB, memory {:.1} GiB)",
                    m.discs,
                    (u128::from(lo) / range.width()) + 1,
                    (u128::from(lo) / range.width()) + parts_left,
                    m.disk_in_use() as f64 / GIB,
                    m.stats.peak_memory as f64 / GIB
                ),
                entries,
            );
            let guess = estimate;
            // The share of the next layer with black to move: from the parts built, else
            // the other colour's share of this layer (children mostly change colour).
            let black = share(&m.next)
                .or_else(|| share(&m.layer).map(|b| 1.0 - b))
                .unwrap_or_else(|| parity_share(pk, &m));
            match part::<S, N>(pk, &splitter, &m, range, guess, black, plan, progress) {
                Ok((rec, tally, read, mem)) => {
                    progress.finish();
                    tally.add_into(&mut matrices);
                    m.set_matrices(&matrices);
                    m.stats.bytes_written += rec.bytes;
                    m.stats.bytes_read += read;
                    m.stats.peak_memory = m.stats.peak_memory.max(mem as u64);
                    m.next.push(rec);
                    m.stats.peak_disk = m.stats.peak_disk.max(m.disk_in_use());
                    m.stats.seconds = seconds_before + t0.elapsed().as_secs_f64();
                    m.save(dir)?;
                    let covered: f64 = m.next.iter().map(|s| s.range().fraction()).sum();
                    let spent = layer_t0.elapsed().as_secs_f64();
                    if covered < 1.0 {
                        progress.note(&format!(
                        "dp {} discs: {:.1}% built ({} positions so far), {:.0} s for this layer, about {:.0} s left in it; {:.2} GiB on disk, {:.2} GiB of memory at most",
                        m.discs + 1,
                        100.0 * covered,
                        m.next.iter().map(|s| s.entries).sum::<u64>(),
                        spent,
                        spent / (covered - covered_at_start).max(1e-9) * (1.0 - covered),
                        m.disk_in_use() as f64 / GIB,
                        m.stats.peak_memory as f64 / GIB
                    ));
                    }
                }
                Err(PartError::Memory(mem, what)) => {
                    progress.finish();
                    m.stats.peak_memory = m.stats.peak_memory.max(mem as u64);
                    if m.level >= MAX_LEVEL {
                        return Err(CountError::Memory(MemoryError::OverBudget {
                            what: format!(
                                "a part of the layer of {} discs on the disk store",
                                m.discs + 1
                            ),
                            needed_mb: (mem as u64).div_ceil(1 << 20),
                            budget_mb: plan.memory_budget >> 20,
                        }));
                    }
                    // Finer parts; the ones written stay valid (ranges are aligned).
                    m.level += 1;
                    floor = m.level;
                    progress.note(&format!(
                        "dp {} discs: a part outgrew --memory ({what}); splitting the rest into 2^{} parts",
                        m.discs + 1,
                        m.level
                    ));
                }
                Err(PartError::Count(e)) => {
                    progress.finish();
                    return Err(e);
                }
            }
        }
        // The next layer is complete: it becomes the current one.
        let next_entries: u64 = m.next.iter().map(|s| s.entries).sum();
        m.rows.push((m.discs, entries));
        m.growth = next_entries as f64 / entries as f64;
        let old = std::mem::take(&mut m.layer);
        m.layer = std::mem::take(&mut m.next);
        m.discs += 1;
        m.stats.seconds = seconds_before + t0.elapsed().as_secs_f64();
        m.save(dir)?;
        for s in old {
            fs::remove_file(dir.join(&s.file)).map_err(|e| fail(dir, e))?;
        }
        progress.note(&format!(
            "dp {} discs: {} positions ({:.2} GiB on disk), {:.0} s so far",
            m.discs,
            next_entries,
            m.disk_in_use() as f64 / GIB,
            m.stats.seconds
        ));
    }
    let matrices = m.matrices(dir)?;
    let rows = m
        .rows
        .iter()
        .map(|&(discs, positions)| LayerRow { discs, positions })
        .collect();
    let stats = m.stats.clone();
    fs::remove_dir_all(dir).map_err(|e| fail(dir, e))?;
    Ok(DiskOutcome {
        matrices,
        rows,
        stats,
        resumed_layers,
    })
}
