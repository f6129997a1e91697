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
//! misses of a large table overlap. Tables sit on whole transparent huge pages ([`HugeBuf`]):
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

use std::sync::Mutex;
use std::time::{Duration, Instant};

use rayon::prelude::*;

pub(crate) mod checkpoint;
pub mod dataflow;
pub(crate) mod disk;
pub(crate) mod segment;
pub(crate) mod split;

use super::{Class, CountError, CountOptions, LayerRow, MethodResult, Store};
use crate::board::{
    canonical_discs, flips, has_moves, legal_moves, Position, Shape, Squares, Symmetry,
};
use crate::memory::{HugeBuf, MemoryError};
use crate::progress::Progress;
use checkpoint::DpCheckpoint;
use split::{SplitRange, Splitter};

/// A position's key in a layer (the colour to move is implied by the layer's partition).
pub(crate) trait Key: Copy + Ord + Send + Sync + 'static {
    /// Bytes of the key in a checkpoint.
    const BYTES: usize;
    /// The key of no disc at all, which no stored position has: it marks a free slot.
    const FREE: Self;
    /// The key of the discs of the side to move `p` and of the other side `o`. Never the
    /// default value (which marks a free slot) when there is a disc.
    fn encode(pk: &Packer, p: u64, o: u64) -> Self;
    /// The key shared by `(p, o)` and its symmetric images (when the packer merges them): the
    /// least key of an image.
    fn canonical(pk: &Packer, p: u64, o: u64) -> Self;
    /// The discs back.
    fn decode(self, pk: &Packer) -> (u64, u64);
    /// A well-mixed 64-bit hash: the high half picks the partition, the low half the slot.
    fn hash(self) -> u64;
    /// Little-endian bytes.
    fn write(self, out: &mut Vec<u8>);
    /// From little-endian bytes.
    fn read(b: &[u8]) -> Self;
    /// The key as a number, ordered as the keys are (for sorted runs on disk).
    fn bits(self) -> u128;
    /// The key of a number from [`Key::bits`]; `None` if it is no key of this type.
    fn from_bits(bits: u128) -> Option<Self>;
}

/// Packs the squares of a board densely, row after row, and maps packed keys to their images
/// under the board's symmetries.
pub(crate) struct Packer {
    shape: Shape,
    rows: u32,
    cols: u32,
    row_mask: u64,
    /// Whether symmetric positions share a key.
    symmetry: bool,
    /// For boards of at most 32 squares (`u64` keys) with symmetries: `wide[r][v]` holds, lane
    /// by lane, the packed images under every symmetry (lane 0 the identity; a rectangle's four
    /// fill lanes 4..8 again) of row `r` of the frame holding the byte `v`. A symmetry moves each
    /// disc on its own, so the images of a disc set are the unions of its rows' images: one
    /// 32-byte load per row and colour gives all eight images at once, the key packed on the way
    /// (no separate packing), and the least key is a reduction across the lanes, which AVX2
    /// copies of the expansion do in vector registers.
    wide: Vec<[Lanes; 256]>,
}

/// The eight images of a packed row, one per lane, aligned so that each is one vector load.
#[derive(Clone, Copy)]
#[repr(align(32))]
struct Lanes([u32; 8]);

impl Packer {
    pub(crate) fn new(shape: Shape, symmetry: bool) -> Packer {
        let mut pk = Packer {
            shape,
            rows: shape.rows(),
            cols: shape.cols(),
            row_mask: (1u64 << shape.cols()) - 1,
            symmetry,
            wide: Vec::new(),
        };
        if symmetry && shape.squares() <= 32 {
            let syms = Symmetry::all(shape);
            for r in 0..pk.rows {
                let mut t = [Lanes([0; 8]); 256];
                for (v, lanes) in t.iter_mut().enumerate() {
                    for c in 0..pk.cols {
                        if v >> c & 1 == 0 {
                            continue;
                        }
                        for (lane, image) in lanes.0.iter_mut().enumerate() {
                            let sym = syms[lane % syms.len()];
                            let img = sym.apply_square(shape, 8 * r + c);
                            *image |= 1u32 << ((img / 8) * pk.cols + img % 8);
                        }
                    }
                }
                pk.wide.push(t);
            }
        }
        pk
    }

    #[inline(always)]
    fn pack(&self, b: u64) -> u64 {
        let mut out = 0;
        for r in 0..self.rows {
            out |= ((b >> (8 * r)) & self.row_mask) << (self.cols * r);
        }
        out
    }

    #[inline(always)]
    fn unpack(&self, d: u64) -> u64 {
        let mut out = 0;
        for r in 0..self.rows {
            out |= ((d >> (self.cols * r)) & self.row_mask) << (8 * r);
        }
        out
    }

