//! `reversi plot`: renders the PNG charts of everything in `results/` into `plots/`.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use reversi_nxn::export::plot::plot_results;

use super::UsageError;

/// Arguments of `reversi plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// Directory holding one `<R>x<C>/` folder per board (score_matrix.csv, lengths.csv,
    /// perft.csv, estimate.json).
    #[arg(long, default_value = "results", value_name = "DIR")]
    pub results: PathBuf,
    /// Directory to write the PNG files into (created if missing).
    #[arg(long, default_value = "plots", value_name = "DIR")]
    pub plots: PathBuf,
}

/// Renders the charts and lists the files written.
pub fn run(args: &PlotArgs) -> Result<()> {
    if !args.results.is_dir() {
        return Err(UsageError(format!(
            "no results directory {} (run `reversi count` or `reversi report` first)",
            args.results.display()
        ))
        .into());
    }
    let written = plot_results(&args.results, &args.plots)?;
    if written.is_empty() {
        return Err(UsageError(format!(
            "nothing to plot: no <R>x<C>/score_matrix.csv, lengths.csv or perft.csv in {}",
            args.results.display()
        ))
        .into());
    }
    for path in written {
        println!("{}", path.display());
    }
    Ok(())
}
