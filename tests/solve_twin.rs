//! The solver against its slow twin: plain minimax without pruning, written with nothing but
//! `Position::legal_turns` and `Position::apply`.
//!
//! Every position reachable from the 3x3 and 4x4 starts is checked, and seeded random 5x5 and
//! 6x6 positions with at most 12 empty squares. The default run checks a few hundred random
//! positions; `cargo test --test solve_twin -- --ignored` checks thousands more. Both scoring
//! rules are checked on positions whose games can end with empty squares, and every mode of
//! `Solver::prove`.

mod common;

use common::Rng;
use std::collections::{HashMap, HashSet};

use reversi_nxn::board::{Move, Position, Scoring, Shape};
use reversi_nxn::progress::Silent;
use reversi_nxn::solve::{Mode, Outcome, SolveOptions, Solver, Tuning};

/// Plain minimax, black minus white at the end under the default rule (empty squares count
/// for nobody), memoized on whole positions (a cache of results, no pruning).
fn minimax(pos: &Position, memo: &mut HashMap<Position, i32>) -> i32 {
    minimax_under(pos, Scoring::Discs, memo)
}

/// Plain minimax, black minus white at the end under `scoring` (the memo must hold values
/// under that rule only).
fn minimax_under(pos: &Position, scoring: Scoring, memo: &mut HashMap<Position, i32>) -> i32 {
    // Small subtrees are cheaper to walk again than to look up.
    let cached = pos.empty().count_ones() >= 7;
    if cached {
        if let Some(&v) = memo.get(pos) {
            return v;
        }
    }
    let turns = pos.legal_turns();
    let v = if turns.is_empty() {
        // The end, scored by hand: the empty squares go to nobody, or to the winner.
        let (b, w) = (pos.black_count() as i32, pos.white_count() as i32);
        let empties = pos.empty().count_ones() as i32;
        match scoring {
            Scoring::Discs => b - w,
            Scoring::WinnerTakesEmpties if b > w => b + empties - w,
            Scoring::WinnerTakesEmpties if b < w => b - (w + empties),
            Scoring::WinnerTakesEmpties => 0,
        }
    } else {
        let vals = turns
            .iter()
            .map(|&t| minimax_under(&pos.apply(t).expect("legal turn"), scoring, memo));
        if pos.black_to_move() {
            vals.max().expect("a turn")
        } else {
            vals.min().expect("a turn")
        }
    };
    if cached {
        memo.insert(*pos, v);
    }
    v
}

/// Every position reachable from `start`, the start included.
fn reachable(start: Position) -> Vec<Position> {
    let mut seen = HashSet::new();
    let mut stack = vec![start];
    seen.insert(start);
    while let Some(pos) = stack.pop() {
        for t in pos.legal_turns() {
            let next = pos.apply(t).expect("legal turn");
            if seen.insert(next) {
                stack.push(next);
            }
        }
    }
    let mut all: Vec<Position> = seen.into_iter().collect();
    all.sort_by_key(|p| (p.disc_count(), p.black(), p.white(), p.black_to_move()));
    all
}

/// Checks a full solve of `pos` against the twin: value, every move's value, and a principal
/// variation that replays legally to the stated score.
fn check_report(solver: &mut Solver, pos: &Position, memo: &mut HashMap<Position, i32>) {
    let r = solver.solve(pos, &SolveOptions::default(), &Silent);
    assert_eq!(r.value, minimax(pos, memo), "value of {pos}");
    let turns = pos.legal_turns();
    assert_eq!(r.move_values.len(), turns.len());
    for (&(m, v), &t) in r.move_values.iter().zip(&turns) {
        assert_eq!(m, t);
        assert_eq!(v, minimax(&pos.apply(t).unwrap(), memo), "{pos} move {m:?}");
    }
    let mut end = *pos;
    for &m in &r.pv {
        assert_eq!(minimax(&end, memo), r.value, "the pv keeps the value");
        end = end.apply(m).expect("the pv is legal");
    }
    assert!(end.is_over(), "the pv reaches the end");
    assert_eq!(end.black_margin(), r.value);
    assert_eq!((end.black_count(), end.white_count()), r.final_score);
}

