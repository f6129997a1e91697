//! A solve that outlives its process ([`Solver::solve_kept`](super::Solver::solve_kept)): its
//! state in a directory, so that a crash, `kill -9` or a new machine loses only the last few
//! minutes, and a stop asked for ([`Stop`]: Ctrl-C, SIGTERM) nothing of what the snapshots
//! keep.
//!
//! The directory holds two files, each replaced whole (written aside, then renamed):
//!
//! - `solve-state.json`: the position, the scoring rule, and each root move's exact value as
//!   it is found (once per symmetry class, as [`Solver::solve`](super::Solver::solve) finds
//!   them), the bounds of the value of the root move in progress that MTD(f) has proven so
//!   far (a resumed run starts the move inside them), with the nodes and seconds of all runs
//!   so far; then the principal variation's walk as far as it has gone (the turns found, and
//!   how many moves of the next turn, in the walk's order, were refuted), so that a resumed
//!   run takes the walk up at the test it stopped in;
//! - `solve-table.bin`: every few minutes, a snapshot of the transposition table's bounds of
//!   the largest subtrees ([`Table::snapshot`]), at most a given number of them: exact ones,
//!   and the selective ones of the probcut passes with their level, so that a root move
//!   stopped in its passes does not start them again from nothing.
//!
//! A resumed solve skips the root moves whose values are kept and puts the snapshot's bounds
//! into its table before it searches, so the search in progress finds its largest subtrees
//! settled or bounded, and a walk kept goes on from its last test. The value, the principal
//! variation and every move's value are the same as an uninterrupted solve's: table bounds
//! are facts about positions, and the principal variation follows from the value by a fixed
//! rule (see [`super`]), whose steps the walk keeps. Only the node counts differ: work lost
//! in a stop is done again.
//!
//! Both files are checked before they are trusted: the state against the position and rule
//! asked for and the board's limits; the snapshot by a checksum, its header, and every bound
//! (disjoint discs on the board, the empty squares it claims, a lower bound at most the upper
//! one, both within the table's range of -64 to +64 where a bound of ±64 means none, a best
//! move on an empty square, a level of 0 to 15). Selective bounds are read only by selective
//! searches, as in the table, so they steer the passes and never reach an exact value.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::table::{Bound, Saved, Table};
use crate::board::{othello_rule_bounds, parse_moves, Move, MoveToken, Position, Scoring};
use crate::fnv::{fnv1a, OFFSET};
use crate::lock::{lock_dir, Lock, LockError};

/// The state file's name in the directory.
pub const STATE_FILE: &str = "solve-state.json";
/// The table snapshot's name in the directory.
pub const TABLE_FILE: &str = "solve-table.bin";
/// Bytes one bound takes in a snapshot.
pub const SAVED_BYTES: usize = 24;

const FORMAT: u32 = 1;
/// The second format: written by a table whose stores cannot mix two positions' bounds.
const MAGIC: &[u8; 8] = b"RNXNTAB2";
/// The first format, written before 2026-11-28 (session 41) by builds whose table, when
/// threads stored the same slot at once, could merge the bounds of the position a slot held
/// into those of the one replacing it: its exact bounds cannot be trusted, and it is refused.
const MAGIC_RACY: &[u8; 8] = b"RNXNTAB1";

/// What can go wrong with a solve's state.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A file is damaged.
    #[error(
        "{}: {why}; the state is damaged: delete that file (only the work it kept is lost) and \
         run again with --resume",
        path.display()
    )]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// The state of another solve.
    #[error(
        "{} belongs to another solve ({found}), not this one ({wanted}); give another --state, \
         or the position and --scoring it was started with",
        path.display()
    )]
    OtherRun {
        /// The file.
        path: PathBuf,
        /// Its solve in words.
        found: String,
        /// This one's.
        wanted: String,
    },
    /// The state exists and `--resume` was not given.
    #[error(
        "{} exists already: add --resume to go on with this solve, or give another --state",
        path.display()
    )]
    Exists {
        /// The state file.
        path: PathBuf,
    },
    /// `--status` found no state.
    #[error("{} does not exist: no solve is kept there", path.display())]
    Missing {
        /// The state file.
        path: PathBuf,
    },
    /// Another run uses the directory.
    #[error(transparent)]
    Locked(#[from] LockError),
    /// `--import` names no solve whose bounds can be carried over.
    #[error("--import {}: {why}", path.display())]
    NotImportable {
        /// The directory.
        path: PathBuf,
        /// Why not.
        why: String,
    },
}

impl StateError {
    fn io(path: &Path, source: std::io::Error) -> StateError {
        StateError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    fn damaged(path: &Path, why: impl Into<String>) -> StateError {
        StateError::Damaged {
            path: path.to_path_buf(),
            why: why.into(),
        }
    }

    /// Whether the user can mend it (exit code 2): all but I/O errors.
    #[must_use]
    pub fn is_usage(&self) -> bool {
        !matches!(self, StateError::Io { .. })
    }
}

/// One root move's child, solved: its symmetry-canonical discs and its value for the side to
/// move at the root, with the nodes and seconds it took: those of all runs from the moment the
/// move before it was solved (or the solve began) to its own end, the work redone after stops
/// included ([`StateFile::current_from`]). A move recorded by a build before that was kept, or
/// begun in a file without it, counts only its last run's part.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct RootValue {
    player: String,
    opponent: String,
    value: i32,
    nodes: u64,
    seconds: f64,
}

/// Totals of all runs at one moment of a solve.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
struct Totals {
    nodes: u64,
    seconds: f64,
}

/// A root move's child not solved yet, with the bounds of its value (for the side to move at
/// the root, inclusive) that the exact search has proven so far.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct OpenRoot {
    player: String,
    opponent: String,
    /// The value is at least this (minus the board's squares: nothing proven).
    lower: i32,
    /// The value is at most this (the board's squares: nothing proven).
    upper: i32,
}

/// The principal variation's walk as far as a run took it (it begins once every root move's
/// value is kept).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct PvWalk {
    /// The turns found from the position, separated by spaces ("d2 c4 pass c5").
    found: String,
    /// The moves of the next turn refuted so far (their tests failed), separated by spaces.
    #[serde(default)]
    refuted: String,
}

/// The state file.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct StateFile {
    format: u32,
    board: String,
    position: String,
    scoring: String,
    /// Nodes and seconds of all runs, as of this file's writing.
    nodes: u64,
    seconds: f64,
    /// Runs that have worked on it, this one included.
    runs: u32,
    roots: Vec<RootValue>,
    /// Root moves' children in progress, with the bounds proven so far (absent in the files
    /// of builds before they were kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    open: Vec<OpenRoot>,
    /// The totals of all runs when the root move now in progress began (the solve's start, or
    /// the moment the move before it was recorded); its nodes and seconds are counted from
    /// them. Absent in the files of builds before it was kept: such a file without a move in
    /// progress began its next move at its own totals (it is written only when a move's bounds
    /// or value are), and one with a move in progress counts that move's last run only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    current_from: Option<Totals>,
    /// The principal variation's walk so far (absent before it begins, and in the files of
    /// builds before it was kept, whose resumed runs walk from the root again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pv: Option<PvWalk>,
}

/// What identifies a solve: the board, the position and the scoring rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Identity {
    board: String,
    position: String,
    scoring: String,
}

impl Identity {
    /// The solve of `pos` under `scoring`.
    fn of(pos: &Position, scoring: Scoring) -> Identity {
        Identity {
            board: pos.shape().name(),
            position: pos.to_board_string(),
            scoring: scoring.name().to_string(),
        }
    }

    fn words(&self) -> String {
        format!(
            "{} from {}, scoring {}",
            self.board, self.position, self.scoring
        )
    }
}

