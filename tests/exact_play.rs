//! The engine of `play` is perfect wherever the solver is fast enough, says which of its moves
//! were exact, and never prints a sentinel as a value; `solve` reports progress while it runs.

use std::io::Write;
use std::process::{Command, Stdio};

use reversi_nxn::board::{Position, Shape};
use reversi_nxn::solve::Solver;

/// Runs `reversi` with `args`, feeding `input` on stdin; returns stdout (stderr is discarded).
fn run_with_input(args: &[&str], input: &str) -> String {
    run_in(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
        args,
        input,
    )
}

/// [`run_with_input`] in the directory `dir`, whose `results/` (if any) the engine reads its
/// published solutions from.
fn run_in(dir: &std::path::Path, args: &[&str], input: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "reversi {args:?} failed");
    String::from_utf8(out.stdout).unwrap()
}

/// One turn of a game as `play` prints it: `white plays d2 (exact: -13 for white)`.
#[derive(Debug)]
struct Turn {
    /// The square, or `pass`.
    square: String,
    /// What is in the parentheses, if anything.
    how: Option<String>,
}

/// The turns of the game in `play`'s output, in order.
fn turns(text: &str) -> Vec<Turn> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim_start_matches("> ");
            let rest = line
                .strip_prefix("black plays ")
                .or_else(|| line.strip_prefix("white plays "))?;
            let (square, how) = match rest.split_once(" (") {
                Some((sq, how)) => (sq, Some(how.trim_end_matches(')').to_string())),
                None => (rest, None),
            };
            Some(Turn {
                square: square.to_string(),
                how,
            })
        })
        .collect()
}

/// No value that is not a plausible disc margin or heuristic score is printed (the midgame
/// search scales finished games by 10,000: -160000 was a margin of -16 shown as a score).
fn assert_no_sentinel(text: &str) {
    for word in text.split(|c: char| !(c.is_ascii_digit() || c == '-' || c == '+')) {
        if let Ok(v) = word.parse::<i64>() {
            assert!(v.abs() < 10_000, "{word} printed as a value:\n{text}");
        }
    }
}

/// Replays `turns` from `start`, checking with the solver that every turn marked exact keeps
/// the value of the position for the side that played it, and that the value it printed is
/// that value. Returns the number of exact turns and the final position.
fn check_exact_turns(start: Position, turns: &[Turn], solver: &mut Solver) -> (usize, Position) {
    let mut pos = start;
    let mut exact = 0;
    for t in turns {
        let (next, _) = pos.after_moves(&t.square).unwrap();
        if let Some(how) = t.how.as_deref().and_then(|h| h.strip_prefix("exact: ")) {
            let before = solver.value(&pos);
            let after = -solver.value(&next);
            assert_eq!(after, before, "{} at {pos} loses value", t.square);
            let side = pos.side_to_move().name();
            assert_eq!(how, format!("{before:+} for {side}"), "at {pos}");
            exact += 1;
        }
        pos = next;
    }
    (exact, pos)
}

#[test]
fn the_engine_plays_a_perfect_5x5_game_from_the_start() {
    let text = run_with_input(&["play", "-n", "5", "--engine", "both"], "");
    assert_no_sentinel(&text);
    let turns = turns(&text);
    assert!(turns.len() >= 15, "{text}");
    // Every placement is exact (5x5 solves in a few milliseconds); a pass is forced.
    for t in &turns {
        let how = t.how.as_deref().unwrap_or("");
        if t.square == "pass" {
            assert_eq!(how, "forced", "{text}");
        } else {
            assert!(how.starts_with("exact: "), "{} ({how}):\n{text}", t.square);
        }
    }
    let start = Shape::square(5).unwrap().start();
    let mut solver = Solver::new(64);
    let (exact, end) = check_exact_turns(start, &turns, &mut solver);
    assert!(exact > 0);
    assert!(end.is_over(), "{text}");
    // Perfect play by both sides ends at the start's value (black moves first).
    assert_eq!(end.black_margin(), solver.value(&start), "{text}");
}

