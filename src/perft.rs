//! Games per ply (perft) from any position, in OEIS A124004's convention.
//!
//! **Convention.** A *ply* is one turn: a placement or a forced pass, so a pass uses a ply. The
//! games counted at ply `n` are those still in progress or that ended exactly at ply `n`; a game
//! that ended earlier is not counted again. This is OEIS A124004 ("Number of possible Reversi
//! games at the end of the n-th ply"): 4, 12, 56, 244, 1396, 8200, 55092, 390216, ... on 8x8.
//!
//! **Method.** The first plies are expanded breadth-first into a *frontier* whose positions are
//! merged when equal up to symmetry (and colour, for the detailed table), each carrying the
//! number of paths into it; the frontier's subtrees then run in parallel on rayon. The
//! count-only path ([`perft`]) counts the last ply in bulk (the number of moves of each position
//! one ply short) and shares subtree counts through a transposition table; the detailed path
//! ([`perft_table`]) also finds which games end at each ply and their final scores.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::board::{flips, legal_moves, Position, Squares};
use crate::cpu::{Call, Cpu, Job, Level};
use crate::positions::{Layers, PositionsError};
use crate::progress::Progress;

/// How to run perft.
#[derive(Debug, Clone, Copy)]
pub struct PerftOptions {
    /// Merge symmetric positions in the frontier (a square board's start has 4 symmetric first
    /// moves, so this alone divides the work by about 4).
    pub symmetry: bool,
    /// Memory for the transposition table of the count-only path, in MiB (0 turns it off).
    pub hash_mb: usize,
}

impl Default for PerftOptions {
    fn default() -> Self {
        PerftOptions {
            symmetry: true,
            hash_mb: 256,
        }
    }
}

/// Final scores of the games that ended at one ply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreCount {
    /// Black discs at the end.
    pub black: u32,
    /// White discs at the end.
    pub white: u32,
    /// Number of games ending so.
    pub games: u128,
}

/// One row of the per-ply table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlyRow {
    /// Ply number, 1 for the first turn from the given position.
    pub ply: u32,
    /// Games in progress or just ended at the end of this ply (A124004).
    pub games: u128,
    /// Games that ended exactly at this ply (`None` on the count-only path).
    pub ended: Option<u128>,
    /// Final scores of the games that ended at this ply (empty on the count-only path).
    pub ended_scores: Vec<ScoreCount>,
}

/// The result of a perft run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PerftReport {
    /// Board size, such as `8x8`.
    pub board: String,
    /// The board string of the position counted from.
    pub position: String,
    /// The convention, in words.
    pub convention: String,
    /// One row per ply, 1..=depth.
    pub plies: Vec<PlyRow>,
    /// Wall time in seconds.
    pub seconds: f64,
    /// The ply whose distinct positions (up to symmetry) were counted from, on the deep path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_at: Option<u32>,
}

impl PerftReport {
    /// Games at the last ply per second of wall time.
    #[must_use]
    pub fn leaves_per_second(&self) -> f64 {
        let last = self.plies.last().map_or(0, |r| r.games);
        last as f64 / self.seconds.max(1e-9)
    }
}

/// The convention printed with every table.
pub const CONVENTION: &str =
    "OEIS A124004: a pass uses a ply; a game that ended is not counted at later plies";

/// Number of games in progress or just ended after exactly `depth` plies from `pos`.
///
/// # Examples
///
/// ```
/// use reversi_nxn::board::Shape;
/// use reversi_nxn::perft::{perft, PerftOptions};
/// // OEIS A124004: 4, 12, 56, 244 on the 8x8 board.
/// let start = Shape::square(8).unwrap().start();
/// assert_eq!(perft(&start, 4, PerftOptions::default()), 244);
/// ```
#[must_use]
pub fn perft(pos: &Position, depth: u32, opts: PerftOptions) -> u128 {
    perft_with(pos, depth, opts, &crate::progress::Silent)
}

