//! What the workers of this process are doing, shown on the progress bar by the main thread.

use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::progress::Progress;

/// Per local worker, the disc count of the layer it expands, its part's size and how much of it
/// is done; and the events the main thread reports.
pub(super) struct Meter {
    pub(super) discs: Vec<AtomicU32>,
    pub(super) len: Vec<AtomicU64>,
    pub(super) done: Vec<AtomicU64>,
    pub(super) layers_done: AtomicU64,
    /// Disk store: parts built again because they outgrew their budget (by one worker).
    pub(super) retries: AtomicU64,
    /// `--store auto`: the discs of the first layer kept on disk (0: none yet).
    pub(super) to_disk: AtomicU32,
}

impl Meter {
    /// A meter for `w` local workers.
    pub(super) fn new(w: usize) -> Meter {
        Meter {
            discs: (0..w).map(|_| AtomicU32::new(0)).collect(),
            len: (0..w).map(|_| AtomicU64::new(0)).collect(),
            done: (0..w).map(|_| AtomicU64::new(0)).collect(),
            layers_done: AtomicU64::new(0),
            retries: AtomicU64::new(0),
            to_disk: AtomicU32::new(0),
        }
    }
}

/// What the main thread has shown so far.
#[derive(Default)]
pub(super) struct Watch {
    /// The layer on the bar.
    shown: Option<u32>,
    done_shown: u64,
    retries_shown: u64,
    to_disk_shown: bool,
}

impl Watch {
    /// Brings the bar and the notes up to date with `m`.
    pub(super) fn show(
        &mut self,
        m: &Meter,
        progress: &dyn Progress,
        peers: usize,
        disk_dir: Option<&Path>,
    ) {
        let to_disk = m.to_disk.load(Ordering::Relaxed);
        if to_disk > 0 && !self.to_disk_shown {
            progress.note(&format!(
                "dp: the layers from {to_disk} discs on would not fit --memory: they are kept \
                 on disk, in {}",
                disk_dir.map_or_else(String::new, |d| d.display().to_string())
            ));
            self.to_disk_shown = true;
        }
        let retries = m.retries.load(Ordering::Relaxed);
        if retries > self.retries_shown {
            progress.note(&format!(
                "dp: a part of the next layer outgrew --memory on some worker ({retries} so far); \
                 it is built again in two halves"
            ));
            self.retries_shown = retries;
        }
        let discs = current_discs(m);
        if discs > 0 && self.shown != Some(discs) {
            if self.shown.is_some() {
                progress.finish();
            }
            let total = sum_at(m, discs, &m.len);
            progress.start(
                &format!("dp {discs:>2} discs, {peers} workers"),
                total.max(1),
            );
            self.shown = Some(discs);
            self.done_shown = 0;
        }
        if let Some(d) = self.shown {
            let done = sum_at(m, d, &m.done);
            if done > self.done_shown {
                progress.advance(done - self.done_shown);
                self.done_shown = done;
            }
        }
    }

    /// Closes the bar.
    pub(super) fn finish(&self, progress: &dyn Progress) {
        if self.shown.is_some() {
            progress.finish();
        }
    }
}

/// The layer the slowest local worker is on (0 before any started).
pub(super) fn current_discs(m: &Meter) -> u32 {
    m.discs
        .iter()
        .map(|d| d.load(Ordering::Relaxed))
        .min()
        .unwrap_or(0)
}

/// Sums `values` over the local workers on the layer of `discs` discs.
fn sum_at(m: &Meter, discs: u32, values: &[AtomicU64]) -> u64 {
    m.discs
        .iter()
        .zip(values)
        .filter(|(d, _)| d.load(Ordering::Relaxed) == discs)
        .map(|(_, v)| v.load(Ordering::Relaxed))
        .sum()
}
