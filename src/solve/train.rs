//! Training the pattern evaluation ([`super::pattern`]) of one board: samples of its exactly
//! solved positions, and a least-squares fit of the weights to them.
//!
//! **Samples.** Game `i` of seed `s` is played from the start by a noisy heuristic player (a
//! random legal move one time in four, else the move the simple evaluation of
//! [`crate::play::eval`] likes best with some noise) until it has a drawn number of empty
//! squares (on 8x8 10 to 18 unless asked otherwise, [`SAMPLE_EMPTIES`]; other boards
//! [`sample_empties`]); that position is solved
//! exactly under the Othello rule (empty squares to the winner). Each game has its own random
//! stream, so the samples do not depend on the thread count or on where a run was
//! interrupted.
//!
//! **Fit.** Stochastic gradient descent on the squared error with a small L2 penalty, every
//! sample in each of its symmetric images (eight on a square board, four on a rectangle), in a
//! fixed shuffled order, one thread: the same
//! samples always give the same weights. On boards other than 8x8 (whose shipped weights came
//! before it) the fitted weights are then made symmetric ([`super::pattern::symmetrize`]), so
//! that symmetric positions evaluate alike. The last tenth of the samples is held out and the
//! fit reports its error there.

use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::board::{Position, Scoring, Shape, Symmetry};
use crate::rng::Xoshiro256;

use super::pattern::{indices, layout, scalars, symmetrize, Weights, SCALARS};
pub use super::sample::Sample;
use super::Solver;

/// The empty squares of the shipped 8x8 samples' positions.
pub const SAMPLE_EMPTIES: RangeInclusive<u32> = 10..=18;

/// The empty squares of the samples of `shape` by default: [`SAMPLE_EMPTIES`] on 8x8; on a
/// smaller board, from 10 up to 8 fewer than at the start and at most 20 (6x6: 10-20), which its solver
/// proves in well under a second each, so the samples reach the middle game the search
/// orders there.
#[must_use]
pub fn sample_empties(shape: Shape) -> RangeInclusive<u32> {
    if shape.squares() == 64 {
        return SAMPLE_EMPTIES;
    }
    let start = shape.squares() - 4;
    10..=start.saturating_sub(8).clamp(10, 20)
}

/// The position of game `index` of `seed` on `shape` to be solved, or `None` when that game
/// ended before reaching its drawn number of empty squares (drawn uniformly from `empties`).
#[must_use]
pub fn sample_position(
    shape: Shape,
    seed: u64,
    index: u64,
    empties: &RangeInclusive<u32>,
) -> Option<Position> {
    let mut rng = Xoshiro256::for_stream(seed, index);
    let target = empties.start() + rng.below(empties.end() - empties.start() + 1);
    let mut pos = shape.start();
    while pos.empty().count_ones() > target {
        if pos.is_over() {
            return None;
        }
        let turns = pos.legal_turns();
        let mv = if rng.below(4) == 0 {
            turns[rng.below(turns.len() as u32) as usize]
        } else {
            let mut best = (i32::MIN, turns[0]);
            for &m in &turns {
                let child = pos.apply(m).expect("a legal turn");
                let v = -crate::play::eval::evaluate(child.player(), child.opponent(), shape)
                    + rng.below(300) as i32;
                if v > best.0 {
                    best = (v, m);
                }
            }
            best.1
        };
        pos = pos.apply(mv).expect("a legal turn");
    }
    (!pos.is_over()).then_some(pos)
}

/// Solves the sample positions on `shape` (of `empties` empty squares) of games `range` of
/// `seed` (in parallel, each worker with a table of `hash_mb` MiB); `None` for games that ended
/// early. In the order of the games.
///
/// Once `stop` is set no game is started: the result holds the games from the range's start
/// up to the first one not solved (all of them if `stop` was never set). A game started is
/// solved to its end, so a stop waits for the positions in flight only (under a second each
/// at the default empty squares; a position of 28 empty squares of 6x6 takes some 1e8 nodes).
/// What is returned does not depend on when it stops, only on how many games it holds.
#[must_use]
pub fn solve_samples(
    shape: Shape,
    seed: u64,
    range: std::ops::Range<u64>,
    empties: &RangeInclusive<u32>,
    hash_mb: usize,
    stop: &AtomicBool,
) -> Vec<Option<Sample>> {
    let solved: Vec<Option<Option<Sample>>> = range
        .into_par_iter()
        .map_init(
            || {
                let mut s = Solver::new(hash_mb);
                s.set_scoring(Scoring::WinnerTakesEmpties);
                s
            },
            |solver, i| {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                let Some(pos) = sample_position(shape, seed, i, empties) else {
                    return Some(None);
                };
                let value = solver.guessed_value(&pos);
                Some(Some(Sample {
                    p: pos.player(),
                    o: pos.opponent(),
                    value: value as i8,
                }))
            },
        )
        .collect();
    solved.into_iter().map_while(|s| s).collect()
}

