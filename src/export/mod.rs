//! Turning report values into files: CSV tables, JSON summaries and PNG charts.

pub mod csv;
mod draw;
pub mod index;
pub mod json;
pub mod perfect_play;
pub mod plot;
pub mod tables;

use std::path::{Path, PathBuf};

use crate::count::CountReport;

/// Writes every file of a count report into `dir` (created if missing): `summary.json` (the
/// result), `run.json` (how this run went: time, threads, memory), `score_matrix.csv`, `lengths.csv`, `margins.csv`, `first_moves.csv`, and
/// `positions_per_layer.csv` when the method met layers. Returns the paths written.
///
/// # Errors
///
/// Any I/O or serialisation error, with the file it concerns.
pub fn write_count(report: &CountReport, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    use anyhow::Context;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    let mut put = |name: &str, bytes: Vec<u8>| -> anyhow::Result<()> {
        let path = dir.join(name);
        tables::write_atomic_bytes(&path, &bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
        Ok(())
    };
    put("summary.json", json::summary(report)?.into_bytes())?;
    put("run.json", json::run(report)?.into_bytes())?;
    put("score_matrix.csv", csv::score_matrix(report)?)?;
    put("lengths.csv", csv::lengths(report)?)?;
    put("margins.csv", csv::margins(report)?)?;
    put("first_moves.csv", csv::first_moves(report)?)?;
    if report.positions_per_layer.is_some() {
        put("positions_per_layer.csv", csv::positions_per_layer(report)?)?;
    }
    Ok(written)
}
