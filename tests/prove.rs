//! `reversi prove` as a user runs it: the proof in work units gives `solve`'s answer, however
//! many processes share it and however often they are killed; bad logs and options are refused.

mod common;

use common::cli::{answer, fails_with, json};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

fn reversi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Starts the binary with its stdout piped and its stderr (progress lines) dropped: a pipe
/// nobody reads while another child is awaited would fill and stop the process.
fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts")
}

fn solve(board: &[&str], scoring: &str) -> serde_json::Value {
    let mut args = vec!["solve", "--json", "--hash-mb", "16", "--scoring", scoring];
    args.extend_from_slice(board);
    answer(&json(&reversi(&args)))
}

fn prove_args<'a>(
    board: &[&'a str],
    dir: &'a str,
    unit: &'a str,
    scoring: &'a str,
) -> Vec<&'a str> {
    let mut args = vec![
        "prove",
        "--json",
        "--hash-mb",
        "4",
        "--dir",
        dir,
        "--unit-empties",
        unit,
        "--scoring",
        scoring,
        "--resume",
        "--poll-ms",
        "20",
    ];
    args.extend_from_slice(board);
    args
}

#[test]
fn proofs_in_units_give_the_answer_of_solve() {
    let tmp = tempfile::tempdir().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["-n", "4"], "8"),
        (&["--rows", "3", "--cols", "6"], "6"),
        (&["--rows", "4", "--cols", "5"], "10"),
        (&["-n", "5"], "15"),
        (
            &["-n", "6", "--moves", "c2 b4 c5 d2 e4 e3 d1 c1 b1 d5"],
            "18",
        ),
    ];
    for (i, (board, unit)) in cases.iter().enumerate() {
        for scoring in ["discs", "winner-takes-empties"] {
            let want = solve(board, scoring);
            // Every kind of unit window gives the same answer.
            for window in ["retest", "null", "exact"] {
                let dir = tmp.path().join(format!("{i}-{scoring}-{window}"));
                let dir = dir.to_str().unwrap();
                let mut args = prove_args(board, dir, unit, scoring);
                args.extend(["--unit-window", window]);
                let proved = json(&reversi(&args));
                assert_eq!(answer(&proved), want, "{board:?} {scoring} {window}");
            }
        }
    }
}

/// The units of each log file (position and window).
fn units_of(dir: &Path) -> Vec<(String, i64, Option<i64>)> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines().skip(1) {
            let (_, json) = line.split_once(' ').unwrap();
            let v: serde_json::Value = serde_json::from_str(json).unwrap();
            all.push((
                v["position"].as_str().unwrap().to_string(),
                v["alpha"].as_i64().unwrap(),
                v["beta"].as_i64(),
            ));
        }
    }
    all
}

#[test]
fn processes_share_a_proof_and_solve_no_unit_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let board: &[&str] = &["-n", "5"];
    let want = solve(board, "discs");
    for processes in [2, 3] {
        let dir = tmp.path().join(format!("p{processes}"));
        let dir = dir.to_str().unwrap();
        let n = processes.to_string();
        let index: Vec<String> = (0..processes).map(|i| i.to_string()).collect();
        let children: Vec<Child> = index
            .iter()
            .map(|i| {
                let mut args = prove_args(board, dir, "14", "discs");
                args.extend_from_slice(&["--processes", &n, "--process", i, "--workers", "1"]);
                spawn(&args)
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert_eq!(answer(&json(&out)), want, "{processes} processes");
        }
        let units = units_of(Path::new(dir));
        let mut distinct = units.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(units.len(), distinct.len(), "a unit solved twice");
        assert_eq!(std::fs::read_dir(dir).unwrap().count(), processes);
    }
}

