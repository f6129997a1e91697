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

/// What a count may hold beyond its `--memory` budget: the program, thread stacks, score
/// tallies and small buffers. Tests check peak RSS against the budget plus this.
pub const FIXED_OVERHEAD: u64 = 64 << 20;

/// If `whole_process`, the resident memory of this process now (`VmRSS`) less
/// [`FIXED_OVERHEAD`], in bytes: what counts against a `--memory` budget of a process that
/// runs one count, beside what the count tracks itself (the C allocator's own overhead is not
/// tracked, and grows with the memory held). Zero otherwise, or if unknown.
#[must_use]
pub fn resident_over_fixed(whole_process: bool) -> u64 {
    if !whole_process {
        return 0;
    }
    resident_bytes().map_or(0, |b| b.saturating_sub(FIXED_OVERHEAD))
}

/// The resident memory of this process now (`VmRSS`), in bytes, if known.
#[must_use]
pub fn resident_bytes() -> Option<u64> {
    status_kib("VmRSS:").map(|k| k << 10)
}

/// The peak resident memory of this process (`VmHWM`), in MiB, if known.
#[must_use]
pub fn peak_resident_mb() -> Option<u64> {
    status_kib("VmHWM:").map(|k| k >> 10)
}

/// A field of `/proc/self/status` given in KiB, such as `VmRSS:`.
fn status_kib(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Asks the kernel to back the spare capacity of `v` (not yet written) with transparent huge
/// pages where it is large enough: one page fault and one TLB entry per 2 MiB instead of per
/// 4 KiB, which the random accesses into a large hash table feel. Only advice: a no-op where
/// huge pages are off, and on other systems.
pub fn advise_huge_pages<T>(v: &Vec<T>) {
    advise_huge_range(v.as_ptr() as usize, v.capacity() * std::mem::size_of::<T>());
}

/// [`advise_huge_pages`] on the bytes `[start, start + len)` of one allocation.
fn advise_huge_range(start: usize, len: usize) {
    /// Linux's `MADV_HUGEPAGE` advice of `madvise`.
    #[cfg(target_os = "linux")]
    const MADV_HUGEPAGE: std::ffi::c_int = 14;
    // SAFETY: the advice changes how pages are backed, never their contents.
    #[cfg(target_os = "linux")]
    unsafe {
        advise_pages(start, start + len, HUGE_PAGE, MADV_HUGEPAGE);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
}

/// Gives Linux's `madvise` the `advice` for the whole pages of `page` bytes inside
/// `[start, end)`. Only advice: a refusal (an error return) changes nothing.
///
/// # Safety
///
/// `[start, end)` lies inside one live allocation, and if the advice may discard contents,
/// nothing in those pages is read again before it is written.
#[cfg(target_os = "linux")]
unsafe fn advise_pages(start: usize, end: usize, page: usize, advice: std::ffi::c_int) {
    extern "C" {
        fn madvise(
            addr: *mut std::ffi::c_void,
            len: usize,
            advice: std::ffi::c_int,
        ) -> std::ffi::c_int;
    }
    let (lo, hi) = (start.next_multiple_of(page), end / page * page);
    if hi > lo {
        // SAFETY: whole pages inside the allocation, as the caller promises.
        unsafe {
            madvise(lo as *mut std::ffi::c_void, hi - lo, advice);
        }
    }
}

/// Bytes of a transparent huge page on x86-64 Linux.
pub const HUGE_PAGE: usize = 2 << 20;

/// A fixed-length buffer of `Copy` values aligned to a huge page and spanning whole huge pages
/// once it is large enough, so that all of it can be backed by transparent huge pages (a block
/// from `malloc` starts a few bytes into its mapping, and only the huge pages wholly inside it
/// can be). Hash tables that are probed at random spend much of their time on page walks
/// otherwise, above all in a virtual machine.
pub struct HugeBuf<T: Copy> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
    /// The allocation's layout; `None` for an empty buffer, which allocated nothing (a buffer
    /// truncated to nothing still holds its allocation).
    layout: Option<std::alloc::Layout>,
}

// SAFETY: `HugeBuf` owns its values like a `Box<[T]>` does.
unsafe impl<T: Copy + Send> Send for HugeBuf<T> {}
// SAFETY: as above.
unsafe impl<T: Copy + Sync> Sync for HugeBuf<T> {}

impl<T: Copy> HugeBuf<T> {
    /// At least `len` copies of `fill` (more when the bytes round up to whole huge pages; see
    /// [`HugeBuf::len`]). An empty buffer allocates nothing.
    ///
    /// # Panics
    ///
    /// If the allocation fails (as `Vec` does).
    #[must_use]
    pub fn new(len: usize, fill: T) -> HugeBuf<T> {
        let size = std::mem::size_of::<T>().max(1);
        let bytes = len.checked_mul(size).expect("buffer size overflows");
        let (bytes, align) = if bytes >= HUGE_PAGE {
            (bytes.next_multiple_of(HUGE_PAGE), HUGE_PAGE)
        } else {
            (bytes, std::mem::align_of::<T>().max(64))
        };
        let len = bytes / size;
        if len == 0 {
            return HugeBuf {
                ptr: std::ptr::NonNull::dangling(),
                len: 0,
                layout: None,
            };
        }
        let layout = std::alloc::Layout::from_size_align(bytes, align).expect("layout");
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { std::alloc::alloc(layout) }.cast::<T>();
        let Some(ptr) = std::ptr::NonNull::new(raw) else {
            std::alloc::handle_alloc_error(layout)
        };
        advise_huge_range(ptr.as_ptr() as usize, bytes);
        for i in 0..len {
            // SAFETY: `i < len` values of `T` fit in the allocation.
            unsafe { ptr.as_ptr().add(i).write(fill) };
        }
        HugeBuf {
            ptr,
            len,
            layout: Some(layout),
        }
    }

    /// The bytes [`HugeBuf::new`] allocates for `len` values (rounded up to whole huge
    /// pages once that large), before it does.
    #[must_use]
    pub fn bytes_for(len: usize) -> usize {
        let bytes = len.saturating_mul(std::mem::size_of::<T>().max(1));
        if bytes >= HUGE_PAGE {
            bytes.next_multiple_of(HUGE_PAGE)
        } else {
            bytes
        }
    }

    /// The number of values.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Keeps the first `len` values and gives the whole pages past them back to the system
    /// (their addresses stay reserved until the buffer is dropped).
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        self.len = len;
        /// Linux's `MADV_DONTNEED` advice of `madvise`: the pages are freed, and read as
        /// zeros if touched again.
        #[cfg(target_os = "linux")]
        const MADV_DONTNEED: std::ffi::c_int = 4;
        let (Some(layout), start) = (self.layout, self.ptr.as_ptr() as usize) else {
            return;
        };
        // SAFETY: the pages lie in this allocation past the values kept, which are all that
        // is read from now on.
        #[cfg(target_os = "linux")]
        unsafe {
            advise_pages(
                start + len * std::mem::size_of::<T>(),
                start + layout.size(),
                4096,
                MADV_DONTNEED,
            );
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (layout, start);
    }

    /// Bytes of the values kept (what the buffer holds of the machine's memory, whole pages
    /// aside).
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }
}

