//! The copies of the search, one per CPU level ([`crate::cpu`]), behind the one trait the root
//! driver calls ([`Search`]): [`searcher`] makes a searcher of the fastest copy the CPU runs.

use crate::cpu::{Cpu, Job, Level};

use super::abort::Abort;
use super::context::Ctx;
use super::search::{Searcher, Step};

/// What the root driver asks of a searcher, whichever copy of the search it runs.
pub trait Search {
    /// The exact value of `(p, o)` for the side to move (MTD(f) from `guess`).
    fn exact(&mut self, p: u64, o: u64, guess: i32) -> i32;
    /// [`Search::exact`] of a position whose value is known to lie in `known` (inclusive),
    /// telling `step` what each null-window test found.
    fn exact_within(
        &mut self,
        p: u64,
        o: u64,
        guess: i32,
        known: (i32, i32),
        step: &mut dyn FnMut(Step),
    ) -> i32;
    /// A fail-soft search of `(p, o)` with the window `(alpha, beta)`.
    fn search(&mut self, p: u64, o: u64, alpha: i32, beta: i32) -> i32;
    /// A heuristic guess of the value of `(p, o)` from about `budget` nodes.
    fn guess(&mut self, p: u64, o: u64, budget: u64) -> i32;
    /// The key that orders the moves of the principal variation (smaller first).
    fn pv_order_key(&mut self, p: u64, o: u64) -> i32;
    /// The best move the table holds for `(p, o)`, if any and legal (a frame bit).
    fn table_move(&self, p: u64, o: u64) -> Option<u32>;
    /// Whether the search stopped because an abort flag above it was raised (its results since
    /// are then unusable; see [`searcher_under`]).
    fn aborted(&self) -> bool;
}

impl<C: Cpu> Search for Searcher<'_, C> {
    fn exact(&mut self, p: u64, o: u64, guess: i32) -> i32 {
        Searcher::exact(self, p, o, guess)
    }
    fn exact_within(
        &mut self,
        p: u64,
        o: u64,
        guess: i32,
        known: (i32, i32),
        step: &mut dyn FnMut(Step),
    ) -> i32 {
        Searcher::exact_within(self, p, o, guess, known, step)
    }
    fn search(&mut self, p: u64, o: u64, alpha: i32, beta: i32) -> i32 {
        Searcher::search(self, p, o, alpha, beta)
    }
    fn guess(&mut self, p: u64, o: u64, budget: u64) -> i32 {
        Searcher::guess(self, p, o, budget)
    }
    fn pv_order_key(&mut self, p: u64, o: u64) -> i32 {
        Searcher::pv_order_key(self, p, o)
    }
    fn table_move(&self, p: u64, o: u64) -> Option<u32> {
        Searcher::table_move(self, p, o)
    }
    fn aborted(&self) -> bool {
        Searcher::aborted(self)
    }
}

/// Makes a searcher on `ctx` for the copy of the level it runs at.
struct NewSearcher<'a> {
    ctx: &'a Ctx<'a>,
    abort: Option<&'a Abort<'a>>,
}

impl<'a> Job for NewSearcher<'a> {
    type Output = Box<dyn Search + 'a>;
    /// The x86-64-v4 copy measured no faster than the x86-64-v3 one (BENCHMARKS.md).
    const TOP: Level = Level::V3;
    fn run<C: Cpu>(self, cpu: C) -> Box<dyn Search + 'a> {
        Box::new(Searcher::new(self.ctx, cpu, self.abort))
    }
}

/// A searcher on `ctx` running the fastest copy of the search this CPU has ([`crate::cpu`]):
/// the x86-64-v3 copy solves about a quarter faster than the portable one.
#[must_use]
pub fn searcher<'a>(ctx: &'a Ctx<'a>) -> Box<dyn Search + 'a> {
    crate::cpu::run(NewSearcher { ctx, abort: None })
}

