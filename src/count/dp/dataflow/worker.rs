//! One worker of the dataflow count: its part of each layer, the rounds, the exchange.

use std::sync::atomic::Ordering;
use std::time::Instant;

use timely::worker::Worker;

use super::checkpoint;
use super::job::{Fail, Job, WorkerOut};
use super::part::Part;
use super::rounds::{flush, share_tallies, Rounds};
use super::wire::{Stat, FLUSH};
use crate::count::dp::building::CHUNK;
use crate::count::dp::disk::predicted_growth;
use crate::count::dp::expand::{expand_chunk, Local};
use crate::count::dp::layer::{half, partition};
use crate::count::dp::{Expansion, Key, Layer, Packer, Slot};
use crate::count::{ExchangeRow, LayerRow};
use crate::memory::HugeBuf;

/// Runs one worker to the end; every worker returns the same result.
pub(crate) fn worker_main<S: Slot<N>, const N: usize>(
    worker: &mut Worker,
    job: &Job,
) -> Result<WorkerOut, Fail> {
    let me = worker.index();
    let peers = worker.peers();
    let local = me % job.meter.discs.len();
    let shape = job.root.shape();
    let pk = Packer::new(shape, job.symmetry);
    let k = job.classes.len();
    let stride = shape.squares() as usize + 1;
    let ss = stride * stride;

    let mut rounds = Rounds::new(worker, job);

    // Handshake: the same run everywhere, and what every worker saved: in memory, the layers
    // (a mask of disc counts); on the disk store, the step of its newest state, plus one.
    let dir = job.checkpoint.as_deref();
    let mut hello = rounds.stat(None);
    hello.saved = dir.map_or(0, |d| checkpoint::saved_mask(d, job.run_id, me, peers));
    hello.disk_saved = job
        .disk
        .as_ref()
        .map_or(0, |b| super::disk::saved_step(b, job.run_id, me, peers));
    rounds.begin(0);
    rounds.tell_all(&hello);
    let stats = rounds.finish(0)?;
    if let Some(other) = stats.iter().find(|s| s.handshake != job.handshake) {
        let workers = job.meter.discs.len();
        return Err(Fail::Input(format!(
            "process {} was started with another board, options, --workers, number of \
             processes or --resume than process {}: start every process with the same command",
            other.from as usize / workers,
            me / workers
        )));
    }
    let nothing_saved = || {
        Fail::Input(
            "--resume: no layer was saved by every worker (start afresh without --resume \
             after deleting the checkpoint directories)"
                .into(),
        )
    };
    let cells = k * ss;
    if let Some(base) = &job.disk {
        let common = stats.iter().map(|s| s.disk_saved).min().unwrap_or(0);
        if job.disk_from_start || (job.resume && common > 0) {
            if job.resume && common == 0 {
                return Err(nothing_saved());
            }
            let start = (!job.resume).then(|| super::disk::Start {
                layer: first_part::<S, N>(job, &pk, me, peers),
                tally: vec![0; cells],
                rows: Vec::new(),
                exchanged: Vec::new(),
                pending: None,
                resumed: 0,
            });
            return on_disk(&mut rounds, job, &pk, base, start, common, 1, ss);
        }
        if job.resume {
            // A switch to the disk store that not every worker finished: the memory
            // checkpoints hold the run.
            let _ = std::fs::remove_dir_all(super::disk::worker_dir(base, me, peers));
        }
    }
    let common = stats.iter().fold(u64::MAX, |m, s| m & s.saved);

    let mut tally = vec![0u128; cells];
    let mut rows: Vec<LayerRow> = Vec::new();
    let mut layer: Layer<S>;
    let mut resumed = 0;
    if job.resume {
        if common == 0 {
            return Err(nothing_saved());
        }
        let discs = 63 - common.leading_zeros();
        let dir = dir.expect("resume has a directory");
        let state = checkpoint::load::<S, N>(dir, job.run_id, me, peers, discs, cells)
            .map_err(Fail::Other)?;
        layer = state.layer;
        tally = state.tally;
        rows = state.rows;
        resumed = rows.len() as u64;
    } else {
        layer = first_part::<S, N>(job, &pk, me, peers);
    }

    let mut save_now = false;
    let mut last_save = Instant::now();
    let mut peak = 0usize;
    let mut growth = 4.0f64;
    let mut fail: Option<Fail> = None;
    let mut rounds_here = 0u64;
    let mut exchanged = Vec::new();
    let mut l = Local::<S> {
        staged: (0..2 * peers).map(|_| Vec::new()).collect(),
        tally: vec![0u128; k * ss],
        ok: true,
    };
    loop {
        let discs = layer.discs;
        let t = u64::from(discs);
        let my_len = layer.len();
        job.meter.len[local].store(my_len as u64, Ordering::Relaxed);
        job.meter.done[local].store(0, Ordering::Relaxed);
        job.meter.discs[local].store(discs, Ordering::Relaxed);
        if save_now && fail.is_none() {
            if let Some(d) = dir {
                for (a, b) in tally.iter_mut().zip(&l.tally) {
                    *a += b;
                }
                l.tally.fill(0);
                if let Err(e) = checkpoint::save(d, job.run_id, me, peers, &layer, &tally, &rows) {
                    fail = Some(Fail::Other(e));
                }
                last_save = Instant::now();
            }
        }
        if fail.is_none() && job.stop_after.is_some_and(|n| rounds_here >= n) {
            fail = Some(Fail::Stopped);
        }
        let mut stat = rounds.stat(fail.clone());
        stat.len = my_len as u64;
        stat.save = dir.is_some() && last_save.elapsed() >= job.save_every;
        rounds.begin(t);
        rounds.tell_all(&stat);
        if fail.is_none() {
            let guess = (my_len as f64 * (0.75 * growth).clamp(0.5, 4.0)) as usize;
            // Children mostly have the other colour to move.
            let black_here = layer.half_len(0) as f64 / my_len.max(1) as f64;
            rounds.prepare(guess, 1.0 - black_here, usize::MAX, super::wire::STAGE);
            if let Err(f) = expand_part(&mut rounds, &mut layer, &pk, &mut l, job, local, &mut peak)
            {
                fail = Some(f);
            }
        }
        let stats = rounds.finish(t)?;
        if let Some(f) = stats.iter().find_map(|s| s.fail.clone()) {
            return Err(f);
        }
        if rounds_here > 0 {
            exchanged.push(exchange_row(discs - 1, &stats));
        }
        let total: u64 = stats.iter().map(|s| s.len).sum();
        if total == 0 {
            break;
        }
        rows.push(LayerRow {
            discs,
            positions: total,
        });
        rounds_here += 1;
        job.meter.layers_done.fetch_add(1, Ordering::Relaxed);
        save_now = stats.iter().any(|s| s.save);
        let next = rounds
            .take_part(t)
            .0
            .unwrap_or_else(|| Part::new(me, peers, 0, 0.5));
        if !next.ok || !l.ok {
            fail = Some(Fail::Overflow);
        }
        let before = my_len.max(1);
        layer = next.into_layer(discs + 1);
        growth = layer.len() as f64 / before as f64;
        if let Some(base) = &job.disk {
            if fail.is_none() && needs_disk::<S>(&rows, peers, job.worker_budget) {
                // --store auto: the layers from here on are kept on disk.
                job.meter.to_disk.store(discs + 1, Ordering::Relaxed);
                for (a, b) in tally.iter_mut().zip(&l.tally) {
                    *a += b;
                }
                let start = super::disk::Start {
                    layer,
                    tally,
                    rows: rows.iter().map(|r| (r.discs, r.positions)).collect(),
                    exchanged: exchanged
                        .iter()
                        .map(|e| (e.discs, e.within_processes, e.between_processes))
                        .collect(),
                    pending: Some(discs),
                    resumed,
                };
                return on_disk(&mut rounds, job, &pk, base, Some(start), 0, t + 1, ss);
            }
        }
    }

    for (a, b) in tally.iter_mut().zip(&l.tally) {
        *a += b;
    }
    let matrices = share_tallies(&mut rounds, u64::from(layer.discs) + 1, &tally, ss)?;
    Ok(WorkerOut {
        matrices,
        rows,
        exchanged,
        peak,
        resumed,
        disk: None,
    })
}

