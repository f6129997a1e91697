//! Shared test helpers: a seeded PRNG, a naive array board (the engine's slow twin), and a
//! plain game enumerator (the counters' slow twin).

#![allow(dead_code)]

pub mod cli;
pub mod games;
pub mod naive;

#[allow(unused_imports)]
pub use games::Games;

/// splitmix64: a tiny deterministic PRNG so seeded tests replay exactly.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), slightly biased for huge n, which does not matter here.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// The files of a count whose content must not depend on threads, stores or interruptions.
pub const COUNT_FILES: [&str; 5] = [
    "score_matrix.csv",
    "lengths.csv",
    "margins.csv",
    "first_moves.csv",
    "positions_per_layer.csv",
];

/// Asserts that two result directories describe the same games: the [`COUNT_FILES`] but the
/// positions per layer, which only dp finds (so that dp and dfs can be compared).
pub fn same_games(a: &std::path::Path, b: &std::path::Path) {
    for f in &COUNT_FILES[..4] {
        let read = |d: &std::path::Path| {
            std::fs::read_to_string(d.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"))
        };
        assert_eq!(read(a), read(b), "{f} differs");
    }
}

/// Asserts that two result directories hold the same [`COUNT_FILES`] (a file missing from
/// both is skipped).
pub fn same_count_files(a: &std::path::Path, b: &std::path::Path) {
    for f in COUNT_FILES {
        if a.join(f).exists() || b.join(f).exists() {
            let read = |d: &std::path::Path| {
                std::fs::read_to_string(d.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"))
            };
            assert_eq!(read(a), read(b), "{f} differs");
        }
    }
}

/// A scratch directory of one test, removed with everything in it when the test ends (passed
/// or failed), so that a run of the tests leaves nothing in the temporary directory.
pub struct Scratch(pub std::path::PathBuf);

impl Scratch {
    /// `reversi-TAG-PID-NAME` in the temporary directory, emptied first.
    pub fn new(tag: &str, name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("reversi-{tag}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
}

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
