//! Tests of the pattern evaluation: layouts, indices and extraction against their twins,
//! symmetry, and the shipped files.

use super::weights::asset;
use super::*;
use crate::board::legal_moves;
use crate::board::{Position, Symmetry};
use crate::cpu::Cpu;
use crate::rng::Xoshiro256;

/// Boards the tests play on: squares, rectangles both ways round, the smallest and the
/// narrowest.
fn boards() -> Vec<Shape> {
    [
        (8, 8),
        (6, 6),
        (5, 7),
        (7, 5),
        (6, 7),
        (5, 8),
        (6, 8),
        (7, 7),
        (3, 3),
        (3, 8),
        (4, 6),
    ]
    .iter()
    .map(|&(r, c)| Shape::new(r, c).unwrap())
    .collect()
}

/// The positions of `games` random games on `shape`.
fn random_positions(shape: Shape, seed: u64, games: usize) -> Vec<Position> {
    let mut rng = Xoshiro256::from_seed(seed);
    let mut positions = Vec::new();
    for _ in 0..games {
        let mut pos = shape.start();
        while !pos.is_over() {
            positions.push(pos);
            let turns = pos.legal_turns();
            pos = pos
                .apply(turns[rng.below(turns.len() as u32) as usize])
                .unwrap();
        }
    }
    positions
}

/// The twin of [`indices`]: each instance's squares read by row and column from the
/// position's colours, the mover's discs as 1.
fn indices_by_squares(pos: &Position) -> Vec<usize> {
    let shape = pos.shape();
    let layout = layout(shape);
    let (mine, theirs) = (pos.player(), pos.opponent());
    layout
        .instances
        .iter()
        .map(|(k, squares)| {
            let digits: Vec<usize> = squares
                .iter()
                .map(|&sq| {
                    let bit = shape.bit(u32::from(sq / 8), u32::from(sq % 8));
                    if mine & bit != 0 {
                        1
                    } else if theirs & bit != 0 {
                        2
                    } else {
                        0
                    }
                })
                .collect();
            layout.offsets[*k] + digits.iter().fold(0, |acc, d| 3 * acc + d)
        })
        .collect()
}

/// Random weights for `shape`, in discs.
fn random_weights(shape: Shape, rng: &mut Xoshiro256) -> Vec<f64> {
    (0..layout(shape).len)
        .map(|_| f64::from(rng.below(2001)) / 100.0 - 10.0)
        .collect()
}

#[test]
fn layout_of_8x8_is_the_shipped_one() {
    let layout = layout(Shape::square(8).unwrap());
    let per_pattern: Vec<usize> = (0..layout.offsets.len())
        .map(|k| layout.instances.iter().filter(|(j, _)| *j == k).count())
        .collect();
    // Edges with X squares, 3x3 corner blocks, rows 2-4: four each; the 2x5 corner blocks
    // eight (each corner has two); the long diagonal two; the shorter ones four.
    assert_eq!(per_pattern, [4, 8, 4, 4, 4, 4, 2, 4, 4, 4]);
    assert_eq!(
        layout.len,
        2 * 59049 + 19683 + 4 * 6561 + 2187 + 729 + 243 + SCALARS,
        "weights"
    );
    // Each pattern's first instance in the order the shipped weights read it.
    let firsts: Vec<&[u8]> = (0..10)
        .map(|k| &layout.instances.iter().find(|(j, _)| *j == k).unwrap().1[..])
        .collect();
    assert_eq!(firsts[0], [0, 1, 2, 3, 4, 5, 6, 7, 9, 14]);
    assert_eq!(firsts[1], [0, 1, 2, 3, 4, 8, 9, 10, 11, 12]);
    assert_eq!(firsts[2], [0, 1, 2, 8, 9, 10, 16, 17, 18]);
    assert_eq!(firsts[5], [24, 25, 26, 27, 28, 29, 30, 31]);
    assert_eq!(firsts[9], [3, 12, 21, 30, 39]);
}

