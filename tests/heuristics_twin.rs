//! The heuristic audit against a slow twin: plain minimax values on raw positions, positions
//! deduplicated by `Position::canonical`, the `random` and `greedy` rows recomputed directly.

use std::collections::{HashMap, HashSet};

use reversi_nxn::board::{flips, Move, Position, Shape};
use reversi_nxn::heuristics::audit;
use reversi_nxn::progress::Silent;
use reversi_nxn::strong::{build, StrongOptions};

/// Value of `pos` for the side to move by plain memoised minimax.
fn minimax(pos: Position, memo: &mut HashMap<Position, i32>) -> i32 {
    if let Some(&v) = memo.get(&pos) {
        return v;
    }
    let turns = pos.legal_turns();
    let v = if turns.is_empty() {
        pos.player().count_ones() as i32 - pos.opponent().count_ones() as i32
    } else {
        turns
            .iter()
            .map(|&t| -minimax(pos.apply(t).unwrap(), memo))
            .max()
            .unwrap()
    };
    memo.insert(pos, v);
    v
}

fn twin(shape: Shape) -> (u64, f64, f64, f64, f64) {
    let mut memo = HashMap::new();
    minimax(shape.start(), &mut memo);
    let all: Vec<Position> = memo.keys().copied().collect();
    let mut seen = HashSet::new();
    let (mut n, mut random_perfect, mut greedy_perfect) = (0u64, 0f64, 0f64);
    let (mut random_loss, mut greedy_loss) = (0f64, 0f64);
    for pos in all {
        let places: Vec<u32> = pos
            .legal_turns()
            .into_iter()
            .filter_map(|t| match t {
                Move::Place(sq) => Some(sq),
                Move::Pass => None,
            })
            .collect();
        if places.len() < 2 || !seen.insert(pos.canonical()) {
            continue;
        }
        n += 1;
        let vals: Vec<i32> = places
            .iter()
            .map(|&sq| -minimax(pos.play(sq).unwrap(), &mut memo))
            .collect();
        let best = *vals.iter().max().unwrap();
        let k = places.len() as f64;
        random_perfect += vals.iter().filter(|&&v| v == best).count() as f64 / k;
        random_loss += vals.iter().map(|&v| f64::from(best - v)).sum::<f64>() / k;
        let f: Vec<u32> = places
            .iter()
            .map(|&sq| flips(pos.player(), pos.opponent(), sq).count_ones())
            .collect();
        let top = *f.iter().max().unwrap();
        let picks: Vec<i32> = (0..places.len())
            .filter(|&i| f[i] == top)
            .map(|i| vals[i])
            .collect();
        let kp = picks.len() as f64;
        greedy_perfect += picks.iter().filter(|&&v| v == best).count() as f64 / kp;
        greedy_loss += picks.iter().map(|&v| f64::from(best - v)).sum::<f64>() / kp;
    }
    let nf = n as f64;
    (
        n,
        random_perfect / nf,
        random_loss / nf,
        greedy_perfect / nf,
        greedy_loss / nf,
    )
}

#[test]
fn audit_matches_the_twin_on_small_boards() {
    for shape in [
        Shape::square(3).unwrap(),
        Shape::square(4).unwrap(),
        Shape::new(3, 5).unwrap(),
    ] {
        let (table, _) = build(shape, &StrongOptions::default(), &Silent).unwrap();
        let report = audit(&table, &Silent);
        let (n, rp, rl, gp, gl) = twin(shape);
        assert_eq!(report.positions, n, "{}", shape.name());
        let row = |name: &str| report.rows.iter().find(|r| r.strategy == name).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(row("random").perfect_share, rp), "{}", shape.name());
        assert!(close(row("random").expected_loss, rl), "{}", shape.name());
        assert!(close(row("greedy").perfect_share, gp), "{}", shape.name());
        assert!(close(row("greedy").expected_loss, gl), "{}", shape.name());
    }
}
