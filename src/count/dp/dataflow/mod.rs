//! The layered count as a [timely-dataflow](https://github.com/TimelyDataflow/timely-dataflow)
//! computation, over worker threads and processes connected by TCP.
//!
//! Every worker (a thread of some process) owns the positions whose canonical key hashes to it
//! (the high bits of the key's hash, as the partitions of the one-process count). One round per
//! layer, at the timestamp of the layer's disc count: each worker expands its part of the layer
//! with the one-process code, stages the children by owner, and sends them in batches through
//! timely's exchange; each worker merges what it receives into its part of the next layer,
//! summing the counts of paths. Timely's progress tracking tells every worker when a round is
//! over. Beside the children, each worker sends every other worker a small record per round
//! (its part's size, an error if it has one, whether it wants to save), so all of them know the
//! size of each layer and stop together. Ended games are tallied by the worker that found them;
//! the tallies are exchanged once at the end, so every process knows the whole result and
//! process 0 writes the files. The sums do not depend on the number of workers or processes.
//!
//! A round starts with a handshake at time 0: the workers compare a fingerprint of the board
//! and options (refusing processes started differently) and the layers each has saved. With a
//! checkpoint directory, every worker saves its part of a layer when any worker asked for it at
//! the end of the last round (see `checkpoint.rs`); `--resume` on every process continues from the
//! last layer every worker saved.
//!
//! **Layers on disk.** With `--store disk`, or with `--store auto` from the first layer whose
//! expansion would not fit a worker's share of the memory budget (a choice every worker makes
//! alike from the layer sizes), each worker keeps its part of the layers as segments on its own
//! disk and builds the next layer one signature range at a time, in two rounds per range (see
//! `disk/`).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::layout::{by_layout, ByLayout};
use super::Slot;
use crate::board::Position;
use crate::count::{Class, CountError, CountOptions, MethodResult};
use crate::progress::Progress;

pub(crate) mod checkpoint;
mod disk;
mod job;
mod launch;
mod meter;
mod part;
mod rounds;
mod wire;

use checkpoint::local_workers;
use job::{Fail, Job, WorkerOut};
use launch::{lost_peer_message, quiet_timely_panics};
pub use launch::{read_hostfile, Dataflow};
use meter::{current_discs, Meter, Watch};
mod worker;

/// The dataflow count, for [`by_layout`].
struct DataflowCount<'a> {
    root: &'a Position,
    classes: &'a [Class],
    opts: &'a CountOptions,
    df: &'a Dataflow,
    progress: &'a dyn Progress,
}

impl ByLayout for DataflowCount<'_> {
    fn run<S: Slot<N>, const N: usize>(&self) -> Result<MethodResult, CountError> {
        run_typed::<S, N>(self.root, self.classes, self.opts, self.df, self.progress)
    }
}

/// Runs the layered count as a dataflow, with the entry layout of the one-process count.
pub(crate) fn run(
    root: &Position,
    classes: &[Class],
    opts: &CountOptions,
    df: &Dataflow,
    progress: &dyn Progress,
) -> Result<MethodResult, CountError> {
    let job = DataflowCount {
        root,
        classes,
        opts,
        df,
        progress,
    };
    by_layout(root, classes.len(), &job)
}

/// The error of a dataflow run.
fn dataflow_error(msg: String) -> CountError {
    CountError::Dataflow(msg)
}

