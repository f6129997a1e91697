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

use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;
use thiserror::Error;

use crate::board::{Move, Position};
use crate::memory::MemoryError;
use crate::progress::Progress;

/// The two independent ways of counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Paths through the layered graph of positions (fast, memory-bound).
    Dp,
    /// Depth-first enumeration of every game (slow, needs no memory).
    Dfs,
}

impl Method {
    /// `dp` or `dfs`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Method::Dp => "dp",
            Method::Dfs => "dfs",
        }
    }
}

/// Where dp keeps its layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Store {
    /// In memory while the next layer is expected to fit `--memory`, then on disk.
    Auto,
    /// Always in memory: a layer that does not fit is refused.
    Memory,
    /// Always on disk (every layer written and read back; for checking and measuring).
    Disk,
}

/// What the disk store did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct DiskStats {
    /// Bytes of layer files written.
    pub bytes_written: u64,
    /// Bytes of layer files read.
    pub bytes_read: u64,
    /// Most bytes of layer files on disk at once.
    pub peak_disk: u64,
    /// Most bytes of tables and buffers in memory at once.
    pub peak_memory: u64,
    /// Seconds spent in the disk store, over every run of a resumed count.
    pub seconds: f64,
}

/// How to count.
#[derive(Debug, Clone)]
pub struct CountOptions {
    /// Which method.
    pub method: Method,
    /// Memory budget for the dp layers, in MiB; a board that needs more is refused.
    pub memory_mb: u64,
    /// Where to keep the checkpoint (none: no checkpoint, no resume).
    pub checkpoint: Option<PathBuf>,
    /// Start from the checkpoint if it exists and matches this run.
    pub resume: bool,
    /// Merge positions equal up to a symmetry of the board.
    pub symmetry: bool,
    /// Test hook: behave as if interrupted after this many units of work (dfs subtrees, dp
    /// layers) are done in this run.
    pub stop_after: Option<u64>,
    /// Where dp keeps its layers.
    pub store: Store,
    /// The directory of the disk store's files (a directory of its own is made inside).
    pub tmp_dir: PathBuf,
    /// Bytes the disk store may put on disk (`None`: the free space of `tmp_dir`, less 1 GiB).
    pub disk_bytes: Option<u64>,
    /// dfs: merge the first plies until the frontier holds at least this many positions.
    pub frontier: usize,
    /// dp as a timely-dataflow computation over these workers and processes (`None`: the
    /// one-process count).
    pub dataflow: Option<dp::dataflow::Dataflow>,
    /// Seconds of work between two checkpoints of dp in memory or as a dataflow, saved at a
    /// layer's end (0: every layer). The memory store lengthens it so that saving takes at
    /// most a twentieth of the run.
    pub checkpoint_secs: u64,
    /// dp: `memory_mb` bounds this whole process's resident memory (less a fixed 64 MiB), as
    /// well as what the count tracks itself, which misses the C allocator's overhead. For a
    /// process that runs nothing else (the command-line tool); off, the count's own tally
    /// is the bound, as a library inside a larger process needs.
    pub whole_process: bool,
}

impl Default for CountOptions {
    fn default() -> Self {
        CountOptions {
            method: Method::Dp,
            memory_mb: 4096,
            checkpoint: None,
            resume: false,
            symmetry: true,
            stop_after: None,
            store: Store::Auto,
            tmp_dir: std::env::temp_dir(),
            disk_bytes: None,
            frontier: dfs::FRONTIER_TARGET,
            dataflow: None,
            checkpoint_secs: 60,
            whole_process: false,
        }
    }
}

