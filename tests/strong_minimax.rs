//! The strong tables against a slow twin: plain memoised minimax on raw positions, using only
//! `Position::legal_turns` and `Position::apply` (no symmetry, no pruning, no folding of passes).
//!
//! The default run checks every reachable position of 3x3, 4x4 and two rectangles. The 5x5
//! sample is `#[ignore]`d (it builds the 5x5 table, or loads it from `$REVERSI_STRONG_5X5`):
//! `cargo test --release --test strong_minimax -- --ignored`.

mod common;

use common::Rng;
use std::collections::{HashMap, HashSet};

use reversi_nxn::board::{Move, Position, Shape};
use reversi_nxn::count::{count, CountOptions};
use reversi_nxn::progress::Silent;
use reversi_nxn::strong::{build, StrongOptions, StrongReport, StrongTable};

/// Value (side to move minus the other side) and moves-to-end of `pos` by plain minimax, with
/// the table's tie rule: among the best moves, quickest end if the value is `>= 0`, else longest.
fn minimax(pos: Position, memo: &mut HashMap<Position, (i8, u8)>) -> (i8, u8) {
    if let Some(&r) = memo.get(&pos) {
        return r;
    }
    let turns = pos.legal_turns();
    let r = if turns.is_empty() {
        let margin = pos.player().count_ones() as i8 - pos.opponent().count_ones() as i8;
        (margin, 0)
    } else {
        let mut results = Vec::new();
        for t in turns {
            let child = pos.apply(t).expect("legal turn");
            let (cv, cm) = minimax(child, memo);
            let placed = u8::from(matches!(t, Move::Place(_)));
            results.push((-cv, cm + placed));
        }
        let best = results.iter().map(|r| r.0).max().expect("a move");
        let mtes = results.iter().filter(|r| r.0 == best).map(|r| r.1);
        let m = if best >= 0 {
            mtes.min().expect("a move")
        } else {
            mtes.max().expect("a move")
        };
        (best, m)
    };
    memo.insert(pos, r);
    r
}

/// Black minus white from the side to move's value.
fn black_value(pos: &Position, v: i8) -> i8 {
    if pos.black_to_move() {
        v
    } else {
        -v
    }
}

/// Checks every position reachable from the start against the table, and the counts.
fn check_all(shape: Shape) -> (StrongTable, StrongReport) {
    let (table, report) = build(shape, &StrongOptions::default(), &Silent).unwrap();
    let mut memo = HashMap::new();
    minimax(shape.start(), &mut memo);
    let mut raw = 0u64;
    let mut canonical = HashSet::new();
    let mut canonical_with_side = HashSet::new();
    let mut in_play = HashSet::new();
    for (pos, &(v, m)) in &memo {
        assert_eq!(
            table.value(pos),
            Some((black_value(pos, v), m)),
            "{} on {}",
            pos.to_board_string(),
            shape.name()
        );
        // Positions where a pass is forced are folded into the position after the pass.
        if pos.legal_turns() != [Move::Pass] {
            raw += 1;
            canonical.insert(pos.canonical());
            canonical_with_side.insert((pos.canonical(), pos.black_to_move()));
            if !pos.legal_turns().is_empty() {
                in_play.insert((pos.canonical(), pos.black_to_move()));
            }
        }
    }
    assert_eq!(report.positions, raw, "positions without symmetry");
    assert_eq!(report.canonical, canonical.len() as u64);
    assert_eq!(report.canonical_with_side, canonical_with_side.len() as u64);
    assert_eq!(report.in_play, in_play.len() as u64);
    assert_eq!(table.len() as u64, report.canonical);
    (table, report)
}

#[test]
fn strong_3x3_matches_minimax_everywhere() {
    let shape = Shape::square(3).unwrap();
    let (table, report) = check_all(shape);
    // blog 2008-07-03 ("Perfect Play"): on 3x3 the second player wins under perfect play.
    assert!(report.start_value < 0);
    assert!(table.value(&shape.start()).unwrap().0 < 0);
}

#[test]
fn strong_4x4_matches_minimax_everywhere() {
    let shape = Shape::square(4).unwrap();
    let (_, report) = check_all(shape);
    // blog 2008-07-03 ("Perfect Play"): on 4x4 the second player wins under perfect play.
    assert!(report.start_value < 0);
}

#[test]
fn strong_rectangles_match_minimax_everywhere() {
    for (r, c) in [(3, 4), (3, 5)] {
        check_all(Shape::new(r, c).unwrap());
    }
}

#[test]
#[ignore = "builds the 5x5 table (minutes, GiBs); run with --ignored"]
fn strong_5x5_matches_minimax_on_a_seeded_sample() {
    let shape = Shape::square(5).unwrap();
    let table = match std::env::var_os("REVERSI_STRONG_5X5") {
        Some(path) => StrongTable::load(std::path::Path::new(&path)).unwrap(),
        None => {
            let opts = StrongOptions { memory_mb: 16_000 };
            build(shape, &opts, &Silent).unwrap().0
        }
    };
    // blog 2008-07-14 ("Player 1 wins Reversi-5x5"): the first player wins 5x5.
    assert!(table.value(&shape.start()).unwrap().0 > 0);
    let mut rng = Rng(0x5eed_0005);
    let mut checked = 0;
    for _ in 0..300 {
        // A random game down to 13..=20 discs, then every position below it by minimax.
        let stop = 13 + (rng.next_u64() % 8) as u32;
        let mut pos = shape.start();
        while pos.disc_count() < stop {
            let turns = pos.legal_turns();
            if turns.is_empty() {
                break;
            }
            pos = pos
                .apply(turns[(rng.next_u64() % turns.len() as u64) as usize])
                .unwrap();
        }
        let mut memo = HashMap::new();
        minimax(pos, &mut memo);
        for (p, &(v, m)) in &memo {
            assert_eq!(
                table.value(p),
                Some((black_value(p, v), m)),
                "{}",
                p.to_board_string()
            );
            checked += 1;
        }
    }
    assert!(checked > 10_000, "only {checked} positions checked");
}

#[test]
#[ignore = "about a minute; run with --ignored"]
fn strong_4x5_matches_minimax_everywhere() {
    check_all(Shape::new(4, 5).unwrap());
}

/// `count` and `strong` name the same positions the same way: count's positions per layer
/// (dp's layers: the side to move counted, merged by symmetry, passes folded, ended games
/// tallied rather than held) are strong's "in play" column, layer by layer after the start.
#[test]
fn count_and_strong_count_the_same_positions() {
    for (r, c) in [(3, 3), (3, 4), (4, 4), (3, 5), (4, 5), (3, 6)] {
        let shape = Shape::new(r, c).unwrap();
        let (_, report) = build(shape, &StrongOptions::default(), &Silent).unwrap();
        let counted = count(&shape.start(), "", &CountOptions::default(), &Silent).unwrap();
        let dp: Vec<(u32, u64)> = counted
            .positions_per_layer
            .expect("dp reports its layers")
            .iter()
            .map(|l| (l.discs, l.positions))
            .collect();
        let strong: Vec<(u32, u64)> = report
            .layers
            .iter()
            .skip(1)
            .filter(|l| l.in_play > 0)
            .map(|l| (l.discs, l.in_play))
            .collect();
        assert_eq!(dp, strong, "{r}x{c}");
        assert_eq!(report.layers[0].in_play, 1, "the start");
    }
}
