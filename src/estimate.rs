//! Random-probe estimates of the number of games, with their final scores and lengths.
//!
//! **Knuth's estimator** (D. E. Knuth, "Estimating the efficiency of backtrack programs", Math.
//! Comp. 29, 1975). A *probe* plays a uniformly random legal move at every turn until the game
//! ends, and multiplies the numbers of legal moves met on the way (a forced pass has one choice,
//! so it multiplies by 1). A game reached with probability `1/(k1 k2 ... kn)` then carries the
//! weight `k1 k2 ... kn`, so the product's expectation is exactly the number of games: the mean
//! of many probes is an unbiased estimate. In the same way, the product counted only when the
//! game ends `b:w` estimates the games ending `b:w`, and likewise for game lengths.
//!
//! **Interval.** The report gives the mean, its standard error `s / sqrt(K)` (`s` the sample
//! standard deviation of the products) and the 95% interval `mean ± 1.96 SE` of the normal
//! approximation. The products are heavy-tailed on big boards, so there the interval is only
//! as good as the sample: a rare huge product may be missing from it.
//!
//! **Arithmetic.** Products are accumulated in `f64`. The largest product on 8x8 is far below
//! `f64::MAX` (at most 60 placements with fewer than 33 moves each, under `33^60 ≈ 1e91`, whose
//! square `1e182` is still representable), and the variance is accumulated by Welford's update
//! within a chunk and Chan's merge across chunks, which does not lose the small spread of
//! nearly equal products to cancellation.
//!
//! **Reproducibility.** The samples are cut into chunks of [`CHUNK`] probes; chunk `i` draws
//! from its own xoshiro256** seeded from `(seed, i)`, and the chunk tallies are merged in chunk
//! order. The report therefore depends on the seed and the number of samples only, never on the
//! number of threads.

use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::board::{flips, legal_moves, Position};
use crate::progress::Progress;
use crate::rng::Xoshiro256;

/// Probes per chunk: each chunk has its own random stream.
pub const CHUNK: u64 = 1024;

/// Chunks run in parallel between two in-order merges (bounds the memory of pending tallies).
const BATCH: u64 = 64;

/// The estimator, in words.
pub const METHOD: &str = "Knuth's estimator: mean over random playouts of the product of the \
                          numbers of legal moves along the playout (a forced pass counts 1)";

/// What the 95% interval is.
pub const INTERVAL_METHOD: &str = "normal approximation: mean ± 1.96 × standard error";

/// How to run an estimate.
#[derive(Debug, Clone, Copy)]
pub struct EstimateOptions {
    /// Number of probes (random playouts).
    pub samples: u64,
    /// Seed of the random streams.
    pub seed: u64,
}

/// An estimated number of games with its uncertainty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The mean of the probes: an unbiased estimate.
    pub mean: f64,
    /// Standard error of the mean.
    pub std_error: f64,
    /// Lower end of the 95% interval (normal approximation).
    pub ci95_low: f64,
    /// Upper end of the 95% interval (normal approximation).
    pub ci95_high: f64,
}

impl Estimate {
    fn from_stats(s: &Stats) -> Estimate {
        let se = s.std_error();
        Estimate {
            mean: s.mean,
            std_error: se,
            ci95_low: s.mean - 1.96 * se,
            ci95_high: s.mean + 1.96 * se,
        }
    }

    /// Whether the 95% interval contains `x`.
    #[must_use]
    pub fn contains(&self, x: f64) -> bool {
        self.ci95_low <= x && x <= self.ci95_high
    }
}

/// Estimated games ending with one final score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreEstimate {
    /// Black discs at the end.
    pub black: u32,
    /// White discs at the end.
    pub white: u32,
    /// Estimated number of games ending so.
    pub games: f64,
}

/// Estimated games of one length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LengthEstimate {
    /// Placements (passes not counted) from the estimated position to the end.
    pub placements: u32,
    /// Estimated number of games of this length.
    pub games: f64,
}

/// Estimated games of one outcome, and their share of all games.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutcomeEstimate {
    /// Estimated number of games with this outcome, with its interval.
    pub games: Estimate,
    /// The outcome's estimated share of all games (a ratio of two estimates).
    pub share: f64,
}

