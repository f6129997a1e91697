//! A layer of positions in memory: open-addressing tables, one per partition (colour to move
//! and a hash of the key), on whole huge pages.

use rayon::prelude::*;

use super::key::Key;
use super::slot::Stored;
use crate::memory::HugeBuf;

/// A layer: its positions by colour to move and hash partition, no key twice.
pub(crate) struct Layer<S: Copy> {
    /// Discs on the board.
    pub discs: u32,
    /// Partitions per colour.
    pub(crate) per_half: usize,
    /// `parts[h * per_half + j]`: the positions with colour `h` to move (0 black, 1 white) whose
    /// key hashes to partition `j`.
    pub(crate) parts: Vec<HugeBuf<S>>,
}

/// The partition of a hash among `n` (the high 32 bits, scaled).
#[inline(always)]
pub(crate) fn partition(hash: u64, n: usize) -> usize {
    (((hash >> 32) * n as u64) >> 32) as usize
}

/// The half of a layer for a colour to move.
#[inline]
pub(crate) fn half(black_to_move: bool) -> usize {
    usize::from(!black_to_move)
}

/// The table of a layer of `per_half` partitions per colour that holds a position of colour
/// `h` to move (0 black, 1 white) whose key hashes to `hash`.
pub(crate) fn table_index(h: usize, hash: u64, per_half: usize) -> usize {
    h * per_half + partition(hash, per_half)
}

/// A layer being filled with entries whose number per table ([`table_index`]) is known
/// beforehand, so that each table is sized once.
pub(crate) struct Filling<S: Stored> {
    discs: u32,
    per_half: usize,
    tables: Vec<Table<S>>,
    ok: bool,
}

impl<S: Stored> Filling<S> {
    fn capacity(n: usize) -> usize {
        if n == 0 {
            0
        } else {
            n * 8 / 7 + 64
        }
    }

    /// The bytes [`Filling::new`] allocates for tables of `sizes` entries, before it does.
    pub(crate) fn bytes_for(sizes: &[usize]) -> usize {
        sizes
            .iter()
            .map(|&n| HugeBuf::<S>::bytes_for(Self::capacity(n)))
            .sum()
    }

    /// Empty tables for `sizes[t]` entries in table `t`.
    pub(crate) fn new(discs: u32, per_half: usize, sizes: &[usize]) -> Filling<S> {
        Filling {
            discs,
            per_half,
            tables: sizes
                .par_iter()
                .map(|&n| Table::new(Self::capacity(n)))
                .collect(),
            ok: true,
        }
    }

    /// Adds a position of colour `h` to move, merged with an equal key's.
    pub(crate) fn insert(&mut self, h: usize, e: S) {
        let hash = e.key().hash();
        self.ok &= self.tables[table_index(h, hash, self.per_half)].insert(e, hash);
    }

    /// The layer; `None` if a merge overflowed.
    pub(crate) fn finish(self) -> Option<Layer<S>> {
        self.ok.then(|| Layer {
            discs: self.discs,
            per_half: self.per_half,
            parts: self.tables.into_iter().map(Table::into_part).collect(),
        })
    }
}

impl<S: Stored> Layer<S> {
    /// The layer holding `entries` (`(colour to move, slot)`), equal keys merged, split into
    /// `per_half` partitions per colour. `None` if a merge overflowed.
    ///
    /// Each table is sized for its entries before any is inserted. (Grown from empty, a table
    /// fed the entries of a saved layer, which come in the order of their hashes, piled them
    /// into one run of slots: resuming 4x6 from a checkpoint of 13 layers took 179 s against
    /// 13 s for the whole count.)
    pub(crate) fn from_entries(
        discs: u32,
        per_half: usize,
        entries: Vec<(usize, S)>,
    ) -> Option<Layer<S>> {
        let mut sizes = vec![0usize; 2 * per_half];
        for (h, e) in &entries {
            sizes[table_index(*h, e.key().hash(), per_half)] += 1;
        }
        let mut filling = Filling::new(discs, per_half, &sizes);
        for (h, e) in entries {
            filling.insert(h, e);
        }
        filling.finish()
    }

    /// Positions in the layer.
    pub(crate) fn len(&self) -> usize {
        self.parts.iter().map(|p| p.len()).sum()
    }

    /// How many positions have colour `h` to move (0 black, 1 white), from the partitions'
    /// lengths.
    pub(crate) fn half_len(&self, h: usize) -> usize {
        self.parts[h * self.per_half..(h + 1) * self.per_half]
            .iter()
            .map(|p| p.len())
            .sum()
    }

