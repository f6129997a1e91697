//! The proof log: the whole state of a proof, one line per finished unit, in one file per
//! process (`units-I-of-P.log` in the proof's directory), appended and flushed as each unit
//! ends, so that a stop, a crash or `kill -9` loses only the units in flight.
//!
//! Every line is a checksum (16 hex digits of FNV-1a over the rest of the line) and one JSON
//! object. The first line of a file is its [`Header`]: the board, the root position, the
//! scoring rule and the options that change a unit's result or node count. A file whose
//! header differs from the run's is refused; a line whose checksum does not match, that does
//! not parse or that contradicts another is an error naming the file and line; a last line
//! without its newline (torn by a kill while it was written) is not read, and the process that
//! owns the file cuts it off when it resumes.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::ProofError;
use super::tree::{Facts, Tree, Unit};
use crate::board::{Position, Shape};
use crate::fnv::{fnv1a, OFFSET};

/// The first line of every log file of a proof.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// Always [`Header::FORMAT`].
    pub format: String,
    /// The board, such as `6x7`.
    pub board: String,
    /// The root position's board string.
    pub root: String,
    /// `discs` or `winner-takes-empties`.
    pub scoring: String,
    /// Leaves have at most this many empty squares.
    pub unit_empties: u32,
    /// Each unit's transposition table, in MiB (it changes node counts, not values).
    pub hash_mb: usize,
    /// The solver's switches, as `solve --without` names them ("" for the default).
    pub tuning: String,
    /// Nodes of the heuristic search that orders a node's children (it changes which units run).
    pub order_nodes: u64,
    /// The evaluation that orders the tree and the units' searches ([`crate::proof::evaluation`]):
    /// it changes which units run, so a proof keeps the one it started with. Logs written
    /// before it was recorded were all ordered by `mobility`.
    #[serde(default = "mobility")]
    pub eval: String,
    /// Which tests the leaves get ([`super::Window::name`]): it changes which units run. Logs
    /// written before it was recorded were all of null-window tests.
    #[serde(default = "null")]
    pub unit_window: String,
}

/// The unit window of the logs that predate [`Header::unit_window`].
fn null() -> String {
    "null".to_string()
}

/// The evaluation of the logs that predate [`Header::eval`].
fn mobility() -> String {
    "mobility".to_string()
}

/// The header of the first log in `dir`, if there is one (checked as [`Writer::open`] checks
/// it): so that a resumed proof can take the evaluation it started with.
///
/// # Errors
///
/// [`ProofError::Io`] if the directory or file cannot be read, [`ProofError::Damaged`] if the
/// header line is damaged.
pub fn existing_header(dir: &Path) -> Result<Option<Header>, ProofError> {
    let Some(path) = log_files(dir)?.into_iter().next() else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&path).map_err(|e| ProofError::io(&path, e))?;
    let Some(first) = text.lines().next() else {
        return Ok(None);
    };
    let damaged = |why: &str| ProofError::Damaged {
        path: path.clone(),
        line: 1,
        why: why.to_string(),
    };
    let json = checked(first).ok_or_else(|| damaged("its checksum does not match"))?;
    serde_json::from_str(json)
        .map(Some)
        .map_err(|_| damaged("it is not a proof log's header"))
}

impl Header {
    /// The format name and version of this file layout.
    pub const FORMAT: &'static str = "reversi-nxn proof log 1";
}

/// One finished unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The unit's position: canonical discs, the side to move as `X`.
    pub position: String,
    /// The window was `(alpha, beta)`, for the side to move.
    pub alpha: i32,
    /// Absent for a null-window test (`alpha + 1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<i32>,
    /// The fail-soft result: `v >= result` if at least `beta`, `v <= result` if at most
    /// `alpha`, else `v == result`.
    pub result: i32,
    /// Positions searched (one thread, a fresh table).
    pub nodes: u64,
    /// Seconds it took.
    pub seconds: f64,
    /// The program that solved it.
    pub build: String,
    /// Set on a bound carried over from a proof under the blog's rule ([`super::import`]):
    /// where it comes from. Such lines are only in [`IMPORTED`], with no nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived: Option<String>,
}

/// The file of a proof's directory that holds the bounds carried over from a proof under the
/// blog's rule ([`super::import`]).
pub const IMPORTED: &str = "units-imported.log";

