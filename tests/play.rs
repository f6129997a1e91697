//! `play` and `analyze`: a scripted session through a pipe, and the engine checked against a
//! plain minimax (no pruning) so that it never lets a won position slip.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::Rng;
use reversi_nxn::board::{Position, Scoring, Shape};
use reversi_nxn::play::session::Session;
use reversi_nxn::play::{Advisor, HeuristicAdvisor};

/// Final margin for the side to move under perfect play, by plain minimax over every line.
fn minimax(pos: &Position) -> i32 {
    let turns = pos.legal_turns();
    if turns.is_empty() {
        let m = pos.black_margin();
        return if pos.black_to_move() { m } else { -m };
    }
    turns
        .into_iter()
        .map(|t| {
            let child = pos.apply(t).unwrap();
            -minimax(&child)
        })
        .max()
        .unwrap()
}

/// Runs `reversi` with `args` in the repository (where `results/` is), `script` on stdin.
fn piped(args: &[&str], script: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn piped_session_plays_a_full_4x4_game_with_undo_and_hints() {
    let mut script = String::from("hint\nb1\nundo\nboard\nz9\nb1\nhint\n");
    script.push_str(&"best\n".repeat(12));
    script.push_str("quit\n");
    let out = piped(&["play", "--size", "4", "--engine", "white"], &script);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("move values (exact"), "{text}");
    assert_eq!(text.matches("black plays b1").count(), 2, "{text}");
    assert!(text.contains("bad square"), "{text}");
    // REFERENCE.md (blog 2008-07-03): the second player wins 4x4 under perfect play; the
    // engine plays white perfectly, and "best" plays black's best, so white wins.
    assert!(text.contains("game over: white wins"), "{text}");
}

#[test]
fn engine_never_loses_value_against_random_opponents() {
    let shape = Shape::square(4).unwrap();
    let mut rng = Rng(44);
    for game in 0..40 {
        let engine_black = game % 2 == 0;
        let mut advisor = HeuristicAdvisor {
            limit: Duration::from_secs(10),
            scoring: Scoring::Discs,
        };
        let mut pos = shape.start();
        let mut promised: Option<i32> = None; // engine's guaranteed final margin
        loop {
            let turns = pos.legal_turns();
            if turns.is_empty() {
                break;
            }
            let t = if pos.black_to_move() == engine_black {
                let v = minimax(&pos);
                if let Some(p) = promised {
                    assert!(
                        v >= p,
                        "game {game}: the engine's value fell from {p} to {v}"
                    );
                }
                promised = Some(v);
                let advice = advisor.advise(&pos);
                assert_eq!(
                    advice.best_score(),
                    Some(v),
                    "game {game}: engine's value is wrong"
                );
                advice.best_moves()[0]
            } else {
                turns[rng.below(turns.len())]
            };
            pos = pos.apply(t).unwrap();
        }
        let margin = if engine_black {
            pos.black_margin()
        } else {
            -pos.black_margin()
        };
        assert!(margin >= promised.unwrap(), "game {game}");
    }
}

#[test]
fn engine_against_engine_reaches_the_perfect_play_result() {
    let start = Shape::square(4).unwrap().start();
    let advisor = HeuristicAdvisor {
        limit: Duration::from_secs(10),
        scoring: Scoring::Discs,
    };
    let mut out = Vec::new();
    let end = Session::new(start, [true, true], advisor)
        .run(&mut std::io::empty(), &mut out)
        .unwrap();
    assert!(end.position.is_over());
    assert_eq!(end.position.black_margin(), minimax(&start));
}