    /// Positions with colour `h` to move (0 black, 1 white).
    pub(crate) fn half(&self, h: usize) -> impl Iterator<Item = &S> {
        self.parts[h * self.per_half..(h + 1) * self.per_half]
            .iter()
            .flat_map(|p| p.iter())
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.parts.iter().map(HugeBuf::bytes).sum::<usize>()
    }
}

/// An open-addressing table (linear probing) of one partition of the next layer. The default
/// key marks a free slot.
pub(crate) struct Table<S: Copy> {
    /// On whole huge pages (see [`HugeBuf`]): the random probes of a table much larger than
    /// the caches would each walk the page tables otherwise.
    pub(crate) slots: HugeBuf<S>,
    pub(crate) len: usize,
}

impl<S: Stored> Table<S> {
    /// A table of at least `capacity` free slots.
    pub(crate) fn new(capacity: usize) -> Table<S> {
        Table {
            slots: HugeBuf::new(capacity, S::FREE),
            len: 0,
        }
    }

    /// Adds `e` (whose key hashes to `hash`); `false` if a merge overflowed.
    #[inline(always)]
    pub(crate) fn insert(&mut self, e: S, hash: u64) -> bool {
        // Grow at a load of 7/8, by half: the keys are well mixed, so probe runs stay short.
        if 8 * (self.len + 1) > 7 * self.slots.len() {
            self.grow();
        }
        let cap = self.slots.len();
        let mut i = (((hash & 0xFFFF_FFFF) * cap as u64) >> 32) as usize;
        loop {
            let s = &mut self.slots[i];
            if s.same_key(&e) {
                return s.merge(&e);
            }
            if s.is_free() {
                *s = e;
                self.len += 1;
                return true;
            }
            i += 1;
            if i == cap {
                i = 0;
            }
        }
    }

    /// Adds every entry of `entries`; `false` if a merge overflowed.
    ///
    /// The tables together are far larger than the caches, so each insertion would wait for
    /// its slot to come from memory. Instead the slot of each entry is prefetched a few
    /// entries ahead, and the waits overlap (measured: see BENCHMARKS.md).
    pub(crate) fn insert_all<'a>(&mut self, entries: impl Iterator<Item = &'a S>) -> bool {
        const AHEAD: usize = 16;
        let mut ring = [(0u64, None::<&S>); AHEAD];
        let mut ok = true;
        for (n, e) in entries.enumerate() {
            let hash = e.key().hash();
            self.prefetch(hash);
            let (h, old) = std::mem::replace(&mut ring[n % AHEAD], (hash, Some(e)));
            if let Some(old) = old {
                ok &= self.insert(*old, h);
            }
        }
        for (h, e) in ring {
            if let Some(e) = e {
                ok &= self.insert(*e, h);
            }
        }
        ok
    }

    /// Asks for the first slot of `hash` to be brought into the cache.
    #[inline]
    fn prefetch(&self, hash: u64) {
        let cap = self.slots.len();
        if cap == 0 {
            return;
        }
        let i = (((hash & 0xFFFF_FFFF) * cap as u64) >> 32) as usize;
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `i < cap`, so the pointer is inside the slots; a prefetch never faults and
        // neither reads nor writes memory as far as the program can tell.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(self.slots.as_ptr().add(i).cast::<i8>());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (self.slots.len() * 3 / 2).max(64);
        let mut t = Table::new(cap);
        for e in self.slots.iter().filter(|e| !e.is_free()) {
            t.insert(*e, e.key().hash());
        }
        *self = t;
    }

    /// The entries, compacted in place; the pages past them go back to the system.
    pub(crate) fn into_part(self) -> HugeBuf<S> {
        let mut v = self.slots;
        let mut n = 0;
        for i in 0..v.len() {
            let e = v[i];
            if !e.is_free() {
                v[n] = e;
                n += 1;
            }
        }
        v.truncate(n);
        v
    }

    pub(crate) fn bytes(&self) -> usize {
        self.slots.bytes()
    }
}

/// Bytes a partition's table is aimed at: enough partitions to share the insertions among the
/// workers, each small enough to be allocated and freed without holding memory back.
const PARTITION_BYTES: usize = 1 << 22;
/// Most partitions per colour.
const MAX_PARTITIONS: usize = 1 << 13;

/// Partitions per colour for a layer expected to hold about `positions` entries: tables of
/// `PARTITION_BYTES` at the load where they grow, so that large ones span whole huge pages
/// with nothing to round up (any count works: [`partition`] scales the hash).
pub(crate) fn partitions_for(positions: usize, entry_bytes: usize) -> usize {
    (positions * entry_bytes * 8 / 7)
        .div_ceil(2 * PARTITION_BYTES)
        .clamp(1, MAX_PARTITIONS)
}
