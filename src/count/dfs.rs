//! Depth-first enumeration of every game, in parallel over the subtrees of a merged frontier.
//!
//! The first plies are expanded breadth-first into a *frontier* of positions merged up to
//! symmetry (same colour to move), each with the number of paths from every first-move class
//! into it. The frontier's subtrees then run on rayon's work-stealing pool; a subtree's games are
//! tallied into a `u64` score matrix allocated once per subtree (a subtree of more than 2^64
//! games would take centuries), so the recursion allocates nothing. The last placement is handled
//! in bulk: with one empty square left, the game's end is decided by two flip tests instead of a
//! full move generation.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use super::checkpoint::DfsCheckpoint;
use super::{add_scaled, class_key, normalize, Class, CountError, CountOptions, MethodResult};
use crate::board::{flips, legal_moves, Position, Squares};
use crate::progress::Progress;

/// Frontier size to aim for, fixed (not per thread) so that a checkpoint taken with one thread
/// count resumes with another. At ~10^4 subtrees, the last ones are small enough that both
/// cores stay busy to the end.
const FRONTIER_TARGET: usize = 4096;

/// One frontier subtree: a position with a move to make, and the paths into it per class.
#[derive(Debug, Clone)]
pub(crate) struct Task {
    pub pos: Position,
    pub weights: Vec<u128>,
}

/// Runs the enumeration for each class.
pub(crate) fn run(
    root: &Position,
    classes: &[Class],
    opts: &CountOptions,
    progress: &dyn Progress,
) -> Result<MethodResult, CountError> {
    let shape = root.shape();
    let stride = shape.squares() as usize + 1;
    let k = classes.len();
    let mut matrices = vec![vec![0u128; stride * stride]; k];
    let tasks = frontier(classes, opts.symmetry, &mut matrices, stride);

    let mut cp = match &opts.checkpoint {
        Some(path) => DfsCheckpoint::open(path, root, &tasks, opts.resume)?,
        None => DfsCheckpoint::none(root, &tasks),
    };
    let resumed_units = cp.done_count() as u64;
    let todo: Vec<usize> = (0..tasks.len()).filter(|&i| !cp.is_done(i)).collect();
    let total = tasks.len() as u64;
    progress.start("dfs", total);
    progress.advance(resumed_units);
    let finished = AtomicU64::new(0);
    let stopped = std::sync::atomic::AtomicBool::new(false);
    let shared = Mutex::new(&mut cp);
    todo.par_iter().for_each(|&i| {
        let limit_hit = opts
            .stop_after
            .is_some_and(|n| finished.load(Ordering::Relaxed) >= n);
        if stopped.load(Ordering::Relaxed) || limit_hit || progress.should_stop() {
            stopped.store(true, Ordering::Relaxed);
            return;
        }
        let tally = subtree(&tasks[i].pos, stride);
        finished.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut guard) = shared.lock() {
            guard.record(i, &tally);
        }
        progress.advance(1);
    });
    progress.finish();
    let cp = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    if stopped.load(Ordering::Relaxed) {
        let saved = cp.save()?;
        return Err(CountError::Interrupted {
            done: cp.done_count() as u64,
            total,
            unit: "subtrees",
            saved,
        });
    }
    for (i, t) in tasks.iter().enumerate() {
        let tally = cp.tally(i).expect("every subtree is done");
        for (c, &w) in t.weights.iter().enumerate() {
            if w > 0 {
                add_scaled(&mut matrices[c], &tally, w);
            }
        }
    }
    cp.remove();
    Ok(MethodResult {
        matrices,
        layers: None,
        peak_layer_mb: None,
        resumed_units,
    })
}

