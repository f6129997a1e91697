//! The transposition table: a lean open-addressing table of value bounds, shared by threads.
//!
//! Each entry holds the full position as its key (the discs of the side to move and of the
//! other side, 128 bits, so a hit is never a different position) and one data word:
//!
//! ```text
//!  bit  0..8   lower bound + 64     bit 24..32  empty squares (the subtree's size class)
//!  bit  8..16  upper bound + 64     bit 32..48  version (bumped on every write)
//!  bit 16..24  best move (255 none) bit 48..52  selectivity (0: exact)
//!                                   bit 63      lock (a write is in progress)
//! ```
//!
//! Exact bounds are facts about a position (the final disc difference for the side to move
//! under perfect play lies in `[lower, upper]`), so they never go stale and the table can be
//! kept across queries on the same board shape. The selective passes of
//! [`probcut`](super::probcut) store bounds marked with their level, which only searches as
//! selective read; a selective store never replaces an exact entry of the same position, and
//! an exact store replaces a selective entry's bounds.
//!
//! Threads share the table without locks on reads: a reader takes the data word, then the key,
//! then the data word again, and trusts the entry only if the two data words agree and no write
//! was in progress (a sequence lock; the 16-bit version makes a torn read that still matches
//! require 65,536 writes to one entry during one read). A writer claims the entry by setting
//! the lock bit with a compare-and-swap and skips the store if another thread holds it: the
//! table is a cache, and a store lost is only work redone.
//!
//! Buckets are two entries: the first keeps the entry with more empty squares (the costlier
//! subtree), the second always takes the newest store. The table has two parts ([`Part`]): the
//! main one, and a near one of at most [`NEAR_MB`] MiB where the search keeps, on 8x8, the
//! positions of small subtrees (`Tuning::near_empties`), the most numerous probes, so that
//! they often find their bucket in the processor's cache.

use super::watch::Top;
use rayon::prelude::*;
use std::sync::atomic::{fence, AtomicU64, Ordering};
use std::sync::Arc;

/// Bounds and best move of one position, as found in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    /// The value is at least this.
    pub lower: i32,
    /// The value is at most this.
    pub upper: i32,
    /// The best move found (a frame bit), if any.
    pub best: Option<u32>,
    /// 0 when the bounds are exact; else the selectivity level of the probcut search that
    /// found them (higher: less sure), for searches at that level or a higher one only.
    pub sel: u8,
}

/// One slot: key words and the data word.
#[derive(Debug, Default)]
struct Entry {
    p: AtomicU64,
    o: AtomicU64,
    data: AtomicU64,
}

const LOCK: u64 = 1 << 63;
const NO_MOVE: u64 = 255;
/// Bytes per entry, for sizing.
pub const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

/// Which part of the [`Table`] a position's bounds go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The main part, almost all of the table.
    Main,
    /// The near part: at most [`NEAR_MB`] MiB, small enough to stay in the processor's
    /// last-level cache, for the many positions of small subtrees.
    Near,
}

/// The most MiB the near part of a table takes.
pub const NEAR_MB: usize = 8;

/// A fixed-size table of [`Bound`]s keyed by `(player, opponent)`, in two parts ([`Part`]).
#[derive(Debug)]
pub struct Table {
    entries: Vec<Entry>,
    /// Number of buckets of the main part minus one (a power of two minus one).
    bucket_mask: usize,
    /// Number of buckets of the near part minus one (a power of two minus one).
    near_mask: usize,
    /// Nodes searched with this table so far, as searchers publish them (see
    /// [`Table::searched`]).
    searched: Arc<AtomicU64>,
    /// How far the top of a watched search has got (see [`Table::top`]).
    top: Arc<Top>,
}

/// The largest power of two at most `n` (1 for 0 and 1).
fn power_of_two_below(n: usize) -> usize {
    if n < 2 {
        1
    } else {
        1usize << (usize::BITS - 1 - n.leading_zeros())
    }
}

