//! Splitting a layer by a signature of its positions that no symmetry changes.
//!
//! The disk store builds a layer that does not fit in memory one part at a time: each pass over
//! the current layer keeps only the children whose *signature* falls in one range. The
//! signature must be the same for a position and all its symmetric images (they share one
//! canonical key, so they must land in the same part), and cheap, since every child of every
//! pass computes it before the pass check and the canonical key are paid for. Here it is the
//! mixed sum of a random weight per (square orbit, colour) over the discs: each symmetry of the
//! board only permutes squares within their orbits, so the sum is unchanged. Per row of the
//! frame, a table holds the summed weights of every byte of discs, so a signature is two
//! lookups a row.
//!
//! Ranges are aligned binary fractions of the signature space, `[i * 2^(64-j), (i+1) *
//! 2^(64-j))`: halving a range that turned out too large for memory keeps every part already
//! written valid.

use super::key::mix;
use crate::board::{Shape, Symmetry};

/// The signature function of one board.
pub(crate) struct Splitter {
    /// `black[r][v]`: the summed weights of black discs on the row `r` bits `v`.
    black: Vec<[u64; 256]>,
    /// The same for white discs.
    white: Vec<[u64; 256]>,
}

impl Splitter {
    /// The signature of `shape`'s positions, invariant under its symmetries.
    pub(crate) fn new(shape: Shape) -> Splitter {
        let syms = Symmetry::all(shape);
        // The orbit of a square is named by its least image.
        let orbit = |sq: u32| {
            syms.iter()
                .map(|s| s.apply_square(shape, sq))
                .min()
                .expect("the identity")
        };
        let weight = |sq: u32, colour: u64| mix(0x5EED_0000 + u64::from(orbit(sq)) * 2 + colour);
        let table = |colour: u64| -> Vec<[u64; 256]> {
            (0..shape.rows())
                .map(|r| {
                    let mut t = [0u64; 256];
                    for (v, sum) in t.iter_mut().enumerate() {
                        for c in 0..shape.cols() {
                            if v >> c & 1 == 1 {
                                *sum = sum.wrapping_add(weight(8 * r + c, colour));
                            }
                        }
                    }
                    t
                })
                .collect()
        };
        Splitter {
            black: table(0),
            white: table(1),
        }
    }

    /// The signature of black discs `b` and white discs `w` (frames).
    #[inline(always)]
    pub(crate) fn signature(&self, b: u64, w: u64) -> u64 {
        let mut s = 0u64;
        for (r, (tb, tw)) in self.black.iter().zip(&self.white).enumerate() {
            s = s
                .wrapping_add(tb[(b >> (8 * r)) as u8 as usize])
                .wrapping_add(tw[(w >> (8 * r)) as u8 as usize]);
        }
        mix(s)
    }
}

/// An aligned range of signatures: the `index`-th of `2^level` equal parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SplitRange {
    /// Its first signature.
    pub lo: u64,
    /// `log2` of the number of parts the space is cut into (0: the whole space).
    pub level: u32,
}

impl SplitRange {
    /// Signatures in the range.
    #[must_use]
    pub(crate) fn width(self) -> u128 {
        1u128 << (64 - self.level)
    }

    /// Whether `sig` is in the range.
    #[inline(always)]
    pub(crate) fn contains(self, sig: u64) -> bool {
        u128::from(sig.wrapping_sub(self.lo)) < self.width()
    }

    /// The signature after the range, `None` at the end of the space.
    #[must_use]
    pub(crate) fn end(self) -> Option<u64> {
        u64::try_from(u128::from(self.lo) + self.width()).ok()
    }

    /// The fraction of the space it covers.
    #[must_use]
    pub(crate) fn fraction(self) -> f64 {
        (0.5f64).powi(self.level as i32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every symmetric image of a position has its signature, on square boards and rectangles.
    #[test]
    fn signatures_ignore_symmetry() {
        let mut rng = crate::rng::SplitMix64::new(5);
        for (r, c) in [(3, 3), (4, 4), (5, 5), (4, 7), (5, 6), (8, 8), (3, 8)] {
            let shape = Shape::new(r, c).unwrap();
            let sp = Splitter::new(shape);
            let m = shape.mask();
            let mut seen = std::collections::HashSet::new();
            for _ in 0..500 {
                let (a, x) = (rng.next() & m, rng.next() & m);
                let (b, w) = (a & !x, x & !a);
                let sig = sp.signature(b, w);
                seen.insert(sig);
                for s in Symmetry::all(shape) {
                    assert_eq!(sp.signature(s.apply(shape, b), s.apply(shape, w)), sig);
                }
            }
            if shape.squares() >= 16 {
                // (3x3 has only 675 per-orbit disc counts to tell apart.)
                assert!(seen.len() > 400, "{shape}: signatures spread");
            }
        }
    }

    #[test]
    fn ranges_cover_the_space_once() {
        let half = SplitRange {
            lo: 1 << 63,
            level: 1,
        };
        assert!(half.contains(u64::MAX) && half.contains(1 << 63) && !half.contains(5));
        assert_eq!(half.end(), None);
        let q = SplitRange { lo: 0, level: 2 };
        assert_eq!(q.end(), Some(1 << 62));
        let all = SplitRange { lo: 0, level: 0 };
        assert!(all.contains(0) && all.contains(u64::MAX));
        assert_eq!(all.end(), None);
    }
}