impl<T: Copy> std::ops::Deref for HugeBuf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialised values (or a dangling pointer and length 0).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> std::ops::DerefMut for HugeBuf<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` is unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> Drop for HugeBuf<T> {
    fn drop(&mut self) {
        if let Some(layout) = self.layout {
            // SAFETY: allocated in `new` with this layout.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), layout) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_buffers_hold_their_values_and_truncate() {
        for len in [0, 1, 1000, (HUGE_PAGE / 16) + 5] {
            let mut b = HugeBuf::new(len, 7u128);
            assert!(b.len() >= len);
            assert!(b.iter().all(|&v| v == 7));
            if b.len() * 16 >= HUGE_PAGE {
                assert_eq!(b.as_ptr() as usize % HUGE_PAGE, 0);
                assert_eq!(b.len() * 16 % HUGE_PAGE, 0);
            }
            for (i, v) in b.iter_mut().enumerate() {
                *v = i as u128;
            }
            let keep = len / 3;
            b.truncate(keep);
            assert_eq!(b.len(), keep.min(b.len()));
            assert!(b.iter().enumerate().all(|(i, &v)| v == i as u128));
            assert_eq!(b.bytes(), b.len() * 16);
        }
        // Truncated to nothing, a buffer still frees its allocation when dropped (run under
        // a leak checker to see it); it reads as empty.
        let mut b = HugeBuf::new(HUGE_PAGE / 16, 1u128);
        b.truncate(0);
        assert!(b.is_empty() && b.iter().next().is_none());
    }
}
