//! How far a long search has got at the top of its tree, for a progress line: a root move of
//! a large board takes hours inside one null-window test, and the nodes alone do not say how
//! much of the test is done.
//!
//! [`Top::start`] names the position a search starts from by its empty squares (the position
//! after a root move: the search's root, ply 0, and no other node of the search has as many).
//! Nodes at ply 0 and 1 say how many moves they have and how many of them are done
//! ([`Top::enter`], [`Top::done`], [`Top::add`]); [`Top::words`] reads it back from another
//! thread. While ply 0 searches its first move alone (the young brothers wait), only that move's
//! node is at ply 1, so its figures are that move's; once ply 0's other moves run in parallel,
//! several ply-1 nodes write at once and only ply 0's count is shown. Only nodes at the top two
//! plies write, so the cost is one comparison at each interior node.

use std::sync::atomic::{AtomicU32, Ordering};

/// The top of a search, as far as it has got (see the module).
#[derive(Debug, Default)]
pub struct Top {
    /// Empty squares of the watched search's root (0: none is watched).
    root: AtomicU32,
    /// Moves of the node at ply 0 and of the latest node at ply 1 (0: not entered yet).
    moves: [AtomicU32; 2],
    /// Of those, the moves done.
    done: [AtomicU32; 2],
}

impl Top {
    /// Watches the next searches of a position with `empties` empty squares (at least 1).
    pub fn start(&self, empties: u32) {
        for ply in 0..2 {
            self.moves[ply].store(0, Ordering::Relaxed);
            self.done[ply].store(0, Ordering::Relaxed);
        }
        self.root.store(empties, Ordering::Relaxed);
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

    /// A node at `ply` (0 or 1) starts on its `moves` moves; ply 0 also forgets ply 1.
    pub fn enter(&self, ply: usize, moves: usize) {
        self.moves[ply].store(moves as u32, Ordering::Relaxed);
        self.done[ply].store(0, Ordering::Relaxed);
        if ply == 0 {
            self.moves[1].store(0, Ordering::Relaxed);
            self.done[1].store(0, Ordering::Relaxed);
        }
    }

    /// The node at `ply` has done its first `done` moves (searched alone, in order).
    pub fn done(&self, ply: usize, done: usize) {
        self.done[ply].store(done as u32, Ordering::Relaxed);
    }

    /// One more move of the node at `ply` is done (searched in parallel with its brothers).
    pub fn add(&self, ply: usize) {
        self.done[ply].fetch_add(1, Ordering::Relaxed);
    }

    /// How far the watched search has got: "the first of 8 moves, 3 of its 9 replies done" while ply 0
    /// is on its first move, "4 of 8 moves done" after; `None` before ply 0 has started or
    /// when nothing is watched.
    #[must_use]
    pub fn words(&self) -> Option<String> {
        if self.root() == 0 {
            return None;
        }
        let get = |a: &[AtomicU32; 2], ply: usize| a[ply].load(Ordering::Relaxed);
        let (m0, d0) = (get(&self.moves, 0), get(&self.done, 0));
        let (m1, d1) = (get(&self.moves, 1), get(&self.done, 1));
        match (m0, d0) {
            (0, _) => None,
            (_, 0) if m1 > 0 => Some(format!(
                "the first of {m0} moves, {} of its {m1} replies done",
                d1.min(m1)
            )),
            (_, 0) => Some(format!("the first of {m0} moves")),
            _ => Some(format!("{} of {m0} moves done", d0.min(m0))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words follow ply 0's first move through its replies, then ply 0's count.
    #[test]
    fn words_follow_the_first_move_then_the_count() {
        let top = Top::default();
        assert_eq!(top.words(), None);
        top.start(40);
        assert_eq!(top.words(), None, "ply 0 not entered");
        top.enter(0, 8);
        assert_eq!(top.words().as_deref(), Some("the first of 8 moves"));
        top.enter(1, 9);
        top.done(1, 1);
        top.add(1);
        assert_eq!(
            top.words().as_deref(),
            Some("the first of 8 moves, 2 of its 9 replies done")
        );
        top.done(0, 1);
        top.add(0);
        top.add(0);
        assert_eq!(top.words().as_deref(), Some("3 of 8 moves done"));
        // The next test starts over.
        top.enter(0, 8);
        assert_eq!(top.words().as_deref(), Some("the first of 8 moves"));
        top.stop();
        assert_eq!(top.words(), None);
    }
}
