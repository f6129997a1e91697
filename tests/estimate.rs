//! End-to-end tests of the random-probe estimate: its 95% interval holds the published exact
//! counts, its score and length estimates agree with a slow exhaustive count, and its report
//! depends on the seed only, never on the number of threads.

mod common;

use std::process::Command;

use reversi_nxn::board::{Position, Shape};
use reversi_nxn::estimate::{estimate, EstimateOptions, EstimateReport};
use reversi_nxn::progress::Silent;

fn run(pos: &Position, samples: u64, seed: u64) -> EstimateReport {
    estimate(pos, EstimateOptions { samples, seed }, &Silent)
}

/// The 4x4 position after the first legal move in row-major order.
fn four_by_four_after_first() -> Position {
    let start = Shape::square(4).unwrap().start();
    let first = start.legal_turns()[0];
    start.apply(first).unwrap()
}

#[test]
fn interval_holds_the_exact_4x4_counts() {
    // REFERENCE.md (blog, 2008-03-29): 15,015 games after the first legal move on 4x4, and
    // 60,060 over all four first moves.
    let after = run(&four_by_four_after_first(), 100_000, 1);
    assert!(after.games.contains(15_015.0), "{:?}", after.games);
    let all = run(&Shape::square(4).unwrap().start(), 100_000, 1);
    assert!(all.games.contains(60_060.0), "{:?}", all.games);
    // The estimate is not trivially wide: its interval is within 3% of the count.
    assert!(all.games.ci95_high - all.games.ci95_low < 0.03 * 60_060.0);
}

#[test]
fn interval_holds_the_exact_5x5_count() {
    // REFERENCE.md (blog, 2008-05-03): 189,174,688,641 games after c2 on 5x5.
    let (pos, _) = Shape::square(5).unwrap().start().after_moves("c2").unwrap();
    let r = run(&pos, 200_000, 1);
    assert!(r.games.contains(189_174_688_641.0), "{:?}", r.games);
    assert!(r.relative_std_error < 0.05, "{}", r.relative_std_error);
}

#[test]
fn interval_holds_the_exact_counts_of_rectangles() {
    // `report` estimates every board past 28 squares, rectangles included: on rectangles whose
    // games the exact count finds here (dp, which tests/count_agree.rs checks against dfs), the
    // interval holds the count, a board and its transpose alike.
    for (r, c) in [(3, 7), (7, 3), (4, 5), (5, 4)] {
        let start = Shape::new(r, c).unwrap().start();
        let exact = reversi_nxn::count::count(
            &start,
            "",
            &reversi_nxn::count::CountOptions::default(),
            &Silent,
        )
        .unwrap()
        .games;
        let r = run(&start, 100_000, 1);
        assert!(
            r.games.contains(exact as f64),
            "{start}: {:?} vs {exact}",
            r.games
        );
        assert!(r.relative_std_error < 0.05, "{}", r.relative_std_error);
    }
}

#[test]
fn interval_covers_about_95_percent_of_the_time() {
    // 200 independent seeds of a small estimate of the 15,015 4x4 games: a correct, unbiased
    // estimator with a right standard error covers the count in about 95% of them (binomial
    // standard deviation 1.5%); a biased mean or a wrong standard error would not.
    let pos = four_by_four_after_first();
    let covered = (0..200)
        .filter(|&seed| run(&pos, 2_000, 1000 + seed).games.contains(15_015.0))
        .count();
    assert!((176..=198).contains(&covered), "{covered} of 200");
}

#[test]
fn scores_and_lengths_agree_with_the_slow_count() {
    // The slow twin: every 4x4 game from the start, enumerated.
    let start = Shape::square(4).unwrap().start();
    let exact = common::Games::from(&start);
    assert_eq!(exact.total, 60_060);
    let r = run(&start, 200_000, 7);
    // Each outcome's exact count lies within four standard errors of its estimate.
    let [black, draws, white] = exact.outcomes();
    for (est, exact) in [
        (&r.black_wins, black),
        (&r.draws, draws),
        (&r.white_wins, white),
    ] {
        let z = (est.games.mean - exact as f64) / est.games.std_error;
        assert!(z.abs() < 4.0, "{est:?} vs {exact}");
        assert!((est.share - exact as f64 / 60_060.0).abs() < 0.02);
    }
    // Every score and length the probes reached exists, and the common ones are close.
    for s in &r.scores {
        let n = exact.scores.get(&(s.black, s.white)).copied().unwrap_or(0);
        assert!(n > 0, "no game ends {}:{}", s.black, s.white);
        if n > 2_000 {
            assert!(
                (s.games - n as f64).abs() / (n as f64) < 0.1,
                "{s:?} vs {n}"
            );
        }
    }
    for l in &r.lengths {
        let n = exact.lengths.get(&l.placements).copied().unwrap_or(0);
        assert!(n > 0, "no game has {} placements", l.placements);
    }
    let longest = exact.lengths[&12] as f64;
    let est = r.lengths.iter().find(|l| l.placements == 12).unwrap().games;
    assert!((est - longest).abs() / longest < 0.05);
}

#[test]
fn same_seed_same_report_for_any_thread_count() {
    let pos = Shape::square(6).unwrap().start();
    let with = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| run(&pos, 20_000, 42))
    };
    let mut one = with(1);
    let mut two = with(2);
    let mut three = with(3);
    for r in [&mut one, &mut two, &mut three] {
        r.seconds = 0.0;
        r.probes_per_second = 0.0;
    }
    assert_eq!(one, two);
    assert_eq!(one, three);
    // A different seed gives a different estimate.
    assert_ne!(run(&pos, 20_000, 43).games, one.games);
}

/// The JSON report of the binary, with the wall-time fields removed.
fn cli_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("seconds");
    o.remove("probes_per_second");
    v
}

#[test]
fn cli_threads_do_not_change_the_report() {
    let base = [
        "estimate",
        "-n",
        "5",
        "--samples",
        "5000",
        "--seed",
        "3",
        "--json",
    ];
    let one = cli_json(&[&base[..], &["--threads", "1"]].concat());
    let two = cli_json(&[&base[..], &["--threads", "2"]].concat());
    assert_eq!(one, two);
    assert_eq!(one["samples"], 5000);
    assert_eq!(one["board"], "5x5");
}

#[test]
fn cli_writes_estimate_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(["estimate", "-n", "4", "--samples", "3000", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("95% interval (normal approximation"),
        "{text}"
    );
    let saved = std::fs::read_to_string(dir.path().join("estimate.json")).unwrap();
    let r: EstimateReport = serde_json::from_str(&saved).unwrap();
    assert_eq!(r.samples, 3000);
    assert_eq!(r.board, "4x4");
}

#[test]
fn cli_rejects_bad_input() {
    for args in [
        &["estimate", "-n", "9"][..],
        &["estimate", "-n", "4", "--samples", "1"],
        &["estimate", "-n", "4", "--moves", "a1"],
        &["estimate", "-n", "4", "--seed", "x"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_reversi"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
}
