//! Which instructions the CPU running us has, for the hot loops compiled more than once.
//!
//! The release build targets any x86-64 CPU, whose baseline lacks `popcnt` and `lzcnt`: counting
//! discs and finding the end of a run then take a dozen instructions instead of one, and the
//! flips of the eight directions cannot be computed in vector registers. The hottest loops are
//! therefore compiled again for the x86-64-v3 level (AVX2: Haswell, 2013, and Zen, 2017,
//! onwards), the dfs walk and dp's expansion also for the x86-64-v4 level (AVX-512, with a vector `lzcnt`; the
//! solver measured no faster there), and [`level`] chooses at run time, so one binary runs
//! everywhere and fast where it can. `REVERSI_CPU=portable` (or
//! `v3`) caps the level, to compare the copies or to test them.

/// A set of instructions a copy of a hot loop is compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The target's baseline (x86-64: SSE2 only).
    Portable,
    /// x86-64-v3: `popcnt`, `lzcnt`, `bmi1`, `bmi2`, `avx2`.
    V3,
    /// x86-64-v4: v3 and `avx512f`, `avx512vl`, `avx512cd`, `avx512bw`, `avx512dq`.
    V4,
}

/// The best level this CPU runs, capped by `REVERSI_CPU` if set. Checked once, then cached.
#[must_use]
pub fn level() -> Level {
    use std::sync::OnceLock;
    static LEVEL: OnceLock<Level> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let cap = match std::env::var("REVERSI_CPU").as_deref() {
            Ok("portable") => Level::Portable,
            Ok("v3") => Level::V3,
            _ => Level::V4,
        };
        detected().min(cap)
    })
}

#[cfg(target_arch = "x86_64")]
fn detected() -> Level {
    use std::arch::is_x86_feature_detected as has;
    let v3 = has!("popcnt") && has!("lzcnt") && has!("bmi1") && has!("bmi2") && has!("avx2");
    let v4 = v3
        && has!("avx512f")
        && has!("avx512vl")
        && has!("avx512cd")
        && has!("avx512bw")
        && has!("avx512dq");
    if v4 {
        Level::V4
    } else if v3 {
        Level::V3
    } else {
        Level::Portable
    }
}

/// Off x86-64 there is one copy, compiled for the target.
#[cfg(not(target_arch = "x86_64"))]
fn detected() -> Level {
    Level::Portable
}