/// Kills the processes of a proof with SIGKILL at pseudo-random moments and resumes them,
/// until they finish: the answer is `solve`'s.
#[test]
fn killed_at_random_moments_and_resumed_the_proof_is_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    let board: &[&str] = &["--rows", "5", "--cols", "6", "--moves", "c2"];
    let want = solve(board, "discs");
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for processes in [1u32, 2, 3] {
        let dir = tmp.path().join(format!("k{processes}"));
        let dir = dir.to_str().unwrap();
        let n = processes.to_string();
        let index: Vec<String> = (0..processes).map(|i| i.to_string()).collect();
        let args_of = |i: &str| {
            let mut args = prove_args(board, dir, "20", "discs");
            args.extend_from_slice(&["--processes", &n, "--process", i, "--workers", "1"]);
            args.iter().map(|s| s.to_string()).collect::<Vec<String>>()
        };
        let mut kills = 0;
        let mut results = Vec::new();
        for round in 0..40 {
            let mut children: Vec<Child> = index
                .iter()
                .map(|i| {
                    let args = args_of(i);
                    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
                    spawn(&refs)
                })
                .collect();
            // The first rounds are killed after 50-450 ms; later ones run to the end.
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            if round < 4 {
                std::thread::sleep(Duration::from_millis(50 + seed % 400));
                for c in &mut children {
                    let _ = c.kill();
                }
                for c in children {
                    let _ = c.wait_with_output();
                }
                kills += 1;
                continue;
            }
            results = children
                .into_iter()
                .map(|c| c.wait_with_output().unwrap())
                .collect();
            break;
        }
        assert!(kills > 0);
        assert_eq!(results.len(), processes as usize);
        for out in &results {
            assert_eq!(answer(&json(out)), want, "{processes} processes");
        }
    }
}

#[test]
fn bad_processes_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("d");
    let dir = dir.to_str().unwrap();
    let base = ["prove", "-n", "4", "--dir", dir];
    let with = |extra: &[&str]| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        reversi(&a)
    };
    fails_with(&with(&["--processes", "0"]), 2, "--processes");
    fails_with(
        &with(&["--processes", "3", "--process", "3"]),
        2,
        "out of range",
    );
    fails_with(
        &reversi(&["prove", "-n", "4", "--moves", "b1"]),
        2,
        "--dir is required",
    );
    assert!(!Path::new(dir).exists(), "nothing written for bad options");
    // A directory with a log needs --resume.
    assert!(with(&[]).status.success());
    fails_with(&with(&[]), 2, "--resume");
}

#[test]
fn two_processes_with_one_index_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("d");
    let dir = dir.to_str().unwrap();
    // A proof of a few seconds, then a second process with the same index.
    let args = prove_args(&["-n", "6", "--moves", "c2 b4 c5"], dir, "14", "discs");
    let mut first = spawn(&args);
    let log = Path::new(dir).join("units-0-of-1.log");
    for _ in 0..500 {
        if log.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let second = reversi(&args);
    let _ = first.kill();
    let _ = first.wait();
    fails_with(&second, 2, "is in use");
}

/// A finished 5x5 proof's log, in `dir`.
fn proven_log(dir: &str) -> std::path::PathBuf {
    json(&reversi(&prove_args(&["-n", "5"], dir, "15", "discs")));
    Path::new(dir).join("units-0-of-1.log")
}

#[test]
fn damaged_logs_are_refused_and_torn_lines_redone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("d");
    let dir = dir.to_str().unwrap();
    let log = proven_log(dir);
    let good = std::fs::read(&log).unwrap();
    let want = solve(&["-n", "5"], "discs");
    let out_file = tmp.path().join("out.json");
    let out_file = out_file.to_str().unwrap();
    let mut args = prove_args(&["-n", "5"], dir, "15", "discs");
    args.extend_from_slice(&["--out", out_file]);

    // A byte changed in the middle: refused, naming the file and the line.
    let mut bad = good.clone();
    let mid = bad.len() / 2;
    bad[mid] = if bad[mid] == b'1' { b'2' } else { b'1' };
    std::fs::write(&log, &bad).unwrap();
    let out = reversi(&args);
    fails_with(&out, 2, "units-0-of-1.log line");
    assert!(String::from_utf8_lossy(&out.stderr).contains("damaged"));
    assert!(!Path::new(out_file).exists(), "nothing written");

    // A torn last line (killed mid-write): dropped and its unit solved again.
    let cut = good.len() - 10;
    std::fs::write(&log, &good[..cut]).unwrap();
    assert_eq!(answer(&json(&reversi(&args))), want);
    let mended = std::fs::read(&log).unwrap();
    assert!(mended.ends_with(b"\n"));
    std::fs::remove_file(out_file).unwrap();

    // A log of another proof (the other scoring rule) swapped in: refused.
    let other = tmp.path().join("o");
    let other = other.to_str().unwrap();
    json(&reversi(&prove_args(
        &["-n", "5"],
        other,
        "15",
        "winner-takes-empties",
    )));
    std::fs::copy(Path::new(other).join("units-0-of-1.log"), &log).unwrap();
    let out = reversi(&args);
    fails_with(&out, 2, "belongs to another proof");
    assert!(!Path::new(out_file).exists(), "nothing written");

    // The good log put back: read whole, the same answer.
    std::fs::write(&log, &good).unwrap();
    assert_eq!(answer(&json(&reversi(&args))), want);
}

