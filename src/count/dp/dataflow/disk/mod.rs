//! The dataflow count with each worker's layers on its own disk (`--store disk`).
//!
//! Each worker keeps its part of the current layer as segments in a directory of its own (see
//! [`crate::count::dp::segment`]), and builds its part of the next layer one signature range at
//! a time, as the one-process disk store does (see [`crate::count::dp::disk`]): the range is the
//! same for every worker, so that each builds the children of the range it owns in memory,
//! from what every worker sends it. A range takes two rounds:
//!
//! - the **part round**: every worker streams its segments from disk, expands them keeping the
//!   children in the range, and sends them to their owners; each owner builds its tables, then
//!   sorts them and writes one segment;
//! - the **control round**: every worker tells every other the size of the part it wrote, and
//!   whether its tables outgrew the memory budget. If any did, every worker drops the part and
//!   the range is built again in two halves; otherwise the part is taken.
//!
//! All choices (the ranges, when a layer is done, its size) come from figures every worker has,
//! so the workers never disagree. The split level is chosen as the one-process store chooses it,
//! for a worker's share of the next layer with a margin for an uneven share.
//!
//! **Resume.** After each part a worker saves its state (`state.json`: its segments, the parts
//! of the next layer it has, its tallies, and the layer sizes) with the state before it. Workers
//! take parts in lockstep, so at any moment their states are at most one part apart: `--resume`
//! starts every worker from the newest step all of them saved, the ones a step ahead going back
//! one. A file stays until no saved state names it.

mod state;
mod stream;

pub(super) use state::{check_saved, has_saved, run_dir, saved_step, worker_dir};

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;

use state::{at, parse, read_saved, save, State};
use stream::{expand_from_disk, Bar};

use super::job::{Fail, Job};
use super::part::Part;
use super::rounds::Rounds;
use crate::count::dp::disk::{
    batch_for, level_for, predicted_growth, room_for, DiskPlan, NoRoom, SegmentRec, MAX_LEVEL,
};
use crate::count::dp::expand::Local;
use crate::count::dp::segment;
use crate::count::dp::split::{SplitRange, Splitter};
use crate::count::dp::{Expansion, Layer, Packer, Slot};
use crate::count::{DiskStats, ExchangeRow, LayerRow};

/// The share of a worker's memory budget its tables may take: the rest is for the batch being
/// expanded, the children staged for sending and timely's buffers.
const TABLES_SHARE: f64 = 0.85;

/// A worker's share of a layer is `1 / peers` of it in expectation; tables are planned for this
/// much more.
pub(super) const UNEVEN: f64 = 1.05;

/// Where a worker starts on the disk store: its part of a layer, with what was counted before
/// it (all empty from the first layer).
pub(super) struct Start<S: Copy, const N: usize> {
    pub(super) layer: Layer<S>,
    /// This worker's score tallies so far.
    pub(super) tally: Vec<u128>,
    /// Layers expanded, `(discs, positions)`, and the bytes sent per layer, as in [`State`].
    pub(super) rows: Vec<(u32, u64)>,
    pub(super) exchanged: Vec<(u32, u64, u64)>,
    /// The layer whose bytes sent are not yet counted (they come with the first round here).
    pub(super) pending: Option<u32>,
    /// Layers taken from a checkpoint before.
    pub(super) resumed: u64,
}

/// What the worker's disk rounds return.
pub(super) struct DiskOut {
    pub(super) tally: Vec<u128>,
    pub(super) rows: Vec<LayerRow>,
    pub(super) exchanged: Vec<ExchangeRow>,
    pub(super) peak: usize,
    pub(super) resumed: u64,
    pub(super) stats: DiskStats,
    /// The worker's directory, to delete once the result is out.
    pub(super) dir: PathBuf,
    /// The first round not used.
    pub(super) next_round: u64,
}

