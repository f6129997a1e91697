//! Selective searches before the exact one (8x8, pattern evaluation): probcut, as Edax and
//! Egaroucid solve endgames.
//!
//! **Probcut.** At a null-window node with enough empty squares, a shallow search (about a
//! quarter of the empty squares deep, of the same parity) estimates the value. When that
//! estimate lies beyond the window by `t` standard deviations of its error against the exact
//! value, the node is cut off without searching its moves: `t = 1.5` is right about 93% of the
//! time on either side. Such a search is fast but its values are not exact.
//!
//! **Passes.** From [`Probcut::root_empties`] empty squares at the root, MTD(f) first runs at
//! each level of [`Probcut::levels`] in turn (the least sure first), each starting from the
//! value of the pass before, then the exact search starts from the last one. The passes leave
//! their best moves in the table, so the exact search finds most cutoffs with its first move,
//! and its first null-window test is near the value.
//!
//! **The table.** A selective pass stores its bounds with its level (`sel`, 0 for exact, higher
//! for less sure); a search uses only the bounds of entries at most as unsure as itself, so an
//! exact search reads only exact bounds, and its values stay exact. Best moves are used from
//! any entry.
//!
//! **Calibration.** `reversi train-eval --errors D` prints the error of the shallow search
//! against a samples file's exact values, by empty squares and depth. [`SIGMA`], its slope
//! and the two biases were read off two such tables (`docs/benchmarks-history.md`, session
//! 21): the samples of `train-eval --empties 19-22 --games 3072` (3,070 positions that no fit
//! has seen), with `--errors 6`, and the shipped samples of `train-eval --games 400000`
//! (10-18 empty squares), with `--errors 4 --held-out`. The evaluation errs by 5-10 discs
//! (one standard deviation), less the deeper it searches, and is biased by the parity of the
//! empty squares. The margins were kept when session 24's patterns cut the error by about 7%:
//! margins scaled to match took 1.008x the nodes on FFO #40-59. The margins only steer the
//! passes: a wrong one costs nodes, never a value.
//!
//! **Twin.** The exact value with the passes equals the value without them
//! (`selective_passes_change_no_value` in the tests).

use crate::board::{Scoring, Shape};
use crate::cpu::{Cpu, Job};

use super::context::Ctx;
use super::ordering::SHALLOW_INF;
use super::pattern::UNITS_PER_DISC;
use super::sample::Sample;
use super::search::{Searcher, Step};
use super::table::Table;
use super::tuning::Tuning;
pub use super::tuning::{Probcut, MAX_LEVELS};

/// Standard deviation of the exact value about the shallow search's, in discs, at 21 empty
/// squares, by the search's depth (0: the evaluation itself).
pub const SIGMA: [f64; 8] = [10.0, 8.7, 7.95, 7.1, 6.4, 6.0, 5.5, 5.2];
/// Change of [`SIGMA`] per empty square more than 21.
pub const SIGMA_PER_EMPTY: f64 = 0.1;
/// Mean of the exact value minus the shallow search's, in discs, at an odd number of empty
/// squares (the depth of the same parity).
pub const BIAS_ODD: f64 = 2.0;
/// The same at an even number.
pub const BIAS_EVEN: f64 = -1.5;

/// The depth of the probcut search at a node with `n` empty squares: about a quarter, of the
/// same parity as `n` (the evaluation's error swings with the side to move at the leaves).
#[must_use]
pub fn depth(n: u32) -> u32 {
    ((n >> 2) & !1) | (n & 1)
}

/// The standard deviation of the exact value about the depth-`d` search's at `n` empties.
#[must_use]
pub fn sigma(n: u32, d: u32) -> f64 {
    SIGMA[d.min(7) as usize] + SIGMA_PER_EMPTY * (f64::from(n) - 21.0)
}

/// The mean of the exact value minus the search's at `n` empties (depth of `n`'s parity).
#[must_use]
pub fn bias(n: u32) -> f64 {
    if n % 2 == 1 {
        BIAS_ODD
    } else {
        BIAS_EVEN
    }
}