fn check_all_reachable(n: u32) -> usize {
    let start = Shape::square(n).unwrap().start();
    let all = reachable(start);
    let mut memo = HashMap::new();
    let mut solver = Solver::new(16);
    for pos in &all {
        let twin = minimax(pos, &mut memo);
        let side = if pos.black_to_move() { twin } else { -twin };
        assert_eq!(solver.value(pos), side, "value of {pos}");
        // The window search is sound around the value.
        assert!(solver.beats(pos, side - 1));
        assert!(!solver.beats(pos, side));
    }
    // Full reports (pv, move values) on a sample.
    for pos in all.iter().step_by(97) {
        check_report(&mut solver, pos, &mut memo);
    }
    all.len()
}

#[test]
fn every_reachable_3x3_position() {
    assert!(check_all_reachable(3) > 10);
}

#[test]
fn every_reachable_4x4_position() {
    assert!(check_all_reachable(4) > 1000);
}

/// A position reached by random play from the start of `shape` with at most `max_empty` empty
/// squares (the game may have ended).
fn random_position(shape: Shape, max_empty: u32, rng: &mut Rng) -> Position {
    let target = 1 + rng.below(max_empty as usize) as u32;
    loop {
        let mut pos = shape.start();
        loop {
            let empty = pos.empty().count_ones();
            let turns = pos.legal_turns();
            if empty <= target || turns.is_empty() {
                break;
            }
            pos = pos.apply(turns[rng.below(turns.len())]).unwrap();
        }
        if pos.empty().count_ones() <= max_empty {
            return pos;
        }
    }
}

fn check_random(shape: Shape, count: usize, max_empty: u32, seed: u64) {
    let mut rng = Rng(seed);
    let mut solver = Solver::new(16);
    for i in 0..count {
        let pos = random_position(shape, max_empty, &mut rng);
        let mut memo = HashMap::new();
        let twin = minimax(&pos, &mut memo);
        let side = if pos.black_to_move() { twin } else { -twin };
        assert_eq!(solver.value(&pos), side, "value of {pos}");
        if i % 8 == 0 {
            check_report(&mut solver, &pos, &mut memo);
        }
        if i % 50 == 0 {
            // A fresh table now and then, so cold searches are checked too.
            solver.clear();
        }
    }
}

#[test]
fn random_5x5_positions() {
    check_random(Shape::square(5).unwrap(), 300, 12, 5);
}

#[test]
fn random_6x6_positions() {
    check_random(Shape::square(6).unwrap(), 200, 10, 6);
    check_random(Shape::square(6).unwrap(), 40, 12, 16);
}

#[test]
fn random_rectangle_positions() {
    check_random(Shape::new(4, 7).unwrap(), 100, 12, 47);
    check_random(Shape::new(5, 6).unwrap(), 100, 12, 56);
}

/// `Solver::confined` (MTD(f) kept inside a window, the proof's window units) against the
/// twin: a value inside the window exactly, one outside it a true bound beyond the window
/// (the fail-soft answer of a window search), for windows of every width and place, under
/// both scoring rules.
#[test]
fn confined_windows_against_the_twin() {
    let mut rng = Rng(88);
    let shape = Shape::new(4, 5).unwrap();
    let squares = shape.squares() as i32;
    for i in 0..150 {
        let scoring = if i % 2 == 0 {
            Scoring::Discs
        } else {
            Scoring::WinnerTakesEmpties
        };
        let mut solver = Solver::new(4);
        solver.set_scoring(scoring);
        let pos = random_position(shape, 14, &mut rng);
        let mut memo = HashMap::new();
        let twin = minimax_under(&pos, scoring, &mut memo);
        let v = if pos.black_to_move() { twin } else { -twin };
        let alpha = rng.below(2 * squares as usize + 2) as i32 - squares - 1;
        let beta = alpha + 1 + rng.below(8) as i32;
        let (r, nodes) = solver.confined(&pos, alpha, beta);
        assert!(nodes > 0);
        let ok = if v <= alpha {
            v <= r && r <= alpha
        } else if v >= beta {
            beta <= r && r <= v
        } else {
            r == v
        };
        assert!(
            ok,
            "{pos} {scoring:?}: value {v}, window ({alpha}, {beta}), result {r}"
        );
    }
}

