//! The two counting methods agree, game counts and full score matrices, on every board of at
//! most 20 squares and on seeded random openings of 5x5 and 6x6 with at most 14 empty squares.

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

/// splitmix64: a tiny deterministic generator, so the openings are the same on every run.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Plays random legal turns from the start until at most `empties` squares are empty (or the
/// game ends).
fn random_opening(shape: Shape, empties: u32, rng: &mut SplitMix) -> Position {
    let mut pos = shape.start();
    while pos.empty().count_ones() > empties {
        let turns = pos.legal_turns();
        if turns.is_empty() {
            break;
        }
        let t = turns[(rng.next() % turns.len() as u64) as usize];
        pos = pos.apply(t).unwrap();
    }
    pos
}

#[test]
fn methods_agree_on_random_openings() {
    let mut rng = SplitMix(2024);
    for (n, empties, games) in [(5, 14, 6), (6, 13, 4)] {
        for _ in 0..games {
            let pos = random_opening(Shape::square(n).unwrap(), empties, &mut rng);
            assert!(pos.empty().count_ones() <= 14);
            agree(&pos);
        }
    }
}