/// The fit sees the scalar features divided by this, so that their steps are of the size of
/// the patterns' (counts up to about 30 against ones).
const SCALAR_SCALE: f64 = 8.0;

/// What a fit did.
#[derive(Debug, Clone, PartialEq)]
pub struct FitReport {
    /// Samples fitted on.
    pub train: usize,
    /// Samples held out.
    pub held_out: usize,
    /// Root mean square error on the held-out samples, in discs, of the fitted weights.
    pub rmse: f64,
    /// The same for the best constant guess (the training mean), for scale.
    pub rmse_constant: f64,
    /// Correlation of the fitted evaluation with the exact values on the held-out samples.
    pub correlation: f64,
}

/// Fits weights of `shape` to its `samples` (the last tenth held out) in `epochs` passes.
///
/// # Panics
/// If there are fewer than 10 samples.
#[must_use]
pub fn fit(shape: Shape, samples: &[Sample], epochs: u32) -> (Weights, FitReport) {
    assert!(samples.len() >= 10, "too few samples to fit");
    let layout = layout(shape);
    let mask = shape.mask();
    let held = samples.len() / 10;
    let (train, test) = samples.split_at(samples.len() - held);
    // Every training sample in each symmetric image: pattern indices, scalars, value.
    let syms = Symmetry::all(shape);
    let mut rows: Vec<(Vec<usize>, [f64; SCALARS], f64)> =
        Vec::with_capacity(syms.len() * train.len());
    for s in train {
        for &sym in syms {
            let (p, o) = (sym.apply(shape, s.p), sym.apply(shape, s.o));
            let mut idx = Vec::with_capacity(layout.instances.len());
            indices(shape, p, o, &mut idx);
            let x = scalars(p, o, mask & !(p | o)).map(|x| f64::from(x) / SCALAR_SCALE);
            rows.push((idx, x, f64::from(s.value)));
        }
    }
    let base = layout.len - SCALARS;
    let mut w = vec![0.0f64; layout.len];
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let mut rng = Xoshiro256::from_seed(0x5EED);
    let (lambda, lr0) = (1e-4, 0.002);
    for epoch in 0..epochs {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u32 + 1) as usize);
        }
        let lr = lr0 * (1.0 - 0.9 * f64::from(epoch) / f64::from(epochs.max(1)));
        for &r in &order {
            let (idx, x, y) = &rows[r];
            let mut pred = 0.0;
            for &i in idx {
                pred += w[i];
            }
            for (j, xj) in x.iter().enumerate() {
                pred += w[base + j] * xj;
            }
            let err = pred - y;
            for &i in idx {
                w[i] -= lr * (err + lambda * w[i]);
            }
            for (j, xj) in x.iter().enumerate() {
                w[base + j] -= lr * err * xj;
            }
        }
    }
    for x in &mut w[base..] {
        *x /= SCALAR_SCALE;
    }
    // 8x8's shipped weights were fitted before this step; its command still writes them.
    if shape.squares() != 64 {
        symmetrize(shape, &mut w);
    }
    let weights = Weights::from_discs(shape, &w);
    let report = held_out_report(&weights, train, test);
    (weights, report)
}