/// [`perft`] with progress reported per frontier subtree.
#[must_use]
pub fn perft_with(pos: &Position, depth: u32, opts: PerftOptions, progress: &dyn Progress) -> u128 {
    count_from(pos, depth, opts, &PerftTable::new(opts.hash_mb), progress)
}

/// [`perft_with`] on a given table (its counts stay valid across depths and positions).
fn count_from(
    pos: &Position,
    depth: u32,
    opts: PerftOptions,
    table: &PerftTable,
    progress: &dyn Progress,
) -> u128 {
    if depth == 0 {
        return 1;
    }
    let mut detail = Detail::new(depth);
    let (split, tasks) = frontier(pos, depth, opts.symmetry, false, &mut detail);
    if split == depth {
        return detail.games[depth as usize];
    }
    let remaining = depth - split;
    let mask = pos.shape().mask();
    progress.start("perft", tasks.len() as u64);
    let total = tasks
        .par_iter()
        .map(|t| {
            let n = count(t.pos.player(), t.pos.opponent(), mask, remaining, table);
            progress.advance(1);
            u128::from(n) * t.weight
        })
        .sum();
    progress.finish();
    total
}

/// The per-ply table to `depth`: games at each ply, games ended at each ply and their scores.
#[must_use]
pub fn perft_table(
    pos: &Position,
    depth: u32,
    opts: PerftOptions,
    progress: &dyn Progress,
) -> PerftReport {
    let t0 = Instant::now();
    let mut detail = Detail::new(depth);
    let (split, mut tasks) = frontier(pos, depth, opts.symmetry, true, &mut detail);
    if split == depth {
        tasks.clear(); // the frontier reached the last ply: every count is in `detail`
    }
    let mask = pos.shape().mask();
    progress.start("perft", tasks.len() as u64);
    let from_tasks = tasks
        .par_iter()
        .map(|t| {
            let mut acc = Detail::new(depth);
            let (p, o) = (t.pos.player(), t.pos.opponent());
            let moves = legal_moves(p, o, mask & !(p | o));
            walk(
                p,
                o,
                t.pos.black_to_move(),
                moves,
                mask,
                split,
                depth,
                &mut acc,
            );
            progress.advance(1);
            acc.scaled(t.weight)
        })
        .reduce(|| Detail::new(depth), Detail::merged);
    progress.finish();
    detail = detail.merged(from_tasks);
    let plies = (1..=depth)
        .map(|ply| {
            let mut ended_scores: Vec<ScoreCount> = detail
                .scores
                .iter()
                .filter(|(&(p, _, _), _)| p == ply)
                .map(|(&(_, black, white), &games)| ScoreCount {
                    black,
                    white,
                    games,
                })
                .collect();
            ended_scores.sort_by_key(|s| (s.black, s.white));
            PlyRow {
                ply,
                games: detail.games[ply as usize],
                ended: Some(detail.ended[ply as usize]),
                ended_scores,
            }
        })
        .collect();
    PerftReport {
        board: pos.shape().name(),
        position: pos.to_board_string(),
        convention: CONVENTION.to_string(),
        plies,
        seconds: t0.elapsed().as_secs_f64(),
        merged_at: None,
    }
}

/// The per-ply games column only, each ply by the fast count-only path.
#[must_use]
pub fn perft_counts(
    pos: &Position,
    depth: u32,
    opts: PerftOptions,
    progress: &dyn Progress,
) -> PerftReport {
    let t0 = Instant::now();
    let table = PerftTable::new(opts.hash_mb);
    let plies = (1..=depth)
        .map(|ply| PlyRow {
            ply,
            games: count_from(pos, ply, opts, &table, progress),
            ended: None,
            ended_scores: Vec::new(),
        })
        .collect();
    PerftReport {
        board: pos.shape().name(),
        position: pos.to_board_string(),
        convention: CONVENTION.to_string(),
        plies,
        seconds: t0.elapsed().as_secs_f64(),
        merged_at: None,
    }
}