    /// The least packed key `p | o << 32` of an image of the frames `p` and `o` (see
    /// [`Packer::wide`]).
    #[inline(always)]
    fn least_image(&self, p: u64, o: u64) -> u64 {
        let (mut ip, mut io) = ([0u32; 8], [0u32; 8]);
        for (r, t) in self.wide.iter().enumerate() {
            let (a, b) = (
                &t[(p >> (8 * r)) as u8 as usize].0,
                &t[(o >> (8 * r)) as u8 as usize].0,
            );
            for l in 0..8 {
                ip[l] |= a[l];
                io[l] |= b[l];
            }
        }
        // With the top bit flipped, the keys' order as signed numbers is theirs as unsigned
        // ones, and signed minima compile to vector compares (AVX2 has no unsigned ones).
        const TOP: u64 = 1 << 63;
        let mut best = i64::MAX;
        for l in 0..8 {
            best = best.min(((u64::from(ip[l]) | (u64::from(io[l]) << 32)) ^ TOP) as i64);
        }
        best as u64 ^ TOP
    }
}

/// The finaliser of splitmix64: a bijection of `u64` that mixes every bit into every bit.
#[inline(always)]
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl Key for u64 {
    const BYTES: usize = 8;
    const FREE: u64 = 0;
    #[inline(always)]
    fn encode(pk: &Packer, p: u64, o: u64) -> u64 {
        pk.pack(p) | (pk.pack(o) << 32)
    }
    #[inline(always)]
    fn canonical(pk: &Packer, p: u64, o: u64) -> u64 {
        if pk.wide.is_empty() {
            Self::encode(pk, p, o)
        } else {
            pk.least_image(p, o)
        }
    }
    #[inline(always)]
    fn decode(self, pk: &Packer) -> (u64, u64) {
        (pk.unpack(self & 0xFFFF_FFFF), pk.unpack(self >> 32))
    }
    #[inline(always)]
    fn hash(self) -> u64 {
        mix(self)
    }
    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn read(b: &[u8]) -> u64 {
        u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
    }
    #[inline]
    fn bits(self) -> u128 {
        u128::from(self)
    }
    #[inline]
    fn from_bits(bits: u128) -> Option<u64> {
        u64::try_from(bits).ok()
    }
}

impl Key for u128 {
    const BYTES: usize = 16;
    const FREE: u128 = 0;
    #[inline]
    fn encode(_: &Packer, p: u64, o: u64) -> u128 {
        u128::from(p) | (u128::from(o) << 64)
    }
    #[inline]
    fn decode(self, _: &Packer) -> (u64, u64) {
        (self as u64, (self >> 64) as u64)
    }
    #[inline]
    fn canonical(pk: &Packer, p: u64, o: u64) -> u128 {
        let (p, o) = if pk.symmetry {
            canonical_discs(pk.shape, p, o)
        } else {
            (p, o)
        };
        Self::encode(pk, p, o)
    }
    #[inline]
    fn hash(self) -> u64 {
        mix(self as u64 ^ mix((self >> 64) as u64))
    }
    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn read(b: &[u8]) -> u128 {
        u128::from_le_bytes(b[..16].try_into().expect("16 bytes"))
    }
    #[inline]
    fn bits(self) -> u128 {
        self
    }
    #[inline]
    fn from_bits(bits: u128) -> Option<u128> {
        Some(bits)
    }
}

/// A position of a layer and the paths into it from each class.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry<K, const N: usize> {
    pub key: K,
    pub counts: [u64; N],
}

/// Adds `from` into `into`; `false` if a sum overflowed.
#[inline]
fn add_counts<const N: usize>(into: &mut [u64; N], from: &[u64; N]) -> bool {
    let mut ok = true;
    for i in 0..N {
        let (s, o) = into[i].overflowing_add(from[i]);
        into[i] = s;
        ok &= !o;
    }
    ok
}

/// How a layer stores a position: its key and its path counts from `N` classes.
pub(crate) trait Slot<const N: usize>: Copy + Send + Sync + 'static {
    /// The key type.
    type K: Key;
    /// A free slot of a table.
    const FREE: Self;
    /// The slot of `key` with `counts`; `None` if a count does not fit.
    fn pack(key: Self::K, counts: [u64; N]) -> Option<Self>;
    /// The key (the default key for a free slot).
    fn key(&self) -> Self::K;
    /// Whether the slot holds no position (as a free slot of a table).
    #[inline(always)]
    fn is_free(&self) -> bool {
        self.key() == Self::K::FREE
    }
    /// Whether `self` and `other` hold the same position.
    #[inline(always)]
    fn same_key(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
    /// The path counts.
    fn counts(&self) -> [u64; N];
    /// Adds the counts of `other`, which has the same key; `false` if a sum does not fit.
    fn add(&mut self, other: &Self) -> bool;
}

impl<K: Key, const N: usize> Slot<N> for Entry<K, N> {
    type K = K;
    const FREE: Self = Entry {
        key: K::FREE,
        counts: [0; N],
    };
    #[inline(always)]
    fn pack(key: K, counts: [u64; N]) -> Option<Self> {
        Some(Entry { key, counts })
    }
    #[inline(always)]
    fn key(&self) -> K {
        self.key
    }
    #[inline(always)]
    fn counts(&self) -> [u64; N] {
        self.counts
    }
    #[inline]
    fn add(&mut self, other: &Self) -> bool {
        add_counts(&mut self.counts, &other.counts)
    }
}

/// Bits of each count in a [`Packed2`].
const PACKED_COUNT_BITS: u32 = 39;
const PACKED_COUNT_MASK: u128 = (1 << PACKED_COUNT_BITS) - 1;
/// The key's bits in a [`Packed2`].
const PACKED_KEY_MASK: u64 = (1 << 50) - 1;

