//! The tree of a proof near its root, and which of its leaves' null-window tests decide a
//! question about a node.
//!
//! Nodes are positions merged by symmetry and transposition (keyed by their canonical discs, the
//! side to move first), expanded lazily: a node with more empty squares than the unit size is
//! *interior* and has children; one with at most that many is a *leaf*, a unit of work; a
//! finished game is *over* and has its exact value. Values are for the side to move (negamax).
//!
//! A leaf's bounds are what the results of its tests proved ([`Facts`]); an interior node's
//! are the negamax of its children's: `lo = max(-hi(child))`, `hi = max(-lo(child))`, and an
//! interior node not yet expanded knows nothing.
//!
//! To prove `v(n) > b` ([`Select::above`]) the side to move needs one child with `v(c) <= -b-1`:
//! the children are tried one at a time in the order of a heuristic search (best for the side
//! to move first), the next only once the one before is refuted. To prove `v(n) <= b`
//! ([`Select::at_most`]) every child needs `v(c) > -b-1`. At a leaf either question is the
//! null-window test `(b, b+1)` of the leaf: one [`Unit`]. This is the work-unit method of
//! Takizawa, "Othello is solved" (arXiv 2310.19387, section 3), there with Egaroucid for the
//! leaves and here with this crate's solver.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::board::{Position, Shape, Symmetry};
use crate::solve::Solver;

/// A position's key: its canonical discs, side to move first.
pub type Key = (u64, u64);

/// One test of a position: a fail-soft search of the value of `key` (for its side to move)
/// with the window `(alpha, beta)`; with `beta = alpha + 1`, the null-window test "is it above
/// `alpha`?" (see [`Window`]). Its result `r` proves `v <= r` when `r <= alpha`, `v >= r` when
/// `r >= beta`, and `v = r` between.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Unit {
    /// The position tested.
    pub key: Key,
    /// The window is `(alpha, beta)`.
    pub alpha: i32,
    /// `alpha + 1` for a null-window test.
    pub beta: i32,
}

impl Unit {
    /// The null-window test of `key` at `alpha`.
    #[must_use]
    pub fn null(key: Key, alpha: i32) -> Unit {
        Unit {
            key,
            alpha,
            beta: alpha + 1,
        }
    }

    /// Whether this is a null-window test.
    #[must_use]
    pub fn is_null(&self) -> bool {
        self.beta == self.alpha + 1
    }
}

/// How far beyond the bounds asked about a [`Window::Retest`] window reaches on each side, in
/// discs: a hypothesis that moved once may move again.
pub const RETEST_MARGIN: i32 = 3;

/// Which tests the selection asks of a leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Window {
    /// Only null-window tests: a leaf is tested again at each new hypothesis that reaches it
    /// (each test from an empty table). The proofs begun before session 33 ran so.
    Null,
    /// A null-window test the first time a leaf is asked; once the facts hold a test of it
    /// (the hypothesis moved through it), or when one selection asks it two questions, a
    /// window [`RETEST_MARGIN`] wider on each side than the bounds asked about, searched by
    /// MTD(f) confined to it ([`Solver::confined`]): a value inside it is found exactly, so the
    /// next hypotheses near it need no test of the leaf again; one far outside costs about one
    /// null-window test. The default for a new proof.
    #[default]
    Retest,
    /// Every unit finds its leaf's exact value (a window between the bounds the facts prove).
    Exact,
}

impl Window {
    /// The name of the log's header and of `prove --unit-window`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Window::Null => "null",
            Window::Retest => "retest",
            Window::Exact => "exact",
        }
    }

    /// The policy of a name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Window> {
        [Window::Null, Window::Retest, Window::Exact]
            .into_iter()
            .find(|w| w.name() == name)
    }
}

/// What the finished units proved: the bounds of each leaf's value for its side to move.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    bounds: HashMap<Key, (i32, i32)>,
}

