//! Published figures (tests/data/perft.txt, sources cited there) and the blog's facts about
//! short games, computed by the engine.

use reversi_nxn::board::{Position, Shape};
use reversi_nxn::perft::{perft, perft_table, PerftOptions, PerftReport};
use reversi_nxn::progress::Silent;

fn start_after(board: &str, moves: &str) -> Position {
    let (r, c) = board.split_once('x').expect("board like 8x8");
    let shape = Shape::new(r.parse().unwrap(), c.parse().unwrap()).unwrap();
    let start = shape.start();
    match moves {
        "-" => start,
        "first" => start.apply(start.legal_turns()[0]).unwrap(),
        m => start.after_moves(m).unwrap().0,
    }
}

/// The table to the end of every game (no board here lasts 64 plies).
fn whole_game_table(pos: &Position) -> PerftReport {
    perft_table(pos, 64, PerftOptions::default(), &Silent)
}

fn total_games(report: &PerftReport) -> u128 {
    report.plies.iter().map(|r| r.ended.unwrap()).sum()
}

#[test]
fn published_figures() {
    let data = include_str!("data/perft.txt");
    let mut checked = 0;
    for line in data
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        let pos = start_after(f[1], f[2]);
        match f[0] {
            "perft" => {
                let ply: u32 = f[3].parse().unwrap();
                let games: u128 = f[4].parse().unwrap();
                assert_eq!(perft(&pos, ply, PerftOptions::default()), games, "{line}");
                let plain = PerftOptions {
                    symmetry: false,
                    hash_mb: 0,
                };
                assert_eq!(
                    perft(&pos, ply, plain),
                    games,
                    "{line} (no symmetry, no table)"
                );
            }
            "games" => {
                let total: u128 = f[3].parse().unwrap();
                assert_eq!(total_games(&whole_game_table(&pos)), total, "{line}");
            }
            other => panic!("unknown kind {other} in tests/data/perft.txt"),
        }
        checked += 1;
    }
    assert_eq!(checked, 11);
}

#[test]
fn three_by_three_games_are_all_won_by_white() {
    // reversi-nxn blog, 2008-04-19: all 8 games (after the fixed first move) are won by player 2.
    let report = whole_game_table(&start_after("3x3", "first"));
    let mut games = 0;
    for row in &report.plies {
        for s in &row.ended_scores {
            assert!(s.white > s.black, "3x3 game ending {}:{}", s.black, s.white);
            games += s.games;
        }
    }
    assert_eq!(games, 8);
}

#[test]
fn four_by_four_has_one_nine_to_one_game() {
    // reversi-nxn blog, 2008-04-19: exactly one of the 15,015 games ends 9:1 for black.
    let report = whole_game_table(&start_after("4x4", "first"));
    let nine_one: u128 = report
        .plies
        .iter()
        .flat_map(|r| &r.ended_scores)
        .filter(|s| (s.black, s.white) == (9, 1))
        .map(|s| s.games)
        .sum();
    assert_eq!(nine_one, 1);
}

#[test]
fn shortest_games_on_large_boards_end_13_to_0_after_9_placements() {
    // reversi-nxn blog, 2008-08-05 (7x7 and larger) and its 6x6 short-games plot: the shortest
    // games have 9 placements and end 13:0.
    for n in [6, 7, 8] {
        let report = perft_table(
            &start_after(&format!("{n}x{n}"), "-"),
            9,
            PerftOptions::default(),
            &Silent,
        );
        for row in &report.plies[..8] {
            assert_eq!(
                row.ended,
                Some(0),
                "{n}x{n}: a game ended at ply {}",
                row.ply
            );
        }
        let ninth = &report.plies[8];
        assert!(ninth.ended.unwrap() > 0, "{n}x{n}: no game ends at ply 9");
        if n >= 7 {
            assert!(ninth
                .ended_scores
                .iter()
                .all(|s| (s.black, s.white) == (13, 0)));
        } else {
            assert!(ninth
                .ended_scores
                .iter()
                .any(|s| (s.black, s.white) == (13, 0)));
        }
    }
}
