//! The FFO endgame suite, positions 40 to 59, under the Othello scoring rule (the empty squares
//! go to the winner): each position's value for the side to move and a best move that is one
//! of the listed best moves, proved by `Solver::prove` in best mode.
//!
//! The data is `../shared/suites/fforum-40-59.obf` (beside this repository): the FFO suite's
//! positions with their published move values, as distributed in Edax's repository
//! (`abulmo/edax-reversi`, `problem/fforum-40-59.obf`); see `../shared/suites/README.md`.
//! The values are not in this file: they are read from the suite's annotations.
//!
//! The default run checks the easier positions (a few seconds each on two cores); all twenty
//! (about 8 minutes on two cores, see BENCHMARKS.md):
//!
//! ```text
//! cargo test --release --test ffo -- --ignored
//! ```

use std::path::PathBuf;

use reversi_nxn::board::{Move, Scoring};
use reversi_nxn::obf;
use reversi_nxn::solve::{Mode, SolveOptions, Solver};

/// One suite position with its published best value and best moves (lower case).
struct Problem {
    /// The FFO number.
    number: usize,
    entry: obf::Entry,
    value: i32,
    best: Vec<String>,
}

/// The suite's file, relative to this crate (CI checks `shared/` out beside the repository).
fn suite_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/suites/fforum-40-59.obf")
}

/// The problems of the suite, with the values listed after `;` (`A2:+38; C7:+36; ...`, for the
/// side to move, best first).
fn problems() -> Vec<Problem> {
    let path = suite_path();
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let problems: Vec<Problem> = obf::parse(&text)
        .enumerate()
        .map(|(i, entry)| {
            let entry = entry.expect("a well-formed suite line");
            let listed: Vec<(String, i32)> = entry
                .annotation
                .split(';')
                .filter_map(|item| {
                    let (mv, v) = item.trim().split_once(':')?;
                    Some((mv.to_ascii_lowercase(), v.parse().expect("a move value")))
                })
                .collect();
            let value = listed.iter().map(|&(_, v)| v).max().expect("listed values");
            let best = listed
                .into_iter()
                .filter(|&(_, v)| v == value)
                .map(|(m, _)| m)
                .collect();
            Problem {
                number: 40 + i,
                entry,
                value,
                best,
            }
        })
        .collect();
    assert_eq!(problems.len(), 20, "FFO #40-59");
    problems
}

/// Solves the problems numbered in `which` and checks each value and best move.
fn check(which: &[usize]) {
    let opts = SolveOptions {
        scoring: Scoring::WinnerTakesEmpties,
        ..SolveOptions::default()
    };
    let mut solver = Solver::new(256);
    let mut checked = 0;
    for p in problems().iter().filter(|p| which.contains(&p.number)) {
        solver.clear();
        let pos = &p.entry.position;
        let proof = solver.prove(pos, Mode::Best, &opts);
        assert_eq!(proof.value, Some(p.value), "FFO #{} value", p.number);
        let [mv] = proof.best_moves[..] else {
            panic!("FFO #{}: one best move expected", p.number);
        };
        assert!(matches!(mv, Move::Place(_)));
        let name = pos.move_name(mv);
        assert!(
            p.best.contains(&name),
            "FFO #{}: {name} is not among the listed best moves {:?}",
            p.number,
            p.best
        );
        checked += 1;
    }
    assert_eq!(checked, which.len());
}

#[test]
fn easier_ffo_positions() {
    // The positions of 20 to 25 empty squares that take at most about five seconds each with
    // the release build on two busy cores (see BENCHMARKS.md, FFO #40-59; #45 and #48 take
    // 15-20 s there and are left to the ignored test).
    check(&[40, 41, 42, 43, 44, 46, 47]);
}

#[test]
#[ignore = "all twenty positions, about 8 minutes; run with cargo test --release --test ffo -- --ignored"]
fn every_ffo_position_40_to_59() {
    check(&(40..=59).collect::<Vec<_>>());
}
