//! A pattern evaluation of the positions of one board, trained on its exactly solved positions,
//! for the solver's move ordering and its first guess at the root.
//!
//! **What it is.** The evaluation is a sum of weights, one per line or block of squares: the
//! four edges each with the two X squares (diagonally next to its corners), the 2x5 and 3x3
//! blocks in the corners, the second, third and fourth rows and columns, and the diagonals of
//! five to eight squares on 8x8, much as in Edax. Each square of a pattern is empty, the
//! mover's or the other side's, so a pattern of `n` squares has `3^n` configurations, each with
//! its own weight; the instances of a pattern that a symmetry of the board maps onto each other
//! share its table. Two counts are added: the mobility and the potential mobility (empty squares
//! next to the other side's discs) of each side. The value is an estimate of the final disc
//! difference for the side to move, in units of 1/[`UNITS_PER_DISC`] disc.
//!
//! **Any board.** Every `R x C` board has its own [`layout`]: the same kinds of pattern as
//! they exist on that shape, each inside the board (no 2x5 block under five columns, the rows
//! above the middle only, diagonals of at least `max(4, min(R, C) - 3)` squares). A square
//! board has the eight symmetries of the square, so its rows and columns are one pattern; a
//! rectangle has four (the mirrors and the half turn), so its rows of `C` squares and its
//! columns of `R` squares, its top and its side edges, are different patterns with tables of
//! their own. A board uses the pattern evaluation when weights trained on it are shipped
//! (`assets/eval/patternRxC.bin`, [`shipped`]); the others keep the mobility evaluation.
//!
//! **Where the weights come from.** `reversi train-eval` plays games with a noisy heuristic
//! player, solves one position of each game exactly (Othello scoring), and fits the weights to
//! those values by least squares with every symmetric image of each position
//! ([`super::train`]). Each shipped file was written by the board's command in the README;
//! [`shipped`] parses it once.
//!
//! **Twin.** [`indices`] computes each pattern's configuration from the bitboards through
//! precomputed square lists; the tests check it against a twin that reads the squares of a
//! [`Position`](crate::board::Position) by row and column, on square and rectangular boards.
//! The search evaluates by [`Weights::evaluate_with`], which gathers each pattern's squares at
//! once with `pext` (on the 8x8 frame flipped so that the instances of a pattern share a table
//! rearranged by square order); the tests check it against [`Weights::evaluate`].

use std::sync::OnceLock;

use crate::board::{flip_frame_horizontal, legal_moves, neighbours, Shape};
use crate::cpu::Cpu;

/// Evaluation units per disc of final value.
pub const UNITS_PER_DISC: i32 = 64;

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

/// Number of scalar features after the patterns: the mover's mobility, the other side's
/// mobility, the mover's and the other side's potential mobility, and a constant.
pub const SCALARS: usize = 5;

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

/// Symmetry `s` (`0..8`, or `0..4` on a rectangle) of the `rows x cols` board as a map of
/// `(row, col)`: bit 2 transposes first (square boards only), bit 0 flips the rows, bit 1 the
/// columns. With `rows = cols = 8` and `s < 4` these are also the flips of the frame that
/// [`Weights::evaluate_with`] reads a board through.
fn symmetric(rows: u8, cols: u8, s: u8, (r, c): (u8, u8)) -> (u8, u8) {
    let (r, c) = if s & 4 != 0 { (c, r) } else { (r, c) };
    let r = if s & 1 != 0 { rows - 1 - r } else { r };
    let c = if s & 2 != 0 { cols - 1 - c } else { c };
    (r, c)
}

