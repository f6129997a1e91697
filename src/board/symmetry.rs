//! The symmetries of a board and canonical forms of positions.
//!
//! A square board has the eight symmetries of the square; a rectangle has four (identity, the
//! two mirrors, and the half turn). Each acts on the frame bits of the board in the top-left
//! corner and keeps the image there.

use super::{Position, Shape};

/// One symmetry of a board, named by what it does to square `(r, c)` of an `R x C` board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Symmetry {
    /// `(r, c)`.
    Identity,
    /// `(R-1-r, c)`: top and bottom swap.
    FlipVertical,
    /// `(r, C-1-c)`: left and right swap.
    FlipHorizontal,
    /// `(R-1-r, C-1-c)`: the half turn.
    Rotate180,
    /// `(c, r)`: the main diagonal mirror (square boards only).
    Transpose,
    /// `(C-1-c, R-1-r)`: the anti-diagonal mirror (square boards only).
    AntiTranspose,
    /// `(c, R-1-r)`: a quarter turn clockwise (square boards only).
    Rotate90,
    /// `(C-1-c, r)`: a quarter turn anticlockwise (square boards only).
    Rotate270,
}

const ALL: [Symmetry; 8] = [
    Symmetry::Identity,
    Symmetry::FlipVertical,
    Symmetry::FlipHorizontal,
    Symmetry::Rotate180,
    Symmetry::Transpose,
    Symmetry::AntiTranspose,
    Symmetry::Rotate90,
    Symmetry::Rotate270,
];

/// Swaps rows `r` and `7 - r` of the frame.
#[inline]
const fn flip_frame_vertical(b: u64) -> u64 {
    b.swap_bytes()
}

/// Swaps columns `c` and `7 - c` of the frame.
#[inline]
pub(crate) const fn flip_frame_horizontal(mut b: u64) -> u64 {
    b = ((b >> 1) & 0x5555_5555_5555_5555) | ((b & 0x5555_5555_5555_5555) << 1);
    b = ((b >> 2) & 0x3333_3333_3333_3333) | ((b & 0x3333_3333_3333_3333) << 2);
    ((b >> 4) & 0x0F0F_0F0F_0F0F_0F0F) | ((b & 0x0F0F_0F0F_0F0F_0F0F) << 4)
}

/// Mirrors the frame in its main diagonal: `(r, c)` to `(c, r)`.
#[inline]
const fn transpose_frame(mut b: u64) -> u64 {
    let mut t = 0x0F0F_0F0F_0000_0000 & (b ^ (b << 28));
    b ^= t ^ (t >> 28);
    t = 0x3333_0000_3333_0000 & (b ^ (b << 14));
    b ^= t ^ (t >> 14);
    t = 0x5500_5500_5500_5500 & (b ^ (b << 7));
    b ^= t ^ (t >> 7);
    b
}

impl Symmetry {
    /// The symmetries of `shape`: 8 on a square board, 4 on a rectangle. The identity is first.
    #[must_use]
    pub fn all(shape: Shape) -> &'static [Symmetry] {
        if shape.is_square() {
            &ALL
        } else {
            &ALL[..4]
        }
    }

    /// The image of a set of squares of `shape`.
    #[inline]
    #[must_use]
    pub fn apply(self, shape: Shape, b: u64) -> u64 {
        let dv = 8 * (8 - shape.rows());
        let dh = 8 - shape.cols();
        let v = |b: u64| flip_frame_vertical(b) >> dv;
        let h = |b: u64| flip_frame_horizontal(b) >> dh;
        match self {
            Symmetry::Identity => b,
            Symmetry::FlipVertical => v(b),
            Symmetry::FlipHorizontal => h(b),
            Symmetry::Rotate180 => h(v(b)),
            Symmetry::Transpose => transpose_frame(b),
            Symmetry::AntiTranspose => transpose_frame(h(v(b))),
            // (r, c) -> (c, R-1-r): flip rows, then transpose.
            Symmetry::Rotate90 => transpose_frame(v(b)),
            // (r, c) -> (C-1-c, r): transpose, then flip rows.
            Symmetry::Rotate270 => v(transpose_frame(b)),
        }
    }

    /// The image of one square (frame bit index).
    #[must_use]
    pub fn apply_square(self, shape: Shape, sq: u32) -> u32 {
        self.apply(shape, 1u64 << sq).trailing_zeros()
    }

    /// The image of a position (same side to move).
    #[must_use]
    pub fn apply_position(self, pos: &Position) -> Position {
        let s = pos.shape();
        Position::from_player(
            s,
            self.apply(s, pos.player()),
            self.apply(s, pos.opponent()),
            pos.black_to_move(),
        )
    }
}

impl Position {
    /// The canonical form of the position's discs: the smallest `(player, opponent)` pair over
    /// all symmetric images. Symmetric positions share it, so it serves as a hash key.
    ///
    /// # Examples
    ///
    /// ```
    /// use reversi_nxn::board::Shape;
    /// let start = Shape::square(6).unwrap().start();
    /// let keys: std::collections::HashSet<_> = start
    ///     .legal_turns()
    ///     .into_iter()
    ///     .map(|m| start.apply(m).unwrap().canonical())
    ///     .collect();
    /// assert_eq!(keys.len(), 1); // the four first moves of an even board are symmetric
    /// ```
    #[must_use]
    pub fn canonical(&self) -> (u64, u64) {
        canonical_discs(self.shape(), self.player(), self.opponent())
    }
}

