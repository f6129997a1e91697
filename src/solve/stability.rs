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
//! The discs on the board's four edges are seeded exactly: an edge disc can only be flipped
//! along its edge (every other line through it ends there), so whether it can ever flip depends
//! only on its edge's squares. `EdgeTable` works that out once per edge length, for every
//! pattern of discs on the edge, by trying every sequence of placements on the edge by either
//! side (more than the rules allow, so the answer is a safe one). The fixed point then starts
//! from those discs instead of from none.
//!
//! Lines and edges are worked out once per board, so rectangular boards are handled like
//! square ones: the board sits in the top-left corner of the 8x8 frame.
//!
//! ```text
//!  axis 0: row (shift 1)      axis 1: column (shift 8)
//!  axis 2: diagonal (shift 9) axis 3: anti-diagonal (shift 7)
//! ```

use crate::board::{flips, Shape};

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
    /// Per axis, the squares with a neighbour off the board along that axis (either sense).
    edges: [u64; 4],
    /// The board's squares.
    mask: u64,
    /// Whether the edges are seeded exactly (else the fixed point starts from no disc).
    exact_edges: bool,
    /// Board rows and columns.
    rows: u32,
    cols: u32,
    /// The exact stability of a row-long edge (top and bottom) and of a column-long one.
    row_edge: EdgeTable,
    col_edge: EdgeTable,
}

/// For one edge length `n`, the squares whose discs can never change colour, for every pattern
/// of discs on the edge: `stable[(mine << n) | theirs]` (patterns with a square in both are
/// unused).
#[derive(Debug, Clone)]
struct EdgeTable {
    n: u32,
    stable: Vec<u8>,
}

impl EdgeTable {
    fn new(n: u32) -> EdgeTable {
        let size = 1usize << (2 * n);
        let full = (1u32 << n) - 1;
        let mut stable = vec![0u8; size];
        // Patterns by occupied squares, most first: a placement adds one, so the pattern it
        // leads to is already done.
        let mut order: Vec<(u32, u32)> = (0..=full)
            .flat_map(|a| (0..=full).filter(move |&b| a & b == 0).map(move |b| (a, b)))
            .collect();
        order.sort_by_key(|&(a, b)| std::cmp::Reverse((a | b).count_ones()));
        for (a, b) in order {
            let occupied = a | b;
            let mut st = occupied;
            for x in 0..n {
                if occupied & (1 << x) != 0 {
                    continue;
                }
                // Either side may place here (whatever else the move flips elsewhere).
                for a_moves in [true, false] {
                    let (mover, other) = if a_moves { (a, b) } else { (b, a) };
                    let f = line_flips(mover, other, x);
                    let (nm, no) = (mover | f | (1 << x), other & !f);
                    let (na, nb) = if a_moves { (nm, no) } else { (no, nm) };
                    st &= u32::from(stable[((na as usize) << n) | nb as usize]) & !f;
                }
            }
            stable[((a as usize) << n) | b as usize] = st as u8;
        }
        EdgeTable { n, stable }
    }

    /// The stable squares of the edge pattern `(mine, theirs)`.
    #[inline(always)]
    fn get(&self, mine: u64, theirs: u64) -> u64 {
        u64::from(self.stable[((mine as usize) << self.n) | theirs as usize])
    }
}

/// The discs of `other` that a disc of `mover` placed at `x` turns over on a line of squares
/// `0..n`: the board's flips on the frame's first row, where the line has no other squares.
fn line_flips(mover: u32, other: u32, x: u32) -> u32 {
    flips(u64::from(mover), u64::from(other), x) as u32
}