/// The program's name and version, written with every unit.
#[must_use]
pub fn build() -> String {
    crate::sealed::build()
}

/// A line of the log: the checksum of `json`, a space, `json`, a newline.
pub(super) fn line(json: &str) -> String {
    format!("{:016x} {json}\n", fnv1a(OFFSET, json.as_bytes()))
}

/// The JSON of a line, if its checksum matches.
fn checked(text: &str) -> Option<&str> {
    let (sum, json) = text.split_once(' ')?;
    let sum = u64::from_str_radix(sum, 16).ok()?;
    (sum == fnv1a(OFFSET, json.as_bytes())).then_some(json)
}

/// The log file of process `index` of `processes` in `dir`.
#[must_use]
pub fn file_name(dir: &Path, index: u32, processes: u32) -> PathBuf {
    dir.join(format!("units-{index}-of-{processes}.log"))
}

/// The log files in `dir`, sorted by name.
fn log_files(dir: &Path) -> Result<Vec<PathBuf>, ProofError> {
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(ProofError::io(dir, e)),
    };
    for entry in entries {
        let path = entry.map_err(|e| ProofError::io(dir, e))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("units-") && name.ends_with(".log") {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// This process's log: opened for appending under an exclusive lock, its torn last line cut
/// off, its header written if new.
pub struct Writer {
    file: File,
    path: PathBuf,
}

impl Writer {
    /// Opens (or creates) `path` for `header`. Another process holding it is an error that
    /// names it; so is a header that differs from `header`.
    pub fn open(path: &Path, header: &Header) -> Result<Writer, ProofError> {
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| ProofError::io(path, e))?;
        lock(&file, path)?;
        let mut text = Vec::new();
        file.read_to_end(&mut text)
            .map_err(|e| ProofError::io(path, e))?;
        let good = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if good < text.len() {
            // A line torn by a kill: drop it, its unit is solved again.
            file.set_len(good as u64)
                .map_err(|e| ProofError::io(path, e))?;
        }
        file.seek(SeekFrom::End(0))
            .map_err(|e| ProofError::io(path, e))?;
        let mut w = Writer {
            file,
            path: path.to_path_buf(),
        };
        if good == 0 {
            let json = serde_json::to_string(header).expect("a header serialises");
            w.append(&json, true)?;
        } else {
            let first = std::str::from_utf8(&text[..good])
                .ok()
                .and_then(|t| t.lines().next())
                .unwrap_or("");
            check_header(path, first, header)?;
        }
        Ok(w)
    }

    /// Appends a line in one write (so a kill leaves it whole or torn at the end, never
    /// interleaved), synced to the disk when `sync`.
    fn append(&mut self, json: &str, sync: bool) -> Result<(), ProofError> {
        self.file
            .write_all(line(json).as_bytes())
            .and_then(|()| if sync { self.file.sync_data() } else { Ok(()) })
            .map_err(|e| ProofError::io(&self.path, e))
    }

    /// Appends a finished unit. Once written it survives the process (`kill -9` included);
    /// a unit of a second or more is also synced to the disk, to survive the machine: a sync
    /// takes milliseconds, too much for the tiny units of tests and small boards.
    pub fn record(&mut self, r: &Record) -> Result<(), ProofError> {
        let json = serde_json::to_string(r).expect("a record serialises");
        self.append(&json, r.seconds >= 1.0)
    }
}

/// Takes an exclusive lock on `file` without waiting: another process holding it is the error
/// [`ProofError::Locked`]. The lock goes with the process, however it ends.
fn lock(file: &File, path: &Path) -> Result<(), ProofError> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock takes a valid open descriptor and has no memory effects.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        return Err(ProofError::Locked(path.to_path_buf()));
    }
    Err(ProofError::io(path, e))
}

/// Checks that the first line of `path` is `header`.
fn check_header(path: &Path, first: &str, header: &Header) -> Result<(), ProofError> {
    let damaged = |why: &str| ProofError::Damaged {
        path: path.to_path_buf(),
        line: 1,
        why: why.to_string(),
    };
    let json = checked(first).ok_or_else(|| damaged("its checksum does not match"))?;
    let found: Header =
        serde_json::from_str(json).map_err(|_| damaged("it is not a proof log's header"))?;
    if found.format != Header::FORMAT {
        return Err(damaged(&format!(
            "format '{}', not '{}'",
            found.format,
            Header::FORMAT
        )));
    }
    if &found != header {
        return Err(ProofError::OtherRun {
            path: path.to_path_buf(),
            found: describe(&found),
            wanted: describe(header),
        });
    }
    Ok(())
}

