//! Expanding a batch of a layer into the next one's tables: each child's flips, pass folding and
//! canonical key, staged by partition, then merged, with the copy of the code compiled for the
//! CPU's instructions.

use super::key::{Key, Packer};
use super::layer::{half, partition};
use super::slot::Slot;
use super::split::{SplitRange, Splitter};
use crate::board::{flips, has_moves, legal_moves, Squares};

/// What one worker gathered from a run of current-layer entries.
pub(crate) struct Local<S> {
    /// Children staged by partition of the next layer.
    pub(crate) staged: Vec<Vec<S>>,
    pub(crate) tally: Vec<u128>,
    /// No child's counts overflowed their slot.
    pub(crate) ok: bool,
}

/// Stages the children of the entries of `chunk` in `l` (see [`expand_one`]), with the copy of
/// the code compiled for the CPU's instructions (`cpu::level`): population counts, BMI2 shifts
/// and AVX2 or AVX-512 flips make the expansion about a fifth faster than the portable copy.
/// Results are identical (a test checks it).
pub(crate) fn expand_chunk<S: Slot<N>, const N: usize>(
    chunk: &[S],
    btm: bool,
    x: &Expansion,
    l: &mut Local<S>,
) -> bool {
    match crate::cpu::level() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `cpu::level` found the features this copy is compiled for.
        crate::cpu::Level::V4 => unsafe { v4::chunk(chunk, btm, x, l) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        crate::cpu::Level::V3 => unsafe { v3::chunk(chunk, btm, x, l) },
        _ => expand_all(chunk, btm, x, l, flips),
    }
}

/// [`expand_one`] on every entry of `chunk`, with `flip` computing the flips of a move;
/// always inlined, so each copy below compiles it with its own instructions.
#[inline(always)]
fn expand_all<S: Slot<N>, const N: usize>(
    chunk: &[S],
    btm: bool,
    x: &Expansion,
    l: &mut Local<S>,
    flip: impl Fn(u64, u64, u32) -> u64 + Copy,
) -> bool {
    let mut ok = true;
    for e in chunk {
        ok &= expand_one(e, btm, x, l, flip);
    }
    ok
}

/// Stamps out a copy of [`expand_all`] compiled with the target features of one CPU level.
macro_rules! expanders {
    ($($name:ident: $features:literal, $flip:expr;)*) => {$(
        #[cfg(target_arch = "x86_64")]
        mod $name {
            use super::{expand_all, Expansion, Local, Slot};
            /// [`expand_all`] compiled with these target features.
            ///
            /// # Safety
            /// The CPU must have the features (checked by `cpu::level`).
            #[target_feature(enable = $features)]
            pub(super) unsafe fn chunk<S: Slot<N>, const N: usize>(
                chunk: &[S],
                btm: bool,
                x: &Expansion,
                l: &mut Local<S>,
            ) -> bool {
                expand_all(chunk, btm, x, l, $flip)
            }
        }
    )*};
}

expanders! {
    // A closure inherits its function's target features, so it may call the AVX2 flips.
    v3: "popcnt,lzcnt,bmi1,bmi2,avx2", |p, o, sq| crate::board::flips_avx2(p, o, sq);
    // The portable flips, which the compiler vectorizes here with AVX-512's `lzcnt`.
    v4: "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd,avx512bw,avx512dq",
        crate::board::flips;
}

/// What expanding a layer needs besides its entries.
pub(crate) struct Expansion<'a> {
    /// The keys' packer.
    pk: &'a Packer,
    /// The board's squares.
    mask: u64,
    /// Row length of the score tally (squares + 1).
    stride: usize,
    /// Partitions per colour of the next layer.
    per_half: usize,
    /// Only the children whose split signature falls in this range (all when `None`): the
    /// disk store builds the next layer one range at a time (see [`super::split`]).
    keep: Option<(&'a Splitter, SplitRange)>,
}

impl<'a> Expansion<'a> {
    pub(crate) fn new(
        pk: &'a Packer,
        per_half: usize,
        keep: Option<(&'a Splitter, SplitRange)>,
    ) -> Expansion<'a> {
        let shape = pk.shape;
        Expansion {
            pk,
            mask: shape.mask(),
            stride: shape.squares() as usize + 1,
            per_half,
            keep,
        }
    }
}

