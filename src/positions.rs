//! Distinct positions per ply (OEIS A124005) and the positions reached by exactly one sequence of
//! moves (OEIS A124006), in perft's convention, layer by layer under a memory budget.
//!
//! **Convention.** Plies are perft's ([`crate::perft::CONVENTION`], OEIS A124004): a forced pass
//! uses a ply, and a game that ended is not carried to later plies. The positions *at ply n* are
//! the boards (discs and side to move) reached after exactly `n` plies, **including** the games
//! that ended exactly at ply `n` (an ended game's side to move is the one the last placement
//! handed the turn to). So the path counts of ply `n`'s positions sum to perft's games at ply
//! `n`. A pass and a placement both hand the turn over, so the side to move at ply `n` is fixed
//! by `n`: equal discs at one ply are one position. Symmetric images are different positions (A124005's
//! convention); on 8x8 no game ends before ply 9, so the published terms of plies 0..8 cannot tell
//! whether ended games count, and our choice is the one under which paths sum to games.
//!
//! **Symmetry.** The layers store one *class* per orbit of the group `H` of board symmetries
//! that map the starting position onto itself (discs, colours and side to move): on the 8x8
//! start that is the identity, the half turn and the two diagonal mirrors (the other four swap
//! the colours of the centre). Such a symmetry maps games to games ply by ply, so every member of
//! an orbit is reached by the same number of paths. Each class carries the number of paths into
//! its whole orbit, `T`, which propagates without division: a child class gets the `T` of every
//! parent class times the number of the parent representative's moves that lead into it. At the
//! end each class contributes its orbit size `|H| / |stabiliser|` to the distinct positions, and
//! to the one-path positions too when `T` equals the orbit size (one path per member). The
//! `classes` column is this number of orbits: positions up to the symmetries that fix the start
//! (not up to all eight symmetries of the square, which would also merge positions reached from
//! the colour-swapped start).
//!
//! **Method, and why not dp's layers.** `count::dp` layers positions by disc count with passes
//! folded in, per first-move class: its layers do not line up with plies. Here a layer is the
//! set of classes at one ply, stored as `(player, opponent, paths)` entries of 24 bytes, sorted.
//! The next layer is built in *rounds*: a first pass over the parents only counts the children
//! falling into each of 1024 hash partitions, which fixes exactly how many raw children each
//! round will hold; rounds then group partitions so that the parent layer, the children kept so
//! far and one round's raw children fit the budget. Each round regenerates the parents' children,
//! keeps those of its partitions, sorts them in place and sums equal keys. Memory is therefore
//! known before it is used, and a layer too large to keep is still counted (round by round) as
//! the last ply of the run. A hash table would merge children as they come and hold only the
//! classes, but at a safe load factor (half full) it takes 48 bytes a class and its size must be
//! guessed; sorting a round's raw children in place takes 24 bytes a raw child (on 8x8 about
//! 1.4 raw children a class), and the counting pass gives every round's size exactly.

use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::board::{flips, legal_moves, Position, Shape, Squares, Symmetry};
use crate::progress::Progress;

/// What went wrong while counting positions.
#[derive(Debug, thiserror::Error)]
pub enum PositionsError {
    /// A path count did not fit 64 bits.
    #[error("a path count at ply {ply} does not fit 64 bits")]
    Overflow {
        /// The ply.
        ply: u32,
    },
}

/// How to count positions.
#[derive(Debug, Clone, Copy)]
pub struct PositionsOptions {
    /// Memory for the layers, in MiB.
    pub memory_mb: u64,
    /// Store one class per orbit of the symmetries that fix the start (results are the same;
    /// only time and memory change).
    pub symmetry: bool,
}

impl Default for PositionsOptions {
    fn default() -> Self {
        PositionsOptions {
            memory_mb: 1024,
            symmetry: true,
        }
    }
}