/// Two classes on a board of at most 25 squares in 16 bytes instead of 24: the key's two
/// 25-bit disc sets in bits 0..50, the counts in bits 50..89 and 89..128. Counts of 2^39
/// (5.5e11) or more do not fit: the run then starts again with [`Entry`]. On 5x5 from the start
/// (both classes under 2e11 games) this is what keeps the two largest layers under 4 GiB.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Packed2(u128);

impl Slot<2> for Packed2 {
    type K = u64;
    const FREE: Self = Packed2(0);
    #[inline(always)]
    fn pack(key: u64, counts: [u64; 2]) -> Option<Self> {
        let dense = (key & 0x1FF_FFFF) | ((key >> 32) << 25);
        let fits = key >> 57 == 0 && (key >> 25) & 0x7F == 0;
        let (a, b) = (u128::from(counts[0]), u128::from(counts[1]));
        (fits && a <= PACKED_COUNT_MASK && b <= PACKED_COUNT_MASK)
            .then(|| Packed2(u128::from(dense) | (a << 50) | (b << 89)))
    }
    #[inline(always)]
    fn key(&self) -> u64 {
        let dense = (self.0 as u64) & PACKED_KEY_MASK;
        (dense & 0x1FF_FFFF) | ((dense >> 25) << 32)
    }
    #[inline(always)]
    fn counts(&self) -> [u64; 2] {
        [
            ((self.0 >> 50) & PACKED_COUNT_MASK) as u64,
            (self.0 >> 89) as u64,
        ]
    }
    #[inline(always)]
    fn is_free(&self) -> bool {
        (self.0 as u64) & PACKED_KEY_MASK == 0
    }
    #[inline(always)]
    fn same_key(&self, other: &Self) -> bool {
        ((self.0 ^ other.0) as u64) & PACKED_KEY_MASK == 0
    }
    #[inline]
    fn add(&mut self, other: &Self) -> bool {
        let a = ((self.0 >> 50) & PACKED_COUNT_MASK) + ((other.0 >> 50) & PACKED_COUNT_MASK);
        let b = (self.0 >> 89) + (other.0 >> 89);
        let ok = a <= PACKED_COUNT_MASK && b <= PACKED_COUNT_MASK;
        self.0 = (self.0 & ((1 << 50) - 1)) | ((a & PACKED_COUNT_MASK) << 50) | (b << 89);
        ok
    }
}

/// A layer: its positions by colour to move and hash partition, no key twice.
pub(crate) struct Layer<S: Copy, const N: usize> {
    /// Discs on the board.
    pub discs: u32,
    /// Partitions per colour.
    per_half: usize,
    /// `parts[h * per_half + j]`: the positions with colour `h` to move (0 black, 1 white) whose
    /// key hashes to partition `j`.
    parts: Vec<HugeBuf<S>>,
}

/// The partition of a hash among `n` (the high 32 bits, scaled).
#[inline(always)]
fn partition(hash: u64, n: usize) -> usize {
    (((hash >> 32) * n as u64) >> 32) as usize
}

/// The table of a layer of `per_half` partitions per colour that holds a position of colour
/// `h` to move (0 black, 1 white) whose key hashes to `hash`.
pub(crate) fn table_index(h: usize, hash: u64, per_half: usize) -> usize {
    h * per_half + partition(hash, per_half)
}

/// A layer being filled with entries whose number per table ([`table_index`]) is known
/// beforehand, so that each table is sized once.
pub(crate) struct Filling<S: Slot<N>, const N: usize> {
    discs: u32,
    per_half: usize,
    tables: Vec<Table<S, N>>,
    ok: bool,
}

impl<S: Slot<N>, const N: usize> Filling<S, N> {
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
    pub(crate) fn new(discs: u32, per_half: usize, sizes: &[usize]) -> Filling<S, N> {
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

    /// Adds a position of colour `h` to move, merging its counts with an equal key's.
    pub(crate) fn insert(&mut self, h: usize, e: S) {
        let hash = e.key().hash();
        self.ok &= self.tables[table_index(h, hash, self.per_half)].insert(e, hash);
    }

    /// The layer; `None` if a merged count overflowed.
    pub(crate) fn finish(self) -> Option<Layer<S, N>> {
        self.ok.then(|| Layer {
            discs: self.discs,
            per_half: self.per_half,
            parts: self.tables.into_iter().map(Table::into_part).collect(),
        })
    }
}

impl<S: Slot<N>, const N: usize> Layer<S, N> {
    /// The layer holding `entries` (`(colour to move, slot)`), equal keys merged, split into
    /// `per_half` partitions per colour. `None` if a merged count overflowed.
    ///
    /// Each table is sized for its entries before any is inserted. (Grown from empty, a table
    /// fed the entries of a saved layer, which come in the order of their hashes, piled them
    /// into one run of slots: resuming 4x6 from a checkpoint of 13 layers took 179 s against
    /// 13 s for the whole count.)
    pub(crate) fn from_entries(
        discs: u32,
        per_half: usize,
        entries: Vec<(usize, S)>,
    ) -> Option<Layer<S, N>> {
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
    fn bytes(&self) -> usize {
        self.parts.iter().map(HugeBuf::bytes).sum::<usize>()
    }
}

/// An open-addressing table (linear probing) of one partition of the next layer. The default
/// key marks a free slot.
struct Table<S: Copy, const N: usize> {
    /// On whole huge pages (see [`HugeBuf`]): the random probes of a table much larger than
    /// the caches would each walk the page tables otherwise.
    slots: HugeBuf<S>,
    len: usize,
}

impl<S: Slot<N>, const N: usize> Table<S, N> {
    /// A table of at least `capacity` free slots.
    fn new(capacity: usize) -> Table<S, N> {
        Table {
            slots: HugeBuf::new(capacity, S::FREE),
            len: 0,
        }
    }

