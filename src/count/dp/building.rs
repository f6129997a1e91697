//! The next layer being built: its tables, the staging buffers of the workers, the score
//! tally of the games that end, and the memory all of it takes.

use std::sync::Mutex;

use rayon::prelude::*;

use super::expand::{expand_chunk, Expansion, Local};
use super::layer::{partitions_for, Layer, Table};
use super::slot::Slot;
use crate::board::Shape;
use crate::memory::HugeBuf;

/// Current-layer entries expanded between two merges into the tables (and memory checks).
/// Larger batches give each table more insertions per pass, so more of them find their line
/// already in the cache: 2M instead of 512K took 5x5 from the start from 67 to 60-62 s for
/// 0.3 GB more memory at the peak; 4M took 58 s but 3.85 GiB (see BENCHMARKS.md).
pub(crate) const BATCH: usize = 1 << 21;
/// Current-layer entries per parallel task.
pub(crate) const CHUNK: usize = 1 << 11;
/// Score tallies of ended games, one matrix per class, gathered while a layer is expanded.
pub(crate) struct Tally {
    /// `k` matrices of `ss` cells, one after the other.
    cells: Vec<u128>,
    ss: usize,
}

impl Tally {
    pub(crate) fn new(k: usize, shape: Shape) -> Tally {
        let stride = shape.squares() as usize + 1;
        Tally {
            cells: vec![0; k * stride * stride],
            ss: stride * stride,
        }
    }

    /// Adds the tallies to the run's matrices.
    pub(crate) fn add_into(&self, matrices: &mut [Vec<u128>]) {
        for (m, t) in matrices.iter_mut().zip(self.cells.chunks(self.ss)) {
            for (a, b) in m.iter_mut().zip(t) {
                *a += b;
            }
        }
    }
}

/// The next layer while it is built: one table per partition, and the staging buffers of the
/// workers, kept from one batch to the next.
pub(crate) struct Building<S: Copy, const N: usize> {
    /// Partitions per colour.
    pub(crate) per_half: usize,
    tables: Vec<Table<S, N>>,
    pool: Mutex<Vec<Local<S>>>,
    /// Children staged by the last batch.
    pub(crate) last_staged: usize,
}

impl<S: Slot<N>, const N: usize> Building<S, N> {
    /// Tables for a layer expected to hold about `guess` positions, a share `black` of them
    /// with black to move. Without passes every position of a layer has the same colour to
    /// move, so the halves differ greatly in size: tables of equal size left one half nearly
    /// empty while the other grew twice (on 4x7, a part's tables took 15 GiB instead of 10).
    pub(crate) fn new(guess: usize, black: f64) -> Building<S, N> {
        let (per_half, b, w) = Self::plan(guess, black);
        let n_parts = 2 * per_half;
        // Filling the tables with free slots is the first touch of their memory (page faults,
        // zeroing by the system): in parallel, it took a tenth of the run on one thread.
        let tables = (0..n_parts)
            .into_par_iter()
            .map(|t| Table::new(if t < per_half { b } else { w }))
            .collect();
        Building {
            per_half,
            tables,
            pool: Mutex::new(Vec::new()),
            last_staged: 0,
        }
    }

    /// The partitions per colour and the first slots of each black and white table of
    /// [`Building::new`].
    fn plan(guess: usize, black: f64) -> (usize, usize, usize) {
        let black = black.clamp(0.0, 1.0);
        let major = black.max(1.0 - black);
        let per_half = partitions_for(
            (guess as f64 * 2.0 * major) as usize,
            std::mem::size_of::<S>(),
        );
        let initial = |share: f64| (guess as f64 * share / per_half as f64 * 8.0 / 7.0) as usize;
        (per_half, initial(black), initial(1.0 - black))
    }

    /// The bytes [`Building::new`] allocates for the same arguments, before it does.
    pub(crate) fn bytes_for(guess: usize, black: f64) -> usize {
        let (per_half, b, w) = Self::plan(guess, black);
        let slot = std::mem::size_of::<S>();
        per_half * (HugeBuf::<S>::bytes_for(b) + HugeBuf::<S>::bytes_for(w)).max(2 * 64 * slot)
    }