/// The canonical form of the disc sets `p` and `o` of `shape`: the smallest `(p, o)` pair over
/// all symmetric images, as [`Position::canonical`].
///
/// Counting by layers calls it for every child on boards of more than 32 squares (smaller
/// boards use packed byte tables), so it shares work between the images: the
/// eight images of `p` come from one vertical flip, two horizontal ones and four transposes
/// (the quarter turns and diagonal mirrors are transposes of the flips), and `o` is mapped only
/// by the symmetries that give the smallest image of `p`, usually one.
#[inline]
#[must_use]
pub fn canonical_discs(shape: Shape, p: u64, o: u64) -> (u64, u64) {
    canonical_discs_by(shape, p, o).0
}

/// [`canonical_discs`], with the index in [`Symmetry::all`] of a symmetry that maps `(p, o)`
/// to it (the first in that order, when several do).
#[inline]
#[must_use]
pub fn canonical_discs_by(shape: Shape, p: u64, o: u64) -> ((u64, u64), usize) {
    let dv = 8 * (8 - shape.rows());
    let dh = 8 - shape.cols();
    let v = |b: u64| flip_frame_vertical(b) >> dv;
    let h = |b: u64| flip_frame_horizontal(b) >> dh;
    // Images in the order Identity, FlipVertical, FlipHorizontal, Rotate180, Transpose,
    // Rotate90, Rotate270, AntiTranspose: the last four transpose the first four.
    let mut img = [0u64; 8];
    img[0] = p;
    img[1] = v(p);
    img[2] = h(p);
    img[3] = h(img[1]);
    let n = if shape.is_square() {
        for i in 0..4 {
            img[4 + i] = transpose_frame(img[i]);
        }
        8
    } else {
        4
    };
    let least = img[..n]
        .iter()
        .copied()
        .min()
        .expect("at least the identity");
    let image_of_o = |i: usize| {
        let b = if i & 3 == 0 {
            o
        } else if i & 3 == 1 {
            v(o)
        } else if i & 3 == 2 {
            h(o)
        } else {
            h(v(o))
        };
        if i >= 4 {
            transpose_frame(b)
        } else {
            b
        }
    };
    // The index in `ALL` of each image above.
    const IN_ALL: [usize; 8] = [0, 1, 2, 3, 4, 6, 7, 5];
    let mut best = (u64::MAX, usize::MAX);
    for (i, &x) in img[..n].iter().enumerate() {
        if x == least {
            best = best.min((image_of_o(i), IN_ALL[i]));
        }
    }
    ((least, best.0), best.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_discs_by_names_the_first_symmetry_reaching_the_least_image() {
        // Against the plain loop: every symmetry in `Symmetry::all`'s order, the first one
        // that gives the least (p, o) pair kept. Positions with symmetric disc sets included.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for rows in 3..=8 {
            for cols in 3..=8 {
                let shape = Shape::new(rows, cols).unwrap();
                for k in 0..300 {
                    let (a, b) = (next() & shape.mask(), next() & shape.mask());
                    let (p, o) = if k % 3 == 0 {
                        // A disc set symmetric under a flip, so that several symmetries tie.
                        let s = Symmetry::FlipHorizontal;
                        let p = (a & !b) | s.apply(shape, a & !b);
                        (p, (b & !p) | (s.apply(shape, b) & !p))
                    } else {
                        (a & !b, b & !a)
                    };
                    let mut best = ((p, o), 0);
                    for (i, &s) in Symmetry::all(shape).iter().enumerate().skip(1) {
                        let img = (s.apply(shape, p), s.apply(shape, o));
                        if img < best.0 {
                            best = (img, i);
                        }
                    }
                    assert_eq!(canonical_discs_by(shape, p, o), best, "{rows}x{cols}");
                }
            }
        }
    }

    #[test]
    fn symmetries_map_squares_as_named() {
        for (rows, cols) in [(8, 8), (5, 5), (3, 7), (6, 4)] {
            let shape = Shape::new(rows, cols).unwrap();
            for &sym in Symmetry::all(shape) {
                for r in 0..rows {
                    for c in 0..cols {
                        let (er, ec) = match sym {
                            Symmetry::Identity => (r, c),
                            Symmetry::FlipVertical => (rows - 1 - r, c),
                            Symmetry::FlipHorizontal => (r, cols - 1 - c),
                            Symmetry::Rotate180 => (rows - 1 - r, cols - 1 - c),
                            Symmetry::Transpose => (c, r),
                            Symmetry::AntiTranspose => (cols - 1 - c, rows - 1 - r),
                            Symmetry::Rotate90 => (c, rows - 1 - r),
                            Symmetry::Rotate270 => (cols - 1 - c, r),
                        };
                        assert_eq!(
                            sym.apply_square(shape, 8 * r + c),
                            8 * er + ec,
                            "{sym:?} on {shape}"
                        );
                    }
                }
                assert_eq!(sym.apply(shape, shape.mask()), shape.mask());
            }
        }
    }

    #[test]
    fn canonical_is_the_least_image() {
        // The shared-work canonical form against the definition: the least image over all
        // symmetries, on seeded random disc sets (symmetric ones included).
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for (rows, cols) in [(8, 8), (5, 5), (4, 4), (3, 7), (6, 4), (3, 3)] {
            let shape = Shape::new(rows, cols).unwrap();
            let m = shape.mask();
            for i in 0..2000 {
                let (a, b) = (next(), next());
                let (mut p, mut o) = (a & m, b & m & !a);
                if i % 4 == 0 {
                    // Make them symmetric under the vertical flip, so images tie.
                    let v = Symmetry::FlipVertical;
                    p |= v.apply(shape, p);
                    o = (o | v.apply(shape, o)) & !p;
                }
                let want = Symmetry::all(shape)
                    .iter()
                    .map(|s| (s.apply(shape, p), s.apply(shape, o)))
                    .min()
                    .unwrap();
                assert_eq!(canonical_discs(shape, p, o), want, "{shape}");
            }
        }
    }
}
