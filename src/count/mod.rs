//! Exact counts of every complete game from a position: score matrix, lengths, margins.
//!
//! **What is counted.** A *game* is the sequence of disc placements from the given position to
//! the end (neither side can move). Forced passes never make two games distinct (see
//! REFERENCE.md). Every tally is exact: the final-score matrix (games ending with `b` black and
//! `w` white discs) holds `u128` counts, and everything else is derived from it: wins, draws and
//! losses, game lengths (`placements = b + w - 4`, counted from the 4-disc start of the game, so
//! the openings given with `--moves` are included), final margins (`b - w`).
//!
//! **First moves.** The report splits the games by the first turn from the position. First turns
//! whose resulting positions are equal up to a symmetry of the board (same side to move) form a
//! *class*; each class is computed once and reported for every move in it.
//!
//! **Two methods.**
//! - [`Method::Dfs`] ([`dfs`]): depth-first enumeration of every game, in parallel over the
//!   subtrees of a merged frontier.
//! - [`Method::Dp`] ([`dp`]): counts paths through the graph of positions, layer by layer by
//!   disc count, merging equal and symmetric positions.
//!
//! Neither prints nor writes result files; they return a [`CountReport`] (the command line and
//! [`crate::export`] do the rest). Both save checkpoints when given a path, so a stopped run can
//! resume to the identical result.

pub mod dfs;
pub mod dp;
mod error;
mod options;
mod report;

pub use dp::disk::default_disk_bytes;
pub use error::CountError;
pub use options::{disk_run_dir, CountOptions, Method, Store};
pub(crate) use report::{add_scaled, class_key, normalize, Class, Matrix, MethodResult};
pub use report::{
    CountReport, DataflowShape, DiskStats, ExchangeRow, FirstMove, LayerRow, LengthRow, MarginRow,
    Quantiles,
};

use std::time::Instant;

use crate::board::{Move, Position};
use crate::progress::Progress;

/// Free bytes on the file system of `dir`, if known.
#[must_use]
pub fn free_disk_bytes(dir: &std::path::Path) -> Option<u64> {
    dp::disk::free_bytes(dir)
}

