//! Memory budgets: how much the machine has, and refusing what it has not.

use thiserror::Error;

/// A request for more memory than allowed or available.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MemoryError {
    /// More than the machine has free.
    #[error("asked for {asked_mb} MiB but the machine has only {available_mb} MiB available")]
    MoreThanAvailable {
        /// MiB asked for.
        asked_mb: u64,
        /// MiB the machine reports available.
        available_mb: u64,
    },
    /// More than the budget given with `--memory`/`--hash-mb`.
    #[error("{what} needs about {needed_mb} MiB, more than the budget of {budget_mb} MiB (raise --memory)")]
    OverBudget {
        /// What needed it.
        what: String,
        /// MiB needed.
        needed_mb: u64,
        /// MiB allowed.
        budget_mb: u64,
    },
}

/// Memory the machine reports available (`MemAvailable` in `/proc/meminfo`), in MiB, if known.
#[must_use]
pub fn available_mb() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// Refuses a budget of `mb` MiB that the machine cannot give.
///
/// # Errors
///
/// [`MemoryError::MoreThanAvailable`] when `mb` exceeds what the machine reports available.
pub fn check_available(mb: u64) -> Result<(), MemoryError> {
    match available_mb() {
        Some(available_mb) if mb > available_mb => Err(MemoryError::MoreThanAvailable {
            asked_mb: mb,
            available_mb,
        }),
        _ => Ok(()),
    }
}

/// Asks the C allocator to give large blocks (1 MiB and up) their own mappings, so that memory
/// freed by a long job goes back to the system at once instead of staying in the heap.
///
/// Counting by layers frees the current layer piece by piece while the next one grows in
/// pieces of other sizes: with glibc's default (a threshold that rises to 32 MiB as blocks are
/// freed) those pieces end up in the heap, and on 5x5 the resident size was 1.6 times the
/// memory the count held. A fixed threshold keeps the two equal. Process-wide, so the
/// command-line tool calls it once at start-up; a no-op on other C libraries.
pub fn return_large_blocks_to_the_system() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        /// glibc's `M_MMAP_THRESHOLD` parameter of `mallopt`.
        const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
        extern "C" {
            fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
        }
        // SAFETY: `mallopt` is glibc's documented, thread-safe tuning call; it only changes
        // where later allocations come from, and a refusal (return value 0) changes nothing.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 1 << 20);
        }
    }
}

/// Asks the kernel to back the spare capacity of `v` (not yet written) with transparent huge
/// pages where it is large enough: one page fault and one TLB entry per 2 MiB instead of per
/// 4 KiB, which the random accesses into a large hash table feel. Only advice: a no-op where
/// huge pages are off, and on other systems.
pub fn advise_huge_pages<T>(v: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        /// Linux's `MADV_HUGEPAGE` advice of `madvise`.
        const MADV_HUGEPAGE: std::ffi::c_int = 14;
        extern "C" {
            fn madvise(
                addr: *mut std::ffi::c_void,
                len: usize,
                advice: std::ffi::c_int,
            ) -> std::ffi::c_int;
        }
        let start = v.as_ptr() as usize;
        let end = start + v.capacity() * std::mem::size_of::<T>();
        // Whole huge pages inside the allocation only.
        let (lo, hi) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if hi > lo {
            // SAFETY: `[lo, hi)` lies inside the allocation of `v`, which stays alive for the
            // call; the advice changes how pages are backed, never their contents, and a
            // refusal (an error return) changes nothing.
            unsafe {
                madvise(lo as *mut std::ffi::c_void, hi - lo, MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}