/// A header in words, for the error of a log from another run.
fn describe(h: &Header) -> String {
    format!(
        "{} from {} under {}, units of {} empty squares, {} MiB tables, order nodes \
         {}, tuning '{}', evaluation {}, unit window {}",
        h.board,
        h.root,
        h.scoring,
        h.unit_empties,
        h.hash_mb,
        h.order_nodes,
        h.tuning,
        h.eval,
        h.unit_window
    )
}

/// Every log file of a proof, read as they grow: the facts of their units, and the totals.
pub struct Reader {
    dir: PathBuf,
    header: Header,
    shape: Shape,
    /// Bytes read so far and complete lines read so far, per file.
    read: BTreeMap<PathBuf, (u64, usize)>,
    /// The units read, to count each once.
    seen: HashSet<Unit>,
    /// Units read.
    pub units: u64,
    /// Their nodes.
    pub nodes: u64,
    /// Their seconds.
    pub seconds: f64,
    /// Bounds carried over from a proof under the blog's rule ([`IMPORTED`]).
    pub imported: u64,
}

impl Reader {
    /// A reader of the logs in `dir` written for `header`.
    #[must_use]
    pub fn new(dir: &Path, header: &Header, shape: Shape) -> Reader {
        Reader {
            dir: dir.to_path_buf(),
            header: header.clone(),
            shape,
            read: BTreeMap::new(),
            seen: HashSet::new(),
            units: 0,
            nodes: 0,
            seconds: 0.0,
            imported: 0,
        }
    }

