//! What a count found: the report and its rows, and what each method hands back to make it.

use serde::Serialize;

use super::Method;
use crate::board::Position;

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

/// The key under which symmetric positions (same colour to move) merge.
pub(crate) fn class_key(pos: &Position, symmetry: bool) -> (u64, u64, bool) {
    let (p, o) = if symmetry {
        pos.canonical()
    } else {
        (pos.player(), pos.opponent())
    };
    (p, o, pos.black_to_move())
}

/// Adds `weight` times a `u64` tally into a `u128` one.
pub(crate) fn add_scaled(into: &mut [u128], from: &[u64], weight: u128) {
    for (a, &b) in into.iter_mut().zip(from) {
        *a += u128::from(b) * weight;
    }
}
