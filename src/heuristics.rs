//! Simple move-choice strategies audited against perfect play on a strongly solved board.
//!
//! Every position of a [`StrongTable`] where the side to move has a choice (two or more legal
//! placements) is visited once: positions are counted up to symmetry, both sides to move merged,
//! and not weighted by how often they occur in games. For each strategy the tool asks whether
//! its move keeps the position's value, and if not, how many discs of final margin it gives away.
//!
//! **Ties.** A strategy's rule may leave several moves tied. The tie is broken uniformly at
//! random, and the audit takes the exact expectation: a position counts as perfect for the
//! fraction of tied moves that are perfect, and its loss is the mean loss of the tied moves.
//! `random` is the extreme case where every legal move is tied, so it needs no seed and the
//! result is exact. The sums are kept as integers over a common denominator, so the result does
//! not depend on the order of summation or the number of threads.

use rayon::prelude::*;
use serde::Serialize;

use crate::board::{flips, Shape, Squares};
use crate::progress::Progress;
use crate::strong::{child_discs, discs_of, StrongTable};

/// A simple way to choose a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Strategy {
    /// Turn the most discs.
    Greedy,
    /// Turn the fewest discs.
    Fewest,
    /// Leave the opponent the fewest legal moves (zero if the opponent must pass).
    Mobility,
    /// Take a corner if there is one, else [`Strategy::Greedy`]; among corners, greedy.
    Corners,
    /// Corners first; otherwise avoid the squares next to an empty corner (X- and C-squares)
    /// when some other move exists; then greedy.
    CornersSafe,
    /// Any legal move, uniformly.
    Random,
}

impl Strategy {
    /// Every strategy, in the order the table prints them.
    pub const ALL: [Strategy; 6] = [
        Strategy::Greedy,
        Strategy::Fewest,
        Strategy::Mobility,
        Strategy::Corners,
        Strategy::CornersSafe,
        Strategy::Random,
    ];

    /// The name used in the CSV.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Strategy::Greedy => "greedy",
            Strategy::Fewest => "fewest-flips",
            Strategy::Mobility => "mobility",
            Strategy::Corners => "corners",
            Strategy::CornersSafe => "corners-safe",
            Strategy::Random => "random",
        }
    }

    /// What the strategy does, in words.
    #[must_use]
    pub const fn description(self) -> &'static str {
        match self {
            Strategy::Greedy => "turn the most discs",
            Strategy::Fewest => "turn the fewest discs",
            Strategy::Mobility => "leave the opponent the fewest moves",
            Strategy::Corners => "a corner if possible, else greedy",
            Strategy::CornersSafe => {
                "a corner if possible, else avoid squares next to an empty corner, then greedy"
            }
            Strategy::Random => "any legal move, uniformly",
        }
    }
}

/// The audit of one strategy.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StrategyRow {
    /// The strategy's name.
    pub strategy: String,
    /// Positions with a choice (the same for every strategy).
    pub positions: u64,
    /// Share of positions where the strategy's move is perfect (ties: expected share).
    pub perfect_share: f64,
    /// Mean disc margin given away when the move is not perfect.
    pub mean_loss: f64,
    /// Largest disc margin any of the strategy's (tied) moves gives away.
    pub max_loss: u32,
    /// Mean disc margin given away per position, perfect moves counted as zero.
    pub expected_loss: f64,
}

/// The result of [`audit`].
#[derive(Debug, Clone, Serialize)]
pub struct HeuristicsReport {
    /// Board size, such as `5x5`.
    pub board: String,
    /// Positions audited: reachable, up to symmetry, with at least two legal moves.
    pub positions: u64,
    /// One row per strategy.
    pub rows: Vec<StrategyRow>,
}

/// What one move of a position looks like to the strategies and to the table.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    sq: u32,
    flips: u32,
    opponent_moves: u32,
    loss: u32,
}

/// `lcm(1..=32)`: every tie size divides it, so shares and mean losses are exact integers.
const DENOM: u128 = 144_403_552_893_600;

/// Integer sums for one strategy: perfect share and loss, each times [`DENOM`].
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    perfect: u128,
    loss: u128,
    max_loss: u32,
}

/// Audits every strategy over every position of `table` with at least two legal moves.
///
/// # Panics
///
/// If the table is inconsistent (a child of a stored position is missing), which a table built
/// by [`crate::strong::build`] or loaded with its checksum never is.
#[must_use]
pub fn audit(table: &StrongTable, progress: &dyn Progress) -> HeuristicsReport {
    let shape = table.shape();
    let geometry = Geometry::new(shape);
    progress.start("positions", table.len() as u64);
    let mut positions = 0u64;
    let mut sums = [Sums::default(); Strategy::ALL.len()];
    for layer in table.layers() {
        let (n, s) = layer
            .keys
            .par_chunks(1 << 14)
            .map(|chunk| {
                let mut n = 0u64;
                let mut s = [Sums::default(); Strategy::ALL.len()];
                let mut cands = Vec::with_capacity(32);
                for &key in chunk {
                    if score_position(table, &geometry, key, &mut cands, &mut s) {
                        n += 1;
                    }
                }
                progress.advance(chunk.len() as u64);
                (n, s)
            })
            .reduce(|| (0, [Sums::default(); Strategy::ALL.len()]), merge);
        positions += n;
        sums = merge((0, sums), (0, s)).1;
    }
    progress.finish();
    let rows = Strategy::ALL
        .iter()
        .zip(sums)
        .map(|(st, s)| {
            let n = positions as f64;
            let perfect = s.perfect as f64 / DENOM as f64;
            let loss = s.loss as f64 / DENOM as f64;
            let wrong = n - perfect;
            StrategyRow {
                strategy: st.name().to_string(),
                positions,
                perfect_share: if positions == 0 { 0.0 } else { perfect / n },
                mean_loss: if wrong > 0.0 { loss / wrong } else { 0.0 },
                max_loss: s.max_loss,
                expected_loss: if positions == 0 { 0.0 } else { loss / n },
            }
        })
        .collect();
    HeuristicsReport {
        board: shape.name(),
        positions,
        rows,
    }
}

