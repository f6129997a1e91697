//! Perfect play against the published results (/work/shared/REFERENCE.md, "Perfect play"), the
//! principal variations replayed, and the same values for one and two threads.
//!
//! The 6x6 solve takes minutes: `cargo test --release --test solve_reference -- --ignored`.

use reversi_nxn::board::{Position, Shape, Side};
use reversi_nxn::progress::Silent;
use reversi_nxn::solve::{SolveOptions, SolveReport, Solver, Tuning};

fn solve(shape: Shape) -> SolveReport {
    let mut solver = Solver::new(64);
    solver.solve(&shape.start(), &SolveOptions::default(), &Silent)
}

/// The principal variation replays legally from the start to the stated value and final score,
/// and the best moves listed have the root's value.
fn check_pv(r: &SolveReport) {
    let mut pos = r.position;
    for &m in &r.pv {
        pos = pos.apply(m).expect("the principal variation is legal");
    }
    assert!(pos.is_over());
    assert_eq!(pos.black_margin(), r.value);
    assert_eq!((pos.black_count(), pos.white_count()), r.final_score);
    let best = r.best_moves();
    assert!(!best.is_empty());
    assert_eq!(Some(&r.pv[0]), best.first());
}

#[test]
fn three_by_three_second_player_wins() {
    // Blog, 2008-07-03: on 3x3 the second player wins.
    let r = solve(Shape::square(3).unwrap());
    assert_eq!(r.winner, Some(Side::White));
    check_pv(&r);
}

#[test]
fn four_by_four_second_player_wins() {
    // Blog, 2008-07-03; widely reported: on 4x4 the second player wins.
    let r = solve(Shape::square(4).unwrap());
    assert_eq!(r.winner, Some(Side::White));
    check_pv(&r);
}

#[test]
fn five_by_five_first_player_wins() {
    // Blog, 2008-07-14: on 5x5 (off-centre start) the first player wins.
    let r = solve(Shape::square(5).unwrap());
    assert_eq!(r.winner, Some(Side::Black));
    check_pv(&r);
    // The symmetric first moves (c2 ~ b3, e4 ~ d5; REFERENCE.md) have equal values.
    let v: Vec<i32> = r.move_values.iter().map(|&(_, v)| v).collect();
    assert_eq!(v.len(), 4);
    assert_eq!(v[0], v[1]);
    assert_eq!(v[2], v[3]);
}