/// The index of `shape` in tables of one entry per board.
fn board_index(shape: Shape) -> usize {
    (6 * (shape.rows() - 3) + shape.cols() - 3) as usize
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

/// The configuration of `squares` in `(p, o)`, base 3 (see [`indices`]).
#[inline]
fn configuration(p: u64, o: u64, squares: &[u8]) -> usize {
    let mut idx = 0usize;
    for &sq in squares {
        let cell = ((p >> sq) & 1) + 2 * ((o >> sq) & 1);
        idx = 3 * idx + cell as usize;
    }
    idx
}

/// The scalar features of `(p, o)` with empty squares `empty` (see [`SCALARS`]).
#[must_use]
pub fn scalars(p: u64, o: u64, empty: u64) -> [i32; SCALARS] {
    scalars_given(p, o, empty, legal_moves(p, o, empty))
}

/// [`scalars`] given the mover's legal moves `moves`.
#[inline(always)]
fn scalars_given(p: u64, o: u64, empty: u64, moves: u64) -> [i32; SCALARS] {
    [
        moves.count_ones() as i32,
        legal_moves(o, p, empty).count_ones() as i32,
        (neighbours(o) & empty).count_ones() as i32,
        (neighbours(p) & empty).count_ones() as i32,
        1,
    ]
}

/// Trained weights, in units of 1/[`UNITS_PER_DISC`] disc.
#[derive(Debug, Clone, PartialEq)]
pub struct Weights {
    /// The board the weights are for.
    shape: Shape,
    w: Vec<i16>,
    /// The same weights arranged for [`Weights::evaluate_with`].
    extracted: Extracted,
}

/// The pattern weights arranged for evaluation by bit extraction. Each instance is read on the
/// board flipped by one of the [`FLIPS`] flips, chosen so that its squares,
/// gathered by `pext` in ascending order, come in the order of a table it shares with other
/// instances of its pattern: one table per pattern where the flips allow (two for a pattern
/// whose transposed instances read in another order), which takes about a quarter of the
/// cache that one table per instance would.
#[derive(Debug, Clone, PartialEq)]
struct Extracted {
    /// For each flip, the instances read on the board so flipped: their squares there (as a
    /// mask) and where their table starts in `table`.
    groups: [Vec<(u64, u32)>; FLIPS],
    /// The tables, each indexed by a configuration read in ascending square order.
    table: Vec<i16>,
}

/// How many flips an instance may be read through: the first four of [`symmetric`] (none,
/// rows, columns, both), the four images of the board the evaluation computes.
const FLIPS: usize = 4;

/// `TERNARY[b]`: the bits of `b` as base-3 digits (bit `j` worth `3^j`), for up to 10 squares.
static TERNARY: [u16; 1024] = {
    let mut t = [0u16; 1024];
    let mut b = 0;
    while b < 1024 {
        let (mut v, mut j, mut pow) = (0u16, 0, 1u16);
        while j < 10 {
            if b >> j & 1 != 0 {
                v += pow;
            }
            pow *= 3;
            j += 1;
        }
        t[b] = v;
        b += 1;
    }
    t
};

impl Extracted {
    /// The arrangement of `w` (in the [`Layout`] order of `shape`).
    fn new(shape: Shape, w: &[i16]) -> Extracted {
        let layout = layout(shape);
        let mut groups: [Vec<(u64, u32)>; FLIPS] = Default::default();
        let mut table = Vec::new();
        // The tables made so far: pattern, the order (positions in the pattern's square list)
        // in which `pext` reads its squares, and where the table starts.
        let mut made: Vec<(usize, Vec<usize>, u32)> = Vec::new();
        for (k, squares) in &layout.instances {
            // For each flip, the instance's squares on the flipped board and the order in which
            // they are read.
            let images: Vec<(Vec<u8>, Vec<usize>)> = (0..FLIPS as u8)
                .map(|f| {
                    let image: Vec<u8> = squares
                        .iter()
                        .map(|&sq| {
                            let (r, c) = symmetric(8, 8, f, (sq / 8, sq % 8));
                            8 * r + c
                        })
                        .collect();
                    let mut order: Vec<usize> = (0..image.len()).collect();
                    order.sort_unstable_by_key(|&j| image[j]);
                    (image, order)
                })
                .collect();
            // A flip whose order has a table already, else the first flip.
            let f = (0..FLIPS)
                .find(|&f| made.iter().any(|(mk, mo, _)| mk == k && *mo == images[f].1))
                .unwrap_or(0);
            let (image, order) = &images[f];
            let start = match made.iter().find(|(mk, mo, _)| mk == k && mo == order) {
                Some(&(_, _, start)) => start,
                None => {
                    let start = table.len() as u32;
                    let mut asc = image.clone();
                    asc.sort_unstable();
                    for a in 0..3usize.pow(asc.len() as u32) {
                        let (mut p, mut o, mut rest) = (0u64, 0u64, a);
                        for &sq in &asc {
                            match rest % 3 {
                                1 => p |= 1 << sq,
                                2 => o |= 1 << sq,
                                _ => {}
                            }
                            rest /= 3;
                        }
                        table.push(w[layout.offsets[*k] + configuration(p, o, image)]);
                    }
                    made.push((*k, order.clone(), start));
                    start
                }
            };
            let mask = image.iter().fold(0u64, |m, &sq| m | 1 << sq);
            groups[f].push((mask, start));
        }
        Extracted { groups, table }
    }
}

/// The first bytes of a weights file.
const MAGIC: &[u8; 8] = b"RVPAT8v1";

impl Weights {
    /// Weights for `shape` from the file format: the 8 bytes `RVPAT8v1`, the number of weights
    /// (u32 little-endian), then each as i16 little-endian, in the order of `shape`'s
    /// [`Layout`].
    ///
    /// # Errors
    /// A message when the bytes are not a weights file of this layout.
    pub fn from_bytes(shape: Shape, bytes: &[u8]) -> Result<Weights, String> {
        let len = layout(shape).len;
        if bytes.len() < 12 || &bytes[..8] != MAGIC {
            return Err("not a pattern weights file (bad header)".into());
        }
        let n = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        if n != len || bytes.len() != 12 + 2 * n {
            return Err(format!(
                "pattern weights file holds {n} weights in {} bytes; the {} layout has {len}",
                bytes.len(),
                shape.name()
            ));
        }
        let w = bytes[12..]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        Ok(Weights::new(shape, w))
    }

    /// The bytes of the file format read by [`Weights::from_bytes`].
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&(self.w.len() as u32).to_le_bytes());
        for &x in &self.w {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out
    }

    /// Weights for `shape` from real values in discs, rounded to the units (and saturated to
    /// i16).
    ///
    /// # Panics
    /// Unless `w` holds one value per weight of `shape`'s [`Layout`].
    #[must_use]
    pub fn from_discs(shape: Shape, w: &[f64]) -> Weights {
        assert_eq!(w.len(), layout(shape).len, "one weight per feature");
        let w = w
            .iter()
            .map(|&x| {
                (x * f64::from(UNITS_PER_DISC))
                    .round()
                    .clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16
            })
            .collect();
        Weights::new(shape, w)
    }

    /// Weights in the [`Layout`] order of `shape`.
    fn new(shape: Shape, w: Vec<i16>) -> Weights {
        let extracted = Extracted::new(shape, &w);
        Weights {
            shape,
            w,
            extracted,
        }
    }

    /// The board the weights are for.
    #[must_use]
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The evaluation of `(p, o)` for the side to move `p` with empty squares `empty`, in units
    /// of 1/[`UNITS_PER_DISC`] disc, clamped to the values a game can have.
    #[inline]
    #[must_use]
    pub fn evaluate(&self, p: u64, o: u64, empty: u64) -> i32 {
        let layout = layout(self.shape);
        let mut v = 0i32;
        for (k, squares) in &layout.instances {
            v += i32::from(self.w[layout.offsets[*k] + configuration(p, o, squares)]);
        }
        v += self.scalar_sum(scalars(p, o, empty));
        v.clamp(-64 * UNITS_PER_DISC, 64 * UNITS_PER_DISC)
    }

    /// The weighted sum of the scalar features `x`.
    #[inline(always)]
    fn scalar_sum(&self, x: [i32; SCALARS]) -> i32 {
        let w = &self.w[self.w.len() - SCALARS..];
        (0..SCALARS).map(|i| i32::from(w[i]) * x[i]).sum()
    }

    /// [`Weights::evaluate`] by bit extraction with `cpu`'s instructions (`pext` from
    /// x86-64-v3), given the mover's legal moves `moves`: the search's evaluation. The same
    /// value as [`Weights::evaluate`], its twin in the tests.
    #[inline(always)]
    #[must_use]
    pub fn evaluate_with<C: Cpu>(&self, cpu: C, p: u64, o: u64, empty: u64, moves: u64) -> i32 {
        let x = &self.extracted;
        let (vp, vo) = (p.swap_bytes(), o.swap_bytes());
        let boards = [
            (p, o),
            (vp, vo),
            (flip_frame_horizontal(p), flip_frame_horizontal(o)),
            (flip_frame_horizontal(vp), flip_frame_horizontal(vo)),
        ];
        let mut v = 0i32;
        for (group, &(bp, bo)) in x.groups.iter().zip(&boards) {
            for &(m, start) in group {
                let a = TERNARY[cpu.pext(bp, m) as usize] + 2 * TERNARY[cpu.pext(bo, m) as usize];
                v += i32::from(x.table[start as usize + a as usize]);
            }
        }
        v += self.scalar_sum(scalars_given(p, o, empty, moves));
        v.clamp(-64 * UNITS_PER_DISC, 64 * UNITS_PER_DISC)
    }
}

