//! Square names (`a1` top-left, column letter then row number) and move lists.

use super::{BoardError, Shape};

/// The name of frame bit `sq`: column letter then 1-based row, so bit 0 is `a1`, bit 19 is `d3`.
///
/// # Examples
///
/// ```
/// use reversi_nxn::board::square_name;
/// assert_eq!(square_name(0), "a1");
/// assert_eq!(square_name(8 * 1 + 2), "c2");
/// ```
#[must_use]
pub fn square_name(sq: u32) -> String {
    let (r, c) = (sq / 8, sq % 8);
    format!("{}{}", (b'a' + c as u8) as char, r + 1)
}

/// Reads a square name such as `c4` (either case) on `shape`.
///
/// # Errors
///
/// [`BoardError::BadSquare`] if the text is not a square of this board.
///
/// # Examples
///
/// ```
/// use reversi_nxn::board::{parse_square, Shape};
/// let five = Shape::square(5).unwrap();
/// assert_eq!(parse_square("c2", five).unwrap(), 10);
/// assert!(parse_square("f1", five).is_err());
/// ```
pub fn parse_square(text: &str, shape: Shape) -> Result<u32, BoardError> {
    let bad = || BoardError::BadSquare(text.to_string());
    let mut chars = text.chars();
    let col = chars.next().ok_or_else(bad)?.to_ascii_lowercase();
    let row: String = chars.collect();
    if !col.is_ascii_lowercase() || row.len() != 1 {
        return Err(bad());
    }
    let c = col as u32 - 'a' as u32;
    let r = row.parse::<u32>().map_err(|_| bad())?;
    if r == 0 || r > shape.rows() || c >= shape.cols() {
        return Err(bad());
    }
    Ok(8 * (r - 1) + c)
}

/// One entry of a move list as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveToken {
    /// A square (frame bit).
    Square(u32),
    /// `pass` or `ps`.
    Pass,
}

impl std::fmt::Display for MoveToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoveToken::Square(sq) => f.write_str(&square_name(*sq)),
            MoveToken::Pass => f.write_str("pass"),
        }
    }
}

/// Reads a move list such as `c4c3e6`, `c4 c3 e6` or `c4,pass,e6` (`ps` is a pass too).
/// Legality is not checked here: see [`super::Position::after_moves`].
///
/// # Errors
///
/// [`BoardError::BadMoveToken`] for text that is neither a square nor a pass, and
/// [`BoardError::BadSquare`] for a square off the board.
///
/// # Examples
///
/// ```
/// use reversi_nxn::board::{parse_moves, MoveToken, Shape};
/// let eight = Shape::square(8).unwrap();
/// let moves = parse_moves("f5, d6 PASS c3", eight).unwrap();
/// assert_eq!(moves.len(), 4);
/// assert_eq!(moves[2], MoveToken::Pass);
/// ```
pub fn parse_moves(text: &str, shape: Shape) -> Result<Vec<MoveToken>, BoardError> {
    let cleaned: Vec<char> = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ',' && *c != ';')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < cleaned.len() {
        let rest: String = cleaned[i..].iter().collect();
        if rest.starts_with("pass") {
            tokens.push(MoveToken::Pass);
            i += 4;
        } else if rest.starts_with("ps") {
            tokens.push(MoveToken::Pass);
            i += 2;
        } else if cleaned[i].is_ascii_lowercase()
            && cleaned.get(i + 1).is_some_and(|c| c.is_ascii_digit())
        {
            // All the digits: "b10" is one square (off every board here), not b1 then "0".
            let end = i
                + 1
                + cleaned[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
            let name: String = cleaned[i..end].iter().collect();
            tokens.push(MoveToken::Square(parse_square(&name, shape)?));
            i = end;
        } else {
            let end = (i + 4).min(cleaned.len());
            return Err(BoardError::BadMoveToken(cleaned[i..end].iter().collect()));
        }
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_number_of_two_digits_is_one_bad_square() {
        let s = Shape::square(6).unwrap();
        let e = parse_moves("c4 b10", s).unwrap_err();
        assert!(
            matches!(e, BoardError::BadSquare(ref t) if t == "b10"),
            "{e}"
        );
        assert_eq!(
            parse_moves("c4e3", s).unwrap(),
            vec![MoveToken::Square(8 * 3 + 2), MoveToken::Square(8 * 2 + 4)]
        );
    }
}
