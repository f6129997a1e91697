//! OBF, the one-position-per-line format of Edax's and the FFO suite's problem files.
//!
//! A line is a board string (one character per square, row-major from a1: `X` or `*` black,
//! `O` white, `-` or `.` empty), a space and the side to move (`X` or `O`), then optionally
//! `;` and annotations, which are ignored here (the FFO files list each move's value there).
//! The board's size comes from the string's length, as for `--board`: 64 squares is 8x8, 36
//! is 6x6, and so on. Blank lines and lines starting with `%` or `#` are comments.
//!
//! ```text
//! O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X; A2:+38; C7:+36;
//! ```
//!
//! # Examples
//!
//! ```
//! use reversi_nxn::obf;
//! let text = "% a 4x4 position\n-XO--XX--OX-O--- O; anything\n";
//! let lines: Vec<_> = obf::parse(text).collect();
//! assert_eq!(lines.len(), 1);
//! let entry = lines[0].as_ref().unwrap();
//! assert_eq!(entry.line, 2);
//! assert_eq!(entry.position.shape().name(), "4x4");
//! ```

use thiserror::Error;

use crate::board::{BoardError, Position};

/// One position of an OBF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The 1-based line number in the file.
    pub line: usize,
    /// The position.
    pub position: Position,
    /// The text after the first `;`, trimmed (empty if none).
    pub annotation: String,
}

/// What is wrong with one line of an OBF file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {kind}")]
pub struct ObfError {
    /// The 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub kind: ObfErrorKind,
}

/// The kinds of [`ObfError`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ObfErrorKind {
    /// The board string does not describe a position (length, character, side to move).
    #[error("{0}")]
    Board(#[from] BoardError),
    /// Neither side can move: there is nothing to solve.
    #[error("the game is already over ({black}:{white}); nothing to solve")]
    GameOver {
        /// Black discs.
        black: u32,
        /// White discs.
        white: u32,
    },
}

/// Parses one line (without its line break) numbered `line`: `Ok(None)` for a blank or
/// comment line.
///
/// # Errors
///
/// [`ObfErrorKind::Board`] for a malformed board string, [`ObfErrorKind::GameOver`] for a
/// position where neither side can move.
pub fn parse_line(text: &str, line: usize) -> Result<Option<Entry>, ObfError> {
    let (board, annotation) = match text.split_once(';') {
        Some((b, a)) => (b, a.trim()),
        None => (text, ""),
    };
    let board = board.trim();
    if board.is_empty() && annotation.is_empty() || board.starts_with(['%', '#']) {
        return Ok(None);
    }
    let err = |kind| ObfError { line, kind };
    let position = Position::from_board_string(board, None).map_err(|e| err(e.into()))?;
    if position.is_over() {
        return Err(err(ObfErrorKind::GameOver {
            black: position.black_count(),
            white: position.white_count(),
        }));
    }
    Ok(Some(Entry {
        line,
        position,
        annotation: annotation.to_string(),
    }))
}

/// Every position of `text`, in order, with an error for each bad line (comments and blank
/// lines skipped).
pub fn parse(text: &str) -> impl Iterator<Item = Result<Entry, ObfError>> + '_ {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| parse_line(l, i + 1).transpose())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_or_say_why_not() {
        let ffo40 = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X; A2:+38;";
        let e = parse_line(ffo40, 7).unwrap().unwrap();
        assert_eq!(e.line, 7);
        assert!(e.position.black_to_move());
        assert_eq!(e.position.empty().count_ones(), 20);
        assert_eq!(e.annotation, "A2:+38;");
        assert_eq!(parse_line("   ", 1), Ok(None));
        assert_eq!(parse_line("% comment", 1), Ok(None));
        let short = parse_line("XO- X", 3).unwrap_err();
        assert_eq!(short.line, 3);
        assert!(matches!(short.kind, ObfErrorKind::Board(_)));
        let bad = parse_line(&ffo40.replacen('-', "Z", 1), 4).unwrap_err();
        assert!(bad.to_string().starts_with("line 4: "), "{bad}");
        assert!(bad.to_string().contains("'Z'"), "{bad}");
        // 3x3 full board: over.
        let over = parse_line("XXXXOXXXX O", 9).unwrap_err();
        assert_eq!(over.kind, ObfErrorKind::GameOver { black: 8, white: 1 });
        let all: Vec<_> = parse("\n% x\nXO- X\n").collect();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].as_ref().unwrap_err().line, 3);
    }
}