/// What can stop a deep perft run.
#[derive(Debug, thiserror::Error)]
pub enum PerftError {
    /// Building the merged layers failed.
    #[error(transparent)]
    Positions(#[from] PositionsError),
    /// The checkpoint could not be read or written.
    #[error("checkpoint {path}: {msg}")]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        msg: String,
    },
    /// The checkpoint is refused: damaged, truncated, written by another run or version, or
    /// left by a stopped run that a fresh one would overwrite. The message says what to do.
    #[error("checkpoint {path}: {msg}")]
    CheckpointRefused {
        /// The file.
        path: PathBuf,
        /// What is wrong with it and what to do.
        msg: String,
    },
    /// The user stopped the run; the finished work is in the checkpoint.
    #[error("stopped; the finished work is saved in {0} (run again with --resume)")]
    Stopped(String),
}

impl PerftError {
    /// Whether the user can correct it by changing the command or deleting a file, as opposed
    /// to a failure of the machine.
    #[must_use]
    pub fn is_input(&self) -> bool {
        matches!(self, PerftError::CheckpointRefused { .. })
    }
}

/// Options of [`perft_deep`].
#[derive(Debug, Clone, Default)]
pub struct DeepOptions {
    /// Memory for the merged layers, in MiB (the transposition table has its own
    /// [`PerftOptions::hash_mb`]).
    pub memory_mb: u64,
    /// The ply to merge positions at; `None` picks [`auto_merge_ply`] (lowered to what the
    /// memory holds).
    pub merge_ply: Option<u32>,
    /// Where to save finished work now and then (removed when the run completes).
    pub checkpoint: Option<PathBuf>,
    /// Continue from the checkpoint instead of refusing to overwrite it.
    pub resume: bool,
}

/// The merge ply [`perft_deep`] picks for `depth`: three plies short of it, at most ply 11,
/// never below ply 2. On 8x8 (BENCHMARKS.md) depth 14 took 47.6 s merged at ply 8, 39.8 s at
/// ply 10 and 34.6 s at ply 11, depth 13 5.6 s at ply 9 and 5.2 s at ply 10; building ply 12's
/// 141 million classes takes 4.7 GiB, more than the default budget.
#[must_use]
pub fn auto_merge_ply(depth: u32) -> u32 {
    depth.saturating_sub(3).clamp(2, 11)
}

/// How many pieces the tasks of one ply are cut into: the units of progress and of the
/// checkpoint.
const DEEP_CHUNKS: usize = 4096;

/// Seconds between two saves of the checkpoint.
const SAVE_EVERY: Duration = Duration::from_secs(5);

/// What a deep run is: a checkpoint continues only the same run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct DeepRun {
    position: String,
    depth: u32,
    merge_ply: u32,
    symmetry: bool,
    tasks: usize,
    tasks_hash: String,
    chunks: usize,
}

/// Version of the checkpoint's layout; files of other versions are refused. (2: sealed, with
/// the build.)
const DEEP_FORMAT: u32 = 2;

/// The checkpoint of a deep run, sealed with a checksum of its content (see
/// [`crate::sealed`]).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct DeepFile {
    format: u32,
    /// The program that wrote it ([`crate::sealed::build`]).
    build: String,
    #[serde(flatten)]
    run: DeepRun,
    /// Plies past the merge ply counted to the end: `(ply, games)`.
    plies: Vec<(u32, u128)>,
    /// The ply being counted and its finished chunks `(chunk, games)`.
    current: u32,
    done: Vec<(usize, u128)>,
}

fn checkpoint_err(path: &Path, msg: impl std::fmt::Display) -> PerftError {
    PerftError::Checkpoint {
        path: path.to_path_buf(),
        msg: msg.to_string(),
    }
}

/// A checkpoint that must not be used: `what` is wrong with it, and the only way on is a fresh
/// run (the file is rewritten in place, so there is no older state to go back to).
fn refused(path: &Path, what: impl std::fmt::Display) -> PerftError {
    PerftError::CheckpointRefused {
        path: path.to_path_buf(),
        msg: format!("{what}; delete it and run again without --resume"),
    }
}

