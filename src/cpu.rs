//! Which instructions the CPU running us has, for the hot loops compiled twice.
//!
//! The release build targets any x86-64 CPU, whose baseline lacks `popcnt` and `lzcnt`: counting
//! discs and finding the end of a run then take a dozen instructions instead of one. The hottest
//! loops are therefore compiled a second time for the x86-64-v3 level (Haswell, 2013, and Zen,
//! 2017, onwards) and chosen at run time by [`has_x86_64_v3`], so one binary runs everywhere and
//! fast where it can. `REVERSI_PORTABLE=1` forces the baseline copy (to compare or to test it).

/// Whether the CPU has the x86-64-v3 instructions the second copies use (`popcnt`, `lzcnt`,
/// `bmi1`, `bmi2`, `avx2`), and `REVERSI_PORTABLE` is not set. Checked once, then cached.
#[cfg(target_arch = "x86_64")]
#[must_use]
pub fn has_x86_64_v3() -> bool {
    use std::sync::OnceLock;
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        std::env::var_os("REVERSI_PORTABLE").is_none()
            && std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("lzcnt")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("avx2")
    })
}

/// Off x86-64 there is one copy, compiled for the target.
#[cfg(not(target_arch = "x86_64"))]
#[must_use]
pub fn has_x86_64_v3() -> bool {
    false
}
