//! Board shapes: rows x columns, the mask of squares, and where the start block lies.
//!
//! [`Shape::start`], the start position itself, is written in `position.rs`: a shape knows
//! nothing of positions, so this file imports neither `position.rs` nor `notation.rs`.

use super::{square_bit, BoardError};

/// The smallest number of rows or columns.
pub const MIN_SIDE: u32 = 3;
/// The largest number of rows or columns (the 8x8 frame).
pub const MAX_SIDE: u32 = 8;

/// The size of a board: `rows x cols`, each between 3 and 8, embedded in the top-left corner of
/// the 8x8 bit frame.
///
/// # Examples
///
/// ```
/// use reversi_nxn::board::Shape;
/// let s = Shape::new(4, 5).unwrap();
/// assert_eq!(s.squares(), 20);
/// assert_eq!(s.mask().count_ones(), 20);
/// assert!(Shape::new(2, 5).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    rows: u8,
    cols: u8,
    mask: u64,
}

impl Shape {
    /// A board of `rows x cols` squares.
    ///
    /// # Errors
    ///
    /// [`BoardError::BadSize`] unless both sides are between 3 and 8.
    pub fn new(rows: u32, cols: u32) -> Result<Shape, BoardError> {
        let ok = |n: u32| (MIN_SIDE..=MAX_SIDE).contains(&n);
        if !ok(rows) || !ok(cols) {
            return Err(BoardError::BadSize { rows, cols });
        }
        let row_mask = (1u64 << cols) - 1;
        let mut mask = 0u64;
        for r in 0..rows {
            mask |= row_mask << (8 * r);
        }
        Ok(Shape {
            rows: rows as u8,
            cols: cols as u8,
            mask,
        })
    }

    /// A square board of `n x n`.
    ///
    /// # Errors
    ///
    /// [`BoardError::BadSize`] unless `3 <= n <= 8`.
    pub fn square(n: u32) -> Result<Shape, BoardError> {
        Shape::new(n, n)
    }

    /// Number of rows.
    #[inline]
    #[must_use]
    pub const fn rows(self) -> u32 {
        self.rows as u32
    }

    /// Number of columns.
    #[inline]
    #[must_use]
    pub const fn cols(self) -> u32 {
        self.cols as u32
    }

    /// The squares of the board as bits of the 8x8 frame.
    #[inline]
    #[must_use]
    pub const fn mask(self) -> u64 {
        self.mask
    }

    /// Number of squares, `rows * cols`.
    #[inline]
    #[must_use]
    pub const fn squares(self) -> u32 {
        self.rows as u32 * self.cols as u32
    }

    /// Whether the board is square (8 symmetries rather than 4).
    #[inline]
    #[must_use]
    pub const fn is_square(self) -> bool {
        self.rows == self.cols
    }

    /// Whether bit `sq` of the frame is a square of this board.
    #[inline]
    #[must_use]
    pub const fn contains(self, sq: u32) -> bool {
        sq < 64 && self.mask & (1u64 << sq) != 0
    }

    /// The square at `(row, col)` as a bit of the frame (`row < rows`, `col < cols`).
    #[inline]
    #[must_use]
    pub const fn bit(self, row: u32, col: u32) -> u64 {
        debug_assert!(row < self.rows as u32 && col < self.cols as u32);
        square_bit(row, col)
    }

    /// The squares of the frame bits `b` packed densely, row after row, `cols` bits per row,
    /// into the low `squares` bits: the form keys of positions are made of.
    #[inline(always)]
    #[must_use]
    pub const fn pack(self, b: u64) -> u64 {
        let (rows, cols) = (self.rows as u32, self.cols as u32);
        let row_mask = (1u64 << cols) - 1;
        let mut out = 0;
        let mut r = 0;
        while r < rows {
            out |= ((b >> (8 * r)) & row_mask) << (cols * r);
            r += 1;
        }
        out
    }

    /// The frame bits of the packed squares `d` (the inverse of [`Shape::pack`]).
    #[inline(always)]
    #[must_use]
    pub const fn unpack(self, d: u64) -> u64 {
        let (rows, cols) = (self.rows as u32, self.cols as u32);
        let row_mask = (1u64 << cols) - 1;
        let mut out = 0;
        let mut r = 0;
        while r < rows {
            out |= ((d >> (cols * r)) & row_mask) << (8 * r);
            r += 1;
        }
        out
    }

    /// The four corners' `(row, col)`: top left, top right, bottom left, bottom right.
    #[must_use]
    pub const fn corner_cells(self) -> [(u32, u32); 4] {
        let (r, c) = (self.rows as u32 - 1, self.cols as u32 - 1);
        [(0, 0), (0, c), (r, 0), (r, c)]
    }

    /// The four corners.
    #[must_use]
    pub const fn corners(self) -> u64 {
        let [a, b, c, d] = self.corner_cells();
        square_bit(a.0, a.1) | square_bit(b.0, b.1) | square_bit(c.0, c.1) | square_bit(d.0, d.1)
    }

    /// For each corner (in [`Shape::corner_cells`]' order), its bit and the bit of its
    /// X-square, the square diagonally next to it.
    #[must_use]
    pub fn x_squares(self) -> [(u64, u64); 4] {
        self.corner_cells().map(|(r, c)| {
            let (xr, xc) = (toward_centre(r), toward_centre(c));
            (square_bit(r, c), square_bit(xr, xc))
        })
    }