fn save(path: Option<&Path>, file: &DeepFile) -> Result<(), PerftError> {
    let Some(path) = path else { return Ok(()) };
    crate::sealed::write_json(path, file).map_err(|e| checkpoint_err(path, e))
}

/// The checkpoint at `path`, if it is whole and of the run `file` describes.
fn load(path: &Path, file: &DeepFile) -> Result<DeepFile, PerftError> {
    let old: DeepFile = crate::sealed::read_json(path).map_err(|e| {
        if e.is_damage() {
            refused(path, e)
        } else {
            checkpoint_err(path, e)
        }
    })?;
    if old.format != DEEP_FORMAT {
        return Err(refused(path, "not a perft checkpoint of this version"));
    }
    if old.build != file.build {
        return Err(refused(
            path,
            format!("written by {}, not by this {}", old.build, file.build),
        ));
    }
    if old.run != file.run {
        return Err(refused(
            path,
            "belongs to another run (position, depth, merge ply or memory differ)",
        ));
    }
    let in_range = old.current > old.run.merge_ply
        && old
            .plies
            .iter()
            .all(|&(p, _)| p > old.run.merge_ply && p <= old.run.depth)
        && old.done.iter().all(|&(c, _)| c < old.run.chunks);
    if !in_range {
        return Err(refused(path, "damaged (a ply or chunk out of range)"));
    }
    Ok(old)
}

