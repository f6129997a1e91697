//! Proofs of less than every move's value: the value and one best move, or only win, draw or
//! loss, each for the side to move (the convention of the FFO suite and OBF files).
//!
//! [`Mode::Best`] finds the exact value by MTD(f) null-window searches around a heuristic guess
//! (as for each root move of [`Solver::solve`], but once for the position instead of once per
//! move), then proves one move keeps it: a null-window test of each move's child at the value,
//! the table's best move first. [`Mode::Wld`] searches with the window `(-1, 1)`, which proves
//! only the sign, and then a move that keeps it. [`Mode::All`] is [`Solver::solve`].

use std::time::Instant;

use serde::Serialize;

use super::context::Ctx;
use super::dispatch::{searcher, Search};
use super::{exact_from_guess, SolveOptions, Solver};
use crate::board::{Move, Position, Scoring, Squares};
use crate::progress::Silent;

/// What to prove about a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The exact value and one best move (the usual mode of endgame suites).
    #[default]
    Best,
    /// The exact value of every legal move ([`Solver::solve`]).
    All,
    /// Only whether the side to move wins, draws or loses, and a move that keeps that result.
    Wld,
}

impl Mode {
    /// `best`, `all` or `wld`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Mode::Best => "best",
            Mode::All => "all",
            Mode::Wld => "wld",
        }
    }
}

/// The result for the side to move under perfect play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The side to move wins.
    Win,
    /// A draw.
    Draw,
    /// The side to move loses.
    Loss,
}

impl Outcome {
    /// The outcome of a value for the side to move.
    #[must_use]
    pub const fn of(value: i32) -> Outcome {
        if value > 0 {
            Outcome::Win
        } else if value < 0 {
            Outcome::Loss
        } else {
            Outcome::Draw
        }
    }

    /// `win`, `draw` or `loss`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Draw => "draw",
            Outcome::Loss => "loss",
        }
    }
}

/// What [`Solver::prove`] proved about one position. Values are **for the side to move** (its
/// discs minus the other side's at the end under perfect play, under [`Proof::scoring`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Proof {
    /// The position.
    pub position: Position,
    /// What was asked.
    pub mode: Mode,
    /// The scoring rule of the values.
    pub scoring: Scoring,
    /// The exact value for the side to move (`None` in [`Mode::Wld`], which proves only the
    /// sign).
    pub value: Option<i32>,
    /// Win, draw or loss for the side to move.
    pub outcome: Outcome,
    /// Best moves: one in [`Mode::Best`], every one in [`Mode::All`]; in [`Mode::Wld`] one
    /// move that keeps the outcome (none when every move loses). A forced pass is `pass`; a
    /// finished game has none.
    pub best_moves: Vec<Move>,
    /// In [`Mode::All`], every legal turn with its value for the side to move (row-major);
    /// empty otherwise.
    pub move_values: Vec<(Move, i32)>,
    /// Positions searched (all threads).
    pub nodes: u64,
    /// Of `nodes`, those of the heuristic searches that order moves or guess a value.
    pub ordering_nodes: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Worker threads available to the search.
    pub threads: usize,
}

impl Solver {
    /// Proves what `mode` asks about `pos` under `opts` (see the `prove` module docs).
    pub fn prove(&mut self, pos: &Position, mode: Mode, opts: &SolveOptions) -> Proof {
        let t0 = Instant::now();
        if mode == Mode::All {
            let r = self.solve(pos, opts, &Silent);
            let sign = if pos.black_to_move() { 1 } else { -1 };
            let value = sign * r.value;
            return Proof {
                position: *pos,
                mode,
                scoring: opts.scoring,
                value: Some(value),
                outcome: Outcome::of(value),
                best_moves: r.best_moves(),
                move_values: r.move_values.iter().map(|&(m, v)| (m, sign * v)).collect(),
                nodes: r.nodes,
                ordering_nodes: r.ordering_nodes,
                seconds: r.seconds,
                threads: r.threads,
            };
        }
        self.prepare(pos.shape(), opts.scoring);
        let ctx = Ctx::new(&self.table, opts.tuning, pos.shape(), opts.scoring);
        let (p, o) = (pos.player(), pos.opponent());
        let (value, outcome, best_moves) = {
            let mut s = searcher(&ctx);
            if mode == Mode::Best {
                let v = exact_from_guess(&mut *s, &opts.tuning, pos);
                let best = keeping_move(&mut *s, pos, v);
                (Some(v), Outcome::of(v), best.into_iter().collect())
            } else {
                let r = s.search(p, o, -1, 1);
                let outcome = Outcome::of(r);
                // A win keeps at least +1, a draw at least 0; every move keeps a loss.
                let best = match outcome {
                    Outcome::Win => keeping_move(&mut *s, pos, 1),
                    Outcome::Draw => keeping_move(&mut *s, pos, 0),
                    Outcome::Loss => None,
                };
                (None, outcome, best.into_iter().collect())
            }
        };
        Proof {
            position: *pos,
            mode,
            scoring: opts.scoring,
            value,
            outcome,
            best_moves,
            move_values: Vec::new(),
            nodes: ctx.nodes(),
            ordering_nodes: ctx.ordering_nodes(),
            seconds: t0.elapsed().as_secs_f64(),
            threads: rayon::current_num_threads(),
        }
    }
}

/// A turn of `pos` that gives the side to move at least `at_least` (which must be at most the
/// position's value, so one exists): each move's child is tested by a null-window search, the
/// table's best move first, then the others in the order of the principal variation's shallow
/// search. `None` for a finished game.
fn keeping_move(s: &mut dyn Search, pos: &Position, at_least: i32) -> Option<Move> {
    let moves = pos.moves();
    if moves == 0 {
        return (pos.opponent_moves() != 0).then_some(Move::Pass);
    }
    let (p, o) = (pos.player(), pos.opponent());
    let mut order: Vec<(i32, u32, Position)> = Squares(moves)
        .filter_map(|sq| pos.play(sq).map(|child| (0, sq, child)))
        .collect();
    let first = s.table_move(p, o);
    for (key, sq, child) in &mut order {
        *key = if Some(*sq) == first {
            i32::MIN
        } else {
            s.pv_order_key(child.player(), child.opponent())
        };
    }
    // Stable: equal keys stay in row-major order.
    order.sort_by_key(|&(key, _, _)| key);
    let found = order.into_iter().find(|(_, _, child)| {
        -s.search(child.player(), child.opponent(), -at_least, -at_least + 1) >= at_least
    });
    debug_assert!(found.is_some(), "no move keeps {at_least} at {pos}");
    found.map(|(_, sq, _)| Move::Place(sq))
}
