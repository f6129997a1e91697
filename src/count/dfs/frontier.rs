//! The frontier: the first plies expanded breadth-first and merged, each position with the paths
//! into it from every first-move class.
//!
//! Below `mod.rs` and `checkpoint.rs`, which both use its [`Task`].

use std::collections::HashMap;

use super::walk;
use crate::board::{Position, Squares};
use crate::count::{class_key, normalize, Class};

/// One frontier subtree: a position with a move to make, and the paths into it per class.
#[derive(Debug, Clone)]
pub(crate) struct Task {
    pub pos: Position,
    pub weights: Vec<u128>,
}

/// Expands the classes ply by ply until the frontier holds `target` positions (or the games
/// end), tallying ended games into `matrices`. The order is fixed (sorted by key). `None` if
/// `stop` answered yes (asked every 4,096 positions expanded).
pub(super) fn frontier(
    classes: &[Class],
    symmetry: bool,
    target: usize,
    matrices: &mut [Vec<u128>],
    stride: usize,
    stop: walk::StopCheck,
) -> Option<Vec<Task>> {
    let k = classes.len();
    let mut level: Vec<Task> = classes
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut weights = vec![0; k];
            weights[i] = 1;
            Task {
                pos: c.pos,
                weights,
            }
        })
        .collect();
    while !level.is_empty() && level.len() < target {
        let mut next: HashMap<(u64, u64, bool), Task> = HashMap::new();
        for (n, t) in level.iter().enumerate() {
            if n % 4096 == 0 && stop() {
                return None;
            }
            for sq in Squares(t.pos.moves()) {
                let child = t.pos.play(sq).expect("legal move");
                match normalize(child) {
                    None => {
                        let idx =
                            child.black_count() as usize * stride + child.white_count() as usize;
                        for (m, &w) in matrices.iter_mut().zip(&t.weights) {
                            m[idx] += w;
                        }
                    }
                    Some(c) => {
                        let e = next.entry(class_key(&c, symmetry)).or_insert(Task {
                            pos: c,
                            weights: vec![0; k],
                        });
                        for (a, &b) in e.weights.iter_mut().zip(&t.weights) {
                            *a += b;
                        }
                    }
                }
            }
        }
        let mut tasks: Vec<((u64, u64, bool), Task)> = next.into_iter().collect();
        tasks.sort_by_key(|(key, _)| *key);
        level = tasks.into_iter().map(|(_, t)| t).collect();
    }
    Some(level)
}
