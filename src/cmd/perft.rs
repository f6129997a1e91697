//! `reversi perft`: games per ply.

use anyhow::Result;
use clap::Args;
use reversi_nxn::perft::{perft_counts, perft_table, PerftOptions, PerftReport};

use crate::bar::Bar;
use crate::cli::BoardArgs;

/// Arguments of `reversi perft`.
#[derive(Debug, Args)]
pub struct PerftArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// Plies to count (a pass uses a ply).
    #[arg(long, short = 'd', default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub depth: u32,
    /// Count games per ply only: bulk counting at the last ply and a transposition table; no
    /// ended games or scores. Much faster for deep runs.
    #[arg(long)]
    pub fast: bool,
    /// Do not merge symmetric positions (for measuring what symmetry saves).
    #[arg(long)]
    pub no_symmetry: bool,
    /// Transposition table size for --fast, in MiB (0 turns it off).
    #[arg(long, default_value_t = 256)]
    pub hash_mb: usize,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Runs perft and prints the table.
pub fn run(args: &PerftArgs) -> Result<()> {
    let (pos, _) = args.board.position(8)?;
    reversi_nxn::memory::check_available(args.hash_mb as u64)?;
    let opts = PerftOptions {
        symmetry: !args.no_symmetry,
        hash_mb: args.hash_mb,
    };
    let bar = Bar::new(super::stop_flag());
    let report = if args.fast {
        perft_counts(&pos, args.depth, opts, &bar)
    } else {
        perft_table(&pos, args.depth, opts, &bar)
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report);
    }
    Ok(())
}

fn print_report(r: &PerftReport) {
    println!("perft on {} from {}", r.board, r.position);
    println!("convention: {}", r.convention);
    let detailed = r.plies.iter().any(|p| p.ended.is_some());
    if detailed {
        println!(
            "{:>4} {:>24} {:>16}  final scores of ended games (X:O games)",
            "ply", "games", "ended"
        );
    } else {
        println!("{:>4} {:>24}", "ply", "games");
    }
    for row in &r.plies {
        match row.ended {
            Some(ended) => {
                let scores: Vec<String> = row
                    .ended_scores
                    .iter()
                    .map(|s| format!("{}:{} {}", s.black, s.white, s.games))
                    .collect();
                println!(
                    "{:>4} {:>24} {:>16}  {}",
                    row.ply,
                    row.games,
                    ended,
                    scores.join(", ")
                );
            }
            None => println!("{:>4} {:>24}", row.ply, row.games),
        }
    }
    println!(
        "time {:.3} s, {:.3e} games at the last ply per second",
        r.seconds,
        r.leaves_per_second()
    );
}