impl Table {
    /// A table of at most about `mb` MiB: the near part an eighth of it up to [`NEAR_MB`], the
    /// main part the rest, each rounded down to a power of two of buckets (at least one). The
    /// main part of a power of two of MiB (1 MiB and up) is what the whole table was before the
    /// near part; a budget of three times one (96, 384 MiB) loses half of it to the rounding.
    #[must_use]
    pub fn new(mb: usize) -> Table {
        let bytes = mb.saturating_mul(1 << 20);
        let near = power_of_two_below((bytes / 8).min(NEAR_MB << 20) / (2 * ENTRY_BYTES));
        let buckets =
            power_of_two_below(bytes.saturating_sub(near * 2 * ENTRY_BYTES) / (2 * ENTRY_BYTES));
        let mut entries = Vec::with_capacity(2 * (buckets + near));
        // Every probe is a random access: with 4 KiB pages each one also misses the TLB.
        crate::memory::advise_huge_pages(&entries);
        // The first touch of the pages (faults, zeroing, and finding free huge pages, seconds
        // for 2 GiB when memory is fragmented) is shared by the workers.
        entries.par_extend(
            (0..2 * (buckets + near))
                .into_par_iter()
                .map(|_| Entry::default()),
        );
        Table {
            entries,
            bucket_mask: buckets - 1,
            near_mask: near - 1,
            searched: Arc::new(AtomicU64::new(0)),
            top: Arc::new(Top::default()),
        }
    }

    /// The running count of nodes searched with this table, for progress reports from another
    /// thread while a search runs: each searcher adds its nodes every few tens of thousands and
    /// when it finishes, so the count lags the search by less than that per searcher. It only
    /// grows ([`Table::clear`] keeps it).
    #[must_use]
    pub fn searched(&self) -> &Arc<AtomicU64> {
        &self.searched
    }

    /// How far the top of the search watched with this table has got, for progress reports
    /// from another thread ([`Top`]; a solve watches each root move's search).
    #[must_use]
    pub fn top(&self) -> &Arc<Top> {
        &self.top
    }

    /// Bytes the table occupies.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.entries.len() * ENTRY_BYTES
    }

    /// Forgets every entry (needed when the board shape changes: the same discs on another
    /// board have another value).
    pub fn clear(&mut self) {
        for e in &mut self.entries {
            *e = Entry::default();
        }
    }

    /// The index of the first entry of the bucket of `(p, o)` in `part` (the near part's
    /// buckets follow the main part's).
    #[inline]
    fn bucket(&self, part: Part, p: u64, o: u64) -> usize {
        let h = (p ^ o.rotate_left(23).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let h = (h ^ (h >> 29)) as usize;
        match part {
            Part::Main => 2 * (h & self.bucket_mask),
            Part::Near => 2 * (self.bucket_mask + 1 + (h & self.near_mask)),
        }
    }

    /// Asks the processor to start loading the bucket of `(p, o)` in `part` into the cache, so
    /// that a [`Table::get`] a little later does not wait for memory. Probes are random
    /// accesses to a table far larger than the caches; the children's probes at a node are
    /// independent, so their misses can overlap (see BENCHMARKS.md, third round).
    #[inline]
    pub fn prefetch(&self, part: Part, p: u64, o: u64) {
        // Other processors get no prefetch (it is only a hint).
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (part, p, o);
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let b = self.bucket(part, p, o);
            let first = std::ptr::from_ref(&self.entries[b]).cast::<i8>();
            // A bucket is 48 bytes and may straddle two cache lines: fetch both ends.
            let last = std::ptr::from_ref(&self.entries[b + 1]).cast::<i8>();
            // SAFETY: a prefetch is only a hint to the cache; it never faults and reads nothing
            // into the program, and both pointers point into the live entries.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(first);
                _mm_prefetch::<_MM_HINT_T0>(last.wrapping_add(ENTRY_BYTES - 1));
            }
        }
    }

    /// The bounds stored for `(p, o)` in `part`, if any.
    #[inline]
    #[must_use]
    pub fn get(&self, part: Part, p: u64, o: u64) -> Option<Bound> {
        let b = self.bucket(part, p, o);
        for e in &self.entries[b..b + 2] {
            let d1 = e.data.load(Ordering::Acquire);
            if d1 == 0 || d1 & LOCK != 0 {
                continue;
            }
            let (ep, eo) = (e.p.load(Ordering::Relaxed), e.o.load(Ordering::Relaxed));
            fence(Ordering::Acquire);
            let d2 = e.data.load(Ordering::Relaxed);
            if d1 == d2 && ep == p && eo == o {
                return Some(unpack(d1));
            }
        }
        None
    }

    /// Records in `part` that the value of `(p, o)`, a position with `empties` empty squares,
    /// lies in `[bound.lower, bound.upper]` with best move `bound.best`, found by a search of
    /// selectivity `bound.sel` (0: exact). Bounds already stored for the same position at the
    /// same selectivity are kept where tighter; a surer entry stays as it is.
    #[inline]
    pub fn put(&self, part: Part, p: u64, o: u64, empties: u32, bound: Bound) {
        let Bound {
            mut lower,
            mut upper,
            mut best,
            sel,
        } = bound;
        let b = self.bucket(part, p, o);
        // Same position in either slot: update it in place. The slot is read as one
        // consistent word (the sequence lock of `get`) and locked below only if it still holds
        // that word, so the bounds merged here are this position's, never those of another
        // that a racing store puts in the slot meanwhile.
        let mut target = None;
        for i in [b, b + 1] {
            let e = &self.entries[i];
            let d = e.data.load(Ordering::Acquire);
            if d != 0
                && d & LOCK == 0
                && e.p.load(Ordering::Relaxed) == p
                && e.o.load(Ordering::Relaxed) == o
            {
                fence(Ordering::Acquire);
                if e.data.load(Ordering::Relaxed) != d {
                    // Rewritten while read: this store is given up.
                    return;
                }
                let old = unpack(d);
                if old.sel < sel {
                    // Surer bounds stay.
                    return;
                }
                if old.sel == sel {
                    lower = lower.max(old.lower);
                    upper = upper.min(old.upper);
                }
                best = best.or(old.best);
                target = Some((i, d));
                break;
            }
        }
        let (i, old) = target.unwrap_or_else(|| {
            let d = self.entries[b].data.load(Ordering::Relaxed);
            if d == 0 || (d >> 24) & 0xFF <= u64::from(empties) {
                (b, d)
            } else {
                (b + 1, self.entries[b + 1].data.load(Ordering::Relaxed))
            }
        });
        let e = &self.entries[i];
        if old & LOCK != 0
            || e.data
                .compare_exchange(old, old | LOCK, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            // Being written, or changed since it was read: this store is given up (a table
            // forgets bounds anyway).
            return;
        }
        // The lock must be seen before the new key by any reader that sees the new key: an
        // acquire CAS does not order the later stores after its own store (on aarch64 they can
        // pass it), and a reader could then pair the new key with the old, unlocked data word.
        // A release fence here, with the reader's acquire fence, is the writer's half of the
        // sequence lock (Boehm, "Can seqlocks get along with programming language memory
        // models?", 2012). On x86-64 it emits no instruction.
        fence(Ordering::Release);
        e.p.store(p, Ordering::Relaxed);
        e.o.store(o, Ordering::Relaxed);
        let version = ((old >> 32) & 0xFFFF) % 0xFFFF + 1; // 1..=65535, never 0
        e.data.store(
            pack(lower, upper, best, empties, sel) | (version << 32),
            Ordering::Release,
        );
    }
}