impl Facts {
    /// Adds the result `r` of the test of `unit`. A result that contradicts an earlier one (a
    /// bound beyond another) is a caller's bug or a damaged log: `false`, and nothing changes.
    pub fn add(&mut self, unit: Unit, r: i32, squares: i32) -> bool {
        let (lo, hi) = self
            .bounds
            .get(&unit.key)
            .copied()
            .unwrap_or((-squares, squares));
        let (lo, hi) = if r <= unit.alpha {
            (lo, hi.min(r))
        } else if r >= unit.beta {
            (lo.max(r), hi)
        } else {
            (lo.max(r), hi.min(r))
        };
        if lo > hi {
            return false;
        }
        self.bounds.insert(unit.key, (lo, hi));
        true
    }

    /// Every position's bounds, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (Key, (i32, i32))> + '_ {
        self.bounds.iter().map(|(&k, &b)| (k, b))
    }

    /// The bounds proven for the position `key`, if any.
    #[must_use]
    pub fn get(&self, key: Key) -> Option<(i32, i32)> {
        self.bounds.get(&key).copied()
    }

    /// Whether a finished unit tested the position `key`.
    #[must_use]
    pub fn tested(&self, key: Key) -> bool {
        self.bounds.contains_key(&key)
    }

    /// Whether the finished tests already decide `unit`: a null-window test's answer follows
    /// from the bounds, or the value is exact, or it lies outside the unit's window.
    #[must_use]
    pub fn decides(&self, unit: Unit) -> bool {
        self.get(unit.key)
            .is_some_and(|(lo, hi)| lo == hi || hi <= unit.alpha || lo >= unit.beta)
    }
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// More empty squares than a unit: expanded into children.
    Interior,
    /// A unit of work.
    Leaf,
    /// A finished game, with its value for the side to move.
    Over(i32),
}

#[derive(Debug, Clone)]
struct Node {
    pos: Position,
    kind: Kind,
    /// The distinct children (by key), in row-major order of their first move; `None` until
    /// expanded.
    children: Option<Vec<usize>>,
}

/// The nodes reached so far, by key.
#[derive(Debug, Clone)]
pub struct Tree {
    shape: Shape,
    unit_empties: u32,
    squares: i32,
    nodes: Vec<Node>,
    index: HashMap<Key, usize>,
    scoring: crate::board::Scoring,
    /// Nodes expanded so far.
    expanded: usize,
    /// The heuristic values of positions (side to move), kept across [`Tree::reset`].
    heuristics: HashMap<Key, i32>,
}

/// The answer to a question about a node, given the facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The facts prove it.
    Proven,
    /// The facts prove the opposite.
    Refuted,
    /// Undecided: the units added to the selection decide it (or lead to the next ones).
    Pending,
}

impl Tree {
    /// A tree whose root is `root` (always expanded, so that its moves get values), with leaves
    /// at `unit_empties` empty squares or fewer.
    #[must_use]
    pub fn new(root: &Position, unit_empties: u32, scoring: crate::board::Scoring) -> Tree {
        let shape = root.shape();
        let mut tree = Tree {
            shape,
            unit_empties,
            squares: shape.squares() as i32,
            nodes: Vec::new(),
            index: HashMap::new(),
            scoring,
            expanded: 0,
            heuristics: HashMap::new(),
        };
        tree.plant(root);
        tree
    }

    /// Makes the root's node, always interior.
    fn plant(&mut self, root: &Position) {
        let id = self.node(root);
        if self.nodes[id].kind == Kind::Leaf {
            self.nodes[id].kind = Kind::Interior;
        }
    }

    /// Forgets every node but the root, keeping the heuristic values: a selection on the tree
    /// made again from the root depends on the facts alone, not on which nodes earlier
    /// selections expanded, so every process of a proof selects alike from the same facts.
    pub fn reset(&mut self) {
        let root = self.nodes[0].pos;
        self.nodes.clear();
        self.index.clear();
        self.expanded = 0;
        self.plant(&root);
    }

    /// The largest value a position of this board can have.
    #[must_use]
    pub fn squares(&self) -> i32 {
        self.squares
    }

    /// The key of a position.
    #[must_use]
    pub fn key(pos: &Position) -> Key {
        pos.canonical()
    }

    /// The representative position of a key: the canonical discs with black to move (values
    /// are for the side to move, so the colour does not matter).
    #[must_use]
    pub fn position_of(&self, key: Key) -> Position {
        Position::from_player(self.shape, key.0, key.1, true)
    }