/// The rest of the run on the disk store, from `start` or from the saved step `common - 1`,
/// from round `t` on; then the tallies are shared and the worker's directory removed.
#[allow(clippy::too_many_arguments)]
fn on_disk<S: Slot<N>, const N: usize>(
    rounds: &mut Rounds<'_, S, N>,
    job: &Job,
    pk: &Packer,
    base: &std::path::Path,
    start: Option<super::disk::Start<S, N>>,
    common: u64,
    t: u64,
    ss: usize,
) -> Result<WorkerOut, Fail> {
    let out = super::disk::run(rounds, job, pk, base, start, common, t)?;
    let matrices = share_tallies(rounds, out.next_round, &out.tally, ss)?;
    let _ = std::fs::remove_dir_all(&out.dir);
    Ok(WorkerOut {
        matrices,
        rows: out.rows,
        exchanged: out.exchanged,
        peak: out.peak,
        resumed: out.resumed,
        disk: Some(out.stats),
    })
}

/// Whether the layer after the last of `rows` and the one after it, at the growth seen so far,
/// would take a worker more than its memory budget `budget` (in bytes) with entries `S`: then
/// `--store auto` keeps them on disk. Every worker decides alike, from the layer sizes.
fn needs_disk<S>(rows: &[LayerRow], peers: usize, budget: u64) -> bool {
    let r: Vec<(u32, u64)> = rows.iter().map(|r| (r.discs, r.positions)).collect();
    let Some((&(_, last), before)) = r.split_last() else {
        return false;
    };
    let g1 = predicted_growth(before, last, 4.0);
    let n1 = last as f64 * g1;
    let g2 = predicted_growth(&r, n1 as u64, g1);
    let n2 = n1 * g2;
    let bytes =
        (n1 + n2) / peers as f64 * super::disk::UNEVEN * std::mem::size_of::<S>() as f64 * 8.0
            / 7.0;
    bytes > 0.7 * budget as f64
}

