//! A position: the discs of both sides, whose turn it is, and the board they stand on.

use super::{flips, legal_moves, square_bit, square_name, BoardError, Shape, Squares};

/// One of the two players. Black moves first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Side {
    /// The first player (`X`).
    Black,
    /// The second player (`O`).
    White,
}

impl Side {
    /// The other side.
    #[must_use]
    pub const fn other(self) -> Side {
        match self {
            Side::Black => Side::White,
            Side::White => Side::Black,
        }
    }

    /// `X` for black, `O` for white.
    #[must_use]
    pub const fn symbol(self) -> char {
        match self {
            Side::Black => 'X',
            Side::White => 'O',
        }
    }

    /// `black` or `white`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Side::Black => "black",
            Side::White => "white",
        }
    }
}

/// A turn of play: a disc placed on a square (a bit index of the frame), or a forced pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    /// A disc on this square.
    Place(u32),
    /// No legal move: the turn passes to the other side.
    Pass,
}

/// A position on a board of any [`Shape`]: the discs of the side to move (`player`) and of the
/// other side (`opponent`) as bitboards of the 8x8 frame, and which colour moves.
///
/// # Examples
///
/// ```
/// use reversi_nxn::board::{Position, Shape};
/// let shape = Shape::square(4).unwrap();
/// let (pos, _) = Position::after_moves(shape.start(), "b1").unwrap();
/// assert_eq!(pos.black_count(), 4);
/// assert_eq!(pos.white_count(), 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    player: u64,
    opponent: u64,
    shape: Shape,
    black_to_move: bool,
}

impl Position {
    /// A position from the discs of each colour.
    ///
    /// Discs off the board or on both colours are a caller's bug; [`Position::from_board_string`]
    /// is the checked way in for user input.
    #[must_use]
    pub fn from_colors(shape: Shape, black: u64, white: u64, black_to_move: bool) -> Position {
        debug_assert_eq!(black & white, 0);
        debug_assert_eq!((black | white) & !shape.mask(), 0);
        let (player, opponent) = if black_to_move {
            (black, white)
        } else {
            (white, black)
        };
        Position {
            player,
            opponent,
            shape,
            black_to_move,
        }
    }

    /// A position from the discs of the side to move and of the other side.
    #[inline]
    #[must_use]
    pub const fn from_player(
        shape: Shape,
        player: u64,
        opponent: u64,
        black_to_move: bool,
    ) -> Position {
        Position {
            player,
            opponent,
            shape,
            black_to_move,
        }
    }

    /// The board shape.
    #[inline]
    #[must_use]
    pub const fn shape(&self) -> Shape {
        self.shape
    }

    /// Discs of the side to move.
    #[inline]
    #[must_use]
    pub const fn player(&self) -> u64 {
        self.player
    }

    /// Discs of the side not to move.
    #[inline]
    #[must_use]
    pub const fn opponent(&self) -> u64 {
        self.opponent
    }

    /// Empty squares of the board.
    #[inline]
    #[must_use]
    pub const fn empty(&self) -> u64 {
        self.shape.mask() & !(self.player | self.opponent)
    }

    /// Black discs.
    #[inline]
    #[must_use]
    pub const fn black(&self) -> u64 {
        if self.black_to_move {
            self.player
        } else {
            self.opponent
        }
    }

    /// White discs.
    #[inline]
    #[must_use]
    pub const fn white(&self) -> u64 {
        if self.black_to_move {
            self.opponent
        } else {
            self.player
        }
    }

    /// Whether black is to move.
    #[inline]
    #[must_use]
    pub const fn black_to_move(&self) -> bool {
        self.black_to_move
    }

    /// The side to move.
    #[inline]
    #[must_use]
    pub const fn side_to_move(&self) -> Side {
        if self.black_to_move {
            Side::Black
        } else {
            Side::White
        }
    }

    /// Number of black discs.
    #[inline]
    #[must_use]
    pub const fn black_count(&self) -> u32 {
        self.black().count_ones()
    }

    /// Number of white discs.
    #[inline]
    #[must_use]
    pub const fn white_count(&self) -> u32 {
        self.white().count_ones()
    }

