//! Board shapes: rows x columns, the mask of squares, and the start position.

use super::{square_bit, BoardError, Position};

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

    /// The top-left corner `(row, col)` of the 2x2 start block.
    ///
    /// The rule of the reversi-nxn blog, applied to each axis on its own: an even side of length
    /// `n` starts the block at `n/2 - 1` (centred), an odd side at `n/2` (one square toward the
    /// bottom or right edge).
    #[must_use]
    pub const fn start_block(self) -> (u32, u32) {
        (block_start(self.rows as u32), block_start(self.cols as u32))
    }

    /// The start position: white on the block's main diagonal, black on its other two squares,
    /// black to move.
    ///
    /// # Examples
    ///
    /// ```
    /// use reversi_nxn::board::Shape;
    /// let p = Shape::square(8).unwrap().start();
    /// assert_eq!(p.to_board_string(), "---------------------------OX------XO--------------------------- X");
    /// ```
    #[must_use]
    pub fn start(self) -> Position {
        let (r, c) = self.start_block();
        let white = square_bit(r, c) | square_bit(r + 1, c + 1);
        let black = square_bit(r, c + 1) | square_bit(r + 1, c);
        Position::from_colors(self, black, white, true)
    }

    /// A short name such as `5x5` or `4x6`.
    #[must_use]
    pub fn name(self) -> String {
        format!("{}x{}", self.rows, self.cols)
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