/// The result of [`estimate`]: plain data, serialisable to JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EstimateReport {
    /// Board size, such as `8x8`.
    pub board: String,
    /// The board string of the position estimated from.
    pub position: String,
    /// The estimator, in words.
    pub method: String,
    /// What the interval is.
    pub interval: String,
    /// Probes run (fewer than asked if stopped early).
    pub samples: u64,
    /// The seed.
    pub seed: u64,
    /// Probes per random stream.
    pub chunk: u64,
    /// Whether the run was stopped before all probes were done.
    pub interrupted: bool,
    /// Estimated number of complete games from the position.
    pub games: Estimate,
    /// Standard error divided by the mean.
    pub relative_std_error: f64,
    /// log10 of the largest single product seen.
    pub max_product_log10: f64,
    /// Estimated games won by black.
    pub black_wins: OutcomeEstimate,
    /// Estimated drawn games.
    pub draws: OutcomeEstimate,
    /// Estimated games won by white.
    pub white_wins: OutcomeEstimate,
    /// Estimated games per final score, sorted by (black, white); scores no probe reached are
    /// left out.
    pub scores: Vec<ScoreEstimate>,
    /// Estimated games per length, sorted; lengths no probe reached are left out.
    pub lengths: Vec<LengthEstimate>,
    /// Mean length of a game in placements, weighted by the estimated game counts.
    pub mean_length: f64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Probes per second of wall time.
    pub probes_per_second: f64,
}

/// Count, mean and sum of squared deviations (Welford), mergeable in a fixed order (Chan et al.).
#[derive(Debug, Clone, Copy, Default)]
struct Stats {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Stats {
    #[inline]
    fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    fn merge(&mut self, o: &Stats) {
        if o.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *o;
            return;
        }
        let n = self.n + o.n;
        let d = o.mean - self.mean;
        self.mean += d * o.n as f64 / n as f64;
        self.m2 += o.m2 + d * d * (self.n as f64 * o.n as f64 / n as f64);
        self.n = n;
    }

    fn std_error(&self) -> f64 {
        if self.n < 2 {
            return f64::INFINITY;
        }
        (self.m2 / (self.n - 1) as f64 / self.n as f64).sqrt()
    }
}

/// The tallies of one chunk of probes (or of several, merged).
#[derive(Debug, Clone)]
struct Tally {
    /// The products, for the total.
    total: Stats,
    /// The products counted only for black wins, draws, white wins (zero otherwise).
    outcomes: [Stats; 3],
    /// Sum of products per final score, indexed `black * (squares + 1) + white`.
    scores: Vec<f64>,
    /// Sum of products per number of placements.
    lengths: Vec<f64>,
    /// Largest product.
    max: f64,
}

impl Tally {
    fn new(squares: usize) -> Tally {
        Tally {
            total: Stats::default(),
            outcomes: [Stats::default(); 3],
            scores: vec![0.0; (squares + 1) * (squares + 1)],
            lengths: vec![0.0; squares + 1],
            max: 0.0,
        }
    }

    fn merge(&mut self, o: &Tally) {
        self.total.merge(&o.total);
        for (a, b) in self.outcomes.iter_mut().zip(&o.outcomes) {
            a.merge(b);
        }
        for (a, b) in self.scores.iter_mut().zip(&o.scores) {
            *a += b;
        }
        for (a, b) in self.lengths.iter_mut().zip(&o.lengths) {
            *a += b;
        }
        self.max = self.max.max(o.max);
    }
}

/// The end of one probe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probe {
    /// Product of the numbers of choices along the playout (1 for a forced pass).
    pub product: f64,
    /// Black discs at the end.
    pub black: u32,
    /// White discs at the end.
    pub white: u32,
    /// Placements played.
    pub placements: u32,
}