/// Counts every complete game from `pos`.
///
/// # Errors
///
/// [`CountError::Memory`] when dp needs more than `opts.memory_mb`, [`CountError::Interrupted`]
/// when `progress.should_stop()` turned true (the checkpoint is saved first),
/// [`CountError::Checkpoint`] for a checkpoint that cannot be read or written,
/// [`CountError::CheckpointRefused`] for a damaged, truncated or foreign one,
/// [`CountError::Overflow`] when a path count does not fit 64 bits.
///
/// # Examples
///
/// ```
/// use reversi_nxn::board::Shape;
/// use reversi_nxn::count::{count, CountOptions, Method};
/// use reversi_nxn::progress::Silent;
/// // blog, 2008-03-29: 60,060 games on 4x4.
/// let start = Shape::square(4).unwrap().start();
/// for method in [Method::Dp, Method::Dfs] {
///     let opts = CountOptions { method, ..CountOptions::default() };
///     assert_eq!(count(&start, "", &opts, &Silent).unwrap().games, 60_060);
/// }
/// ```
pub fn count(
    pos: &Position,
    moves: &str,
    opts: &CountOptions,
    progress: &dyn Progress,
) -> Result<CountReport, CountError> {
    let t0 = Instant::now();
    let shape = pos.shape();
    let stride = shape.squares() as usize + 1;
    let turns = pos.legal_turns();

    // Group the first turns into classes; a turn that ends the game is tallied at once.
    let mut classes: Vec<Class> = Vec::new();
    let mut keys: Vec<(u64, u64, bool)> = Vec::new();
    let mut members: Vec<Vec<String>> = Vec::new();
    let mut turn_class: Vec<Result<usize, (u32, u32)>> = Vec::new();
    for &turn in &turns {
        let child = pos.apply(turn).expect("legal turn");
        match normalize(child) {
            None => turn_class.push(Err((child.black_count(), child.white_count()))),
            Some(c) => {
                let key = class_key(&c, opts.symmetry);
                let idx = match keys.iter().position(|k| *k == key) {
                    Some(i) => i,
                    None => {
                        keys.push(key);
                        classes.push(Class { pos: c });
                        members.push(Vec::new());
                        keys.len() - 1
                    }
                };
                members[idx].push(pos.move_name(turn));
                turn_class.push(Ok(idx));
            }
        }
    }

    let result = if classes.is_empty() {
        MethodResult {
            exchanged: None,
            matrices: Vec::new(),
            layers: (opts.method == Method::Dp).then(Vec::new),
            peak_layer_mb: (opts.method == Method::Dp).then_some(0.0),
            disk: None,
            resumed_units: 0,
        }
    } else {
        match opts.method {
            Method::Dfs => dfs::run(pos, &classes, opts, progress)?,
            Method::Dp => dp::run(pos, &classes, opts, progress)?,
        }
    };

    let mut total: Matrix = vec![0; stride * stride];
    let mut first_moves = Vec::new();
    for (&turn, tc) in turns.iter().zip(&turn_class) {
        let m: Matrix = match *tc {
            Ok(i) => result.matrices[i].clone(),
            Err((b, w)) => {
                let mut m = vec![0; stride * stride];
                m[b as usize * stride + w as usize] = 1;
                m
            }
        };
        let (bw, d, ww) = outcomes(&m, stride);
        first_moves.push(FirstMove {
            mv: pos.move_name(turn),
            games: bw + d + ww,
            black_wins: bw,
            draws: d,
            white_wins: ww,
            class: tc.ok(),
        });
        for (t, x) in total.iter_mut().zip(&m) {
            *t += x;
        }
    }
    if turns.is_empty() {
        // The game is already over: one (empty) game.
        total[pos.black_count() as usize * stride + pos.white_count() as usize] = 1;
    }
    Ok(build_report(
        pos,
        moves,
        opts,
        total,
        first_moves,
        members,
        result,
        t0.elapsed().as_secs_f64(),
    ))
}

/// Black wins, draws, white wins of a score tally.
fn outcomes(m: &[u128], stride: usize) -> (u128, u128, u128) {
    let (mut bw, mut d, mut ww) = (0, 0, 0);
    for b in 0..stride {
        for w in 0..stride {
            let n = m[b * stride + w];
            match b.cmp(&w) {
                std::cmp::Ordering::Greater => bw += n,
                std::cmp::Ordering::Equal => d += n,
                std::cmp::Ordering::Less => ww += n,
            }
        }
    }
    (bw, d, ww)
}

/// Weighted quantiles of `(value, weight)` rows through an hdrhistogram. Its counts are `u64`,
/// so weights are scaled down by a power of two when the total would not fit.
fn quantiles(rows: &[(i64, u128)], offset: i64) -> Option<Quantiles> {
    let total: u128 = rows.iter().map(|r| r.1).sum();
    if total == 0 {
        return None;
    }
    let mut shift = 0;
    while (total >> shift) > u128::from(u64::MAX >> 2) {
        shift += 1;
    }
    let mut h = hdrhistogram::Histogram::<u64>::new_with_max(256, 3).ok()?;
    for &(v, n) in rows {
        let n = (n >> shift) as u64;
        if n > 0 {
            h.record_n((v + offset) as u64, n).ok()?;
        }
    }
    if h.is_empty() {
        return None;
    }
    let q = |x: f64| h.value_at_quantile(x) as i64 - offset;
    Some(Quantiles {
        min: h.min() as i64 - offset,
        mean: h.mean() - offset as f64,
        p50: q(0.5),
        p90: q(0.9),
        p99: q(0.99),
        max: h.max() as i64 - offset,
    })
}

