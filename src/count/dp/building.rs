//! The next layer being built: its tables, the staging buffers of the workers, the score
//! tally of the games that end, and the memory all of it takes; and the expansion of one layer
//! into the next within a memory budget ([`expand_layer`]), which dp's count and strong's
//! forward pass share.

use std::sync::Mutex;

use rayon::prelude::*;

use super::expand::Local;
use super::key::{Key, Packer};
use super::layer::{partitions_for, Layer, Table};
use super::slot::Stored;
use crate::board::{legal_moves, Shape};
use crate::count::CountError;
use crate::memory::{HugeBuf, MemoryError};
use crate::progress::Progress;

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
pub(crate) struct Building<S: Copy> {
    /// Partitions per colour.
    pub(crate) per_half: usize,
    tables: Vec<Table<S>>,
    pool: Mutex<Vec<Local<S>>>,
    /// Children staged by the last batch.
    pub(crate) last_staged: usize,
}

impl<S: Stored> Building<S> {
    /// Tables for a layer expected to hold about `guess` positions, a share `black` of them
    /// with black to move. Without passes every position of a layer has the same colour to
    /// move, so the halves differ greatly in size: tables of equal size left one half nearly
    /// empty while the other grew twice (on 4x7, a part's tables took 15 GiB instead of 10).
    pub(crate) fn new(guess: usize, black: f64) -> Building<S> {
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
    /// black) into the tables: `stage` stages the children of a run by table, or tallies ended
    /// games (dp's [`super::expand::expand_chunk`], strong's forward pass). Clears `ok` if a
    /// child or a merge overflowed. Returns the bytes the staging buffers held.
    pub(crate) fn expand_batch<F>(
        &mut self,
        tasks: &[(&[S], bool)],
        stage: &F,
        tally: &mut Tally,
        ok: &mut bool,
    ) -> usize
    where
        F: Fn(&[S], bool, &mut Local<S>) -> bool + Sync,
    {
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
                    l.ok &= stage(chunk, btm, l);
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
    pub(crate) fn into_layer(self, discs: u32) -> Layer<S> {
        Layer {
            discs,
            per_half: self.per_half,
            parts: self.tables.into_par_iter().map(Table::into_part).collect(),
        }
    }
}

/// Entries of the first batch of a layer at most (more when its first partition is larger):
/// small, so that the children per position it measures budget the later batches.
const FIRST_BATCH: usize = 1 << 16;

/// The batch of whole partitions from partition `i` holding at most `cap` entries (at least
/// one partition): the partition after it and its entries.
fn batch_from<S: Stored>(layer: &Layer<S>, i: usize, cap: usize) -> (usize, usize) {
    let (mut j, mut n) = (i, 0);
    while j < layer.parts.len() && (n == 0 || n + layer.parts[j].len() <= cap) {
        n += layer.parts[j].len();
        j += 1;
    }
    (j, n)
}

/// The first batch of a layer (see [`FIRST_BATCH`]).
fn first_batch<S: Stored>(layer: &Layer<S>) -> (usize, usize) {
    batch_from(layer, 0, FIRST_BATCH)
}

/// The memory the expansion of `layer` needs before its first batch is merged: the layer, the
/// next layer's first tables, and the first batch's staged children (their number from the
/// moves of a sample of its entries) with the growth of the tables they may cause.
pub(crate) fn first_need<S: Stored>(layer: &Layer<S>, pk: &Packer, growth: f64) -> usize {
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
    let tables = Building::<S>::bytes_for(guess, black).max(children * slot * 12 / 7);
    layer.bytes() + tables + children * slot * 2
}

/// The next layer's expected positions (from the last growth, aimed a little low: a table
/// that fills grows by half, and a guess too high would cost memory at the peak; layers grow
/// by up to about four times early on) and share with black to move (children mostly have
/// the other colour to move).
fn next_layer_guess<S: Stored>(layer: &Layer<S>, growth: f64) -> (usize, f64) {
    let guess = (layer.len() as f64 * (0.75 * growth).clamp(0.5, 4.0)) as usize;
    let black_here = layer.half_len(0) as f64 / layer.len().max(1) as f64;
    (guess, 1.0 - black_here)
}

/// Expands one layer into the next, freeing it as it goes: `stage(per_half)` gives what
/// stages the children of a run of entries for a next layer of `per_half` partitions per
/// colour, tallying ended games in `tally` (dp's counts, strong's reached images). Every large
/// allocation is checked against `budget` before it is made; `first` is what the tables' first
/// size and the first batch need ([`first_need`], which dp also chose the store by).
#[allow(clippy::too_many_arguments)]
pub(crate) fn expand_layer<S: Stored, F>(
    mut layer: Layer<S>,
    pk: &Packer,
    growth: f64,
    stage: impl Fn(usize) -> F,
    tally: &mut Tally,
    peak: &mut usize,
    (budget, first, whole_process): (u64, usize, bool),
    progress: &dyn Progress,
) -> Result<Layer<S>, CountError>
where
    F: Fn(&[S], bool, &mut Local<S>) -> bool + Sync,
{
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
    let stage = stage(next.per_half);
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
        let staged_bytes = next.expand_batch(&tasks, &stage, tally, &mut ok);
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
    Ok(next.into_layer(layer.discs + 1))
}