#[test]
#[ignore = "thousands of positions; run with cargo test --test solve_twin -- --ignored"]
fn thousands_of_random_positions() {
    check_random(Shape::square(5).unwrap(), 3000, 12, 55);
    check_random(Shape::square(6).unwrap(), 3000, 12, 66);
}

#[test]
fn a_forced_pass_at_the_root_is_solved() {
    // Random play until a position where the side to move must pass.
    let mut rng = Rng(7);
    let shape = Shape::square(5).unwrap();
    let mut memo = HashMap::new();
    let mut solver = Solver::new(16);
    let mut found = 0;
    for _ in 0..2000 {
        let mut pos = shape.start();
        while !pos.is_over() {
            if pos.legal_turns() == [Move::Pass] && pos.empty().count_ones() <= 14 {
                check_report(&mut solver, &pos, &mut memo);
                found += 1;
                break;
            }
            let turns = pos.legal_turns();
            pos = pos.apply(turns[rng.below(turns.len())]).unwrap();
        }
    }
    assert!(found > 0);
}

/// Both scoring rules against the twin on seeded random positions of `shape` with at most
/// `max_empty` empty squares: every value, every move's value, the principal variation, and
/// `prove` in each mode, under each rule with the default tuning and with the end solver and
/// the stability cutoff off (so both paths that score finished games are checked). Returns how
/// many positions have different values under the two rules (games that end with empty
/// squares under perfect play).
fn check_scoring(shape: Shape, count: usize, max_empty: u32, seed: u64) -> usize {
    let mut rng = Rng(seed);
    let plain = Tuning {
        endgame_empties: 0,
        stability_empties: u32::MAX,
        ..Tuning::default()
    };
    let mut solvers = [Solver::new(16), Solver::new(16)];
    solvers[1].set_tuning(plain);
    let mut differ = 0;
    for i in 0..count {
        let pos = random_position(shape, max_empty, &mut rng);
        let mut values = Vec::new();
        for scoring in [Scoring::Discs, Scoring::WinnerTakesEmpties] {
            let mut memo = HashMap::new();
            let twin = minimax_under(&pos, scoring, &mut memo);
            let side = if pos.black_to_move() { twin } else { -twin };
            for solver in &mut solvers {
                solver.set_scoring(scoring);
                assert_eq!(solver.value(&pos), side, "{scoring:?} value of {pos}");
                assert!(solver.beats(&pos, side - 1), "{scoring:?} {pos}");
                assert!(!solver.beats(&pos, side), "{scoring:?} {pos}");
            }
            values.push(twin);
            if pos.is_over() {
                continue;
            }
            let opts = SolveOptions {
                scoring,
                ..SolveOptions::default()
            };
            let solver = &mut solvers[0];
            if i % 4 == 0 {
                let r = solver.solve(&pos, &opts, &Silent);
                assert_eq!(r.value, twin, "{scoring:?} report of {pos}");
                for &(m, v) in &r.move_values {
                    let child = pos.apply(m).unwrap();
                    assert_eq!(v, minimax_under(&child, scoring, &mut memo), "{pos} {m:?}");
                }
                let mut end = pos;
                for &m in &r.pv {
                    assert_eq!(minimax_under(&end, scoring, &mut memo), twin, "pv of {pos}");
                    end = end.apply(m).unwrap();
                }
                assert!(end.is_over());
                assert_eq!(end.black_margin_under(scoring), twin, "pv end of {pos}");
            }
            for mode in [Mode::Best, Mode::All, Mode::Wld] {
                let p = solver.prove(&pos, mode, &opts);
                assert_eq!(p.outcome, Outcome::of(side), "{mode:?} {scoring:?} {pos}");
                if mode == Mode::Wld {
                    assert_eq!(p.value, None);
                } else {
                    assert_eq!(p.value, Some(side), "{mode:?} {scoring:?} {pos}");
                }
                // Each best move keeps the value (in wld mode: the outcome).
                for &m in &p.best_moves {
                    let child = pos.apply(m).expect("a legal best move");
                    let v = minimax_under(&child, scoring, &mut memo);
                    let v = if pos.black_to_move() { v } else { -v };
                    match mode {
                        Mode::Wld => assert_eq!(Outcome::of(v), p.outcome, "{pos} {m:?}"),
                        _ => assert_eq!(v, side, "{mode:?} {scoring:?} {pos} {m:?}"),
                    }
                }
                let expect_move = mode != Mode::Wld || p.outcome != Outcome::Loss;
                assert_eq!(!p.best_moves.is_empty(), expect_move, "{mode:?} {pos}");
            }
        }
        // The winner never depends on the rule; the margin under the Othello rule is never
        // smaller.
        assert_eq!(values[0].signum(), values[1].signum(), "sign of {pos}");
        assert!(values[1].abs() >= values[0].abs(), "margins of {pos}");
        if values[0] != values[1] {
            differ += 1;
        }
        if i % 50 == 0 {
            for solver in &mut solvers {
                solver.clear();
            }
        }
    }
    differ
}

