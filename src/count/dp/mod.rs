//! Counting games as paths through the layered graph of positions.
//!
//! Every placement adds exactly one disc and a forced pass adds none, so with passes folded into
//! the edge that leads to them, the positions fall into layers by disc count and every edge goes
//! from one layer to the next. Each position of a layer carries `counts[c]`, the number of paths
//! into it from first-move class `c`. Expanding a layer adds each child's counts into the next
//! layer under the child's key: its canonical form (smallest image under the board's
//! symmetries), kept apart by the colour to move. A child that ends the game adds its counts to
//! the score tally of each class instead.
//!
//! **Layout.** A layer is split by colour to move and by a hash of the key into *partitions* of
//! about 4 MiB. The next layer is built as one open-addressing table (linear probing) per
//! partition: workers expand a batch of the current layer, staging each child in the partition
//! its key hashes to, then the tables take their staged children in parallel, one worker per
//! table, with no locks, prefetching the slot of the child sixteen ahead so that the cache
//! misses of a large table overlap. Tables sit on whole transparent huge pages ([`crate::memory::HugeBuf`]):
//! with 4 KiB pages most random probes also missed the TLB, which on this project's virtual
//! machine made whole runs up to twice as slow in paired runs (BENCHMARKS.md). Each finished
//! batch of the current layer is freed at once, and at the end each table is compacted in
//! place, the pages past its entries given back to the system. So memory is the part of the
//! current layer not yet expanded plus the next layer's tables, checked against the budget
//! after every batch. The order of additions differs between runs and thread counts, the sums do
//! not.
//!
//! **Entries.** Keys pack both disc sets densely into a `u64` on boards of at most 32 squares
//! (canonical forms from tables of every symmetry's image of each row, all eight images in one
//! vector per row: see `Packer`), and use the two 64-bit frames as a `u128` otherwise. Path
//! counts are `u64` (checked: an overflow is reported, never wrapped); the score tally is
//! `u128`. With two classes on at most 25 squares an entry is packed into 16 bytes (a 50-bit
//! key and two 39-bit counts); should a count outgrow 39 bits the run starts again with wide
//! entries.

pub(crate) mod building;
pub(crate) mod checkpoint;
pub mod dataflow;
pub(crate) mod disk;
pub(crate) mod expand;
pub(crate) mod key;
pub(crate) mod layer;
mod layout;
pub(crate) mod memory_store;
pub(crate) mod segment;
pub(crate) mod slot;
pub(crate) mod split;

pub(crate) use building::{Building, Tally};
pub(crate) use expand::Expansion;
pub(crate) use key::{Key, Packer};
pub(crate) use layer::{partitions_for, table_index, Filling, Layer};
pub(crate) use layout::{by_layout, ByLayout};
pub(crate) use slot::{Entry, Packed2, Slot, Stored};

use super::{Class, CountError, CountOptions, MethodResult};
use crate::board::Position;
use crate::progress::Progress;

/// The one-process count, for [`by_layout`].
struct OneProcess<'a> {
    root: &'a Position,
    classes: &'a [Class],
    opts: &'a CountOptions,
    progress: &'a dyn Progress,
}

impl ByLayout for OneProcess<'_> {
    fn run<S: Slot<N>, const N: usize>(&self) -> Result<MethodResult, CountError> {
        memory_store::run_typed::<S, N>(self.root, self.classes, self.opts, self.progress)
    }

    fn before_widening(&self) {
        // The disk store's files are the same for both layouts, but its run starts again from
        // the first layer too.
        let _ = std::fs::remove_dir_all(super::disk_run_dir(self.root, self.opts));
    }
}

/// Runs the layered count, in this process or as a dataflow.
pub(crate) fn run(
    root: &Position,
    classes: &[Class],
    opts: &CountOptions,
    progress: &dyn Progress,
) -> Result<MethodResult, CountError> {
    if let Some(df) = &opts.dataflow {
        return dataflow::run(root, classes, opts, df, progress);
    }
    let job = OneProcess {
        root,
        classes,
        opts,
        progress,
    };
    by_layout(root, classes.len(), &job)
}