/// Why a count did not finish.
#[derive(Debug, Error)]
pub enum CountError {
    /// The dp layers need more memory than the budget.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// Stopped by the user (or the test hook) after saving a checkpoint.
    #[error("interrupted after {done} of {total} {unit}; {saved}")]
    Interrupted {
        /// Units of work done.
        done: u64,
        /// Units of work in all.
        total: u64,
        /// `subtrees` or `layers`.
        unit: &'static str,
        /// Where the checkpoint is, in words.
        saved: String,
    },
    /// A path count does not fit the counters of the method.
    #[error("a count overflowed 64 bits inside {0}; this board is too large for it")]
    Overflow(&'static str),
    /// The disk store cannot go on (no room, an unreadable or foreign file).
    #[error("disk store {dir}: {msg}")]
    Disk {
        /// The run's directory.
        dir: PathBuf,
        /// What went wrong.
        msg: String,
    },
    /// The disk store would need more disk than the budget or the free space.
    #[error("disk store {dir}: {msg}")]
    DiskBudget {
        /// The run's directory.
        dir: PathBuf,
        /// What is needed and what is allowed.
        msg: String,
    },
    /// A fresh count found the files of a stopped run of the same count.
    #[error(
        "a stopped run of this count is in {0}: continue it with --resume, or delete the directory"
    )]
    StoppedRun(PathBuf),
    /// The dataflow count failed (a process lost, a checkpoint unreadable).
    #[error("dataflow: {0}")]
    Dataflow(String),
    /// The processes of a dataflow count disagree, or there is nothing to resume.
    #[error("dataflow: {0}")]
    DataflowInput(String),
    /// The checkpoint cannot be read or written.
    #[error("checkpoint {path}: {msg}")]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        msg: String,
    },
    /// The checkpoint is refused: damaged, truncated, or written by another run or version. The
    /// message says what to do (delete it and start again).
    #[error("checkpoint {path}: {msg}")]
    CheckpointRefused {
        /// The file.
        path: PathBuf,
        /// What is wrong with it and what to do.
        msg: String,
    },
}

impl CountError {
    /// Whether the user can correct it by changing the command (a budget, a flag), as
    /// opposed to a failure of the machine or the files.
    #[must_use]
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            CountError::Memory(_)
                | CountError::DiskBudget { .. }
                | CountError::StoppedRun(_)
                | CountError::DataflowInput(_)
                | CountError::CheckpointRefused { .. }
        )
    }
}

/// Games by first turn, with their outcomes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FirstMove {
    /// The turn, such as `c2`, or `pass`.
    #[serde(rename = "move")]
    pub mv: String,
    /// Complete games starting with it.
    pub games: u128,
    /// Of which black wins.
    pub black_wins: u128,
    /// Of which draws.
    pub draws: u128,
    /// Of which white wins.
    pub white_wins: u128,
    /// Index of its symmetry class in [`CountReport::classes`] (`None`: the game ends at once).
    pub class: Option<usize>,
}

/// Games by number of placements.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LengthRow {
    /// Placements from the 4-disc start to the end: final discs minus 4.
    pub placements: u32,
    /// Games of that length.
    pub games: u128,
}

/// Games by final margin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MarginRow {
    /// Black discs minus white discs at the end.
    pub margin: i32,
    /// Games ending so.
    pub games: u128,
}

/// Distinct positions met with a given number of discs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayerRow {
    /// Discs on the board.
    pub discs: u32,
    /// Distinct positions (up to symmetry when merging symmetric ones; forced passes folded,
    /// so each has a move for the side to move; ended positions not included).
    pub positions: u64,
}

/// Quantiles of a distribution, weighted by game counts (from `hdrhistogram`; the exact counts
/// are in the rows).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Quantiles {
    /// Smallest value.
    pub min: i64,
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: i64,
    /// 90th percentile.
    pub p90: i64,
    /// 99th percentile.
    pub p99: i64,
    /// Largest value.
    pub max: i64,
}

/// Everything a count found. Plain data: the exporters write it, the command prints it.
#[derive(Debug, Clone, Serialize)]
pub struct CountReport {
    /// Board size, such as `5x5`.
    pub board: String,
    /// Rows.
    pub rows: u32,
    /// Columns.
    pub cols: u32,
    /// Board string of the position counted from.
    pub position: String,
    /// The turns played from the start to reach it (empty when counting from the start or a
    /// board string).
    pub moves: String,
    /// `dp` or `dfs`.
    pub method: Method,
    /// Whether symmetric positions were merged.
    pub symmetry: bool,
    /// Complete games.
    pub games: u128,
    /// Games black wins.
    pub black_wins: u128,
    /// Games drawn.
    pub draws: u128,
    /// Games white wins.
    pub white_wins: u128,
    /// `score_matrix[b][w]`: games ending with `b` black and `w` white discs, `0 <= b, w <= S`.
    pub score_matrix: Vec<Vec<u128>>,
    /// Games by length (non-zero rows).
    pub lengths: Vec<LengthRow>,
    /// Games by final margin (non-zero rows).
    pub margins: Vec<MarginRow>,
    /// Quantiles of the length in placements.
    pub length_quantiles: Option<Quantiles>,
    /// Quantiles of the final margin.
    pub margin_quantiles: Option<Quantiles>,
    /// Games by first turn.
    pub first_moves: Vec<FirstMove>,
    /// Symmetry classes of first turns: each computed once.
    pub classes: Vec<Vec<String>>,
    /// Distinct positions per disc count (dp only).
    pub positions_per_layer: Option<Vec<LayerRow>>,
    /// Peak memory of the dp layers in MiB (dp only).
    pub peak_layer_mb: Option<f64>,
    /// What the disk store did, when dp used it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disk: Option<DiskStats>,
    /// Units of work (dfs subtrees, dp layers) taken from a checkpoint rather than computed.
    pub resumed_units: u64,
    /// Wall time of this run in seconds (excluding work resumed from a checkpoint).
    pub seconds: f64,
    /// Worker threads (of rayon; a dataflow count's workers are in `dataflow`).
    pub threads: usize,
    /// The dataflow count's processes and workers per process, when it ran as one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dataflow: Option<DataflowShape>,
    /// The dataflow count's traffic per layer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exchanged: Option<Vec<ExchangeRow>>,
}