#[test]
#[ignore = "minutes: cargo test --release --test solve_reference -- --ignored"]
fn six_by_six_white_wins_20_16() {
    // J. Feinstein, 1993: on 6x6 white wins 20-16 under perfect play (black's margin -4).
    let mut solver = Solver::new(1024);
    let start = Shape::square(6).unwrap().start();
    let r = solver.solve(&start, &SolveOptions::default(), &Silent);
    assert_eq!(r.value, -4);
    assert_eq!(r.winner, Some(Side::White));
    check_pv(&r);
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

#[test]
fn one_and_two_threads_agree() {
    let five = Shape::square(5).unwrap();
    let six = Shape::square(6).unwrap();
    let mut positions: Vec<Position> = vec![five.start()];
    for line in [
        "c2 b4 e5 e4 f5 f6 e6 d6 d5 f4",
        "c2 b2 a2 a1 b3 d2 b1 c1 d1 e1",
    ] {
        positions.push(six.start().after_moves(line).unwrap().0);
    }
    positions.push(Shape::new(4, 6).unwrap().start());
    // Split even small nodes, so the parallel path is exercised hard.
    let opts = SolveOptions {
        tuning: Tuning {
            split_empties: 8,
            ..Tuning::default()
        },
        ..SolveOptions::default()
    };
    for pos in &positions {
        let one = in_pool(1, || Solver::new(32).solve(pos, &opts, &Silent));
        let two = in_pool(2, || Solver::new(32).solve(pos, &opts, &Silent));
        assert_eq!(one.threads, 1);
        assert_eq!(two.threads, 2);
        assert_eq!(one.value, two.value, "{pos}");
        assert_eq!(one.move_values, two.move_values, "{pos}");
        assert_eq!(one.pv, two.pv, "{pos}");
        check_pv(&two);
    }
}

#[test]
fn every_technique_off_gives_the_same_values() {
    let pos = Shape::new(4, 5).unwrap().start();
    let base = Solver::new(8).solve(&pos, &SolveOptions::default(), &Silent);
    let d = Tuning::default();
    let variants = [
        Tuning { table: false, ..d },
        Tuning {
            symmetry_empties: 0,
            ..d
        },
        Tuning {
            symmetry_empties: u32::MAX,
            ..d
        },
        Tuning {
            etc_empties: u32::MAX,
            ..d
        },
        Tuning {
            ordering: false,
            ..d
        },
        Tuning {
            potential: false,
            ..d
        },
        Tuning {
            corner_squares: false,
            ..d
        },
        Tuning {
            edge_stability: false,
            ..d
        },
        Tuning {
            own_mobility: false,
            ..d
        },
        Tuning {
            stable_order_empties: u32::MAX,
            ..d
        },
        Tuning {
            hash_move: false,
            ..d
        },
        Tuning {
            table_ordering: false,
            ..d
        },
        Tuning {
            endgame_empties: 0,
            ..d
        },
        Tuning {
            split_empties: u32::MAX,
            ..d
        },
        Tuning { mtdf: false, ..d },
        Tuning {
            stability_empties: u32::MAX,
            ..d
        },
        Tuning {
            stability_empties: 0,
            ..d
        },
        Tuning {
            guess_nodes: 0,
            ..d
        },
        Tuning {
            guess_all: true,
            ..d
        },
        Tuning {
            stable_eval: false,
            ..d
        },
        Tuning {
            pv_null_window: false,
            ..d
        },
        Tuning {
            prefetch: false,
            ..d
        },
        Tuning {
            guess_scale: false,
            ..d
        },
    ];
    for tuning in variants {
        let r = Solver::new(8).solve(
            &pos,
            &SolveOptions {
                tuning,
                ..SolveOptions::default()
            },
            &Silent,
        );
        assert_eq!(r.value, base.value, "{tuning:?}");
        assert_eq!(r.move_values, base.move_values, "{tuning:?}");
        assert_eq!(r.pv, base.pv, "{tuning:?}");
    }
}

#[test]
fn both_pv_rules_replay_to_the_value() {
    // The PV rule (fixed shallow-search order, or row-major order with `pv_order` off) picks
    // among moves that keep the value, so both PVs replay to it; the root move is the first
    // best one in row-major order either way.
    let six = Shape::square(6).unwrap();
    let mut positions = vec![
        Shape::square(5).unwrap().start(),
        Shape::new(4, 5).unwrap().start(),
    ];
    positions.push(
        six.start()
            .after_moves("c2 b4 e5 e4 f5 f6 e6 d6 d5 f4")
            .unwrap()
            .0,
    );
    for pos in &positions {
        let d = Tuning::default();
        let ordered = Solver::new(16).solve(
            pos,
            &SolveOptions {
                tuning: d,
                ..SolveOptions::default()
            },
            &Silent,
        );
        let row_major = Tuning {
            pv_order: false,
            ..d
        };
        let plain = Solver::new(16).solve(
            pos,
            &SolveOptions {
                tuning: row_major,
                ..SolveOptions::default()
            },
            &Silent,
        );
        assert_eq!(ordered.value, plain.value, "{pos}");
        assert_eq!(ordered.move_values, plain.move_values, "{pos}");
        check_pv(&ordered);
        check_pv(&plain);
    }
}

#[test]
fn transposed_boards_have_the_same_value() {
    // R x C and C x R starts are mirror images in the main diagonal (the start block rule acts
    // on each axis alone), so results/ keeps R <= C only; this checks that on small boards.
    for (r, c) in [(3, 4), (3, 5), (3, 6), (4, 5), (4, 6)] {
        let a = solve(Shape::new(r, c).unwrap());
        let b = solve(Shape::new(c, r).unwrap());
        assert_eq!(a.value, b.value, "{r}x{c}");
        let mut va: Vec<i32> = a.move_values.iter().map(|&(_, v)| v).collect();
        let mut vb: Vec<i32> = b.move_values.iter().map(|&(_, v)| v).collect();
        va.sort_unstable();
        vb.sort_unstable();
        assert_eq!(va, vb, "{r}x{c}");
    }
}