/// The header of a table snapshot.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct TableHeader {
    #[serde(flatten)]
    id: Identity,
    nodes: u64,
    seconds: f64,
    /// Runs that have worked on the solve, as of this snapshot.
    runs: u32,
    /// Where the search was when the snapshot was taken, in the words of its progress line
    /// ("root move d2 (1 of 2); exact test: ...; in its tree, moves done by ply: 0 of 3, 1
    /// of 5"); absent in the snapshots of builds before it was kept, and when nothing was
    /// being searched.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    at: String,
}

/// A solve's state in its directory (see the module's documentation), held with the
/// directory's lock.
#[derive(Debug)]
pub struct SolveState {
    dir: PathBuf,
    /// The position solved.
    position: Position,
    file: StateFile,
    /// The snapshot read at opening, until [`SolveState::restore`] puts it into a table.
    snapshot: Vec<Saved>,
    /// Where the search was at the snapshot read at opening (empty: not known).
    at: String,
    /// Seconds between snapshots.
    pub every: Duration,
    /// Most bounds in a snapshot.
    pub max_bounds: usize,
    /// What stops the solve before its end with a last snapshot ([`Stop`]); none: only the
    /// periodic snapshots are written.
    pub stop: Option<Stop>,
    _lock: Lock,
}

/// A stop asked for from outside a kept solve (Ctrl-C or SIGTERM): when `flag` is raised,
/// [`Solver::solve_kept`](super::Solver::solve_kept) writes a last table snapshot at once,
/// then calls `exit`, which ends the process. A search cannot be cut short and stay sound, so
/// the solve does not return: what it proved is in the snapshot and the state, and `--resume`
/// goes on from them.
#[derive(Debug, Clone)]
pub struct Stop {
    /// Raised to ask for the stop.
    pub flag: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Ends the process once the snapshot is written (or failed to be, which it reports).
    pub exit: fn() -> !,
}

fn hex(x: u64) -> String {
    format!("{x:#018x}")
}

fn unhex(s: &str) -> Option<u64> {
    u64::from_str_radix(s.strip_prefix("0x")?, 16).ok()
}

impl SolveState {
    /// Opens the state of solving `pos` under `scoring` in `dir` (created if missing), with
    /// snapshots every `every` of at most `max_bounds` bounds. An existing state is refused
    /// without `resume`, and refused if it is another solve's or damaged.
    ///
    /// # Errors
    ///
    /// [`StateError`]: the directory cannot be made or locked, or its files are refused.
    pub fn open(
        dir: &Path,
        pos: &Position,
        scoring: Scoring,
        resume: bool,
        every: Duration,
        max_bounds: usize,
    ) -> Result<SolveState, StateError> {
        std::fs::create_dir_all(dir).map_err(|e| StateError::io(dir, e))?;
        let lock = lock_dir(dir, "--state")?;
        let id = Identity::of(pos, scoring);
        let state_path = dir.join(STATE_FILE);
        let table_path = dir.join(TABLE_FILE);
        // A file a killed run was writing (the whole files are only ever renamed into place).
        for name in [STATE_FILE, TABLE_FILE] {
            let _ = std::fs::remove_file(dir.join(format!("{name}.tmp")));
        }
        let exists = state_path.exists() || table_path.exists();
        if exists && !resume {
            return Err(StateError::Exists { path: state_path });
        }
        let (mut file, snapshot, at) = load(dir, pos, &id)?;
        file.runs += 1;
        Ok(SolveState {
            dir: dir.to_path_buf(),
            position: *pos,
            file,
            snapshot,
            at,
            every,
            max_bounds,
            stop: None,
            _lock: lock,
        })
    }

    /// Nodes and seconds of the earlier runs, as far as their files kept them.
    #[must_use]
    pub fn before(&self) -> (u64, f64) {
        (self.file.nodes, self.file.seconds)
    }

    /// Root moves' children already solved.
    #[must_use]
    pub fn roots_done(&self) -> usize {
        self.file.roots.len()
    }

    /// Bounds read from the snapshot and not yet restored.
    #[must_use]
    pub fn snapshot_len(&self) -> usize {
        self.snapshot.len()
    }

    /// Where the search was when the snapshot read at opening was taken, in the words of its
    /// progress line; empty when the snapshot does not say (or there is none).
    #[must_use]
    pub fn last_at(&self) -> &str {
        &self.at
    }

    /// Runs that have worked on this solve, this one included.
    #[must_use]
    pub fn runs(&self) -> u32 {
        self.file.runs
    }

    /// The kept value, for the side to move at the root, of the child with canonical discs
    /// `key`.
    #[must_use]
    pub fn known(&self, key: (u64, u64)) -> Option<i32> {
        self.file
            .roots
            .iter()
            .find(|r| unhex(&r.player) == Some(key.0) && unhex(&r.opponent) == Some(key.1))
            .map(|r| r.value)
    }

    /// The bounds proven so far (for the side to move at the root, inclusive) of the value of
    /// the child with canonical discs `key`, not solved yet: `None` when nothing is kept.
    #[must_use]
    pub fn proven(&self, key: (u64, u64)) -> Option<(i32, i32)> {
        self.file
            .open
            .iter()
            .find(|r| unhex(&r.player) == Some(key.0) && unhex(&r.opponent) == Some(key.1))
            .map(|r| (r.lower, r.upper))
    }

    /// Keeps the bounds `lower..=upper` proven for the value of the child with canonical discs
    /// `key` (for the side to move at the root), narrowing those already kept, with the totals
    /// of all runs so far.
    ///
    /// # Errors
    ///
    /// The state file cannot be written.
    pub fn narrow(
        &mut self,
        key: (u64, u64),
        (lower, upper): (i32, i32),
        (total_nodes, total_seconds): (u64, f64),
    ) -> Result<(), StateError> {
        let (player, opponent) = (hex(key.0), hex(key.1));
        match self
            .file
            .open
            .iter_mut()
            .find(|r| r.player == player && r.opponent == opponent)
        {
            Some(r) => {
                r.lower = r.lower.max(lower);
                r.upper = r.upper.min(upper);
            }
            None => self.file.open.push(OpenRoot {
                player,
                opponent,
                lower,
                upper,
            }),
        }
        self.file.nodes = total_nodes;
        self.file.seconds = total_seconds;
        self.write()
    }

    /// Replaces the state file with what is kept.
    fn write(&self) -> Result<(), StateError> {
        let path = self.dir.join(STATE_FILE);
        let text = serde_json::to_string_pretty(&self.file).expect("the state serializes");
        crate::atomic::write_atomic(&path, &format!("{text}\n"))
            .map_err(|e| StateError::io(&path, e))
    }

    /// Puts the snapshot read at opening into `table` (once).
    pub fn restore(&mut self, table: &Table) {
        table.restore(&self.snapshot);
        self.snapshot = Vec::new();
    }

    /// Keeps the value of the child with canonical discs `key` (for the side to move at the
    /// root), found in `nodes` and `seconds` by this run, with the totals of all runs so far.
    /// The move is kept with the nodes and seconds of all runs since it began (the totals now
    /// less those when it began, which the file keeps), or with this run's where the file
    /// does not say when it began; the next move begins now.
    ///
    /// # Errors
    ///
    /// The state file cannot be written.
    pub fn record(
        &mut self,
        key: (u64, u64),
        value: i32,
        (nodes, seconds): (u64, f64),
        (total_nodes, total_seconds): (u64, f64),
    ) -> Result<(), StateError> {
        let (player, opponent) = (hex(key.0), hex(key.1));
        self.file
            .open
            .retain(|r| r.player != player || r.opponent != opponent);
        let (nodes, seconds) = match self.file.current_from {
            Some(from) => (
                total_nodes.saturating_sub(from.nodes),
                (total_seconds - from.seconds).max(0.0),
            ),
            None => (nodes, seconds),
        };
        self.file.current_from = Some(Totals {
            nodes: total_nodes,
            seconds: total_seconds,
        });
        self.file.roots.push(RootValue {
            player,
            opponent,
            value,
            nodes,
            seconds,
        });
        self.file.nodes = total_nodes;
        self.file.seconds = total_seconds;
        self.write()
    }

