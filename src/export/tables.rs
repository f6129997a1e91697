//! Plain tables written as CSV and reports written as JSON, atomically (temp file, then rename).

use std::path::Path;

use serde::Serialize;

use crate::perft::PerftReport;

pub use crate::atomic::{write_atomic, write_atomic_bytes, write_atomic_with};

/// Writes a value as pretty JSON with a final newline.
///
/// # Errors
///
/// Any I/O or serialisation error.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    write_atomic(path, &(text + "\n"))
}

/// The per-ply table of a perft report as CSV: `ply,games,ended`.
#[must_use]
pub fn perft_csv(report: &PerftReport) -> String {
    let mut s = String::from("ply,games,ended\n");
    for row in &report.plies {
        let ended = row.ended.map_or(String::new(), |e| e.to_string());
        s.push_str(&format!("{},{},{ended}\n", row.ply, row.games));
    }
    s
}
