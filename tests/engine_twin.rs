//! The bitboard engine against its slow twin, the naive array board in `common::naive`, over
//! seeded random games on every square board and several rectangles.

mod common;

use common::naive::NaiveBoard;
use common::Rng;
use reversi_nxn::board::{Move, Position, Shape, Squares};

const BOARDS: &[(u32, u32)] = &[
    (3, 3),
    (4, 4),
    (5, 5),
    (6, 6),
    (7, 7),
    (8, 8),
    (3, 5),
    (5, 3),
    (4, 7),
    (6, 4),
    (5, 8),
    (8, 3),
    (7, 6),
];

/// The naive board's cells as (black, white) frame bitboards.
fn naive_bits(b: &NaiveBoard) -> (u64, u64) {
    let (mut black, mut white) = (0u64, 0u64);
    for r in 0..b.rows {
        for c in 0..b.cols {
            let bit = 1u64 << (8 * r + c);
            match b.cells[r][c] {
                1 => black |= bit,
                2 => white |= bit,
                _ => {}
            }
        }
    }
    (black, white)
}

fn assert_same(pos: &Position, naive: &NaiveBoard, ctx: &str) {
    assert_eq!(
        (pos.black(), pos.white()),
        naive_bits(naive),
        "discs differ: {ctx}"
    );
    assert_eq!(
        pos.black_to_move(),
        naive.to_move == 1,
        "side differs: {ctx}"
    );
    let bit_moves: Vec<u32> = Squares(pos.moves()).collect();
    let naive_moves: Vec<u32> = naive
        .moves()
        .iter()
        .map(|&(r, c)| 8 * r as u32 + c as u32)
        .collect();
    assert_eq!(bit_moves, naive_moves, "legal moves differ: {ctx}");
    assert_eq!(pos.is_over(), naive.is_over(), "end of game differs: {ctx}");
}

#[test]
fn random_games_agree_with_naive_board() {
    let mut rng = Rng(20261122);
    let mut games = 0;
    let mut passes = 0;
    for &(rows, cols) in BOARDS {
        let shape = Shape::new(rows, cols).unwrap();
        for g in 0..400 {
            let mut pos = shape.start();
            let mut naive = NaiveBoard::start(rows as usize, cols as usize);
            let mut ply = 0;
            loop {
                let ctx = format!("{rows}x{cols} game {g} ply {ply} at {pos}");
                assert_same(&pos, &naive, &ctx);
                let turns = pos.legal_turns();
                if turns.is_empty() {
                    break;
                }
                let t = turns[rng.below(turns.len())];
                match t {
                    Move::Pass => {
                        passes += 1;
                        naive.pass();
                    }
                    Move::Place(sq) => {
                        // The flips of the chosen move, square by square.
                        let (r, c) = ((sq / 8) as usize, (sq % 8) as usize);
                        let mut expect = 0u64;
                        for (fr, fc) in naive.flips_for(naive.to_move, r, c) {
                            expect |= 1u64 << (8 * fr + fc);
                        }
                        assert_eq!(
                            reversi_nxn::board::flips(pos.player(), pos.opponent(), sq),
                            expect,
                            "flips differ: {ctx} move {}",
                            pos.move_name(t)
                        );
                        naive.play(r, c);
                    }
                }
                pos = pos.apply(t).expect("a legal turn applies");
                ply += 1;
            }
            assert_eq!(
                (pos.black_count(), pos.white_count()),
                naive.score(),
                "final score differs on {rows}x{cols} game {g}"
            );
            games += 1;
        }
    }
    assert_eq!(games, 400 * BOARDS.len());
    assert!(passes > 0, "the random games should include forced passes");
}

#[test]
fn illegal_squares_are_refused_like_the_naive_board() {
    let mut rng = Rng(7);
    for &(rows, cols) in BOARDS {
        let shape = Shape::new(rows, cols).unwrap();
        let mut pos = shape.start();
        let mut naive = NaiveBoard::start(rows as usize, cols as usize);
        for _ in 0..20 {
            let moves = naive.moves();
            for r in 0..rows {
                for c in 0..cols {
                    let legal = moves.contains(&(r as usize, c as usize));
                    assert_eq!(pos.play(8 * r + c).is_some(), legal, "{rows}x{cols} {pos}");
                }
            }
            let turns = pos.legal_turns();
            if turns.is_empty() {
                break;
            }
            let t = turns[rng.below(turns.len())];
            pos = pos.apply(t).unwrap();
            match t {
                Move::Pass => naive.pass(),
                Move::Place(sq) => naive.play((sq / 8) as usize, (sq % 8) as usize),
            }
        }
        // Off-board squares are never playable.
        for sq in 0..64 {
            if !shape.contains(sq) {
                assert!(pos.play(sq).is_none());
            }
        }
    }
}

#[test]
fn perft_agrees_with_naive_perft() {
    use reversi_nxn::perft::{perft, PerftOptions};
    for &(rows, cols, depth) in &[
        (3u32, 3u32, 9u32),
        (4, 4, 9),
        (5, 5, 7),
        (6, 6, 6),
        (8, 8, 5),
        (3, 7, 8),
        (4, 6, 7),
    ] {
        let shape = Shape::new(rows, cols).unwrap();
        let naive = NaiveBoard::start(rows as usize, cols as usize);
        for d in 1..=depth {
            assert_eq!(
                perft(&shape.start(), d, PerftOptions::default()),
                u128::from(naive.perft(d)),
                "{rows}x{cols} depth {d}"
            );
        }
    }
}

/// `flips` and its AVX2 copy (where the CPU has AVX2) against the naive board's flips on random
/// boards filling the whole 8x8 frame (runs that reach the edge included), dense and sparse,
/// at every empty square.
#[test]
fn flips_agree_with_the_naive_board() {
    #[cfg(target_arch = "x86_64")]
    let avx2 = std::arch::is_x86_feature_detected!("avx2");
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut naive = NaiveBoard::start(8, 8);
    for _ in 0..20_000 {
        let (x, y) = (rng.next_u64(), rng.next_u64());
        let occupied = match x % 3 {
            0 => x | y,
            1 => x | y | x.rotate_left(11),
            _ => x & y | x.rotate_left(5),
        };
        let p = occupied & y.rotate_left(3);
        let o = occupied & !p;
        for sq in 0..64 {
            naive.cells[sq / 8][sq % 8] = (p >> sq & 1) as u8 | ((o >> sq & 1) as u8) << 1;
        }
        for sq in Squares(!occupied) {
            let mut want = 0u64;
            for (fr, fc) in naive.flips_for(1, (sq / 8) as usize, (sq % 8) as usize) {
                want |= 1u64 << (8 * fr + fc);
            }
            let ctx = format!("p {p:#x} o {o:#x} sq {sq}");
            assert_eq!(reversi_nxn::board::flips(p, o, sq), want, "{ctx}");
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: the CPU has AVX2 (checked above).
                let got = unsafe { reversi_nxn::board::flips_avx2(p, o, sq) };
                assert_eq!(got, want, "AVX2 copy: {ctx}");
            }
        }
    }
}
