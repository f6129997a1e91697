//! The slow twin of the game counts: a plain recursion over `Position::legal_turns`/`apply`,
//! with no bitboard tricks, no merging and no parallelism, checked against both methods.

use std::collections::BTreeMap;

use reversi_nxn::board::{Position, Shape};
use reversi_nxn::count::{count, CountOptions, Method};
use reversi_nxn::progress::Silent;

/// Final scores `(black, white)` of every game from `pos`, counted one game at a time.
fn enumerate(pos: &Position, tally: &mut BTreeMap<(u32, u32), u128>) {
    let turns = pos.legal_turns();
    if turns.is_empty() {
        *tally
            .entry((pos.black_count(), pos.white_count()))
            .or_insert(0) += 1;
        return;
    }
    for t in turns {
        enumerate(&pos.apply(t).expect("legal"), tally);
    }
}

fn matrix_as_map(m: &[Vec<u128>]) -> BTreeMap<(u32, u32), u128> {
    let mut out = BTreeMap::new();
    for (b, row) in m.iter().enumerate() {
        for (w, &n) in row.iter().enumerate() {
            if n > 0 {
                out.insert((b as u32, w as u32), n);
            }
        }
    }
    out
}

fn check(pos: Position) {
    let mut slow = BTreeMap::new();
    enumerate(&pos, &mut slow);
    for method in [Method::Dp, Method::Dfs] {
        for symmetry in [true, false] {
            let opts = CountOptions {
                method,
                symmetry,
                ..CountOptions::default()
            };
            let r = count(&pos, "", &opts, &Silent).unwrap();
            assert_eq!(
                matrix_as_map(&r.score_matrix),
                slow,
                "{method:?} symmetry {symmetry} on {}",
                pos
            );
            assert_eq!(r.games, slow.values().sum::<u128>());
        }
    }
}

#[test]
fn twin_agrees_on_small_boards() {
    for (r, c) in [(3, 3), (3, 4), (4, 3), (4, 4), (3, 5), (5, 3)] {
        check(Shape::new(r, c).unwrap().start());
    }
}

#[test]
fn twin_agrees_after_openings() {
    let shape = Shape::new(4, 5).unwrap();
    let start = shape.start();
    for first in start.legal_turns() {
        let p = start.apply(first).unwrap();
        for second in p.legal_turns() {
            check(p.apply(second).unwrap());
        }
    }
    // 5x5 after eight turns (always the last legal one): small enough for the slow twin.
    let mut p = Shape::square(5).unwrap().start();
    for _ in 0..8 {
        let t = *p.legal_turns().last().unwrap();
        p = p.apply(t).unwrap();
    }
    check(p);
}
