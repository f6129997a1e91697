//! What every computation over layers of positions shares: a position's children, each with a
//! forced pass folded in ([`crate::board::after_move`]), told apart by whether the game goes
//! on.
//!
//! dp's counting (`count::dp`) and the strong tables' retrograde analysis (`strong`) both
//! expand positions through [`expand`] into the same layer tables (`count::dp`'s keys, tables
//! per colour to move and expansion of a layer); they differ in what a position carries (dp:
//! its paths from each first-move class, added; strong: the symmetry images reached, or-ed)
//! and in what they do with a child that ends the game (dp tallies it, strong keeps it).

use crate::board::{after_move, legal_moves, Next, Squares};
use crate::cpu::Cpu;

/// What to do with each child of a position. Implementations mark every method
/// `#[inline(always)]`, so that a CPU copy of the caller compiles them with its instructions.
pub trait Children {
    /// Whether to look at the child `(np, no)` any further, before the costlier pass check:
    /// `np` are the discs of the side to move after the placement, `no` the placer's. The
    /// default wants every child.
    #[inline(always)]
    fn wants(&mut self, np: u64, no: u64) -> bool {
        let _ = (np, no);
        true
    }
    /// A child whose game goes on: `p` to move against `o`; `passed` when the placer's
    /// opponent had no move, so the placer moves again (then `p` is the placer's discs).
    fn goes_on(&mut self, p: u64, o: u64, passed: bool);
    /// A child whose game is over: `np` the discs of the placer's opponent, `no` the placer's.
    fn over(&mut self, np: u64, no: u64);
}

/// Hands every child of the position `(p, o)` (`p` to move, on the board `mask`) to `k`, in
/// the order of the squares, flips computed by `cpu`'s copy.
#[inline(always)]
pub fn expand<C: Cpu, K: Children>(cpu: C, p: u64, o: u64, mask: u64, k: &mut K) {
    let empty = mask & !(p | o);
    for sq in Squares(legal_moves(p, o, empty)) {
        let bit = 1u64 << sq;
        let f = cpu.flips(p, o, sq);
        let (np, no) = (o ^ f, p | f | bit);
        if !k.wants(np, no) {
            continue;
        }
        match after_move(np, no, empty ^ bit) {
            Next::Moves => k.goes_on(np, no, false),
            Next::Passes => k.goes_on(no, np, true),
            Next::Over => k.over(np, no),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Move, Shape};
    use crate::cpu::Portable;

    /// Collects the children as `(player, opponent, passed, over)`.
    struct All(Vec<(u64, u64, bool, bool)>);

    impl Children for All {
        fn goes_on(&mut self, p: u64, o: u64, passed: bool) {
            self.0.push((p, o, passed, false));
        }
        fn over(&mut self, np: u64, no: u64) {
            self.0.push((np, no, false, true));
        }
    }

    #[test]
    fn children_as_position_plays_them() {
        // Against the slow twin: `Position::apply`, then a pass applied when it is the only
        // turn, on seeded random positions of 4x5 and 6x6 with passes and ends.
        let mut rng = crate::rng::SplitMix64::new(5);
        let (mut passes, mut ends) = (0, 0);
        for (r, c) in [(4, 5), (6, 6)] {
            let shape = Shape::new(r, c).unwrap();
            for _ in 0..300 {
                let mut pos = shape.start();
                while !pos.is_over() && pos.moves() != 0 && !rng.next().is_multiple_of(16) {
                    let turns = pos.legal_turns();
                    pos = pos
                        .apply(turns[(rng.next() % turns.len() as u64) as usize])
                        .unwrap();
                }
                if pos.moves() == 0 {
                    continue;
                }
                let mut got = All(Vec::new());
                expand(
                    Portable,
                    pos.player(),
                    pos.opponent(),
                    shape.mask(),
                    &mut got,
                );
                let want: Vec<(u64, u64, bool, bool)> = pos
                    .legal_turns()
                    .into_iter()
                    .map(|t| {
                        let child = pos.apply(t).unwrap();
                        if child.is_over() {
                            ends += 1;
                            (child.player(), child.opponent(), false, true)
                        } else if child.legal_turns() == [Move::Pass] {
                            passes += 1;
                            let after = child.apply(Move::Pass).unwrap();
                            (after.player(), after.opponent(), true, false)
                        } else {
                            (child.player(), child.opponent(), false, false)
                        }
                    })
                    .collect();
                assert_eq!(got.0, want);
            }
        }
        assert!(passes > 0 && ends > 0, "{passes} passes, {ends} ends");
    }
}