#[test]
fn both_scoring_rules_against_the_twin() {
    // Small boards, where many games end with empty squares; each run must contain positions
    // whose values differ between the rules, or it would not test the Othello rule at all.
    assert!(check_scoring(Shape::square(4).unwrap(), 150, 12, 404) > 10);
    assert!(check_scoring(Shape::square(5).unwrap(), 150, 12, 505) > 5);
    assert!(check_scoring(Shape::new(4, 6).unwrap(), 100, 12, 406) > 5);
    assert!(check_scoring(Shape::square(6).unwrap(), 60, 11, 606) > 0);
}

/// A board's committed solution under `scoring` (`results/RxC/`, written by `reversi report`).
fn committed_path(shape: Shape, scoring: Scoring) -> std::path::PathBuf {
    let name = match scoring {
        Scoring::Discs => "solution.json",
        Scoring::WinnerTakesEmpties => "solution-winner-takes-empties.json",
    };
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("results")
        .join(shape.name())
        .join(name)
}

fn committed_solution(shape: Shape, scoring: Scoring) -> serde_json::Value {
    let path = committed_path(shape, scoring);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run `reversi report`)", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The moves of a committed solution's principal variation.
fn committed_pv(s: &serde_json::Value) -> Vec<&str> {
    s["pv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect()
}

/// Checks a committed solution of `shape`'s start under `scoring` against itself: its
/// principal variation replays from the start to a finished game of its final discs and
/// value. Returns the value.
fn check_committed(shape: Shape, scoring: Scoring) -> i32 {
    let s = committed_solution(shape, scoring);
    let start = shape.start();
    assert_eq!(
        s["position"],
        start.to_board_string(),
        "{shape} {scoring:?}"
    );
    let pv = committed_pv(&s);
    let (end, _) = start.after_moves(&pv.join(" ")).unwrap();
    assert!(
        end.is_over(),
        "{shape} {scoring:?}: the pv stops before the end"
    );
    assert_eq!(s["final_black"], end.black_count(), "{shape} {scoring:?}");
    assert_eq!(s["final_white"], end.white_count(), "{shape} {scoring:?}");
    let value = i32::try_from(s["value"].as_i64().unwrap()).unwrap();
    assert_eq!(
        end.black_margin_under(scoring),
        value,
        "{shape} {scoring:?}"
    );
    value
}

/// Every board with a solution in `results/` (those `reversi report` solves), smallest first.
fn committed_boards() -> Vec<Shape> {
    let results = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let mut boards: Vec<Shape> = std::fs::read_dir(results)
        .unwrap()
        .filter_map(|dir| {
            let dir = dir.unwrap().path();
            let (r, c) = dir.file_name()?.to_str()?.split_once('x')?;
            let shape = Shape::new(r.parse().ok()?, c.parse().ok()?).ok()?;
            dir.join("solution.json").is_file().then_some(shape)
        })
        .collect();
    boards.sort_by_key(|s| (s.squares(), s.name()));
    assert!(!boards.is_empty(), "no solutions in results/");
    boards
}

/// The rules `shape` has a committed solution under: both, but for a board past 40 squares
/// proven under the blog's rule first (6x7), whose Othello rule comes later.
fn committed_rules(shape: Shape) -> Vec<Scoring> {
    if committed_path(shape, Scoring::WinnerTakesEmpties).is_file() {
        vec![Scoring::Discs, Scoring::WinnerTakesEmpties]
    } else {
        assert!(shape.squares() > 40, "{shape}: no Othello-rule solution");
        vec![Scoring::Discs]
    }
}

#[test]
fn committed_solutions_under_both_rules_agree() {
    // Every board's perfect play in results/ under both rules: the pv replays to its value,
    // the winner is the same and the Othello rule's margin is never smaller (a strategy that
    // keeps a disc margin keeps at least that margin when the winner takes the empty squares).
    for shape in committed_boards() {
        let discs = check_committed(shape, Scoring::Discs);
        if committed_rules(shape).len() == 1 {
            continue;
        }
        let othello = check_committed(shape, Scoring::WinnerTakesEmpties);
        assert_eq!(discs.signum(), othello.signum(), "{shape}");
        assert!(
            othello.abs() >= discs.abs(),
            "{shape}: {othello} against {discs}"
        );
        // The same holds for every first move's value.
        let move_values = |scoring| {
            let s = committed_solution(shape, scoring);
            let mut values: Vec<(String, i64)> = s["move_values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    let name = m["move"].as_str().unwrap().to_string();
                    (name, m["value"].as_i64().unwrap())
                })
                .collect();
            values.sort();
            values
        };
        let (d, o) = (
            move_values(Scoring::Discs),
            move_values(Scoring::WinnerTakesEmpties),
        );
        assert_eq!(
            d.iter().map(|m| &m.0).collect::<Vec<_>>(),
            o.iter().map(|m| &m.0).collect::<Vec<_>>(),
            "{shape}: the first moves differ"
        );
        for ((name, d), (_, o)) in d.iter().zip(&o) {
            assert_eq!(d.signum(), o.signum(), "{shape} {name}");
            assert!(o.abs() >= d.abs(), "{shape} {name}: {o} against {d}");
        }
    }
}

