//! End-to-end tests of `reversi count`: reference figures, thread independence, interruption
//! and resumption, bad input.

mod common;

use std::path::Path;
use std::process::{Command, Output};

/// A scratch directory, removed when the test ends.
fn dir(name: &str) -> common::Scratch {
    common::Scratch::new("count", name)
}

fn reversi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn ok(args: &[&str]) -> String {
    let out = reversi(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The `games` column of a first_moves.csv row.
fn first_move(dir: &Path, mv: &str) -> Vec<String> {
    read(dir, "first_moves.csv")
        .lines()
        .find(|l| l.starts_with(&format!("{mv},")))
        .unwrap_or_else(|| panic!("no row for {mv}"))
        .split(',')
        .map(str::to_string)
        .collect()
}

/// Cell `(b, w)` of score_matrix.csv.
fn cell(dir: &Path, b: usize, w: usize) -> u128 {
    let text = read(dir, "score_matrix.csv");
    let row = text.lines().nth(1 + b).unwrap();
    row.split(',').nth(1 + w).unwrap().parse().unwrap()
}

#[test]
fn three_by_three_reference() {
    // blog, 2008-03-29 (REFERENCE.md): 8 games after the first legal move, all won by the
    // second player.
    for method in ["dp", "dfs"] {
        let d = dir(&format!("3x3-{method}"));
        ok(&[
            "count",
            "-n",
            "3",
            "--method",
            method,
            "--out",
            d.to_str().unwrap(),
        ]);
        assert_eq!(first_move(&d, "b1"), ["b1", "8", "0", "0", "8"]);
    }
}

#[test]
fn four_by_four_reference() {
    // blog, 2008-03-29 (REFERENCE.md): 15,015 games after the first legal move, 60,060 in
    // all; exactly one of the 15,015 ends 9:1 for black.
    for method in ["dp", "dfs"] {
        let d = dir(&format!("4x4-{method}"));
        let out = ok(&[
            "count",
            "-n",
            "4",
            "--method",
            method,
            "--out",
            d.to_str().unwrap(),
        ]);
        assert!(out.contains("60060"), "{out}");
        for mv in ["b1", "a2", "d3", "c4"] {
            assert_eq!(first_move(&d, mv)[1], "15015");
        }
        let after = dir(&format!("4x4-b1-{method}"));
        ok(&[
            "count",
            "-n",
            "4",
            "--moves",
            "b1",
            "--method",
            method,
            "--out",
            after.to_str().unwrap(),
        ]);
        assert_eq!(cell(&after, 9, 1), 1);
        let summary = read(&after, "summary.json");
        assert!(summary.contains("\"games\": 15015"), "{summary}");
    }
}

/// `reversi count --rows 4 --cols 5 --out OUT` with `extra` arguments.
fn count_4x5(out: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "count",
        "--rows",
        "4",
        "--cols",
        "5",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    ok(&args)
}

#[test]
fn threads_do_not_change_results() {
    for method in ["dp", "dfs"] {
        let one = dir(&format!("t1-{method}"));
        let two = dir(&format!("t2-{method}"));
        for (t, d) in [("1", &one), ("2", &two)] {
            count_4x5(d, &["--method", method, "--threads", t]);
        }
        common::same_count_files(&one, &two);
    }
}

#[test]
fn dfs_frontier_size_does_not_change_results() {
    // From no merging at all (one position) to a frontier past the middle of the game.
    let dp = dir("frontier-dp");
    count_4x5(&dp, &[]);
    for n in ["1", "4096", "200000"] {
        let d = dir(&format!("frontier-{n}"));
        count_4x5(&d, &["--method", "dfs", "--frontier", n]);
        common::same_games(&dp, &d);
    }
}

#[test]
fn a_run_logged_to_a_file_shows_progress_and_the_time_left() {
    // stderr is a pipe here, as in a log: the bar is not drawn but writes lines (every 60 s by
    // default; every advance with 0).
    let out = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args("count --rows 4 --cols 5 --method dfs --no-files".split(' '))
        .env("REVERSI_PROGRESS_SECS", "0")
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("dfs: ") && l.contains(" of 5838 ("))
        .unwrap_or_else(|| panic!("no progress line in {err}"));
    assert!(line.contains("s so far, about "), "{line}");
    assert!(line.ends_with(" s left"), "{line}");
}

#[test]
fn interrupted_run_resumes_to_the_same_result() {
    for (method, units) in [("dfs", "7"), ("dp", "5")] {
        let clean = dir(&format!("clean-{method}"));
        ok(&[
            "count",
            "--rows",
            "4",
            "--cols",
            "5",
            "--method",
            method,
            "--out",
            clean.to_str().unwrap(),
        ]);
        let cut = dir(&format!("cut-{method}"));
        let c = cut.to_str().unwrap();
        let out = reversi(&[
            "count",
            "--rows",
            "4",
            "--cols",
            "5",
            "--method",
            method,
            "--out",
            c,
            "--stop-after",
            units,
            "--threads",
            "1",
        ]);
        assert_eq!(
            out.status.code(),
            Some(130),
            "an interrupted count exits with 130"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("interrupted") && err.contains("--resume"),
            "{err}"
        );
        let cp = cut.join(format!("count-{method}.checkpoint"));
        assert!(cp.exists());
        assert!(!cut.join("score_matrix.csv").exists());
        // Resume with another thread count.
        let out = ok(&[
            "count",
            "--rows",
            "4",
            "--cols",
            "5",
            "--method",
            method,
            "--out",
            c,
            "--resume",
            "--threads",
            "2",
        ]);
        assert!(out.contains("taken from the checkpoint"), "{out}");
        assert!(
            !cp.exists(),
            "the checkpoint is removed after a finished run"
        );
        common::same_count_files(&clean, &cut);
    }
}

#[test]
fn loading_a_checkpoint_is_budgeted() {
    // A layer that does not fit --memory is refused before its tables are made (exit 2), and
    // the checkpoint stays for a run with a larger budget.
    let cut = dir("cut-budget");
    let c = cut.to_str().unwrap();
    let args = ["count", "--rows", "4", "--cols", "5", "--out", c];
    let out = reversi(&[&args[..], &["--stop-after", "8"]].concat());
    assert_eq!(out.status.code(), Some(130));
    let out = reversi(&[&args[..], &["--resume", "--memory", "1"]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the checkpoint's layer of 54992 positions")
            && err.contains("more than the budget of 1 MiB"),
        "{err}"
    );
    assert!(cut.join("count-dp.checkpoint").exists());
    let resumed = ok(&[&args[..], &["--resume"]].concat());
    let games = |out: &str| {
        out.lines()
            .find(|l| l.starts_with("games"))
            .map(str::to_owned)
    };
    let fresh = ok(&["count", "--rows", "4", "--cols", "5", "--no-files"]);
    assert!(resumed.contains("taken from the checkpoint"), "{resumed}");
    assert_eq!(games(&resumed), games(&fresh));
}

#[test]
fn bad_input_is_refused() {
    let d = dir("bad");
    let c = d.to_str().unwrap();
    for args in [
        vec!["count", "-n", "9"],
        vec!["count", "-n", "4", "--moves", "a1"],
        vec!["count", "-n", "4", "--method", "bfs"],
        vec!["count", "-n", "4", "--resume", "--out", c],
        vec!["count", "-n", "5", "--memory", "1", "--out", c],
        vec!["count", "-n", "4", "--memory", "100000000", "--out", c],
    ] {
        let out = reversi(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
}

#[test]
#[ignore = "about a minute and ~3 GiB: cargo test --release --test count_cli -- --ignored"]
fn five_by_five_after_c2_reference() {
    // blog, 2008-05-03 (REFERENCE.md): 189,174,688,641 games after c2; the shortest end after
    // nine placements, 13:0 (8 games) and 12:1 (1 game); next come 14:0 (1 game) and 6:8
    // (4 games).
    let d = dir("5x5-c2");
    ok(&[
        "count",
        "-n",
        "5",
        "--moves",
        "c2",
        "--memory",
        "8000",
        "--out",
        d.to_str().unwrap(),
    ]);
    assert!(read(&d, "summary.json").contains("\"games\": 189174688641"));
    assert_eq!(read(&d, "lengths.csv").lines().nth(1).unwrap(), "9,9");
    assert_eq!(cell(&d, 13, 0), 8);
    assert_eq!(cell(&d, 12, 1), 1);
    assert_eq!(cell(&d, 14, 0), 1);
    assert_eq!(cell(&d, 6, 8), 4);
    // Nothing else ends after 9 or 10 placements.
    let text = read(&d, "score_matrix.csv");
    let short: u128 = text
        .lines()
        .skip(1)
        .enumerate()
        .flat_map(|(b, row)| {
            row.split(',')
                .skip(1)
                .enumerate()
                .filter(move |(w, _)| b + w <= 14)
                .map(|(_, n)| n.parse::<u128>().unwrap())
                .collect::<Vec<_>>()
        })
        .sum();
    assert_eq!(short, 8 + 1 + 1 + 4);
}

#[test]
#[ignore = "about 20 minutes on two cores: cargo test --release --test count_cli -- --ignored dfs_five"]
fn dfs_five_by_five_after_c2_reference() {
    // blog, 2008-05-03 (REFERENCE.md): 189,174,688,641 games after c2.
    let d = dir("5x5-c2-dfs");
    ok(&[
        "count",
        "-n",
        "5",
        "--moves",
        "c2",
        "--method",
        "dfs",
        "--out",
        d.to_str().unwrap(),
    ]);
    assert!(read(&d, "summary.json").contains("\"games\": 189174688641"));
    assert_eq!(cell(&d, 13, 0), 8);
    assert_eq!(cell(&d, 6, 8), 4);
}

#[test]
fn killed_hard_after_a_checkpoint_and_resumed() {
    // kill -9 (no chance to save) once a layer has been saved, then --resume: the files of an
    // uninterrupted run. dp in memory saves every layer with --checkpoint-secs 0; one thread
    // leaves the 4x5 run about a second past its first checkpoint.
    let clean = dir("hard-clean");
    let c = clean.to_str().unwrap();
    ok(&[
        "count", "--rows", "4", "--cols", "5", "--store", "memory", "--out", c,
    ]);
    let cut = dir("hard-cut");
    let k = cut.to_str().unwrap();
    let args = [
        "count",
        "--rows",
        "4",
        "--cols",
        "5",
        "--store",
        "memory",
        "--checkpoint-secs",
        "0",
        "--threads",
        "1",
        "--out",
        k,
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let cp = cut.join("count-dp.checkpoint");
    let t0 = std::time::Instant::now();
    while !cp.exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before a checkpoint"
        );
        assert!(t0.elapsed().as_secs() < 60, "no checkpoint after a minute");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert!(!cut.join("score_matrix.csv").exists(), "killed too late");
    let mut resumed = args.to_vec();
    resumed.push("--resume");
    let out = ok(&resumed);
    assert!(out.contains("taken from the checkpoint"), "{out}");
    common::same_count_files(&clean, &cut);
}
