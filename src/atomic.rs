//! Files written atomically: a temporary file beside the target, synced, then renamed over it,
//! so a reader (or a resumed run) never sees half a file. Below both `count` (checkpoints, disk
//! layers' manifests) and `export` (result files).

use std::path::Path;

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
