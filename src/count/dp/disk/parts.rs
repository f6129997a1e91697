//! One part of the next layer: how many parts a layer needs for the memory budget, and
//! building one of them from the current layer on disk.

use std::path::PathBuf;

use rayon::prelude::*;

use super::super::building::{BATCH, CHUNK};
use super::super::expand::expand_chunk;
use super::super::segment::{self, DecodeError, SegmentReader};
use super::super::split::{SplitRange, Splitter};
use super::super::{Building, Expansion, Key, Packer, Slot, Tally};
use super::estimate::human;
use super::manifest::{Manifest, SegmentRec};
use super::plan::{fail, io_fail, DiskPlan, PartError, MAX_LEVEL};
use crate::count::CountError;
use crate::progress::Progress;

/// Tables of a part are sized for this many times the positions expected in it, so that a
/// guess a little low costs no table growth (a table that grows holds its old and new slots
/// at once).
const PRESIZE: f64 = 1.1;

/// The share of the memory budget left for what the count does not track: the C allocator's
/// overhead, the thread stacks, the segment being encoded. 4x7 measured 5.3% of resident
/// memory beyond the tracked peak (0.87 GiB over 16.3 GiB); 5x5, 2-6%.
const UNTRACKED: f64 = 0.06;

/// The split level whose parts' tables, for a next layer of about `positions`, fit the memory
/// budget beside the buffers (tables presized and at their load when they grow, and a
/// twentieth to spare).
pub(crate) fn level_for(positions: f64, slot: f64, plan: &DiskPlan) -> u32 {
    let tables = positions * PRESIZE * slot * 8.0 / 7.0 * 1.05;
    (0..MAX_LEVEL)
        .find(|&level| {
            tables * 0.5f64.powi(level as i32) + overhead(plan, slot, level)
                <= plan.memory_budget as f64 * (1.0 - UNTRACKED)
        })
        .unwrap_or(MAX_LEVEL)
}

/// Entries of the current layer decoded and expanded at a time, for a memory budget: smaller
/// than [`BATCH`] only under budgets of a few GiB.
pub(crate) fn batch_for(plan: &DiskPlan, slot: f64) -> usize {
    ((plan.memory_budget as f64 / slot / 128.0) as usize).clamp(1 << 10, BATCH)
}

/// Memory besides the tables at split `level`: a decoded batch and its blocks (the next
/// batch's too), and the staged children kept, about six per position, in buffers up to twice
/// their length.
fn overhead(plan: &DiskPlan, slot: f64, level: u32) -> f64 {
    batch_for(plan, slot) as f64 * slot * (2.0 + 12.0 * 0.5f64.powi(level as i32))
}

