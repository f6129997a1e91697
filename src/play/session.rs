//! An interactive game in the terminal or from a pipe: moves, `undo`, `hint`, `best`, `board`,
//! `new`, `quit`, `help`. The engine answers for the sides it plays.

use std::io::{self, BufRead, Write};

use super::{Advice, Advisor};
use crate::board::{Move, Position};

/// The commands, as printed by `help`.
pub const HELP: &str = "commands:
  <move>   play a square such as c4 (or `pass` when you must)
  undo     take back your last move (and the engine's reply)
  hint     show the value of every legal move
  best     play the best move for the side to move
  board    show the board
  new      start a new game
  quit     leave
  help     show this list";

/// How a session ended, for scripts and tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionEnd {
    /// The position when the session ended.
    pub position: Position,
    /// The turns played from the start of the last game.
    pub moves: Vec<Move>,
}

/// An interactive game from `start`, the engine playing the sides marked in `engine`
/// (`[black, white]`).
pub struct Session<A: Advisor> {
    start: Position,
    history: Vec<(Position, Move)>,
    pos: Position,
    engine: [bool; 2],
    advisor: A,
}

impl<A: Advisor> Session<A> {
    /// A new session.
    pub fn new(start: Position, engine: [bool; 2], advisor: A) -> Session<A> {
        Session {
            start,
            history: Vec::new(),
            pos: start,
            engine,
            advisor,
        }
    }

    fn engine_to_move(&self) -> bool {
        self.engine[usize::from(!self.pos.black_to_move())]
    }

    /// Plays `mv` (legal), saying so; `how` says how the engine chose it, if it did.
    fn play(&mut self, mv: Move, how: Option<&str>, out: &mut dyn Write) -> io::Result<()> {
        let Some(next) = self.pos.apply(mv) else {
            // Callers pass legal moves only; refuse rather than panic if one does not.
            return writeln!(out, "{} is not legal here", self.pos.move_name(mv));
        };
        let how = how.map_or(String::new(), |h| format!(" ({h})"));
        writeln!(
            out,
            "{} plays {}{how}",
            self.pos.side_to_move().name(),
            self.pos.move_name(mv)
        )?;
        self.history.push((self.pos, mv));
        self.pos = next;
        Ok(())
    }

    /// Plays forced passes and the engine's turns until a human must move or the game ends.
    fn advance(&mut self, out: &mut dyn Write) -> io::Result<()> {
        loop {
            let turns = self.pos.legal_turns();
            if turns.is_empty() {
                return Ok(());
            }
            if turns == [Move::Pass] {
                self.play(Move::Pass, Some("forced"), out)?;
                continue;
            }
            if !self.engine_to_move() {
                return Ok(());
            }
            if !self.play_best(out)? {
                return Ok(());
            }
        }
    }

    /// Plays the advisor's best move for the side to move (which has a legal turn), saying
    /// whether it is exact; `false` if the advisor gave none (then nothing is played).
    fn play_best(&mut self, out: &mut dyn Write) -> io::Result<bool> {
        let advice = self.advisor.advise(&self.pos);
        let Some(&mv) = advice.best_moves().first() else {
            writeln!(out, "no move to play")?;
            return Ok(false);
        };
        let how = advice.annotation(mv, self.pos.side_to_move().name());
        self.play(mv, Some(&how), out)?;
        Ok(true)
    }

    fn show(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{}", self.pos.diagram())?;
        if self.pos.is_over() {
            let m = self.pos.black_margin();
            let result = match m.signum() {
                1 => "black wins",
                -1 => "white wins",
                _ => "draw",
            };
            writeln!(
                out,
                "game over: {result} {}:{}",
                self.pos.black_count(),
                self.pos.white_count()
            )?;
        }
        Ok(())
    }

    fn advice(&mut self) -> Advice {
        self.advisor.advise(&self.pos)
    }

    /// Runs the session, reading commands line by line from `input` until `quit` or the end of
    /// the input. Errors in a command are reported on `out` and the session goes on.
    ///
    /// # Errors
    ///
    /// Only I/O errors on `input` or `out`.
    pub fn run(&mut self, input: &mut dyn BufRead, out: &mut dyn Write) -> io::Result<SessionEnd> {
        self.advance(out)?;
        self.show(out)?;
        if self.engine == [true, true] {
            // Engine against engine: `advance` has played the whole game.
            return Ok(self.end());
        }
        let mut line = String::new();
        loop {
            line.clear();
            write!(out, "> ")?;
            out.flush()?;
            if input.read_line(&mut line)? == 0 {
                writeln!(out)?;
                break;
            }
            let cmd = line.trim().to_ascii_lowercase();
            match cmd.as_str() {
                "" => continue,
                "quit" | "exit" | "q" => break,
                "help" | "?" => writeln!(out, "{HELP}")?,
                "board" => self.show(out)?,
                "new" => {
                    self.pos = self.start;
                    self.history.clear();
                    self.advance(out)?;
                    self.show(out)?;
                }
                "undo" => {
                    // Back to the previous position where a human was to move.
                    let mut undone = false;
                    while let Some((prev, _)) = self.history.pop() {
                        self.pos = prev;
                        undone = true;
                        if !self.engine_to_move() && self.pos.legal_turns() != [Move::Pass] {
                            break;
                        }
                    }
                    if !undone {
                        writeln!(out, "nothing to undo")?;
                    }
                    self.show(out)?;
                }
                "hint" => {
                    if self.pos.is_over() {
                        writeln!(out, "the game is over")?;
                    } else {
                        let a = self.advice();
                        write!(out, "{}", a.describe(&self.pos))?;
                    }
                }
                "best" => {
                    if self.pos.is_over() {
                        writeln!(out, "the game is over")?;
                    } else {
                        if self.play_best(out)? {
                            self.advance(out)?;
                        }
                        self.show(out)?;
                    }
                }
                text => match self.pos.after_moves(text) {
                    Ok((_, played))
                        if played.len() == 1 || (played.len() == 2 && played[0] == Move::Pass) =>
                    {
                        for mv in played {
                            self.play(mv, None, out)?;
                        }
                        self.advance(out)?;
                        self.show(out)?;
                    }
                    Ok(_) => writeln!(out, "one move at a time, please")?,
                    Err(e) => writeln!(out, "{e}; type help for the commands")?,
                },
            }
        }
        Ok(self.end())
    }

    fn end(&self) -> SessionEnd {
        SessionEnd {
            position: self.pos,
            moves: self.history.iter().map(|h| h.1).collect(),
        }
    }
}
