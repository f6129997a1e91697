//! How far a long search has got at the top of its tree, for a progress line: a root move of
//! a large board takes hours inside one null-window test, and the nodes alone do not say how
//! much of the test is done.
//!
//! [`Top::start`] names the position a search starts from by its empty squares (the position
//! after a root move: the search's root, ply 0, and no other node of the search has as many).
//! Each node at the first [`PLIES`] plies is watched while it searches ([`Top::enter`] to
//! [`Top::leave`]): its position, its moves, and how many of them are done. [`Top::words`] reads it back from another thread and follows one line down from the
//! root: from a node to its child while that child is the only one of its children being
//! searched. That is the first move, searched alone (the young brothers wait), and again the
//! last of the moves searched in parallel once the others have ended; while two or more run at
//! once, the words stop at their parent's count. Only nodes at the top plies are watched, a few
//! a second, so the cost is one comparison at each interior node.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;

use crate::board::square_name;

/// Plies from the watched root whose nodes report their moves.
pub const PLIES: usize = 4;

/// The top of a search, as far as it has got (see the module).
#[derive(Debug, Default)]
pub struct Top {
    /// Empty squares of the watched search's root (0: none is watched).
    root: AtomicU32,
    /// The nodes being searched at the top plies, in the order they were entered.
    nodes: Mutex<Vec<Node>>,
    /// The identity of the next node entered.
    next: AtomicU64,
}

/// A node at the top plies being searched.
#[derive(Debug, Clone, Copy)]
struct Node {
    /// Its identity, for its [`Watched`].
    id: u64,
    /// Plies below the watched root.
    ply: usize,
    /// The discs of the side to move.
    p: u64,
    /// The discs of the other side.
    o: u64,
    /// Its moves.
    moves: u32,
    /// Of those, the moves done.
    done: u32,
}

/// A node of the top plies while it is searched ([`Top::enter`]), until [`Top::leave`]. A
/// plain number rather than a guard that leaves on drop: a value with drop glue in the search's
/// body took 1.05x the time (one thread, the 6x6 start, four interleaved pairs).
#[derive(Debug, Clone, Copy)]
pub struct Watched(u64);

/// Whether `(cp, co)`, `cp` to move, can follow `(p, o)`, `p` to move, by one disc placed on
/// an empty square and some of `o`'s discs flipped (the legality of the flips is not checked:
/// it tells the children of a node from the other nodes being searched).
fn follows(p: u64, o: u64, cp: u64, co: u64) -> bool {
    let flipped = o & !cp;
    let placed = co & !(p | flipped);
    cp & !o == 0
        && flipped != 0
        && p & !co == 0
        && placed.count_ones() == 1
        && placed & (p | o) == 0
}