#[test]
fn a_proof_keeps_its_unit_window() {
    // A log begun with null-window units goes on with them when resumed without
    // --unit-window, and refuses another window (it would choose other units).
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w");
    let dir = dir.to_str().unwrap();
    let board: &[&str] = &["-n", "5"];
    let with = |window: Option<&str>| {
        let mut args = prove_args(board, dir, "15", "discs");
        if let Some(w) = window {
            args.extend(["--unit-window", w]);
        }
        reversi(&args)
    };
    let want = solve(board, "discs");
    assert_eq!(answer(&json(&with(Some("null")))), want);
    assert!(units_of(Path::new(dir)).iter().all(|u| u.2.is_none()));
    fails_with(&with(Some("retest")), 2, "belongs to another proof");
    assert_eq!(answer(&json(&with(None))), want);
    let out = reversi(&["prove", "-n", "5", "--unit-window", "wide"]);
    fails_with(&out, 2, "wide");
}

/// `prove --status --json` of a 5x5 proof (units of 15 empty squares) in `dir`.
fn status_5x5(dir: &str) -> serde_json::Value {
    json(&reversi(&[
        "prove",
        "-n",
        "5",
        "--dir",
        dir,
        "--unit-empties",
        "15",
        "--hash-mb",
        "4",
        "--status",
        "--json",
    ]))
}

#[test]
fn status_reports_the_bounds_proven_so_far() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("d");
    let dir = dir.to_str().unwrap();
    let before = status_5x5(dir);
    assert_eq!(before["units"], 0);
    assert_eq!(before["value_at_least"], -25);
    assert_eq!(before["value_at_most"], 25);
    proven_log(dir);
    let after = status_5x5(dir);
    assert_eq!(after["value_at_least"], 13);
    assert_eq!(after["value_at_most"], 13);
}

/// The facts only grow as units finish, so the bounds `--status` shows for the root and each
/// of its moves only narrow: replayed line by line, a finished proof's log never shows a bound
/// proven by fewer lines as unknown again (a selection expands only what its current question
/// needs, so the bounds must be worked out past it).
#[test]
fn status_bounds_only_narrow_as_units_finish() {
    let tmp = tempfile::tempdir().unwrap();
    let full = tmp.path().join("full");
    let log = proven_log(full.to_str().unwrap());
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 10, "a proof of many units: {}", lines.len());
    let part = tmp.path().join("part");
    std::fs::create_dir_all(&part).unwrap();
    let part_log = part.join("units-0-of-1.log");
    let bounds = |n: usize| {
        std::fs::write(&part_log, lines[..n].join("\n") + "\n").unwrap();
        let v = status_5x5(part.to_str().unwrap());
        if v["value_at_least"].is_null() {
            // Proven: the answer, as `solve` gives it, has no bounds left to narrow.
            return None;
        }
        let mut b = vec![(v["value_at_least"].as_i64(), v["value_at_most"].as_i64())];
        for m in v["moves"].as_array().expect("the moves' bounds") {
            b.push((m["at_least"].as_i64(), m["at_most"].as_i64()));
        }
        Some(
            b.into_iter()
                .map(|(lo, hi)| (lo.unwrap(), hi.unwrap()))
                .collect::<Vec<_>>(),
        )
    };
    let mut last = bounds(1).expect("nothing proven without units");
    assert_eq!(last[0], (-25, 25), "no unit, nothing proven");
    for n in 2..lines.len() {
        let Some(now) = bounds(n) else { break };
        for (i, (&(lo, hi), &(plo, phi))) in now.iter().zip(&last).enumerate() {
            assert!(
                plo <= lo && hi <= phi,
                "after {n} lines, bound {i} is [{lo},{hi}], wider than [{plo},{phi}] before"
            );
        }
        last = now;
    }
    assert_ne!(last[0], (-25, 25), "the units proved something");
}