/// Games per ply to `depth`, for deep runs: the positions of the first `k` plies are built
/// breadth-first and merged when equal or symmetric (under the symmetries that fix `pos`), each
/// class carrying the number of games that reach it (see [`crate::positions`]); then every class
/// of ply `k` is counted to each deeper ply by the count-only search (bulk counting at the last
/// ply, the shared transposition table) and its count multiplied by its games. Plies up to `k`
/// come from the layers themselves. The deepest published runs split the same way.
///
/// The classes of ply `k` are cut into a fixed number of chunks in a fixed order; finished chunks
/// are saved to [`DeepOptions::checkpoint`] every few seconds, so a stopped run resumes where it
/// was. Results never depend on the thread count.
///
/// # Errors
///
/// A path count overflowing 64 bits, a checkpoint that cannot be written or belongs to another
/// run, or [`PerftError::Stopped`] when the user stopped the run.
///
/// # Examples
///
/// ```
/// use reversi_nxn::board::Shape;
/// use reversi_nxn::perft::{perft_deep, DeepOptions, PerftOptions};
/// use reversi_nxn::progress::Silent;
/// let start = Shape::square(8).unwrap().start();
/// let deep = DeepOptions { memory_mb: 64, merge_ply: Some(4), ..DeepOptions::default() };
/// let r = perft_deep(&start, 9, PerftOptions::default(), &deep, &Silent).unwrap();
/// // OEIS A124004: 3,005,288 games at ply 9.
/// assert_eq!(r.plies[8].games, 3_005_288);
/// ```
pub fn perft_deep(
    pos: &Position,
    depth: u32,
    opts: PerftOptions,
    deep: &DeepOptions,
    progress: &dyn Progress,
) -> Result<PerftReport, PerftError> {
    let t0 = Instant::now();
    let target = deep
        .merge_ply
        .unwrap_or_else(|| auto_merge_ply(depth))
        .min(depth);
    let mut layers = Layers::new(pos, opts.symmetry, deep.memory_mb << 20, progress);
    let mut games: Vec<u128> = Vec::new(); // games[ply - 1]
    while layers.layer.ply < target {
        match layers.advance()? {
            Some((g, kept)) => {
                games.push(g);
                if !kept {
                    break; // the next ply is counted but does not fit: merge here
                }
            }
            None => {
                if progress.should_stop() {
                    return Err(PerftError::Stopped(
                        "nothing (stopped while merging)".into(),
                    ));
                }
                break;
            }
        }
    }
    let layer = layers.into_layer();
    let k = layer.ply;
    let tasks = layer.into_entries();
    let mask = pos.shape().mask();
    let table = PerftTable::new(opts.hash_mb);
    let chunks = tasks.len().clamp(1, DEEP_CHUNKS);
    let bounds = |c: usize| (c * tasks.len() / chunks, (c + 1) * tasks.len() / chunks);
    let mut h = crate::fnv::OFFSET;
    for t in &tasks {
        for x in [t.p, t.o, t.paths] {
            h = crate::fnv::fnv1a(h, &x.to_le_bytes());
        }
    }
    let mut file = DeepFile {
        format: DEEP_FORMAT,
        build: crate::sealed::build(),
        run: DeepRun {
            position: pos.to_board_string(),
            depth,
            merge_ply: k,
            symmetry: opts.symmetry,
            tasks: tasks.len(),
            tasks_hash: format!("{h:016x}"),
            chunks,
        },
        plies: Vec::new(),
        current: k + 1,
        done: Vec::new(),
    };
    let path = deep.checkpoint.as_deref();
    if let Some(path) = path.filter(|p| p.exists()) {
        if !deep.resume {
            return Err(PerftError::CheckpointRefused {
                path: path.to_path_buf(),
                msg: "exists (a stopped run); continue it with --resume or delete it".into(),
            });
        }
        file = load(path, &file)?;
    }
    for ply in k + 1..=depth {
        if games.len() >= ply as usize {
            continue; // counted while building the layers, which then stopped at ply k
        }
        if let Some(&(_, g)) = file.plies.iter().find(|(p, _)| *p == ply) {
            games.push(g);
            continue;
        }
        if file.current != ply {
            file.current = ply;
            file.done.clear();
        }
        let mut finished = vec![None; chunks];
        for &(c, g) in &file.done {
            finished[c] = Some(g);
        }
        let todo: Vec<usize> = (0..chunks).filter(|&c| finished[c].is_none()).collect();
        progress.start(&format!("ply {ply}/{depth}"), chunks as u64);
        progress.advance((chunks - todo.len()) as u64);
        let state = Mutex::new((file.clone(), Instant::now(), None::<PerftError>));
        todo.par_iter().for_each(|&c| {
            if progress.should_stop() {
                return;
            }
            let (lo, hi) = bounds(c);
            let sum: u128 = tasks[lo..hi]
                .iter()
                .map(|t| u128::from(count(t.p, t.o, mask, ply - k, &table)) * u128::from(t.paths))
                .sum();
            progress.advance(1);
            let mut st = state.lock().expect("no panics while recording");
            st.0.done.push((c, sum));
            if st.1.elapsed() >= SAVE_EVERY {
                st.1 = Instant::now();
                if let Err(e) = save(path, &st.0) {
                    st.2.get_or_insert(e);
                }
            }
        });
        progress.finish();
        let (f, _, error) = state.into_inner().expect("no panics while recording");
        file = f;
        if let Some(e) = error {
            return Err(e);
        }
        if progress.should_stop() {
            file.done.sort_unstable();
            save(path, &file)?;
            let saved = path.map_or("nothing (no checkpoint file)".to_string(), |p| {
                p.display().to_string()
            });
            return Err(PerftError::Stopped(saved));
        }
        let total: u128 = file.done.iter().map(|&(_, g)| g).sum();
        file.plies.push((ply, total));
        file.done.clear();
        file.current = ply + 1;
        // A run of a few seconds never touches the disk.
        if t0.elapsed() >= SAVE_EVERY {
            save(path, &file)?;
        }
        games.push(total);
    }
    if let Some(path) = path {
        let _ = std::fs::remove_file(path);
    }
    let plies = games
        .iter()
        .enumerate()
        .map(|(i, &g)| PlyRow {
            ply: i as u32 + 1,
            games: g,
            ended: None,
            ended_scores: Vec::new(),
        })
        .collect();
    Ok(PerftReport {
        board: pos.shape().name(),
        position: pos.to_board_string(),
        convention: CONVENTION.to_string(),
        plies,
        seconds: t0.elapsed().as_secs_f64(),
        merged_at: Some(k),
    })
}