    /// Number of discs on the board.
    #[inline]
    #[must_use]
    pub const fn disc_count(&self) -> u32 {
        (self.player | self.opponent).count_ones()
    }

    /// Black discs minus white discs (empty squares count for nobody).
    #[inline]
    #[must_use]
    pub const fn black_margin(&self) -> i32 {
        self.black_count() as i32 - self.white_count() as i32
    }

    /// Black's margin if the game ended here, under the scoring rule `scoring` (for
    /// [`Scoring::Discs`], the same as [`Position::black_margin`]).
    ///
    /// [`Scoring::Discs`]: super::Scoring::Discs
    #[must_use]
    pub const fn black_margin_under(&self, scoring: super::Scoring) -> i32 {
        scoring.margin(self.black_count(), self.white_count(), self.shape.squares())
    }

    /// Legal moves of the side to move.
    #[inline]
    #[must_use]
    pub fn moves(&self) -> u64 {
        legal_moves(self.player, self.opponent, self.empty())
    }

    /// Legal moves the side not to move would have.
    #[inline]
    #[must_use]
    pub fn opponent_moves(&self) -> u64 {
        legal_moves(self.opponent, self.player, self.empty())
    }

    /// Whether neither side can move.
    #[inline]
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.moves() == 0 && self.opponent_moves() == 0
    }

    /// The position after placing a disc on `sq`, or `None` if that move is illegal.
    #[inline]
    #[must_use]
    pub fn play(&self, sq: u32) -> Option<Position> {
        if !self.shape.contains(sq) || (self.player | self.opponent) & (1u64 << sq) != 0 {
            return None;
        }
        let f = flips(self.player, self.opponent, sq);
        (f != 0).then(|| self.play_flips(sq, f))
    }

    /// The position after placing a disc on `sq` that turns the discs `f` (from [`flips`]).
    #[inline]
    #[must_use]
    pub const fn play_flips(&self, sq: u32, f: u64) -> Position {
        Position {
            player: self.opponent ^ f,
            opponent: self.player | f | (1u64 << sq),
            shape: self.shape,
            black_to_move: !self.black_to_move,
        }
    }

    /// The position with the turn handed to the other side.
    #[inline]
    #[must_use]
    pub const fn pass(&self) -> Position {
        Position {
            player: self.opponent,
            opponent: self.player,
            shape: self.shape,
            black_to_move: !self.black_to_move,
        }
    }

    /// Plays `mv` if legal: a placement on a legal square, or a pass when the side to move has no
    /// move and the game is not over.
    #[must_use]
    pub fn apply(&self, mv: Move) -> Option<Position> {
        match mv {
            Move::Place(sq) => self.play(sq),
            Move::Pass => (self.moves() == 0 && self.opponent_moves() != 0).then(|| self.pass()),
        }
    }

    /// The legal turns in this position: each placement, or a single pass, or none at the end.
    #[must_use]
    pub fn legal_turns(&self) -> Vec<Move> {
        let m = self.moves();
        if m != 0 {
            Squares(m).map(Move::Place).collect()
        } else if self.opponent_moves() != 0 {
            vec![Move::Pass]
        } else {
            Vec::new()
        }
    }

    /// The legal moves as names, such as `c2 b3`, or `pass`, or `none`.
    #[must_use]
    pub fn legal_turns_text(&self) -> String {
        let turns = self.legal_turns();
        if turns.is_empty() {
            return "none (the game is over)".to_string();
        }
        turns
            .iter()
            .map(|&t| self.move_name(t))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The name of a move on this board: a square name, or `pass`.
    #[must_use]
    pub fn move_name(&self, mv: Move) -> String {
        match mv {
            Move::Place(sq) => square_name(sq),
            Move::Pass => "pass".to_string(),
        }
    }

    /// Plays a move list (see [`super::parse_moves`]) from this position.
    ///
    /// A forced pass may be written (`pass` or `ps`) or left out. Returns the position reached and
    /// the turns played, passes included.
    ///
    /// # Errors
    ///
    /// [`BoardError::BadMoveToken`] or [`BoardError::BadSquare`] for text that is not a move,
    /// [`BoardError::IllegalMove`] for a move the rules forbid.
    pub fn after_moves(self, text: &str) -> Result<(Position, Vec<Move>), BoardError> {
        let tokens = super::parse_moves(text, self.shape)?;
        let mut pos = self;
        let mut played = Vec::with_capacity(tokens.len());
        for token in tokens {
            let illegal = |pos: &Position, ply: usize| BoardError::IllegalMove {
                mv: token.to_string(),
                ply,
                legal: pos.legal_turns_text(),
            };
            match token {
                super::MoveToken::Pass => {
                    pos = pos
                        .apply(Move::Pass)
                        .ok_or_else(|| illegal(&pos, played.len() + 1))?;
                    played.push(Move::Pass);
                }
                super::MoveToken::Square(sq) => {
                    if pos.moves() == 0 && pos.opponent_moves() != 0 {
                        pos = pos.pass();
                        played.push(Move::Pass);
                    }
                    pos = pos
                        .play(sq)
                        .ok_or_else(|| illegal(&pos, played.len() + 1))?;
                    played.push(Move::Place(sq));
                }
            }
        }
        Ok((pos, played))
    }

    /// The board string: one character per square in row-major order (`X` black, `O` white,
    /// `-` empty), a space, and the side to move (`X` or `O`).
    #[must_use]
    pub fn to_board_string(&self) -> String {
        let mut s = String::with_capacity(self.shape.squares() as usize + 2);
        for r in 0..self.shape.rows() {
            for c in 0..self.shape.cols() {
                s.push(self.square_char(8 * r + c));
            }
        }
        s.push(' ');
        s.push(self.side_to_move().symbol());
        s
    }

    fn square_char(&self, sq: u32) -> char {
        let bit = 1u64 << sq;
        if self.black() & bit != 0 {
            'X'
        } else if self.white() & bit != 0 {
            'O'
        } else {
            '-'
        }
    }

    /// Reads a board string: one character per square in row-major order (`X`, `*` or `b` for
    /// black; `O` or `w` for white; `-` or `.` for empty), then the side to move (`X`/`b` or
    /// `O`/`w`). White space and `/` are ignored. With `shape` `None`, the board is the square
    /// one whose size fits the string.
    ///
    /// # Errors
    ///
    /// [`BoardError::BadBoardString`] for an unknown character, a wrong length, or a missing side;
    /// [`BoardError::BadSize`] if no board fits.
    ///
    /// # Examples
    ///
    /// ```
    /// use reversi_nxn::board::Position;
    /// let p = Position::from_board_string("---- -OX- -XO- ---- X", None).unwrap();
    /// assert_eq!(p.shape().rows(), 4);
    /// assert!(Position::from_board_string("---- -OX- -XO- ---- Q", None).is_err());
    /// ```
    pub fn from_board_string(text: &str, shape: Option<Shape>) -> Result<Position, BoardError> {
        let chars: Vec<char> = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '/')
            .collect();
        let Some((&side, cells)) = chars.split_last() else {
            return Err(BoardError::BadBoardString("the string is empty".into()));
        };
        let shape = match shape {
            Some(s) => s,
            None => {
                let n = (cells.len() as f64).sqrt().round() as u32;
                if n * n != cells.len() as u32 {
                    return Err(BoardError::BadBoardString(format!(
                        "{} squares (the last character, '{side}', taken as the side to move) \
                         is not a square board: a board string is the squares row by row, then \
                         X or O for the side to move; give --rows and --cols for a rectangle",
                        cells.len()
                    )));
                }
                Shape::square(n)?
            }
        };
        if cells.len() != shape.squares() as usize {
            return Err(BoardError::BadBoardString(format!(
                "expected {} squares for a {} board plus the side to move, found {} characters",
                shape.squares(),
                shape,
                chars.len()
            )));
        }
        let black_to_move = match side {
            'X' | 'x' | 'b' | 'B' | '*' => true,
            'O' | 'o' | 'w' | 'W' => false,
            other => {
                return Err(BoardError::BadBoardString(format!(
                    "the last character must be the side to move (X or O), found '{other}'"
                )))
            }
        };
        let (mut black, mut white) = (0u64, 0u64);
        for (i, &ch) in cells.iter().enumerate() {
            let (r, c) = (i as u32 / shape.cols(), i as u32 % shape.cols());
            let bit = super::square_bit(r, c);
            match ch {
                'X' | 'x' | '*' | 'b' | 'B' => black |= bit,
                'O' | 'o' | 'w' | 'W' => white |= bit,
                '-' | '.' => {}
                other => {
                    return Err(BoardError::BadBoardString(format!(
                        "unknown character '{other}' at square {}",
                        square_name(8 * r + c)
                    )))
                }
            }
        }
        if black | white == 0 {
            return Err(BoardError::BadBoardString(
                "the board has no discs (no game reaches such a position)".into(),
            ));
        }
        Ok(Position::from_colors(shape, black, white, black_to_move))
    }

    /// A readable diagram with coordinates, the side to move, and `*` on the legal moves.
    #[must_use]
    pub fn diagram(&self) -> String {
        let moves = self.moves();
        let mut s = String::from("  ");
        for c in 0..self.shape.cols() {
            s.push(' ');
            s.push((b'a' + c as u8) as char);
        }
        s.push('\n');
        for r in 0..self.shape.rows() {
            s.push_str(&format!("{:>2}", r + 1));
            for c in 0..self.shape.cols() {
                let sq = 8 * r + c;
                s.push(' ');
                s.push(if moves & (1u64 << sq) != 0 {
                    '*'
                } else {
                    match self.square_char(sq) {
                        '-' => '.',
                        ch => ch,
                    }
                });
            }
            s.push('\n');
        }
        let status = if self.is_over() {
            "game over".to_string()
        } else {
            format!(
                "{} ({}) to move",
                self.side_to_move().name(),
                self.side_to_move().symbol()
            )
        };
        s.push_str(&format!(
            "X {} - O {}; {status}",
            self.black_count(),
            self.white_count()
        ));
        s
    }
}

