//! Text formats round-trip: squares, move lists and board strings.

mod common;

use common::Rng;
use reversi_nxn::board::{parse_square, square_name, Move, Position, Shape};

#[test]
fn square_names_round_trip_on_every_board() {
    for rows in 3..=8 {
        for cols in 3..=8 {
            let shape = Shape::new(rows, cols).unwrap();
            for r in 0..rows {
                for c in 0..cols {
                    let sq = 8 * r + c;
                    assert_eq!(parse_square(&square_name(sq), shape).unwrap(), sq);
                    assert_eq!(
                        parse_square(&square_name(sq).to_uppercase(), shape).unwrap(),
                        sq
                    );
                }
            }
            assert!(parse_square(&format!("a{}", rows + 1), shape).is_err());
        }
    }
}

#[test]
fn games_and_boards_round_trip() {
    let mut rng = Rng(5);
    for (rows, cols) in [(4, 4), (5, 5), (8, 8), (3, 6), (6, 5)] {
        let shape = Shape::new(rows, cols).unwrap();
        for _ in 0..50 {
            let start = shape.start();
            let mut pos = start;
            let mut line: Vec<Move> = Vec::new();
            while !pos.legal_turns().is_empty() && rng.below(40) != 0 {
                let turns = pos.legal_turns();
                let t = turns[rng.below(turns.len())];
                line.push(t);
                pos = pos.apply(t).unwrap();
            }
            let names: Vec<String> = line.iter().map(|&t| start.move_name(t)).collect();
            // Joined, spaced, comma-separated, with `ps` for pass, with passes left out.
            // A pass at the very end is implied by nothing, so only inner passes may be left out.
            let inner_passes_only = line.last() != Some(&Move::Pass);
            for (i, text) in [
                names.concat(),
                names.join(" "),
                names.join(", "),
                names
                    .iter()
                    .map(|n| if n == "pass" { "ps" } else { n.as_str() })
                    .collect::<Vec<_>>()
                    .join(""),
                names
                    .iter()
                    .filter(|n| *n != "pass")
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" "),
            ]
            .into_iter()
            .enumerate()
            {
                if i == 4 && !inner_passes_only {
                    continue;
                }
                let (reached, played) = start.after_moves(&text).unwrap();
                assert_eq!(reached, pos, "{text}");
                assert_eq!(played, line, "{text}");
            }
            let s = pos.to_board_string();
            assert_eq!(Position::from_board_string(&s, Some(shape)).unwrap(), pos);
            // Alternative characters read the same.
            let alt: String = s
                .chars()
                .map(|c| match c {
                    'X' => 'b',
                    'O' => 'w',
                    '-' => '.',
                    c => c,
                })
                .collect();
            assert_eq!(Position::from_board_string(&alt, Some(shape)).unwrap(), pos);
        }
    }
}