/// Per-ply tallies: games, ended games, and ended games by `(ply, black, white)`.
#[derive(Debug, Clone)]
struct Detail {
    games: Vec<u128>,
    ended: Vec<u128>,
    scores: HashMap<(u32, u32, u32), u128>,
}

impl Detail {
    fn new(depth: u32) -> Detail {
        Detail {
            games: vec![0; depth as usize + 1],
            ended: vec![0; depth as usize + 1],
            scores: HashMap::new(),
        }
    }

    fn end(&mut self, ply: u32, black: u32, white: u32, weight: u128) {
        self.ended[ply as usize] += weight;
        *self.scores.entry((ply, black, white)).or_insert(0) += weight;
    }

    fn scaled(mut self, weight: u128) -> Detail {
        self.games.iter_mut().for_each(|g| *g *= weight);
        self.ended.iter_mut().for_each(|g| *g *= weight);
        self.scores.values_mut().for_each(|g| *g *= weight);
        self
    }

    fn merged(mut self, other: Detail) -> Detail {
        for (a, b) in self.games.iter_mut().zip(other.games) {
            *a += b;
        }
        for (a, b) in self.ended.iter_mut().zip(other.ended) {
            *a += b;
        }
        for (k, v) in other.scores {
            *self.scores.entry(k).or_insert(0) += v;
        }
        self
    }
}

/// A frontier position and the number of paths that reach it (itself or a symmetric image).
struct Task {
    pos: Position,
    weight: u128,
}

/// How many frontier subtrees to aim for: enough for work stealing to keep every core busy to
/// the end.
fn frontier_target() -> usize {
    256 * rayon::current_num_threads()
}

/// Expands `root` ply by ply, tallying into `detail`, until the frontier is large enough or
/// `depth` is reached. Returns the frontier's ply and its (merged) positions, none of them ended.
fn frontier(
    root: &Position,
    depth: u32,
    symmetry: bool,
    by_colour: bool,
    detail: &mut Detail,
) -> (u32, Vec<Task>) {
    let mut level = vec![Task {
        pos: *root,
        weight: 1,
    }];
    if root.is_over() {
        return (depth, Vec::new());
    }
    let mut ply = 0;
    while ply < depth && level.len() < frontier_target() {
        ply += 1;
        let mut next: HashMap<(u64, u64, bool), Task> = HashMap::new();
        for t in &level {
            for turn in t.pos.legal_turns() {
                let child = t.pos.apply(turn).expect("legal turn");
                detail.games[ply as usize] += t.weight;
                if child.is_over() {
                    detail.end(ply, child.black_count(), child.white_count(), t.weight);
                    continue;
                }
                let (p, o) = if symmetry {
                    child.canonical()
                } else {
                    (child.player(), child.opponent())
                };
                let key = (p, o, by_colour && child.black_to_move());
                next.entry(key)
                    .and_modify(|e| e.weight += t.weight)
                    .or_insert(Task {
                        pos: child,
                        weight: t.weight,
                    });
            }
        }
        let mut tasks: Vec<Task> = next.into_values().collect();
        // A fixed order keeps runs reproducible (HashMap order is not).
        tasks.sort_by_key(|t| (t.pos.player(), t.pos.opponent(), t.pos.black_to_move()));
        level = tasks;
    }
    (ply, level)
}