/// What the workers of a dataflow count sent each other while expanding one layer: the bytes
/// of children's entries (key and counts, 8 bytes a word) to another worker of the same process
/// and to a worker of another process (over the network).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ExchangeRow {
    /// Discs of the layer expanded.
    pub discs: u32,
    /// Bytes to other workers of the same process.
    pub within_processes: u64,
    /// Bytes to workers of other processes.
    pub between_processes: u64,
}

/// How a dataflow count was spread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DataflowShape {
    /// Processes.
    pub processes: usize,
    /// Worker threads in each.
    pub workers: usize,
}

/// One symmetry class of first turns, handed to a method: a position whose side to move has a
/// legal move.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Class {
    pub pos: Position,
}

/// A score tally: `stride * stride` counts indexed `b * stride + w`, `stride = squares + 1`.
pub(crate) type Matrix = Vec<u128>;

/// What a method returns: one matrix per class, and dp's extra facts.
pub(crate) struct MethodResult {
    pub matrices: Vec<Matrix>,
    pub layers: Option<Vec<LayerRow>>,
    pub peak_layer_mb: Option<f64>,
    pub disk: Option<DiskStats>,
    pub resumed_units: u64,
    pub exchanged: Option<Vec<ExchangeRow>>,
}

/// Plays a forced pass, so the side to move has a move; `None` if the game is over.
#[inline]
pub(crate) fn normalize(pos: Position) -> Option<Position> {
    if pos.moves() != 0 {
        Some(pos)
    } else if pos.opponent_moves() != 0 {
        Some(pos.pass())
    } else {
        None
    }
}

/// Free bytes on the file system of `dir`, if known.
#[must_use]
pub fn free_disk_bytes(dir: &std::path::Path) -> Option<u64> {
    dp::disk::free_bytes(dir)
}

/// The disk store's budget when `--disk` is not given: the free space of `tmp_dir` less 1 GiB
/// (kept free for the system and the results), 0 if that is not known.
#[must_use]
pub fn default_disk_bytes(tmp_dir: &std::path::Path) -> u64 {
    dp::disk::free_bytes(tmp_dir)
        .unwrap_or(0)
        .saturating_sub(1 << 30)
}

/// The directory the disk store of dp uses for a count of `pos` with `opts`: a directory of its
/// own inside `opts.tmp_dir`, named by the board and a hash of the position, so that a stopped
/// run is found again by `--resume`.
#[must_use]
pub fn disk_run_dir(pos: &Position, opts: &CountOptions) -> PathBuf {
    let text = format!("{} {}", pos.to_board_string(), opts.symmetry);
    let h = crate::fnv::fnv1a(crate::fnv::OFFSET, text.as_bytes());
    opts.tmp_dir
        .join(format!("reversi-count-{}-{h:016x}", pos.shape().name()))
}

/// The key under which symmetric positions (same colour to move) merge.
pub(crate) fn class_key(pos: &Position, symmetry: bool) -> (u64, u64, bool) {
    let (p, o) = if symmetry {
        pos.canonical()
    } else {
        (pos.player(), pos.opponent())
    };
    (p, o, pos.black_to_move())
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

/// Adds `weight` times a `u64` tally into a `u128` one.
pub(crate) fn add_scaled(into: &mut [u128], from: &[u64], weight: u128) {
    for (a, &b) in into.iter_mut().zip(from) {
        *a += u128::from(b) * weight;
    }
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