    /// The principal variation's walk kept by an earlier run: the turns found from the
    /// position and the moves of the next turn refuted (checked on reading: legal turns, every
    /// root move's value kept, refuted moves legal and distinct, not all of them); `None` when
    /// no walk is kept.
    #[must_use]
    pub fn walk(&self) -> Option<(Vec<Move>, Vec<Move>)> {
        let w = self.file.pv.as_ref()?;
        Some(walk_parts(w, &self.position).expect("checked on reading"))
    }

    /// Keeps the principal variation's walk: the turns `found` from the position and the
    /// moves of the next turn `refuted`, with the totals of all runs so far.
    ///
    /// # Errors
    ///
    /// The state file cannot be written.
    pub fn keep_walk(
        &mut self,
        found: &[Move],
        refuted: &[Move],
        (total_nodes, total_seconds): (u64, f64),
    ) -> Result<(), StateError> {
        self.file.pv = Some(PvWalk {
            found: walk_text(found),
            refuted: walk_text(refuted),
        });
        self.file.nodes = total_nodes;
        self.file.seconds = total_seconds;
        self.write()
    }

    /// What writes the snapshots, for a thread beside the search.
    #[must_use]
    pub fn saver(&self) -> Saver {
        Saver {
            path: self.dir.join(TABLE_FILE),
            id: Identity {
                board: self.file.board.clone(),
                position: self.file.position.clone(),
                scoring: self.file.scoring.clone(),
            },
            max_bounds: self.max_bounds,
            every: self.every,
            runs: self.file.runs,
        }
    }
}

/// The state of solving `pos` under `id` in `dir` and its snapshot's bounds, both checked
/// (an empty state when the directory has neither file), with where the search was at the
/// snapshot (empty: not said).
fn load(
    dir: &Path,
    pos: &Position,
    id: &Identity,
) -> Result<(StateFile, Vec<Saved>, String), StateError> {
    let state_path = dir.join(STATE_FILE);
    let table_path = dir.join(TABLE_FILE);
    let mut file = StateFile {
        format: FORMAT,
        board: id.board.clone(),
        position: id.position.clone(),
        scoring: id.scoring.clone(),
        nodes: 0,
        seconds: 0.0,
        runs: 0,
        roots: Vec::new(),
        open: Vec::new(),
        current_from: Some(Totals {
            nodes: 0,
            seconds: 0.0,
        }),
        pv: None,
    };
    if state_path.exists() {
        file = read_state(&state_path, pos, id)?;
        if file.current_from.is_none() && file.open.is_empty() {
            file.current_from = Some(Totals {
                nodes: file.nodes,
                seconds: file.seconds,
            });
        }
    }
    let mut snapshot = Vec::new();
    let mut at = String::new();
    if table_path.exists() {
        let (header, saved) = read_table(&table_path, pos, id)?;
        // The later of the two files has the larger totals.
        if header.seconds > file.seconds {
            file.nodes = header.nodes;
            file.seconds = header.seconds;
        }
        file.runs = file.runs.max(header.runs);
        snapshot = saved;
        at = header.at;
    }
    Ok((file, snapshot, at))
}

/// What a solve's state holds, read without its lock (the run may be going on): see
/// [`status`].
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    /// Runs that have worked on the solve.
    pub runs: u32,
    /// Nodes and seconds of all runs, as of the later of the two files.
    pub nodes: u64,
    /// Seconds of all runs.
    pub seconds: f64,
    /// Bounds in the table snapshot.
    pub bounds: usize,
    /// The children solved (canonical discs), each with its value for the side to move at the
    /// root, nodes and seconds.
    pub solved: Vec<((u64, u64), i32, u64, f64)>,
    /// The children in progress, each with the bounds proven so far (for the side to move at
    /// the root, inclusive).
    pub open: Vec<((u64, u64), i32, i32)>,
    /// Where the search was at the table snapshot, in the words of its progress line (empty:
    /// the snapshot does not say).
    pub at: String,
    /// The principal variation's walk: the turns found and the moves of the next turn
    /// refuted ([`SolveState::walk`]); `None` before it begins.
    pub walk: Option<(Vec<Move>, Vec<Move>)>,
}

impl Status {
    /// The bounds (inclusive, for the side to move at `pos`, the position the state is of) of
    /// `pos`'s value that the kept values and bounds prove: the best child's. `±squares` is no
    /// bound; `None` when `pos` has no legal move.
    #[must_use]
    pub fn root_bounds(&self, pos: &Position) -> Option<(i32, i32)> {
        let squares = pos.shape().squares() as i32;
        let turns = pos.legal_turns();
        if turns.is_empty() {
            return None;
        }
        let (mut lower, mut upper) = (-squares, -squares);
        for &m in &turns {
            let (lo, hi) =
                self.child_bounds(pos.apply(m).expect("legal turn").canonical(), squares);
            lower = lower.max(lo);
            upper = upper.max(hi);
        }
        Some((lower, upper))
    }

    /// The bounds kept for the child with canonical discs `key` (for the side to move at the
    /// root): its value twice when solved, `±squares` when nothing is kept.
    #[must_use]
    pub fn child_bounds(&self, key: (u64, u64), squares: i32) -> (i32, i32) {
        if let Some(&(_, v, _, _)) = self.solved.iter().find(|r| r.0 == key) {
            (v, v)
        } else if let Some(&(_, lo, hi)) = self.open.iter().find(|r| r.0 == key) {
            (lo, hi)
        } else {
            (-squares, squares)
        }
    }
}

/// The state of solving `pos` under `scoring` kept in `dir`, checked as `--resume` checks it.
///
/// # Errors
///
/// [`StateError`]: a file is damaged or another solve's, or `dir` holds no state.
pub fn status(dir: &Path, pos: &Position, scoring: Scoring) -> Result<Status, StateError> {
    let id = Identity::of(pos, scoring);
    let state_path = dir.join(STATE_FILE);
    if !state_path.exists() && !dir.join(TABLE_FILE).exists() {
        return Err(StateError::Missing { path: state_path });
    }
    let (file, snapshot, at) = load(dir, pos, &id)?;
    let key = |p: &str, o: &str| unhex(p).zip(unhex(o)).expect("checked on reading");
    Ok(Status {
        runs: file.runs,
        nodes: file.nodes,
        seconds: file.seconds,
        bounds: snapshot.len(),
        solved: file
            .roots
            .iter()
            .map(|r| (key(&r.player, &r.opponent), r.value, r.nodes, r.seconds))
            .collect(),
        open: file
            .open
            .iter()
            .map(|r| (key(&r.player, &r.opponent), r.lower, r.upper))
            .collect(),
        at,
        walk: file
            .pv
            .as_ref()
            .map(|w| walk_parts(w, pos).expect("checked on reading")),
    })
}

