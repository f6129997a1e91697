//! Iterative-deepening alpha-beta with a heuristic evaluation and a time limit, for boards too
//! large to solve exactly (as the Black & White seed's computer agent plays).

use std::time::{Duration, Instant};

use super::eval::evaluate;
use crate::board::{flips, legal_moves, Move, Position, Scoring, Squares};

/// Scale of exact final margins in evaluation units: one disc of a finished game outweighs any
/// heuristic score.
pub const FINAL: i32 = 10_000;

/// The result of a depth-limited search.
#[derive(Debug, Clone)]
pub struct MidgameResult {
    /// Each legal turn with its score for the side to move (heuristic units; a finished game
    /// scores `10000 x` its final margin).
    pub scores: Vec<(Move, i32)>,
    /// The deepest search completed (plies).
    pub depth: u32,
    /// Whether every line reached the end of the game (the scores are then exact margins x 10000).
    pub exact: bool,
    /// Nodes searched.
    pub nodes: u64,
}

struct Search {
    deadline: Instant,
    nodes: u64,
    timed_out: bool,
    hit_horizon: bool,
    mask: u64,
    shape: crate::board::Shape,
    scoring: Scoring,
}

impl Search {
    fn negamax(
        &mut self,
        p: u64,
        o: u64,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        passed: bool,
    ) -> i32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(4096) && Instant::now() >= self.deadline {
            self.timed_out = true;
        }
        if self.timed_out {
            return 0;
        }
        let empty = self.mask & !(p | o);
        let moves = legal_moves(p, o, empty);
        if moves == 0 {
            if passed || legal_moves(o, p, empty) == 0 {
                let squares = self.shape.squares();
                return FINAL * self.scoring.margin(p.count_ones(), o.count_ones(), squares);
            }
            return -self.negamax(o, p, depth, -beta, -alpha, true);
        }
        if depth == 0 {
            self.hit_horizon = true;
            return evaluate(p, o, self.shape);
        }
        // Order: fewest replies first.
        let mut children: Vec<(u32, u64, u64)> = Squares(moves)
            .map(|sq| {
                let f = flips(p, o, sq);
                let (np, no) = (o ^ f, p | f | (1u64 << sq));
                (
                    legal_moves(np, no, self.mask & !(np | no)).count_ones(),
                    np,
                    no,
                )
            })
            .collect();
        children.sort_by_key(|c| c.0);
        let mut best = -i32::MAX;
        for (_, np, no) in children {
            let v = -self.negamax(np, no, depth - 1, -beta, -alpha, false);
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

/// Scores every legal turn of `pos` by iterative deepening until `limit` runs out (at least
/// depth 1 is always completed). Scores are for the side to move; finished games are scored by
/// `scoring`.
#[must_use]
pub fn search(pos: &Position, limit: Duration, scoring: Scoring) -> MidgameResult {
    let turns = pos.legal_turns();
    let start = Instant::now();
    let mut s = Search {
        deadline: start + limit,
        nodes: 0,
        timed_out: false,
        hit_horizon: false,
        mask: pos.shape().mask(),
        shape: pos.shape(),
        scoring,
    };
    let mut result = MidgameResult {
        scores: turns.iter().map(|&t| (t, 0)).collect(),
        depth: 0,
        exact: false,
        nodes: 0,
    };
    let max_depth = pos.empty().count_ones() + 2;
    for depth in 1..=max_depth {
        s.hit_horizon = false;
        let mut scores = Vec::with_capacity(turns.len());
        for &t in &turns {
            let child = pos.apply(t).expect("legal turn");
            let v = -s.negamax(
                child.player(),
                child.opponent(),
                depth - 1,
                -i32::MAX,
                i32::MAX,
                t == Move::Pass,
            );
            scores.push((t, v));
        }
        if s.timed_out && depth > 1 {
            break;
        }
        s.timed_out = false; // depth 1 always completes
        result.scores = scores;
        result.depth = depth;
        result.exact = !s.hit_horizon;
        if result.exact || Instant::now() >= s.deadline {
            break;
        }
    }
    result.nodes = s.nodes;
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Shape;

    #[test]
    fn takes_a_corner_when_offered() {
        // White b2 between black a1-diagonal and an empty corner... simpler: a position where
        // a1 is legal for black and gains a corner.
        let shape = Shape::square(8).unwrap();
        let pos = crate::board::Position::from_board_string(
            "-------- -O------ --X----- -------- -------- -------- -------- -------- X",
            Some(shape),
        )
        .unwrap();
        let r = search(&pos, Duration::from_millis(200), Scoring::Discs);
        let best = r.scores.iter().max_by_key(|s| s.1).unwrap().0;
        assert_eq!(best, Move::Place(0));
    }

    #[test]
    fn small_boards_are_searched_to_the_end() {
        let start = Shape::square(4).unwrap().start();
        let r = search(&start, Duration::from_secs(5), Scoring::Discs);
        assert!(r.exact);
        // REFERENCE.md: 4x4 is a second-player win, so every first move loses for black.
        assert!(r.scores.iter().all(|s| s.1 < 0));
    }
}
