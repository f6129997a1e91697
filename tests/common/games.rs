//! A slow, obviously correct game enumerator: every game by plain recursion.

use std::collections::BTreeMap;

use reversi_nxn::board::{Move, Position};

/// Every game from a position, tallied by final score and by length, found by the plainest
/// recursion over `legal_turns` (a forced pass is a turn, not a choice).
#[derive(Debug, Default)]
pub struct Games {
    /// Games in all.
    pub total: u128,
    /// Games per (black discs, white discs) at the end.
    pub scores: BTreeMap<(u32, u32), u128>,
    /// Games per number of placements.
    pub lengths: BTreeMap<u32, u128>,
}

impl Games {
    /// Enumerates every game from `pos`.
    pub fn from(pos: &Position) -> Games {
        let mut g = Games::default();
        walk(pos, 0, &mut g);
        g
    }

    /// The score matrix: `m[b][w]` games ending with `b` black and `w` white discs.
    pub fn matrix(&self, squares: usize) -> Vec<Vec<u128>> {
        let mut m = vec![vec![0u128; squares + 1]; squares + 1];
        for (&(b, w), &n) in &self.scores {
            m[b as usize][w as usize] = n;
        }
        m
    }

    /// Games won by black, drawn, won by white.
    pub fn outcomes(&self) -> [u128; 3] {
        let mut o = [0; 3];
        for (&(b, w), &n) in &self.scores {
            o[if b > w {
                0
            } else if b == w {
                1
            } else {
                2
            }] += n;
        }
        o
    }
}

fn walk(pos: &Position, placements: u32, g: &mut Games) {
    let turns = pos.legal_turns();
    if turns.is_empty() {
        g.total += 1;
        *g.scores
            .entry((pos.black_count(), pos.white_count()))
            .or_insert(0) += 1;
        *g.lengths.entry(placements).or_insert(0) += 1;
        return;
    }
    for mv in turns {
        let next = pos.apply(mv).expect("legal turn");
        let placed = u32::from(!matches!(mv, Move::Pass));
        walk(&next, placements + placed, g);
    }
}
