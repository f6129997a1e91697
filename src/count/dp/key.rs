//! Keys of positions: both disc sets packed into one integer, and the canonical form under the
//! board's symmetries from tables of every symmetry's image of each row.

use crate::board::{canonical_discs, Shape, Symmetry};

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
    pub(crate) shape: Shape,
    rows: u32,
    cols: u32,
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
    /// The board's symmetries (the first lanes of [`Packer::wide`]).
    symmetries: usize,
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
            symmetry,
            wide: Vec::new(),
            symmetries: Symmetry::all(shape).len(),
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
        self.shape.pack(b)
    }

    #[inline(always)]
    fn unpack(&self, d: u64) -> u64 {
        self.shape.unpack(d)
    }

    /// The packed images of the frames `p` and `o` under every symmetry, lane by lane (see
    /// [`Packer::wide`]).
    #[inline(always)]
    fn images(&self, p: u64, o: u64) -> ([u32; 8], [u32; 8]) {
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
        (ip, io)
    }

    /// The least packed key `p | o << 32` of an image of the frames `p` and `o` (see
    /// [`Packer::wide`]).
    #[inline(always)]
    fn least_image(&self, p: u64, o: u64) -> u64 {
        let (ip, io) = self.images(p, o);
        // With the top bit flipped, the keys' order as signed numbers is theirs as unsigned
        // ones, and signed minima compile to vector compares (AVX2 has no unsigned ones).
        const TOP: u64 = 1 << 63;
        let mut best = i64::MAX;
        for l in 0..8 {
            best = best.min(((u64::from(ip[l]) | (u64::from(io[l]) << 32)) ^ TOP) as i64);
        }
        best as u64 ^ TOP
    }

    /// The canonical `u64` key of `(p, o)` ([`Key::canonical`]) and the index in
    /// [`Symmetry::all`] of a symmetry that maps `(p, o)` to the image it packs: strong's
    /// forward pass tracks which images of a position are reached. Boards of at most 32
    /// squares; without symmetries the key of `(p, o)` itself and the identity.
    #[inline(always)]
    pub(crate) fn canonical_by(&self, p: u64, o: u64) -> (u64, usize) {
        if self.wide.is_empty() {
            return (<u64 as Key>::encode(self, p, o), 0);
        }
        let (ip, io) = self.images(p, o);
        let mut best = (u64::MAX, 0);
        for l in 0..self.symmetries {
            best = best.min((u64::from(ip[l]) | (u64::from(io[l]) << 32), l));
        }
        best
    }
}

/// The finaliser of splitmix64: a bijection of `u64` that mixes every bit into every bit.
#[inline(always)]
pub(crate) fn mix(mut x: u64) -> u64 {
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
                let (key, s) = pk.canonical_by(p, o);
                let sym = Symmetry::all(shape)[s];
                assert_eq!(key, slow);
                assert_eq!(
                    <u64 as Key>::encode(&plain, sym.apply(shape, p), sym.apply(shape, o)),
                    key
                );
                assert_eq!(
                    <u64 as Key>::canonical(&plain, p, o),
                    <u64 as Key>::encode(&plain, p, o)
                );
            }
        }
    }
}
