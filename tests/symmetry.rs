//! Symmetric images of a position have the same perft and share one canonical form.

mod common;

use common::Rng;
use reversi_nxn::board::{Shape, Symmetry};
use reversi_nxn::perft::{perft, PerftOptions};

#[test]
fn images_have_equal_perft_and_one_canonical_form() {
    let plain = PerftOptions {
        symmetry: false,
        hash_mb: 0,
    };
    let mut rng = Rng(99);
    for (rows, cols) in [(4, 4), (5, 5), (6, 6), (8, 8), (4, 6), (5, 3), (7, 8)] {
        let shape = Shape::new(rows, cols).unwrap();
        for _ in 0..6 {
            // A random position some plies into a game.
            let mut pos = shape.start();
            for _ in 0..rng.below(10) + 2 {
                let turns = pos.legal_turns();
                if turns.is_empty() {
                    break;
                }
                pos = pos.apply(turns[rng.below(turns.len())]).unwrap();
            }
            let expect = perft(&pos, 4, plain);
            let canon = pos.canonical();
            let syms = Symmetry::all(shape);
            assert_eq!(syms.len(), if rows == cols { 8 } else { 4 });
            for &sym in syms {
                let img = sym.apply_position(&pos);
                assert_eq!(img.disc_count(), pos.disc_count());
                assert_eq!(perft(&img, 4, plain), expect, "{sym:?} of {pos}");
                assert_eq!(img.canonical(), canon, "{sym:?} of {pos}");
                assert_eq!(
                    img.moves().count_ones(),
                    pos.moves().count_ones(),
                    "{sym:?} of {pos}"
                );
            }
        }
    }
}