/// Column `c`'s squares of `b`, packed: row `k` to bit `k`.
#[inline(always)]
fn gather_column(b: u64, c: u32) -> u64 {
    (((b >> c) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// The inverse of [`gather_column`]: bit `k` of `m` to row `k` of column `c`.
#[inline(always)]
fn spread_column(m: u64, c: u32) -> u64 {
    ((((m & 0x7F).wrapping_mul(0x0000_0408_1020_4081)) & 0x0101_0101_0101_0101) | ((m >> 7) << 56))
        << c
}

/// Per axis, the board's squares whose whole line along that axis is occupied, found by
/// spreading the empty squares along each axis over the whole frame (7 steps in 3 shifts each
/// way) instead of testing the board's lines one by one: the board sits in a corner of the
/// frame, so a line of the board is the frame's line cut to the board, and off-board squares
/// are never empty. Measured 13% of the solver's time with the loop over lines (see
/// BENCHMARKS.md, third round).
#[inline]
fn full_lines(occupied: u64, mask: u64) -> [u64; 4] {
    const NOT_AB: u64 = 0xFCFC_FCFC_FCFC_FCFC;
    const NOT_GH: u64 = 0x3F3F_3F3F_3F3F_3F3F;
    const NOT_AD: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const NOT_EH: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let e = mask & !occupied;
    // Rows: a byte with any empty square.
    let any = (((e & LOW7) + LOW7) | e) & HIGH;
    let rows = (any >> 7).wrapping_mul(0xFF);
    // Columns: the same bit of every byte.
    let mut cols = e | e.rotate_left(8);
    cols |= cols.rotate_left(16);
    cols |= cols.rotate_left(32);
    // Diagonals (shift 9) and anti-diagonals (shift 7), both senses.
    let mut d9 = e;
    d9 |= ((d9 << 9) & NOT_A) | ((d9 >> 9) & NOT_H);
    d9 |= ((d9 << 18) & NOT_AB) | ((d9 >> 18) & NOT_GH);
    d9 |= ((d9 << 36) & NOT_AD) | ((d9 >> 36) & NOT_EH);
    let mut d7 = e;
    d7 |= ((d7 << 7) & NOT_H) | ((d7 >> 7) & NOT_A);
    d7 |= ((d7 << 14) & NOT_GH) | ((d7 >> 14) & NOT_AB);
    d7 |= ((d7 << 28) & NOT_EH) | ((d7 >> 28) & NOT_AD);
    [!rows & mask, !cols & mask, !d9 & mask, !d7 & mask]
}

impl Stability {
    /// The tables for `shape`.
    #[must_use]
    pub fn new(shape: Shape) -> Stability {
        Stability::with_edges(shape, true)
    }

    /// The tables for `shape`, with the edges seeded exactly or not (`exact_edges`; measured in
    /// BENCHMARKS.md, sixth round).
    #[must_use]
    pub fn with_edges(shape: Shape, exact_edges: bool) -> Stability {
        let mask = shape.mask();
        let mut edges = [0u64; 4];
        for (axis, edge) in edges.iter_mut().enumerate() {
            // A square starts a line if its neighbour in the backward sense is off the board.
            let starts = mask & !shift(mask, 2 * axis);
            *edge = (mask & !shift(mask, 2 * axis + 1)) | starts;
        }
        Stability {
            edges,
            mask,
            exact_edges,
            rows: shape.rows(),
            cols: shape.cols(),
            row_edge: EdgeTable::new(shape.cols()),
            col_edge: EdgeTable::new(shape.rows()),
        }
    }

    /// `p`'s discs on the four edges that can never flip.
    #[inline(always)]
    fn edge_stable(&self, p: u64, o: u64) -> u64 {
        let last_row = 8 * (self.rows - 1);
        let last_col = self.cols - 1;
        let top = self.row_edge.get(p & 0xFF, o & 0xFF);
        let bottom = self
            .row_edge
            .get((p >> last_row) & 0xFF, (o >> last_row) & 0xFF);
        let left = self.col_edge.get(gather_column(p, 0), gather_column(o, 0));
        let right = self
            .col_edge
            .get(gather_column(p, last_col), gather_column(o, last_col));
        let st =
            top | (bottom << last_row) | spread_column(left, 0) | spread_column(right, last_col);
        st & p
    }

    /// A subset of `p`'s discs that can never be flipped, in a position where the other side
    /// owns `o` (`p` and `o` on the board, disjoint). Always inlined, so compiled with the
    /// features of the copy of the search that calls it.
    #[must_use]
    #[inline(always)]
    pub fn stable(&self, p: u64, o: u64) -> u64 {
        let full = full_lines(p | o, self.mask);
        let mut protected = self.edges;
        for (prot, f) in protected.iter_mut().zip(full) {
            *prot |= f;
        }
        let seed = if self.exact_edges {
            self.edge_stable(p, o)
        } else {
            0
        };
        let mut stable = seed;
        loop {
            let mut next = p;
            for (axis, &prot) in protected.iter().enumerate() {
                next &= prot | shift(stable, 2 * axis) | shift(stable, 2 * axis + 1);
            }
            next |= seed;
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

    /// The board's lines along each axis, walked square by square (the slow twin of
    /// [`full_lines`]).
    struct Lines {
        lines: [[u64; 15]; 4],
        counts: [usize; 4],
    }

    impl Lines {
        fn new(shape: Shape) -> Lines {
            let mask = shape.mask();
            let mut lines = [[0u64; 15]; 4];
            let mut counts = [0usize; 4];
            for axis in 0..4 {
                let mut s = mask & !shift(mask, 2 * axis);
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
            }
            Lines { lines, counts }
        }
    }

    #[test]
    fn lines_cover_the_board_once_per_axis() {
        for (r, c) in [(3, 3), (4, 6), (6, 6), (5, 8), (8, 8), (8, 3)] {
            let shape = Shape::new(r, c).unwrap();
            let st = Lines::new(shape);
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

    /// The fills find the same full lines as the board's lines tested one by one.
    #[test]
    fn full_lines_match_the_line_by_line_test() {
        let mut rng = SplitMix64::new(7);
        for (r, c) in [
            (3, 3),
            (4, 6),
            (5, 5),
            (6, 6),
            (5, 8),
            (8, 8),
            (8, 3),
            (7, 4),
        ] {
            let shape = Shape::new(r, c).unwrap();
            let st = Lines::new(shape);
            for _ in 0..2000 {
                // Mostly full boards, where full lines are common.
                let holes = rng.next() & rng.next() & rng.next();
                let occupied = shape.mask() & !holes;
                let fast = full_lines(occupied, shape.mask());
                for (axis, &fast) in fast.iter().enumerate() {
                    let mut slow = 0;
                    for &line in &st.lines[axis][..st.counts[axis]] {
                        if line & !occupied == 0 {
                            slow |= line;
                        }
                    }
                    assert_eq!(fast, slow, "{r}x{c} axis {axis} {occupied:x}");
                }
            }
        }
    }

    #[test]
    fn columns_gather_and_spread_back() {
        for c in 0..8 {
            for m in 0..256u64 {
                let b = spread_column(m, c);
                assert_eq!(b & !(0x0101_0101_0101_0101 << c), 0);
                assert_eq!(gather_column(b | !(0x0101_0101_0101_0101 << c), c), m);
            }
        }
    }

    /// The slow twin of [`EdgeTable`]: every sequence of placements on the line by either side,
    /// one at a time, and the squares whose disc never changes colour in any of them.
    fn edge_stable_by_sequences(a: u32, b: u32, n: u32, start: (u32, u32), keep: &mut u32) {
        // `keep`: the squares of `start` whose colour has not changed in any sequence so far.
        *keep &= !((start.0 & !a) | (start.1 & !b));
        for x in 0..n {
            if (a | b) & (1 << x) != 0 {
                continue;
            }
            let fa = line_flips(a, b, x);
            edge_stable_by_sequences(a | fa | (1 << x), b & !fa, n, start, keep);
            let fb = line_flips(b, a, x);
            edge_stable_by_sequences(a & !fb, b | fb | (1 << x), n, start, keep);
        }
    }

    #[test]
    fn edge_table_matches_every_sequence() {
        for n in 3..=5u32 {
            let table = EdgeTable::new(n);
            let full = (1u32 << n) - 1;
            for a in 0..=full {
                for b in (0..=full).filter(|&b| a & b == 0) {
                    let mut keep = a | b;
                    edge_stable_by_sequences(a, b, n, (a, b), &mut keep);
                    assert_eq!(table.get(u64::from(a), u64::from(b)), u64::from(keep));
                }
            }
        }
        // On a line of five, squares from the left, `x x o . .`: the two x discs reach the
        // line's end, so nothing outflanks them; o is turned by x playing right of it.
        let t = EdgeTable::new(5);
        assert_eq!(t.get(0b00011, 0b00100), 0b00011);
        // `x o x . .`: o playing right of the second x turns it, then x at the far end turns
        // the whole run back: only the end disc keeps its colour.
        assert_eq!(t.get(0b00101, 0b00010), 0b00001);
        // `o x x x o`, full: everything stays.
        assert_eq!(t.get(0b01110, 0b10001), 0b11111);
        // `. x o . .`: o can be turned by x playing right of it, x by o playing at its left.
        assert_eq!(t.get(0b00010, 0b00100), 0);
    }

    /// Exact edges only add stable discs, on a sample of random positions.
    #[test]
    fn exact_edges_find_a_superset() {
        let mut rng = SplitMix64::new(5);
        for (r, c) in [(4, 4), (6, 6), (5, 8), (8, 3)] {
            let shape = Shape::new(r, c).unwrap();
            let (with, without) = (
                Stability::with_edges(shape, true),
                Stability::with_edges(shape, false),
            );
            let mut more = 0;
            for _ in 0..5000 {
                let occupied = shape.mask() & !(rng.next() & rng.next());
                let p = occupied & rng.next();
                let o = occupied & !p;
                let (a, b) = (with.stable(p, o), without.stable(p, o));
                assert_eq!(b & !a, 0, "{r}x{c}");
                more += (a & !b).count_ones();
            }
            assert!(more > 0, "{r}x{c}");
        }
    }

    #[test]
    fn corners_are_stable() {
        let shape = Shape::new(4, 6).unwrap();
        let st = Stability::new(shape);
        let corner = shape.bit(3, 5);
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