/// Plays one random game from `pos` to its end, choosing uniformly among the legal moves.
///
/// # Examples
///
/// ```
/// use reversi_nxn::board::Shape;
/// use reversi_nxn::estimate::probe;
/// use reversi_nxn::rng::Xoshiro256;
/// // Every 3x3 game after the first move is reached with probability 1/product.
/// let start = Shape::square(3).unwrap().start();
/// let p = probe(&start, &mut Xoshiro256::from_seed(1));
/// assert!(p.product >= 1.0 && p.black + p.white <= 9);
/// ```
#[inline]
pub fn probe(pos: &Position, rng: &mut Xoshiro256) -> Probe {
    let mask = pos.shape().mask();
    let (mut p, mut o) = (pos.player(), pos.opponent());
    let mut black_to_move = pos.black_to_move();
    let mut product = 1.0f64;
    let mut placements = 0;
    loop {
        let mut moves = legal_moves(p, o, mask & !(p | o));
        if moves == 0 {
            if legal_moves(o, p, mask & !(p | o)) == 0 {
                break;
            }
            // A forced pass: one choice.
            std::mem::swap(&mut p, &mut o);
            black_to_move = !black_to_move;
            continue;
        }
        let k = moves.count_ones();
        product *= f64::from(k);
        for _ in 0..rng.below(k) {
            moves &= moves - 1;
        }
        let sq = moves.trailing_zeros();
        let f = flips(p, o, sq);
        let np = p | f | (1u64 << sq);
        let no = o & !f;
        p = no;
        o = np;
        black_to_move = !black_to_move;
        placements += 1;
    }
    let (black, white) = if black_to_move { (p, o) } else { (o, p) };
    Probe {
        product,
        black: black.count_ones(),
        white: white.count_ones(),
        placements,
    }
}

/// Runs the `count` probes of chunk `index`.
fn run_chunk(pos: &Position, seed: u64, index: u64, count: u64, squares: usize) -> Tally {
    let mut rng = Xoshiro256::for_stream(seed, index);
    let mut t = Tally::new(squares);
    for _ in 0..count {
        let r = probe(pos, &mut rng);
        let x = r.product;
        t.total.push(x);
        let outcome = match r.black.cmp(&r.white) {
            std::cmp::Ordering::Greater => 0,
            std::cmp::Ordering::Equal => 1,
            std::cmp::Ordering::Less => 2,
        };
        for (i, s) in t.outcomes.iter_mut().enumerate() {
            s.push(if i == outcome { x } else { 0.0 });
        }
        t.scores[r.black as usize * (squares + 1) + r.white as usize] += x;
        t.lengths[r.placements as usize] += x;
        t.max = t.max.max(x);
    }
    t
}

/// Estimates the number of complete games from `pos` (and their scores and lengths) by
/// `opts.samples` random probes. Parallel on rayon; the result does not depend on the number
/// of threads. Progress counts probes; a stop request ends the run after the current batch of
/// chunks, and the report then says `interrupted` and how many probes it holds.
///
/// # Examples
///
/// ```
/// use reversi_nxn::board::Shape;
/// use reversi_nxn::estimate::{estimate, EstimateOptions};
/// use reversi_nxn::progress::Silent;
/// // 3x3 has 8 games after its first move (REFERENCE.md, blog 2008-03-29).
/// let (pos, _) = Shape::square(3).unwrap().start().after_moves("b1").unwrap();
/// let r = estimate(&pos, EstimateOptions { samples: 2000, seed: 1 }, &Silent);
/// assert!(r.games.contains(8.0));
/// ```
#[must_use]
pub fn estimate(pos: &Position, opts: EstimateOptions, progress: &dyn Progress) -> EstimateReport {
    let t0 = Instant::now();
    let squares = pos.shape().squares() as usize;
    let chunks = opts.samples.div_ceil(CHUNK);
    let mut all = Tally::new(squares);
    let mut interrupted = false;
    progress.start("estimate", opts.samples);
    let mut first = 0;
    while first < chunks {
        if progress.should_stop() {
            interrupted = true;
            break;
        }
        let last = (first + BATCH).min(chunks);
        let tallies: Vec<Tally> = (first..last)
            .into_par_iter()
            .map(|i| {
                let count = CHUNK.min(opts.samples - i * CHUNK);
                let t = run_chunk(pos, opts.seed, i, count, squares);
                progress.advance(count);
                t
            })
            .collect();
        for t in &tallies {
            all.merge(t);
        }
        first = last;
    }
    progress.finish();
    let seconds = t0.elapsed().as_secs_f64();
    report(pos, opts, &all, interrupted, seconds)
}

