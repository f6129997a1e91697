//! The depth-first walk below one frontier position, compiled once per CPU level
//! ([`crate::cpu`]).
//!
//! On the 5x5 subtree of `BENCHMARKS.md` (Zen 3) the AVX2 copy, with the flips in vector
//! registers ([`crate::board::flips_avx2`]), takes a fifth less time than with the scalar flips
//! and a third of the portable copy's. The AVX-512 copy keeps the scalar flips, which the
//! compiler vectorizes there with a vector `lzcnt` (measured 7% faster than the scalar AVX2
//! copy on a Zen 4).

use crate::board::{last_flip_count, legal_moves, Position, Squares};
use std::cell::Cell;

use crate::cpu::{Call, Cpu, Job};

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
    subtree_at(crate::cpu::level(), pos, stride, stop)
}

/// [`subtree`] by the copy of the walk for `level` (or the best below it the CPU has).
fn subtree_at(
    level: crate::cpu::Level,
    pos: &Position,
    stride: usize,
    stop: StopCheck,
) -> Option<Vec<u64>> {
    let tally: Vec<Cell<u64>> = (0..stride * stride).map(|_| Cell::new(0)).collect();
    let shared = Shared {
        tally: &tally,
        stride,
        stop,
    };
    let start = Start {
        shared: &shared,
        p: pos.player(),
        o: pos.opponent(),
        empty: pos.empty(),
        black_to_move: pos.black_to_move(),
    };
    let finished = crate::cpu::run_at(level, start);
    finished.then(|| tally.into_iter().map(Cell::into_inner).collect())
}

/// What every call of one walk shares: the tally of final scores (rows of `stride`: black's
/// discs, then white's) and the stop check.
struct Shared<'a> {
    tally: &'a [Cell<u64>],
    stride: usize,
    stop: StopCheck<'a>,
}

impl Shared<'_> {
    /// Tallies a finished game.
    #[inline(always)]
    fn leaf(&self, p: u64, o: u64, black_to_move: bool) {
        let (b, w) = if black_to_move { (p, o) } else { (o, p) };
        let cell = &self.tally[b.count_ones() as usize * self.stride + w.count_ones() as usize];
        cell.set(cell.get() + 1);
    }

    /// The game has one empty square `sq` left: the side to move plays it, or else the other
    /// side, or else the game ends as it stands. Only the number of flips matters here, and
    /// with one empty square it comes from the mover's discs alone ([`last_flip_count`]).
    #[inline(always)]
    fn last_square(&self, p: u64, o: u64, sq: u32, black_to_move: bool) {
        let stride = self.stride;
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
        let cell = &self.tally[b * stride + w];
        cell.set(cell.get() + 1);
    }
}

/// The walk from its root, in the copy of a level.
struct Start<'s, 'a> {
    shared: &'s Shared<'a>,
    p: u64,
    o: u64,
    empty: u64,
    black_to_move: bool,
}

impl Job for Start<'_, '_> {
    type Output = bool;
    #[inline(always)]
    fn run<C: Cpu>(self, cpu: C) -> bool {
        let btm = u64::from(self.black_to_move);
        cpu.call(Walk(self.shared), self.p, self.o, self.empty, btm)
    }
}

/// Tallies every game from the position `(p, o)` with empty squares `empty`, black to move if
/// the last word is 1; false if the stop check answered yes on the way (the tally is then
/// partial). Called with the position in registers ([`Call`]).
#[derive(Clone, Copy)]
struct Walk<'s, 'a>(&'s Shared<'a>);

impl Call for Walk<'_, '_> {
    type Output = bool;
    #[inline(always)]
    fn call<C: Cpu>(self, cpu: C, p: u64, o: u64, empty: u64, btm: u64) -> bool {
        let sh = self.0;
        if empty.count_ones() >= STOP_CHECK_EMPTIES && (sh.stop)() {
            return false;
        }
        let mut moves = legal_moves(p, o, empty);
        let (mut p, mut o, mut btm) = (p, o, btm != 0);
        if moves == 0 {
            moves = legal_moves(o, p, empty);
            if moves == 0 {
                sh.leaf(p, o, btm);
                return true;
            }
            std::mem::swap(&mut p, &mut o);
            btm = !btm;
        }
        let child_btm = u64::from(!btm);
        for sq in Squares(moves) {
            let bit = 1u64 << sq;
            let f = cpu.flips(p, o, sq);
            let (np, no) = (o ^ f, p | f | bit);
            let ne = empty ^ bit;
            match ne.count_ones() {
                0 => sh.leaf(np, no, !btm),
                1 => sh.last_square(np, no, ne.trailing_zeros(), !btm),
                2 => cpu.call(Small::<2>(sh), np, no, ne, child_btm),
                3 => cpu.call(Small::<3>(sh), np, no, ne, child_btm),
                4 => cpu.call(Small::<4>(sh), np, no, ne, child_btm),
                _ => {
                    if !cpu.call(self, np, no, ne, child_btm) {
                        return false;
                    }
                }
            }
        }
        true
    }
}

/// The walk over exactly `N` empty squares (2, 3 or 4), unrolled: the flips of every empty
/// square first (independent computations the CPU overlaps; a square that flips nothing is
/// no move, so passes show on the way), then each move, handed to the walk over one square
/// fewer (with two squares left, the last square at once). No loop over moves, no recursion
/// but those calls.
#[derive(Clone, Copy)]
struct Small<'s, 'a, const N: usize>(&'s Shared<'a>);

impl<const N: usize> Call for Small<'_, '_, N> {
    type Output = ();
    #[inline(always)]
    fn call<C: Cpu>(self, cpu: C, p: u64, o: u64, empty: u64, btm: u64) {
        let sh = self.0;
        let (mut p, mut o, mut btm) = (p, o, btm != 0);
        let mut squares = [0u32; N];
        let mut rest = empty;
        for sq in &mut squares {
            *sq = rest.trailing_zeros();
            rest &= rest - 1;
        }
        // No closures here: a closure is compiled without the copy's instructions.
        let mut flipped = [0u64; N];
        let mut any = 0;
        for (f, &sq) in flipped.iter_mut().zip(&squares) {
            *f = cpu.flips(p, o, sq);
            any |= *f;
        }
        if any == 0 {
            // The side to move passes; if the other side cannot move either, the game is over.
            std::mem::swap(&mut p, &mut o);
            btm = !btm;
            for (f, &sq) in flipped.iter_mut().zip(&squares) {
                *f = cpu.flips(p, o, sq);
                any |= *f;
            }
            if any == 0 {
                sh.leaf(p, o, btm);
                return;
            }
        }
        for (&sq, &f) in squares.iter().zip(&flipped) {
            if f == 0 {
                continue;
            }
            let bit = 1u64 << sq;
            let (np, no, ne) = (o ^ f, p | f | bit, empty ^ bit);
            match N {
                2 => sh.last_square(np, no, ne.trailing_zeros(), !btm),
                3 => cpu.call(Small::<2>(sh), np, no, ne, u64::from(!btm)),
                _ => cpu.call(Small::<3>(sh), np, no, ne, u64::from(!btm)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Shape;
    use crate::cpu::Level;

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
        let portable = subtree_at(Level::Portable, &pos, stride, &|| false).unwrap();
        assert!(portable.iter().sum::<u64>() > 1_000_000);
        assert_eq!(subtree(&pos, stride, &|| false), Some(portable.clone()));
        for level in crate::cpu::levels() {
            let t = subtree_at(level, &pos, stride, &|| false);
            assert_eq!(t.as_ref(), Some(&portable), "{level:?}");
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
