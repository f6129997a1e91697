//! `reversi perft`: games per ply.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use reversi_nxn::perft::{
    perft_counts, perft_deep, perft_table, DeepOptions, PerftOptions, PerftReport,
};

use super::BoardArgs;
use crate::bar::Bar;

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
    /// With --fast from depth 10 on: memory for the merged positions of the first plies,
    /// in MiB (the table has its own --hash-mb).
    #[arg(long, default_value_t = 2048, value_parser = clap::value_parser!(u64).range(1..))]
    pub memory: u64,
    /// With --fast: the ply to merge equal and symmetric positions at before counting the rest
    /// depth-first (default: three plies short of the depth, at most 11, from depth 10 on; lowered
    /// to what --memory holds).
    #[arg(long, value_name = "PLY")]
    pub merge_ply: Option<u32>,
    /// Where a deep --fast run saves its finished work now and then (default:
    /// perft-RxC-dDEPTH.checkpoint in the current directory; removed when the run completes).
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Continue a stopped deep --fast run from its checkpoint.
    #[arg(long)]
    pub resume: bool,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Start even when the run is estimated to take more than an hour (from a quick Knuth
    /// estimate of the games at the last ply and the speeds in BENCHMARKS.md).
    #[arg(long)]
    pub yes: bool,
}

/// The shallowest depth at which --fast merges positions by default (below it the whole run
/// takes well under a second).
const DEEP_FROM: u32 = 10;

/// Runs perft and prints the table.
pub fn run(args: &PerftArgs) -> Result<()> {
    let (pos, _) = args.board.position(8)?;
    let deep = args.fast && (args.depth >= DEEP_FROM || args.merge_ply.is_some());
    if !args.resume {
        // Games counted per second per thread (BENCHMARKS.md, 8x8: ply 11 detailed 1.9e8/s,
        // ply 12 --fast 1.6e9/s, ply 15 merged 1.1e10/s, on two threads).
        let (rate, how) = if deep {
            (5e9, "merged at a middle ply")
        } else if args.fast {
            (8e8, "--fast")
        } else {
            (1e8, "with ended games and scores")
        };
        let games = reversi_nxn::estimate::games_at_ply(&pos, args.depth, 2000);
        let threads = rayon::current_num_threads() as f64;
        super::check_long(
            args.yes,
            &format!(
                "perft to ply {} of {} (about {games:.1e} games at the last ply)",
                args.depth,
                pos.shape()
            ),
            games / (rate * threads),
            &format!(
                "a Knuth estimate at {rate:.0e} games a second per thread, {how}{}",
                if args.fast {
                    ""
                } else {
                    "; --fast is several times faster"
                }
            ),
        )?;
    }
    let layers_mb = if deep { args.memory } else { 0 };
    reversi_nxn::memory::check_available(args.hash_mb as u64 + layers_mb)?;
    let opts = PerftOptions {
        symmetry: !args.no_symmetry,
        hash_mb: args.hash_mb,
    };
    // Only the deep run saves its work; the others end at once on Ctrl-C.
    let bar = Bar::new(if deep {
        super::stop_flag()
    } else {
        super::no_stop()
    });
    let report = if deep {
        let checkpoint = args.checkpoint.clone().unwrap_or_else(|| {
            PathBuf::from(format!(
                "perft-{}-d{}.checkpoint",
                pos.shape().name(),
                args.depth
            ))
        });
        super::prepare_output_file(&checkpoint, "--checkpoint")?;
        // Two runs on one checkpoint would overwrite each other's work.
        let _lock = reversi_nxn::lock::lock_file(&checkpoint, "the checkpoint")?;
        let deep = DeepOptions {
            memory_mb: args.memory,
            merge_ply: args.merge_ply,
            checkpoint: Some(checkpoint),
            resume: args.resume,
        };
        perft_deep(&pos, args.depth, opts, &deep, &bar)?
    } else if args.fast {
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
    if let Some(k) = r.merged_at {
        println!("positions merged at ply {k}");
    }
    println!(
        "time {:.3} s, {:.3e} games at the last ply per second",
        r.seconds,
        r.leaves_per_second()
    );
}