/// The error and correlation of `weights` on `test`, against the constant guess of `train`'s
/// mean.
fn held_out_report(weights: &Weights, train: &[Sample], test: &[Sample]) -> FitReport {
    let mask = weights.shape().mask();
    let mean = train.iter().map(|s| f64::from(s.value)).sum::<f64>() / train.len().max(1) as f64;
    let units = f64::from(super::pattern::UNITS_PER_DISC);
    let pairs: Vec<(f64, f64)> = test
        .iter()
        .map(|s| {
            let e = f64::from(weights.evaluate(s.p, s.o, mask & !(s.p | s.o))) / units;
            (e, f64::from(s.value))
        })
        .collect();
    let n = pairs.len().max(1) as f64;
    let rmse = (pairs.iter().map(|(e, y)| (e - y).powi(2)).sum::<f64>() / n).sqrt();
    let rmse_constant = (pairs.iter().map(|(_, y)| (mean - y).powi(2)).sum::<f64>() / n).sqrt();
    let (me, my) = (
        pairs.iter().map(|p| p.0).sum::<f64>() / n,
        pairs.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let cov: f64 = pairs.iter().map(|(e, y)| (e - me) * (y - my)).sum();
    let ve: f64 = pairs.iter().map(|(e, _)| (e - me).powi(2)).sum();
    let vy: f64 = pairs.iter().map(|(_, y)| (y - my).powi(2)).sum();
    FitReport {
        train: train.len(),
        held_out: test.len(),
        rmse,
        rmse_constant,
        correlation: cov / (ve * vy).sqrt().max(1e-12),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_lines_round_trip_and_bad_lines_are_rejected() {
        let s = Sample {
            p: 0x0000_0008_1000_0000,
            o: 0x0000_0010_0800_0000,
            value: -12,
        };
        assert_eq!(Sample::from_line(&s.to_line()), Ok(s));
        for bad in ["", "1 2", "1 1 0", "x 2 3", "1 2 65"] {
            assert!(Sample::from_line(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn samples_are_exact_and_do_not_depend_on_the_order() {
        // Each sample's value against a separate solve of its position; a range solved in two
        // pieces gives the same samples.
        let shape = Shape::square(8).unwrap();
        let go = AtomicBool::new(false);
        let all = solve_samples(shape, 7, 0..8, &SAMPLE_EMPTIES, 4, &go);
        let mut pieces = solve_samples(shape, 7, 0..3, &SAMPLE_EMPTIES, 4, &go);
        pieces.extend(solve_samples(shape, 7, 3..8, &SAMPLE_EMPTIES, 4, &go));
        assert_eq!(all, pieces);
        // Stopped before it starts, it solves nothing.
        let stop = AtomicBool::new(true);
        assert!(solve_samples(shape, 7, 0..8, &SAMPLE_EMPTIES, 4, &stop).is_empty());
        let mut solver = Solver::new(4);
        solver.set_scoring(Scoring::WinnerTakesEmpties);
        let mut solved = 0;
        for (i, s) in all.iter().enumerate() {
            if let Some(s) = s {
                let pos = sample_position(shape, 7, i as u64, &SAMPLE_EMPTIES).unwrap();
                assert_eq!((pos.player(), pos.opponent()), (s.p, s.o));
                assert!((10..=18).contains(&pos.empty().count_ones()));
                assert_eq!(solver.value(&pos), i32::from(s.value));
                solved += 1;
            }
        }
        assert!(solved >= 6);
    }

    #[test]
    fn fit_learns_a_planted_evaluation() {
        // Values made by a rule the features can express (three times the mover's mobility
        // minus the other side's) on random positions: the fit must explain nearly all of it
        // on the held-out ones. A rule on single squares would not do: a pattern's weights are
        // per whole configuration, and most held-out configurations are new.
        let shape = Shape::square(8).unwrap();
        let mut rng = Xoshiro256::from_seed(9);
        let mut samples = Vec::new();
        while samples.len() < 3000 {
            let mut pos = shape.start();
            let stop = 20 + rng.below(30);
            while pos.empty().count_ones() > stop && !pos.is_over() {
                let turns = pos.legal_turns();
                pos = pos
                    .apply(turns[rng.below(turns.len() as u32) as usize])
                    .unwrap();
            }
            let (p, o) = (pos.player(), pos.opponent());
            let v =
                3 * (pos.moves().count_ones() as i32 - pos.opponent_moves().count_ones() as i32);
            samples.push(Sample {
                p,
                o,
                value: v.clamp(-64, 64) as i8,
            });
        }
        let (_, report) = fit(shape, &samples, 30);
        assert!(
            report.rmse < 0.3 * report.rmse_constant && report.correlation > 0.95,
            "{report:?}"
        );
    }
}