/// One ply of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionsRow {
    /// Plies from the given position (0 is the position itself).
    pub ply: u32,
    /// Games in progress or just ended at this ply (A124004): the sum of all paths.
    pub games: u128,
    /// Distinct positions (A124005): discs and side to move; symmetric images are different.
    pub positions: u128,
    /// Positions reached by exactly one sequence of moves (A124006).
    pub one_path: u128,
    /// Positions up to the symmetries that fix the starting position (the classes stored).
    pub classes: u64,
}

/// Time and memory of one ply, kept apart from the figures so that the figures can be compared
/// across runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlyCost {
    /// The ply.
    pub ply: u32,
    /// Wall time for this ply, in seconds.
    pub seconds: f64,
    /// Most bytes held by layers and round buffers at once while building this ply.
    pub peak_bytes: u64,
    /// Rounds the children were built in.
    pub rounds: u32,
}

/// The result of a positions run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PositionsReport {
    /// Board size, such as `8x8`.
    pub board: String,
    /// The board string of the position counted from.
    pub position: String,
    /// The conventions, in words.
    pub convention: String,
    /// The symmetries that fix the starting position (the group the classes are taken under).
    pub symmetries: Vec<String>,
    /// One row per ply, from 0.
    pub plies: Vec<PositionsRow>,
    /// Time and memory per ply (ply 0 has none).
    pub costs: Vec<PlyCost>,
    /// Why the table stops before the depth asked for, if it does.
    pub stopped: Option<String>,
    /// Wall time in seconds.
    pub seconds: f64,
}

/// The convention printed with every table.
pub const CONVENTION: &str =
    "plies as OEIS A124004 (a pass uses a ply; an ended game is not carried on); \
     a position is the discs and the side to move, symmetric images are different (A124005); \
     games that end at a ply are among its positions; classes are orbits under the symmetries \
     that fix the start";

/// Bytes of one stored class.
pub(crate) const ENTRY_BYTES: u64 = std::mem::size_of::<Entry>() as u64;

/// One class: a representative `(player, opponent)` and the paths into its whole orbit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) p: u64,
    pub(crate) o: u64,
    pub(crate) paths: u64,
}

/// The symmetries of `root`'s board that map it onto itself, identity first.
#[must_use]
pub fn fixing_symmetries(root: &Position) -> Vec<Symmetry> {
    let s = root.shape();
    Symmetry::all(s)
        .iter()
        .copied()
        .filter(|g| {
            g.apply(s, root.player()) == root.player()
                && g.apply(s, root.opponent()) == root.opponent()
        })
        .collect()
}

/// log2 of the number of hash partitions rounds are made of.
const PART_BITS: u32 = 10;
const PARTS: usize = 1 << PART_BITS;

/// Parent entries handed to one rayon task.
const CHUNK: usize = 1 << 12;

