//! The two counting methods agree, game counts and full score matrices, on every board of at
//! most 20 squares and on seeded random openings of 5x5 and 6x6 with at most 14 empty squares.

mod common;

use common::Rng;
use reversi_nxn::board::{Position, Shape};
use reversi_nxn::count::{count, CountOptions, CountReport, Method};
use reversi_nxn::progress::Silent;

fn run(pos: &Position, method: Method) -> CountReport {
    let opts = CountOptions {
        method,
        ..CountOptions::default()
    };
    count(pos, "", &opts, &Silent).unwrap()
}

fn agree(pos: &Position) -> u128 {
    let dp = run(pos, Method::Dp);
    let dfs = run(pos, Method::Dfs);
    assert_eq!(dp.games, dfs.games, "games on {pos}");
    assert_eq!(dp.score_matrix, dfs.score_matrix, "score matrix on {pos}");
    assert_eq!(dp.first_moves, dfs.first_moves, "first moves on {pos}");
    assert_eq!(dp.lengths, dfs.lengths, "lengths on {pos}");
    dp.games
}

#[test]
fn methods_agree_on_every_board_up_to_20_squares() {
    for (r, c) in [(3, 3), (3, 4), (3, 5), (3, 6), (4, 4), (4, 5)] {
        let a = agree(&Shape::new(r, c).unwrap().start());
        if r != c {
            // The transpose has the same counts.
            let b = agree(&Shape::new(c, r).unwrap().start());
            assert_eq!(a, b, "{r}x{c} and its transpose");
        }
    }
}

/// Plays random legal turns from the start until at most `empties` squares are empty (or the
/// game ends).
fn random_opening(shape: Shape, empties: u32, rng: &mut Rng) -> Position {
    let mut pos = shape.start();
    while pos.empty().count_ones() > empties {
        let turns = pos.legal_turns();
        if turns.is_empty() {
            break;
        }
        let t = turns[(rng.next_u64() % turns.len() as u64) as usize];
        pos = pos.apply(t).unwrap();
    }
    pos
}

#[test]
fn methods_agree_on_random_openings() {
    let mut rng = Rng(2024);
    for (n, empties, games) in [(5, 14, 6), (6, 13, 4)] {
        for _ in 0..games {
            let pos = random_opening(Shape::square(n).unwrap(), empties, &mut rng);
            assert!(pos.empty().count_ones() <= 14);
            agree(&pos);
        }
    }
}
