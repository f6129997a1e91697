//! Depth-first enumeration of every game, in parallel over the subtrees of a merged frontier.
//!
//! The first plies are expanded breadth-first into a *frontier* of positions merged up to
//! symmetry (same colour to move), each with the number of paths from every first-move class
//! into it. The frontier's subtrees then run on rayon's work-stealing pool (`walk.rs`); each
//! finished subtree's tally, times the paths into it, is added to the sums at once
//! (`checkpoint.rs`), so a frontier of millions of positions costs no more than its own list.
//!
//! A larger frontier (`CountOptions::frontier`) merges more transpositions before the walk, so
//! the walk enumerates fewer games: every game below a frontier position is walked once however
//! many paths lead to it. The frontier is built by a plain `HashMap` on one thread, which is
//! what bounds it (measured: about 400 bytes per position).

pub(crate) mod checkpoint;
mod frontier;
pub(crate) mod walk;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use super::{Class, CountError, CountOptions, MethodResult};
use crate::board::Position;
use crate::progress::Progress;
use checkpoint::DfsCheckpoint;
use frontier::frontier;
pub(crate) use walk::subtree;

pub use super::options::FRONTIER_TARGET;

/// Runs the enumeration for each class.
pub(crate) fn run(
    root: &Position,
    classes: &[Class],
    opts: &CountOptions,
    progress: &dyn Progress,
) -> Result<MethodResult, CountError> {
    let shape = root.shape();
    let stride = shape.squares() as usize + 1;
    let k = classes.len();
    let mut matrices = vec![vec![0u128; stride * stride]; k];
    let asked = || progress.should_stop();
    let Some(tasks) = frontier(
        classes,
        opts.symmetry,
        opts.frontier,
        &mut matrices,
        stride,
        &asked,
    ) else {
        // Nothing is saved before the frontier exists: it is rebuilt on resume.
        return Err(CountError::Interrupted {
            done: 0,
            total: 0,
            unit: "subtrees",
            saved: "nothing saved yet (the frontier was being built)".to_string(),
        });
    };
    progress.note(&format!("dfs: a frontier of {} positions", tasks.len()));

    let mut cp = match &opts.checkpoint {
        Some(path) => DfsCheckpoint::open(path, root, &tasks, k, opts.resume)?,
        None => DfsCheckpoint::none(root, &tasks, k),
    };
    let resumed_units = cp.done_count() as u64;
    let todo: Vec<usize> = (0..tasks.len()).filter(|&i| !cp.is_done(i)).collect();
    let total = tasks.len() as u64;
    progress.start("dfs", total);
    progress.advance(resumed_units);
    let finished = AtomicU64::new(0);
    let stopped = std::sync::atomic::AtomicBool::new(false);
    let shared = Mutex::new(&mut cp);
    // Asked before each subtree and inside the walk: a stop ends the subtrees under way, which
    // are walked again on resume.
    let stop = || {
        let limit_hit = opts
            .stop_after
            .is_some_and(|n| finished.load(Ordering::Relaxed) >= n);
        if stopped.load(Ordering::Relaxed) || limit_hit || progress.should_stop() {
            stopped.store(true, Ordering::Relaxed);
            return true;
        }
        false
    };
    todo.par_iter().for_each(|&i| {
        if stop() {
            return;
        }
        let Some(tally) = subtree(&tasks[i].pos, stride, &stop) else {
            return;
        };
        finished.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut guard) = shared.lock() {
            guard.record(i, &tally, &tasks[i].weights);
        }
        progress.advance(1);
    });
    progress.finish();
    let cp = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    if stopped.load(Ordering::Relaxed) {
        let saved = cp.save()?;
        return Err(CountError::Interrupted {
            done: cp.done_count() as u64,
            total,
            unit: "subtrees",
            saved,
        });
    }
    if let Some(e) = cp.save_error() {
        progress.note(&format!("dfs: a periodic checkpoint save failed: {e}"));
    }
    for (m, sum) in matrices.iter_mut().zip(cp.sums()) {
        for (a, &b) in m.iter_mut().zip(sum) {
            *a += b;
        }
    }
    cp.remove();
    Ok(MethodResult {
        exchanged: None,
        disk: None,
        matrices,
        layers: None,
        peak_layer_mb: None,
        resumed_units,
    })
}