#[allow(clippy::too_many_arguments)]
fn build_report(
    pos: &Position,
    moves: &str,
    opts: &CountOptions,
    total: Matrix,
    first_moves: Vec<FirstMove>,
    classes: Vec<Vec<String>>,
    result: MethodResult,
    seconds: f64,
) -> CountReport {
    let shape = pos.shape();
    let stride = shape.squares() as usize + 1;
    let (black_wins, draws, white_wins) = outcomes(&total, stride);
    let mut lengths = vec![0u128; stride];
    let mut margins = vec![0u128; 2 * stride];
    for b in 0..stride {
        for w in 0..stride {
            let n = total[b * stride + w];
            if n > 0 {
                lengths[(b + w).saturating_sub(4)] += n;
                margins[b + stride - w] += n;
            }
        }
    }
    let lengths: Vec<LengthRow> = lengths
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(l, &n)| LengthRow {
            placements: l as u32,
            games: n,
        })
        .collect();
    let margins: Vec<MarginRow> = margins
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(m, &n)| MarginRow {
            margin: m as i32 - stride as i32,
            games: n,
        })
        .collect();
    let length_rows: Vec<(i64, u128)> = lengths
        .iter()
        .map(|r| (i64::from(r.placements), r.games))
        .collect();
    let margin_rows: Vec<(i64, u128)> = margins
        .iter()
        .map(|r| (i64::from(r.margin), r.games))
        .collect();
    CountReport {
        board: shape.name(),
        rows: shape.rows(),
        cols: shape.cols(),
        position: pos.to_board_string(),
        moves: moves.to_string(),
        method: opts.method,
        symmetry: opts.symmetry,
        games: black_wins + draws + white_wins,
        black_wins,
        draws,
        white_wins,
        score_matrix: total.chunks(stride).map(<[u128]>::to_vec).collect(),
        lengths,
        margins,
        length_quantiles: quantiles(&length_rows, 0),
        margin_quantiles: quantiles(&margin_rows, 64),
        first_moves,
        classes,
        positions_per_layer: result.layers,
        peak_layer_mb: result.peak_layer_mb,
        disk: result.disk,
        resumed_units: result.resumed_units,
        seconds,
        threads: rayon::current_num_threads(),
        exchanged: result.exchanged,
        dataflow: opts.dataflow.as_ref().map(|d| DataflowShape {
            processes: d.processes(),
            workers: d.workers,
        }),
    }
}

/// The tally of a move list played from the start, for reports: the names joined by spaces.
#[must_use]
pub fn moves_text(start: &Position, played: &[Move]) -> String {
    let mut pos = *start;
    let mut names = Vec::new();
    for &m in played {
        names.push(pos.move_name(m));
        pos = pos.apply(m).unwrap_or(pos);
    }
    names.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Shape;
    use crate::progress::Silent;

    #[test]
    fn finished_position_is_one_game() {
        let p = Position::from_board_string("XXXXXXXXX X", None).unwrap();
        for method in [Method::Dp, Method::Dfs] {
            let opts = CountOptions {
                method,
                ..CountOptions::default()
            };
            let r = count(&p, "", &opts, &Silent).unwrap();
            assert_eq!(r.games, 1);
            assert_eq!(r.score_matrix[9][0], 1);
            assert!(r.first_moves.is_empty());
        }
    }

    #[test]
    fn quantiles_of_a_constant() {
        let q = quantiles(&[(-3, 10)], 64).unwrap();
        assert_eq!((q.min, q.p50, q.max), (-3, -3, -3));
    }

    #[test]
    fn three_by_three_is_won_by_white() {
        // blog, 2008-03-29 and REFERENCE.md: 8 games after the first legal move, all won by
        // the second player.
        let start = Shape::square(3).unwrap().start();
        let r = count(&start, "", &CountOptions::default(), &Silent).unwrap();
        assert_eq!(r.first_moves[0].games, 8);
        assert_eq!(r.first_moves[0].white_wins, 8);
    }
}
