//! Locks that keep two runs out of one directory or checkpoint: an advisory `flock` on a small
//! file that names its holder, released by the system however the process ends (`kill -9`
//! included), so a stale file never blocks a new run.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A lock that could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another running process holds it.
    #[error("{what} {} is in use by another run ({holder}); wait for it to finish or use another", path.display())]
    InUse {
        /// What is locked, in words ("--out", "the checkpoint").
        what: String,
        /// The directory or file the lock guards.
        path: PathBuf,
        /// Who holds it, as its lock file says.
        holder: String,
    },
    /// The lock file could not be created or locked.
    #[error("cannot lock {what} {}: {source}", path.display())]
    Io {
        /// What is locked, in words.
        what: String,
        /// The lock file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// A held lock; dropping it releases the lock and removes its file.
#[derive(Debug)]
pub struct Lock {
    file: File,
    path: PathBuf,
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still held: a process that opened the file before and locks it after
        // finds it removed (see `take`) and starts over on a new file.
        let _ = std::fs::remove_file(&self.path);
        let _ = &self.file;
    }
}

/// The lock file of directory `dir`: `.reversi.lock` inside it.
#[must_use]
pub fn dir_lock_path(dir: &Path) -> PathBuf {
    dir.join(".reversi.lock")
}

/// The lock file of file `path`: `path` with `.lock` appended.
#[must_use]
pub fn file_lock_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".lock");
    PathBuf::from(s)
}

/// Takes the lock of directory `dir` (which must exist), for `what` ("--out").
///
/// # Errors
///
/// [`LockError::InUse`] naming the holder, or [`LockError::Io`].
pub fn lock_dir(dir: &Path, what: &str) -> Result<Lock, LockError> {
    take(&dir_lock_path(dir), dir, what)
}

/// Takes the lock of file `path` (a file beside it, `path.lock`), for `what`.
///
/// # Errors
///
/// [`LockError::InUse`] naming the holder, or [`LockError::Io`].
pub fn lock_file(path: &Path, what: &str) -> Result<Lock, LockError> {
    take(&file_lock_path(path), path, what)
}

fn take(lock_path: &Path, guarded: &Path, what: &str) -> Result<Lock, LockError> {
    loop {
        if let Some(lock) = try_take(lock_path, guarded, what)? {
            return Ok(lock);
        }
    }
}

/// One try: `None` if the file was locked after its holder removed it (start over).
fn try_take(lock_path: &Path, guarded: &Path, what: &str) -> Result<Option<Lock>, LockError> {
    use std::os::unix::fs::MetadataExt;
    let io = |source| LockError::Io {
        what: what.to_string(),
        path: lock_path.to_path_buf(),
        source,
    };
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(lock_path)
        .map_err(io)?;
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock takes a valid open descriptor and has no memory effects.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            let holder = text.trim();
            return Err(LockError::InUse {
                what: what.to_string(),
                path: guarded.to_path_buf(),
                holder: if holder.is_empty() {
                    "a process that has not yet written its name".into()
                } else {
                    holder.to_string()
                },
            });
        }
        return Err(io(e));
    }
    let same = match (file.metadata(), std::fs::metadata(lock_path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    };
    if !same {
        return Ok(None);
    }
    let args: Vec<String> = std::env::args().collect();
    let name = format!("pid {}: {}", std::process::id(), args.join(" "));
    file.set_len(0).map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    file.write_all(name.as_bytes()).map_err(io)?;
    Ok(Some(Lock {
        file,
        path: lock_path.to_path_buf(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_lock_is_refused_and_names_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock_dir(dir.path(), "--out").unwrap();
        let err = lock_dir(dir.path(), "--out").unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, LockError::InUse { .. }), "{msg}");
        assert!(
            msg.contains(&format!("pid {}", std::process::id())),
            "{msg}"
        );
        drop(first);
        assert!(!dir_lock_path(dir.path()).exists());
        let _again = lock_dir(dir.path(), "--out").unwrap();
    }

    #[test]
    fn file_lock_sits_beside_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x.checkpoint");
        let l = lock_file(&f, "the checkpoint").unwrap();
        assert!(dir.path().join("x.checkpoint.lock").exists());
        assert!(lock_file(&f, "the checkpoint").is_err());
        drop(l);
    }
}
