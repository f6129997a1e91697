//! The solution of one position as the solver reports it ([`SolveReport`]), black-relative, and
//! the value convention printed with it.

use crate::board::{Move, Position, Scoring, Side};

/// The solution of one position. Values are black-relative (black minus white at the end).
#[derive(Debug, Clone, PartialEq)]
pub struct SolveReport {
    /// The position solved.
    pub position: Position,
    /// Final disc difference, black minus white, under perfect play by both sides.
    pub value: i32,
    /// The winner under perfect play, `None` for a draw.
    pub winner: Option<Side>,
    /// A principal variation: perfect play from the position to the end of the game, passes
    /// included. The first move is the first best one in row-major order; after it, each turn
    /// takes the first move that keeps the value in the order of a fixed depth-2 heuristic
    /// search (ties in row-major order), the moves the value search tried first, whose proofs
    /// are mostly in the table already.
    pub pv: Vec<Move>,
    /// Black's and white's discs at the end of the principal variation.
    pub final_score: (u32, u32),
    /// Every legal turn at the position with its value (black-relative), in row-major order. A
    /// forced pass is listed as the single turn; a finished game lists none.
    pub move_values: Vec<(Move, i32)>,
    /// Positions searched (interior and end-solver nodes, all threads).
    pub nodes: u64,
    /// Of `nodes`, those of the heuristic searches that order moves or guess a value.
    pub ordering_nodes: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Worker threads available to the search.
    pub threads: usize,
    /// The scoring rule of the values.
    pub scoring: Scoring,
}

impl SolveReport {
    /// The turns of [`SolveReport::move_values`] with the best value for the side to move.
    #[must_use]
    pub fn best_moves(&self) -> Vec<Move> {
        let best = self.value;
        self.move_values
            .iter()
            .filter(|&&(_, v)| v == best)
            .map(|&(m, _)| m)
            .collect()
    }

    /// Positions per second of wall time.
    #[must_use]
    pub fn nodes_per_second(&self) -> f64 {
        self.nodes as f64 / self.seconds.max(1e-9)
    }

    /// The principal variation in move notation, such as `c2 b2 pass d1`.
    #[must_use]
    pub fn pv_text(&self) -> String {
        self.pv
            .iter()
            .map(|&m| self.position.move_name(m))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The value convention of a [`SolveReport`] under `scoring`, in words, printed with every
/// solution.
#[must_use]
pub const fn convention(scoring: Scoring) -> &'static str {
    match scoring {
        Scoring::Discs => {
            "value = black discs minus white discs at the end under perfect play by both sides; \
             empty squares count for nobody"
        }
        Scoring::WinnerTakesEmpties => {
            "value = black discs minus white discs at the end under perfect play by both sides; \
             empty squares at the end go to the player with more discs (Othello rules)"
        }
    }
}