/// One worker on its disk, from round `t` on: from `start` or, resuming, from the step
/// `common - 1` every worker saved.
pub(super) fn run<S: Slot<N>, const N: usize>(
    rounds: &mut Rounds<'_, S, N>,
    job: &Job,
    pk: &Packer,
    base: &Path,
    start: Option<Start<S, N>>,
    common: u64,
    mut t: u64,
) -> Result<DiskOut, Fail> {
    let me = rounds.me();
    let peers = rounds.peers();
    let dir = worker_dir(base, me, peers);
    let slot = std::mem::size_of::<S>();
    // The part's tables may take `cap` bytes and its staged entries an eighth of it (a
    // quarter at most, in vectors up to twice their length); the split level is planned for
    // the rest, and a part that outgrows `cap` anyway is built again in halves. (5x5 with
    // 2 GiB: planning for a quarter, a 0.8 share and 1.15 times the even share built 1.3x as
    // many parts and took 1.1x the time, with no part rebuilt either way.)
    let cap = (job.worker_budget as f64 * TABLES_SHARE) as usize;
    let stage = (cap / 8 / slot).clamp(1 << 12, super::wire::STAGE);
    let plan = DiskPlan {
        dir: dir.clone(),
        disk_budget: job.disk_budget,
        memory_budget: (cap - cap / 8) as u64,
        whole_process: false,
    };
    let resumed;
    let mut state = match start {
        Some(Start {
            mut layer,
            tally,
            rows,
            mut exchanged,
            pending,
            resumed: before,
        }) => {
            resumed = before;
            fs::create_dir_all(&dir).map_err(|e| at(&dir, e))?;
            let file = format!("d{:02}-first.seg", layer.discs);
            let info = segment::write(&dir.join(&file), &mut layer, job.disk_budget)
                .map_err(|e| at(&dir, e))?;
            let stats = rounds.all_lens(t, info.entries)?;
            t += 1;
            if let Some(discs) = pending {
                let sum = |i: usize| stats.iter().map(|s| s.sent[i]).sum();
                exchanged.push((discs, sum(0), sum(1)));
            }
            let growth = match rows[..] {
                [.., (_, a), (_, b)] if a > 0 => b as f64 / a as f64,
                _ => 4.0,
            };
            let state = State {
                run_id: job.run_id,
                step: 0,
                discs: layer.discs,
                layer_total: stats.iter().map(|s| s.len).sum(),
                layer: vec![SegmentRec {
                    file,
                    lo: 0,
                    level: 0,
                    entries: info.entries,
                    bytes: info.bytes,
                    black: Some(info.black),
                }],
                next: Vec::new(),
                next_total: 0,
                level: 0,
                floor: 0,
                tally: tally.iter().map(u128::to_string).collect(),
                rows,
                exchanged,
                growth,
                written: info.bytes,
                read: 0,
                peak_disk: info.bytes,
                seconds: 0.0,
            };
            save(&dir, &state, None)?;
            state
        }
        None => {
            let saved = read_saved(&dir, job.run_id).ok_or_else(|| at(&dir, "no saved state"))?;
            let state = if saved.now.step + 1 == common {
                saved.now
            } else {
                match saved.before {
                    Some(b) if b.step + 1 == common => b,
                    _ => {
                        return Err(Fail::Other(format!(
                            "{}: its saved state is not the one the other workers saved \
                             (delete every worker's directory and start again)",
                            dir.display()
                        )))
                    }
                }
            };
            resumed = state.rows.len() as u64;
            save(&dir, &state, None)?;
            state
        }
    };
    let t0 = std::time::Instant::now();
    let seconds_before = state.seconds;
    let splitter = Splitter::new(pk.shape);
    let mut l = Local::<S> {
        staged: (0..2 * peers).map(|_| Vec::new()).collect(),
        tally: vec![0u128; state.tally.len()],
        ok: true,
    };
    let mut peak = 0usize;
    let mut steps_here = 0u64;
    let mut sent = [0u64; 2];
    while state.layer_total > 0 {
        // The split level: from the finished parts once there are some, else from the growth.
        let covered = state.covered();
        let estimate = if covered > 0.0 {
            state.next_total as f64 / covered
        } else {
            state.layer_total as f64
                * predicted_growth(&state.rows, state.layer_total, state.growth)
                * 1.2
        };
        let want =
            level_for(estimate / peers as f64 * job.uneven, slot as f64, &plan).max(state.floor);
        let lo = state.next.last().map_or(Some(0), |s| s.range().end());
        let lo = lo.expect("a layer with every part built is taken at once");
        if want > state.level || state.next.is_empty() {
            state.level = want;
        }
        while state.level > want && u128::from(lo) % (1u128 << (65 - state.level)) == 0 {
            state.level -= 1;
        }
        let range = SplitRange {
            lo,
            level: state.level,
        };
        let mut early = job
            .stop_after
            .is_some_and(|n| steps_here >= n)
            .then_some(Fail::Stopped);
        if state.next.is_empty() && early.is_none() {
            early = over_disk(&state, &dir, estimate, peers, job.disk_budget);
        }
        let stop = early.is_some();
        // The part round.
        let mine: u64 = state.layer.iter().map(|s| s.entries).sum();
        let black: u64 = state.layer.iter().filter_map(|s| s.black).sum();
        rounds.prepare(
            (estimate / peers as f64 * UNEVEN * range.fraction()) as usize,
            1.0 - black as f64 / mine.max(1) as f64,
            cap,
            stage,
        );
        rounds.begin(t);
        let stat = rounds.stat(early);
        rounds.tell_all(&stat);
        // The progress bar counts the layer's positions once over all its parts.
        let bar = Bar {
            local: me % job.meter.discs.len(),
            before: covered * mine as f64,
            share: range.fraction(),
        };
        job.meter.discs[bar.local].store(state.discs, Relaxed);
        job.meter.len[bar.local].store(mine, Relaxed);
        let mut fail = None;
        if !stop {
            let x = Expansion::new(pk, peers, Some((&splitter, range)));
            let batch = batch_for(&plan, slot as f64);
            match expand_from_disk(
                rounds, &state, &dir, &x, &mut l, batch, job, &bar, &mut peak,
            ) {
                Ok(read) => state.read += read,
                Err(f) => fail = Some(f),
            }
        }
        let stats = rounds.finish(t)?;
        if let Some(f) = stats.iter().find_map(|s| s.fail.clone()) {
            return Err(f);
        }
        let (part, over) = rounds.take_part(t);
        t += 1;
        // This worker's part: sorted and written, unless its tables outgrew the budget.
        let mut rec = None;
        if fail.is_none() && !over {
            let part = part.unwrap_or_else(|| Part::new(me, peers, 0, 0.5));
            peak = peak.max(part.bytes());
            if !part.ok || !l.ok {
                fail = Some(Fail::Overflow);
            } else {
                let mut layer = part.into_layer(state.discs + 1);
                let file = format!("d{:02}-{:016x}-{}.seg", state.discs + 1, lo, range.level);
                let room = job.disk_budget.saturating_sub(state.disk_in_use());
                match segment::write(&dir.join(&file), &mut layer, room) {
                    Ok(info) => {
                        rec = Some(SegmentRec {
                            file,
                            lo,
                            level: range.level,
                            entries: info.entries,
                            bytes: info.bytes,
                            black: Some(info.black),
                        })
                    }
                    Err(e) => fail = Some(disk_full(&dir, &e)),
                }
            }
        }
        // The control round.
        rounds.begin(t);
        let mut stat = rounds.stat(fail);
        stat.len = rec.as_ref().map_or(0, |r| r.entries);
        stat.over = over;
        rounds.tell_all(&stat);
        let stats = rounds.finish(t)?;
        t += 1;
        for s in &stats {
            sent[0] += s.sent[0];
            sent[1] += s.sent[1];
        }
        if let Some(f) = stats.iter().find_map(|s| s.fail.clone()) {
            return Err(f);
        }
        if stats.iter().any(|s| s.over) {
            if me.is_multiple_of(job.meter.discs.len()) {
                job.meter.retries.fetch_add(1, Relaxed);
            }
            // Every worker drops the part; the range is built again, finer.
            if let Some(r) = rec {
                let _ = fs::remove_file(dir.join(&r.file));
            }
            l.tally.fill(0);
            if state.level >= MAX_LEVEL {
                return Err(Fail::Memory(
                    (job.worker_budget >> 20) + 1,
                    job.worker_budget >> 20,
                ));
            }
            state.level += 1;
            state.floor = state.level;
            continue;
        }
        // Every worker takes the part.
        let before = state.clone();
        let rec = rec.expect("a part without failure is written");
        state.written += rec.bytes;
        state.next.push(rec);
        state.next_total += stats.iter().map(|s| s.len).sum::<u64>();
        let mut tally = parse(&state.tally).map_err(|e| at(&dir, e))?;
        for (a, b) in tally.iter_mut().zip(&l.tally) {
            *a += b;
        }
        l.tally.fill(0);
        state.tally = tally.iter().map(u128::to_string).collect();
        state.peak_disk = state.peak_disk.max(state.disk_in_use());
        state.step += 1;
        steps_here += 1;
        if state.next.last().and_then(|s| s.range().end()).is_none() {
            // The next layer is complete: it becomes the current one.
            state.rows.push((state.discs, state.layer_total));
            state.exchanged.push((state.discs, sent[0], sent[1]));
            sent = [0; 2];
            state.growth = state.next_total as f64 / state.layer_total as f64;
            state.layer = std::mem::take(&mut state.next);
            state.layer_total = std::mem::take(&mut state.next_total);
            state.discs += 1;
            state.level = 0;
            state.floor = 0;
            job.meter.layers_done.fetch_add(1, Relaxed);
        }
        state.seconds = seconds_before + t0.elapsed().as_secs_f64();
        save(&dir, &state, Some(&before))?;
    }
    Ok(DiskOut {
        tally: parse(&state.tally).map_err(|e| at(&dir, e))?,
        rows: state
            .rows
            .iter()
            .map(|&(discs, positions)| LayerRow { discs, positions })
            .collect(),
        exchanged: state
            .exchanged
            .iter()
            .map(|&(discs, a, b)| ExchangeRow {
                discs,
                within_processes: a,
                between_processes: b,
            })
            .collect(),
        peak,
        resumed,
        stats: DiskStats {
            bytes_written: state.written,
            bytes_read: state.read,
            peak_disk: state.peak_disk,
            peak_memory: peak as u64,
            seconds: state.seconds,
        },
        dir,
        next_round: t,
    })
}