#[inline]
fn part_of(p: u64, o: u64) -> usize {
    let h = (p ^ o.rotate_left(31).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (h >> (64 - PART_BITS)) as usize
}

/// A group of symmetries acting on disc sets, with the canonical (least) image.
#[derive(Debug, Clone)]
pub(crate) struct Group {
    shape: Shape,
    syms: Vec<Symmetry>,
}

impl Group {
    pub(crate) fn new(root: &Position, symmetry: bool) -> Group {
        let syms = if symmetry {
            fixing_symmetries(root)
        } else {
            vec![Symmetry::Identity]
        };
        Group {
            shape: root.shape(),
            syms,
        }
    }

    #[inline]
    fn canonical(&self, p: u64, o: u64) -> (u64, u64) {
        let mut best = (p, o);
        for g in &self.syms[1..] {
            let img = (g.apply(self.shape, p), g.apply(self.shape, o));
            if img < best {
                best = img;
            }
        }
        best
    }

    /// Members of the orbit of `(p, o)`: the group's order over the stabiliser's.
    #[inline]
    fn orbit(&self, p: u64, o: u64) -> u64 {
        let fixed = self
            .syms
            .iter()
            .filter(|g| g.apply(self.shape, p) == p && g.apply(self.shape, o) == o)
            .count();
        (self.syms.len() / fixed) as u64
    }

    fn names(&self) -> Vec<String> {
        self.syms.iter().map(|g| format!("{g:?}")).collect()
    }
}

/// Calls `f` with the canonical key of every child of `(p, o)` (one per legal placement, or the
/// pass, or none when the game is over).
#[inline]
fn for_each_child(g: &Group, mask: u64, p: u64, o: u64, mut f: impl FnMut(u64, u64)) {
    let empty = mask & !(p | o);
    let moves = legal_moves(p, o, empty);
    if moves == 0 {
        if legal_moves(o, p, empty) != 0 {
            let (a, b) = g.canonical(o, p);
            f(a, b);
        }
        return;
    }
    for sq in Squares(moves) {
        let fl = flips(p, o, sq);
        let (a, b) = g.canonical(o ^ fl, p | fl | (1u64 << sq));
        f(a, b);
    }
}

/// The figures of one layer.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    games: u128,
    positions: u128,
    one_path: u128,
    classes: u64,
}

impl Tally {
    fn add(self, o: Tally) -> Tally {
        Tally {
            games: self.games + o.games,
            positions: self.positions + o.positions,
            one_path: self.one_path + o.one_path,
            classes: self.classes + o.classes,
        }
    }

    fn of(g: &Group, entries: &[Entry]) -> Tally {
        entries
            .par_iter()
            .fold(Tally::default, |mut t, e| {
                let orbit = g.orbit(e.p, e.o);
                t.games += u128::from(e.paths);
                t.positions += u128::from(orbit);
                if e.paths == orbit {
                    t.one_path += u128::from(orbit);
                }
                t.classes += 1;
                t
            })
            .reduce(Tally::default, Tally::add)
    }
}

/// One ply's classes, in pieces (one per round), each sorted by key.
pub(crate) struct Layer {
    pub(crate) ply: u32,
    pieces: Vec<Vec<Entry>>,
}

impl Layer {
    fn len(&self) -> usize {
        self.pieces.iter().map(Vec::len).sum()
    }

    fn bytes(&self) -> u64 {
        self.len() as u64 * ENTRY_BYTES
    }

    /// The classes in one vector, in a fixed order (rounds in turn, each sorted).
    pub(crate) fn into_entries(self) -> Vec<Entry> {
        let mut all = Vec::with_capacity(self.len());
        for piece in self.pieces {
            all.extend_from_slice(&piece);
        }
        all
    }
}

/// What building one ply gave.
enum Built {
    /// The layer, kept for the next ply.
    Kept(Tally, PlyCost),
    /// Counted, but too large to keep: the run cannot go further.
    Counted(Tally, PlyCost),
    /// Even one round does not fit the budget, or the user stopped the run.
    Not(String),
}

/// Builds the layers of one run, ply by ply.
pub(crate) struct Layers<'a> {
    group: Group,
    mask: u64,
    budget: u64,
    /// Most raw children in one round (tests lower it to force many rounds).
    round_cap: u64,
    progress: &'a dyn Progress,
    pub(crate) layer: Layer,
}