#[test]
fn on_6x6_the_engine_is_exact_from_where_a_solve_fits_its_time() {
    // 200 ms a move: the solver's estimate fits from about 25 empty squares; above, the
    // midgame search plays, and says so. Run where there is no results/ directory: there the
    // published 6x6 solution would play the opening (tests/play.rs checks that).
    let empty = tempfile::tempdir().unwrap();
    let text = run_in(
        empty.path(),
        &["play", "-n", "6", "--engine", "both", "--time-ms", "200"],
        "",
    );
    assert_no_sentinel(&text);
    let turns = turns(&text);
    let start = Shape::square(6).unwrap().start();
    let mut pos = start;
    for (i, t) in turns.iter().enumerate() {
        let empties = pos.empty().count_ones();
        let how = t.how.as_deref().unwrap_or("");
        if t.square != "pass" {
            if empties >= 30 {
                assert!(how.starts_with("heuristic"), "turn {i}: {how}\n{text}");
            }
            // Positions this small solve in milliseconds even on a busy machine.
            if empties <= 14 {
                assert!(how.starts_with("exact: "), "turn {i}: {how}\n{text}");
            }
        }
        pos = pos.after_moves(&t.square).unwrap().0;
    }
    assert!(pos.is_over(), "{text}");
    let mut solver = Solver::new(64);
    let (exact, _) = check_exact_turns(start, &turns, &mut solver);
    assert!(exact >= 14, "{exact} exact turns:\n{text}");
}

#[test]
fn hints_at_the_5x5_start_are_exact_margins() {
    let text = run_with_input(&["play", "-n", "5", "--engine", "none"], "hint\nquit\n");
    assert_no_sentinel(&text);
    assert!(
        text.contains("move values (exact final margin in discs"),
        "{text}"
    );
    let start = Shape::square(5).unwrap().start();
    let mut solver = Solver::new(64);
    let mut shown = 0;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let (Some(square), Some(value)) = (words.next(), words.next()) else {
            continue;
        };
        let Ok(value) = value.parse::<i32>() else {
            continue;
        };
        let Ok((child, _)) = start.after_moves(square) else {
            continue;
        };
        assert_eq!(value, -solver.value(&child), "{line}");
        shown += 1;
    }
    assert_eq!(shown, start.legal_turns().len(), "{text}");
}

#[test]
fn solve_reports_progress_on_stderr_and_keeps_its_output() {
    // 27 empty squares of 6x6: a few seconds on one thread.
    let args = [
        "--threads",
        "1",
        "solve",
        "-n",
        "6",
        "--moves",
        "c2 b4 c5 d2 e4 e3 d1 c1 b1",
        "--hash-mb",
        "64",
    ];
    let quiet = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .stderr(Stdio::null())
        .output()
        .unwrap();
    let watched = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .env("REVERSI_PROGRESS_SECS", "0.2")
        .output()
        .unwrap();
    assert!(quiet.status.success() && watched.status.success());
    let err = String::from_utf8(watched.stderr).unwrap();
    assert!(
        err.lines()
            .any(|l| l.starts_with("solve: root move ") && l.contains(" nodes, ")),
        "{err}"
    );
    // What the move's search is on, and how far it has got at the top of its tree.
    assert!(
        err.lines().any(|l| (l.contains("; exact test: is it at ")
            || l.contains("; selective pass "))
            && l.contains("; in its tree, moves done by ply: ")),
        "{err}"
    );
    // The same report, node count included (one thread), but for the time.
    let strip = |out: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(out)
            .lines()
            .map(|l| match l.split_once(", time ") {
                Some((nodes, _)) => nodes.to_string(),
                None => l.to_string(),
            })
            .collect()
    };
    assert_eq!(strip(&quiet.stdout), strip(&watched.stdout));
}

#[test]
fn positions_reports_its_last_ply() {
    let out = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(["positions", "-n", "4", "--depth", "3"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    for ply in 1..=3 {
        assert!(err.contains(&format!("ply {ply}: ")), "{err}");
    }
}