fn merge(
    a: (u64, [Sums; Strategy::ALL.len()]),
    b: (u64, [Sums; Strategy::ALL.len()]),
) -> (u64, [Sums; Strategy::ALL.len()]) {
    let mut s = a.1;
    for (x, y) in s.iter_mut().zip(b.1) {
        x.perfect += y.perfect;
        x.loss += y.loss;
        x.max_loss = x.max_loss.max(y.max_loss);
    }
    (a.0 + b.0, s)
}

/// Corners and the squares next to each corner.
struct Geometry {
    corners: u64,
    /// `(corner bit, its neighbours)` for each corner.
    near: [(u64, u64); 4],
}

impl Geometry {
    fn new(shape: Shape) -> Geometry {
        Geometry {
            corners: shape.corners(),
            near: shape.corner_neighbours(),
        }
    }
}

/// Scores one position for every strategy; `false` if it has fewer than two moves.
fn score_position(
    table: &StrongTable,
    geo: &Geometry,
    key: u64,
    cands: &mut Vec<Candidate>,
    sums: &mut [Sums; Strategy::ALL.len()],
) -> bool {
    let shape = table.shape();
    let mask = shape.mask();
    let (p, o) = discs_of(shape, key);
    let moves = crate::board::legal_moves(p, o, mask & !(p | o));
    if moves.count_ones() < 2 {
        return false;
    }
    cands.clear();
    let mut best = i32::MIN;
    let mut values = [0i32; 64];
    for sq in Squares(moves) {
        let (np, no, passed) = child_discs(mask, p, o, sq);
        let e = table
            .entry_discs(np, no)
            .expect("every child of a stored position is stored");
        let v = if passed {
            i32::from(e.value)
        } else {
            -i32::from(e.value)
        };
        let opponent_moves = if passed {
            0
        } else {
            crate::board::legal_moves(np, no, mask & !(np | no)).count_ones()
        };
        values[sq as usize] = v;
        best = best.max(v);
        cands.push(Candidate {
            sq,
            flips: flips(p, o, sq).count_ones(),
            opponent_moves,
            loss: 0,
        });
    }
    for c in cands.iter_mut() {
        c.loss = (best - values[c.sq as usize]) as u32;
    }
    let empty = mask & !(p | o);
    for (i, st) in Strategy::ALL.iter().enumerate() {
        let chosen = choose(*st, cands, geo, empty);
        let k = chosen.len() as u128;
        let perfect = chosen.iter().filter(|c| c.loss == 0).count() as u128;
        let loss: u128 = chosen.iter().map(|c| u128::from(c.loss)).sum();
        sums[i].perfect += perfect * (DENOM / k);
        sums[i].loss += loss * (DENOM / k);
        sums[i].max_loss = sums[i]
            .max_loss
            .max(chosen.iter().map(|c| c.loss).max().unwrap_or(0));
    }
    true
}

/// The moves a strategy picks (all tied ones).
fn choose(st: Strategy, cands: &[Candidate], geo: &Geometry, empty: u64) -> Vec<Candidate> {
    fn best_by<F: Fn(&Candidate) -> i64>(cands: &[Candidate], f: F) -> Vec<Candidate> {
        let top = cands.iter().map(&f).max().expect("a move");
        cands.iter().copied().filter(|c| f(c) == top).collect()
    }
    let greedy = |cs: &[Candidate]| best_by(cs, |c| i64::from(c.flips));
    match st {
        Strategy::Greedy => greedy(cands),
        Strategy::Fewest => best_by(cands, |c| -i64::from(c.flips)),
        Strategy::Mobility => best_by(cands, |c| -i64::from(c.opponent_moves)),
        Strategy::Random => cands.to_vec(),
        Strategy::Corners | Strategy::CornersSafe => {
            let corners: Vec<Candidate> = cands
                .iter()
                .copied()
                .filter(|c| geo.corners & (1u64 << c.sq) != 0)
                .collect();
            if !corners.is_empty() {
                return greedy(&corners);
            }
            if st == Strategy::CornersSafe {
                let danger = geo
                    .near
                    .iter()
                    .filter(|(corner, _)| empty & corner != 0)
                    .fold(0u64, |a, (_, n)| a | n);
                let safe: Vec<Candidate> = cands
                    .iter()
                    .copied()
                    .filter(|c| danger & (1u64 << c.sq) == 0)
                    .collect();
                if !safe.is_empty() {
                    return greedy(&safe);
                }
            }
            greedy(cands)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denominator_is_divisible_by_every_tie_size() {
        for k in 1..=32u128 {
            assert_eq!(DENOM % k, 0);
        }
    }

    #[test]
    fn geometry_of_4x4() {
        let g = Geometry::new(Shape::square(4).unwrap());
        assert_eq!(g.corners.count_ones(), 4);
        assert!(g.near.iter().all(|(_, n)| n.count_ones() == 3));
    }
}