/// Turns the merged tallies into a report.
fn report(
    pos: &Position,
    opts: EstimateOptions,
    t: &Tally,
    interrupted: bool,
    seconds: f64,
) -> EstimateReport {
    let n = t.total.n;
    let per_sample = |sum: f64| if n == 0 { 0.0 } else { sum / n as f64 };
    let squares = pos.shape().squares() as usize;
    let games = Estimate::from_stats(&t.total);
    let total_mean = games.mean;
    let outcome = |s: &Stats| OutcomeEstimate {
        games: Estimate::from_stats(s),
        share: if total_mean > 0.0 {
            s.mean / total_mean
        } else {
            0.0
        },
    };
    let mut scores = Vec::new();
    for black in 0..=squares {
        for white in 0..=squares {
            let sum = t.scores[black * (squares + 1) + white];
            if sum > 0.0 {
                scores.push(ScoreEstimate {
                    black: black as u32,
                    white: white as u32,
                    games: per_sample(sum),
                });
            }
        }
    }
    let lengths: Vec<LengthEstimate> = t
        .lengths
        .iter()
        .enumerate()
        .filter(|(_, &s)| s > 0.0)
        .map(|(len, &s)| LengthEstimate {
            placements: len as u32,
            games: per_sample(s),
        })
        .collect();
    let weight: f64 = lengths.iter().map(|l| l.games).sum();
    let mean_length = if weight > 0.0 {
        lengths
            .iter()
            .map(|l| f64::from(l.placements) * l.games)
            .sum::<f64>()
            / weight
    } else {
        0.0
    };
    EstimateReport {
        board: pos.shape().name(),
        position: pos.to_board_string(),
        method: METHOD.to_string(),
        interval: INTERVAL_METHOD.to_string(),
        samples: n,
        seed: opts.seed,
        chunk: CHUNK,
        interrupted,
        relative_std_error: if games.mean > 0.0 {
            games.std_error / games.mean
        } else {
            0.0
        },
        games,
        max_product_log10: if t.max > 0.0 { t.max.log10() } else { 0.0 },
        black_wins: outcome(&t.outcomes[0]),
        draws: outcome(&t.outcomes[1]),
        white_wins: outcome(&t.outcomes[2]),
        scores,
        lengths,
        mean_length,
        seconds,
        probes_per_second: n as f64 / seconds.max(1e-9),
    }
}

/// A quick Knuth estimate of the games at ply `depth` from `pos` (perft's convention, OEIS
/// A124004: a forced pass uses a ply, a game that ended earlier is not counted), from `probes`
/// random paths with a fixed seed. Meant for telling a run of seconds from one of days before
/// it starts, not for publishing: its error is large at high plies.
#[must_use]
pub fn games_at_ply(pos: &Position, depth: u32, probes: u32) -> f64 {
    let mut rng = Xoshiro256::from_seed(0x00C0_FFEE);
    let mut sum = 0.0;
    for _ in 0..probes {
        let mut at = *pos;
        let mut product = 1.0f64;
        for _ in 0..depth {
            let moves = at.moves();
            if moves != 0 {
                let k = moves.count_ones();
                product *= f64::from(k);
                let mut m = moves;
                for _ in 0..rng.below(k) {
                    m &= m - 1;
                }
                at = at.play(m.trailing_zeros()).expect("a legal move");
            } else if at.opponent_moves() != 0 {
                at = at.apply(crate::board::Move::Pass).expect("a forced pass");
            } else {
                product = 0.0;
                break;
            }
        }
        sum += product;
    }
    sum / f64::from(probes.max(1))
}