/// Builds one part of the next layer and writes it. Returns its record, the tallies of the
/// games that ended in it, the bytes read and the peak memory.
#[allow(clippy::type_complexity)]
#[allow(clippy::too_many_arguments)]
pub(super) fn part<S: Slot<N>, const N: usize>(
    pk: &Packer,
    splitter: &Splitter,
    m: &Manifest,
    range: SplitRange,
    guess: f64,
    black: f64,
    plan: &DiskPlan,
    progress: &dyn Progress,
) -> Result<(SegmentRec, Tally, u64, usize), PartError> {
    let dir = &plan.dir;
    let slot = std::mem::size_of::<S>();
    let batch = batch_for(plan, slot as f64);
    let mut next = Building::<S>::new((guess * range.fraction() * PRESIZE) as usize, black);
    let x = Expansion::new(pk, next.per_half, Some((splitter, range)));
    let mut tally = Tally::new(m.classes, pk.shape);
    let mut ok = true;
    let mut peak = 0usize;
    // A reader thread brings the next batch of blocks from disk while this one is expanded.
    std::thread::scope(|scope| -> Result<(), PartError> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Batch, CountError>>(1);
        scope.spawn(move || {
            for rec in &m.layer {
                let path = dir.join(&rec.file);
                let opened =
                    SegmentReader::open(&path, N, <S::K as Key>::BYTES, m.discs, rec.info());
                let mut r = match opened {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = tx.send(Err(fail(&path, e)));
                        return;
                    }
                };
                loop {
                    match r.blocks(batch) {
                        Ok(blocks) if blocks.is_empty() => break,
                        Ok(blocks) => {
                            let b = Batch {
                                blocks,
                                path: path.clone(),
                            };
                            if tx.send(Ok(b)).is_err() {
                                return; // the part stopped early
                            }
                        }
                        Err(e) => {
                            let _ = tx.send(Err(fail(&path, e)));
                            return;
                        }
                    }
                }
            }
        });
        for got in rx {
            if progress.should_stop() {
                return Err(CountError::Interrupted {
                    done: m.rows.len() as u64,
                    total: u64::from(pk.shape.squares()) + 1 - u64::from(m.discs)
                        + m.rows.len() as u64,
                    unit: "layers",
                    saved: format!(
                        "the finished layers and parts are in {}; run the same command with --resume to continue",
                        dir.display()
                    ),
                }
                .into());
            }
            let Batch { blocks, path } = got?;
            let decoded: Vec<(Vec<S>, bool)> = blocks
                .par_iter()
                .map(|b| b.decode::<S, N>().map(|v| (v, b.black_to_move())))
                .collect::<Result<_, _>>()
                .map_err(|e| match e {
                    DecodeError::Overflow => CountError::Overflow("a path count on disk"),
                    DecodeError::Damaged(what) => fail(&path, what),
                })?;
            // This batch's blocks, and the next one's being read.
            let blocks_bytes: usize = 2 * blocks.iter().map(segment::Block::bytes).sum::<usize>();
            drop(blocks);
            let tasks: Vec<(&[S], bool)> = decoded
                .iter()
                .flat_map(|(v, btm)| v.chunks(CHUNK).map(move |c| (c, *btm)))
                .collect();
            let n: usize = decoded.iter().map(|(v, _)| v.len()).sum();
            let staged = next.expand_batch(
                &tasks,
                &|c, b, l| expand_chunk(c, b, &x, l),
                &mut tally,
                &mut ok,
            );
            let held = next.bytes() + staged + n * slot + blocks_bytes;
            peak = peak.max(held);
            // What the process holds in all, beside what the count knows it holds: the C
            // allocator's own overhead grows with the layer (about 5% of it on 4x7), so the
            // bound is checked against both.
            let resident = crate::memory::resident_over_fixed(plan.whole_process) as usize;
            let now = held.max(resident);
            if now as u64 > plan.memory_budget {
                let what = format!(
                    "tables {} for {} positions, staging {}, batch {}, resident {}",
                    human(next.bytes() as f64),
                    next.len(),
                    human(staged as f64),
                    human((n * slot + blocks_bytes) as f64),
                    human(resident as f64)
                );
                return Err(PartError::Memory(now, what));
            }
            progress.advance(n as u64);
        }
        Ok(())
    })?;
    if !ok {
        return Err(CountError::Overflow("the path counts of a layer").into());
    }
    let read: u64 = m.layer.iter().map(|s| s.bytes).sum();
    let entries = next.len() as u64;
    let mut layer = next.into_layer(m.discs + 1);
    let file = format!(
        "layer-{:02}-{:016x}-{}.seg",
        m.discs + 1,
        range.lo,
        range.level
    );
    let room = plan.disk_budget.saturating_sub(m.disk_in_use());
    let info = segment::write(&dir.join(&file), &mut layer, room).map_err(|e| io_fail(dir, &e))?;
    debug_assert_eq!(info.entries, entries);
    Ok((
        SegmentRec {
            file,
            lo: range.lo,
            level: range.level,
            entries,
            bytes: info.bytes,
            black: Some(info.black),
        },
        tally,
        read,
        peak,
    ))
}

/// Blocks read from one segment, handed from the reader thread to the expansion.
struct Batch {
    blocks: Vec<segment::Block>,
    path: PathBuf,
}