    /// The most bytes the tables may take after `new` more positions: each table that would
    /// pass its load of 7/8 grows by half, and while a table grows its old and new slots are
    /// both held (one table per worker at a time).
    pub(crate) fn bytes_after(&self, new: usize) -> usize {
        let slot = std::mem::size_of::<S>();
        let per_table = new.div_ceil(self.tables.len().max(1));
        let mut total = 0usize;
        let mut largest = 0usize;
        for t in &self.tables {
            let mut cap = t.slots.len().max(64);
            let need = (t.len + per_table + per_table / 4 + 64) * 8 / 7;
            while cap < need {
                cap = cap * 3 / 2;
            }
            total += cap * slot;
            largest = largest.max(cap * slot);
        }
        total + rayon::current_num_threads() * largest * 2 / 3
    }

    /// Expands the entries of `tasks` (runs of entries with their colour to move: `true` for
    /// black) into the tables, tallying ended games; clears `ok` if a count overflowed. Returns
    /// the bytes the staging buffers held.
    pub(crate) fn expand_batch(
        &mut self,
        tasks: &[(&[S], bool)],
        x: &Expansion,
        tally: &mut Tally,
        ok: &mut bool,
    ) -> usize {
        let n_parts = self.tables.len();
        let cells = tally.cells.len();
        // A fixed number of workers' staging buffers, each taking an equal run of the tasks:
        // every child is staged once, so their capacity stays about twice a batch's children
        // (a fold would make as many buffers as rayon makes pieces, more when threads are
        // starved, each keeping its largest capacity: 4x7 once held 7 GB of them).
        let groups = (4 * rayon::current_num_threads()).min(tasks.len()).max(1);
        let per = tasks.len().div_ceil(groups).max(1);
        let mut locals: Vec<Local<S>> = {
            let mut pool = self.pool.lock().expect("pool");
            (0..tasks.len().div_ceil(per))
                .map(|_| {
                    // Reuse the staging buffers of earlier batches: no page faults.
                    pool.pop().unwrap_or_else(|| Local {
                        staged: (0..n_parts).map(|_| Vec::new()).collect(),
                        tally: vec![0u128; cells],
                        ok: true,
                    })
                })
                .collect()
        };
        locals
            .par_iter_mut()
            .zip(tasks.par_chunks(per))
            .for_each(|(l, group)| {
                for &(chunk, btm) in group {
                    l.ok &= expand_chunk(chunk, btm, x, l);
                }
            });
        *ok &= self
            .tables
            .par_iter_mut()
            .enumerate()
            .map(|(t, table)| table.insert_all(locals.iter().flat_map(|l| &l.staged[t])))
            .reduce(|| true, |a, b| a & b);
        let staged_bytes: usize = locals
            .iter()
            .flat_map(|l| &l.staged)
            .map(Vec::capacity)
            .sum::<usize>()
            * std::mem::size_of::<S>();
        self.last_staged = locals.iter().flat_map(|l| &l.staged).map(Vec::len).sum();
        for mut l in locals {
            *ok &= l.ok;
            for (a, b) in tally.cells.iter_mut().zip(&l.tally) {
                *a += b;
            }
            l.tally.fill(0);
            l.staged.iter_mut().for_each(Vec::clear);
            self.pool.lock().expect("pool").push(l);
        }
        staged_bytes
    }

    /// Bytes held by the staging buffers kept from earlier batches.
    pub(crate) fn staged_capacity_bytes(&self) -> usize {
        self.pool.lock().map_or(0, |pool| {
            pool.iter()
                .flat_map(|l| &l.staged)
                .map(Vec::capacity)
                .sum::<usize>()
                * std::mem::size_of::<S>()
        })
    }

    /// Bytes held by the tables.
    pub(crate) fn bytes(&self) -> usize {
        self.tables.iter().map(Table::bytes).sum()
    }

    /// Positions held.
    pub(crate) fn len(&self) -> usize {
        self.tables.iter().map(|t| t.len).sum()
    }

    /// The finished layer of `discs` discs.
    pub(crate) fn into_layer(self, discs: u32) -> Layer<S, N> {
        Layer {
            discs,
            per_half: self.per_half,
            parts: self.tables.into_par_iter().map(Table::into_part).collect(),
        }
    }
}
