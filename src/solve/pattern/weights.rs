//! Trained weights: their file format, their arrangement for `pext`, and the shipped files.

use std::sync::OnceLock;

use super::{
    board_index, configuration, layout, scalars, scalars_given, symmetric, SCALARS, UNITS_PER_DISC,
};
use crate::board::{flip_frame_horizontal, Shape};
use crate::cpu::Cpu;

/// Trained weights, in units of 1/[`UNITS_PER_DISC`] disc.
#[derive(Debug, Clone, PartialEq)]
pub struct Weights {
    /// The board the weights are for.
    shape: Shape,
    w: Vec<i16>,
    /// The same weights arranged for [`Weights::evaluate_with`].
    pub(super) extracted: Extracted,
}

/// The pattern weights arranged for evaluation by bit extraction. Each instance is read on the
/// board flipped by one of the [`FLIPS`] flips, chosen so that its squares,
/// gathered by `pext` in ascending order, come in the order of a table it shares with other
/// instances of its pattern: one table per pattern where the flips allow (two for a pattern
/// whose transposed instances read in another order), which takes about a quarter of the
/// cache that one table per instance would.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Extracted {
    /// For each flip, the instances read on the board so flipped: their squares there (as a
    /// mask) and where their table starts in `table`.
    groups: [Vec<(u64, u32)>; FLIPS],
    /// The same instances for the gather without `pext` ([`Compress`]).
    compressed: [Vec<Compress>; FLIPS],
    /// The tables, each indexed by a configuration read in ascending square order.
    pub(super) table: Vec<i16>,
    /// Whether [`Weights::evaluate_with`] gathers the squares by `pext` or, where `pext` is
    /// slow ([`crate::cpu::fast_pext`]), by [`Compress`].
    pub(super) by_pext: bool,
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
    /// The arrangement of `w` (in the [`Layout`](super::Layout) order of `shape`).
    fn new(shape: Shape, w: &[i16]) -> Extracted {
        let layout = layout(shape);
        let mut groups: [Vec<(u64, u32)>; FLIPS] = Default::default();
        let mut compressed: [Vec<Compress>; FLIPS] = Default::default();
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
            compressed[f].push(Compress::new(mask, start));
        }
        Extracted {
            groups,
            compressed,
            table,
            by_pext: crate::cpu::fast_pext(),
        }
    }
}

/// `pext` without the instruction, for one mask: the "compress" of Hacker's Delight (Warren,
/// 2nd ed., section 7-4), which moves every bit of the mask right by the number of clear
/// bits below it in six steps, shifting by 1, 2, 4, ..., 32 the bits whose move has that bit
/// set. The six sets of bits to move are computed from the mask once, so a gather is six
/// steps of three instructions, without branches, whatever the mask: measured 1.08x faster
/// than a loop over the mask's squares and 1.5x faster than `pext` on a Zen 2 (BENCHMARKS.md).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Compress {
    /// The squares gathered.
    mask: u64,
    /// Step `i`'s bits, moved right by `2^i`.
    moves: [u64; 6],
    /// Where the instance's table starts in [`Extracted::table`].
    start: u64,
}

impl Compress {
    /// The steps for `mask` (Hacker's Delight's `compress`, its loop kept for the masks only).
    pub(super) fn new(mask: u64, start: u32) -> Compress {
        let mut m = mask;
        // The clear bits below each bit of the mask, counted bit by bit of the count: `mk`
        // marks the bits with a clear bit just below, and `mp` its prefix parity.
        let mut mk = !m << 1;
        let mut moves = [0u64; 6];
        for (i, mv) in moves.iter_mut().enumerate() {
            let mut mp = mk ^ (mk << 1);
            mp ^= mp << 2;
            mp ^= mp << 4;
            mp ^= mp << 8;
            mp ^= mp << 16;
            mp ^= mp << 32;
            *mv = mp & m;
            m = (m ^ *mv) | (*mv >> (1 << i));
            mk &= !mp;
        }
        Compress {
            mask,
            moves,
            start: u64::from(start),
        }
    }

    /// The bits of `x` under the mask, gathered into the low bits in ascending order: the
    /// value of `pext(x, mask)`.
    #[inline(always)]
    pub(super) fn apply(&self, x: u64) -> u64 {
        let mut x = x & self.mask;
        for (i, &mv) in self.moves.iter().enumerate() {
            let t = x & mv;
            x = (x ^ t) | (t >> (1 << i));
        }
        x
    }
}

/// The first bytes of a weights file.
const MAGIC: &[u8; 8] = b"RVPAT8v1";

impl Weights {
    /// Weights for `shape` from the file format: the 8 bytes `RVPAT8v1`, the number of weights
    /// (u32 little-endian), then each as i16 little-endian, in the order of `shape`'s
    /// [`Layout`](super::Layout).
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
    /// Unless `w` holds one value per weight of `shape`'s [`Layout`](super::Layout).
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

    /// Weights in the [`Layout`](super::Layout) order of `shape`.
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
    /// x86-64-v3, or six shifts where `pext` is slow), given the mover's legal moves `moves`: the search's evaluation. The same
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
        if x.by_pext {
            for (group, &(bp, bo)) in x.groups.iter().zip(&boards) {
                for &(m, start) in group {
                    let a =
                        TERNARY[cpu.pext(bp, m) as usize] + 2 * TERNARY[cpu.pext(bo, m) as usize];
                    v += i32::from(x.table[start as usize + a as usize]);
                }
            }
        } else {
            for (group, &(bp, bo)) in x.compressed.iter().zip(&boards) {
                for c in group {
                    let a = TERNARY[c.apply(bp) as usize] + 2 * TERNARY[c.apply(bo) as usize];
                    v += i32::from(x.table[c.start as usize + a as usize]);
                }
            }
        }
        v += self.scalar_sum(scalars_given(p, o, empty, moves));
        v.clamp(-64 * UNITS_PER_DISC, 64 * UNITS_PER_DISC)
    }
}

/// The weights file shipped for `shape` (`assets/eval/patternRxC.bin`), if there is one.
pub(super) fn asset(shape: Shape) -> Option<&'static [u8]> {
    Some(match (shape.rows(), shape.cols()) {
        (5, 7) => include_bytes!("../../../assets/eval/pattern5x7.bin"),
        (6, 6) => include_bytes!("../../../assets/eval/pattern6x6.bin"),
        (5, 8) => include_bytes!("../../../assets/eval/pattern5x8.bin"),
        (6, 7) => include_bytes!("../../../assets/eval/pattern6x7.bin"),
        (6, 8) => include_bytes!("../../../assets/eval/pattern6x8.bin"),
        (7, 7) => include_bytes!("../../../assets/eval/pattern7x7.bin"),
        (8, 8) => include_bytes!("../../../assets/eval/pattern8x8.bin"),
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
