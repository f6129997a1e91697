//! `reversi analyze`: the board and the value of every legal move of a position.

use std::time::Duration;

use anyhow::Result;
use clap::Args;
use reversi_nxn::board::Scoring;
use reversi_nxn::play::Advisor;

use super::BoardArgs;

/// Arguments of `reversi analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// Time for the search, in milliseconds: an exact solve where the solver's estimate fits it
    /// (stopped if it overruns, then a heuristic search for as long again), else the board's
    /// published solution (results/RxC/solution.json) where it settles the position, else a
    /// heuristic search.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub time_ms: u64,
    /// How a finished game is scored: discs (empty squares count for nobody) or
    /// winner-takes-empties (the Othello rules: the winner gets them).
    #[arg(long, value_enum, default_value_t = Scoring::Discs)]
    pub scoring: Scoring,
}

/// Prints the diagram and the value of every legal move, best marked.
pub fn run(args: &AnalyzeArgs) -> Result<()> {
    let (pos, _) = args.board.position(8)?;
    println!("{}", pos.diagram());
    println!("board string: {pos}");
    if pos.is_over() {
        println!(
            "the game is over: {}:{}",
            pos.black_count(),
            pos.white_count()
        );
        return Ok(());
    }
    // The published solution answers at once where it settles the position: no wait to announce.
    let (mut advisor, settled) =
        super::advisor_for(&pos, Duration::from_millis(args.time_ms), args.scoring);
    if !settled && !reversi_nxn::play::solvable_within(&pos, Duration::from_millis(args.time_ms)) {
        eprintln!(
            "searching for up to {:.1} s (--time-ms; {} empty squares, too many to solve in that \
             time: a heuristic search unless the board's strong solution is on disk)",
            args.time_ms as f64 / 1000.0,
            pos.empty().count_ones()
        );
    }
    let advice = advisor.advise(&pos);
    println!(
        "scoring: {} ({})",
        args.scoring.name(),
        args.scoring.describe()
    );
    print!("{}", advice.describe(&pos));
    Ok(())
}