    /// Reads the lines added to any log since the last call into `facts`; returns how many new
    /// units they held.
    pub fn refresh(&mut self, facts: &mut Facts) -> Result<u64, ProofError> {
        let mut added = 0;
        for path in log_files(&self.dir)? {
            let (offset, lines) = self.read.get(&path).copied().unwrap_or((0, 0));
            let mut file = File::open(&path).map_err(|e| ProofError::io(&path, e))?;
            file.seek(SeekFrom::Start(offset))
                .map_err(|e| ProofError::io(&path, e))?;
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes)
                .map_err(|e| ProofError::io(&path, e))?;
            // Only whole lines: a last line without its newline is still being written, or was
            // torn by a kill.
            let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let text = std::str::from_utf8(&bytes[..whole]).map_err(|_| ProofError::Damaged {
                path: path.clone(),
                line: lines + 1,
                why: "it is not text".into(),
            })?;
            let mut n = lines;
            for l in text.lines() {
                n += 1;
                if n == 1 {
                    check_header(&path, l, &self.header)?;
                    continue;
                }
                if self.read_line(&path, n, l, facts)? {
                    added += 1;
                }
            }
            self.read.insert(path, (offset + whole as u64, n));
        }
        Ok(added)
    }

    /// Reads line `n` of `path` into `facts`: whether it was a unit not seen before.
    fn read_line(
        &mut self,
        path: &Path,
        n: usize,
        l: &str,
        facts: &mut Facts,
    ) -> Result<bool, ProofError> {
        let damaged = |why: String| ProofError::Damaged {
            path: path.to_path_buf(),
            line: n,
            why,
        };
        let json = checked(l).ok_or_else(|| damaged("its checksum does not match".into()))?;
        let r: Record =
            serde_json::from_str(json).map_err(|e| damaged(format!("it does not parse ({e})")))?;
        let pos = Position::from_board_string(&r.position, Some(self.shape))
            .map_err(|e| damaged(format!("bad position ({e})")))?;
        let key = Tree::key(&pos);
        if key != (pos.player(), pos.opponent()) || !pos.black_to_move() {
            return Err(damaged("its position is not in canonical form".into()));
        }
        let squares = self.shape.squares() as i32;
        let beta = r.beta.unwrap_or(r.alpha + 1);
        if r.alpha < -squares - 1 || beta > squares + 1 || r.result.abs() > squares {
            return Err(damaged("a value beyond the board".into()));
        }
        if beta <= r.alpha + 1 && r.beta.is_some() {
            return Err(damaged(format!(
                "its window ({}, {beta}) is not wider than a null window",
                r.alpha
            )));
        }
        let unit = Unit {
            key,
            alpha: r.alpha,
            beta,
        };
        // Carried-over bounds (no nodes) and solved units each keep to their own files.
        let in_imported = path.file_name().is_some_and(|n| n == IMPORTED);
        match (in_imported, r.derived.is_some() && r.nodes == 0) {
            (true, false) => {
                return Err(damaged(
                    "a solved unit's line in the carried-over bounds".into(),
                ))
            }
            (false, _) if r.derived.is_some() => {
                return Err(damaged(
                    "a carried-over line in a log of solved units".into(),
                ))
            }
            _ => {}
        }
        if !facts.add(unit, r.result, squares) {
            return Err(damaged(format!(
                "its result {} contradicts an earlier line",
                r.result
            )));
        }
        if in_imported {
            self.imported += 1;
            return Ok(false);
        }
        if !self.seen.insert(unit) {
            return Ok(false);
        }
        self.units += 1;
        self.nodes += r.nodes;
        self.seconds += r.seconds;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_carries_its_checksum() {
        let l = line("{\"a\":1}");
        assert_eq!(checked(l.trim_end()), Some("{\"a\":1}"));
        let bad = l.replace("1}", "2}");
        assert_eq!(checked(bad.trim_end()), None);
    }

    #[test]
    fn a_header_without_its_evaluation_was_ordered_by_mobility() {
        // The header of the 6x7 log as session 29 wrote it, before `eval` was recorded.
        let old = r#"{"format":"reversi-nxn proof log 1","board":"6x7","root":"r","scoring":"discs","unit_empties":32,"hash_mb":512,"tuning":"","order_nodes":100000}"#;
        let h: Header = serde_json::from_str(old).unwrap();
        assert_eq!(h.eval, "mobility");
        assert_eq!(h.unit_window, "null");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(file_name(dir.path(), 0, 1), line(old)).unwrap();
        let read = existing_header(dir.path()).unwrap().unwrap();
        assert_eq!(read, h);
        let mut other = h.clone();
        other.eval = "pattern 0123456789abcdef".into();
        let err = check_header(&file_name(dir.path(), 0, 1), line(old).trim_end(), &other);
        assert!(
            matches!(err, Err(ProofError::OtherRun { ref wanted, .. }) if wanted.contains("evaluation pattern")),
            "{err:?}"
        );
    }

    #[test]
    fn exact_units_are_read_back_and_bad_windows_refused() {
        let shape = Shape::new(4, 4).unwrap();
        let root = shape.start();
        let header = Header {
            format: Header::FORMAT.to_string(),
            board: shape.name(),
            root: root.to_board_string(),
            scoring: "discs".into(),
            unit_empties: 8,
            hash_mb: 1,
            tuning: String::new(),
            order_nodes: 1000,
            eval: "mobility".into(),
            unit_window: "retest".into(),
        };
        let pos = Position::from_player(shape, root.player(), root.opponent(), true);
        let key = Tree::key(&pos);
        let canonical = Position::from_player(shape, key.0, key.1, true).to_board_string();
        let record = |alpha: i32, beta: Option<i32>, result: i32| {
            let r = Record {
                position: canonical.clone(),
                alpha,
                beta,
                result,
                nodes: 10,
                seconds: 0.0,
                build: "test".into(),
                derived: None,
            };
            line(&serde_json::to_string(&r).unwrap())
        };
        let head = line(&serde_json::to_string(&header).unwrap());
        let read = |body: &str| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(file_name(dir.path(), 0, 1), format!("{head}{body}")).unwrap();
            let mut facts = Facts::default();
            let r = Reader::new(dir.path(), &header, shape).refresh(&mut facts);
            (r, facts.get(key))
        };
        // A null test and an exact unit: the value is pinned, and a null record has no beta.
        assert!(!record(0, None, 2).contains("beta"));
        let (r, bounds) = read(&(record(0, None, 2) + &record(1, Some(17), 4)));
        assert_eq!(r.unwrap(), 2);
        assert_eq!(bounds, Some((4, 4)));
        // A window no wider than a null window, or beyond the board: refused with its line.
        for bad in [
            record(3, Some(4), 4),
            record(3, Some(3), 4),
            record(1, Some(18), 4),
        ] {
            let (r, _) = read(&bad);
            let e = r.unwrap_err().to_string();
            assert!(e.contains("line 2"), "{e}");
        }
    }
}