    /// For each corner (in [`Shape::corner_cells`]' order), its bit and the squares next to it:
    /// its X-square and its two C-squares (the edge squares beside it).
    #[must_use]
    pub fn corner_neighbours(self) -> [(u64, u64); 4] {
        self.corner_cells().map(|(r, c)| {
            let (nr, nc) = (toward_centre(r), toward_centre(c));
            let near = square_bit(nr, c) | square_bit(r, nc) | square_bit(nr, nc);
            (square_bit(r, c), near)
        })
    }

    /// The board cut into four quadrants at half its rows and columns (the larger halves at
    /// the bottom and right on odd sides): top left, top right, bottom left, bottom right.
    #[must_use]
    pub fn quadrants(self) -> [u64; 4] {
        let (rows, cols) = (self.rows as u32, self.cols as u32);
        let mut q = [0u64; 4];
        for r in 0..rows {
            for c in 0..cols {
                q[usize::from(r >= rows / 2) * 2 + usize::from(c >= cols / 2)] |= square_bit(r, c);
            }
        }
        q
    }

    /// The top-left corner `(row, col)` of the 2x2 start block.
    ///
    /// The rule of the reversi-nxn blog, applied to each axis on its own: an even side of length
    /// `n` starts the block at `n/2 - 1` (centred), an odd side at `n/2` (one square toward the
    /// bottom or right edge).
    #[must_use]
    pub const fn start_block(self) -> (u32, u32) {
        (block_start(self.rows as u32), block_start(self.cols as u32))
    }

    /// A short name such as `5x5` or `4x6`.
    #[must_use]
    pub fn name(self) -> String {
        format!("{}x{}", self.rows, self.cols)
    }
}

/// The index next to a corner's `i` (0 or the last) toward the middle of the board.
const fn toward_centre(i: u32) -> u32 {
    if i == 0 {
        1
    } else {
        i - 1
    }
}

/// First row (or column) of the start block on a side of length `n`.
const fn block_start(n: u32) -> u32 {
    if n.is_multiple_of(2) {
        n / 2 - 1
    } else {
        n / 2
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_is_dense_and_reversible() {
        for rows in MIN_SIDE..=MAX_SIDE {
            for cols in MIN_SIDE..=MAX_SIDE {
                let shape = Shape::new(rows, cols).unwrap();
                let mut x = 0x9E37_79B9_7F4A_7C15u64;
                for _ in 0..200 {
                    x = x.rotate_left(17).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                    let b = x & shape.mask();
                    let d = shape.pack(b);
                    assert_eq!(d.count_ones(), b.count_ones());
                    assert!(shape.squares() == 64 || d >> shape.squares() == 0);
                    assert_eq!(shape.unpack(d), b);
                }
                // Square (r, c) goes to bit r * cols + c.
                assert_eq!(
                    shape.pack(shape.bit(rows - 1, 1)),
                    1 << ((rows - 1) * cols + 1)
                );
            }
        }
    }

    #[test]
    fn masks_by_their_definitions() {
        // Each mask against its definition, square by square: corners are the squares at both
        // ends of both axes, X-squares one step diagonal from one, C-squares one step along an
        // edge, quadrants cut at half (floor) of each side.
        for rows in MIN_SIDE..=MAX_SIDE {
            for cols in MIN_SIDE..=MAX_SIDE {
                let shape = Shape::new(rows, cols).unwrap();
                let end = |i: u32, n: u32| i == 0 || i == n - 1;
                let mut corners = 0;
                let mut quadrants = [0u64; 4];
                for r in 0..rows {
                    for c in 0..cols {
                        let bit = shape.bit(r, c);
                        if end(r, rows) && end(c, cols) {
                            corners |= bit;
                        }
                        let q = 2 * usize::from(2 * r >= rows - rows % 2)
                            + usize::from(2 * c >= cols - cols % 2);
                        quadrants[q] |= bit;
                    }
                }
                assert_eq!(shape.corners(), corners);
                assert_eq!(shape.quadrants(), quadrants);
                for ((corner, x), (corner2, near)) in
                    shape.x_squares().into_iter().zip(shape.corner_neighbours())
                {
                    assert_eq!(corner, corner2);
                    let (sq, xq) = (corner.trailing_zeros(), x.trailing_zeros());
                    let (r, c, xr, xc) = (sq / 8, sq % 8, xq / 8, xq % 8);
                    assert_eq!((r.abs_diff(xr), c.abs_diff(xc)), (1, 1));
                    let mut expect = 0;
                    for n in crate::board::Squares(shape.mask()) {
                        let (nr, nc) = (n / 8, n % 8);
                        if n != sq && nr.abs_diff(r) <= 1 && nc.abs_diff(c) <= 1 {
                            expect |= 1u64 << n;
                        }
                    }
                    assert_eq!(near, expect);
                    assert!(near & x != 0 && near.count_ones() == 3);
                }
            }
        }
    }

    #[test]
    fn odd_start_is_off_centre() {
        // REFERENCE.md: odd N puts white on (N/2, N/2) and (N/2+1, N/2+1).
        let p = Shape::square(5).unwrap().start();
        assert_eq!(p.to_board_string(), "------------OX---XO------ X");
    }

    #[test]
    fn sizes_are_checked() {
        assert!(Shape::new(3, 8).is_ok());
        assert!(Shape::new(9, 3).is_err());
        assert!(Shape::new(3, 2).is_err());
    }
}
