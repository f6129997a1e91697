//! How a finished game is scored: what the empty squares left at the end count for.
//!
//! A game can end with empty squares when neither side can move. Two rules are in use:
//!
//! - [`Scoring::Discs`]: the final disc difference, empty squares counting for nobody (the
//!   reversi-nxn blog's convention, and this project's default for counts and results).
//! - [`Scoring::WinnerTakesEmpties`]: the Othello rules used by the World Othello Federation,
//!   the FFO endgame suite, Edax and Egaroucid: the empty squares go to the player with more
//!   discs; a draw stays a draw. A game ending 30:29 with 5 squares empty is +1 under the first
//!   rule and +6 under the second.
//!
//! Both rules give every finished game a value of the same sign, and minimax preserves signs
//! (the sign is a monotone function of the value), so the winner under perfect play is the same
//! under both rules; only the margin can differ.
//!
//! # Examples
//!
//! ```
//! use reversi_nxn::board::Scoring;
//! assert_eq!(Scoring::Discs.margin(30, 29, 64), 1);
//! assert_eq!(Scoring::WinnerTakesEmpties.margin(30, 29, 64), 6);
//! assert_eq!(Scoring::WinnerTakesEmpties.margin(29, 29, 64), 0);
//! ```

use serde::Serialize;

/// The rule that scores a finished game: what empty squares left at the end count for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Scoring {
    /// Empty squares count for nobody: the value is the disc difference on the board.
    #[default]
    Discs,
    /// The Othello rules: at the end, the empty squares go to the player with more discs (a
    /// draw stays a draw).
    WinnerTakesEmpties,
}

impl Scoring {
    /// The value of a finished game for the side owning `mine` discs against `theirs`, on a
    /// board of `squares` squares.
    #[inline]
    #[must_use]
    pub const fn margin(self, mine: u32, theirs: u32, squares: u32) -> i32 {
        let d = mine as i32 - theirs as i32;
        match self {
            Scoring::Discs => d,
            // The winner ends with every square but the loser's discs.
            Scoring::WinnerTakesEmpties => {
                if d > 0 {
                    squares as i32 - 2 * theirs as i32
                } else if d < 0 {
                    2 * mine as i32 - squares as i32
                } else {
                    0
                }
            }
        }
    }

    /// `discs` or `winner-takes-empties`, as on the command line.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Scoring::Discs => "discs",
            Scoring::WinnerTakesEmpties => "winner-takes-empties",
        }
    }

    /// What the empty squares at the end count for, in words.
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            Scoring::Discs => "empty squares at the end count for nobody",
            Scoring::WinnerTakesEmpties => {
                "empty squares at the end go to the player with more discs (Othello rules; a \
                 draw stays a draw)"
            }
        }
    }
}

/// The bounds `(lo, hi)` of a position's value under [`Scoring::Discs`] that hold under
/// [`Scoring::WinnerTakesEmpties`] too, as `(lo, hi)` with an unknown side at `∓none`; `None`
/// if neither does.
///
/// A finished game's value under the second rule has the sign of its value under the first
/// and at least its size. So a side that can keep the disc difference at or above `lo >= 0`
/// keeps the other rule's value there too, by the same moves: a lower bound `lo >= 0` holds
/// under both rules, and so does an upper bound `hi <= 0`. A bound on the other side of 0 says
/// nothing about the other rule (a loss by 2 discs with 6 squares empty is a loss by 8).
#[must_use]
pub fn othello_rule_bounds(lo: i32, hi: i32, none: i32) -> Option<(i32, i32)> {
    let lo = if lo >= 0 { lo } else { -none };
    let hi = if hi <= 0 { hi } else { none };
    (lo > -none || hi < none).then_some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_rules_agree_on_full_boards_and_on_signs() {
        for squares in [9u32, 16, 25, 36, 64] {
            for mine in 0..=squares {
                for theirs in 0..=squares - mine {
                    let d = Scoring::Discs.margin(mine, theirs, squares);
                    let w = Scoring::WinnerTakesEmpties.margin(mine, theirs, squares);
                    assert_eq!(d.signum(), w.signum());
                    assert!(w.abs() >= d.abs());
                    let empties = (squares - mine - theirs) as i32;
                    assert_eq!(w, d + d.signum() * empties);
                }
            }
        }
    }
}