impl<'a> Layers<'a> {
    pub(crate) fn new(
        root: &Position,
        symmetry: bool,
        budget: u64,
        progress: &'a dyn Progress,
    ) -> Layers<'a> {
        let group = Group::new(root, symmetry);
        let (p, o) = group.canonical(root.player(), root.opponent());
        let orbit = group.orbit(p, o);
        Layers {
            group,
            mask: root.shape().mask(),
            budget,
            round_cap: u64::MAX,
            progress,
            layer: Layer {
                ply: 0,
                pieces: vec![vec![Entry { p, o, paths: orbit }]],
            },
        }
    }

    /// Raw children (before merging) of the current layer per hash partition.
    fn histogram(&self) -> Vec<u64> {
        let (g, mask) = (&self.group, self.mask);
        self.progress.start(
            &format!("ply {} count", self.layer.ply + 1),
            self.layer.len() as u64,
        );
        let h = self
            .layer
            .pieces
            .par_iter()
            .flat_map(|piece| piece.par_chunks(CHUNK))
            .fold(
                || vec![0u64; PARTS],
                |mut h, chunk| {
                    for e in chunk {
                        for_each_child(g, mask, e.p, e.o, |a, b| h[part_of(a, b)] += 1);
                    }
                    self.progress.advance(chunk.len() as u64);
                    h
                },
            )
            .reduce(
                || vec![0u64; PARTS],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        self.progress.finish();
        h
    }

    /// The children of the current layer whose partition is in `parts`, merged and sorted.
    fn round(
        &self,
        parts: std::ops::Range<usize>,
        raw: u64,
        label: &str,
    ) -> Result<Vec<Entry>, PositionsError> {
        let (g, mask) = (&self.group, self.mask);
        let ply = self.layer.ply + 1;
        self.progress.start(label, self.layer.len() as u64);
        // Each task gathers its chunk's children, then appends them to the round's buffer,
        // whose size the histogram fixed: no vector ever grows past it. The order of the
        // appends varies, the sort below makes it irrelevant.
        let all = std::sync::Mutex::new(Vec::with_capacity(raw as usize));
        self.layer
            .pieces
            .par_iter()
            .flat_map(|piece| piece.par_chunks(CHUNK))
            .for_each_init(Vec::new, |v, chunk| {
                if self.progress.should_stop() {
                    return;
                }
                v.clear();
                for e in chunk {
                    for_each_child(g, mask, e.p, e.o, |a, b| {
                        if parts.contains(&part_of(a, b)) {
                            v.push(Entry {
                                p: a,
                                o: b,
                                paths: e.paths,
                            });
                        }
                    });
                }
                all.lock()
                    .expect("no panics while appending")
                    .extend_from_slice(v);
                self.progress.advance(chunk.len() as u64);
            });
        self.progress.finish();
        let mut all = all.into_inner().expect("no panics while appending");
        all.par_sort_unstable_by_key(|e| (e.p, e.o));
        // Sum the paths of equal keys in place.
        let mut w = 0;
        for r in 0..all.len() {
            if w > 0 && all[w - 1].p == all[r].p && all[w - 1].o == all[r].o {
                all[w - 1].paths = all[w - 1]
                    .paths
                    .checked_add(all[r].paths)
                    .ok_or(PositionsError::Overflow { ply })?;
            } else {
                all[w] = all[r];
                w += 1;
            }
        }
        all.truncate(w);
        all.shrink_to_fit();
        Ok(all)
    }

    /// Builds the next ply; keeps it if `keep` and it fits.
    fn next(&mut self, keep: bool) -> Result<Built, PositionsError> {
        let t0 = Instant::now();
        let ply = self.layer.ply + 1;
        let hist = self.histogram();
        let parent = self.layer.bytes();
        let mut kept: Vec<Vec<Entry>> = Vec::new();
        let mut kept_bytes = 0u64;
        let mut keeping = keep;
        let mut tally = Tally::default();
        let mut peak = parent;
        let mut rounds = 0;
        let mut lo = 0;
        while lo < PARTS {
            if self.progress.should_stop() {
                return Ok(Built::Not(format!("stopped during ply {ply}")));
            }
            let mut room = self.budget.saturating_sub(parent + kept_bytes);
            if keeping && hist[lo] * ENTRY_BYTES > room {
                // The layer will not fit next to its parent: count the rest, keep nothing.
                keeping = false;
                kept.clear();
                kept_bytes = 0;
                room = self.budget.saturating_sub(parent);
            }
            if hist[lo] * ENTRY_BYTES > room {
                return Ok(Built::Not(format!(
                    "ply {ply} does not fit the memory budget of {} MiB",
                    self.budget >> 20
                )));
            }
            let mut hi = lo;
            let mut raw = 0;
            while hi < PARTS
                && (raw + hist[hi]) * ENTRY_BYTES <= room
                && (hi == lo || raw + hist[hi] <= self.round_cap)
            {
                raw += hist[hi];
                hi += 1;
            }
            rounds += 1;
            let label = format!("ply {ply} r{rounds}");
            let piece = self.round(lo..hi, raw, &label)?;
            if self.progress.should_stop() {
                return Ok(Built::Not(format!("stopped during ply {ply}")));
            }
            peak = peak.max(parent + kept_bytes + raw * ENTRY_BYTES);
            tally = tally.add(Tally::of(&self.group, &piece));
            if lo > 0 || hi < PARTS {
                self.progress.note(&format!(
                    "ply {ply} round {rounds}: partitions {lo}..{hi} of {PARTS}, {} classes, {:.0} s",
                    piece.len(),
                    t0.elapsed().as_secs_f64()
                ));
            }
            if keeping {
                kept_bytes += piece.len() as u64 * ENTRY_BYTES;
                kept.push(piece);
            }
            lo = hi;
        }
        let cost = PlyCost {
            ply,
            seconds: t0.elapsed().as_secs_f64(),
            peak_bytes: peak,
            rounds,
        };
        if keeping {
            self.layer = Layer { ply, pieces: kept };
            Ok(Built::Kept(tally, cost))
        } else {
            Ok(Built::Counted(tally, cost))
        }
    }

    /// Builds the next ply and keeps it if it fits the budget. Returns its games (the sum of
    /// its paths) and whether it was kept; `None` if it could not be built (budget or stop).
    pub(crate) fn advance(&mut self) -> Result<Option<(u128, bool)>, PositionsError> {
        Ok(match self.next(true)? {
            Built::Kept(t, _) => Some((t.games, true)),
            Built::Counted(t, _) => Some((t.games, false)),
            Built::Not(_) => None,
        })
    }

    /// The current layer, ending the run.
    pub(crate) fn into_layer(self) -> Layer {
        self.layer
    }
}

