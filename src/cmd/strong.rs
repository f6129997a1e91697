//! `reversi strong`: the value and moves-to-end of every reachable position, saved to disk.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use reversi_nxn::strong::{build, StrongOptions, StrongReport, FORMAT_VERSION};
use serde::Serialize;

use super::{BoardArgs, UsageError};
use crate::bar::Bar;

/// Arguments of `reversi strong`.
#[derive(Debug, Args)]
pub struct StrongArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// Memory budget in MiB; the build stops with a message if the board needs more.
    #[arg(long, default_value_t = 4096)]
    pub memory: u64,
    /// Directory for strong.json (and strong.bin unless --bin is given) [default: results/RxC].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Where to write the table [default: OUT/strong.bin]. Use a path outside the repository
    /// for boards whose table is too large to commit (5x5).
    #[arg(long)]
    pub bin: Option<PathBuf>,
    /// Do not write any file; only print the summary.
    #[arg(long)]
    pub no_save: bool,
    /// Print the summary as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// What `strong.json` holds: the report and where the table went.
#[derive(Debug, Serialize)]
struct Summary<'a> {
    #[serde(flatten)]
    report: &'a StrongReport,
    /// The command that wrote this file.
    command: String,
    /// The table file as given on the command line, its size and format version.
    table_file: Option<String>,
    table_bytes: Option<u64>,
    table_format_version: u32,
}

/// Builds the strong solution of `shape` within `memory` MiB and, with `out`, writes the table
/// (to `bin`, by default `out/strong.bin`) and `out/strong.json`.
pub fn build_and_save(
    shape: reversi_nxn::board::Shape,
    memory: u64,
    out: Option<&PathBuf>,
    bin: Option<PathBuf>,
    progress: &dyn reversi_nxn::progress::Progress,
) -> Result<(StrongReport, serde_json::Value)> {
    let opts = StrongOptions { memory_mb: memory };
    let (table, report) = build(shape, &opts, progress).map_err(|e| match e {
        reversi_nxn::strong::StrongError::Memory(m) => anyhow::Error::new(m),
        reversi_nxn::strong::StrongError::TooLarge(..) => UsageError(e.to_string()).into(),
        other => anyhow::Error::new(other),
    })?;
    let mut summary = Summary {
        report: &report,
        command: std::iter::once("reversi".to_string())
            .chain(std::env::args().skip(1))
            .collect::<Vec<_>>()
            .join(" "),
        table_file: None,
        table_bytes: None,
        table_format_version: FORMAT_VERSION,
    };
    if let Some(out) = out {
        let bin = bin.unwrap_or_else(|| out.join("strong.bin"));
        table.save(&bin)?;
        summary.table_bytes = Some(std::fs::metadata(&bin)?.len());
        summary.table_file = Some(bin.display().to_string());
        std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
        let json = out.join("strong.json");
        reversi_nxn::atomic::write_atomic(&json, &(serde_json::to_string_pretty(&summary)? + "\n"))
            .with_context(|| format!("writing {}", json.display()))?;
    }
    let value = serde_json::to_value(&summary)?;
    Ok((report, value))
}

/// Builds the strong solution, writes it, prints the summary.
pub fn run(args: &StrongArgs) -> Result<()> {
    if args.board.moves.is_some() || args.board.board.is_some() {
        return Err(UsageError(
            "strong solves every position reachable from the start; --moves and --board do not apply"
                .into(),
        )
        .into());
    }
    let shape = args.board.shape(4)?;
    reversi_nxn::memory::check_available(args.memory)?;
    let bar = Bar::new(super::stop_flag());
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(shape.name()));
    if !args.no_save {
        super::prepare_output_dir(&out, "--out")?;
        if let Some(bin) = &args.bin {
            super::prepare_output_file(bin, "--bin")?;
        }
    }
    let (report, summary) = build_and_save(
        shape,
        args.memory,
        (!args.no_save).then_some(&out),
        args.bin.clone(),
        &bar,
    )?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print_report(&report);
        if let (Some(f), Some(b)) = (
            summary["table_file"].as_str(),
            summary["table_bytes"].as_u64(),
        ) {
            println!(
                "table written to {f} ({b} bytes); summary in {}",
                out.join("strong.json").display()
            );
        }
    }
    Ok(())
}

/// What each column of the layer table counts.
const POSITIONS_LEGEND: &str = "up to symmetry: disc patterns (side to move's, other side's) \
merged by the board's symmetries, the table's entries; with side: the same with the side to move \
counted; in play: of those, the games not over, which `count` reports per layer after the start; \
positions: with side, no symmetry merged; game over: table entries whose game has ended";

fn print_report(r: &StrongReport) {
    println!("strong solution of {}", r.board);
    println!("convention: {}", r.convention);
    println!(
        "{:>5} {:>14} {:>14} {:>14} {:>16} {:>12}",
        "discs", "up to symmetry", "with side", "in play", "positions", "game over"
    );
    for l in &r.layers {
        println!(
            "{:>5} {:>14} {:>14} {:>14} {:>16} {:>12}",
            l.discs, l.canonical, l.canonical_with_side, l.in_play, l.positions, l.terminal
        );
    }
    println!(
        "{:>5} {:>14} {:>14} {:>14} {:>16} {:>12}",
        "all",
        r.canonical,
        r.canonical_with_side,
        r.in_play,
        r.positions,
        r.layers.iter().map(|l| l.terminal).sum::<u64>()
    );
    println!("{POSITIONS_LEGEND}");
    let who = match r.start_value {
        v if v > 0 => "black (the first player) wins",
        v if v < 0 => "white (the second player) wins",
        _ => "draw",
    };
    println!(
        "start: value {:+} (black minus white), {}, {} placements to the end",
        r.start_value, who, r.start_moves_to_end
    );
    let moves: Vec<String> = r
        .first_moves
        .iter()
        .map(|f| format!("{} {:+} ({})", f.square, f.value, f.moves_to_end))
        .collect();
    println!(
        "first moves (value, placements to the end): {}",
        moves.join(", ")
    );
    println!(
        "time {:.3} s forward + {:.3} s backward, about {} MiB at the peak",
        r.seconds_forward, r.seconds_backward, r.peak_mb
    );
}