    /// The node of `pos`, made if new.
    fn node(&mut self, pos: &Position) -> usize {
        let key = Tree::key(pos);
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let rep = self.position_of(key);
        let kind = if rep.is_over() {
            Kind::Over(self.scoring.margin(
                rep.player().count_ones(),
                rep.opponent().count_ones(),
                self.shape.squares(),
            ))
        } else if rep.empty().count_ones() <= self.unit_empties {
            Kind::Leaf
        } else {
            Kind::Interior
        };
        let id = self.nodes.len();
        self.nodes.push(Node {
            pos: rep,
            kind,
            children: None,
        });
        self.index.insert(key, id);
        id
    }

    /// The representative position of node `id`.
    #[must_use]
    pub fn position_of_node(&self, id: usize) -> Position {
        self.nodes[id].pos
    }

    /// The root's node.
    #[must_use]
    pub fn root(&self) -> usize {
        0
    }

    /// The node of `pos`, made if new (for walking the tree by real moves).
    pub fn node_of(&mut self, pos: &Position) -> usize {
        self.node(pos)
    }

    /// Whether the node is a leaf (a unit of work).
    #[must_use]
    pub fn is_leaf(&self, id: usize) -> bool {
        self.nodes[id].kind == Kind::Leaf
    }

    /// Nodes made so far.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Nodes expanded so far: a selection that expanded none worked with bounds that were
    /// all up to date.
    #[must_use]
    pub fn expansions(&self) -> usize {
        self.expanded
    }

    /// Whether only the root was made.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// Expands every interior node whose occupied squares lie, under a symmetry of the board,
    /// within those of a position the facts hold (discs are never taken off, so only such a
    /// node can have a tested leaf below it). The bounds worked out afterwards are all that the
    /// facts prove, where a selection expands only what its current questions need and so may
    /// show a bound proven earlier as unknown again.
    pub fn expand_toward(&mut self, facts: &Facts) {
        let shape = self.shape;
        let mut fills: Vec<u64> = facts
            .bounds
            .keys()
            .flat_map(|&(p, o)| {
                Symmetry::all(shape)
                    .iter()
                    .map(move |s| s.apply(shape, p | o))
            })
            .collect();
        fills.sort_unstable();
        fills.dedup();
        let mut seen = HashSet::new();
        let mut stack = vec![self.root()];
        while let Some(id) = stack.pop() {
            if !seen.insert(id) || self.nodes[id].kind != Kind::Interior {
                continue;
            }
            let pos = self.nodes[id].pos;
            let occupied = pos.player() | pos.opponent();
            if id != self.root() && !fills.iter().any(|&f| occupied & !f == 0) {
                continue;
            }
            stack.extend(self.children(id));
        }
    }

    /// The children of an interior node, expanding it if needed: the distinct positions (by
    /// key) after each turn, in row-major order of the first turn reaching each; a forced pass
    /// is the one turn.
    pub fn children(&mut self, id: usize) -> Vec<usize> {
        if let Some(c) = &self.nodes[id].children {
            return c.clone();
        }
        let pos = self.nodes[id].pos;
        let mut out = Vec::new();
        for turn in pos.legal_turns() {
            let child = pos.apply(turn).expect("a legal turn");
            let c = self.node(&child);
            if !out.contains(&c) {
                out.push(c);
            }
        }
        self.nodes[id].children = Some(out.clone());
        self.expanded += 1;
        out
    }
}

/// The node budget of the heuristic search of a position of `empties` empty squares:
/// `order_nodes` at 30 empty squares, a third of it per empty square fewer (a unit costs about
/// three times more per empty square, and the ordering should stay a small part of it).
#[must_use]
pub fn order_budget(order_nodes: u64, empties: u32) -> u64 {
    (empties..30).fold(order_nodes, |b, _| b / 3)
}

