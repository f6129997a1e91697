//! The special solver for the last few empty squares: no table, no move list, squares tried in
//! regions of odd parity first, and the last square counted without playing it.

use crate::board::{last_flip_count, Scoring, Squares};
use crate::cpu::{Call, Cpu};

use super::search::{final_score, Searcher};

/// The end solver, in each copy of the search (see [`super::search::searcher`]).
impl<C: Cpu> Searcher<'_, C> {
    /// Fail-soft alpha-beta of `(p, o)` whose empty squares are `empty` (`n` of them).
    #[inline(always)]
    pub(super) fn endgame(
        &mut self,
        p: u64,
        o: u64,
        alpha: i32,
        beta: i32,
        empty: u64,
        n: u32,
    ) -> i32 {
        debug_assert_eq!(n, empty.count_ones());
        let cpu = self.cpu;
        cpu.call(EndgameCall(self), p, o, window(alpha, beta), empty)
    }

    /// The body of [`Searcher::endgame`], inlined into its copy.
    #[inline(always)]
    fn endgame_body(
        &mut self,
        p: u64,
        o: u64,
        mut alpha: i32,
        beta: i32,
        empty: u64,
        n: u32,
    ) -> i32 {
        if n == 2 && self.ctx.tuning.last_two && n < self.ctx.tuning.stability_empties {
            let x1 = empty.trailing_zeros();
            let x2 = (empty & (empty - 1)).trailing_zeros();
            return self.last_two(p, o, alpha, beta, x1, x2);
        }
        self.nodes += 1;
        match n {
            0 => return final_score(p, o),
            1 => return last_square(p, o, empty.trailing_zeros(), self.wte()),
            _ => {}
        }
        if n >= self.ctx.tuning.stability_empties {
            if let Some(v) = self.stability_cutoff(p, o, alpha, n) {
                return v;
            }
        }
        // Squares in regions with an odd number of empties first, then the rest.
        let mut odd = 0u64;
        for q in self.ctx.quadrants {
            if (q & empty).count_ones() % 2 == 1 {
                odd |= q & empty;
            }
        }
        let mut best = -super::search::INF;
        let mut moved = false;
        for set in [odd, empty & !odd] {
            for sq in Squares(set) {
                let f = self.cpu.flips(p, o, sq);
                if f == 0 {
                    continue;
                }
                moved = true;
                let bit = 1u64 << sq;
                let v = -self.endgame(o ^ f, p | f | bit, -beta, -alpha, empty ^ bit, n - 1);
                if v > best {
                    best = v;
                    if v > alpha {
                        alpha = v;
                        if alpha >= beta {
                            return best;
                        }
                    }
                }
            }
        }
        if moved {
            return best;
        }
        // No move: pass if the opponent can move, else the game is over.
        // A loop, not a closure: a closure is compiled without the copy's instructions.
        let mut replies = false;
        for sq in Squares(empty) {
            if self.cpu.flips(o, p, sq) != 0 {
                replies = true;
                break;
            }
        }
        if replies {
            -self.endgame(o, p, -beta, -alpha, empty, n)
        } else {
            self.game_over(p, o)
        }
    }

    /// [`Searcher::endgame`] with two empty squares `x1 < x2` (parity orders them row-major:
    /// either both regions are odd or both squares share an even one), unrolled: no square
    /// loop, no parity, the last square counted at once. Visits and counts the same nodes.
    #[inline(always)]
    fn last_two(&mut self, p: u64, o: u64, alpha: i32, beta: i32, x1: u32, x2: u32) -> i32 {
        let cpu = self.cpu;
        let squares = u64::from(x1) | u64::from(x2) << 32;
        cpu.call(LastTwoCall(self), p, o, window(alpha, beta), squares)
    }

    /// The body of [`Searcher::last_two`], inlined into its copy.
    #[inline(always)]
    fn last_two_body(&mut self, p: u64, o: u64, alpha: i32, beta: i32, x1: u32, x2: u32) -> i32 {
        self.nodes += 1;
        let wte = self.wte();
        let mut best = -super::search::INF;
        let f = self.cpu.flips(p, o, x1);
        if f != 0 {
            self.nodes += 1;
            best = -last_square(o ^ f, p | f | (1u64 << x1), x2, wte);
            if best >= beta {
                return best;
            }
        }
        let f = self.cpu.flips(p, o, x2);
        if f != 0 {
            self.nodes += 1;
            best = best.max(-last_square(o ^ f, p | f | (1u64 << x2), x1, wte));
        }
        if best > -super::search::INF {
            return best;
        }
        // No move: pass if the opponent can move, else the game is over.
        if self.cpu.flips(o, p, x1) != 0 || self.cpu.flips(o, p, x2) != 0 {
            -self.last_two(o, p, -beta, -alpha, x1, x2)
        } else {
            self.game_over(p, o)
        }
    }

    /// Whether the empty squares of a finished game go to the winner.
    #[inline(always)]
    fn wte(&self) -> bool {
        self.ctx.scoring == Scoring::WinnerTakesEmpties
    }
}

/// `(alpha, beta)` in one word, for a call's registers.
#[inline(always)]
fn window(alpha: i32, beta: i32) -> u64 {
    u64::from(alpha as u32) | u64::from(beta as u32) << 32
}

/// The `(alpha, beta)` of [`window`].
#[inline(always)]
fn unwindow(w: u64) -> (i32, i32) {
    (w as u32 as i32, (w >> 32) as u32 as i32)
}

/// One call of [`Searcher::endgame`], run by the searcher's copy with the position, the window
/// and the empty squares in registers.
struct EndgameCall<'s, 'a, C>(&'s mut Searcher<'a, C>);

impl<C: Cpu> Call for EndgameCall<'_, '_, C> {
    type Output = i32;
    #[inline(always)]
    fn call<D: Cpu>(self, _: D, p: u64, o: u64, window: u64, empty: u64) -> i32 {
        let (alpha, beta) = unwindow(window);
        self.0
            .endgame_body(p, o, alpha, beta, empty, empty.count_ones())
    }
}

/// One call of [`Searcher::last_two`], run by the searcher's copy with the position, the
/// window and the two squares in registers.
struct LastTwoCall<'s, 'a, C>(&'s mut Searcher<'a, C>);

impl<C: Cpu> Call for LastTwoCall<'_, '_, C> {
    type Output = i32;
    #[inline(always)]
    fn call<D: Cpu>(self, _: D, p: u64, o: u64, window: u64, squares: u64) -> i32 {
        let (alpha, beta) = unwindow(window);
        let (x1, x2) = (squares as u32, (squares >> 32) as u32);
        self.0.last_two_body(p, o, alpha, beta, x1, x2)
    }
}

/// The final score for the side to move when only square `sq` is empty: it plays there if it
/// can, else the opponent does if it can, else the game ends with the square empty (given to
/// the side with more discs if `wte`, winner takes empties). With one empty square the flip
/// counts come from line lookups ([`last_flip_count`]). Always inlined, so compiled with the
/// features of the copy of the search that calls it.
#[inline(always)]
fn last_square(p: u64, o: u64, sq: u32, wte: bool) -> i32 {
    let base = final_score(p, o);
    let f = last_flip_count(p, sq) as i32;
    if f != 0 {
        return base + 1 + 2 * f;
    }
    let g = last_flip_count(o, sq) as i32;
    if g != 0 {
        base - 1 - 2 * g
    } else if wte {
        base + base.signum()
    } else {
        base
    }
}