/// Before a layer: whether this worker's share of it (of `estimate` positions over `peers`
/// workers, at the current layer's bytes per position and a fifth more) fits its disk budget
/// and the free space beside the current layer.
fn over_disk(state: &State, dir: &Path, estimate: f64, peers: usize, budget: u64) -> Option<Fail> {
    let entries: u64 = state.layer.iter().map(|s| s.entries).sum();
    let bytes: u64 = state.layer.iter().map(|s| s.bytes).sum();
    let next = estimate / peers as f64 * bytes as f64 / entries.max(1) as f64 * 1.2;
    let (NoRoom::Budget(msg) | NoRoom::Free(msg)) =
        room_for(dir, state.discs + 1, bytes, next, budget).err()?;
    Some(Fail::DiskBudget(
        dir.to_path_buf(),
        format!("{msg}; raise --disk or free space, then start every process again with --resume"),
    ))
}

/// A write that found the disk full or the budget spent.
fn disk_full(dir: &Path, e: &std::io::Error) -> Fail {
    if e.kind() == std::io::ErrorKind::StorageFull {
        Fail::DiskBudget(
            dir.to_path_buf(),
            format!(
                "{e}; raise --disk or free space, then start every process again with --resume"
            ),
        )
    } else {
        at(dir, e)
    }
}