/// The weights file shipped for `shape` (`assets/eval/patternRxC.bin`), if there is one.
fn asset(shape: Shape) -> Option<&'static [u8]> {
    Some(match (shape.rows(), shape.cols()) {
        (5, 7) => include_bytes!("../../assets/eval/pattern5x7.bin"),
        (6, 6) => include_bytes!("../../assets/eval/pattern6x6.bin"),
        (6, 7) => include_bytes!("../../assets/eval/pattern6x7.bin"),
        (8, 8) => include_bytes!("../../assets/eval/pattern8x8.bin"),
        _ => return None,
    })
}

/// The shipped weights of `shape` (`assets/eval/patternRxC.bin`), parsed once; `None` for a
/// board without them, which keeps the mobility evaluation.
///
/// # Panics
/// If a shipped file does not match its board's layout (a build error the tests catch).
#[must_use]
pub fn shipped(shape: Shape) -> Option<&'static Weights> {
    static SHIPPED: [OnceLock<Option<Weights>>; 36] = [const { OnceLock::new() }; 36];
    SHIPPED[board_index(shape)]
        .get_or_init(|| {
            asset(shape).map(|bytes| {
                Weights::from_bytes(shape, bytes)
                    .expect("the shipped pattern weights match the layout")
            })
        })
        .as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Position, Symmetry};
    use crate::rng::Xoshiro256;

    /// Boards the tests play on: squares, rectangles both ways round, the smallest and the
    /// narrowest.
    fn boards() -> Vec<Shape> {
        [
            (8, 8),
            (6, 6),
            (5, 7),
            (7, 5),
            (6, 7),
            (5, 8),
            (6, 8),
            (7, 7),
            (3, 3),
            (3, 8),
            (4, 6),
        ]
        .iter()
        .map(|&(r, c)| Shape::new(r, c).unwrap())
        .collect()
    }

    /// The positions of `games` random games on `shape`.
    fn random_positions(shape: Shape, seed: u64, games: usize) -> Vec<Position> {
        let mut rng = Xoshiro256::from_seed(seed);
        let mut positions = Vec::new();
        for _ in 0..games {
            let mut pos = shape.start();
            while !pos.is_over() {
                positions.push(pos);
                let turns = pos.legal_turns();
                pos = pos
                    .apply(turns[rng.below(turns.len() as u32) as usize])
                    .unwrap();
            }
        }
        positions
    }

    /// The twin of [`indices`]: each instance's squares read by row and column from the
    /// position's colours, the mover's discs as 1.
    fn indices_by_squares(pos: &Position) -> Vec<usize> {
        let shape = pos.shape();
        let layout = layout(shape);
        let (mine, theirs) = (pos.player(), pos.opponent());
        layout
            .instances
            .iter()
            .map(|(k, squares)| {
                let digits: Vec<usize> = squares
                    .iter()
                    .map(|&sq| {
                        let bit = shape.bit(u32::from(sq / 8), u32::from(sq % 8));
                        if mine & bit != 0 {
                            1
                        } else if theirs & bit != 0 {
                            2
                        } else {
                            0
                        }
                    })
                    .collect();
                layout.offsets[*k] + digits.iter().fold(0, |acc, d| 3 * acc + d)
            })
            .collect()
    }

    /// Random weights for `shape`, in discs.
    fn random_weights(shape: Shape, rng: &mut Xoshiro256) -> Vec<f64> {
        (0..layout(shape).len)
            .map(|_| f64::from(rng.below(2001)) / 100.0 - 10.0)
            .collect()
    }

    #[test]
    fn layout_of_8x8_is_the_shipped_one() {
        let layout = layout(Shape::square(8).unwrap());
        let per_pattern: Vec<usize> = (0..layout.offsets.len())
            .map(|k| layout.instances.iter().filter(|(j, _)| *j == k).count())
            .collect();
        // Edges with X squares, 3x3 corner blocks, rows 2-4: four each; the 2x5 corner blocks
        // eight (each corner has two); the long diagonal two; the shorter ones four.
        assert_eq!(per_pattern, [4, 8, 4, 4, 4, 4, 2, 4, 4, 4]);
        assert_eq!(
            layout.len,
            2 * 59049 + 19683 + 4 * 6561 + 2187 + 729 + 243 + SCALARS,
            "weights"
        );
        // Each pattern's first instance in the order the shipped weights read it.
        let firsts: Vec<&[u8]> = (0..10)
            .map(|k| &layout.instances.iter().find(|(j, _)| *j == k).unwrap().1[..])
            .collect();
        assert_eq!(firsts[0], [0, 1, 2, 3, 4, 5, 6, 7, 9, 14]);
        assert_eq!(firsts[1], [0, 1, 2, 3, 4, 8, 9, 10, 11, 12]);
        assert_eq!(firsts[2], [0, 1, 2, 8, 9, 10, 16, 17, 18]);
        assert_eq!(firsts[5], [24, 25, 26, 27, 28, 29, 30, 31]);
        assert_eq!(firsts[9], [3, 12, 21, 30, 39]);
    }

    #[test]
    fn every_board_has_its_patterns_inside_and_closed_under_its_symmetries() {
        for r in 3..=8 {
            for c in 3..=8 {
                let shape = Shape::new(r, c).unwrap();
                let layout = layout(shape);
                let set = |squares: &[u8]| squares.iter().fold(0u64, |m, &sq| m | 1 << sq);
                let sets: Vec<(usize, u64)> =
                    layout.instances.iter().map(|(k, s)| (*k, set(s))).collect();
                for (k, squares) in &layout.instances {
                    let m = set(squares);
                    assert_eq!(m & !shape.mask(), 0, "{} outside", shape.name());
                    assert_eq!(m.count_ones() as usize, squares.len(), "repeated square");
                    assert!(squares.len() <= 10, "TERNARY reads at most 10 squares");
                    for &sym in Symmetry::all(shape) {
                        let image = sym.apply(shape, m);
                        assert_eq!(
                            sets.iter().filter(|&&(_, s)| s == image).count(),
                            1,
                            "{}: image of an instance",
                            shape.name()
                        );
                        assert!(sets.contains(&(*k, image)), "image in another pattern");
                    }
                }
                // Small enough to ship: at most 1 MiB of i16 weights.
                assert!(2 * layout.len < 1 << 20, "{}: {}", shape.name(), layout.len);
            }
        }
        // A rectangle's rows and columns are different patterns; the square's are one.
        let patterns = |r, c| layout(Shape::new(r, c).unwrap()).offsets.len();
        assert_eq!(patterns(6, 6), 8);
        assert!(patterns(5, 7) > patterns(6, 6));
    }

    /// [`Weights::evaluate_with`] run with one level's instructions on many positions.
    struct EvaluateAll<'a> {
        weights: &'a Weights,
        positions: &'a [(u64, u64)],
    }

    impl crate::cpu::Job for EvaluateAll<'_> {
        type Output = Vec<i32>;
        fn run<C: Cpu>(self, cpu: C) -> Vec<i32> {
            let mask = self.weights.shape().mask();
            let mut out = Vec::new();
            for &(p, o) in self.positions {
                let empty = mask & !(p | o);
                let moves = legal_moves(p, o, empty);
                out.push(self.weights.evaluate_with(cpu, p, o, empty, moves));
            }
            out
        }
    }

    #[test]
    fn instances_share_tables() {
        // The arrangement must not hold a table per instance, or the evaluation's tables
        // crowd the cache (the twin test below checks that the shared tables give the values).
        let shape = Shape::square(8).unwrap();
        let per_instance: usize = layout(shape)
            .instances
            .iter()
            .map(|(_, squares)| 3usize.pow(squares.len() as u32))
            .sum();
        let shared = shipped(shape).unwrap().extracted.table.len();
        assert!(3 * shared <= per_instance, "{shared} of {per_instance}");
    }

    #[test]
    fn extraction_evaluates_as_the_twin_at_every_level() {
        let mut rng = Xoshiro256::from_seed(5);
        for shape in boards() {
            let positions: Vec<(u64, u64)> = random_positions(shape, 5, 8)
                .iter()
                .map(|pos| (pos.player(), pos.opponent()))
                .collect();
            // Random weights as well as the shipped ones, so that a table entry put in the
            // wrong place shows even where the shipped weights are zero (configurations never
            // seen).
            let random = Weights::from_discs(shape, &random_weights(shape, &mut rng));
            for weights in shipped(shape).into_iter().chain([&random]) {
                let twin: Vec<i32> = positions
                    .iter()
                    .map(|&(p, o)| weights.evaluate(p, o, shape.mask() & !(p | o)))
                    .collect();
                assert!(twin.iter().any(|&v| v != twin[0]));
                for level in crate::cpu::levels() {
                    let job = EvaluateAll {
                        weights,
                        positions: &positions,
                    };
                    let got = crate::cpu::run_at(level, job);
                    assert_eq!(got, twin, "{} {level:?}", shape.name());
                }
            }
        }
    }

    #[test]
    fn indices_match_the_twin_on_random_games() {
        for shape in boards() {
            for pos in random_positions(shape, 3, 10) {
                let mut fast = Vec::new();
                indices(shape, pos.player(), pos.opponent(), &mut fast);
                assert_eq!(fast, indices_by_squares(&pos), "{pos}");
            }
        }
    }

    #[test]
    fn symmetric_weights_evaluate_symmetric_images_alike() {
        // Random weights made symmetric on every test board, and the shipped weights of every
        // board but 8x8 (fitted before weights were made symmetric): each symmetric image of
        // a position has the position's value.
        let mut rng = Xoshiro256::from_seed(11);
        for shape in boards() {
            let mut w = random_weights(shape, &mut rng);
            symmetrize(shape, &mut w);
            let random = Weights::from_discs(shape, &w);
            let trained = shipped(shape).filter(|_| shape.squares() != 64);
            for weights in trained.into_iter().chain([&random]) {
                for pos in random_positions(shape, 13, 4) {
                    let v = weights.evaluate(pos.player(), pos.opponent(), pos.empty());
                    for &sym in Symmetry::all(shape) {
                        let image = sym.apply_position(&pos);
                        let e = image.empty();
                        assert_eq!(
                            weights.evaluate(image.player(), image.opponent(), e),
                            v,
                            "{} {sym:?} {pos}",
                            shape.name()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn shipped_weights_load_for_their_boards_only() {
        for r in 3..=8 {
            for c in 3..=8 {
                let shape = Shape::new(r, c).unwrap();
                assert_eq!(shipped(shape).is_some(), asset(shape).is_some());
                if let Some(w) = shipped(shape) {
                    assert_eq!(w.shape(), shape);
                    assert_eq!(w.to_bytes(), asset(shape).unwrap());
                }
            }
        }
        assert!(shipped(Shape::square(8).unwrap()).is_some());
    }

    #[test]
    fn file_format_round_trips_and_rejects_bad_files() {
        for shape in [Shape::square(8).unwrap(), Shape::new(5, 7).unwrap()] {
            let len = layout(shape).len;
            let values: Vec<f64> = (0..len).map(|i| (i % 7) as f64 - 3.0).collect();
            let w = Weights::from_discs(shape, &values);
            assert_eq!(Weights::from_bytes(shape, &w.to_bytes()).unwrap(), w);
            assert!(Weights::from_bytes(shape, b"RVPAT8v1").is_err());
            let mut short = w.to_bytes();
            short.pop();
            assert!(Weights::from_bytes(shape, &short).is_err());
        }
        // Another board's weights do not load.
        let six = Weights::from_discs(
            Shape::square(6).unwrap(),
            &vec![0.0; layout(Shape::square(6).unwrap()).len],
        );
        assert!(Weights::from_bytes(Shape::new(5, 7).unwrap(), &six.to_bytes()).is_err());
    }

    #[test]
    fn shipped_weights_parse_and_prefer_corners() {
        // A position with a corner for the mover evaluates above its colour-swapped twin.
        let w = shipped(Shape::square(8).unwrap()).unwrap();
        let shape = Shape::square(8).unwrap();
        let pos = Position::from_board_string(
            "X-------\
             --------\
             --OOO---\
             ---XO---\
             ---OX---\
             --------\
             --------\
             -------- X",
            Some(shape),
        )
        .unwrap();
        let (p, o) = (pos.player(), pos.opponent());
        let empty = pos.empty();
        assert!(w.evaluate(p, o, empty) > w.evaluate(o, p, empty));
    }
}