impl Top {
    /// Watches the next searches of a position with `empties` empty squares (at least 1).
    pub fn start(&self, empties: u32) {
        if let Ok(mut nodes) = self.nodes.lock() {
            nodes.clear();
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

    /// A node `(p, o)` at `ply` (below [`PLIES`]) starts on its `moves` moves; it is watched
    /// until [`Top::leave`].
    #[must_use]
    pub fn enter(&self, ply: usize, p: u64, o: u64, moves: usize) -> Watched {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut nodes) = self.nodes.lock() {
            nodes.push(Node {
                id,
                ply,
                p,
                o,
                moves: moves as u32,
                done: 0,
            });
        }
        Watched(id)
    }

    /// The node has done its first `done` moves (searched alone, in order).
    pub fn done(&self, node: Watched, done: usize) {
        self.with(node.0, |n| n.done = done as u32);
    }

    /// One more move of the node is done (searched in parallel with its brothers).
    pub fn add(&self, node: Watched) {
        self.with(node.0, |n| n.done += 1);
    }

    /// The node has returned: it is forgotten.
    pub fn leave(&self, node: Watched) {
        if let Ok(mut nodes) = self.nodes.lock() {
            nodes.retain(|n| n.id != node.0);
        }
    }

    /// Applies `f` to the watched node `id`, if it is still there.
    fn with(&self, id: u64, f: impl FnOnce(&mut Node)) {
        if let Ok(mut nodes) = self.nodes.lock() {
            if let Some(n) = nodes.iter_mut().find(|n| n.id == id) {
                f(n);
            }
        }
    }

    /// The nodes being watched (for tests: none is left once the searches have ended).
    #[must_use]
    pub fn watched(&self) -> usize {
        self.nodes.lock().map_or(0, |n| n.len())
    }

    /// How far the watched search has got, as the moves done of each node down the line that
    /// is searched alone, and the moves being searched there: "moves done by ply: 0 of 3
    /// (searching b2), 0 of 5 (searching f3), 2 of 7" (the root on its first of 3 moves, b2,
    /// that move's node on its first of 5, f3, whose node has done 2 of its 7), or "moves done
    /// by ply: 2 of 3 (searching e6), 1 of 6 (searching a4 and c2)" (the root's first two
    /// moves done, and the third, the only one left, has done 1 of its 6 and searches two at
    /// once); `None` before the root has started or when nothing is watched. Squares are named
    /// in the frame (`a1` top left).
    #[must_use]
    pub fn words(&self) -> Option<String> {
        if self.root() == 0 {
            return None;
        }
        let nodes = self.nodes.lock().ok()?;
        let mut at = nodes.iter().find(|n| n.ply == 0)?;
        let mut plies = Vec::new();
        loop {
            // A child passes in its search by the other side's move at the same ply, so it
            // is found with the discs either way round.
            let children: Vec<&Node> = nodes
                .iter()
                .filter(|n| {
                    n.ply == at.ply + 1
                        && (follows(at.p, at.o, n.p, n.o) || follows(at.p, at.o, n.o, n.p))
                })
                .collect();
            let mut ply = format!("{} of {}", at.done.min(at.moves), at.moves);
            if !children.is_empty() {
                let placed = |n: &Node| (n.p | n.o) & !(at.p | at.o);
                let names: Vec<String> = children
                    .iter()
                    .map(|n| square_name(placed(n).trailing_zeros()))
                    .collect();
                ply += &format!(" (searching {})", names.join(" and "));
            }
            plies.push(ply);
            match children.as_slice() {
                [only] => at = only,
                _ => break,
            }
        }
        Some(format!("moves done by ply: {}", plies.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The position after `(p, o)`'s move on square `sq` flipping `flips`.
    fn play(p: u64, o: u64, sq: u32, flips: u64) -> (u64, u64) {
        (o ^ flips, p | flips | 1 << sq)
    }

    /// The words follow the line of the only child being searched, name the moves being
    /// searched, and stop where several are.
    #[test]
    fn words_follow_the_only_child_searched() {
        let top = Top::default();
        assert_eq!(top.words(), None);
        top.start(40);
        assert_eq!(top.words(), None, "ply 0 not entered");
        // Discs as bits of a plain 64-bit frame: the moves need not be legal here.
        let (p0, o0) = (0b0001_1000, 0b0010_0100);
        let root = top.enter(0, p0, o0, 3);
        assert_eq!(top.words().as_deref(), Some("moves done by ply: 0 of 3"));
        let (p1, o1) = play(p0, o0, 1, 0b0010_0000);
        let first = top.enter(1, p1, o1, 5);
        let (p2, o2) = play(p1, o1, 6, 0b0000_1000);
        let second = top.enter(2, p2, o2, 4);
        top.done(second, 2);
        // The squares of the moves: b1 (bit 1), then g1 (bit 6).
        let line = "moves done by ply: 0 of 3 (searching b1), 0 of 5 (searching g1), 2 of 4";
        assert_eq!(top.words().as_deref(), Some(line));
        // A node elsewhere (not a child of the line) changes nothing.
        let stranger = top.enter(2, 1 << 40, 1 << 41, 7);
        assert_eq!(top.words().as_deref(), Some(line));
        top.leave(stranger);
        top.leave(second);
        assert_eq!(
            top.words().as_deref(),
            Some("moves done by ply: 0 of 3 (searching b1), 0 of 5")
        );
        top.leave(first);
        top.done(root, 1);
        // Two moves at once: the words stop at their parent.
        let (pa, oa) = play(p0, o0, 7, 0b0000_0100);
        let (pb, ob) = play(p0, o0, 0, 0b0010_0000);
        let a = top.enter(1, pa, oa, 6);
        let b = top.enter(1, pb, ob, 2);
        assert_eq!(
            top.words().as_deref(),
            Some("moves done by ply: 1 of 3 (searching h1 and a1)")
        );
        top.leave(b);
        top.add(root);
        // The last one alone is followed again, and a child that passes (the other side to
        // move on the same discs) with it.
        let (pc, oc) = play(pa, oa, 9, 0b0001_0000);
        top.done(a, 3);
        let c = top.enter(2, oc, pc, 1);
        assert_eq!(
            top.words().as_deref(),
            Some("moves done by ply: 2 of 3 (searching h1), 3 of 6 (searching b2), 0 of 1")
        );
        for node in [c, a, root] {
            top.leave(node);
        }
        assert_eq!(top.watched(), 0);
        assert_eq!(top.words(), None);
        // The next test starts over.
        let again = top.enter(0, p0, o0, 3);
        assert_eq!(top.words().as_deref(), Some("moves done by ply: 0 of 3"));
        top.stop();
        assert_eq!(top.words(), None);
        top.leave(again);
    }

    /// `follows` knows a move's position and refuses others.
    #[test]
    fn follows_tells_children() {
        let (p, o) = (0b0001_1000u64, 0b0010_0100u64);
        let (cp, co) = play(p, o, 1, 0b0010_0000);
        assert!(follows(p, o, cp, co));
        assert!(!follows(p, o, co, cp), "the wrong side to move");
        assert!(!follows(p, o, p, o), "nothing placed");
        assert!(!follows(p, o, cp, co | 1 << 50), "two discs placed");
        assert!(!follows(p, o, o, p | 1 << 1), "nothing flipped");
    }
}
