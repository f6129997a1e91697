//! Two independent methods agree: the retrograde strong solution (`strong`) and the alpha-beta
//! solver (`solve`), on the start and on sampled positions.

mod common;

use common::Rng;
use reversi_nxn::board::{Position, Shape};
use reversi_nxn::progress::Silent;
use reversi_nxn::solve::{SolveOptions, Solver};
use reversi_nxn::strong::{build, StrongOptions, StrongTable};

/// Black-relative value by the solver.
fn solved(solver: &mut Solver, pos: &Position) -> i32 {
    let v = solver.value(pos);
    if pos.black_to_move() {
        v
    } else {
        -v
    }
}

fn check_board(table: &StrongTable, games: usize, seed: u64) {
    let shape = table.shape();
    let mut solver = Solver::new(64);
    let start = shape.start();
    let report = solver.solve(&start, &SolveOptions::default(), &Silent);
    assert_eq!(
        i32::from(table.value(&start).unwrap().0),
        report.value,
        "{shape} start"
    );
    let mut rng = Rng(seed);
    for _ in 0..games {
        let mut pos = start;
        while !pos.is_over() {
            let (v, _) = table.value(&pos).expect("reachable position in the table");
            assert_eq!(i32::from(v), solved(&mut solver, &pos), "{shape} {pos}");
            let turns = pos.legal_turns();
            pos = pos.apply(turns[rng.below(turns.len())]).unwrap();
        }
    }
}

#[test]
fn strong_and_solve_agree_on_small_boards() {
    for (r, c, games) in [(4, 4, 100), (3, 6, 100), (4, 5, 40)] {
        let shape = Shape::new(r, c).unwrap();
        let (table, _) = build(shape, &StrongOptions::default(), &Silent).unwrap();
        check_board(&table, games, 11);
    }
}

#[test]
fn committed_5x5_strong_and_solve_results_agree() {
    // Both files were written by the tool: results/5x5/strong.json by `reversi strong -n 5`
    // (retrograde analysis), results/5x5/solution.json by `reversi solve -n 5 --save`.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/5x5");
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
    };
    let strong = read("strong.json");
    let solution = read("solution.json");
    assert_eq!(strong["start_value"], solution["value"]);
    // Every first move's value agrees too.
    for mv in solution["move_values"].as_array().unwrap() {
        let first = strong["first_moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["square"] == mv["move"])
            .unwrap_or_else(|| panic!("first move {} missing in strong.json", mv["move"]));
        assert_eq!(first["value"], mv["value"], "first move {}", mv["move"]);
    }
    // REFERENCE.md (blog 2008-07-14): the first player wins 5x5.
    assert!(solution["value"].as_i64().unwrap() > 0);
}

#[test]
#[ignore = "needs the 3.5 GB 5x5 table: REVERSI_STRONG_5X5=data/5x5/strong.bin"]
fn strong_5x5_agrees_with_solve_on_sampled_positions() {
    let path = std::env::var("REVERSI_STRONG_5X5").expect("REVERSI_STRONG_5X5");
    let table = StrongTable::load(std::path::Path::new(&path)).unwrap();
    check_board(&table, 50, 5);
}
