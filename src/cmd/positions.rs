//! `reversi positions`: games, distinct positions and one-path positions per ply.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use reversi_nxn::export::tables::{write_atomic, write_json};
use reversi_nxn::positions::{csv, positions, PositionsOptions, PositionsReport};

use super::BoardArgs;
use crate::bar::Bar;

/// Arguments of `reversi positions`.
#[derive(Debug, Args)]
pub struct PositionsArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// Plies to count (a pass uses a ply, as in perft).
    #[arg(long, short = 'd', default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=64))]
    pub depth: u32,
    /// Memory budget for the layers, in MiB. A ply too large to keep ends the table there.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..))]
    pub memory: u64,
    /// Store every position, not one per class of symmetric positions (same figures; for
    /// measuring what symmetry saves).
    #[arg(long)]
    pub no_symmetry: bool,
    /// Also write the table as CSV to this file.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Also write the report (with time and memory per ply) as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json_out: Option<PathBuf>,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Counts and prints the table.
pub fn run(args: &PositionsArgs) -> Result<()> {
    let (pos, _) = args.board.position(8)?;
    reversi_nxn::memory::check_available(args.memory)?;
    if let Some(path) = &args.csv {
        super::prepare_output_file(path, "--csv")?;
    }
    if let Some(path) = &args.json_out {
        super::prepare_output_file(path, "--json-out")?;
    }
    let opts = PositionsOptions {
        memory_mb: args.memory,
        symmetry: !args.no_symmetry,
    };
    let bar = Bar::new(super::stop_flag());
    let report = positions(&pos, args.depth, opts, &bar)?;
    if let Some(path) = &args.csv {
        write_atomic(path, &csv(&report)).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.json_out {
        write_json(path, &report).with_context(|| format!("writing {}", path.display()))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report);
    }
    if let Some(why) = &report.stopped {
        if why.starts_with("stopped during") {
            // Ctrl-C: the plies before are shown above.
            return Err(super::Interrupted(format!("interrupted: {why}")).into());
        }
        eprintln!("stopped early: {why}");
    }
    Ok(())
}

fn print_report(r: &PositionsReport) {
    println!("positions on {} from {}", r.board, r.position);
    println!("convention: {}", r.convention);
    println!("classes under: {}", r.symmetries.join(", "));
    println!(
        "{:>4} {:>20} {:>18} {:>18} {:>16} {:>9} {:>10}",
        "ply", "games", "positions", "one path", "classes", "seconds", "peak MiB"
    );
    for row in &r.plies {
        let cost = r.costs.iter().find(|c| c.ply == row.ply);
        let (secs, mib) = cost.map_or((String::new(), String::new()), |c| {
            (
                format!("{:.2}", c.seconds),
                format!("{:.1}", c.peak_bytes as f64 / f64::from(1 << 20)),
            )
        });
        println!(
            "{:>4} {:>20} {:>18} {:>18} {:>16} {:>9} {:>10}",
            row.ply, row.games, row.positions, row.one_path, row.classes, secs, mib
        );
    }
    let rss = reversi_nxn::memory::peak_resident_mb()
        .map_or(String::new(), |m| format!(", peak resident {m} MiB"));
    println!("time {:.3} s{rss}", r.seconds);
}