/// A quick Knuth estimate of every game from `pos` to its end, from `probes` random games with
/// a fixed seed (see [`games_at_ply`] for its purpose).
#[must_use]
pub fn games_quick(pos: &Position, probes: u32) -> f64 {
    let mut rng = Xoshiro256::from_seed(0x00C0_FFEE);
    let sum: f64 = (0..probes).map(|_| probe(pos, &mut rng).product).sum();
    sum / f64::from(probes.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Shape;
    use crate::progress::Silent;

    #[test]
    fn quick_estimates_are_near_exact_counts() {
        // 4x4: 60,060 games (the blog); perft ply 6 of 8x8: 8,200 (OEIS A124004).
        let four = Shape::square(4).unwrap().start();
        let g = games_quick(&four, 20_000);
        assert!((g / 60_060.0 - 1.0).abs() < 0.1, "{g}");
        let eight = Shape::square(8).unwrap().start();
        let g = games_at_ply(&eight, 6, 20_000);
        assert!((g / 8_200.0 - 1.0).abs() < 0.1, "{g}");
        // A game over by then counts nothing: 3x3 ends within 5 placements.
        let three = Shape::square(3).unwrap().start();
        assert_eq!(games_at_ply(&three, 12, 1000), 0.0);
    }

    #[test]
    fn stats_merge_equals_sequential() {
        let xs: Vec<f64> = (1..=1000).map(|i| f64::from(i * i % 97)).collect();
        let mut seq = Stats::default();
        xs.iter().for_each(|&x| seq.push(x));
        let mut parts = Stats::default();
        for c in xs.chunks(37) {
            let mut s = Stats::default();
            c.iter().for_each(|&x| s.push(x));
            parts.merge(&s);
        }
        assert_eq!(seq.n, parts.n);
        assert!((seq.mean - parts.mean).abs() < 1e-9);
        assert!((seq.m2 - parts.m2).abs() / seq.m2 < 1e-9);
        // The textbook formula, for the variance.
        let mean = xs.iter().sum::<f64>() / 1000.0;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / 999.0;
        assert!((seq.m2 / 999.0 - var).abs() / var < 1e-9);
    }

    #[test]
    fn three_by_three_probes_end_in_white_wins() {
        // 3x3 after b1: every probe is a complete game; products are the inverse probabilities.
        let (pos, _) = Shape::square(3).unwrap().start().after_moves("b1").unwrap();
        let mut rng = Xoshiro256::from_seed(9);
        for _ in 0..100 {
            let p = probe(&pos, &mut rng);
            assert!(p.product >= 1.0);
            // REFERENCE.md (blog, 2008-03-29): on 3x3 all games are won by the second player.
            assert!(p.white > p.black);
        }
    }

    /// Asks to stop at the second check.
    struct StopSoon(std::sync::atomic::AtomicU32);

    impl Progress for StopSoon {
        fn should_stop(&self) -> bool {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= 1
        }
    }

    #[test]
    fn a_stop_request_ends_after_the_current_batch() {
        let pos = Shape::square(4).unwrap().start();
        let opts = EstimateOptions {
            samples: 3 * BATCH * CHUNK,
            seed: 2,
        };
        let r = estimate(&pos, opts, &StopSoon(Default::default()));
        assert!(r.interrupted);
        assert_eq!(r.samples, BATCH * CHUNK);
        // The probes done are the first ones of the full run: the same as a run of that size.
        let short = estimate(
            &pos,
            EstimateOptions {
                samples: BATCH * CHUNK,
                seed: 2,
            },
            &Silent,
        );
        assert_eq!(r.games, short.games);
    }

    #[test]
    fn scores_and_lengths_add_up_to_total() {
        let pos = Shape::square(4).unwrap().start();
        let r = estimate(
            &pos,
            EstimateOptions {
                samples: 3000,
                seed: 5,
            },
            &Silent,
        );
        let by_score: f64 = r.scores.iter().map(|s| s.games).sum();
        let by_length: f64 = r.lengths.iter().map(|s| s.games).sum();
        let by_outcome = r.black_wins.games.mean + r.draws.games.mean + r.white_wins.games.mean;
        for x in [by_score, by_length, by_outcome] {
            assert!((x - r.games.mean).abs() / r.games.mean < 1e-9, "{x}");
        }
        assert_eq!(r.samples, 3000);
        assert!(!r.interrupted);
    }
}