/// Depth-first tally below a position at `ply` that has not ended and whose legal moves are
/// `moves`, down to `depth`.
#[allow(clippy::too_many_arguments)]
fn walk(
    p: u64,
    o: u64,
    black_to_move: bool,
    moves: u64,
    mask: u64,
    ply: u32,
    depth: u32,
    acc: &mut Detail,
) {
    let child_ply = ply + 1;
    let empty = mask & !(p | o);
    if moves == 0 {
        // A forced pass (the position has not ended, so the opponent can move).
        acc.games[child_ply as usize] += 1;
        if child_ply < depth {
            let m = legal_moves(o, p, empty);
            walk(o, p, !black_to_move, m, mask, child_ply, depth, acc);
        }
        return;
    }
    acc.games[child_ply as usize] += u128::from(moves.count_ones());
    for sq in Squares(moves) {
        let f = flips(p, o, sq);
        let (np, no) = (o ^ f, p | f | (1u64 << sq));
        let ce = empty & !(1u64 << sq);
        let cm = legal_moves(np, no, ce);
        if cm == 0 && legal_moves(no, np, ce) == 0 {
            let (black, white) = if black_to_move { (no, np) } else { (np, no) };
            acc.end(child_ply, black.count_ones(), white.count_ones(), 1);
        } else if child_ply < depth {
            walk(np, no, !black_to_move, cm, mask, child_ply, depth, acc);
        }
    }
}

/// Shallowest remaining depth whose counts go into the table. Shallower subtrees are cheaper to
/// recount than to look up.
const TABLE_MIN_DEPTH: u32 = 3;

/// Nodes exactly `depth >= 1` plies below `(p, o)`, by the best copy of the count this CPU runs
/// ([`crate::cpu`]): the x86-64-v3 copy (hardware `popcnt`, the AVX2 flips) took ply 13 of 8x8
/// from 17.0 s to 11.1 s on the loaded project machine (BENCHMARKS.md).
fn count(p: u64, o: u64, mask: u64, depth: u32, table: &PerftTable) -> u64 {
    count_at(crate::cpu::level(), p, o, mask, depth, table)
}

/// [`count`] by the copy for `level` (or the best below it the CPU has).
fn count_at(level: Level, p: u64, o: u64, mask: u64, depth: u32, table: &PerftTable) -> u64 {
    let shared = Shared { mask, table };
    crate::cpu::run_at(
        level,
        Start {
            shared: &shared,
            p,
            o,
            depth,
        },
    )
}

/// What every call of one count shares: the board and the table of subtree counts.
struct Shared<'a> {
    mask: u64,
    table: &'a PerftTable,
}

/// The count from its root, in the copy of a level.
struct Start<'s, 'a> {
    shared: &'s Shared<'a>,
    p: u64,
    o: u64,
    depth: u32,
}

impl Job for Start<'_, '_> {
    type Output = u64;
    /// The x86-64-v4 copy measured no faster than the x86-64-v3 one (BENCHMARKS.md).
    const TOP: Level = Level::V3;
    #[inline(always)]
    fn run<C: Cpu>(self, cpu: C) -> u64 {
        cpu.call(Count(self.shared), self.p, self.o, u64::from(self.depth), 0)
    }
}

/// Nodes exactly `depth >= 1` plies below `(p, o)`: the count-only search, called with the
/// position and the depth in registers ([`Call`]).
#[derive(Clone, Copy)]
struct Count<'s, 'a>(&'s Shared<'a>);

impl Call for Count<'_, '_> {
    type Output = u64;
    #[inline(always)]
    fn call<C: Cpu>(self, cpu: C, p: u64, o: u64, depth: u64, _: u64) -> u64 {
        let Shared { mask, table } = *self.0;
        let empty = mask & !(p | o);
        let moves = legal_moves(p, o, empty);
        if moves == 0 {
            if legal_moves(o, p, empty) == 0 {
                return 0; // ended: not counted at later plies
            }
            return if depth == 1 {
                1
            } else {
                cpu.call(self, o, p, depth - 1, 0)
            };
        }
        if depth == 1 {
            return u64::from(moves.count_ones());
        }
        let depth32 = depth as u32;
        let use_table = depth32 >= TABLE_MIN_DEPTH && table.enabled();
        if use_table {
            if let Some(n) = table.get(p, o, depth32) {
                return n;
            }
        }
        let mut n = 0;
        for sq in Squares(moves) {
            let f = cpu.flips(p, o, sq);
            n += cpu.call(self, o ^ f, p | f | (1u64 << sq), depth - 1, 0);
        }
        if use_table {
            table.put(p, o, depth32, n);
        }
        n
    }
}