impl<C: Cpu> Searcher<'_, C> {
    /// The selective passes of `(p, o)` (MTD(f) at each level of the tuning's probcut, from
    /// `guess`), when they apply, telling `step` each test's bounds; returns the last pass's
    /// value, or `guess`.
    pub(super) fn selective(
        &mut self,
        p: u64,
        o: u64,
        guess: i32,
        step: &mut dyn FnMut(Step),
    ) -> i32 {
        let Some(pc) = self.ctx.tuning.probcut else {
            return guess;
        };
        let n = (self.ctx.mask & !(p | o)).count_ones();
        let levels = pc.passes();
        if !self.patterned || n < pc.root_empties || levels.is_empty() {
            return guess;
        }
        let mut g = guess.clamp(-64, 64);
        for pass in 0..levels.len() {
            self.sel = (levels.len() - pass) as u8;
            let (mut lower, mut upper) = (-64, 64);
            // The pass starts, bounding nothing yet (its first test can take hours).
            step(Step::Selective {
                pass: pass + 1,
                passes: levels.len(),
                lower,
                upper,
            });
            // Selective values need not agree from one test to the next: each test moves a
            // bound strictly, so this ends.
            while lower < upper {
                let beta = g.clamp(lower + 1, upper);
                g = self.search(p, o, beta - 1, beta);
                if self.aborted() {
                    self.sel = 0;
                    return 0;
                }
                if g >= beta {
                    lower = g.max(beta);
                } else {
                    upper = g.min(beta - 1);
                }
                step(Step::Selective {
                    pass: pass + 1,
                    passes: levels.len(),
                    lower,
                    upper,
                });
            }
            g = lower.clamp(-64, 64);
        }
        self.sel = 0;
        g
    }

    /// The probcut test at a null-window node `(alpha, alpha + 1)` of `(p, o)` with `n` empty
    /// squares and legal moves `moves`: `Some(bound)` when the shallow search puts the value
    /// beyond the window by the current level's margin, with one search on the side the
    /// evaluation points to.
    pub(super) fn probcut(
        &mut self,
        p: u64,
        o: u64,
        empty: u64,
        moves: u64,
        n: u32,
        alpha: i32,
    ) -> Option<i32> {
        let pc = self.ctx.tuning.probcut?;
        if n < pc.empties {
            return None;
        }
        let levels = pc.passes();
        let t = f64::from(levels[levels.len() - self.sel as usize]) / 100.0;
        let d = depth(n);
        let ppd = f64::from(UNITS_PER_DISC);
        let beta = alpha + 1;
        let (bias, margin) = (bias(n), t * sigma(n, d));
        let estimate = f64::from(self.evaluate(p, o, empty, moves)) / ppd + bias;
        if estimate >= f64::from(beta) {
            let hi = ((f64::from(beta) - bias + margin) * ppd).ceil() as i32;
            (hi <= 64 * UNITS_PER_DISC && self.shallow(p, o, empty, d, hi - 1, hi) >= hi)
                .then_some(beta)
        } else {
            let lo = ((f64::from(alpha) - bias - margin) * ppd).floor() as i32;
            (lo >= -64 * UNITS_PER_DISC && self.shallow(p, o, empty, d, lo, lo + 1) <= lo)
                .then_some(alpha)
        }
    }
}

/// The error of the shallow search (pattern evaluation, 8x8, Othello rule) at one number of
/// empty squares and one depth, against exact values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErrorRow {
    /// Empty squares of the positions.
    pub empties: u32,
    /// Depth of the search (0: the evaluation).
    pub depth: u32,
    /// Positions.
    pub count: usize,
    /// Mean of the exact value minus the search's, in discs.
    pub mean: f64,
    /// Standard deviation of that difference.
    pub sd: f64,
}

/// Each sample's exact value minus the shallow search's at `depth`, in discs.
struct Errors<'a> {
    ctx: &'a Ctx<'a>,
    samples: &'a [Sample],
    depth: u32,
}

impl Job for Errors<'_> {
    type Output = Vec<f64>;
    fn run<C: Cpu>(self, cpu: C) -> Vec<f64> {
        let mut s = Searcher::new(self.ctx, cpu, None);
        self.samples
            .iter()
            .map(|x| {
                let empty = self.ctx.mask & !(x.p | x.o);
                let v = s.shallow(x.p, x.o, empty, self.depth, -SHALLOW_INF, SHALLOW_INF);
                f64::from(x.value) - f64::from(v) / f64::from(UNITS_PER_DISC)
            })
            .collect()
    }
}