/// The 6x6 and 5x7 starts proven in units equal their committed solutions (value, principal
/// variation, every move's value). About 4 minutes on two cores:
/// `cargo test --release --test prove -- --ignored`.
#[test]
#[ignore]
fn six_by_six_and_five_by_seven_in_units_equal_their_solutions() {
    let tmp = tempfile::tempdir().unwrap();
    for (board, file) in [
        (&["-n", "6"][..], "results/6x6/solution.json"),
        (
            &["--rows", "5", "--cols", "7"][..],
            "results/5x7/solution.json",
        ),
    ] {
        let dir = tmp.path().join(file.replace('/', "-"));
        let dir = dir.to_str().unwrap();
        let mut args = vec!["prove", "--json", "--dir", dir];
        args.extend_from_slice(board);
        let proved = json(&reversi(&args));
        let committed: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap(),
        )
        .unwrap();
        assert_eq!(answer(&proved), answer(&committed), "{file}");
    }
}

#[test]
fn a_sample_of_units_is_drawn_at_random_and_counts_for_the_proof() {
    // `--sample N --seed S` solves N units drawn from the selection and stops: the same seed
    // draws the same units whatever the workers, another seed others, and a proof resumed
    // from a sample's log gives solve's answer.
    let tmp = tempfile::tempdir().unwrap();
    let board: &[&str] = &["-n", "5"];
    let sample = |name: &str, seed: &str, workers: &str| {
        let dir = tmp.path().join(name);
        let d = dir.to_str().unwrap();
        let mut args = prove_args(board, d, "14", "discs");
        args.extend(["--sample", "4", "--seed", seed, "--workers", workers]);
        let v = json(&reversi(&args));
        assert_eq!(v["sample"], 4, "{v}");
        assert_eq!(v["unit_nodes"].as_array().unwrap().len(), 4, "{v}");
        let mut units = units_of(&dir);
        units.sort();
        (dir, units, v["drawn_from"].as_u64().unwrap())
    };
    let (dir, a, from) = sample("a", "7", "1");
    let (_, b, from_b) = sample("b", "7", "2");
    let (_, c, _) = sample("c", "8", "1");
    assert_eq!(a.len(), 4);
    assert_eq!((a.clone(), from), (b, from_b), "the same draw");
    assert!(from > 4, "drawn from the whole selection ({from} units)");
    assert_ne!(a, c, "another seed, other units");
    let d = dir.to_str().unwrap();
    let proved = json(&reversi(&prove_args(board, d, "14", "discs")));
    assert_eq!(answer(&proved), solve(board, "discs"));
}

/// The nodes of the units solved in `dir` (every log but the carried-over bounds).
fn unit_nodes(dir: &Path) -> u64 {
    let mut nodes = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines().skip(1) {
            let v: serde_json::Value =
                serde_json::from_str(line.split_once(' ').unwrap().1).unwrap();
            nodes += v["nodes"].as_u64().unwrap();
        }
    }
    nodes
}