/// One bound as a snapshot of the table keeps it ([`Table::snapshot`]): the position, its
/// empty squares and its bounds, without the entry's version and lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Saved {
    /// Discs of the side to move.
    pub p: u64,
    /// Discs of the other side.
    pub o: u64,
    /// Empty squares of the position (the size class the table keeps it by).
    pub empties: u32,
    /// Its bounds, with the selectivity of the search that found them (`sel`, 0: exact).
    pub bound: Bound,
}

impl Table {
    /// The entry at `i` as one consistent read (the sequence lock of [`Table::get`]), unless
    /// it is empty or being written.
    #[inline]
    fn read(&self, i: usize) -> Option<(u64, u64, u64)> {
        let e = &self.entries[i];
        let d1 = e.data.load(Ordering::Acquire);
        if d1 == 0 || d1 & LOCK != 0 {
            return None;
        }
        let (p, o) = (e.p.load(Ordering::Relaxed), e.o.load(Ordering::Relaxed));
        fence(Ordering::Acquire);
        (e.data.load(Ordering::Relaxed) == d1).then_some((p, o, d1))
    }

    /// The bounds of the main part's positions with the most empty squares (the costliest
    /// subtrees): all those with at least the fewest empty squares that keeps them to `max`
    /// entries, largest subtrees first (exact before selective among equals). Safe while
    /// searches run, which it does not stop: an entry being written is left out, and an entry
    /// written meanwhile may or may not be in. An exact bound is a fact about its position and
    /// a selective one is marked with its level, which only selective searches read, so
    /// [`Table::restore`] can give both to a later search of the same board under the same
    /// scoring rule.
    #[must_use]
    pub fn snapshot(&self, max: usize) -> Vec<Saved> {
        let main = 2 * (self.bucket_mask + 1);
        // Selective passes disagree with each other now and then, and their bounds of one
        // position can cross (a lower above the upper): such an entry tells nothing, and is
        // left out. Exact bounds never cross, and the reader refuses one that does.
        let useful = |d: u64| {
            let b = unpack(d);
            b.sel == 0 || b.lower <= b.upper
        };
        let mut per_empties = [0usize; 256];
        for i in 0..main {
            if let Some((_, _, d)) = self.read(i).filter(|&(_, _, d)| useful(d)) {
                per_empties[((d >> 24) & 0xFF) as usize] += 1;
            }
        }
        // The fewest empty squares whose entries, with all larger ones, still fit in `max`.
        let mut least = 256;
        let mut kept = 0;
        while least > 0 && kept + per_empties[least - 1] <= max {
            least -= 1;
            kept += per_empties[least];
        }
        let mut saved = Vec::with_capacity(kept);
        for i in 0..main {
            if let Some((p, o, d)) = self.read(i) {
                let empties = ((d >> 24) & 0xFF) as usize;
                if useful(d) && empties >= least && saved.len() < max {
                    saved.push(Saved {
                        p,
                        o,
                        empties: empties as u32,
                        bound: unpack(d),
                    });
                }
            }
        }
        saved.sort_by_key(|s| (std::cmp::Reverse(s.empties), s.bound.sel, s.p, s.o));
        saved
    }

