//! `reversi heuristics`: how often simple strategies find a perfect move, from a strong table.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use reversi_nxn::heuristics::{audit, HeuristicsReport, Strategy};
use reversi_nxn::strong::{build, StrongOptions, StrongTable};

use super::{BoardArgs, UsageError};
use crate::bar::Bar;

/// Arguments of `reversi heuristics`.
#[derive(Debug, Args)]
pub struct HeuristicsArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// The strong table to audit [default: results/RxC/strong.bin; built in memory if absent].
    #[arg(long)]
    pub table: Option<PathBuf>,
    /// Memory budget in MiB when the table has to be built.
    #[arg(long, default_value_t = 4096)]
    pub memory: u64,
    /// Directory for heuristics.csv [default: results/RxC].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Do not write the CSV; only print the table.
    #[arg(long)]
    pub no_save: bool,
}

/// Loads (or builds) the strong table, audits the strategies, writes the CSV, prints the table.
pub fn run(args: &HeuristicsArgs) -> Result<()> {
    if args.board.moves.is_some() || args.board.board.is_some() {
        return Err(UsageError(
            "heuristics audits every reachable position; --moves and --board do not apply".into(),
        )
        .into());
    }
    let shape = args.board.shape(4)?;
    let dir = PathBuf::from("results").join(shape.name());
    let bar = Bar::new(super::no_stop());
    let default_table = dir.join("strong.bin");
    let table = match &args.table {
        Some(path) => StrongTable::load(path)?,
        None if default_table.exists() => StrongTable::load(&default_table)?,
        None => {
            reversi_nxn::memory::check_available(args.memory)?;
            let opts = StrongOptions {
                memory_mb: args.memory,
            };
            build(shape, &opts, &bar)
                .map_err(|e| match e {
                    reversi_nxn::strong::StrongError::Memory(m) => anyhow::Error::new(m),
                    other => UsageError(other.to_string()).into(),
                })?
                .0
        }
    };
    if table.shape() != shape {
        return Err(UsageError(format!(
            "the table is for {}, not {}",
            table.shape().name(),
            shape.name()
        ))
        .into());
    }
    let report = audit(&table, &bar);
    if !args.no_save {
        let out = args.out.clone().unwrap_or(dir);
        std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
        let path = out.join("heuristics.csv");
        let mut w =
            csv::Writer::from_path(&path).with_context(|| format!("writing {}", path.display()))?;
        for row in &report.rows {
            w.serialize(row)?;
        }
        w.flush()?;
        println!("written {}", path.display());
    }
    print_report(&report);
    Ok(())
}

fn print_report(r: &HeuristicsReport) {
    println!(
        "{}: {} reachable positions up to symmetry with at least two moves (unweighted; ties split evenly)",
        r.board, r.positions
    );
    println!(
        "{:<13} {:>9} {:>10} {:>9} {:>10}  rule",
        "strategy", "perfect", "mean loss", "max loss", "loss/pos"
    );
    for (row, st) in r.rows.iter().zip(Strategy::ALL) {
        println!(
            "{:<13} {:>8.2}% {:>10.3} {:>9} {:>10.3}  {}",
            row.strategy,
            100.0 * row.perfect_share,
            row.mean_loss,
            row.max_loss,
            row.expected_loss,
            st.description()
        );
    }
    println!("mean loss: discs of final margin given away when the move is not perfect");
}
