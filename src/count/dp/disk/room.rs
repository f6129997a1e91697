//! Room on disk: whether the next layer fits the disk budget and the free space, for the
//! one-process disk store and each dataflow worker alike.

use std::path::Path;

use super::estimate::human;

/// Why the next layer would not fit on disk, in words.
pub(crate) enum NoRoom {
    /// More than the disk budget.
    Budget(String),
    /// More than the free space.
    Free(String),
}

/// Whether the layer of `discs` discs, of about `next_bytes`, fits on disk beside the current
/// layer's `layer_bytes`: within `budget` for both, and within the free space of `dir`.
pub(crate) fn room_for(
    dir: &Path,
    discs: u32,
    layer_bytes: u64,
    next_bytes: f64,
    budget: u64,
) -> Result<(), NoRoom> {
    let need = layer_bytes as f64 + next_bytes;
    if need > budget as f64 {
        return Err(NoRoom::Budget(format!(
            "the layer of {discs} discs needs about {} of disk with the one before it, more \
             than the budget of {}",
            human(need),
            human(budget as f64)
        )));
    }
    match free_bytes(dir) {
        Some(free) if next_bytes > free as f64 => Err(NoRoom::Free(format!(
            "the layer of {discs} discs needs about {} of disk but {} are free",
            human(next_bytes),
            human(free as f64)
        ))),
        _ => Ok(()),
    }
}

/// The disk store's budget when `--disk` is not given: the free space of `tmp_dir` less 1 GiB
/// (kept free for the system and the results), 0 if that is not known.
#[must_use]
pub fn default_disk_bytes(tmp_dir: &Path) -> u64 {
    free_bytes(tmp_dir).unwrap_or(0).saturating_sub(1 << 30)
}

/// Free bytes on the file system of `dir`, if known.
pub(crate) fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: `c` is a valid NUL-terminated path and `st` a writable statvfs for the call.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::statvfs(c.as_ptr(), &mut st) };
    (rc == 0).then(|| st.f_bavail as u64 * st.f_frsize as u64)
}