/// Counts games, distinct positions, one-path positions and classes at each ply from `root` to
/// `depth`, under a memory budget. The table stops early (with the reason in
/// [`PositionsReport::stopped`]) when a layer no longer fits or the run is stopped.
///
/// # Errors
///
/// [`PositionsError::Overflow`] if a path count exceeds 64 bits.
///
/// # Examples
///
/// ```
/// use reversi_nxn::board::Shape;
/// use reversi_nxn::positions::{positions, PositionsOptions};
/// use reversi_nxn::progress::Silent;
/// // OEIS A124005 and A124006 on 8x8: 54 positions at ply 3, 52 of them by one path.
/// let start = Shape::square(8).unwrap().start();
/// let r = positions(&start, 3, PositionsOptions::default(), &Silent).unwrap();
/// assert_eq!((r.plies[3].positions, r.plies[3].one_path), (54, 52));
/// ```
pub fn positions(
    root: &Position,
    depth: u32,
    opts: PositionsOptions,
    progress: &dyn Progress,
) -> Result<PositionsReport, PositionsError> {
    run(
        root,
        depth,
        opts.symmetry,
        opts.memory_mb << 20,
        u64::MAX,
        progress,
    )
}

/// [`positions`] with the budget in bytes.
fn run(
    root: &Position,
    depth: u32,
    symmetry: bool,
    budget: u64,
    round_cap: u64,
    progress: &dyn Progress,
) -> Result<PositionsReport, PositionsError> {
    let t0 = Instant::now();
    let mut layers = Layers::new(root, symmetry, budget, progress);
    layers.round_cap = round_cap;
    let first = Tally::of(&layers.group, &layers.layer.pieces[0]);
    let mut plies = vec![row(0, first)];
    let mut costs = Vec::new();
    let mut stopped = None;
    for ply in 1..=depth {
        // Every ply counted is reported, the last (counted but not kept) too.
        let report = |t: &Tally, c: &PlyCost| {
            progress.note(&format!(
                "ply {ply}: {} games, {} positions, {} by one path, {} classes ({:.1} s, peak {:.0} MiB)",
                t.games,
                t.positions,
                t.one_path,
                t.classes,
                c.seconds,
                c.peak_bytes as f64 / f64::from(1 << 20)
            ));
        };
        match layers.next(ply < depth)? {
            Built::Kept(t, c) => {
                report(&t, &c);
                plies.push(row(ply, t));
                costs.push(c);
            }
            Built::Counted(t, c) => {
                report(&t, &c);
                plies.push(row(ply, t));
                costs.push(c);
                if ply < depth {
                    stopped = Some(format!(
                        "ply {ply} is too large to keep in the memory budget of {} MiB",
                        budget >> 20
                    ));
                }
                break;
            }
            Built::Not(why) => {
                stopped = Some(why);
                break;
            }
        }
    }
    Ok(PositionsReport {
        board: root.shape().name(),
        position: root.to_board_string(),
        convention: CONVENTION.to_string(),
        symmetries: layers.group.names(),
        plies,
        costs,
        stopped,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

fn row(ply: u32, t: Tally) -> PositionsRow {
    PositionsRow {
        ply,
        games: t.games,
        positions: t.positions,
        one_path: t.one_path,
        classes: t.classes,
    }
}

/// The table as CSV: `ply,games,positions,one_path,classes`.
#[must_use]
pub fn csv(report: &PositionsReport) -> String {
    let mut s = String::from("ply,games,positions,one_path,classes\n");
    for r in &report.plies {
        s.push_str(&format!(
            "{},{},{},{},{}\n",
            r.ply, r.games, r.positions, r.one_path, r.classes
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;

    #[test]
    fn symmetry_and_budget_do_not_change_the_figures() {
        for (r, c, d) in [(4, 4, 16), (4, 5, 12), (5, 5, 9), (6, 6, 7)] {
            let start = Shape::new(r, c).unwrap().start();
            let full = positions(&start, d, PositionsOptions::default(), &Silent).unwrap();
            let plain = PositionsOptions {
                symmetry: false,
                ..PositionsOptions::default()
            };
            let plain = positions(&start, d, plain, &Silent).unwrap();
            // Rounds so small that the larger layers take several.
            let widest = full.plies.iter().map(|r| r.classes).max().unwrap();
            let tight = run(&start, d, true, 1 << 30, widest / 3, &Silent).unwrap();
            assert!(tight.costs.iter().any(|c| c.rounds > 2), "{r}x{c}");
            assert_eq!(full.plies.len(), d as usize + 1);
            assert_eq!(plain.plies.len(), full.plies.len());
            assert_eq!(tight.plies.len(), full.plies.len());
            for ((a, b), t) in full.plies.iter().zip(&plain.plies).zip(&tight.plies) {
                assert_eq!(
                    (a.games, a.positions, a.one_path),
                    (b.games, b.positions, b.one_path)
                );
                assert_eq!(a, t);
            }
        }
    }

    #[test]
    fn a_budget_too_small_ends_the_table_early() {
        let start = Shape::square(6).unwrap().start();
        let full = positions(&start, 9, PositionsOptions::default(), &Silent).unwrap();
        let eighth = full.plies[8].classes * ENTRY_BYTES;
        // Room for ply 8 but not for ply 8 and ply 9 together: ply 9 is counted, not kept.
        let short = run(&start, 10, true, eighth * 3 / 2, u64::MAX, &Silent).unwrap();
        assert!(short.stopped.is_some());
        assert!(short.plies.len() < 11);
        assert_eq!(short.plies[..], full.plies[..short.plies.len()]);
    }
}