/// A searcher on `ctx` under the flag `abort`, which another thread may raise to stop it (a
/// deadline): the search then returns within 16 interior nodes without storing
/// anything, as under a parallel split that was cut off, and [`Search::aborted`] says so. It
/// reads the flag every 16 nodes, which costs 1-2% of the time, so the searches
/// that are not stopped this way ([`searcher`]) do not take one.
#[must_use]
pub fn searcher_under<'a>(ctx: &'a Ctx<'a>, abort: &'a Abort<'a>) -> Box<dyn Search + 'a> {
    crate::cpu::run(NewSearcher {
        ctx,
        abort: Some(abort),
    })
}

/// A searcher on `ctx` running the copy of `level` (or the best below it the CPU has).
#[must_use]
pub fn searcher_at<'a>(ctx: &'a Ctx<'a>, level: Level) -> Box<dyn Search + 'a> {
    crate::cpu::run_at(level, NewSearcher { ctx, abort: None })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::board::{Scoring, Shape};
    use crate::rng::Xoshiro256;
    use crate::solve::table::{Part, Table};
    use crate::solve::tuning::Tuning;

    /// A position of `shape` from a seeded random game, stopped at `empties` empty squares
    /// or at the game's end.
    pub(in crate::solve) fn random_position(
        shape: Shape,
        rng: &mut Xoshiro256,
        empties: u32,
    ) -> crate::board::Position {
        let mut pos = shape.start();
        while pos.empty().count_ones() > empties && !pos.is_over() {
            let turns = pos.legal_turns();
            pos = pos
                .apply(turns[rng.below(turns.len() as u32) as usize])
                .unwrap();
        }
        pos
    }

    #[test]
    fn every_copy_agrees() {
        // Every copy of the search this CPU runs (`searcher` runs only the best one) against
        // the portable one: the same value and the same number of nodes (one searcher, no
        // parallel split, a fresh table each) on 6x6 positions of 16 empty squares from seeded
        // random games.
        let shape = Shape::square(6).unwrap();
        let tuning = Tuning {
            split_empties: u32::MAX,
            ..Tuning::default()
        };
        let mut rng = Xoshiro256::from_seed(11);
        for _ in 0..30 {
            let pos = random_position(shape, &mut rng, 16);
            let (p, o) = (pos.player(), pos.opponent());
            let run = |level: Level| {
                let table = Table::new(8);
                let ctx = Ctx::new(&table, tuning, shape, Scoring::Discs);
                let v = searcher_at(&ctx, level).exact(p, o, 0);
                (v, ctx.nodes())
            };
            let portable = run(Level::Portable);
            for level in crate::cpu::levels() {
                assert_eq!(run(level), portable, "{level:?}");
            }
        }
    }

    #[test]
    fn the_near_table_changes_no_value() {
        // 8x8 positions of 15 empty squares, under both rules: the value with the positions of
        // up to 12 empty squares in a near part of 96 KiB (a 1 MiB table, so that they collide
        // often), against the value with every position in the main part.
        let shape = Shape::square(8).unwrap();
        let near = Tuning {
            near_empties: 12,
            ..Tuning::default()
        };
        let main_only = Tuning {
            near_empties: 0,
            ..Tuning::default()
        };
        let mut rng = Xoshiro256::from_seed(27);
        for game in 0..12 {
            let pos = random_position(shape, &mut rng, 15);
            let (p, o) = (pos.player(), pos.opponent());
            let scoring = if game % 2 == 0 {
                Scoring::Discs
            } else {
                Scoring::WinnerTakesEmpties
            };
            let value = |tuning: Tuning| {
                let table = Table::new(1);
                let ctx = Ctx::new(&table, tuning, shape, scoring);
                let v = searcher(&ctx).exact(p, o, 0);
                (v, ctx.nodes())
            };
            let (with, nodes_with) = value(near);
            let (without, nodes_without) = value(main_only);
            assert_eq!(with, without, "{pos}");
            assert!(nodes_with > 0 && nodes_without > 0);
        }
        // The near part is for 8x8 only: other boards' node counts are kept in `results/`.
        let table = Table::new(1);
        let eight = Ctx::new(&table, near, shape, Scoring::Discs);
        assert_eq!((eight.part(12), eight.part(13)), (Part::Near, Part::Main));
        let six = Ctx::new(&table, near, Shape::square(6).unwrap(), Scoring::Discs);
        assert_eq!(six.part(7), Part::Main);
    }
}