/// Stages the children of one entry in `l`, tallying those that end the game.
#[inline(always)]
fn expand_one<S: Slot<N>, const N: usize>(
    e: &S,
    btm: bool,
    x: &Expansion,
    l: &mut Local<S>,
    flip: impl Fn(u64, u64, u32) -> u64,
) -> bool {
    let Expansion {
        pk,
        mask,
        stride,
        per_half,
        keep,
    } = *x;
    let ss = stride * stride;
    let (p, o) = e.key().decode(pk);
    let counts = e.counts();
    let mut ok = true;
    let empty = mask & !(p | o);
    for sq in Squares(legal_moves(p, o, empty)) {
        let bit = 1u64 << sq;
        let f = flip(p, o, sq);
        let (np, no) = (o ^ f, p | f | bit);
        let ne = empty ^ bit;
        if let Some((splitter, range)) = keep {
            // Decided before the costlier pass check and canonical key, from the discs alone.
            let (b, w) = if btm { (no, np) } else { (np, no) };
            if !range.contains(splitter.signature(b, w)) {
                continue;
            }
        }
        // The child, with a forced pass folded in.
        let (cp, co, cbtm) = if has_moves(np, no, ne) {
            (np, no, !btm)
        } else if has_moves(no, np, ne) {
            (no, np, btm)
        } else {
            let (b, w) = if btm { (no, np) } else { (np, no) };
            let idx = b.count_ones() as usize * stride + w.count_ones() as usize;
            for (c, &n) in counts.iter().enumerate() {
                if n > 0 {
                    l.tally[c * ss + idx] += u128::from(n);
                }
            }
            continue;
        };
        let key = S::K::canonical(pk, cp, co);
        let t = half(cbtm) * per_half + partition(key.hash(), per_half);
        match S::pack(key, counts) {
            Some(child) => l.staged[t].push(child),
            None => ok = false,
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Shape;
    use crate::count::dp::slot::Packed2;

    #[test]
    fn every_copy_agrees() {
        let shape = Shape::new(5, 5).unwrap();
        let pk = Packer::new(shape, true);
        let mask = shape.mask();
        let stride = shape.squares() as usize + 1;
        let per_half = 4;
        let x = Expansion::new(&pk, per_half, None);
        let mut rng = crate::rng::SplitMix64::new(7);
        let chunk: Vec<Packed2> = (0..3000)
            .map(|_| {
                let (r1, r2) = (rng.next() & mask, rng.next() & mask);
                // Mostly full boards, so that passes and ended games occur.
                let (p, o) = (r1 & r2, !r1 & r2 & mask | (r1 & !r2 & rng.next()));
                let o = o & !p;
                let key = <u64 as Key>::canonical(&pk, p, o);
                Packed2::pack(key, [rng.next() >> 40, 3]).unwrap()
            })
            .collect();
        let run = |f: &dyn Fn(&mut Local<Packed2>) -> bool| {
            let mut l = Local {
                staged: (0..2 * per_half).map(|_| Vec::new()).collect(),
                tally: vec![0u128; 2 * stride * stride],
                ok: true,
            };
            assert!(f(&mut l));
            let staged: Vec<Vec<(u64, [u64; 2])>> = l
                .staged
                .iter()
                .map(|v| v.iter().map(|e| (e.key(), e.counts())).collect())
                .collect();
            (staged, l.tally)
        };
        for btm in [true, false] {
            let portable = run(&|l| expand_all(&chunk, btm, &x, l, flips));
            assert!(portable.0.iter().map(Vec::len).sum::<usize>() > 1000);
            assert!(portable.1.iter().any(|&n| n > 0), "some games end");
            #[cfg(target_arch = "x86_64")]
            {
                let level = crate::cpu::level();
                if level >= crate::cpu::Level::V3 {
                    // SAFETY: the CPU has the features of this copy.
                    let v3 = run(&|l| unsafe { v3::chunk(&chunk, btm, &x, l) });
                    assert_eq!(v3, portable);
                }
                if level >= crate::cpu::Level::V4 {
                    // SAFETY: as above.
                    let v4 = run(&|l| unsafe { v4::chunk(&chunk, btm, &x, l) });
                    assert_eq!(v4, portable);
                }
            }
        }
    }
}