fn run_typed<S: Slot<N>, const N: usize>(
    root: &Position,
    classes: &[Class],
    opts: &CountOptions,
    df: &Dataflow,
    progress: &dyn Progress,
) -> Result<MethodResult, CountError> {
    let peers = df.peers();
    let on_disk = opts.store == crate::count::Store::Disk;
    let id_text = format!(
        "dataflow 1 {} {} {:?} {} {} {peers} {}{}",
        root.to_board_string(),
        opts.symmetry,
        classes
            .iter()
            .map(|c| c.pos.to_board_string())
            .collect::<Vec<_>>(),
        N,
        std::mem::size_of::<S>(),
        df.workers,
        if on_disk { " disk" } else { "" }
    );
    let run_id = crate::fnv::fnv1a(crate::fnv::OFFSET, id_text.as_bytes());
    let dir = opts
        .checkpoint
        .as_ref()
        .map(|p| p.with_file_name("count-dataflow.checkpoint"));
    // The disk store's directory: used from the start with --store disk, from the layer that
    // would not fit --memory with --store auto.
    let disk_dir = (opts.store != crate::count::Store::Memory)
        .then(|| disk::run_dir(&opts.tmp_dir, &root.shape().name(), run_id));
    // A worker's state that exists but cannot be used stops the resume here, naming it,
    // rather than passing for no state at all.
    if let Some(d) = disk_dir.as_ref().filter(|_| opts.resume) {
        if let Some((path, why)) = disk::check_saved(d, run_id, local_workers(df), peers) {
            return Err(CountError::CheckpointRefused {
                path,
                msg: format!(
                    "{why}; delete the run's directory {} on every process and run the count \
                     again without --resume",
                    d.display()
                ),
            });
        }
    }
    let on_disk_saved = disk_dir
        .as_ref()
        .is_some_and(|d| disk::has_saved(d, run_id, local_workers(df), peers));
    let in_memory_saved = dir
        .as_ref()
        .is_some_and(|d| checkpoint::saved_layers(d, run_id, df, peers) != 0);
    let saved_dir = if on_disk_saved {
        disk_dir.clone()
    } else {
        dir.clone()
    };
    if opts.resume && !on_disk_saved && !in_memory_saved {
        return Err(CountError::Dataflow(format!(
            "--resume: process {} has no saved layer or part of this run in {}",
            df.process,
            saved_dir.map_or_else(|| "-".into(), |d| d.display().to_string())
        )));
    }
    if !opts.resume && (on_disk_saved || in_memory_saved) {
        return Err(CountError::StoppedRun(saved_dir.unwrap_or_default()));
    }
    let w = df.workers;
    let job = Arc::new(Job {
        root: *root,
        classes: classes.iter().map(|c| c.pos).collect(),
        symmetry: opts.symmetry,
        run_id,
        handshake: run_id ^ u64::from(opts.resume),
        worker_budget: opts.memory_mb.saturating_mul(1 << 20) / w as u64,
        checkpoint: dir.clone(),
        disk: disk_dir.clone(),
        disk_from_start: on_disk,
        disk_budget: opts
            .disk_bytes
            .unwrap_or_else(|| crate::count::default_disk_bytes(&opts.tmp_dir))
            / w as u64,
        uneven: std::env::var("REVERSI_TEST_PLAN_SHARE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(disk::UNEVEN),
        resume: opts.resume,
        save_every: Duration::from_secs(opts.checkpoint_secs),
        stop_after: opts.stop_after,
        meter: Meter::new(w),
    });
    let config = timely::Config {
        communication: if df.hosts.is_empty() {
            timely::CommunicationConfig::Process(w)
        } else {
            timely::CommunicationConfig::Cluster {
                threads: w,
                process: df.process,
                addresses: df.hosts.clone(),
                report: false,
                zerocopy: false,
            }
        },
        worker: timely::WorkerConfig::default(),
    };
    quiet_timely_panics();
    let (tx, rx) = std::sync::mpsc::channel();
    let job2 = Arc::clone(&job);
    std::thread::Builder::new()
        .name("dataflow".into())
        .spawn(move || {
            let _ = tx.send(execute::<S, N>(config, job2, w));
        })
        .map_err(|e| dataflow_error(format!("cannot start the dataflow ({e})")))?;

    let squares = root.shape().squares();
    let mut watch = Watch::default();
    let results = loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(r) => break r,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(dataflow_error(
                    "the dataflow thread ended without a result".into(),
                ))
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        if progress.should_stop() {
            let layers = job.meter.layers_done.load(Ordering::Relaxed);
            return Err(CountError::Interrupted {
                done: layers,
                total: layers + u64::from(squares.saturating_sub(current_discs(&job.meter))),
                unit: "layers",
                saved: match disk_dir.as_ref().or(dir.as_ref()) {
                    Some(d) => format!(
                        "what was saved so far is in {}: continue with --resume on every process",
                        d.display()
                    ),
                    None => "nothing saved".into(),
                },
            });
        }
        watch.show(&job.meter, progress, peers, disk_dir.as_deref());
    };
    watch.finish(progress);
    let outs = results.map_err(|e| {
        dataflow_error(match df.hosts.get(df.process) {
            Some(addr) => format!("cannot start process {} at {addr}: {e}", df.process),
            None => format!("cannot start the dataflow: {e}"),
        })
    })?;
    let mut first: Option<WorkerOut> = None;
    let mut peak = 0;
    let mut disk_stats: Option<crate::count::DiskStats> = None;
    let mut fail: Option<Fail> = None;
    for r in outs {
        match r {
            Some(Ok(o)) => {
                peak += o.peak;
                if let Some(d) = &o.disk {
                    let s = disk_stats.get_or_insert_with(Default::default);
                    s.bytes_written += d.bytes_written;
                    s.bytes_read += d.bytes_read;
                    s.peak_disk += d.peak_disk;
                    s.peak_memory += d.peak_memory;
                    s.seconds = s.seconds.max(d.seconds);
                }
                first.get_or_insert(o);
            }
            Some(Err(f)) => {
                if fail.is_none() || matches!(f, Fail::Input(_)) {
                    fail = Some(f);
                }
            }
            None => {
                let msg = lost_peer_message().unwrap_or_else(|| "a worker panicked".into());
                fail = Some(Fail::Other(format!(
                    "{msg}; a process was lost or failed: start every process again with \
                     --resume"
                )));
            }
        }
    }
    if let Some(f) = fail {
        return Err(match f {
            Fail::Input(m) => CountError::DataflowInput(m),
            Fail::Overflow => {
                // The run starts again with wider entries, as another run: this one's files go.
                if let Some(d) = &disk_dir {
                    for me in local_workers(df) {
                        let _ = std::fs::remove_dir_all(disk::worker_dir(d, me, peers));
                    }
                    let _ = std::fs::remove_dir(d);
                }
                CountError::Overflow("the path counts of a layer")
            }
            Fail::Memory(needed_mb, budget_mb) => {
                CountError::Memory(crate::memory::MemoryError::OverBudget {
                    what: format!(
                        "counting by layers as a dataflow of {peers} workers (per worker)"
                    ),
                    needed_mb,
                    budget_mb,
                })
            }
            Fail::Stopped => {
                let layers = job.meter.layers_done.load(Ordering::Relaxed);
                CountError::Interrupted {
                    done: layers,
                    total: layers + u64::from(squares.saturating_sub(current_discs(&job.meter))),
                    unit: "layers",
                    saved: match disk_dir.as_ref().or(dir.as_ref()) {
                        Some(d) => format!("what was saved so far is in {}", d.display()),
                        None => "nothing saved".into(),
                    },
                }
            }
            Fail::DiskBudget(dir, msg) => CountError::DiskBudget { dir, msg },
            Fail::Other(m) => CountError::Dataflow(m),
        });
    }
    let out = first.ok_or_else(|| dataflow_error("no worker returned a result".into()))?;
    if let Some(d) = &dir {
        checkpoint::remove_mine(d, run_id, df, peers);
    }
    if let Some(d) = &disk_dir {
        let _ = std::fs::remove_dir(d);
    }
    Ok(MethodResult {
        exchanged: Some(out.exchanged),
        matrices: out.matrices,
        layers: Some(out.rows),
        peak_layer_mb: Some(peak as f64 / f64::from(1 << 20)),
        disk: disk_stats,
        resumed_units: out.resumed,
    })
}