/// One selection: the questions asked of the tree under fixed facts, and the units that would
/// decide them. Memoised, so a position reached by several paths is looked at once.
pub struct Select<'a> {
    tree: &'a mut Tree,
    facts: &'a Facts,
    solver: &'a mut Solver,
    order_nodes: u64,
    bounds: HashMap<usize, (i32, i32)>,
    /// Answers by node, bound, question (`true`: above) and whether asked dry.
    answers: HashMap<(usize, i32, bool, bool), Status>,
    /// Whether the questions asked now only look for proofs in the facts: they add no unit,
    /// try children in row-major order without a heuristic, and may call a refuted question
    /// pending (never a pending one proven).
    dry: bool,
    /// Which tests leaves get.
    window: Window,
    /// The leaves asked so far, each with the bounds asked about (`v > b` and `v <= b` both
    /// ask about `b`).
    asked: BTreeMap<Key, BTreeSet<i32>>,
    /// Nodes of the heuristic searches that ordered children in this selection.
    pub heuristic_nodes: u64,
}

impl<'a> Select<'a> {
    /// A selection on `tree` under `facts`; `solver` orders children by a heuristic search of
    /// `order_nodes` nodes (its values are kept in the tree); leaves get the tests of
    /// `window`.
    pub fn new(
        tree: &'a mut Tree,
        facts: &'a Facts,
        solver: &'a mut Solver,
        order_nodes: u64,
        window: Window,
    ) -> Select<'a> {
        Select {
            tree,
            facts,
            solver,
            order_nodes,
            bounds: HashMap::new(),
            answers: HashMap::new(),
            dry: false,
            window,
            asked: BTreeMap::new(),
            heuristic_nodes: 0,
        }
    }

    /// The tree.
    pub fn tree(&mut self) -> &mut Tree {
        self.tree
    }

    /// Forgets the bounds worked out so far: those of a node expanded after them are stale
    /// (too wide, never wrong), so call this before reporting bounds.
    pub fn forget_bounds(&mut self) {
        self.bounds.clear();
    }

    /// The bounds the facts prove for node `id`'s value (side to move), `lo <= v <= hi`.
    pub fn bounds(&mut self, id: usize) -> (i32, i32) {
        if let Some(&b) = self.bounds.get(&id) {
            return b;
        }
        let s = self.tree.squares;
        let node = &self.tree.nodes[id];
        let b = match node.kind {
            Kind::Over(v) => (v, v),
            Kind::Leaf => self.facts.get(Tree::key(&node.pos)).unwrap_or((-s, s)),
            Kind::Interior => match node.children.clone() {
                None => (-s, s),
                Some(children) => {
                    let (mut lo, mut hi) = (-s, -s);
                    for c in children {
                        let (clo, chi) = self.bounds(c);
                        lo = lo.max(-chi);
                        hi = hi.max(-clo);
                    }
                    (lo, hi)
                }
            },
        };
        self.bounds.insert(id, b);
        b
    }

    /// The heuristic value of node `id` for its side to move.
    fn heuristic(&mut self, id: usize) -> i32 {
        let key = Tree::key(&self.tree.nodes[id].pos);
        if let Some(&h) = self.tree.heuristics.get(&key) {
            return h;
        }
        let h = match self.tree.nodes[id].kind {
            Kind::Over(v) => v,
            _ => {
                let pos = self.tree.nodes[id].pos;
                let budget = order_budget(self.order_nodes, pos.empty().count_ones());
                let (h, nodes) = self.solver.heuristic(&pos, budget);
                self.heuristic_nodes += nodes;
                h
            }
        };
        self.tree.heuristics.insert(key, h);
        h
    }

    /// The legal moves of `pos` in the order the principal variation tries them
    /// ([`Solver::pv_order`]).
    pub fn pv_order(&mut self, pos: &Position) -> Vec<(crate::board::Move, Position)> {
        self.solver.pv_order(pos)
    }

    /// Is `v(id) > b`?
    pub fn above(&mut self, id: usize, b: i32) -> Status {
        let (lo, hi) = self.bounds(id);
        if lo > b {
            return Status::Proven;
        }
        if hi <= b {
            return Status::Refuted;
        }
        if let Some(&st) = self.answers.get(&(id, b, true, self.dry)) {
            return st;
        }
        let st = if self.tree.nodes[id].kind == Kind::Leaf {
            self.leaf_unit(id, b)
        } else if self.dry {
            // A proof by any child, in row-major order.
            let mut st = Status::Refuted;
            for c in self.tree.children(id) {
                match self.at_most(c, -b - 1) {
                    Status::Proven => {
                        st = Status::Proven;
                        break;
                    }
                    Status::Pending => st = Status::Pending,
                    Status::Refuted => {}
                }
            }
            st
        } else if self.proven_dry(id, b) {
            // The facts already hold a proof, through a child the heuristic would not try
            // first (its subtree expanded by an earlier run or selection).
            Status::Proven
        } else {
            // One child at a time, the heuristic's best for the side to move first.
            let mut children = self.tree.children(id);
            let keys: Vec<i32> = children.iter().map(|&c| self.heuristic(c)).collect();
            let mut order: Vec<usize> = (0..children.len()).collect();
            order.sort_by_key(|&i| keys[i]);
            children = order.into_iter().map(|i| children[i]).collect();
            let mut st = Status::Refuted;
            for c in children {
                match self.at_most(c, -b - 1) {
                    Status::Refuted => continue,
                    found => {
                        st = found;
                        break;
                    }
                }
            }
            st
        };
        self.answers.insert((id, b, true, self.dry), st);
        st
    }

    /// Asks a leaf's question (added to the selection unless dry).
    fn leaf_unit(&mut self, id: usize, b: i32) -> Status {
        if !self.dry {
            let key = Tree::key(&self.tree.nodes[id].pos);
            self.asked.entry(key).or_default().insert(b);
        }
        Status::Pending
    }

    /// The units that decide the questions asked so far, forgetting them: a null-window test
    /// per question, or with [`Window::Retest`] and [`Window::Exact`] one window per leaf.
    pub fn take_units(&mut self) -> BTreeSet<Unit> {
        let s = self.tree.squares;
        let mut units = BTreeSet::new();
        for (key, asked) in std::mem::take(&mut self.asked) {
            let (lo, hi) = self.facts.get(key).unwrap_or((-s, s));
            let (first, last) = (asked.first().copied(), asked.last().copied());
            // A bound the facts prove is a window's end: a result there is exact with them.
            let window = match (self.window, first, last) {
                (Window::Exact, _, _) => Some((lo, hi)),
                (Window::Retest, Some(b0), Some(b1))
                    if asked.len() > 1 || self.facts.tested(key) =>
                {
                    Some((
                        (b0 - RETEST_MARGIN).max(lo),
                        (b1 + 1 + RETEST_MARGIN).min(hi),
                    ))
                }
                _ => None,
            };
            match window {
                Some((alpha, beta)) if beta > alpha + 1 => {
                    units.insert(Unit { key, alpha, beta });
                }
                Some((alpha, _)) => {
                    units.insert(Unit::null(key, alpha));
                }
                None => units.extend(asked.into_iter().map(|b| Unit::null(key, b))),
            }
        }
        units
    }

    /// Whether the facts prove `v(id) > b` through any child, looking only (no unit added).
    fn proven_dry(&mut self, id: usize, b: i32) -> bool {
        let was = std::mem::replace(&mut self.dry, true);
        let st = self.above(id, b);
        self.dry = was;
        st == Status::Proven
    }

    /// Is `v(id) <= b`?
    pub fn at_most(&mut self, id: usize, b: i32) -> Status {
        let (lo, hi) = self.bounds(id);
        if hi <= b {
            return Status::Proven;
        }
        if lo > b {
            return Status::Refuted;
        }
        if let Some(&st) = self.answers.get(&(id, b, false, self.dry)) {
            return st;
        }
        let st = if self.tree.nodes[id].kind == Kind::Leaf {
            self.leaf_unit(id, b)
        } else {
            // Every child must stay at most b for the side to move here. A child the facts
            // already refute settles it before any other child's units are asked for.
            let children = self.tree.children(id);
            if children.iter().any(|&c| self.bounds(c).1 < -b) {
                Status::Refuted
            } else {
                let mut st = Status::Proven;
                for c in children {
                    match self.above(c, -b - 1) {
                        Status::Proven => {}
                        Status::Refuted => {
                            st = Status::Refuted;
                            break;
                        }
                        // Looking only: one pending child settles that there is no proof.
                        Status::Pending if self.dry => {
                            st = Status::Pending;
                            break;
                        }
                        Status::Pending => st = Status::Pending,
                    }
                }
                st
            }
        };
        self.answers.insert((id, b, false, self.dry), st);
        st
    }

    /// The exact value of node `id` when the facts prove it; else adds the units of the next
    /// tests toward it: MTD(f) from `guess` clamped into the proven bounds (so the guess moves
    /// to the fail-soft bound of a refuted test), testing `v >= g` and `v <= g` at once.
    pub fn exact(&mut self, id: usize, guess: i32) -> Option<i32> {
        let (lo, hi) = self.bounds(id);
        if lo == hi {
            return Some(lo);
        }
        let g = guess.clamp(lo, hi);
        if g > lo {
            self.above(id, g - 1);
        }
        if g < hi {
            self.at_most(id, g);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Scoring;

    /// Solves every unit the selection asks for with a plain solver until the root's children
    /// are exact: their values equal those of the solver on the whole position.
    #[test]
    fn selection_with_solved_units_gives_the_solvers_values() {
        let boards = [(4, 4, 8), (4, 5, 12), (3, 6, 8), (4, 4, 12)];
        for ((r, c, unit), window) in boards
            .into_iter()
            .flat_map(|b| [Window::Null, Window::Retest, Window::Exact].map(|w| (b, w)))
        {
            let shape = Shape::new(r, c).unwrap();
            let root = shape.start();
            let mut tree = Tree::new(&root, unit, Scoring::Discs);
            let mut facts = Facts::default();
            let mut solver = Solver::new(4);
            let mut worker = Solver::new(4);
            let squares = shape.squares() as i32;
            let children = tree.children(tree.root());
            let values = loop {
                let mut sel = Select::new(&mut tree, &facts, &mut solver, 1000, window);
                let values: Vec<Option<i32>> = children.iter().map(|&c| sel.exact(c, 0)).collect();
                let units: Vec<Unit> = sel.take_units().into_iter().collect();
                if values.iter().all(Option::is_some) {
                    assert!(units.is_empty());
                    break values;
                }
                assert!(!units.is_empty(), "undecided with no unit to run");
                for u in units {
                    let pos = tree.position_of(u.key);
                    match window {
                        Window::Null => assert!(u.is_null()),
                        Window::Exact => assert!(!u.is_null()),
                        Window::Retest => {}
                    }
                    let (r, _) = crate::proof::solve_unit(&mut worker, &pos, u);
                    assert!(facts.add(u, r, squares));
                }
            };
            for (&c, v) in children.iter().zip(values) {
                let pos = tree.nodes[c].pos;
                assert_eq!(
                    v,
                    Some(Solver::new(4).value(&pos)),
                    "{shape} unit {unit} {window:?}"
                );
            }
        }
    }

    #[test]
    fn facts_combine_bounds_and_refuse_contradictions() {
        let mut f = Facts::default();
        let u = |alpha| Unit::null((1, 2), alpha);
        assert!(!f.tested((1, 2)));
        assert!(f.add(u(0), 4, 16)); // v >= 4
        assert!(f.add(u(6), 6, 16)); // v <= 6
        assert_eq!(f.get((1, 2)), Some((4, 6)));
        assert!(f.tested((1, 2)));
        assert!(f.decides(u(3)));
        assert!(!f.decides(u(4)));
        assert!(!f.add(u(0), -2, 16)); // v <= -2 contradicts v >= 4
        assert_eq!(f.get((1, 2)), Some((4, 6)));
        // An exact unit within the bounds: undecided until the value is known.
        let exact = Unit {
            key: (1, 2),
            alpha: 3,
            beta: 7,
        };
        assert!(!exact.is_null());
        assert!(!f.decides(exact));
        assert!(!f.add(exact, 2, 16)); // below the bound v >= 4
        assert!(f.add(exact, 5, 16)); // v == 5
        assert_eq!(f.get((1, 2)), Some((5, 5)));
        assert!(f.decides(exact));
        assert!(f.decides(u(9)));
    }
}