    /// Puts the bounds of a [`Table::snapshot`] into the main part, as a search would have.
    pub fn restore(&self, saved: &[Saved]) {
        for s in saved {
            self.put(Part::Main, s.p, s.o, s.empties, s.bound);
        }
    }
}

#[inline]
fn pack(lower: i32, upper: i32, best: Option<u32>, empties: u32, sel: u8) -> u64 {
    debug_assert!((-64..=64).contains(&lower) && (-64..=64).contains(&upper));
    (lower + 64) as u64
        | ((upper + 64) as u64) << 8
        | best.map_or(NO_MOVE, u64::from) << 16
        | u64::from(empties & 0xFF) << 24
        | u64::from(sel & 0xF) << 48
}

#[inline]
fn unpack(d: u64) -> Bound {
    let mv = (d >> 16) & 0xFF;
    Bound {
        lower: (d & 0xFF) as i32 - 64,
        upper: ((d >> 8) & 0xFF) as i32 - 64,
        best: (mv != NO_MOVE).then_some(mv as u32),
        sel: ((d >> 48) & 0xF) as u8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(lower: i32, upper: i32, best: Option<u32>, sel: u8) -> Bound {
        Bound {
            lower,
            upper,
            best,
            sel,
        }
    }

    #[test]
    fn stores_and_tightens_bounds() {
        let t = Table::new(1);
        assert_eq!(t.get(Part::Main, 1, 2), None);
        t.put(Part::Main, 1, 2, 10, bound(-64, 8, Some(5), 0));
        assert_eq!(t.get(Part::Main, 1, 2), Some(bound(-64, 8, Some(5), 0)));
        t.put(Part::Main, 1, 2, 10, bound(-4, 64, None, 0));
        let b = t.get(Part::Main, 1, 2).unwrap();
        assert_eq!((b.lower, b.upper, b.best), (-4, 8, Some(5)));
        assert_eq!(t.get(Part::Main, 2, 1), None);
    }

    #[test]
    fn selective_bounds_never_replace_surer_ones() {
        let t = Table::new(1);
        t.put(Part::Main, 1, 2, 10, bound(-4, 8, Some(5), 0));
        // A selective store leaves the exact entry as it was.
        t.put(Part::Main, 1, 2, 10, bound(6, 6, Some(7), 2));
        assert_eq!(t.get(Part::Main, 1, 2), Some(bound(-4, 8, Some(5), 0)));
        t.put(Part::Main, 3, 4, 10, bound(6, 6, Some(7), 2));
        t.put(Part::Main, 3, 4, 10, bound(-64, 2, None, 1));
        // A surer store replaces the bounds and keeps the best move when it has none.
        assert_eq!(t.get(Part::Main, 3, 4), Some(bound(-64, 2, Some(7), 1)));
        t.put(Part::Main, 3, 4, 10, bound(-10, 64, Some(9), 1));
        assert_eq!(t.get(Part::Main, 3, 4), Some(bound(-10, 2, Some(9), 1)));
    }

    #[test]
    fn a_snapshot_keeps_the_largest_subtrees() {
        let t = Table::new(1);
        for k in 1..=40u64 {
            // Empty squares 1..=40; every tenth bound selective, which a snapshot keeps with
            // its level.
            let sel = u8::from(k % 10 == 0);
            t.put(Part::Main, k, k << 32, k as u32, bound(-2, 6, Some(3), sel));
        }
        t.put(Part::Near, 99, 1 << 40, 50, bound(0, 0, None, 0));
        // Two selective bounds of one position that cross: left out.
        t.put(Part::Main, 77, 1 << 50, 3, bound(-2, 6, None, 1));
        t.put(Part::Main, 77, 1 << 50, 3, bound(8, 64, None, 1));
        assert_eq!(t.get(Part::Main, 77, 1 << 50), Some(bound(8, 6, None, 1)));
        let all = t.snapshot(1000);
        assert_eq!(
            all.len(),
            40,
            "the bounds of the main part that do not cross"
        );
        assert_eq!(all.iter().filter(|s| s.bound.sel == 1).count(), 4);
        assert!(all.windows(2).all(|w| w[0].empties >= w[1].empties));
        let some = t.snapshot(5);
        let empties: Vec<u32> = some.iter().map(|s| s.empties).collect();
        assert_eq!(empties, [40, 39, 38, 37, 36]);
        assert_eq!(some[0].bound.sel, 1);
        let u = Table::new(1);
        u.restore(&some);
        for s in &some {
            assert_eq!(u.get(Part::Main, s.p, s.o), Some(s.bound));
        }
        assert_eq!(u.get(Part::Main, 34, 34 << 32), None);
    }

    /// Threads that store and read the bounds of a few positions in one bucket at once only
    /// ever find a position's own bounds: a store never mixes in those of the position it
    /// replaces (a store that reads the slot while another thread writes it must not).
    #[test]
    fn racing_stores_never_mix_positions() {
        // Table::new(0) has one bucket of two slots in each part: every store contends.
        let t = Table::new(0);
        assert_eq!(t.bucket_mask, 0);
        let key = |k: u64| (k + 1, (k + 1) << 32);
        let own = |k: u64| {
            let lower = (k as i32) * 3 - 20;
            bound(lower, lower + 2, Some(40 + k as u32), 0)
        };
        let wrong = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for thread in 0..4u64 {
                let (t, wrong) = (&t, &wrong);
                s.spawn(move || {
                    let mut x = thread.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
                    for _ in 0..4_000_000 {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let k = x % 6;
                        let (p, o) = key(k);
                        t.put(Part::Main, p, o, 20, own(k));
                        let j = (x >> 8) % 6;
                        let (p, o) = key(j);
                        if t.get(Part::Main, p, o).is_some_and(|b| b != own(j)) {
                            wrong.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert_eq!(
            wrong.load(Ordering::Relaxed),
            0,
            "bounds of another position read"
        );
        for s in t.snapshot(10) {
            let k = s.p - 1;
            assert_eq!((s.p, s.o, s.bound), (key(k).0, key(k).1, own(k)));
        }
    }

    #[test]
    fn size_is_bounded() {
        for mb in [0, 1, 8, 96, 128, 512] {
            let t = Table::new(mb);
            assert!(t.bytes() > 0);
            assert!(
                mb == 0 || t.bytes() <= mb << 20,
                "{mb} MiB: {} bytes",
                t.bytes()
            );
            assert!((t.near_mask + 1) * 2 * ENTRY_BYTES <= NEAR_MB << 20);
        }
        // The main part of the usual sizes as before the near part: 96 MiB of 128, 384 of 512.
        assert_eq!(Table::new(128).bucket_mask + 1, 1 << 21);
        assert_eq!(Table::new(512).bucket_mask + 1, 1 << 23);
    }

    #[test]
    fn the_two_parts_are_apart() {
        let t = Table::new(1);
        t.put(Part::Near, 1, 2, 8, bound(-4, 8, Some(5), 0));
        assert_eq!(t.get(Part::Main, 1, 2), None);
        assert_eq!(t.get(Part::Near, 1, 2), Some(bound(-4, 8, Some(5), 0)));
        t.put(Part::Main, 1, 2, 8, bound(0, 0, Some(6), 0));
        assert_eq!(t.get(Part::Near, 1, 2), Some(bound(-4, 8, Some(5), 0)));
        assert_eq!(t.get(Part::Main, 1, 2), Some(bound(0, 0, Some(6), 0)));
        // Every near bucket lies past the main part.
        for k in 0..1000u64 {
            assert!(t.bucket(Part::Near, k, k * 7 + 1) >= 2 * (t.bucket_mask + 1));
            assert!(t.bucket(Part::Near, k, k * 7 + 1) + 1 < t.entries.len());
        }
    }
}
