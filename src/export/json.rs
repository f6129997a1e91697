//! JSON documents of report values.

use crate::count::CountReport;

/// `summary.json`: the whole count report, pretty-printed (counts as exact integers).
///
/// # Errors
///
/// A serialisation error (not expected).
pub fn summary(r: &CountReport) -> anyhow::Result<String> {
    let mut s = serde_json::to_string_pretty(r)?;
    s.push('\n');
    Ok(s)
}