#[test]
fn analyze_marks_the_best_moves() {
    let out = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(["analyze", "--size", "4", "--moves", "b1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("best"), "{text}");
    assert!(text.contains("exact"), "{text}");
    let big = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(["analyze", "--size", "8", "--time-ms", "200"])
        .output()
        .unwrap();
    let text = String::from_utf8(big.stdout).unwrap();
    assert!(
        text.contains("heuristic evaluation") && text.contains("hundredths of a disc"),
        "{text}"
    );
    // The wait is announced.
    assert!(String::from_utf8_lossy(&big.stderr).contains("searching for up to 0.2 s"));
}

/// Plays `games` random games on `shape`, checking at every position that `advisor` gives
/// exact values equal to plain minimax for every legal turn.
fn assert_exact_like_minimax(advisor: &mut dyn Advisor, shape: Shape, games: usize, seed: u64) {
    use reversi_nxn::play::AdviceKind;
    let mut rng = Rng(seed);
    for _ in 0..games {
        let mut pos = shape.start();
        while !pos.is_over() {
            let advice = advisor.advise(&pos);
            assert_eq!(advice.kind, AdviceKind::Exact);
            for &(t, v) in &advice.scores {
                assert_eq!(
                    v,
                    -minimax(&pos.apply(t).unwrap()),
                    "{pos} {}",
                    pos.move_name(t)
                );
            }
            let turns = pos.legal_turns();
            pos = pos.apply(turns[rng.below(turns.len())]).unwrap();
        }
    }
}

#[test]
fn strong_advisor_gives_minimax_values() {
    use reversi_nxn::play::StrongAdvisor;
    use reversi_nxn::strong::{build, StrongOptions};
    let shape = Shape::square(4).unwrap();
    let (table, _) = build(
        shape,
        &StrongOptions::default(),
        &reversi_nxn::progress::Silent,
    )
    .unwrap();
    let mut advisor = StrongAdvisor {
        table,
        fallback: HeuristicAdvisor {
            limit: Duration::from_secs(1),
            scoring: Scoring::Discs,
        },
    };
    assert_exact_like_minimax(&mut advisor, shape, 30, 3);
}

#[test]
fn solver_advisor_gives_minimax_values() {
    use reversi_nxn::play::SolverAdvisor;
    let shape = Shape::square(4).unwrap();
    let mut advisor = SolverAdvisor {
        solver: reversi_nxn::solve::Solver::new(16),
        limit: Duration::from_secs(10),
        scoring: Scoring::Discs,
        fallback: HeuristicAdvisor {
            limit: Duration::from_secs(1),
            scoring: Scoring::Discs,
        },
    };
    assert_exact_like_minimax(&mut advisor, shape, 20, 8);
}

/// The committed solution of `board` (`results/`, written by `reversi solve --save`): the
/// principal variation and black's margin after each first move.
fn committed_solution(board: &str) -> (Vec<String>, Vec<(String, i64)>, i64) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("results")
        .join(board)
        .join("solution.json");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let pv = v["pv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    let moves = v["move_values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap().to_string(),
                m["value"].as_i64().unwrap(),
            )
        })
        .collect();
    (pv, moves, v["value"].as_i64().unwrap())
}

/// `analyze` run from the repository (where `results/` is), its stdout.
fn analyze(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["--threads", "1", "analyze", "--time-ms", "200"])
        .args(args)
        .output()
        .unwrap();
    common::cli::stdout(&out)
}

#[test]
fn analyze_gives_the_published_values_of_a_start_too_long_to_solve() {
    // 6x7's start takes hours to solve; its committed solution gives every first move's value,
    // and the move of the principal variation after it.
    let (pv, moves, value) = committed_solution("6x7");
    let text = analyze(&["--rows", "6", "--cols", "7"]);
    assert!(text.contains("exact final margin"), "{text}");
    for (m, v) in &moves {
        // Black moves first: black's margin is the mover's.
        assert!(
            text.contains(&format!("  {m:<5} {:>6}", format!("{v:+}"))),
            "{m} {v}: {text}"
        );
    }
    let text = analyze(&["--rows", "6", "--cols", "7", "--moves", &pv[0]]);
    assert!(
        text.contains(&format!(
            "  {:<5} {:>6}  best",
            pv[1],
            format!("{:+}", -value)
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("the other moves: at most {:+}", -value)),
        "{text}"
    );
    // The transposed board reads the same solution: the same values, by other names.
    let text = analyze(&["--rows", "7", "--cols", "6"]);
    let mut want: Vec<i64> = moves.iter().map(|m| m.1).collect();
    let mut got: Vec<i64> = text
        .lines()
        .skip_while(|l| !l.starts_with("move values"))
        .skip(1)
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want, "{text}");
    // Off the principal variation, a heuristic search.
    let off = moves.iter().find(|m| m.1 != value).unwrap();
    let text = analyze(&["--rows", "6", "--cols", "7", "--moves", &off.0]);
    assert!(text.contains("heuristic evaluation"), "{text}");
}

#[test]
fn the_engine_answers_on_the_published_principal_variation() {
    // 6x7: the engine (white) answers the principal variation's first move with its second,
    // which keeps the start's value: the solver could not find it in a second.
    let (pv, _, value) = committed_solution("6x7");
    let args = [
        "--threads",
        "1",
        "play",
        "--rows",
        "6",
        "--cols",
        "7",
        "--engine",
        "white",
        "--time-ms",
        "1000",
    ];
    let text = common::cli::stdout(&piped(&args, &format!("{}\nquit\n", pv[0])));
    let want = format!(
        "white plays {} (exact: {:+} for white, on the published principal variation)",
        pv[1], -value
    );
    assert!(text.contains(&want), "{want}: {text}");
}

#[test]
fn a_damaged_solution_is_named_and_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results").join("6x7").join("solution.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let good = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/6x7/solution.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(good).unwrap()).unwrap();
    v["value"] = (v["value"].as_i64().unwrap() + 2).into();
    std::fs::write(&path, v.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .current_dir(dir.path())
        .args([
            "--threads",
            "1",
            "analyze",
            "--rows",
            "6",
            "--cols",
            "7",
            "--time-ms",
            "100",
        ])
        .output()
        .unwrap();
    let text = common::cli::stdout(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not using the published solution results/6x7/solution.json: its principal variation is worth"),
        "{err}"
    );
    assert!(text.contains("heuristic evaluation"), "{text}");
}
