//! The solver against its slow twin: plain minimax without pruning, written with nothing but
//! `Position::legal_turns` and `Position::apply`.
//!
//! Every position reachable from the 3x3 and 4x4 starts is checked, and seeded random 5x5 and
//! 6x6 positions with at most 12 empty squares. The default run checks a few hundred random
//! positions; `cargo test --test solve_twin -- --ignored` checks thousands more.

mod common;

use common::Rng;
use std::collections::{HashMap, HashSet};

use reversi_nxn::board::{Move, Position, Shape};
use reversi_nxn::progress::Silent;
use reversi_nxn::solve::{SolveOptions, Solver};

/// Plain minimax, black minus white at the end, memoized on whole positions (a cache of
/// results, no pruning).
fn minimax(pos: &Position, memo: &mut HashMap<Position, i32>) -> i32 {
    // Small subtrees are cheaper to walk again than to look up.
    let cached = pos.empty().count_ones() >= 7;
    if cached {
        if let Some(&v) = memo.get(pos) {
            return v;
        }
    }
    let turns = pos.legal_turns();
    let v = if turns.is_empty() {
        pos.black_margin()
    } else {
        let vals = turns
            .iter()
            .map(|&t| minimax(&pos.apply(t).expect("legal turn"), memo));
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
