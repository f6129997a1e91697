//! Slots of the layer tables: a key and its path counts per first-move class, plain or
//! packed into 16 bytes.

use super::key::Key;

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

/// How a table of a layer stores a position: its key and what is merged when the same key
/// comes again (dp's path counts are added, strong's reached images are or-ed). The tables
/// ([`super::layer`]) and the building of a layer ([`super::building`]) know only this.
pub(crate) trait Stored: Copy + Send + Sync + 'static {
    /// The key type.
    type K: Key;
    /// A free slot of a table.
    const FREE: Self;
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
    /// Merges `other`, which has the same key, into `self`; `false` if the result does not fit.
    fn merge(&mut self, other: &Self) -> bool;
}

/// How a layer of dp's count stores a position: its key and its path counts from `N` classes.
pub(crate) trait Slot<const N: usize>: Stored {
    /// The slot of `key` with `counts`; `None` if a count does not fit.
    fn pack(key: Self::K, counts: [u64; N]) -> Option<Self>;
    /// The path counts.
    fn counts(&self) -> [u64; N];
}

impl<K: Key, const N: usize> Stored for Entry<K, N> {
    type K = K;
    const FREE: Self = Entry {
        key: K::FREE,
        counts: [0; N],
    };
    #[inline(always)]
    fn key(&self) -> K {
        self.key
    }
    #[inline]
    fn merge(&mut self, other: &Self) -> bool {
        add_counts(&mut self.counts, &other.counts)
    }
}

impl<K: Key, const N: usize> Slot<N> for Entry<K, N> {
    #[inline(always)]
    fn pack(key: K, counts: [u64; N]) -> Option<Self> {
        Some(Entry { key, counts })
    }
    #[inline(always)]
    fn counts(&self) -> [u64; N] {
        self.counts
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

impl Stored for Packed2 {
    type K = u64;
    const FREE: Self = Packed2(0);
    #[inline(always)]
    fn key(&self) -> u64 {
        let dense = (self.0 as u64) & PACKED_KEY_MASK;
        (dense & 0x1FF_FFFF) | ((dense >> 25) << 32)
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
    fn merge(&mut self, other: &Self) -> bool {
        let a = ((self.0 >> 50) & PACKED_COUNT_MASK) + ((other.0 >> 50) & PACKED_COUNT_MASK);
        let b = (self.0 >> 89) + (other.0 >> 89);
        let ok = a <= PACKED_COUNT_MASK && b <= PACKED_COUNT_MASK;
        self.0 = (self.0 & ((1 << 50) - 1)) | ((a & PACKED_COUNT_MASK) << 50) | (b << 89);
        ok
    }
}

impl Slot<2> for Packed2 {
    #[inline(always)]
    fn pack(key: u64, counts: [u64; 2]) -> Option<Self> {
        let dense = (key & 0x1FF_FFFF) | ((key >> 32) << 25);
        let fits = key >> 57 == 0 && (key >> 25) & 0x7F == 0;
        let (a, b) = (u128::from(counts[0]), u128::from(counts[1]));
        (fits && a <= PACKED_COUNT_MASK && b <= PACKED_COUNT_MASK)
            .then(|| Packed2(u128::from(dense) | (a << 50) | (b << 89)))
    }
    #[inline(always)]
    fn counts(&self) -> [u64; 2] {
        [
            ((self.0 >> 50) & PACKED_COUNT_MASK) as u64,
            (self.0 >> 89) as u64,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Shape;
    use crate::count::dp::key::Packer;

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
        assert!(s.merge(&Packed2::pack(key, [1, max - 7]).unwrap()));
        assert_eq!(s.counts(), [max, max]);
        assert!(!s.merge(&Packed2::pack(key, [1, 0]).unwrap()));
        assert!(Packed2::pack(key, [max + 1, 0]).is_none());
        assert!(Packed2::pack(key, [0, max + 1]).is_none());
    }
}