/// Runs the workers of this process to the end and returns what each returned (`None` for one
/// that panicked, as timely's workers do when a peer process is lost). On success timely's
/// threads are joined, which lets their last messages reach the other processes; after a
/// failure they are left behind (joining them would panic again), and the process exits soon.
fn execute<S: Slot<N>, const N: usize>(
    config: timely::Config,
    job: Arc<Job>,
    w: usize,
) -> Result<Vec<Option<Result<WorkerOut, Fail>>>, String> {
    type Slots = Vec<Option<Result<WorkerOut, Fail>>>;
    let store: Arc<std::sync::Mutex<Slots>> =
        Arc::new(std::sync::Mutex::new((0..w).map(|_| None).collect()));
    let store2 = Arc::clone(&store);
    let guards = timely::execute(config, move |worker| {
        let r = worker::worker_main::<S, N>(worker, &job);
        if let Ok(mut s) = store2.lock() {
            s[worker.index() % w] = Some(r);
        }
    })?;
    while !guards
        .guards()
        .iter()
        .all(std::thread::JoinHandle::is_finished)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let results = std::mem::take(&mut *store.lock().map_err(|_| "a worker panicked")?);
    if results.iter().all(Option::is_some) {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(guards)));
    } else {
        std::mem::forget(guards);
    }
    Ok(results)
}