#[test]
fn every_board_has_its_patterns_inside_and_closed_under_its_symmetries() {
    for r in 3..=8 {
        for c in 3..=8 {
            let shape = Shape::new(r, c).unwrap();
            let layout = layout(shape);
            let set = |squares: &[u8]| squares.iter().fold(0u64, |m, &sq| m | 1 << sq);
            let sets: Vec<(usize, u64)> =
                layout.instances.iter().map(|(k, s)| (*k, set(s))).collect();
            for (k, squares) in &layout.instances {
                let m = set(squares);
                assert_eq!(m & !shape.mask(), 0, "{} outside", shape.name());
                assert_eq!(m.count_ones() as usize, squares.len(), "repeated square");
                assert!(squares.len() <= 10, "TERNARY reads at most 10 squares");
                for &sym in Symmetry::all(shape) {
                    let image = sym.apply(shape, m);
                    assert_eq!(
                        sets.iter().filter(|&&(_, s)| s == image).count(),
                        1,
                        "{}: image of an instance",
                        shape.name()
                    );
                    assert!(sets.contains(&(*k, image)), "image in another pattern");
                }
            }
            // Small enough to ship: at most 1 MiB of i16 weights.
            assert!(2 * layout.len < 1 << 20, "{}: {}", shape.name(), layout.len);
        }
    }
    // A rectangle's rows and columns are different patterns; the square's are one.
    let patterns = |r, c| layout(Shape::new(r, c).unwrap()).offsets.len();
    assert_eq!(patterns(6, 6), 8);
    assert!(patterns(5, 7) > patterns(6, 6));
}

/// [`Weights::evaluate_with`] run with one level's instructions on many positions.
struct EvaluateAll<'a> {
    weights: &'a Weights,
    positions: &'a [(u64, u64)],
}

impl crate::cpu::Job for EvaluateAll<'_> {
    type Output = Vec<i32>;
    fn run<C: Cpu>(self, cpu: C) -> Vec<i32> {
        let mask = self.weights.shape().mask();
        let mut out = Vec::new();
        for &(p, o) in self.positions {
            let empty = mask & !(p | o);
            let moves = legal_moves(p, o, empty);
            out.push(self.weights.evaluate_with(cpu, p, o, empty, moves));
        }
        out
    }
}

#[test]
fn instances_share_tables() {
    // The arrangement must not hold a table per instance, or the evaluation's tables
    // crowd the cache (the twin test below checks that the shared tables give the values).
    let shape = Shape::square(8).unwrap();
    let per_instance: usize = layout(shape)
        .instances
        .iter()
        .map(|(_, squares)| 3usize.pow(squares.len() as u32))
        .sum();
    let shared = shipped(shape).unwrap().extracted.table.len();
    assert!(3 * shared <= per_instance, "{shared} of {per_instance}");
}

#[test]
fn compress_gathers_as_pext() {
    // The gather without `pext` against the portable twin of `pext`, on the masks of every
    // board's instances, on masks at the frame's ends, and on random masks of any weight.
    let mut rng = Xoshiro256::from_seed(3);
    let mut masks = vec![
        0,
        u64::MAX,
        1,
        1 << 63,
        0x8000_0000_0000_0001,
        0xFF00,
        0x8181,
    ];
    for shape in boards() {
        for (_, squares) in &layout(shape).instances {
            masks.push(squares.iter().fold(0u64, |m, &sq| m | 1 << sq));
        }
    }
    for _ in 0..200 {
        let (a, b) = (rng.next(), rng.next());
        masks.extend([a, a & b, a & b & rng.next()]);
    }
    for &mask in &masks {
        let c = super::weights::Compress::new(mask, 0);
        for _ in 0..20 {
            let x = rng.next();
            assert_eq!(
                c.apply(x),
                crate::cpu::pext_portable(x, mask),
                "{mask:#x} {x:#x}"
            );
        }
        assert_eq!(c.apply(u64::MAX), crate::cpu::pext_portable(u64::MAX, mask));
    }
}

