//! A worker's part of a layer: the positions whose key hashes to it, in tables like the
//! one-process count's, and the children received for the next layer.

use std::collections::{BTreeMap, BTreeSet};

use super::super::layer::{partition, Table};
use super::super::{partitions_for, Key, Layer, Slot};
use super::wire::{entry_of, key_words, Body, Msg, Stat, STAGE};

/// A worker's part of the next layer while it is built: tables by colour and by the hash bits
/// below those that chose the worker.
pub(super) struct Part<S: Copy, const N: usize> {
    pub(super) me: usize,
    pub(super) peers: usize,
    /// Tables per colour.
    pub(super) q: usize,
    pub(super) tables: Vec<Table<S>>,
    /// Entries waiting, by table.
    pub(super) staged: Vec<Vec<S>>,
    pub(super) staged_n: usize,
    /// Entries staged before they are merged.
    pub(super) stage: usize,
    pub(super) ok: bool,
}

impl<S: Slot<N>, const N: usize> Part<S, N> {
    /// Tables for about `guess` positions, a share `black` of them with black to move (as
    /// `Building::new`: the halves of a layer differ greatly in size).
    pub(super) fn new(me: usize, peers: usize, guess: usize, black: f64) -> Part<S, N> {
        let black = black.clamp(0.0, 1.0);
        let major = black.max(1.0 - black);
        let q = partitions_for(
            (guess as f64 * 2.0 * major) as usize,
            std::mem::size_of::<S>(),
        )
        .max(1);
        let initial = |share: f64| (guess as f64 * share / q as f64 * 8.0 / 7.0) as usize;
        let (b, w) = (initial(black), initial(1.0 - black));
        Part {
            me,
            peers,
            q,
            tables: (0..2 * q)
                .map(|t| Table::new(if t < q { b } else { w }))
                .collect(),
            staged: (0..2 * q).map(|_| Vec::new()).collect(),
            staged_n: 0,
            stage: STAGE,
            ok: true,
        }
    }

    /// The table of an entry with colour `h` to move whose key hashes to `hash`. The worker was
    /// chosen by `partition(hash, peers)`, so `partition(hash, peers * q)` falls in this
    /// worker's run of `q`.
    #[inline]
    pub(super) fn table_of(&self, h: usize, hash: u64) -> usize {
        let g = partition(hash, self.peers * self.q) - self.me * self.q;
        debug_assert!(g < self.q, "an entry of another worker");
        h * self.q + g.min(self.q - 1)
    }

    /// Adds `e` with colour `h` to move.
    pub(super) fn insert(&mut self, h: usize, e: S) {
        let hash = e.key().hash();
        let t = self.table_of(h, hash);
        self.ok &= self.tables[t].insert(e, hash);
    }

    /// Adds the entries of `words` ([`words_of`]) with colour `h` to move; `false` if the
    /// batch does not decode. They are staged by table and merged a table at a time once
    /// `stage` ([`STAGE`] unless the disk store asks for fewer) are waiting: each table (a few MiB) then takes many insertions while it is
    /// in the cache, as the one-process count's batches do.
    pub(super) fn insert_words(&mut self, h: usize, words: &[u64]) -> bool {
        let stride = key_words::<S::K>() + N;
        for w in words.chunks_exact(stride) {
            let Some(e) = entry_of::<S, N>(w) else {
                self.ok = false;
                continue;
            };
            let t = self.table_of(h, e.key().hash());
            self.staged[t].push(e);
        }
        self.staged_n += words.len() / stride;
        if self.staged_n >= self.stage {
            self.merge_staged();
        }
        words.len().is_multiple_of(stride)
    }

    /// Merges the staged entries into their tables.
    pub(super) fn merge_staged(&mut self) {
        for (table, staged) in self.tables.iter_mut().zip(&mut self.staged) {
            self.ok &= table.insert_all(staged.iter());
            staged.clear();
        }
        self.staged_n = 0;
    }

    pub(super) fn bytes(&self) -> usize {
        self.tables.iter().map(Table::bytes).sum::<usize>()
            + self.staged.iter().map(Vec::capacity).sum::<usize>() * std::mem::size_of::<S>()
    }

    /// The finished part of the layer of `discs` discs.
    pub(super) fn into_layer(mut self, discs: u32) -> Layer<S> {
        self.merge_staged();
        Layer {
            discs,
            per_half: self.q,
            parts: self.tables.into_iter().map(Table::into_part).collect(),
        }
    }
}

/// What the merge operator has received, by round.
pub(super) struct Inbox<S: Copy, const N: usize> {
    pub(super) me: usize,
    pub(super) peers: usize,
    /// Size guess for a part not yet started, and the share of it with black to move.
    pub(super) guess: usize,
    pub(super) black: f64,
    pub(super) next: BTreeMap<u64, Part<S, N>>,
    pub(super) stats: BTreeMap<u64, Vec<Stat>>,
    /// A batch that did not decode (a bug or a foreign process): reported at the round's end.
    pub(super) bad: bool,
    /// The most bytes a part may take: past them its tables are dropped and the round is
    /// marked in `over` (the disk store builds the range again in smaller pieces).
    pub(super) cap: usize,
    pub(super) over: BTreeSet<u64>,
    /// Entries a part stages before merging them.
    pub(super) stage: usize,
}

impl<S: Slot<N>, const N: usize> Inbox<S, N> {
    pub(super) fn receive(&mut self, t: u64, m: Msg) {
        match m.body {
            Body::Stat(s) => self.stats.entry(t).or_default().push(s),
            Body::Children { half, words } => {
                if self.over.contains(&t) {
                    return;
                }
                let (me, peers, guess, black) = (self.me, self.peers, self.guess, self.black);
                let stage = self.stage;
                let part = self.next.entry(t).or_insert_with(|| {
                    let mut p = Part::new(me, peers, guess, black);
                    p.stage = stage;
                    p
                });
                self.bad |= !part.insert_words(usize::from(half & 1), &words);
                if part.bytes() > self.cap {
                    self.next.remove(&t);
                    self.over.insert(t);
                }
            }
        }
    }
}
