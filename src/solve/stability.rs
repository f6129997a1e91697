//! Stable discs: a lower bound on the discs of one side that can never be flipped again, for
//! the stability cutoff and the ordering evaluation.
//!
//! A disc can only be flipped along one of four axes (row, column, the two diagonals), and only
//! by a move on its line along that axis. So a disc is stable if, on each axis, either its whole
//! line on the board is occupied (no move can land on it), or a neighbour along that axis is off
//! the board or is a stable disc of the same colour (a run of own discs can only be flipped
//! whole, and that neighbour never flips). Starting from no stable disc and adding the discs
//! that meet the rule for the set found so far reaches a fixed point that is sound by induction
//! on the round in which each disc joined. It is a lower bound: some stable discs (protected by
//! more complex patterns) are missed.
//!
//! Lines and edges are worked out once per board, so rectangular boards are handled like
//! square ones: the board sits in the top-left corner of the 8x8 frame.
//!
//! ```text
//!  axis 0: row (shift 1)      axis 1: column (shift 8)
//!  axis 2: diagonal (shift 9) axis 3: anti-diagonal (shift 7)
//! ```

use crate::board::Shape;

const NOT_A: u64 = 0xFEFE_FEFE_FEFE_FEFE;
const NOT_H: u64 = 0x7F7F_7F7F_7F7F_7F7F;

/// Shifts `b` one step in direction `dir` of the frame (0: east, 1: west, 2: south, 3: north,
/// 4: south-east, 5: north-west, 6: south-west, 7: north-east; directions `2k` and `2k + 1` are
/// the two senses of axis `k`), dropping bits that would wrap around a row.
#[inline(always)]
fn shift(b: u64, dir: usize) -> u64 {
    match dir {
        0 => (b << 1) & NOT_A,
        1 => (b >> 1) & NOT_H,
        2 => b << 8,
        3 => b >> 8,
        4 => (b << 9) & NOT_A,
        5 => (b >> 9) & NOT_H,
        6 => (b << 7) & NOT_H,
        _ => (b >> 7) & NOT_A,
    }
}

/// The per-board tables of the stability bound.
#[derive(Debug, Clone)]
pub struct Stability {
    /// The board's lines along each axis (only those with a square on the board).
    lines: [[u64; 15]; 4],
    /// How many of `lines[k]` are used.
    counts: [usize; 4],
    /// Per axis, the squares with a neighbour off the board along that axis (either sense).
    edges: [u64; 4],
}

impl Stability {
    /// The tables for `shape`.
    #[must_use]
    pub fn new(shape: Shape) -> Stability {
        let mask = shape.mask();
        let mut lines = [[0u64; 15]; 4];
        let mut counts = [0usize; 4];
        let mut edges = [0u64; 4];
        for axis in 0..4 {
            // A square starts a line if its neighbour in the backward sense is off the board.
            let back = 2 * axis + 1;
            let starts = mask & !shift(mask, 2 * axis);
            let mut s = starts;
            while s != 0 {
                let mut line = s & s.wrapping_neg();
                s &= s - 1;
                let mut x = line;
                loop {
                    x = shift(x, 2 * axis) & mask;
                    if x == 0 {
                        break;
                    }
                    line |= x;
                }
                lines[axis][counts[axis]] = line;
                counts[axis] += 1;
            }
            edges[axis] = (mask & !shift(mask, back)) | starts;
        }
        Stability {
            lines,
            counts,
            edges,
        }
    }

    /// A subset of `p`'s discs that can never be flipped, in a position where the other side
    /// owns `o` (`p` and `o` on the board, disjoint).
    #[must_use]
    pub fn stable(&self, p: u64, o: u64) -> u64 {
        let occupied = p | o;
        let mut protected = self.edges;
        for (prot, (lines, &n)) in protected
            .iter_mut()
            .zip(self.lines.iter().zip(&self.counts))
        {
            for &line in &lines[..n] {
                if line & !occupied == 0 {
                    *prot |= line;
                }
            }
        }
        let mut stable = 0u64;
        loop {
            let mut next = p;
            for (axis, &prot) in protected.iter().enumerate() {
                next &= prot | shift(stable, 2 * axis) | shift(stable, 2 * axis + 1);
            }
            if next == stable {
                return stable;
            }
            stable = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{flips, legal_moves, Squares};
    use crate::rng::SplitMix64;

    #[test]
    fn lines_cover_the_board_once_per_axis() {
        for (r, c) in [(3, 3), (4, 6), (6, 6), (5, 8), (8, 8), (8, 3)] {
            let shape = Shape::new(r, c).unwrap();
            let st = Stability::new(shape);
            for axis in 0..4 {
                let mut all = 0u64;
                for &l in &st.lines[axis][..st.counts[axis]] {
                    assert_eq!(all & l, 0);
                    all |= l;
                }
                assert_eq!(all, shape.mask(), "{r}x{c} axis {axis}");
            }
        }
    }

    #[test]
    fn corners_are_stable() {
        let shape = Shape::new(4, 6).unwrap();
        let st = Stability::new(shape);
        let corner = 1u64 << (8 * 3 + 5);
        assert_eq!(st.stable(corner | 1, 1 << 9), corner | 1);
        // Next to a corner along an edge, protected on every axis.
        assert_eq!(st.stable(0b11, 1 << 9), 0b11);
        assert_eq!(st.stable(0b10, 1 << 9), 0);
    }

    /// Random games on several boards: every disc found stable keeps its colour to the end.
    #[test]
    fn stable_discs_never_flip_in_random_playouts() {
        let mut rng = SplitMix64::new(2024);
        let mut found = 0u64;
        for (r, c) in [(4, 4), (4, 6), (5, 5), (6, 6), (5, 8), (8, 8), (6, 3)] {
            let shape = Shape::new(r, c).unwrap();
            let st = Stability::new(shape);
            let mask = shape.mask();
            for _ in 0..300 {
                let start = shape.start();
                let (mut p, mut o) = (start.player(), start.opponent());
                // Stable discs of the side to move and of the other side, as found so far.
                let (mut sp, mut so) = (0u64, 0u64);
                loop {
                    let empty = mask & !(p | o);
                    let moves = legal_moves(p, o, empty);
                    if moves == 0 {
                        if legal_moves(o, p, empty) == 0 {
                            break;
                        }
                    } else {
                        let k = (rng.next() % u64::from(moves.count_ones())) as usize;
                        let sq = Squares(moves).nth(k).unwrap();
                        let f = flips(p, o, sq);
                        assert_eq!(f & so, 0, "a stable disc flipped on {r}x{c}");
                        p |= f | (1u64 << sq);
                        o &= !f;
                    }
                    std::mem::swap(&mut p, &mut o);
                    std::mem::swap(&mut sp, &mut so);
                    assert_eq!(sp & !p, 0, "{r}x{c}");
                    assert_eq!(so & !o, 0, "{r}x{c}");
                    let (np, no) = (st.stable(p, o), st.stable(o, p));
                    // The bound only grows: what was stable stays stable.
                    assert_eq!(sp & !np, 0, "{r}x{c}");
                    assert_eq!(so & !no, 0, "{r}x{c}");
                    sp = np;
                    so = no;
                }
                found += u64::from((sp | so).count_ones());
            }
        }
        // The test means something only if stable discs were found.
        assert!(found > 10_000, "{found}");
    }
}
