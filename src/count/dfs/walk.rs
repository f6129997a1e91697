//! The depth-first walk below one frontier position, compiled once per CPU level.

use crate::board::{flips, last_flip_count, legal_moves, Position, Squares};
#[cfg(target_arch = "x86_64")]
use crate::cpu::Level;

/// The walk asks whether to stop at every position with at least this many empty squares.
/// Below one, a subtree of 12 empty squares holds at most a few 10^8 games (under a second of
/// walk on 5x5 and 6x6), so a stop is seen within about a second, and the test costs nothing
/// measurable: such positions are a tiny fraction of those walked.
const STOP_CHECK_EMPTIES: u32 = 12;

/// Asks whether the walk should stop; called rarely (see [`STOP_CHECK_EMPTIES`]).
pub(crate) type StopCheck<'a> = &'a (dyn Fn() -> bool + Sync);

/// The score tally of every game below `pos` (whose side to move has a move), or `None` when
/// `stop` answered yes on the way (the partial tally is dropped: the subtree is walked again
/// on resume).
#[must_use]
pub(crate) fn subtree(pos: &Position, stride: usize, stop: StopCheck) -> Option<Vec<u64>> {
    let mut tally = vec![0u64; stride * stride];
    let (p, o, empty, btm) = (
        pos.player(),
        pos.opponent(),
        pos.empty(),
        pos.black_to_move(),
    );
    let finished = match crate::cpu::level() {
        // SAFETY: `level` found every feature these copies are compiled for on this CPU.
        #[cfg(target_arch = "x86_64")]
        Level::V4 => unsafe { v4::walk(p, o, empty, btm, &mut tally, stride, stop) },
        #[cfg(target_arch = "x86_64")]
        Level::V3 => unsafe { v3::walk(p, o, empty, btm, &mut tally, stride, stop) },
        _ => portable::walk(p, o, empty, btm, &mut tally, stride, stop),
    };
    finished.then_some(tally)
}

