//! `reversi solve --state`: a solve killed at random moments and resumed gives the answer of
//! one uninterrupted solve; a state of another solve, a damaged one, or one without
//! `--resume` is refused with a one-line error before any work.

mod common;

use common::cli::{answer, fails_with, json};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn reversi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .output()
        .expect("the binary runs")
}

const BOARD: [&str; 4] = ["--rows", "5", "--cols", "6"];

/// Kills a solve of the 5x6 start (two seconds, four root moves) with SIGKILL at
/// pseudo-random moments, with a table snapshot every second, and resumes it until it
/// finishes: the answer is that of a solve without a state, under both scoring rules.
#[test]
fn killed_at_random_moments_and_resumed_the_solve_is_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for scoring in ["discs", "winner-takes-empties"] {
        let mut plain = vec!["solve", "--json", "--hash-mb", "64", "--scoring", scoring];
        plain.extend_from_slice(&BOARD);
        let want = answer(&json(&reversi(&plain)));
        let dir = tmp.path().join(scoring);
        let mut args = plain.clone();
        args.extend_from_slice(&["--state", dir.to_str().unwrap(), "--snapshot-secs", "1"]);
        args.push("--resume");
        let mut kills = 0;
        let mut result = None;
        for round in 0..10 {
            let mut child = Command::new(env!("CARGO_BIN_EXE_reversi"))
                .args(&args)
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("the binary starts");
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            if round < 4 {
                // Killed after 0.3-1.5 s: before, between and after the root moves' values
                // and the snapshots.
                std::thread::sleep(Duration::from_millis(300 + seed % 1200));
                let _ = child.kill();
                let _ = child.wait_with_output();
                kills += 1;
                continue;
            }
            result = Some(child.wait_with_output().unwrap());
            break;
        }
        assert_eq!(kills, 4);
        let got = json(&result.expect("a last round"));
        assert_eq!(answer(&got), want, "{scoring}");
        // The state is kept: run again, the answer is the same.
        assert_eq!(answer(&json(&reversi(&args))), want, "{scoring}, again");
    }
}

#[test]
fn bad_states_and_options_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let d = dir.to_str().unwrap();
    let base = ["solve", "-n", "4", "--json", "--hash-mb", "8", "--state", d];
    let first = json(&reversi(&base));
    // Once it exists, going on needs --resume.
    fails_with(&reversi(&base), 2, "add --resume");
    let mut resume = base.to_vec();
    resume.push("--resume");
    assert_eq!(answer(&json(&reversi(&resume))), answer(&first));
    // Another rule, another position: another solve's state.
    let mut other = resume.clone();
    other.extend_from_slice(&["--scoring", "winner-takes-empties"]);
    fails_with(&reversi(&other), 2, "belongs to another solve");
    let mut other = resume.clone();
    other.extend_from_slice(&["--moves", "b1"]);
    fails_with(&reversi(&other), 2, "belongs to another solve");
    // A damaged state file names itself.
    let state = dir.join("solve-state.json");
    let text = std::fs::read_to_string(&state).unwrap();
    std::fs::write(&state, &text[..text.len() / 2]).unwrap();
    fails_with(&reversi(&resume), 2, "solve-state.json");
    std::fs::write(&state, text.replace("\"value\": -", "\"value\": -4")).unwrap();
    fails_with(&reversi(&resume), 2, "solve-state.json");
    // --state with a proof mode, or on a file.
    let mut best = resume.clone();
    best.extend_from_slice(&["--mode", "best"]);
    fails_with(&reversi(&best), 2, "--mode all");
    let file = tmp.path().join("f");
    std::fs::write(&file, "").unwrap();
    let on_file = [
        "solve",
        "-n",
        "4",
        "--state",
        file.to_str().unwrap(),
        "--resume",
    ];
    fails_with(&reversi(&on_file), 2, "not a directory");
    // --resume, --snapshot-secs and --state-mb need --state.
    fails_with(&reversi(&["solve", "-n", "4", "--resume"]), 2, "--state");
}