/// The bounds that the solve of `pos` under the blog's rule kept in `dir` proves and that hold
/// under the Othello rule too ([`othello_rule_bounds`]), as table entries for a solve of `pos`
/// under the Othello rule to start from: the snapshot's exact bounds (its selective ones are
/// estimates of the other rule, and are left out), and the root moves' values and bounds as
/// bounds of their children. Read without the lock, so the solve may be running; its files
/// are checked as `--resume` checks them.
///
/// # Errors
///
/// [`StateError::NotImportable`] if `dir` keeps no solve, or one of another position or rule;
/// [`StateError::Damaged`] or [`StateError::Io`] if its files cannot be trusted or read.
pub fn import(dir: &Path, pos: &Position) -> Result<Vec<Saved>, StateError> {
    let id = Identity::of(pos, Scoring::Discs);
    let not = |why: String| StateError::NotImportable {
        path: dir.to_path_buf(),
        why,
    };
    if !dir.join(STATE_FILE).exists() && !dir.join(TABLE_FILE).exists() {
        return Err(not("no solve is kept there".into()));
    }
    let (file, snapshot, _) = load(dir, pos, &id).map_err(|e| match e {
        StateError::OtherRun { found, wanted, .. } => not(format!(
            "it keeps a solve of {found}; bounds are carried over from the solve of the same \
             position under the blog's rule ({wanted})"
        )),
        e => e,
    })?;
    // The table's bounds run to ±64 (none).
    const NONE: i32 = 64;
    let mut out: Vec<Saved> = snapshot
        .into_iter()
        .filter(|s| s.bound.sel == 0)
        .filter_map(|s| {
            let (lower, upper) = othello_rule_bounds(s.bound.lower, s.bound.upper, NONE)?;
            Some(Saved {
                bound: Bound {
                    lower,
                    upper,
                    ..s.bound
                },
                ..s
            })
        })
        .collect();
    // The root moves' children: their values for the side to move at the root, so the
    // children's own are the opposites. A canonical image has its position's value.
    let squares = pos.shape().squares() as i32;
    let roots = file
        .roots
        .iter()
        .map(|r| (&r.player, &r.opponent, r.value, r.value));
    let open = file
        .open
        .iter()
        .map(|r| (&r.player, &r.opponent, r.lower, r.upper));
    for (player, opponent, lower, upper) in roots.chain(open) {
        let (p, o) = unhex(player)
            .zip(unhex(opponent))
            .expect("checked on reading");
        // ±squares is no bound in the state.
        let lower = if lower > -squares { lower } else { -NONE };
        let upper = if upper < squares { upper } else { NONE };
        if let Some((lo, hi)) = othello_rule_bounds(-upper, -lower, NONE) {
            out.push(Saved {
                p,
                o,
                empties: (pos.shape().mask() & !(p | o)).count_ones(),
                bound: Bound {
                    lower: lo,
                    upper: hi,
                    best: None,
                    sel: 0,
                },
            });
        }
    }
    Ok(out)
}

/// Writes table snapshots into a solve's directory.
#[derive(Debug, Clone)]
pub struct Saver {
    path: PathBuf,
    id: Identity,
    max_bounds: usize,
    /// Time between snapshots.
    pub every: Duration,
    runs: u32,
}

impl Saver {
    /// Writes a snapshot of `table` with the totals of all runs so far and where the search
    /// is (`at`, the words of its progress line; empty: not said); returns the bounds written.
    ///
    /// # Errors
    ///
    /// The file cannot be written.
    pub fn save(
        &self,
        table: &Table,
        total_nodes: u64,
        total_seconds: f64,
        at: &str,
    ) -> Result<usize, StateError> {
        let saved = table.snapshot(self.max_bounds);
        let header = TableHeader {
            id: self.id.clone(),
            nodes: total_nodes,
            seconds: total_seconds,
            runs: self.runs,
            at: at.to_string(),
        };
        crate::atomic::write_atomic_with(&self.path, |w| encode(w, &header, &saved))
            .map_err(|e| StateError::io(&self.path, e))?;
        Ok(saved.len())
    }
}

/// Writes a snapshot: the magic, the header's length and JSON, the count, 24 bytes a bound
/// (the two bitboards, then a word: lower + 64, upper + 64, the best move or 255, the empty
/// squares, the selectivity in bits 32..36, so that a snapshot of exact bounds reads as the
/// ones written before selective bounds were kept), then the FNV-1a checksum of all that.
fn encode(w: &mut dyn Write, header: &TableHeader, saved: &[Saved]) -> std::io::Result<()> {
    let mut sum = OFFSET;
    let mut put = |w: &mut dyn Write, bytes: &[u8]| {
        sum = fnv1a(sum, bytes);
        w.write_all(bytes)
    };
    let json = serde_json::to_vec(header).expect("the header serializes");
    put(w, MAGIC)?;
    put(w, &(json.len() as u32).to_le_bytes())?;
    put(w, &json)?;
    put(w, &(saved.len() as u64).to_le_bytes())?;
    for s in saved {
        let b = s.bound;
        let word = (b.lower + 64) as u64
            | ((b.upper + 64) as u64) << 8
            | u64::from(b.best.unwrap_or(255)) << 16
            | u64::from(s.empties) << 24
            | u64::from(b.sel) << 32;
        let mut bytes = [0u8; SAVED_BYTES];
        bytes[..8].copy_from_slice(&s.p.to_le_bytes());
        bytes[8..16].copy_from_slice(&s.o.to_le_bytes());
        bytes[16..].copy_from_slice(&word.to_le_bytes());
        put(w, &bytes)?;
    }
    w.write_all(&sum.to_le_bytes())
}

/// A kept walk's turns from `pos` and the moves of its next turn refuted, or why they cannot
/// be: at least one turn, each legal in turn, and refuted moves legal at the end, distinct,
/// and not all of its moves (one of them keeps the value).
fn walk_parts(w: &PvWalk, pos: &Position) -> Result<(Vec<Move>, Vec<Move>), String> {
    let (end, turns) = pos.after_moves(&w.found).map_err(|e| e.to_string())?;
    if turns.is_empty() {
        return Err("a walk without its first turn".to_string());
    }
    let unfit = || {
        format!(
            "refuted moves \"{}\" not distinct legal moves of the next turn",
            w.refuted
        )
    };
    let mut refuted = Vec::new();
    let mut seen = 0u64;
    for t in parse_moves(&w.refuted, pos.shape()).map_err(|_| unfit())? {
        let MoveToken::Square(sq) = t else {
            return Err(unfit());
        };
        let bit = 1u64 << sq;
        if end.moves() & bit == 0 || seen & bit != 0 {
            return Err(unfit());
        }
        seen |= bit;
        refuted.push(Move::Place(sq));
    }
    if !refuted.is_empty() && seen == end.moves() {
        return Err("every move of the next turn refuted".to_string());
    }
    Ok((turns, refuted))
}

