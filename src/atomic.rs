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
/// directories. On any failure the temporary file is removed (a full disk must not leave a
/// `.tmp` beside every file it stopped) and `path` is left as it was.
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
    let written = (|| {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        write(&mut f)?;
        f.flush()?;
        f.get_ref().sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_no_temporary_file_and_the_old_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.json");
        write_atomic(&path, "old").unwrap();
        let failed = write_atomic_with(&path, |w| {
            w.write_all(b"half a fi")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["summary.json"], "no .tmp left behind");
        // Nor for a file that did not exist before.
        let fresh = dir.path().join("fresh.csv");
        assert!(write_atomic_with(&fresh, |_| Err(std::io::Error::other("no"))).is_err());
        assert!(!fresh.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