#[test]
fn committed_principal_variations_end_as_the_solver_plays_them() {
    // The principal variation rule (the first move that keeps the value, in a fixed order) must
    // not change with the search or with the weights shipped for a board: from the first point
    // of each committed principal variation with at most 18 empty squares, the solver's
    // continuation at the committed value is the committed line's rest.
    for shape in committed_boards() {
        for scoring in committed_rules(shape) {
            let s = committed_solution(shape, scoring);
            let pv = committed_pv(&s);
            let value = i32::try_from(s["value"].as_i64().unwrap()).unwrap();
            let mut pos = shape.start();
            let mut k = 0;
            while k == 0 || pos.empty().count_ones() > 18 {
                pos = pos.after_moves(pv[k]).unwrap().0;
                k += 1;
            }
            let mover_value = if pos.black_to_move() { value } else { -value };
            let mut solver = Solver::new(16);
            solver.set_scoring(scoring);
            let (rest, _) = solver.continuation(&pos, mover_value);
            let rest: Vec<String> = rest.iter().map(|&m| pos.move_name(m)).collect();
            assert_eq!(rest, pv[k..], "{shape} {scoring:?} after {k} plies");
        }
    }
}

/// The committed values of the boards `rows_cols` under both rules against plain minimax.
fn check_against_the_twin(rows_cols: &[(u32, u32)]) {
    for &(r, c) in rows_cols {
        let shape = Shape::new(r, c).unwrap();
        for scoring in [Scoring::Discs, Scoring::WinnerTakesEmpties] {
            let s = committed_solution(shape, scoring);
            let twin = minimax_under(&shape.start(), scoring, &mut HashMap::new());
            assert_eq!(s["value"], twin, "{shape} {scoring:?}");
        }
    }
}

#[test]
fn committed_small_solutions_against_the_twin() {
    check_against_the_twin(&[(3, 3), (3, 4), (3, 5), (3, 6), (4, 4)]);
}

#[test]
#[ignore = "about 20 s in release: cargo test --release --test solve_twin -- --ignored committed"]
fn committed_larger_solutions_against_the_twin() {
    check_against_the_twin(&[(3, 7), (3, 8), (4, 5)]);
}