/// The shallow search's error against the samples' exact values, per number of empty squares
/// (ascending) and depth in `depths`: the figures behind [`SIGMA`] and the biases.
#[must_use]
pub fn evaluation_errors(shape: Shape, samples: &[Sample], depths: &[u32]) -> Vec<ErrorRow> {
    let table = Table::new(1);
    let ctx = Ctx::new(
        &table,
        Tuning::default(),
        shape,
        Scoring::WinnerTakesEmpties,
    );
    let mut by_empties: std::collections::BTreeMap<u32, Vec<Sample>> = Default::default();
    for s in samples {
        by_empties
            .entry(shape.squares() - (s.p | s.o).count_ones())
            .or_default()
            .push(*s);
    }
    let mut rows = Vec::new();
    for (&empties, xs) in &by_empties {
        for &depth in depths {
            let errors = crate::cpu::run(Errors {
                ctx: &ctx,
                samples: xs,
                depth,
            });
            let n = errors.len() as f64;
            let mean = errors.iter().sum::<f64>() / n;
            let var = errors.iter().map(|e| (e - mean) * (e - mean)).sum::<f64>() / n;
            rows.push(ErrorRow {
                empties,
                depth,
                count: errors.len(),
                mean,
                sd: var.sqrt(),
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;
    use crate::rng::Xoshiro256;
    use crate::solve::dispatch::{self, searcher};

    #[test]
    fn probcut_depth_has_the_parity_of_the_empties() {
        for n in 8..=40 {
            let d = depth(n);
            assert_eq!(d % 2, n % 2, "{n}");
            assert!(d >= 2 && d <= n / 4 + 1, "{n}: {d}");
        }
    }

    /// A position of 8x8 with `empties` empty squares from a seeded random game (games that
    /// end before are drawn again).
    fn random_position(rng: &mut Xoshiro256, empties: u32) -> Position {
        let shape = Shape::square(8).unwrap();
        loop {
            let pos = dispatch::tests::random_position(shape, rng, empties);
            if !pos.is_over() {
                return pos;
            }
        }
    }

    /// Selective passes from 10 empty squares at the root and probcut from 6, so that they
    /// cut a lot on small positions.
    fn cutting() -> Tuning {
        Tuning {
            probcut: Some(Probcut {
                root_empties: 10,
                empties: 6,
                levels: &[100, 150, 200],
            }),
            ..Tuning::default()
        }
    }

    #[test]
    fn selective_passes_change_no_value() {
        // 8x8 positions of 14 empty squares, under both rules: the value with selective
        // passes from 10 empty squares at the root and probcut from 6 (so that they cut a lot)
        // against the value without them, each in a fresh table, and again in the table the
        // passes filled.
        let shape = Shape::square(8).unwrap();
        let selective = cutting();
        let exact = Tuning {
            probcut: None,
            defer_ordering: false,
            ..Tuning::default()
        };
        let mut rng = Xoshiro256::from_seed(5);
        for game in 0..16 {
            let pos = random_position(&mut rng, 14);
            let (p, o) = (pos.player(), pos.opponent());
            let scoring = if game % 2 == 0 {
                Scoring::Discs
            } else {
                Scoring::WinnerTakesEmpties
            };
            let value = |table: &Table, tuning: Tuning, guess: i32| {
                let ctx = Ctx::new(table, tuning, shape, scoring);
                let v = searcher(&ctx).exact(p, o, guess);
                (v, ctx.nodes())
            };
            let (filled, fresh) = (Table::new(8), Table::new(8));
            let (with, nodes_with) = value(&filled, selective, 0);
            // The exact search in the table the passes filled, from a guess far off.
            let (again, _) = value(&filled, exact, 30);
            let (without, nodes_without) = value(&fresh, exact, 0);
            assert_eq!(with, without, "{pos}");
            assert_ne!(nodes_with, nodes_without, "{pos}: the passes did nothing");
            assert_eq!(again, with, "{pos}");
        }
    }

    /// The bounds MTD(f) reports as proven ([`Searcher::exact_within`]) hold and narrow to
    /// the value, after the selective passes' (reported apart); a search started inside bounds
    /// known (true ones, tight or loose) finds the same value. Against the full-window search
    /// without passes, on 8x8 positions of 14 empty squares with passes that cut a lot.
    #[test]
    fn proven_bounds_hold_and_known_bounds_change_no_value() {
        let shape = Shape::square(8).unwrap();
        let selective = cutting();
        let plain = Tuning {
            probcut: None,
            mtdf: false,
            ..Tuning::default()
        };
        let mut rng = Xoshiro256::from_seed(9);
        for game in 0..16 {
            let pos = random_position(&mut rng, 14);
            let (p, o) = (pos.player(), pos.opponent());
            let table = Table::new(8);
            let want = searcher(&Ctx::new(&table, plain, shape, Scoring::Discs)).exact(p, o, 0);
            let guess = [-20, 0, 20][game % 3];
            for known in [
                (-64, 64),
                (want - 5, want + 1),
                (want, want + 1),
                (want, want),
            ] {
                let table = Table::new(8);
                let ctx = Ctx::new(&table, selective, shape, Scoring::Discs);
                let (mut seen, mut passes, mut tests) = (Vec::new(), 0, 0);
                let v = searcher(&ctx).exact_within(p, o, guess, known, &mut |step| match step {
                    Step::Proven { lower, upper } => seen.push((lower, upper)),
                    Step::Testing { beta } => {
                        let (lower, upper) = seen.last().copied().unwrap_or(known);
                        assert!(
                            lower < beta && beta <= upper,
                            "{pos}: {lower} {beta} {upper}"
                        );
                        tests += 1;
                    }
                    Step::Selective { .. } => {
                        assert!(seen.is_empty(), "{pos}: the passes come first");
                        passes += 1;
                    }
                });
                assert_eq!(passes > 0, known.0 < known.1, "{pos}: {known:?}");
                assert_eq!(v, want, "{pos} {known:?}");
                for (i, &(lo, hi)) in seen.iter().enumerate() {
                    assert!(lo <= want && want <= hi, "{pos}: {lo}..{hi} against {want}");
                    if i > 0 {
                        assert!(
                            lo >= seen[i - 1].0 && hi <= seen[i - 1].1,
                            "{pos}: {seen:?}"
                        );
                    }
                }
                assert_eq!(tests, seen.len(), "{pos}: a test before each proven step");
                if known.0 < known.1 {
                    assert_eq!(seen.last(), Some(&(want, want)), "{pos}");
                } else {
                    assert!(seen.is_empty());
                }
            }
        }
    }
}