/// Expands the classes ply by ply until the frontier holds [`FRONTIER_TARGET`] positions (or
/// the games end), tallying ended games into `matrices`. The order is fixed (sorted by key).
fn frontier(
    classes: &[Class],
    symmetry: bool,
    matrices: &mut [Vec<u128>],
    stride: usize,
) -> Vec<Task> {
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
    while !level.is_empty() && level.len() < FRONTIER_TARGET {
        let mut next: HashMap<(u64, u64, bool), Task> = HashMap::new();
        for t in &level {
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
    level
}

/// The score tally of every game below `pos` (whose side to move has a move).
#[must_use]
pub(crate) fn subtree(pos: &Position, stride: usize) -> Vec<u64> {
    let mut tally = vec![0u64; stride * stride];
    let empty = pos.empty();
    walk(
        pos.player(),
        pos.opponent(),
        empty,
        pos.black_to_move(),
        &mut tally,
        stride,
    );
    tally
}

/// Tallies a finished game.
#[inline(always)]
fn leaf(p: u64, o: u64, black_to_move: bool, tally: &mut [u64], stride: usize) {
    let (b, w) = if black_to_move { (p, o) } else { (o, p) };
    tally[b.count_ones() as usize * stride + w.count_ones() as usize] += 1;
}

/// The game has one empty square `sq` left: the side to move plays it, or else the other side,
/// or else the game ends as it stands.
#[inline(always)]
fn last_square(p: u64, o: u64, sq: u32, black_to_move: bool, tally: &mut [u64], stride: usize) {
    let bit = 1u64 << sq;
    let f = flips(p, o, sq);
    if f != 0 {
        leaf(o ^ f, p | f | bit, !black_to_move, tally, stride);
        return;
    }
    let f = flips(o, p, sq);
    if f != 0 {
        leaf(p ^ f, o | f | bit, black_to_move, tally, stride);
    } else {
        leaf(p, o, black_to_move, tally, stride);
    }
}

/// Tallies every game from the position `(p, o)` with empty squares `empty`.
fn walk(p: u64, o: u64, empty: u64, black_to_move: bool, tally: &mut [u64], stride: usize) {
    let mut moves = legal_moves(p, o, empty);
    let (mut p, mut o, mut btm) = (p, o, black_to_move);
    if moves == 0 {
        moves = legal_moves(o, p, empty);
        if moves == 0 {
            leaf(p, o, btm, tally, stride);
            return;
        }
        std::mem::swap(&mut p, &mut o);
        btm = !btm;
    }
    for sq in Squares(moves) {
        let bit = 1u64 << sq;
        let f = flips(p, o, sq);
        let (np, no) = (o ^ f, p | f | bit);
        let ne = empty ^ bit;
        if ne & ne.wrapping_sub(1) == 0 {
            // At most one empty square left.
            if ne == 0 {
                leaf(np, no, !btm, tally, stride);
            } else {
                last_square(np, no, ne.trailing_zeros(), !btm, tally, stride);
            }
        } else if ne.count_ones() <= SMALL {
            walk_small(np, no, ne, !btm, false, tally, stride);
        } else {
            walk(np, no, ne, !btm, tally, stride);
        }
    }
}

/// Empty squares from which [`walk_small`] takes over.
const SMALL: u32 = 4;

/// [`walk`] for a few empty squares: try each empty square's flips instead of generating the
/// moves first (a square with no flips is no move), and so find passes on the way. `passed`:
/// the other side has just passed, so no move here ends the game.
fn walk_small(
    p: u64,
    o: u64,
    empty: u64,
    black_to_move: bool,
    passed: bool,
    tally: &mut [u64],
    stride: usize,
) {
    let mut moved = false;
    for sq in Squares(empty) {
        let f = flips(p, o, sq);
        if f == 0 {
            continue;
        }
        moved = true;
        let bit = 1u64 << sq;
        let (np, no) = (o ^ f, p | f | bit);
        let ne = empty ^ bit;
        if ne & ne.wrapping_sub(1) == 0 {
            last_square(np, no, ne.trailing_zeros(), !black_to_move, tally, stride);
        } else {
            walk_small(np, no, ne, !black_to_move, false, tally, stride);
        }
    }
    if !moved {
        if passed {
            leaf(p, o, black_to_move, tally, stride);
        } else {
            walk_small(o, p, empty, !black_to_move, true, tally, stride);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Shape;

    #[test]
    fn four_by_four_subtree() {
        // blog, 2008-03-29: 15,015 games after the first legal move on 4x4.
        let start = Shape::square(4).unwrap().start();
        let first = start.play(start.moves().trailing_zeros()).unwrap();
        let t = subtree(&first, 17);
        assert_eq!(t.iter().sum::<u64>(), 15_015);
    }
}
