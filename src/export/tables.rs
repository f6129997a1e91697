//! Plain tables written as CSV and reports written as JSON, atomically (temp file, then rename).

use std::path::Path;

use serde::Serialize;

use crate::perft::PerftReport;

/// Writes `text` to `path` through a temporary file and a rename, so that a reader never sees
/// half a file and an interrupted run leaves the old file whole.
///
/// # Errors
///
/// Any I/O error, with the path in the message.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    write_atomic_bytes(path, text.as_bytes())
}

/// [`write_atomic`] for bytes.
///
/// # Errors
///
/// Any I/O error.
pub fn write_atomic_bytes(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Writes a file atomically from a writer callback (buffered): a temporary file, synced, then
/// renamed over `path`, so a reader never sees a half-written file. Creates the parent
/// directories.
///
/// # Errors
///
/// Any I/O error, from the callback or the file system.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)?;
        }
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        write(&mut f)?;
        f.flush()?;
        f.get_ref().sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

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