// Here rather than in `shape.rs`, so that a shape need not know positions.
impl Shape {
    /// The start position: white on the block's main diagonal, black on its other two squares,
    /// black to move.
    ///
    /// # Examples
    ///
    /// ```
    /// use reversi_nxn::board::Shape;
    /// let p = Shape::square(8).unwrap().start();
    /// assert_eq!(p.to_board_string(), "---------------------------OX------XO--------------------------- X");
    /// ```
    #[must_use]
    pub fn start(self) -> Position {
        let (r, c) = self.start_block();
        let white = square_bit(r, c) | square_bit(r + 1, c + 1);
        let black = square_bit(r, c + 1) | square_bit(r + 1, c);
        Position::from_colors(self, black, white, true)
    }
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_board_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_string_round_trip() {
        let shape = Shape::new(4, 6).unwrap();
        let (p, _) = shape.start().after_moves("c1 b1").unwrap();
        let s = p.to_board_string();
        assert_eq!(Position::from_board_string(&s, Some(shape)).unwrap(), p);
    }

    #[test]
    fn forced_pass_may_be_omitted() {
        // 3x3: after b3 white... play a full game both ways and compare.
        let shape = Shape::square(3).unwrap();
        let start = shape.start();
        let mut pos = start;
        let mut line = Vec::new();
        while let Some(&t) = pos.legal_turns().first() {
            line.push(t);
            pos = pos.apply(t).unwrap();
        }
        let with: Vec<String> = line.iter().map(|&t| start.move_name(t)).collect();
        let without: Vec<String> = with.iter().filter(|m| *m != "pass").cloned().collect();
        let (a, _) = start.after_moves(&with.join(" ")).unwrap();
        let (b, played) = start.after_moves(&without.join(",")).unwrap();
        assert_eq!(a, b);
        assert_eq!(played, line);
    }

    #[test]
    fn bad_strings_are_rejected() {
        let shape = Shape::square(4).unwrap();
        assert!(Position::from_board_string("", None).is_err());
        assert!(Position::from_board_string("-----OX--XO----- Z", Some(shape)).is_err());
        assert!(Position::from_board_string("-----OX--XO---- X", Some(shape)).is_err());
        assert!(Position::from_board_string("-----OX--XQ----- X", Some(shape)).is_err());
    }
}