/// This worker's part of a layer from the classes of the first move.
fn first_part<S: Slot<N>, const N: usize>(
    job: &Job,
    pk: &Packer,
    me: usize,
    peers: usize,
) -> Layer<S> {
    let discs = job.classes[0].disc_count();
    let mut part = Part::<S, N>::new(me, peers, 1, 0.5);
    for (i, c) in job.classes.iter().enumerate() {
        let mut counts = [0u64; N];
        counts[i] = 1;
        let key = S::K::canonical(pk, c.player(), c.opponent());
        if partition(key.hash(), peers) == me {
            part.insert(half(c.black_to_move()), S::pack(key, counts).expect("ones"));
        }
    }
    part.into_layer(discs)
}

/// The traffic of the round that expanded the layer of `discs` discs, from the records of the
/// round after it.
fn exchange_row(discs: u32, stats: &[Stat]) -> ExchangeRow {
    ExchangeRow {
        discs,
        within_processes: stats.iter().map(|s| s.sent[0]).sum(),
        between_processes: stats.iter().map(|s| s.sent[1]).sum(),
    }
}

/// Expands the worker's part of the layer, freeing it as it goes, and sends the children to
/// their owners in batches, taking in the others' batches between two.
fn expand_part<S: Slot<N>, const N: usize>(
    rounds: &mut Rounds<'_, S, N>,
    layer: &mut Layer<S>,
    pk: &Packer,
    l: &mut Local<S>,
    job: &Job,
    local: usize,
    peak: &mut usize,
) -> Result<(), Fail> {
    let peers = rounds.peers();
    let x = Expansion::new(pk, peers, None);
    let mut staged = 0usize;
    let mut done = 0u64;
    for p in 0..layer.parts.len() {
        let btm = p < layer.per_half;
        let part = std::mem::replace(&mut layer.parts[p], HugeBuf::new(0, S::FREE));
        for chunk in part.chunks(CHUNK) {
            l.ok &= expand_chunk(chunk, btm, &x, l);
            staged = l.staged.iter().map(Vec::len).sum();
            done += chunk.len() as u64;
            if staged >= FLUSH {
                flush(rounds, l);
                job.meter.done[local].store(done, Ordering::Relaxed);
            }
        }
        drop(part);
        let next_bytes = rounds.part_bytes();
        let now = layer.bytes() + next_bytes + staged * std::mem::size_of::<S>();
        *peak = (*peak).max(now);
        if *peak as u64 > job.worker_budget {
            return Err(Fail::Memory(
                (*peak as u64).div_ceil(1 << 20),
                job.worker_budget >> 20,
            ));
        }
    }
    flush(rounds, l);
    job.meter.done[local].store(done, Ordering::Relaxed);
    Ok(())
}
