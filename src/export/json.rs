//! JSON documents of report values.

use crate::count::CountReport;

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
