//! The patterns of each board ([`layout`]) and the symmetry of their weights ([`symmetrize`]).

use std::sync::OnceLock;

use super::{board_index, configuration, symmetric, SCALARS};
use crate::board::Shape;

/// The patterns of an `rows x cols` board in one orientation, as ordered `(row, col)` lists:
/// the top edge with its two X squares, the 2x5 block in the top-left corner (from five
/// columns), the 3x3 corner block, the second to fourth rows (those above the middle), and the
/// diagonals from the top row down to the right of at least `max(4, min(rows, cols) - 3)`
/// squares (on 8x8: eight to five). [`layout`] takes these of both orientations and keeps each
/// pattern once up to the board's symmetries.
fn bases(rows: u8, cols: u8) -> [Vec<Vec<(u8, u8)>>; 5] {
    let mut edge: Vec<(u8, u8)> = (0..cols).map(|c| (0, c)).collect();
    edge.push((1, 1));
    if cols - 2 != 1 {
        edge.push((1, cols - 2));
    }
    let block = |h: u8, w: u8| -> Vec<(u8, u8)> {
        (0..h).flat_map(|r| (0..w).map(move |c| (r, c))).collect()
    };
    let corner_2x5 = if cols >= 5 { vec![block(2, 5)] } else { vec![] };
    let rows_inside = (1..=3u8)
        .filter(|&r| r <= (rows - 1) / 2)
        .map(|r| (0..cols).map(|c| (r, c)).collect())
        .collect();
    let shortest = 4.max(rows.min(cols).saturating_sub(3));
    let diagonals = (0..cols)
        .map(|k| (0..rows).zip(k..cols).collect::<Vec<(u8, u8)>>())
        .filter(|d| d.len() >= usize::from(shortest))
        .collect();
    [
        vec![edge],
        corner_2x5,
        vec![block(3, 3)],
        rows_inside,
        diagonals,
    ]
}

/// The pattern instances of one board: for each, the pattern it belongs to and its squares
/// (frame bits).
#[derive(Debug)]
pub struct Layout {
    /// `(pattern, squares)` of every instance.
    pub instances: Vec<(usize, Vec<u8>)>,
    /// Where each pattern's weights start.
    pub offsets: Vec<usize>,
    /// Weights in all: every pattern's configurations, then the [`SCALARS`].
    pub len: usize,
}

/// The layout of `shape`'s patterns (computed once per board). Each kind of pattern (see the
/// module doc) in both orientations (the other one transposed), unless the board's symmetries
/// already made it from an earlier one, has as instances its images under the board's
/// symmetries (8 on a square, 4 on a rectangle), each set of squares kept once in the first
/// order met; every instance lies inside the board. On 8x8 this is the layout of the shipped
/// weights.
pub fn layout(shape: Shape) -> &'static Layout {
    static LAYOUTS: [OnceLock<Layout>; 36] = [const { OnceLock::new() }; 36];
    LAYOUTS[board_index(shape)].get_or_init(|| {
        let (rows, cols) = (shape.rows() as u8, shape.cols() as u8);
        let symmetries = if rows == cols { 8 } else { 4 };
        let here = bases(rows, cols);
        let transposed = bases(cols, rows);
        let mut instances: Vec<(usize, Vec<u8>)> = Vec::new();
        let mut offsets = Vec::new();
        let mut len = 0;
        let mut sets: Vec<Vec<u8>> = Vec::new();
        for (family, other) in here.iter().zip(&transposed) {
            let turned = other
                .iter()
                .map(|b| b.iter().map(|&(r, c)| (c, r)).collect::<Vec<_>>());
            for base in family.iter().cloned().chain(turned) {
                let set_of = |squares: &[u8]| {
                    let mut set = squares.to_vec();
                    set.sort_unstable();
                    set
                };
                let first: Vec<u8> = base.iter().map(|&(r, c)| 8 * r + c).collect();
                if sets.contains(&set_of(&first)) {
                    continue;
                }
                let k = offsets.len();
                offsets.push(len);
                len += 3usize.pow(base.len() as u32);
                for s in 0..symmetries {
                    let squares: Vec<u8> = base
                        .iter()
                        .map(|&rc| {
                            let (r, c) = symmetric(rows, cols, s, rc);
                            8 * r + c
                        })
                        .collect();
                    let set = set_of(&squares);
                    if !sets.contains(&set) {
                        sets.push(set);
                        instances.push((k, squares));
                    }
                }
            }
        }
        Layout {
            instances,
            offsets,
            len: len + SCALARS,
        }
    })
}

/// Makes `w` (real weights in `shape`'s [`Layout`] order) symmetric: the configurations of a
/// pattern that a symmetry of the board mapping the pattern's squares onto themselves turns
/// into each other (a row read backwards, a corner block transposed) get their mean. Then the
/// evaluation of every symmetric image of a position is the same.
pub fn symmetrize(shape: Shape, w: &mut [f64]) {
    let layout = layout(shape);
    let (rows, cols) = (shape.rows() as u8, shape.cols() as u8);
    let symmetries = if rows == cols { 8 } else { 4 };
    for (k, &offset) in layout.offsets.iter().enumerate() {
        let Some((_, base)) = layout.instances.iter().find(|(j, _)| *j == k) else {
            continue;
        };
        let n = base.len();
        // The permutations of the base's positions by the symmetries that keep its set:
        // `perm[j]` is where the square at position `j` goes.
        let mut perms: Vec<Vec<usize>> = Vec::new();
        for s in 0..symmetries {
            let image: Vec<u8> = base
                .iter()
                .map(|&sq| {
                    let (r, c) = symmetric(rows, cols, s, (sq / 8, sq % 8));
                    8 * r + c
                })
                .collect();
            let perm: Option<Vec<usize>> = image
                .iter()
                .map(|sq| base.iter().position(|b| b == sq))
                .collect();
            if let Some(perm) = perm {
                if !perms.contains(&perm) {
                    perms.push(perm);
                }
            }
        }
        if perms.len() < 2 {
            continue;
        }
        let size = 3usize.pow(n as u32);
        let mut digits = vec![0usize; n];
        let mut orbit: Vec<usize> = Vec::with_capacity(perms.len());
        for a in 0..size {
            // The first square is the most significant digit.
            let mut rest = a;
            for j in (0..n).rev() {
                digits[j] = rest % 3;
                rest /= 3;
            }
            orbit.clear();
            for perm in &perms {
                let mut moved = vec![0usize; n];
                for j in 0..n {
                    moved[perm[j]] = digits[j];
                }
                let b = moved.iter().fold(0, |acc, d| 3 * acc + d);
                if !orbit.contains(&b) {
                    orbit.push(b);
                }
            }
            if orbit.iter().all(|&b| b >= a) {
                let mean = orbit.iter().map(|&b| w[offset + b]).sum::<f64>() / orbit.len() as f64;
                for &b in &orbit {
                    w[offset + b] = mean;
                }
            }
        }
    }
}

/// The weight index of each pattern instance of `(p, o)` (mover `p`): a square counts 0 when
/// empty, 1 when the mover's and 2 when the other side's, the instance's first square the most
/// significant digit. Appends to `out` in the order of `shape`'s [`Layout::instances`].
pub fn indices(shape: Shape, p: u64, o: u64, out: &mut Vec<usize>) {
    let layout = layout(shape);
    for (k, squares) in &layout.instances {
        out.push(layout.offsets[*k] + configuration(p, o, squares));
    }
}