/// The text of a walk's turns `found`, as [`Position::after_moves`] reads it.
fn walk_text(found: &[Move]) -> String {
    found
        .iter()
        .map(|&m| match m {
            Move::Place(sq) => MoveToken::Square(sq).to_string(),
            Move::Pass => MoveToken::Pass.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn read_state(path: &Path, pos: &Position, id: &Identity) -> Result<StateFile, StateError> {
    let text = std::fs::read_to_string(path).map_err(|e| StateError::io(path, e))?;
    let file: StateFile = serde_json::from_str(&text)
        .map_err(|e| StateError::damaged(path, format!("not a solve state ({e})")))?;
    if file.format != FORMAT {
        return Err(StateError::damaged(
            path,
            format!("format {} (this build reads {FORMAT})", file.format),
        ));
    }
    let found = Identity {
        board: file.board.clone(),
        position: file.position.clone(),
        scoring: file.scoring.clone(),
    };
    if &found != id {
        return Err(StateError::OtherRun {
            path: path.to_path_buf(),
            found: found.words(),
            wanted: id.words(),
        });
    }
    if let Some(from) = file.current_from {
        if from.nodes > file.nodes || !(0.0..=file.seconds).contains(&from.seconds) {
            return Err(StateError::damaged(
                path,
                "current_from: totals beyond the file's own (nodes and seconds at most theirs)"
                    .to_string(),
            ));
        }
    }
    // Every kept child must be a root move's child, once, with a value or bounds the board
    // allows.
    let children: Vec<(u64, u64)> = pos
        .legal_turns()
        .iter()
        .map(|&m| pos.apply(m).expect("legal turn").canonical())
        .collect();
    let squares = pos.shape().squares() as i32;
    // The solved children, then those in progress (each with a child not solved).
    let entries = file
        .roots
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let fits = r.value.abs() <= squares;
            (
                "root",
                i,
                &r.player,
                &r.opponent,
                fits,
                "a value beyond the board's squares",
            )
        })
        .chain(file.open.iter().enumerate().map(|(i, r)| {
            let fits = -squares <= r.lower && r.lower <= r.upper && r.upper <= squares;
            let why = "bounds not in order within the board's squares (lower <= upper)";
            ("open", i, &r.player, &r.opponent, fits, why)
        }));
    let mut seen: Vec<(u64, u64)> = Vec::new();
    for (kind, i, player, opponent, fits, unfit) in entries {
        let bad = |why: &str| StateError::damaged(path, format!("{kind} entry {}: {why}", i + 1));
        let key = unhex(player)
            .zip(unhex(opponent))
            .ok_or_else(|| bad("discs not in hexadecimal (0x...)"))?;
        if !children.contains(&key) {
            return Err(bad("not a child of the root position"));
        }
        if let Some(j) = seen.iter().position(|&k| k == key) {
            return Err(bad(if kind == "open" && j < file.roots.len() {
                "a child whose value is kept already"
            } else {
                "the same child twice"
            }));
        }
        seen.push(key);
        if !fits {
            return Err(bad(unfit));
        }
    }
    if !file.seconds.is_finite() || file.seconds < 0.0 {
        return Err(StateError::damaged(path, "negative or unreadable seconds"));
    }
    if let Some(w) = &file.pv {
        let bad = |why: String| StateError::damaged(path, format!("pv: {why}"));
        if !children.iter().all(|k| {
            file.roots
                .iter()
                .any(|r| unhex(&r.player).zip(unhex(&r.opponent)) == Some(*k))
        }) {
            return Err(bad("a walk kept before every root move's value".to_string()));
        }
        walk_parts(w, pos).map_err(bad)?;
    }
    Ok(file)
}

fn read_table(
    path: &Path,
    pos: &Position,
    id: &Identity,
) -> Result<(TableHeader, Vec<Saved>), StateError> {
    let bytes = std::fs::read(path).map_err(|e| StateError::io(path, e))?;
    let bad = |why: String| StateError::damaged(path, why);
    if bytes.len() >= 8 && &bytes[..8] == MAGIC_RACY {
        return Err(bad(
            "written by a build before 2026-11-28 whose table could mix two positions' bounds \
             when threads raced, so its bounds cannot be trusted"
                .into(),
        ));
    }
    if bytes.len() < MAGIC.len() + 4 + 8 + 8 || &bytes[..8] != MAGIC {
        return Err(bad("not a table snapshot of this build".into()));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if fnv1a(OFFSET, body).to_le_bytes() != sum {
        return Err(bad("its checksum does not match (torn or altered)".into()));
    }
    let word = |at: usize| u64::from_le_bytes(body[at..at + 8].try_into().expect("8 bytes"));
    let json_len = u32::from_le_bytes(body[8..12].try_into().expect("4 bytes")) as usize;
    if 12 + json_len + 8 > body.len() {
        return Err(bad("its header runs past the end".into()));
    }
    let header: TableHeader = serde_json::from_slice(&body[12..12 + json_len])
        .map_err(|e| bad(format!("unreadable header ({e})")))?;
    if &header.id != id {
        return Err(StateError::OtherRun {
            path: path.to_path_buf(),
            found: header.id.words(),
            wanted: id.words(),
        });
    }
    if !header.seconds.is_finite() || header.seconds < 0.0 {
        return Err(bad("negative or unreadable seconds".into()));
    }
    let count = word(12 + json_len);
    let start = 12 + json_len + 8;
    if (body.len() - start) as u64 != count.saturating_mul(SAVED_BYTES as u64) {
        return Err(bad(format!(
            "{count} bounds announced, {} bytes of them",
            body.len() - start
        )));
    }
    let mask = pos.shape().mask();
    let mut saved = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        let at = start + i * SAVED_BYTES;
        let (p, o, w) = (word(at), word(at + 8), word(at + 16));
        let lower = (w & 0xFF) as i32 - 64;
        let upper = ((w >> 8) & 0xFF) as i32 - 64;
        let best = ((w >> 16) & 0xFF) as u32;
        let empties = ((w >> 24) & 0xFF) as u32;
        let sel = ((w >> 32) & 0xF) as u8;
        let empty = mask & !(p | o);
        let ok = p & o == 0
            && (p | o) & !mask == 0
            && w >> 36 == 0
            && empty.count_ones() == empties
            && -64 <= lower
            && lower <= upper
            && upper <= 64
            && (best == 255 || (best < 64 && empty & (1 << best) != 0));
        if !ok {
            return Err(bad(format!("bound {} is not one of this board", i + 1)));
        }
        saved.push(Saved {
            p,
            o,
            empties,
            bound: Bound {
                lower,
                upper,
                best: (best != 255).then_some(best),
                sel,
            },
        });
    }
    Ok((header, saved))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Shape;

    fn start() -> Position {
        Shape::new(4, 5).unwrap().start()
    }

    fn open_at(
        dir: &Path,
        pos: &Position,
        scoring: Scoring,
        resume: bool,
    ) -> Result<SolveState, StateError> {
        SolveState::open(
            dir,
            pos,
            scoring,
            resume,
            Duration::from_secs(3600),
            1 << 20,
        )
    }

    fn open(dir: &Path, resume: bool) -> Result<SolveState, StateError> {
        open_at(dir, &start(), Scoring::Discs, resume)
    }

    /// A solve that starts from a snapshot of another's table, and one whose root moves are
    /// all kept, give the uninterrupted solve's answer, with fewer nodes.
    #[test]
    fn a_resumed_solve_gives_the_answer_of_one_solve() {
        use super::super::{SolveOptions, Solver};
        use crate::progress::Silent;
        let pos = Shape::new(5, 6).unwrap().start();
        let opts = SolveOptions::default();
        let want = Solver::new(32).solve(&pos, &opts, &Silent);
        let same = |r: &super::super::SolveReport| {
            (r.value, r.pv.clone(), r.move_values.clone(), r.final_score)
                == (
                    want.value,
                    want.pv.clone(),
                    want.move_values.clone(),
                    want.final_score,
                )
        };
        // A first run stops after its first root move: its table, snapshot, and that value.
        let dir = tempfile::tempdir().unwrap();
        let first = pos.apply(pos.legal_turns()[0]).unwrap();
        let mut partial = Solver::new(32);
        let v = -partial.value(&first);
        let mut state = open_at(dir.path(), &pos, Scoring::Discs, false).unwrap();
        state
            .record(first.canonical(), v, (1, 0.0), (1, 0.0))
            .unwrap();
        state.saver().save(&partial.table, 1, 0.0, "").unwrap();
        drop(state);
        let mut state = open_at(dir.path(), &pos, Scoring::Discs, true).unwrap();
        assert!(state.snapshot_len() > 0);
        let resumed = Solver::new(32)
            .solve_kept(&pos, &opts, &Silent, &mut state)
            .unwrap();
        assert!(same(&resumed));
        assert!(
            resumed.nodes < want.nodes,
            "{} against {}",
            resumed.nodes,
            want.nodes
        );
        // Every root move kept now: nothing but the principal variation is searched again.
        assert_eq!(state.roots_done(), 4);
        let again = Solver::new(32)
            .solve_kept(&pos, &opts, &Silent, &mut state)
            .unwrap();
        assert!(same(&again));
    }

    /// The probcut passes' selective bounds go into a snapshot and back into a table, where
    /// they change no value: a solve that starts from them gives the answer of one without.
    #[test]
    fn selective_bounds_in_a_snapshot_change_no_value() {
        use super::super::{SolveOptions, Solver};
        use crate::progress::Silent;
        // 6x6 (it has pattern weights, so the passes run) at 21 empty squares.
        let mut pos = Shape::new(6, 6).unwrap().start();
        while pos.empty().count_ones() > 21 {
            pos = pos.apply(pos.legal_turns()[0]).unwrap();
        }
        let opts = SolveOptions::default();
        let mut first = Solver::new(16);
        let want = first.solve(&pos, &opts, &Silent);
        let saved = first.table.snapshot(1 << 20);
        assert!(
            saved.iter().any(|s| s.bound.sel > 0),
            "the passes left selective bounds"
        );
        let dir = tempfile::tempdir().unwrap();
        let state = open_at(dir.path(), &pos, Scoring::Discs, false).unwrap();
        state
            .saver()
            .save(&first.table, want.nodes, 0.0, "")
            .unwrap();
        drop(state);
        let mut state = open_at(dir.path(), &pos, Scoring::Discs, true).unwrap();
        assert_eq!(state.snapshot_len(), saved.len());
        let again = Solver::new(16)
            .solve_kept(&pos, &opts, &Silent, &mut state)
            .unwrap();
        assert_eq!(
            (again.value, again.pv, again.move_values, again.final_score),
            (want.value, want.pv, want.move_values, want.final_score)
        );
    }

    /// Bounds kept for a root move in progress narrow as they are proven, are read back by a
    /// resumed run and by [`status`], leave when the move is solved, and a resumed solve
    /// that starts inside them gives the answer of one solve; bounds that are no child's, out
    /// of order, or of a solved child are damage.
    #[test]
    fn proven_bounds_are_kept_narrowed_and_checked() {
        use super::super::{SolveOptions, Solver};
        use crate::progress::Silent;
        let pos = Shape::new(5, 6).unwrap().start();
        let opts = SolveOptions::default();
        let want = Solver::new(32).solve(&pos, &opts, &Silent);
        let dir = tempfile::tempdir().unwrap();
        let turns = pos.legal_turns();
        let first = pos.apply(turns[0]).unwrap().canonical();
        // The first move's value for black, the side to move at the root.
        let v = want.move_values[0].1;
        let mut s = open_at(dir.path(), &pos, Scoring::Discs, false).unwrap();
        assert_eq!(s.proven(first), None);
        s.narrow(first, (v - 6, 30), (5, 1.0)).unwrap();
        s.narrow(first, (-30, v + 2), (6, 2.0)).unwrap();
        s.narrow(first, (v - 8, v + 4), (7, 3.0)).unwrap();
        assert_eq!(s.proven(first), Some((v - 6, v + 2)));
        drop(s);
        let st = status(dir.path(), &pos, Scoring::Discs).unwrap();
        assert_eq!(st.open, vec![(first, v - 6, v + 2)]);
        assert_eq!((st.nodes, st.runs), (7, 1));
        let text = std::fs::read_to_string(dir.path().join(STATE_FILE)).unwrap();
        // A resumed solve starts the first move inside the kept bounds: the same answer.
        let mut s = open_at(dir.path(), &pos, Scoring::Discs, true).unwrap();
        assert_eq!(s.proven(first), Some((v - 6, v + 2)));
        let again = Solver::new(32)
            .solve_kept(&pos, &opts, &Silent, &mut s)
            .unwrap();
        assert_eq!(
            (again.value, again.pv, again.move_values, again.final_score),
            (want.value, want.pv, want.move_values, want.final_score)
        );
        assert_eq!((s.proven(first), s.known(first)), (None, Some(v)));
        drop(s);
        let st = status(dir.path(), &pos, Scoring::Discs).unwrap();
        assert!(st.open.is_empty());
        assert_eq!(st.solved.len(), 4);
        // Damage: bounds out of order, beyond the board, of no child, or of a solved child.
        let path = dir.path().join(STATE_FILE);
        let lower = format!("\"lower\": {}", v - 6);
        for bad in [
            text.replace(&lower, &format!("\"lower\": {}", v + 3)),
            text.replace(&lower, "\"lower\": -31"),
            text.replace(&hex(first.0), &hex(first.0 ^ 1)),
            text.replace(
                "\"roots\": []",
                &format!(
                    "\"roots\": [{{\"player\": \"{}\", \"opponent\": \"{}\", \"value\": {v},                      \"nodes\": 1, \"seconds\": 0.0}}]",
                    hex(first.0),
                    hex(first.1)
                ),
            ),
        ] {
            assert_ne!(bad, text);
            std::fs::write(&path, &bad).unwrap();
            assert!(
                matches!(
                    open_at(dir.path(), &pos, Scoring::Discs, true),
                    Err(StateError::Damaged { .. })
                ),
                "{bad}"
            );
            assert!(matches!(
                status(dir.path(), &pos, Scoring::Discs),
                Err(StateError::Damaged { .. })
            ));
        }
        let empty = tempfile::tempdir().unwrap();
        assert!(matches!(
            status(empty.path(), &pos, Scoring::Discs),
            Err(StateError::Missing { .. })
        ));
    }

    /// Every test's words a solve gives its progress, in order.
    #[derive(Default)]
    struct Named(std::sync::Mutex<Vec<String>>);

    impl crate::progress::Progress for Named {
        fn working_on(&self, what: &str) {
            self.0.lock().unwrap().push(what.to_string());
        }
    }

    /// The principal variation's walk is kept step by step: a finished one whole, so that a
    /// resumed run tests nothing; one stopped after some turns with moves of the next refuted
    /// goes on from there without testing them, to the answer of one solve; a walk of illegal
    /// turns, of refuted moves that are not the next turn's or are all of them, or kept before
    /// every root move's value is damage.
    #[test]
    fn the_walk_is_kept_and_taken_up_where_it_stopped() {
        use super::super::{SolveOptions, Solver};
        use crate::progress::Silent;
        let pos = Shape::new(5, 6).unwrap().start();
        let opts = SolveOptions::default();
        let want = Solver::new(32).solve(&pos, &opts, &Silent);
        let same = |r: &super::super::SolveReport| {
            assert_eq!(
                (r.value, &r.pv, &r.move_values, r.final_score),
                (want.value, &want.pv, &want.move_values, want.final_score)
            );
        };
        let dir = tempfile::tempdir().unwrap();
        let mut s = open_at(dir.path(), &pos, Scoring::Discs, false).unwrap();
        same(
            &Solver::new(32)
                .solve_kept(&pos, &opts, &Silent, &mut s)
                .unwrap(),
        );
        assert_eq!(s.walk(), Some((want.pv.clone(), Vec::new())));
        drop(s);
        // Resumed when finished: every turn replayed, no test.
        let named = Named::default();
        let mut s = open_at(dir.path(), &pos, Scoring::Discs, true).unwrap();
        same(
            &Solver::new(32)
                .solve_kept(&pos, &opts, &named, &mut s)
                .unwrap(),
        );
        drop(s);
        let tests = |named: Named| -> Vec<String> {
            let lines = named.0.into_inner().unwrap();
            lines
                .into_iter()
                .filter(|l| l.starts_with("principal variation: "))
                .collect()
        };
        assert_eq!(tests(named), Vec::<String>::new());
        // Stopped after k turns, every move of the next but the variation's refuted.
        let path = dir.path().join(STATE_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut at = pos;
        let mut k = 0;
        for (i, &m) in want.pv.iter().enumerate() {
            if i >= 3 && at.moves().count_ones() >= 3 {
                k = i;
                break;
            }
            at = at.apply(m).unwrap();
        }
        assert!(k > 0, "a turn of three moves or more after the third");
        let found: Vec<String> = want.pv[..k].iter().map(|&m| pos.move_name(m)).collect();
        let next = want.pv[k];
        let others: Vec<String> = at
            .legal_turns()
            .into_iter()
            .filter(|&m| m != next)
            .map(|m| at.move_name(m))
            .collect();
        let with_walk = |found: &str, refuted: &str| {
            let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
            v["pv"] = serde_json::json!({ "found": found, "refuted": refuted });
            serde_json::to_string_pretty(&v).unwrap()
        };
        std::fs::write(&path, with_walk(&found.join(" "), &others.join(" "))).unwrap();
        let named = Named::default();
        let mut s = open_at(dir.path(), &pos, Scoring::Discs, true).unwrap();
        let mut kept_refuted: Vec<Move> = others
            .iter()
            .map(|n| Move::Place(crate::board::parse_square(n, pos.shape()).unwrap()))
            .collect();
        kept_refuted.sort_by_key(|m| at.move_name(*m));
        let (kept_found, mut read_refuted) = s.walk().unwrap();
        read_refuted.sort_by_key(|m| at.move_name(*m));
        assert_eq!(
            (kept_found, read_refuted),
            (want.pv[..k].to_vec(), kept_refuted)
        );
        same(
            &Solver::new(32)
                .solve_kept(&pos, &opts, &named, &mut s)
                .unwrap(),
        );
        assert_eq!(s.walk(), Some((want.pv.clone(), Vec::new())));
        drop(s);
        let tests = tests(named);
        // The first test is of turn k + 1, and of its variation's move only.
        let first = format!("principal variation: move {}, testing ", k + 1);
        assert!(tests[0].starts_with(&first), "{tests:#?}");
        for l in tests.iter().filter(|l| l.starts_with(&first)) {
            assert!(
                l.starts_with(&format!("{first}{} (", at.move_name(next))),
                "{l}"
            );
        }
        // Damage.
        let illegal = format!("{} {}", found[0], found[0]);
        let last = at.move_name(next);
        let all: Vec<String> = at.legal_turns().iter().map(|&m| at.move_name(m)).collect();
        for (found_text, refuted) in [
            (illegal.as_str(), ""),
            ("", ""),
            (&found.join(" "), "a1"),
            (&found.join(" "), &format!("{last} {last}")),
            (&found.join(" "), &all.join(" ")),
        ] {
            std::fs::write(&path, with_walk(found_text, refuted)).unwrap();
            let e = open_at(dir.path(), &pos, Scoring::Discs, true).unwrap_err();
            assert!(
                e.to_string().contains("pv: "),
                "{found_text} / {refuted}: {e}"
            );
        }
        let mut v: serde_json::Value =
            serde_json::from_str(&with_walk(&found.join(" "), "")).unwrap();
        v["roots"].as_array_mut().unwrap().pop();
        std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
        let e = open_at(dir.path(), &pos, Scoring::Discs, true).unwrap_err();
        assert!(e.to_string().contains("before every root move"), "{e}");
    }

    /// A root move is kept with the nodes and seconds of all runs since the move before it
    /// ended, its part in runs before a stop included; a file of an older build says when its
    /// next move began only when no move was in progress.
    #[test]
    fn a_move_counts_all_runs_since_it_began() {
        let dir = tempfile::tempdir().unwrap();
        let turns = start().legal_turns();
        let kids: Vec<_> = turns
            .iter()
            .map(|&m| start().apply(m).unwrap().canonical())
            .collect();
        let mut s = open(dir.path(), false).unwrap();
        s.narrow(kids[0], (-20, 4), (100, 10.0)).unwrap();
        drop(s);
        // The second run did 50 nodes of the first move, and 30 of the next.
        let mut s = open(dir.path(), true).unwrap();
        s.record(kids[0], 4, (50, 5.0), (150, 15.0)).unwrap();
        s.narrow(kids[1], (-20, 2), (170, 17.0)).unwrap();
        drop(s);
        let mut s = open(dir.path(), true).unwrap();
        s.record(kids[1], 2, (10, 1.0), (180, 18.0)).unwrap();
        drop(s);
        let st = status(dir.path(), &start(), Scoring::Discs).unwrap();
        let took: Vec<_> = st.solved.iter().map(|r| (r.2, r.3)).collect();
        assert_eq!(took, vec![(150, 15.0), (30, 3.0)]);
        // Older files: without a move in progress, the next began at the file's totals;
        // with one, it counts the last run's part.
        let path = dir.path().join(STATE_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        let cut = text.find(",\n  \"current_from\"").unwrap();
        let old = format!("{}\n}}\n", &text[..cut]);
        assert!(!old.contains("current_from") && old.contains("\"nodes\": 180"));
        std::fs::write(&path, &old).unwrap();
        let mut s = open(dir.path(), true).unwrap();
        s.record(kids[2], 0, (7, 0.5), (200, 20.0)).unwrap();
        drop(s);
        let st = status(dir.path(), &start(), Scoring::Discs).unwrap();
        assert_eq!((st.solved[2].2, st.solved[2].3), (20, 2.0));
        std::fs::write(&path, &old).unwrap();
        let mut s = open(dir.path(), true).unwrap();
        s.narrow(kids[2], (-20, 0), (190, 19.0)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            text.replace(
                &text[text.find(",\n  \"current_from\"").unwrap()..],
                "\n}\n",
            ),
        )
        .unwrap();
        drop(s);
        let mut s = open(dir.path(), true).unwrap();
        s.record(kids[2], 0, (7, 0.5), (200, 20.0)).unwrap();
        drop(s);
        let st = status(dir.path(), &start(), Scoring::Discs).unwrap();
        assert_eq!((st.solved[2].2, st.solved[2].3), (7, 0.5));
        // Totals when the move began beyond the file's own are damage.
        let text = std::fs::read_to_string(&path).unwrap();
        let bad = text.replace(
            "\"nodes\": 200,\n    \"seconds\": 20.0",
            "\"nodes\": 201,\n    \"seconds\": 20.0",
        );
        assert_ne!(bad, text);
        std::fs::write(&path, bad).unwrap();
        assert!(matches!(
            open(dir.path(), true),
            Err(StateError::Damaged { .. })
        ));
    }

    #[test]
    fn a_state_is_refused_without_resume_or_for_another_solve() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = open(dir.path(), false).unwrap();
        let child = start().apply(start().legal_turns()[0]).unwrap().canonical();
        s.record(child, 16, (10, 0.5), (10, 0.5)).unwrap();
        drop(s);
        assert!(matches!(
            open(dir.path(), false),
            Err(StateError::Exists { .. })
        ));
        let s = open(dir.path(), true).unwrap();
        assert_eq!(s.known(child), Some(16));
        assert_eq!(s.runs(), 2);
        assert_eq!(s.before(), (10, 0.5));
        drop(s);
        let other = open_at(dir.path(), &start(), Scoring::WinnerTakesEmpties, true);
        assert!(matches!(other, Err(StateError::OtherRun { .. })));
        // A value past the board, or a position that is no child of the root, is damage.
        let path = dir.path().join(STATE_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("\"value\": 16", "\"value\": 21")).unwrap();
        assert!(matches!(
            open(dir.path(), true),
            Err(StateError::Damaged { .. })
        ));
        std::fs::write(&path, text.replace(&hex(child.0), &hex(child.0 ^ 1))).unwrap();
        assert!(matches!(
            open(dir.path(), true),
            Err(StateError::Damaged { .. })
        ));
        std::fs::write(&path, &text[..text.len() / 2]).unwrap();
        assert!(matches!(
            open(dir.path(), true),
            Err(StateError::Damaged { .. })
        ));
    }

    /// What `--import` carries over from a solve under the blog's rule: the exact bounds on the
    /// winner's side of 0, of the snapshot and of the root moves' children (the opposites of
    /// their values for the root's side), and nothing else; a directory without a solve, or
    /// with one under the Othello rule, is refused.
    #[test]
    fn import_carries_only_the_bounds_that_hold_under_both_rules() {
        use super::super::table::Part;
        let dir = tempfile::tempdir().unwrap();
        let pos = start();
        assert!(matches!(
            import(dir.path(), &pos),
            Err(StateError::NotImportable { .. })
        ));
        let kids: Vec<Position> = pos
            .legal_turns()
            .iter()
            .map(|&m| pos.apply(m).unwrap())
            .collect();
        let mut s = open(dir.path(), false).unwrap();
        // The root's side gets +6 after the first move: its child's value is -6.
        s.record(kids[0].canonical(), 6, (1, 0.0), (1, 0.0))
            .unwrap();
        // After the second, between -3 and 5: the child's -5 to 3 crosses 0.
        s.narrow(kids[1].canonical(), (-3, 5), (2, 0.0)).unwrap();
        // After the third, at most -2: the child's at least 2.
        s.narrow(kids[2].canonical(), (-20, -2), (3, 0.0)).unwrap();
        let table = Table::new(1);
        let bound = |lower, upper, sel| Bound {
            lower,
            upper,
            best: None,
            sel,
        };
        // Three grandchildren: (2, 8) keeps its lower bound, (-3, 5) nothing, and a selective
        // (1, 4) is left out.
        let grand: Vec<Position> = kids[0]
            .legal_turns()
            .iter()
            .map(|&m| kids[0].apply(m).unwrap())
            .collect();
        assert!(grand.len() >= 3);
        for (g, b) in grand
            .iter()
            .zip([bound(2, 8, 0), bound(-3, 5, 0), bound(1, 4, 1)])
        {
            table.put(
                Part::Main,
                g.player(),
                g.opponent(),
                g.empty().count_ones(),
                b,
            );
        }
        s.saver().save(&table, 3, 0.0, "").unwrap();
        drop(s);
        let got = import(dir.path(), &pos).unwrap();
        let find = |key: (u64, u64)| {
            got.iter()
                .find(|b| (b.p, b.o) == key)
                .map(|b| (b.bound.lower, b.bound.upper, b.bound.sel))
        };
        assert_eq!(find(kids[0].canonical()), Some((-64, -6, 0)));
        assert_eq!(find(kids[1].canonical()), None);
        assert_eq!(find(kids[2].canonical()), Some((2, 64, 0)));
        assert_eq!(
            find((grand[0].player(), grand[0].opponent())),
            Some((2, 64, 0))
        );
        assert_eq!(find((grand[1].player(), grand[1].opponent())), None);
        assert_eq!(find((grand[2].player(), grand[2].opponent())), None);
        assert_eq!(got.len(), 3);
        // A solve under the Othello rule is no source.
        let other = tempfile::tempdir().unwrap();
        let mut s = open_at(other.path(), &pos, Scoring::WinnerTakesEmpties, false).unwrap();
        s.record(kids[0].canonical(), 6, (1, 0.0), (1, 0.0))
            .unwrap();
        drop(s);
        match import(other.path(), &pos) {
            Err(e @ StateError::NotImportable { .. }) => {
                assert!(e.to_string().contains("blog's rule"), "{e}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_snapshot_is_read_back_and_damage_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let s = open(dir.path(), false).unwrap();
        let table = Table::new(1);
        // Three positions of the 4x5 board with their true empty squares.
        let pos = start();
        let kids: Vec<Position> = pos
            .legal_turns()
            .iter()
            .map(|&m| pos.apply(m).unwrap())
            .collect();
        for (i, k) in kids.iter().enumerate() {
            let empties = k.empty().count_ones();
            let b = Bound {
                lower: -4 + i as i32,
                upper: 8,
                best: k.legal_turns().iter().find_map(|m| match m {
                    crate::board::Move::Place(sq) => Some(*sq),
                    crate::board::Move::Pass => None,
                }),
                // One selective bound (a probcut pass's), kept with its level.
                sel: u8::from(i == 1),
            };
            table.put(
                super::super::table::Part::Main,
                k.player(),
                k.opponent(),
                empties,
                b,
            );
        }
        // (Two children may share a bucket's slot: the table is a cache.)
        let kept = table.snapshot(1000).len();
        assert!(kept >= 2);
        // Where the search was: said, and read back.
        let at = "root move c1 (1 of 3); in its tree, moves done by ply: 0 of 4, 2 of 5";
        assert_eq!(s.saver().save(&table, 1234, 5.0, at).unwrap(), kept);
        drop(s);
        let mut s = open(dir.path(), true).unwrap();
        assert_eq!(s.snapshot_len(), kept);
        assert_eq!(s.before(), (1234, 5.0));
        assert_eq!(s.last_at(), at);
        assert_eq!(status(dir.path(), &pos, Scoring::Discs).unwrap().at, at);
        let fresh = Table::new(1);
        s.restore(&fresh);
        for k in &kids {
            assert_eq!(
                fresh.get(super::super::table::Part::Main, k.player(), k.opponent()),
                table.get(super::super::table::Part::Main, k.player(), k.opponent())
            );
        }
        drop(s);
        // One flipped bit anywhere: refused.
        let path = dir.path().join(TABLE_FILE);
        let good = std::fs::read(&path).unwrap();
        for at in [3, 20, good.len() - 30, good.len() - 1] {
            let mut bytes = good.clone();
            bytes[at] ^= 4;
            std::fs::write(&path, &bytes).unwrap();
            assert!(
                matches!(open(dir.path(), true), Err(StateError::Damaged { .. })),
                "byte {at}"
            );
        }
        // A bound the board cannot have, with a checksum that matches: refused.
        let header = TableHeader {
            id: Identity {
                board: pos.shape().name(),
                position: pos.to_board_string(),
                scoring: "discs".into(),
            },
            nodes: 0,
            seconds: 0.0,
            runs: 1,
            at: String::new(),
        };
        // Not said (as in the snapshots of builds before it was kept): the header has no such
        // field, and it reads as empty.
        let mut bytes = Vec::new();
        encode(&mut bytes, &header, &[]).unwrap();
        assert!(!String::from_utf8_lossy(&bytes).contains("\"at\""));
        std::fs::write(&path, bytes).unwrap();
        assert_eq!(open(dir.path(), true).unwrap().last_at(), "");
        let lie = Saved {
            p: kids[0].player(),
            o: kids[0].opponent(),
            empties: kids[0].empty().count_ones() + 1,
            bound: Bound {
                lower: 0,
                upper: 0,
                best: None,
                sel: 0,
            },
        };
        let mut bytes = Vec::new();
        encode(&mut bytes, &header, &[lie]).unwrap();
        std::fs::write(&path, bytes).unwrap();
        assert!(matches!(
            open(dir.path(), true),
            Err(StateError::Damaged { .. })
        ));
        std::fs::write(&path, &good[..good.len() - 24]).unwrap();
        assert!(matches!(
            open(dir.path(), true),
            Err(StateError::Damaged { .. })
        ));
        // A whole snapshot of the first format, whose builds' stores could mix positions:
        // refused, and the error says why.
        let mut body = good[..good.len() - 8].to_vec();
        body[..8].copy_from_slice(MAGIC_RACY);
        let sum = fnv1a(OFFSET, &body).to_le_bytes();
        body.extend_from_slice(&sum);
        std::fs::write(&path, body).unwrap();
        match open(dir.path(), true) {
            Err(e @ StateError::Damaged { .. }) => {
                assert!(e.to_string().contains("could mix"), "{e}");
            }
            other => panic!("{other:?}"),
        }
    }
}