#[test]
fn extraction_evaluates_as_the_twin_at_every_level() {
    let mut rng = Xoshiro256::from_seed(5);
    for shape in boards() {
        let positions: Vec<(u64, u64)> = random_positions(shape, 5, 8)
            .iter()
            .map(|pos| (pos.player(), pos.opponent()))
            .collect();
        // Random weights as well as the shipped ones, so that a table entry put in the
        // wrong place shows even where the shipped weights are zero (configurations never
        // seen).
        let random = Weights::from_discs(shape, &random_weights(shape, &mut rng));
        for weights in shipped(shape).into_iter().chain([&random]) {
            let twin: Vec<i32> = positions
                .iter()
                .map(|&(p, o)| weights.evaluate(p, o, shape.mask() & !(p | o)))
                .collect();
            assert!(twin.iter().any(|&v| v != twin[0]));
            // Both gathers, `pext` and the shifts, whichever this CPU would use.
            for by_pext in [false, true] {
                let mut weights = weights.clone();
                weights.extracted.by_pext = by_pext;
                for level in crate::cpu::levels() {
                    let job = EvaluateAll {
                        weights: &weights,
                        positions: &positions,
                    };
                    let got = crate::cpu::run_at(level, job);
                    assert_eq!(got, twin, "{} {level:?} by pext {by_pext}", shape.name());
                }
            }
        }
    }
}

#[test]
fn indices_match_the_twin_on_random_games() {
    for shape in boards() {
        for pos in random_positions(shape, 3, 10) {
            let mut fast = Vec::new();
            indices(shape, pos.player(), pos.opponent(), &mut fast);
            assert_eq!(fast, indices_by_squares(&pos), "{pos}");
        }
    }
}

#[test]
fn symmetric_weights_evaluate_symmetric_images_alike() {
    // Random weights made symmetric on every test board, and the shipped weights of every
    // board but 8x8 (fitted before weights were made symmetric): each symmetric image of
    // a position has the position's value.
    let mut rng = Xoshiro256::from_seed(11);
    for shape in boards() {
        let mut w = random_weights(shape, &mut rng);
        symmetrize(shape, &mut w);
        let random = Weights::from_discs(shape, &w);
        let trained = shipped(shape).filter(|_| shape.squares() != 64);
        for weights in trained.into_iter().chain([&random]) {
            for pos in random_positions(shape, 13, 4) {
                let v = weights.evaluate(pos.player(), pos.opponent(), pos.empty());
                for &sym in Symmetry::all(shape) {
                    let image = sym.apply_position(&pos);
                    let e = image.empty();
                    assert_eq!(
                        weights.evaluate(image.player(), image.opponent(), e),
                        v,
                        "{} {sym:?} {pos}",
                        shape.name()
                    );
                }
            }
        }
    }
}

#[test]
fn shipped_weights_load_for_their_boards_only() {
    for r in 3..=8 {
        for c in 3..=8 {
            let shape = Shape::new(r, c).unwrap();
            assert_eq!(shipped(shape).is_some(), asset(shape).is_some());
            if let Some(w) = shipped(shape) {
                assert_eq!(w.shape(), shape);
                assert_eq!(w.to_bytes(), asset(shape).unwrap());
            }
        }
    }
    assert!(shipped(Shape::square(8).unwrap()).is_some());
}

#[test]
fn file_format_round_trips_and_rejects_bad_files() {
    for shape in [Shape::square(8).unwrap(), Shape::new(5, 7).unwrap()] {
        let len = layout(shape).len;
        let values: Vec<f64> = (0..len).map(|i| (i % 7) as f64 - 3.0).collect();
        let w = Weights::from_discs(shape, &values);
        assert_eq!(Weights::from_bytes(shape, &w.to_bytes()).unwrap(), w);
        assert!(Weights::from_bytes(shape, b"RVPAT8v1").is_err());
        let mut short = w.to_bytes();
        short.pop();
        assert!(Weights::from_bytes(shape, &short).is_err());
    }
    // Another board's weights do not load.
    let six = Weights::from_discs(
        Shape::square(6).unwrap(),
        &vec![0.0; layout(Shape::square(6).unwrap()).len],
    );
    assert!(Weights::from_bytes(Shape::new(5, 7).unwrap(), &six.to_bytes()).is_err());
}

#[test]
fn shipped_weights_parse_and_prefer_corners() {
    // A position with a corner for the mover evaluates above its colour-swapped twin.
    let w = shipped(Shape::square(8).unwrap()).unwrap();
    let shape = Shape::square(8).unwrap();
    let pos = Position::from_board_string(
        "X-------\
         --------\
         --OOO---\
         ---XO---\
         ---OX---\
         --------\
         --------\
         -------- X",
        Some(shape),
    )
    .unwrap();
    let (p, o) = (pos.player(), pos.opponent());
    let empty = pos.empty();
    assert!(w.evaluate(p, o, empty) > w.evaluate(o, p, empty));
}