#[test]
fn othello_rule_proofs_carry_over_the_blog_rules_bounds() {
    // A proof under the Othello rule that starts from the bounds of a proof under the blog's
    // rule (those that hold under both) gives solve's answer under the Othello rule, with fewer
    // units' nodes than a proof from nothing; resumed with or without --import, the same.
    // 4x4's values differ between the rules (-8 and -10), so only some bounds carry over.
    let tmp = tempfile::tempdir().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["-n", "4"], "8"),
        (&["-n", "5"], "15"),
        (
            &["-n", "6", "--moves", "c2 b4 c5 d2 e4 e3 d1 c1 b1 d5"],
            "18",
        ),
    ];
    for (i, (board, unit)) in cases.iter().enumerate() {
        let path = |name: &str| tmp.path().join(format!("{i}-{name}"));
        let (discs, plain, carried) = (path("discs"), path("plain"), path("carried"));
        let d = |p: &std::path::PathBuf| p.to_str().unwrap().to_string();
        // One worker in each proof: with more, which units run depends on when others
        // finish, and so do the bounds carried over and the sums of nodes compared below.
        let discs_dir = d(&discs);
        let mut args = prove_args(board, &discs_dir, unit, "discs");
        args.extend(["--workers", "1"]);
        json(&reversi(&args));
        let want = solve(board, "winner-takes-empties");
        let othello = |dir: &str, import: Option<&str>| {
            let mut args = prove_args(board, dir, unit, "winner-takes-empties");
            args.extend(["--workers", "1"]);
            if let Some(src) = import {
                args.extend(["--import", src]);
            }
            answer(&json(&reversi(&args)))
        };
        assert_eq!(othello(&d(&plain), None), want, "{board:?} from nothing");
        let source = d(&discs);
        assert_eq!(
            othello(&d(&carried), Some(&source)),
            want,
            "{board:?} carried over"
        );
        let imported = carried.join("units-imported.log");
        let lines = std::fs::read(&imported).unwrap();
        assert!(
            String::from_utf8_lossy(&lines).lines().count() > 1,
            "{board:?}: bounds carried over"
        );
        assert!(
            unit_nodes(&carried) < unit_nodes(&plain),
            "{board:?}: {} nodes carried over against {} from nothing",
            unit_nodes(&carried),
            unit_nodes(&plain)
        );
        // Resumed: the carried-over bounds are read, not written again.
        assert_eq!(othello(&d(&carried), Some(&source)), want, "{board:?}");
        assert_eq!(othello(&d(&carried), None), want, "{board:?}");
        assert_eq!(std::fs::read(&imported).unwrap(), lines);
    }
}

#[test]
fn bad_imports_are_refused_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    let discs = tmp.path().join("discs");
    let discs = discs.to_str().unwrap();
    proven_log(discs);
    let dir = tmp.path().join("new");
    let d = dir.to_str().unwrap();
    let with = |board: &[&str], scoring: &str, source: &str| {
        let mut args = prove_args(board, d, "15", scoring);
        args.extend(["--import", source]);
        reversi(&args)
    };
    fails_with(&with(&["-n", "5"], "discs", discs), 2, "--scoring");
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let empty = empty.to_str().unwrap();
    fails_with(
        &with(&["-n", "5"], "winner-takes-empties", empty),
        2,
        "no proof log",
    );
    // A log of another position, or one under the Othello rule.
    fails_with(
        &with(&["-n", "5", "--moves", "c2"], "winner-takes-empties", discs),
        2,
        "not of 5x5",
    );
    let othello = tmp.path().join("othello");
    let othello = othello.to_str().unwrap();
    json(&reversi(&prove_args(
        &["-n", "5"],
        othello,
        "15",
        "winner-takes-empties",
    )));
    fails_with(
        &with(&["-n", "5"], "winner-takes-empties", othello),
        2,
        "under 'winner-takes-empties'",
    );
    assert!(!dir.exists(), "nothing written");

    // Carried-over bounds are read back as any line: damaged, refused with its line.
    let good = with(&["-n", "5"], "winner-takes-empties", discs);
    assert!(good.status.success());
    let imported = dir.join("units-imported.log");
    let text = std::fs::read_to_string(&imported).unwrap();
    std::fs::write(&imported, text.replacen("\"result\":", "\"result\":1", 1)).unwrap();
    fails_with(
        &with(&["-n", "5"], "winner-takes-empties", discs),
        2,
        "units-imported.log line 2",
    );
    // A carried-over line among the solved units: refused.
    let own = dir.join("units-0-of-1.log");
    let second = text.lines().nth(1).unwrap();
    let mut log = std::fs::read_to_string(&own).unwrap();
    log.push_str(second);
    log.push('\n');
    std::fs::write(&imported, &text).unwrap();
    std::fs::write(&own, log).unwrap();
    fails_with(
        &with(&["-n", "5"], "winner-takes-empties", discs),
        2,
        "carried-over line",
    );
}