/// `--status` reads a state without solving (and without its lock): each root move's value
/// as the report gives it, the principal variation's walk, and the position's value that
/// follows; no state, or `--status` with `--resume`, is refused.
#[test]
fn status_prints_what_the_state_proves() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let d = dir.to_str().unwrap();
    let status = ["solve", "-n", "4", "--state", d, "--status"];
    fails_with(&reversi(&status), 2, "no solve is kept there");
    let solved = json(&reversi(&[
        "solve",
        "-n",
        "4",
        "--json",
        "--hash-mb",
        "8",
        "--state",
        d,
    ]));
    let out = reversi(&status);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let value = solved["value"].as_i64().unwrap();
    assert!(
        text.contains(&format!("the position's value, proven {value:+} for black")),
        "{text}"
    );
    for mv in solved["move_values"].as_array().unwrap() {
        let line = format!(
            "{}: {:+} for black",
            mv["move"].as_str().unwrap(),
            mv["value"].as_i64().unwrap()
        );
        assert!(text.contains(&line), "{line} in {text}");
    }
    // The finished walk of the principal variation is kept whole.
    let pv: Vec<&str> = solved["pv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let line = format!(
        "principal variation, complete ({} turns): {}",
        pv.len(),
        pv.join(" ")
    );
    assert!(text.contains(&line), "{line} in {text}");
    let mut both = status.to_vec();
    both.push("--resume");
    fails_with(&reversi(&both), 2, "--resume");
}

/// `--import` starts a solve under the Othello rule from the bounds of the blog's rule's solve
/// of the same position that hold under both: the answer of a solve without them, in fewer
/// nodes (5x6, won by black; 4x4, won by white, so both sides' bounds are carried). Without
/// the Othello rule, or from a directory without such a solve, it is refused before any work.
#[test]
fn import_gives_the_othello_rules_answer_in_fewer_nodes() {
    let tmp = tempfile::tempdir().unwrap();
    for (board, name) in [(&BOARD[..], "5x6"), (&["-n", "4"][..], "4x4")] {
        let dir = tmp.path().join(name);
        let d = dir.to_str().unwrap();
        let mut discs = vec!["solve", "--json", "--hash-mb", "64", "--state", d];
        discs.extend_from_slice(board);
        json(&reversi(&discs));
        let mut plain = vec!["solve", "--json", "--hash-mb", "64"];
        plain.extend_from_slice(&["--scoring", "winner-takes-empties"]);
        plain.extend_from_slice(board);
        let want = json(&reversi(&plain));
        let mut carried = plain.clone();
        carried.extend_from_slice(&["--import", d]);
        let out = reversi(&carried);
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("carried over"),
            "{name}"
        );
        let got = json(&out);
        assert_eq!(answer(&got), answer(&want), "{name}");
        // (The state's table snapshot, written as the solve ended, carries most of them.)
        let nodes = |v: &serde_json::Value| v["nodes"].as_u64().unwrap();
        assert!(
            nodes(&got) < nodes(&want),
            "{name}: {} nodes with the bounds, {} without",
            nodes(&got),
            nodes(&want)
        );
    }
    let d = tmp.path().join("4x4");
    let d = d.to_str().unwrap();
    fails_with(
        &reversi(&["solve", "-n", "4", "--import", d]),
        2,
        "add --scoring winner-takes-empties",
    );
    let wte = ["--scoring", "winner-takes-empties"];
    let mut other = vec!["solve", "-n", "4", "--moves", "b1", "--import", d];
    other.extend_from_slice(&wte);
    fails_with(&reversi(&other), 2, "blog's rule");
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let mut none = vec!["solve", "-n", "4", "--import", empty.to_str().unwrap()];
    none.extend_from_slice(&wte);
    fails_with(&reversi(&none), 2, "no solve is kept there");
}
