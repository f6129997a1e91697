//! JSON documents of report values.

use serde::Serialize;

use crate::board::{Scoring, Side};
use crate::count::CountReport;
use crate::solve::{convention, SolveReport};

/// Fields of a count report that describe one run (its time, threads, memory, what it took
/// from a checkpoint) rather than the result: they go to `run.json`, so that `summary.json` is
/// the same for every run of the same count (tests compare it byte for byte).
pub const RUN_FIELDS: &[&str] = &[
    "peak_layer_mb",
    "disk",
    "resumed_units",
    "seconds",
    "threads",
    "dataflow",
    "exchanged",
];

/// The whole count report, pretty-printed (counts as exact integers): what `--json` prints.
///
/// # Errors
///
/// A serialisation error (not expected).
pub fn report(r: &CountReport) -> anyhow::Result<String> {
    let mut s = serde_json::to_string_pretty(r)?;
    s.push('\n');
    Ok(s)
}

/// `summary.json`: the count report without its [`RUN_FIELDS`].
///
/// # Errors
///
/// A serialisation error (not expected).
pub fn summary(r: &CountReport) -> anyhow::Result<String> {
    fields(r, |k| !RUN_FIELDS.contains(&k))
}

/// `run.json`: the [`RUN_FIELDS`] of the count report.
///
/// # Errors
///
/// A serialisation error (not expected).
pub fn run(r: &CountReport) -> anyhow::Result<String> {
    fields(r, |k| RUN_FIELDS.contains(&k))
}

fn fields(r: &CountReport, keep: impl Fn(&str) -> bool) -> anyhow::Result<String> {
    let serde_json::Value::Object(mut m) = serde_json::to_value(r)? else {
        anyhow::bail!("a count report is a JSON object");
    };
    m.retain(|k, _| keep(k));
    let mut s = serde_json::to_string_pretty(&m)?;
    s.push('\n');
    Ok(s)
}

/// A [`SolveReport`] in serializable form, made by [`solution`].
#[derive(Debug, Clone, Serialize)]
pub struct SolveJson {
    /// Board size such as `6x6`.
    pub board: String,
    /// Board string of the position.
    pub position: String,
    /// `black` or `white`.
    pub side_to_move: &'static str,
    /// The scoring rule: `discs` or `winner-takes-empties`.
    pub scoring: Scoring,
    /// The value convention.
    pub convention: &'static str,
    /// Black minus white under perfect play.
    pub value: i32,
    /// `black`, `white` or `draw`.
    pub winner: &'static str,
    /// Black discs at the end of the principal variation (empty squares not added).
    pub final_black: u32,
    /// White discs at the end of the principal variation.
    pub final_white: u32,
    /// The principal variation, passes included.
    pub pv: Vec<String>,
    /// Every legal turn with its value.
    pub move_values: Vec<MoveValue>,
    /// Positions searched.
    pub nodes: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Nodes per second.
    pub nodes_per_second: f64,
    /// Worker threads.
    pub threads: usize,
}

/// One legal turn and its value, black-relative.
#[derive(Debug, Clone, Serialize)]
pub struct MoveValue {
    /// The move's name (`c2`, or `pass`).
    #[serde(rename = "move")]
    pub mv: String,
    /// Black minus white at the end under perfect play after this move.
    pub value: i32,
    /// Whether it is a best move for the side to move.
    pub best: bool,
}

/// A solution as a plain serializable value (moves named, the winner spelled out).
#[must_use]
pub fn solution(r: &SolveReport) -> SolveJson {
    let best = r.best_moves();
    SolveJson {
        board: r.position.shape().name(),
        position: r.position.to_board_string(),
        side_to_move: r.position.side_to_move().name(),
        scoring: r.scoring,
        convention: convention(r.scoring),
        value: r.value,
        winner: r.winner.map_or("draw", Side::name),
        final_black: r.final_score.0,
        final_white: r.final_score.1,
        pv: r.pv.iter().map(|&m| r.position.move_name(m)).collect(),
        move_values: r
            .move_values
            .iter()
            .map(|&(m, v)| MoveValue {
                mv: r.position.move_name(m),
                value: v,
                best: best.contains(&m),
            })
            .collect(),
        nodes: r.nodes,
        seconds: r.seconds,
        nodes_per_second: r.nodes_per_second(),
        threads: r.threads,
    }
}