/// One slot: the full key (both bitboards and the depth), so a hit is never a collision.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    p: u64,
    o: u64,
    depth: u32,
    count: u64,
}

/// Number of independently locked shards; two threads almost never meet in one.
const SHARDS: usize = 256;

/// A transposition table of subtree counts, shared by all threads, always-replace.
struct PerftTable {
    shards: Vec<Mutex<Vec<Slot>>>,
    slots_per_shard: usize,
}

impl PerftTable {
    fn new(mb: usize) -> PerftTable {
        let total = mb * (1 << 20) / std::mem::size_of::<Slot>();
        let slots_per_shard = total / SHARDS;
        let shards = if slots_per_shard == 0 {
            Vec::new()
        } else {
            (0..SHARDS)
                .map(|_| Mutex::new(vec![Slot::default(); slots_per_shard]))
                .collect()
        };
        PerftTable {
            shards,
            slots_per_shard,
        }
    }

    fn enabled(&self) -> bool {
        !self.shards.is_empty()
    }

    fn locate(&self, p: u64, o: u64, depth: u32) -> (usize, usize) {
        let h = (p ^ o.rotate_left(29) ^ u64::from(depth).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let h = h ^ (h >> 31);
        let shard = (h as usize) % SHARDS;
        let slot = ((h >> 8) as usize) % self.slots_per_shard;
        (shard, slot)
    }

    fn get(&self, p: u64, o: u64, depth: u32) -> Option<u64> {
        let (shard, slot) = self.locate(p, o, depth);
        let s = self.shards[shard].lock().ok()?[slot];
        (s.depth == depth && s.p == p && s.o == o).then_some(s.count)
    }

    fn put(&self, p: u64, o: u64, depth: u32, count: u64) {
        let (shard, slot) = self.locate(p, o, depth);
        if let Ok(mut guard) = self.shards[shard].lock() {
            guard[slot] = Slot { p, o, depth, count };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Shape;
    use crate::progress::Silent;

    #[test]
    fn every_copy_of_the_count_agrees() {
        let start = Shape::square(8).unwrap().start();
        let table = PerftTable::new(16);
        let (p, o, m) = (start.player(), start.opponent(), start.shape().mask());
        // OEIS A124004: 390,216 games at ply 8; every copy of the count this CPU runs.
        let (pos, _) = Shape::new(5, 6).unwrap().start().after_moves("c2").unwrap();
        let (q, r, n) = (pos.player(), pos.opponent(), pos.shape().mask());
        let at = count_at;
        let portable: Vec<u64> = (1..=9)
            .map(|d| at(Level::Portable, q, r, n, d, &PerftTable::new(0)))
            .collect();
        for level in crate::cpu::levels() {
            assert_eq!(at(level, p, o, m, 8, &table), 390_216, "{level:?}");
            for d in 1..=9 {
                let a = at(level, q, r, n, d, &PerftTable::new(0));
                assert_eq!(a, portable[d as usize - 1], "{level:?} at depth {d}");
            }
        }
    }

    #[test]
    fn table_and_count_paths_agree() {
        for (r, c) in [(4, 4), (5, 5), (4, 6), (6, 6)] {
            let start = Shape::new(r, c).unwrap().start();
            let table = perft_table(&start, 9, PerftOptions::default(), &Silent);
            let plain = PerftOptions {
                symmetry: false,
                hash_mb: 0,
            };
            for row in &table.plies {
                assert_eq!(
                    row.games,
                    perft(&start, row.ply, plain),
                    "{r}x{c} ply {}",
                    row.ply
                );
                assert_eq!(
                    row.games,
                    perft(&start, row.ply, PerftOptions::default()),
                    "{r}x{c} ply {}",
                    row.ply
                );
            }
        }
    }
}
