//! Bounds carried over from a proof under the blog's rule to one of the same position under the
//! Othello rule.
//!
//! A finished game's value under the Othello rule (the empty squares to the winner) has the
//! sign of its value under the blog's rule and at least its size (`board::scoring`). So a side
//! that can keep the disc difference at or above `a >= 0` keeps the Othello-rule value there
//! too, by the same moves: a lower bound `v >= a` with `a >= 0` holds under both rules, and so
//! does an upper bound `v <= b` with `b <= 0`. A bound on the other side of 0 says nothing about
//! the other rule (a loss by 2 discs with 6 squares empty is a loss by 8).
//!
//! Every proof of a draw or a win is made of such bounds: a 6x7 proof under the blog's rule
//! carries over 96% of its units' nodes. What is left is the size of each margin under the
//! Othello rule. [`carry_over`] writes the bounds that hold as lines of
//! [`log::IMPORTED`] in the new proof's directory, with the proof's header, so that the log
//! stays the proof's whole state; they are read back as any other line is (checksums, the
//! header, no contradiction with any unit solved under the Othello rule), and counted apart
//! from the units solved.

use std::path::Path;

use super::error::ProofError;
use super::log::{self, Header, Reader, Record};
use super::tree::{Facts, Key};
use crate::board::{Position, Scoring, Shape};

/// The bounds `(lo, hi)` of a position's value under the blog's rule that hold under the Othello
/// rule, as `(lo, hi)` with an unknown side at `∓squares`; `None` if neither does.
pub use crate::board::othello_rule_bounds as carried;

/// The log lines that prove `(lo, hi)` (from [`carried`]) for the position `key`: the window and
/// the fail-soft result of a test that would have proven them.
fn records(shape: Shape, key: Key, (lo, hi): (i32, i32), source: &str) -> Vec<Record> {
    let squares = shape.squares() as i32;
    let position = Position::from_player(shape, key.0, key.1, true).to_board_string();
    let record = |alpha: i32, beta: Option<i32>, result: i32| Record {
        position: position.clone(),
        alpha,
        beta,
        result,
        nodes: 0,
        seconds: 0.0,
        build: log::build(),
        derived: Some(source.to_string()),
    };
    if lo == hi {
        // Exact under both rules: a draw, or the whole board's margin.
        return vec![record(lo - 1, Some(hi + 1), lo)];
    }
    let mut out = Vec::new();
    if lo > -squares {
        // A fail-high null-window test above lo - 1.
        out.push(record(lo - 1, None, lo));
    }
    if hi < squares {
        // A fail-low null-window test above hi.
        out.push(record(hi, None, hi));
    }
    out
}

/// The header of the proof log in `source`, if it is a proof of `root` under the blog's rule.
///
/// # Errors
///
/// [`ProofError::Usage`] if there is no such log there (another board, position or rule, or
/// none), [`ProofError::Damaged`] if its header is damaged, [`ProofError::Io`] if it cannot be
/// read.
pub fn check_source(source: &Path, root: &Position) -> Result<Header, ProofError> {
    let found = log::existing_header(source)?.ok_or_else(|| {
        ProofError::Usage(format!("--import {}: no proof log there", source.display()))
    })?;
    let (board, position) = (root.shape().name(), root.to_board_string());
    if found.board != board || found.root != position || found.scoring != Scoring::Discs.name() {
        return Err(ProofError::Usage(format!(
            "--import {}: a proof of {} from {} under '{}', not of {board} from {position} \
             under the blog's rule (discs)",
            source.display(),
            found.board,
            found.root,
            found.scoring,
        )));
    }
    Ok(found)
}

/// Writes the bounds of the proof in `source` (under the blog's rule, of `root`) that hold under
/// the Othello rule into [`log::IMPORTED`] in `dir`, with `header` (the proof's, under the
/// Othello rule), unless that file exists already (then they were carried over before, and are
/// read from it). Returns the lines written, or `None` if the file existed.
///
/// # Errors
///
/// [`ProofError::Usage`] if `header` is not under the Othello rule or `source` holds no proof of
/// the same board and root under the blog's rule; [`ProofError::Damaged`] if a line of the
/// source is damaged; [`ProofError::Io`] on I/O errors.
pub fn carry_over(
    root: &Position,
    header: &Header,
    source: &Path,
    dir: &Path,
) -> Result<Option<usize>, ProofError> {
    let shape = root.shape();
    if header.scoring != Scoring::WinnerTakesEmpties.name() {
        return Err(ProofError::Usage(format!(
            "--import carries bounds over to a proof under the Othello rule (--scoring \
             winner-takes-empties), not under '{}'",
            header.scoring
        )));
    }
    let found = check_source(source, root)?;
    let path = dir.join(log::IMPORTED);
    if path.exists() {
        return Ok(None);
    }
    // Every line of the source is checked as a resumed proof checks its own.
    let mut facts = Facts::default();
    let mut reader = Reader::new(source, &found, shape);
    reader.refresh(&mut facts)?;
    let squares = shape.squares() as i32;
    let what = format!(
        "discs: {} units of {}",
        reader.units,
        source.file_name().map_or_else(
            || source.display().to_string(),
            |n| n.to_string_lossy().into_owned()
        )
    );
    let mut bounds: Vec<(Key, (i32, i32))> = facts
        .iter()
        .filter_map(|(key, (lo, hi))| carried(lo, hi, squares).map(|b| (key, b)))
        .collect();
    bounds.sort_unstable();
    let lines: Vec<Record> = bounds
        .into_iter()
        .flat_map(|(key, b)| records(shape, key, b, &what))
        .collect();
    let head = serde_json::to_string(header).expect("a header serialises");
    crate::atomic::write_atomic_with(&path, |w| {
        w.write_all(log::line(&head).as_bytes())?;
        for r in &lines {
            let json = serde_json::to_string(r).expect("a record serialises");
            w.write_all(log::line(&json).as_bytes())?;
        }
        Ok(())
    })
    .map_err(|e| ProofError::io(&path, e))?;
    Ok(Some(lines.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proof::tree::{Tree, Unit};

    #[test]
    fn only_bounds_on_the_winners_side_carry_over() {
        let n = 36;
        assert_eq!(carried(4, 10, n), Some((4, n)));
        assert_eq!(carried(0, 10, n), Some((0, n)));
        assert_eq!(carried(-6, -2, n), Some((-n, -2)));
        assert_eq!(carried(-6, 0, n), Some((-n, 0)));
        assert_eq!(carried(0, 0, n), Some((0, 0)));
        assert_eq!(carried(-3, 5, n), None);
        assert_eq!(carried(-n, n, n), None);
        // An exact value other than a draw keeps only its side's bound.
        assert_eq!(carried(6, 6, n), Some((6, n)));
        assert_eq!(carried(-6, -6, n), Some((-n, -6)));
    }

    #[test]
    fn the_lines_prove_the_bounds_they_carry() {
        let shape = Shape::new(4, 4).unwrap();
        let n = shape.squares() as i32;
        let key = Tree::key(&shape.start());
        for b in [(4, n), (0, n), (-n, -2), (-n, 0), (0, 0)] {
            let mut facts = Facts::default();
            for r in records(shape, key, b, "test") {
                let unit = Unit {
                    key,
                    alpha: r.alpha,
                    beta: r.beta.unwrap_or(r.alpha + 1),
                };
                assert!(facts.add(unit, r.result, n));
            }
            assert_eq!(facts.get(key), Some(b), "{b:?}");
        }
    }
}