/// Defines the walk over exactly `$n` empty squares (3 or 4): the flips of every empty square
/// first (independent computations the CPU overlaps; a square that flips nothing is no move,
/// so passes show on the way), then each move, handed to `$child`, the walk over one square
/// fewer. `passed`: the other side has just passed, so no move here ends the game.
macro_rules! small_squares {
    ($(#[$attr:meta])*; $name:ident, $n:literal, $child:ident) => {
        $(#[$attr])*
        fn $name(
            p: u64,
            o: u64,
            empty: u64,
            black_to_move: bool,
            passed: bool,
            tally: &mut [u64],
            stride: usize,
        ) {
            let mut squares = [0u32; $n];
            let mut flipped = [0u64; $n];
            let mut rest = empty;
            for i in 0..$n {
                squares[i] = rest.trailing_zeros();
                rest &= rest - 1;
                flipped[i] = flips(p, o, squares[i]);
            }
            if flipped.iter().all(|&f| f == 0) {
                if passed {
                    leaf(p, o, black_to_move, tally, stride);
                } else {
                    $name(o, p, empty, !black_to_move, true, tally, stride);
                }
                return;
            }
            for (&sq, &f) in squares.iter().zip(&flipped) {
                if f != 0 {
                    let bit = 1u64 << sq;
                    $child(o ^ f, p | f | bit, empty ^ bit, !black_to_move, false, tally, stride);
                }
            }
        }
    };
}

/// The enumeration, compiled for any x86-64 (or other) CPU, for AVX2 and for AVX-512 CPUs
/// ([`crate::cpu`]), the copy chosen at run time. On the 5x5 subtree of `BENCHMARKS.md` (Zen 3)
/// the AVX2 copy, with the flips in vector registers ([`crate::board::flips_avx2`]), takes a
/// fifth less time than with the scalar flips and a third of the portable copy's. The AVX-512
/// copy keeps the scalar flips, which the compiler vectorizes there with a vector `lzcnt`
/// (measured 7% faster than the scalar AVX2 copy on a Zen 4).
macro_rules! walkers {
    ($(#[$attr:meta])*) => {
        /// Tallies a finished game.
        // Always inlined, so compiled with the features of the copy that calls it.
        #[inline(always)]
        fn leaf(p: u64, o: u64, black_to_move: bool, tally: &mut [u64], stride: usize) {
            let (b, w) = if black_to_move { (p, o) } else { (o, p) };
            tally[b.count_ones() as usize * stride + w.count_ones() as usize] += 1;
        }

        /// The game has one empty square `sq` left: the side to move plays it, or else the
        /// other side, or else the game ends as it stands. Only the number of flips matters
        /// here, and with one empty square it comes from the mover's discs alone
        /// ([`last_flip_count`]).
        // Always inlined, so compiled with the features of the copy that calls it.
        #[inline(always)]
        fn last_square(
            p: u64,
            o: u64,
            sq: u32,
            black_to_move: bool,
            tally: &mut [u64],
            stride: usize,
        ) {
            // Discs on the board: every square but `sq`, that is `stride - 2`.
            let pc = p.count_ones() as usize;
            let oc = stride - 2 - pc;
            let (b, w) = {
                let n = last_flip_count(p, sq) as usize;
                if n != 0 {
                    (pc + n + 1, oc - n)
                } else {
                    let n = last_flip_count(o, sq) as usize;
                    if n != 0 {
                        (pc - n, oc + n + 1)
                    } else {
                        (pc, oc)
                    }
                }
            };
            // (b, w) above are (mover, other): orient them by colour.
            let (b, w) = if black_to_move { (b, w) } else { (w, b) };
            tally[b * stride + w] += 1;
        }

        /// Tallies every game from the position `(p, o)` with empty squares `empty`; false if
        /// `stop` answered yes on the way (the tally is then partial).
        $(#[$attr])*
        pub(super) fn walk(
            p: u64,
            o: u64,
            empty: u64,
            black_to_move: bool,
            tally: &mut [u64],
            stride: usize,
            stop: StopCheck,
        ) -> bool {
            if empty.count_ones() >= STOP_CHECK_EMPTIES && stop() {
                return false;
            }
            let mut moves = legal_moves(p, o, empty);
            let (mut p, mut o, mut btm) = (p, o, black_to_move);
            if moves == 0 {
                moves = legal_moves(o, p, empty);
                if moves == 0 {
                    leaf(p, o, btm, tally, stride);
                    return true;
                }
                std::mem::swap(&mut p, &mut o);
                btm = !btm;
            }
            for sq in Squares(moves) {
                let bit = 1u64 << sq;
                let f = flips(p, o, sq);
                let (np, no) = (o ^ f, p | f | bit);
                let ne = empty ^ bit;
                match ne.count_ones() {
                    0 => leaf(np, no, !btm, tally, stride),
                    1 => last_square(np, no, ne.trailing_zeros(), !btm, tally, stride),
                    2 => two_squares(np, no, ne, !btm, false, tally, stride),
                    3 => three_squares(np, no, ne, !btm, false, tally, stride),
                    4 => four_squares(np, no, ne, !btm, false, tally, stride),
                    _ => {
                        if !walk(np, no, ne, !btm, tally, stride, stop) {
                            return false;
                        }
                    }
                }
            }
            true
        }

        /// The two empty squares of `empty` are left: both moves are tried at once (two
        /// independent flip computations the CPU overlaps), with no loop and no recursion.
        $(#[$attr])*
        #[inline]
        fn two_squares(
            p: u64,
            o: u64,
            empty: u64,
            black_to_move: bool,
            _passed: bool,
            tally: &mut [u64],
            stride: usize,
        ) {
            let x = empty.trailing_zeros();
            let y = 63 - empty.leading_zeros();
            let (bx, by) = (1u64 << x, 1u64 << y);
            let fx = flips(p, o, x);
            let fy = flips(p, o, y);
            if fx | fy != 0 {
                if fx != 0 {
                    last_square(o ^ fx, p | fx | bx, y, !black_to_move, tally, stride);
                }
                if fy != 0 {
                    last_square(o ^ fy, p | fy | by, x, !black_to_move, tally, stride);
                }
                return;
            }
            // The side to move passes.
            let gx = flips(o, p, x);
            let gy = flips(o, p, y);
            if gx | gy == 0 {
                leaf(p, o, black_to_move, tally, stride);
                return;
            }
            if gx != 0 {
                last_square(p ^ gx, o | gx | bx, y, black_to_move, tally, stride);
            }
            if gy != 0 {
                last_square(p ^ gy, o | gy | by, x, black_to_move, tally, stride);
            }
        }

        small_squares!($(#[$attr])*; three_squares, 3, two_squares);
        small_squares!($(#[$attr])*; four_squares, 4, three_squares);
    };
}

mod portable {
    use super::*;
    walkers!();
}

#[cfg(target_arch = "x86_64")]
mod v3 {
    use super::*;
    // Shadows the glob's scalar `flips`: this copy's walk calls the AVX2 flips.
    use crate::board::flips_avx2 as flips;
    walkers!(#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]);
}

#[cfg(target_arch = "x86_64")]
mod v4 {
    use super::*;
    walkers!(#[target_feature(
        enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd,avx512bw,avx512dq"
    )]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Shape;

    #[test]
    fn four_by_four_subtree() {
        // blog, 2008-03-29: 15,015 games after the first legal move on 4x4.
        let start = Shape::square(4).unwrap().start();
        let first = start.play(start.moves().trailing_zeros()).unwrap();
        let t = subtree(&first, 17, &|| false).unwrap();
        assert_eq!(t.iter().sum::<u64>(), 15_015);
    }

    #[test]
    fn every_copy_agrees() {
        // Every copy of the walk this CPU can run (`subtree` runs only the best one) against the
        // portable one, on a 5x5 subtree of 13 empty squares (with passes on the way).
        let shape = Shape::square(5).unwrap();
        let (pos, _) = shape
            .start()
            .after_moves("c2 b2 b3 b4 a4 c1 d1 e1")
            .unwrap();
        let stride = 26;
        let (p, o, e, b) = (
            pos.player(),
            pos.opponent(),
            pos.empty(),
            pos.black_to_move(),
        );
        let mut portable = vec![0u64; stride * stride];
        assert!(portable::walk(p, o, e, b, &mut portable, stride, &|| false));
        assert!(portable.iter().sum::<u64>() > 1_000_000);
        assert_eq!(subtree(&pos, stride, &|| false), Some(portable.clone()));
        #[cfg(target_arch = "x86_64")]
        {
            let level = crate::cpu::level();
            if level >= Level::V3 {
                let mut t = vec![0u64; stride * stride];
                // SAFETY: the CPU has the v3 features (checked just above).
                assert!(unsafe { v3::walk(p, o, e, b, &mut t, stride, &|| false) });
                assert_eq!(t, portable);
            }
            if level >= Level::V4 {
                let mut t = vec![0u64; stride * stride];
                // SAFETY: the CPU has the v4 features (checked just above).
                assert!(unsafe { v4::walk(p, o, e, b, &mut t, stride, &|| false) });
                assert_eq!(t, portable);
            }
        }
    }

    #[test]
    fn a_stop_ends_the_walk() {
        // 5x5 after one move: 21 empty squares, so the stop is asked at the root already.
        let shape = Shape::square(5).unwrap();
        let (pos, _) = shape.start().after_moves("c2").unwrap();
        let asked = std::sync::atomic::AtomicU32::new(0);
        let stop = || asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= 3;
        assert_eq!(subtree(&pos, 26, &stop), None);
        assert_eq!(asked.load(std::sync::atomic::Ordering::Relaxed), 4);
    }
}
