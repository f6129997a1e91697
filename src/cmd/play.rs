//! `reversi play`: an interactive game against the engine, engine against engine, or free
//! exploration, from a terminal or a pipe.

use std::io::{self, BufRead, Write};
use std::time::Duration;

use anyhow::Result;
use clap::{Args, ValueEnum};
use reversi_nxn::board::Scoring;
use reversi_nxn::play::session::{Session, HELP};

use super::BoardArgs;

/// Which sides the engine plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineSides {
    /// The engine plays black; you play white.
    Black,
    /// The engine plays white; you play black.
    White,
    /// The engine plays both sides to the end.
    Both,
    /// Nobody: explore freely, asking for hints.
    None,
}

/// Arguments of `reversi play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// Which sides the engine plays.
    #[arg(long, value_enum, default_value_t = EngineSides::White)]
    pub engine: EngineSides,
    /// Thinking time per move, in milliseconds: the engine solves exactly where the solver's
    /// estimate fits it (stopping a solve that overruns, then searching heuristically for as
    /// long again), plays the board's published solution (results/RxC/solution.json) where it
    /// settles the position, and searches heuristically elsewhere.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub time_ms: u64,
    /// How a finished game is scored: discs (empty squares count for nobody) or
    /// winner-takes-empties (the Othello rules: the winner gets them).
    #[arg(long, value_enum, default_value_t = Scoring::Discs)]
    pub scoring: Scoring,
}

/// Runs the session on stdin and stdout.
pub fn run(args: &PlayArgs) -> Result<()> {
    let (pos, _) = args.board.position(8)?;
    let engine = match args.engine {
        EngineSides::Black => [true, false],
        EngineSides::White => [false, true],
        EngineSides::Both => [true, true],
        EngineSides::None => [false, false],
    };
    let (advisor, _) = super::advisor_for(&pos, Duration::from_millis(args.time_ms), args.scoring);
    let mut out = io::stdout().lock();
    if engine != [true, true] {
        writeln!(out, "{HELP}")?;
    }
    let stdin = io::stdin();
    let mut input: Box<dyn BufRead> = Box::new(stdin.lock());
    let mut session = Session::new(pos, engine, advisor);
    session.run(&mut input, &mut out)?;
    Ok(())
}
