//! The deep perft path (positions merged at an intermediate ply, then counted depth-first)
//! against the plain count, across merge plies, thread counts, and a stop and resume.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use reversi_nxn::board::{Position, Shape};
use reversi_nxn::perft::{perft, perft_deep, DeepOptions, PerftError, PerftOptions};
use reversi_nxn::progress::{Progress, Silent};

fn start(r: u32, c: u32) -> Position {
    Shape::new(r, c).unwrap().start()
}

fn deep(merge_ply: Option<u32>) -> DeepOptions {
    DeepOptions {
        memory_mb: 256,
        merge_ply,
        ..DeepOptions::default()
    }
}

fn games(pos: &Position, depth: u32, d: &DeepOptions) -> Vec<u128> {
    perft_deep(pos, depth, PerftOptions::default(), d, &Silent)
        .unwrap()
        .plies
        .iter()
        .map(|r| r.games)
        .collect()
}

#[test]
fn every_merge_ply_gives_perft() {
    let plain = PerftOptions {
        symmetry: false,
        hash_mb: 0,
    };
    for (r, c, depth) in [(4, 4, 16), (5, 5, 10), (4, 6, 10), (6, 6, 9), (8, 8, 9)] {
        let pos = start(r, c);
        let want: Vec<u128> = (1..=depth).map(|d| perft(&pos, d, plain)).collect();
        for k in [0, 1, 3, 5, depth - 1, depth, depth + 3] {
            assert_eq!(
                games(&pos, depth, &deep(Some(k))),
                want,
                "{r}x{c} merged at {k}"
            );
        }
        assert_eq!(games(&pos, depth, &deep(None)), want, "{r}x{c} auto");
        let no_symmetry = perft_deep(
            &pos,
            depth,
            PerftOptions {
                symmetry: false,
                hash_mb: 0,
            },
            &deep(Some(4)),
            &Silent,
        )
        .unwrap();
        let got: Vec<u128> = no_symmetry.plies.iter().map(|r| r.games).collect();
        assert_eq!(got, want, "{r}x{c} without symmetry");
    }
}

#[test]
fn a_small_budget_merges_earlier_with_the_same_counts() {
    let pos = start(8, 8);
    let d = DeepOptions {
        memory_mb: 1, // ply 7's classes (10,658) fit, ply 8's raw children do not
        merge_ply: Some(9),
        ..DeepOptions::default()
    };
    let r = perft_deep(&pos, 10, PerftOptions::default(), &d, &Silent).unwrap();
    assert!(r.merged_at.unwrap() < 9);
    // OEIS A124004: 24,571,056 games at ply 10 (results/8x8/perft.csv agrees).
    assert_eq!(r.plies[9].games, 24_571_056);
}

#[test]
fn results_never_depend_on_the_thread_count() {
    let pos = start(6, 6);
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| games(&pos, 11, &deep(Some(6))))
    };
    assert_eq!(run(1), run(3));
}

/// Stops the run after `limit` units of progress into the phase labelled `phase`.
struct StopAfter {
    phase: &'static str,
    inside: AtomicBool,
    seen: AtomicU64,
    limit: u64,
}

impl Progress for StopAfter {
    fn start(&self, label: &str, _total: u64) {
        self.inside.store(label == self.phase, Ordering::Relaxed);
    }
    fn advance(&self, n: u64) {
        if self.inside.load(Ordering::Relaxed) {
            self.seen.fetch_add(n, Ordering::Relaxed);
        }
    }
    fn should_stop(&self) -> bool {
        self.seen.load(Ordering::Relaxed) >= self.limit
    }
}

#[test]
fn a_stopped_run_resumes_to_the_same_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("perft.checkpoint");
    let pos = start(6, 6);
    let want = games(&pos, 11, &deep(Some(6)));
    let d = DeepOptions {
        checkpoint: Some(path.clone()),
        ..deep(Some(6))
    };
    // Stop in the middle of ply 9's chunks (each ply past the merge has its own pass).
    let stop = StopAfter {
        phase: "ply 9/11",
        inside: AtomicBool::new(false),
        seen: AtomicU64::new(0),
        limit: 20,
    };
    let first = perft_deep(&pos, 11, PerftOptions::default(), &d, &stop);
    assert!(matches!(first, Err(PerftError::Stopped(_))), "{first:?}");
    assert!(path.exists());
    // Without --resume an existing checkpoint is refused, not overwritten (bad input: exit 2).
    let refused = perft_deep(&pos, 11, PerftOptions::default(), &d, &Silent);
    assert!(matches!(refused, Err(PerftError::CheckpointRefused { .. })));
    assert!(refused.unwrap_err().is_input());
    // Another run's checkpoint is refused too.
    let other = DeepOptions {
        resume: true,
        ..DeepOptions {
            checkpoint: Some(path.clone()),
            ..deep(Some(5))
        }
    };
    let refused = perft_deep(&pos, 11, PerftOptions::default(), &other, &Silent);
    assert!(matches!(refused, Err(PerftError::CheckpointRefused { .. })));
    let resumed = DeepOptions {
        resume: true,
        ..d.clone()
    };
    let got: Vec<u128> = perft_deep(&pos, 11, PerftOptions::default(), &resumed, &Silent)
        .unwrap()
        .plies
        .iter()
        .map(|r| r.games)
        .collect();
    assert_eq!(got, want);
    assert!(!path.exists(), "a finished run removes its checkpoint");
}

#[test]
#[ignore = "minutes: cargo test --release --test perft_deep -- --ignored"]
fn a124004_plies_13_to_15_on_8x8() {
    // OEIS A124004, "Number of possible Reversi games at the end of the n-th ply" (the figures
    // of plies 14 and 15 as quoted in the project's issue 19; ply 13 as results/8x8 and
    // `perft --fast` agree).
    let pos = start(8, 8);
    let d = DeepOptions {
        memory_mb: 2048,
        ..DeepOptions::default()
    };
    let opts = PerftOptions {
        hash_mb: 1024,
        ..PerftOptions::default()
    };
    let r = perft_deep(&pos, 15, opts, &d, &Silent).unwrap();
    assert_eq!(r.plies[12].games, 18_429_618_408);
    assert_eq!(r.plies[13].games, 184_041_761_768);
    assert_eq!(r.plies[14].games, 1_891_831_332_208);
}
