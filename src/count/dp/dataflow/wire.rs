//! What the workers send each other: children as words, and the end-of-layer statistics.

use serde::{Deserialize, Serialize};

use super::super::{Key, Slot};
use super::job::Fail;

/// Received children staged before they are merged into the tables.
pub(super) const STAGE: usize = 1 << 21;

/// Children staged before they are sent and the worker takes in what others sent.
pub(super) const FLUSH: usize = 1 << 14;

/// A message between workers, routed to worker `to` by timely's exchange.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct Msg {
    pub(super) to: u32,
    pub(super) body: Body,
}

#[derive(Clone, Serialize, Deserialize)]
pub(super) enum Body {
    /// Children with colour `half` to move (0 black), as [`words_of`] writes them.
    Children { half: u8, words: Vec<u64> },
    /// What a worker tells every worker once per round.
    Stat(Stat),
}

/// A worker's record of one round.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct Stat {
    pub(super) from: u32,
    pub(super) handshake: u64,
    /// Handshake: the layers (bit = disc count) this worker has saved.
    pub(super) saved: u64,
    /// Positions in the worker's part of the layer.
    pub(super) len: u64,
    pub(super) fail: Option<Fail>,
    /// The worker would like the next layer saved.
    pub(super) save: bool,
    /// Final round: the worker's score tallies, as (low, high) words.
    pub(super) tally: Vec<u64>,
    /// Bytes of children the worker sent in the previous round to other workers of its
    /// process and to other processes.
    pub(super) sent: [u64; 2],
    /// Disk store: the worker's tables outgrew its budget in the round before.
    #[serde(default)]
    pub(super) over: bool,
    /// Handshake: the step of the disk store's state this worker saved, plus one (0: none).
    #[serde(default)]
    pub(super) disk_saved: u64,
}

/// 64-bit words of a key.
pub(super) fn key_words<K: Key>() -> usize {
    K::BYTES.div_ceil(8)
}

/// Appends the entries `v` to `out` as words: the key (low word first), then the counts.
pub(super) fn words_of<S: Slot<N>, const N: usize>(v: &[S], out: &mut Vec<u64>) {
    let kw = key_words::<S::K>();
    out.reserve(v.len() * (kw + N));
    for e in v {
        let b = e.key().bits();
        out.push(b as u64);
        if kw == 2 {
            out.push((b >> 64) as u64);
        }
        out.extend_from_slice(&e.counts());
    }
}

/// The entry of the words `w` ([`words_of`]); `None` for a key that is no key, or for counts
/// too large for the slot.
pub(super) fn entry_of<S: Slot<N>, const N: usize>(w: &[u64]) -> Option<S> {
    let kw = key_words::<S::K>();
    let mut bits = u128::from(w[0]);
    if kw == 2 {
        bits |= u128::from(w[1]) << 64;
    }
    let key = S::K::from_bits(bits)?;
    let mut counts = [0u64; N];
    counts.copy_from_slice(&w[kw..kw + N]);
    S::pack(key, counts)
}
