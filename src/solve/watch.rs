//! How far a long search has got at the top of its tree, for a progress line: a root move of
//! a large board takes hours inside one null-window test, and the nodes alone do not say how
//! much of the test is done.
//!
//! [`Top::start`] names the position a search starts from by its empty squares (the position
//! after a root move: the search's root, ply 0, and no other node of the search has as many).
//! Nodes at the first [`PLIES`] plies say how many moves they have and how many of them are
//! done ([`Top::enter`], [`Top::done`], [`Top::add`]); [`Top::words`] reads it back from
//! another thread. While a node searches its first move alone (the young brothers wait), only
//! that move's node is at the next ply, so the figures follow one line down; once a node's
//! other moves run in parallel, several nodes below it write at once, and the words stop at
//! that node's count. Only nodes at the top plies write, so the cost is one comparison at each
//! interior node.

use std::sync::atomic::{AtomicU32, Ordering};

/// Plies from the watched root whose nodes report their moves.
pub const PLIES: usize = 4;

/// The top of a search, as far as it has got (see the module).
#[derive(Debug, Default)]
pub struct Top {
    /// Empty squares of the watched search's root (0: none is watched).
    root: AtomicU32,
    /// Moves of the latest node entered at each ply (0: none since the ply above was entered).
    moves: [AtomicU32; PLIES],
    /// Of those, the moves done.
    done: [AtomicU32; PLIES],
}

impl Top {
    /// Watches the next searches of a position with `empties` empty squares (at least 1).
    pub fn start(&self, empties: u32) {
        self.forget(0);
        self.root.store(empties, Ordering::Relaxed);
    }

    /// Forgets the nodes from `ply` down.
    fn forget(&self, ply: usize) {
        for p in ply..PLIES {
            self.moves[p].store(0, Ordering::Relaxed);
            self.done[p].store(0, Ordering::Relaxed);
        }
    }

    /// Watches nothing.
    pub fn stop(&self) {
        self.root.store(0, Ordering::Relaxed);
    }

    /// Empty squares of the watched root (0: none).
    #[must_use]
    pub fn root(&self) -> u32 {
        self.root.load(Ordering::Relaxed)
    }

    /// A node at `ply` (below [`PLIES`]) starts on its `moves` moves; the plies below it are
    /// forgotten.
    pub fn enter(&self, ply: usize, moves: usize) {
        self.forget(ply);
        self.moves[ply].store(moves as u32, Ordering::Relaxed);
    }

    /// The node at `ply` has done its first `done` moves (searched alone, in order).
    pub fn done(&self, ply: usize, done: usize) {
        self.done[ply].store(done as u32, Ordering::Relaxed);
    }

    /// One more move of the node at `ply` is done (searched in parallel with its brothers).
    pub fn add(&self, ply: usize) {
        self.done[ply].fetch_add(1, Ordering::Relaxed);
    }

    /// How far the watched search has got, as the moves done of each node down the line that
    /// is searched alone: "moves done by ply: 0 of 3, 0 of 5, 2 of 7" (the root on its first
    /// of 3 moves, that move's node on its first of 5, whose node has done 2 of its 7); `None`
    /// before the root has started or when nothing is watched.
    #[must_use]
    pub fn words(&self) -> Option<String> {
        if self.root() == 0 {
            return None;
        }
        let mut plies = Vec::new();
        for ply in 0..PLIES {
            let moves = self.moves[ply].load(Ordering::Relaxed);
            if moves == 0 {
                break;
            }
            let done = self.done[ply].load(Ordering::Relaxed).min(moves);
            plies.push(format!("{done} of {moves}"));
            if done > 0 {
                // Its other moves run at once: the plies below are theirs, mixed.
                break;
            }
        }
        (!plies.is_empty()).then(|| format!("moves done by ply: {}", plies.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words follow the line searched alone, and stop at the first node that has done a
    /// move.
    #[test]
    fn words_follow_the_line_searched_alone() {
        let top = Top::default();
        assert_eq!(top.words(), None);
        top.start(40);
        assert_eq!(top.words(), None, "ply 0 not entered");
        top.enter(0, 8);
        assert_eq!(top.words().as_deref(), Some("moves done by ply: 0 of 8"));
        top.enter(1, 9);
        top.enter(2, 5);
        top.done(2, 1);
        top.add(2);
        assert_eq!(
            top.words().as_deref(),
            Some("moves done by ply: 0 of 8, 0 of 9, 2 of 5")
        );
        // A new node at ply 1 forgets ply 2.
        top.enter(1, 7);
        assert_eq!(
            top.words().as_deref(),
            Some("moves done by ply: 0 of 8, 0 of 7")
        );
        top.done(0, 1);
        top.add(0);
        top.add(0);
        assert_eq!(top.words().as_deref(), Some("moves done by ply: 3 of 8"));
        // The next test starts over.
        top.enter(0, 8);
        assert_eq!(top.words().as_deref(), Some("moves done by ply: 0 of 8"));
        top.stop();
        assert_eq!(top.words(), None);
    }
}