    /// Adds `e` (whose key hashes to `hash`); `false` if a count overflowed.
    #[inline(always)]
    fn insert(&mut self, e: S, hash: u64) -> bool {
        // Grow at a load of 7/8, by half: the keys are well mixed, so probe runs stay short.
        if 8 * (self.len + 1) > 7 * self.slots.len() {
            self.grow();
        }
        let cap = self.slots.len();
        let mut i = (((hash & 0xFFFF_FFFF) * cap as u64) >> 32) as usize;
        loop {
            let s = &mut self.slots[i];
            if s.same_key(&e) {
                return s.add(&e);
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

    /// Adds every entry of `entries`; `false` if a count overflowed.
    ///
    /// The tables together are far larger than the caches, so each insertion would wait for
    /// its slot to come from memory. Instead the slot of each entry is prefetched a few
    /// entries ahead, and the waits overlap (measured: see BENCHMARKS.md).
    fn insert_all<'a>(&mut self, entries: impl Iterator<Item = &'a S>) -> bool {
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
    fn into_part(self) -> HugeBuf<S> {
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

    fn bytes(&self) -> usize {
        self.slots.bytes()
    }
}

/// Current-layer entries expanded between two merges into the tables (and memory checks).
/// Larger batches give each table more insertions per pass, so more of them find their line
/// already in the cache: 2M instead of 512K took 5x5 from the start from 67 to 60-62 s for
/// 0.3 GB more memory at the peak; 4M took 58 s but 3.85 GiB (see BENCHMARKS.md).
const BATCH: usize = 1 << 21;
/// Current-layer entries per parallel task.
const CHUNK: usize = 1 << 11;
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

/// A count run with the entry layout [`by_layout`] chooses.
pub(crate) trait ByLayout {
    /// Runs with entries of layout `S` holding `N` path counts.
    fn run<S: Slot<N>, const N: usize>(&self) -> Result<MethodResult, CountError>;
    /// Called before running again with wider entries, after 16-byte ones overflowed.
    fn before_widening(&self) {}
}

/// Runs `job` with the entry layout for `k` first-move classes on `root`'s board: the key type
/// by board size, the counts width by the number of classes. Two classes on at most 25
/// squares fit 16-byte entries unless a count reaches 2^39: then the job runs again, wider.
pub(crate) fn by_layout(
    root: &Position,
    k: usize,
    job: &impl ByLayout,
) -> Result<MethodResult, CountError> {
    let small = root.shape().squares() <= 32;
    macro_rules! go {
        ($n:literal) => {
            if small {
                job.run::<Entry<u64, $n>, $n>()
            } else {
                job.run::<Entry<u128, $n>, $n>()
            }
        };
    }
    match k {
        1 => go!(1),
        2 if root.shape().squares() <= 25 => match job.run::<Packed2, 2>() {
            Err(CountError::Overflow(_)) => {
                job.before_widening();
                job.run::<Entry<u64, 2>, 2>()
            }
            r => r,
        },
        2 => go!(2),
        3 | 4 => go!(4),
        5..=8 => go!(8),
        9..=32 => go!(32),
        k => Err(CountError::Checkpoint {
            path: "-".into(),
            msg: format!("{k} first-move classes: dp handles at most 32; use --method dfs"),
        }),
    }
}

/// The one-process count, for [`by_layout`].
struct OneProcess<'a> {
    root: &'a Position,
    classes: &'a [Class],
    opts: &'a CountOptions,
    progress: &'a dyn Progress,
}

impl ByLayout for OneProcess<'_> {
    fn run<S: Slot<N>, const N: usize>(&self) -> Result<MethodResult, CountError> {
        run_typed::<S, N>(self.root, self.classes, self.opts, self.progress)
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

/// What one worker gathered from a run of current-layer entries.
struct Local<S> {
    /// Children staged by partition of the next layer.
    staged: Vec<Vec<S>>,
    tally: Vec<u128>,
    /// No child's counts overflowed their slot.
    ok: bool,
}

fn run_typed<S: Slot<N>, const N: usize>(
    root: &Position,
    classes: &[Class],
    opts: &CountOptions,
    progress: &dyn Progress,
) -> Result<MethodResult, CountError> {
    let shape = root.shape();
    let pk = Packer::new(shape, true);
    let stride = shape.squares() as usize + 1;
    let ss = stride * stride;
    let k = classes.len();
    let budget = opts.memory_mb.saturating_mul(1 << 20);
    let plan = disk_plan(root, opts);
    let to_result = |out: disk::DiskOutcome, peak: usize, resumed: u64| MethodResult {
        exchanged: None,
        matrices: out.matrices,
        layers: Some(out.rows),
        peak_layer_mb: Some(peak.max(out.stats.peak_memory as usize) as f64 / f64::from(1 << 20)),
        disk: Some(out.stats),
        resumed_units: resumed + out.resumed_layers,
    };
    if opts.store != Store::Memory && opts.resume && disk::has_run(&plan.dir) {
        let out = disk::resume::<S, N>(root, &pk, k, &plan, progress)?;
        return Ok(to_result(out, 0, 0));
    }

    let mut matrices = vec![vec![0u128; ss]; k];
    let mut rows: Vec<LayerRow> = Vec::new();
    let discs = classes[0].pos.disc_count();
    let roots = classes.iter().enumerate().map(|(i, c)| {
        debug_assert_eq!(c.pos.disc_count(), discs);
        let mut counts = [0u64; N];
        counts[i] = 1;
        let key = S::K::canonical(&pk, c.pos.player(), c.pos.opponent());
        (
            half(c.pos.black_to_move()),
            S::pack(key, counts).expect("counts of one"),
        )
    });
    let mut layer = Layer::from_entries(discs, 1, roots.collect()).expect("counts of one");

    let cp = DpCheckpoint::new(opts.checkpoint.clone(), root, opts.symmetry, k, N);
    let mut resumed_units = 0;
    if opts.resume {
        if let Some(state) = cp.load::<S, N>(shape.squares(), budget, progress)? {
            layer = state.layer;
            matrices = state.matrices;
            rows = state.rows;
            resumed_units = rows.len() as u64;
        }
    }

    let mut peak = layer.bytes();
    let mut growth = 4.0;
    let mut done_here = 0u64;
    let mut last_save = Instant::now();
    let mut saved_once = false;
    // Saving costs time and disk: save after `checkpoint_secs` of work at the earliest, and
    // spend at most a twentieth of the run on it. (A stop asked for by Ctrl-C or SIGTERM
    // always saves.)
    let mut save_every = Duration::from_secs(opts.checkpoint_secs);
    let total_layers = u64::from(shape.squares().saturating_sub(layer.discs) + 1) + resumed_units;
    while layer.len() > 0 {
        let stop = progress.should_stop() || opts.stop_after.is_some_and(|n| done_here >= n);
        if stop {
            let saved = cp.save(&layer, &matrices, &rows)?;
            return Err(CountError::Interrupted {
                done: rows.len() as u64,
                total: total_layers,
                unit: "layers",
                saved,
            });
        }
        let first = first_need(&layer, &pk, growth);
        if opts.store == Store::Disk
            || (opts.store == Store::Auto
                && opts.memory_mb >= AUTO_DISK_MIN_MB
                && (!fits_in_memory(&layer, growth, budget) || first as u64 > budget))
        {
            // From here on the layers live on disk; the memory checkpoint is superseded.
            cp.remove();
            let out = disk::start(
                root, &pk, k, layer, &matrices, &rows, growth, &plan, progress,
            )?;
            return Ok(to_result(out, peak, resumed_units));
        }
        rows.push(LayerRow {
            discs: layer.discs,
            positions: layer.len() as u64,
        });
        progress.start(&format!("dp {:>2} discs", layer.discs), layer.len() as u64);
        let before = layer.len();
        layer = match expand(
            layer,
            &pk,
            growth,
            k,
            &mut matrices,
            &mut peak,
            (budget, first, opts.whole_process),
            progress,
        ) {
            // Stopped mid-layer: the layer is half freed, so the last checkpoint saved (by this
            // run or the one it resumed) is what can be resumed.
            Err(CountError::Interrupted { .. }) => {
                progress.finish();
                let saved = if cp.enabled() && (saved_once || resumed_units > 0) {
                    "the last checkpoint (saved at a layer's end, see --checkpoint-secs) stays: \
                     run the same command with --resume to continue"
                        .to_string()
                } else {
                    "nothing saved yet (a layer is saved after --checkpoint-secs of work)"
                        .to_string()
                };
                return Err(CountError::Interrupted {
                    done: rows.len() as u64 - 1,
                    total: total_layers,
                    unit: "layers",
                    saved,
                });
            }
            r => r?,
        };
        progress.finish();
        growth = layer.len() as f64 / before as f64;
        done_here += 1;
        if cp.enabled() && layer.len() > 0 && last_save.elapsed() >= save_every {
            let t = Instant::now();
            cp.save(&layer, &matrices, &rows)?;
            saved_once = true;
            save_every = save_every.max(20 * t.elapsed());
            last_save = Instant::now();
        }
    }
    cp.remove();
    Ok(MethodResult {
        exchanged: None,
        matrices,
        layers: Some(rows),
        peak_layer_mb: Some(peak as f64 / f64::from(1 << 20)),
        disk: None,
        resumed_units,
    })
}

/// The smallest `--memory` with which `auto` moves to the disk store: under it, a board too
/// large for memory is refused at once, as by the memory store, rather than counted in
/// thousands of parts (`--store disk` takes any budget).
pub const AUTO_DISK_MIN_MB: u64 = 64;

/// Whether the memory store is sure to expand `layer` within `budget`, so that `auto` keeps
/// it in memory: the whole current layer (its batches are freed as they are expanded, but
/// early on most of it is still held), the next layer's tables at their load when they grow,
/// guessed from the last growth with a third to spare, and a batch's staged children (about
/// six per position, in buffers up to twice their length). An expansion that went over the
/// budget half-way would have freed part of the layer it needs, so this errs on the side of
/// the disk store. (On 4x7 a guess without the whole current layer went over by a twentieth.)
fn fits_in_memory<S: Slot<N>, const N: usize>(
    layer: &Layer<S, N>,
    growth: f64,
    budget: u64,
) -> bool {
    let slot = std::mem::size_of::<S>() as f64;
    let next = layer.len() as f64 * growth.clamp(0.5, 4.0) * slot * 8.0 / 7.0 * 1.3;
    let staged = (BATCH.min(layer.len())) as f64 * slot * 12.0;
    next + layer.bytes() as f64 + staged <= budget as f64
}

/// The disk store's directory and budgets for a count of `root`.
fn disk_plan(root: &Position, opts: &CountOptions) -> disk::DiskPlan {
    let dir = super::disk_run_dir(root, opts);
    let disk_budget = opts.disk_bytes.unwrap_or_else(|| {
        disk::free_bytes(&opts.tmp_dir)
            .unwrap_or(0)
            .saturating_sub(1 << 30)
    });
    disk::DiskPlan {
        dir,
        disk_budget,
        memory_budget: opts.memory_mb.saturating_mul(1 << 20),
        whole_process: opts.whole_process,
    }
}

/// The half of a layer for a colour to move.
#[inline]
fn half(black_to_move: bool) -> usize {
    usize::from(!black_to_move)
}

/// Entries of the first batch of a layer at most (more when its first partition is larger):
/// small, so that the children per position it measures budget the later batches.
const FIRST_BATCH: usize = 1 << 16;

/// The batch of whole partitions from partition `i` holding at most `cap` entries (at least
/// one partition): the partition after it and its entries.
fn batch_from<S: Slot<N>, const N: usize>(
    layer: &Layer<S, N>,
    i: usize,
    cap: usize,
) -> (usize, usize) {
    let (mut j, mut n) = (i, 0);
    while j < layer.parts.len() && (n == 0 || n + layer.parts[j].len() <= cap) {
        n += layer.parts[j].len();
        j += 1;
    }
    (j, n)
}

/// The first batch of a layer (see [`FIRST_BATCH`]).
fn first_batch<S: Slot<N>, const N: usize>(layer: &Layer<S, N>) -> (usize, usize) {
    batch_from(layer, 0, FIRST_BATCH)
}

/// The memory the expansion of `layer` needs before its first batch is merged: the layer, the
/// next layer's first tables, and the first batch's staged children (their number from the
/// moves of a sample of its entries) with the growth of the tables they may cause.
fn first_need<S: Slot<N>, const N: usize>(layer: &Layer<S, N>, pk: &Packer, growth: f64) -> usize {
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
    let tables = Building::<S, N>::bytes_for(guess, black).max(children * slot * 12 / 7);
    layer.bytes() + tables + children * slot * 2
}

/// The next layer's expected positions (from the last growth, aimed a little low: a table
/// that fills grows by half, and a guess too high would cost memory at the peak; layers grow
/// by up to about four times early on) and share with black to move (children mostly have
/// the other colour to move).
fn next_layer_guess<S: Slot<N>, const N: usize>(layer: &Layer<S, N>, growth: f64) -> (usize, f64) {
    let guess = (layer.len() as f64 * (0.75 * growth).clamp(0.5, 4.0)) as usize;
    let black_here = layer.half_len(0) as f64 / layer.len().max(1) as f64;
    (guess, 1.0 - black_here)
}

/// Expands one layer into the next, freeing it as it goes, and tallies ended games into
/// `matrices`. Every large allocation is checked against `budget` before it is made; `first`
/// is what the tables' first size and the first batch need ([`first_need`], which the caller
/// also chose the store by).
#[allow(clippy::too_many_arguments)]
fn expand<S: Slot<N>, const N: usize>(
    mut layer: Layer<S, N>,
    pk: &Packer,
    growth: f64,
    k: usize,
    matrices: &mut [Vec<u128>],
    peak: &mut usize,
    (budget, first, whole_process): (u64, usize, bool),
    progress: &dyn Progress,
) -> Result<Layer<S, N>, CountError> {
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
    let x = Expansion::new(pk, next.per_half, None);
    let mut tally = Tally::new(k, shape);
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
        let staged_bytes = next.expand_batch(&tasks, &x, &mut tally, &mut ok);
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
    tally.add_into(matrices);
    Ok(next.into_layer(layer.discs + 1))
}

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

/// Stages the children of the entries of `chunk` in `l` (see [`expand_one`]), with the copy of
/// the code compiled for the CPU's instructions (`cpu::level`): population counts, BMI2 shifts
/// and AVX2 or AVX-512 flips make the expansion about a fifth faster than the portable copy.
/// Results are identical (a test checks it).
fn expand_chunk<S: Slot<N>, const N: usize>(
    chunk: &[S],
    btm: bool,
    x: &Expansion,
    l: &mut Local<S>,
) -> bool {
    match crate::cpu::level() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `cpu::level` found the features this copy is compiled for.
        crate::cpu::Level::V4 => unsafe { v4::chunk(chunk, btm, x, l) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        crate::cpu::Level::V3 => unsafe { v3::chunk(chunk, btm, x, l) },
        _ => expand_all(chunk, btm, x, l, flips),
    }
}

/// [`expand_one`] on every entry of `chunk`, with `flip` computing the flips of a move;
/// always inlined, so each copy below compiles it with its own instructions.
#[inline(always)]
fn expand_all<S: Slot<N>, const N: usize>(
    chunk: &[S],
    btm: bool,
    x: &Expansion,
    l: &mut Local<S>,
    flip: impl Fn(u64, u64, u32) -> u64 + Copy,
) -> bool {
    let mut ok = true;
    for e in chunk {
        ok &= expand_one(e, btm, x, l, flip);
    }
    ok
}

/// Stamps out a copy of [`expand_all`] compiled with the target features of one CPU level.
macro_rules! expanders {
    ($($name:ident: $features:literal, $flip:expr;)*) => {$(
        #[cfg(target_arch = "x86_64")]
        mod $name {
            use super::{expand_all, Expansion, Local, Slot};
            /// [`expand_all`] compiled with these target features.
            ///
            /// # Safety
            /// The CPU must have the features (checked by `cpu::level`).
            #[target_feature(enable = $features)]
            pub(super) unsafe fn chunk<S: Slot<N>, const N: usize>(
                chunk: &[S],
                btm: bool,
                x: &Expansion,
                l: &mut Local<S>,
            ) -> bool {
                expand_all(chunk, btm, x, l, $flip)
            }
        }
    )*};
}

expanders! {
    // A closure inherits its function's target features, so it may call the AVX2 flips.
    v3: "popcnt,lzcnt,bmi1,bmi2,avx2", |p, o, sq| crate::board::flips_avx2(p, o, sq);
    // The portable flips, which the compiler vectorizes here with AVX-512's `lzcnt`.
    v4: "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd,avx512bw,avx512dq",
        crate::board::flips;
}

/// What expanding a layer needs besides its entries.
pub(crate) struct Expansion<'a> {
    /// The keys' packer.
    pk: &'a Packer,
    /// The board's squares.
    mask: u64,
    /// Row length of the score tally (squares + 1).
    stride: usize,
    /// Partitions per colour of the next layer.
    per_half: usize,
    /// Only the children whose split signature falls in this range (all when `None`): the
    /// disk store builds the next layer one range at a time (see [`split`]).
    keep: Option<(&'a Splitter, SplitRange)>,
}

impl<'a> Expansion<'a> {
    pub(crate) fn new(
        pk: &'a Packer,
        per_half: usize,
        keep: Option<(&'a Splitter, SplitRange)>,
    ) -> Expansion<'a> {
        let shape = pk.shape;
        Expansion {
            pk,
            mask: shape.mask(),
            stride: shape.squares() as usize + 1,
            per_half,
            keep,
        }
    }
}

/// Stages the children of one entry in `l`, tallying those that end the game.
#[inline(always)]
fn expand_one<S: Slot<N>, const N: usize>(
    e: &S,
    btm: bool,
    x: &Expansion,
    l: &mut Local<S>,
    flip: impl Fn(u64, u64, u32) -> u64,
) -> bool {
    let Expansion {
        pk,
        mask,
        stride,
        per_half,
        keep,
    } = *x;
    let ss = stride * stride;
    let (p, o) = e.key().decode(pk);
    let counts = e.counts();
    let mut ok = true;
    let empty = mask & !(p | o);
    for sq in Squares(legal_moves(p, o, empty)) {
        let bit = 1u64 << sq;
        let f = flip(p, o, sq);
        let (np, no) = (o ^ f, p | f | bit);
        let ne = empty ^ bit;
        if let Some((splitter, range)) = keep {
            // Decided before the costlier pass check and canonical key, from the discs alone.
            let (b, w) = if btm { (no, np) } else { (np, no) };
            if !range.contains(splitter.signature(b, w)) {
                continue;
            }
        }
        // The child, with a forced pass folded in.
        let (cp, co, cbtm) = if has_moves(np, no, ne) {
            (np, no, !btm)
        } else if has_moves(no, np, ne) {
            (no, np, btm)
        } else {
            let (b, w) = if btm { (no, np) } else { (np, no) };
            let idx = b.count_ones() as usize * stride + w.count_ones() as usize;
            for (c, &n) in counts.iter().enumerate() {
                if n > 0 {
                    l.tally[c * ss + idx] += u128::from(n);
                }
            }
            continue;
        };
        let key = S::K::canonical(pk, cp, co);
        let t = half(cbtm) * per_half + partition(key.hash(), per_half);
        match S::pack(key, counts) {
            Some(child) => l.staged[t].push(child),
            None => ok = false,
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips() {
        for (r, c) in [(3, 3), (4, 8), (5, 5), (8, 4)] {
            let shape = Shape::new(r, c).unwrap();
            let pk = Packer::new(shape, true);
            let m = shape.mask();
            for b in [m, m & 0x5555_5555_5555_5555, 0, 1] {
                assert_eq!(pk.unpack(pk.pack(b)), b);
                assert!(pk.pack(b) < (1u64 << 32));
            }
        }
    }

    /// The copies of the expansion compiled for AVX2 and AVX-512 CPUs stage the same children
    /// in the same order and tally the same ended games as the portable one.
    #[test]
    fn every_copy_agrees() {
        let shape = Shape::new(5, 5).unwrap();
        let pk = Packer::new(shape, true);
        let mask = shape.mask();
        let stride = shape.squares() as usize + 1;
        let per_half = 4;
        let x = Expansion::new(&pk, per_half, None);
        let mut rng = crate::rng::SplitMix64::new(7);
        let chunk: Vec<Packed2> = (0..3000)
            .map(|_| {
                let (r1, r2) = (rng.next() & mask, rng.next() & mask);
                // Mostly full boards, so that passes and ended games occur.
                let (p, o) = (r1 & r2, !r1 & r2 & mask | (r1 & !r2 & rng.next()));
                let o = o & !p;
                let key = <u64 as Key>::canonical(&pk, p, o);
                Packed2::pack(key, [rng.next() >> 40, 3]).unwrap()
            })
            .collect();
        let run = |f: &dyn Fn(&mut Local<Packed2>) -> bool| {
            let mut l = Local {
                staged: (0..2 * per_half).map(|_| Vec::new()).collect(),
                tally: vec![0u128; 2 * stride * stride],
                ok: true,
            };
            assert!(f(&mut l));
            let staged: Vec<Vec<(u64, [u64; 2])>> = l
                .staged
                .iter()
                .map(|v| v.iter().map(|e| (e.key(), e.counts())).collect())
                .collect();
            (staged, l.tally)
        };
        for btm in [true, false] {
            let portable = run(&|l| expand_all(&chunk, btm, &x, l, flips));
            assert!(portable.0.iter().map(Vec::len).sum::<usize>() > 1000);
            assert!(portable.1.iter().any(|&n| n > 0), "some games end");
            #[cfg(target_arch = "x86_64")]
            {
                let level = crate::cpu::level();
                if level >= crate::cpu::Level::V3 {
                    // SAFETY: the CPU has the features of this copy.
                    let v3 = run(&|l| unsafe { v3::chunk(&chunk, btm, &x, l) });
                    assert_eq!(v3, portable);
                }
                if level >= crate::cpu::Level::V4 {
                    // SAFETY: as above.
                    let v4 = run(&|l| unsafe { v4::chunk(&chunk, btm, &x, l) });
                    assert_eq!(v4, portable);
                }
            }
        }
    }

    /// The canonical key from the lane tables is the least packed key of an image under the
    /// board's symmetries, computed square by square by `Symmetry::apply`.
    #[test]
    fn canonical_keys_are_the_least_image() {
        let mut rng = crate::rng::SplitMix64::new(11);
        for (r, c) in [(3, 3), (4, 4), (5, 5), (4, 7), (3, 8), (5, 6), (8, 4)] {
            let shape = Shape::new(r, c).unwrap();
            let pk = Packer::new(shape, true);
            let plain = Packer::new(shape, false);
            let m = shape.mask();
            for _ in 0..2000 {
                let (a, b) = (rng.next() & m, rng.next() & m);
                let (p, o) = (a & !b, b & !a & rng.next());
                let slow = Symmetry::all(shape)
                    .iter()
                    .map(|s| <u64 as Key>::encode(&plain, s.apply(shape, p), s.apply(shape, o)))
                    .min()
                    .unwrap();
                assert_eq!(
                    <u64 as Key>::canonical(&pk, p, o),
                    slow,
                    "{shape} {p:x} {o:x}"
                );
                assert_eq!(
                    <u64 as Key>::canonical(&plain, p, o),
                    <u64 as Key>::encode(&plain, p, o)
                );
            }
        }
    }

    #[test]
    fn packed_slots_round_trip_and_refuse_overflow() {
        let shape = Shape::new(5, 5).unwrap();
        let pk = Packer::new(shape, false);
        let (p, o) = (0x0001_0203u64 & shape.mask(), 0x0110_0000u64 & shape.mask());
        let key = <u64 as Key>::encode(&pk, p, o);
        let max = (1u64 << PACKED_COUNT_BITS) - 1;
        let mut s = Packed2::pack(key, [max - 1, 7]).unwrap();
        assert_eq!((s.key(), s.counts()), (key, [max - 1, 7]));
        assert_eq!(s.key().decode(&pk), (p, o));
        assert!(s.add(&Packed2::pack(key, [1, max - 7]).unwrap()));
        assert_eq!(s.counts(), [max, max]);
        assert!(!s.add(&Packed2::pack(key, [1, 0]).unwrap()));
        assert!(Packed2::pack(key, [max + 1, 0]).is_none());
        assert!(Packed2::pack(key, [0, max + 1]).is_none());
    }
}
