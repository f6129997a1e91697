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

#[test]
fn piped_session_plays_a_full_4x4_game_with_undo_and_hints() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(["play", "--size", "4", "--engine", "white"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut script = String::from("hint\nb1\nundo\nboard\nz9\nb1\nhint\n");
    script.push_str(&"best\n".repeat(12));
    script.push_str("quit\n");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
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
