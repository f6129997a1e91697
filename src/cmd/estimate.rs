//! `reversi estimate`: a random-probe (Knuth) estimate of the number of games.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use reversi_nxn::estimate::{estimate, EstimateOptions, EstimateReport, OutcomeEstimate};
use reversi_nxn::export::plot::thousands;

use super::BoardArgs;
use crate::bar::Bar;

/// Arguments of `reversi estimate`.
#[derive(Debug, Args)]
pub struct EstimateArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// Number of random playouts (probes).
    #[arg(long, short = 'k', default_value_t = 1_000_000,
          value_parser = clap::value_parser!(u64).range(2..))]
    pub samples: u64,
    /// Seed of the random streams: the same seed and samples give the same report for any
    /// --threads.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also write the report to DIR/estimate.json.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Runs the estimate and prints it.
pub fn run(args: &EstimateArgs) -> Result<()> {
    let (pos, _) = args.board.position(8)?;
    if let Some(dir) = &args.out {
        super::prepare_output_dir(dir, "--out")?;
    }
    let bar = Bar::new(super::stop_flag());
    let opts = EstimateOptions {
        samples: args.samples,
        seed: args.seed,
    };
    let report = estimate(&pos, opts, &bar);
    if report.interrupted {
        // A partial estimate is still a valid one (with fewer probes): show it, but do not
        // save it as if it were the run asked for.
        print_report(&report);
        return Err(super::Interrupted(format!(
            "interrupted after {} of {} probes; nothing written",
            report.samples, args.samples
        ))
        .into());
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let path = dir.join("estimate.json");
        let text = serde_json::to_string_pretty(&report)?;
        reversi_nxn::atomic::write_atomic(&path, &(text + "\n"))
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report);
    }
    Ok(())
}

/// A game count: whole with commas below 10^15, else in scientific notation.
fn games(x: f64) -> String {
    if x.abs() < 1e15 {
        thousands(x.round().max(0.0) as u128)
    } else {
        format!("{x:.4e}")
    }
}

fn print_report(r: &EstimateReport) {
    let g = &r.games;
    println!("estimate on {} from {}", r.board, r.position);
    println!("method: {}", r.method);
    println!(
        "samples {} (seed {}, streams of {} probes: the same for any --threads)",
        thousands(u128::from(r.samples)),
        r.seed,
        r.chunk
    );
    println!(
        "games ≈ {}   standard error {} ({:.3}%)",
        games(g.mean),
        games(g.std_error),
        100.0 * r.relative_std_error
    );
    println!(
        "95% interval ({}): [{}, {}]",
        r.interval,
        games(g.ci95_low),
        games(g.ci95_high)
    );
    let line = |name: &str, o: &OutcomeEstimate| {
        println!(
            "  {name:<11} {:>7.3}%  ≈ {} games (± {} at 95%)",
            100.0 * o.share,
            games(o.games.mean),
            games(1.96 * o.games.std_error)
        );
    };
    println!("outcomes:");
    line("black wins", &r.black_wins);
    line("draws", &r.draws);
    line("white wins", &r.white_wins);
    println!(
        "mean length {:.2} placements; largest product 10^{:.2}",
        r.mean_length, r.max_product_log10
    );
    println!("{:>10} {:>22}", "placements", "games (estimated)");
    for l in &r.lengths {
        println!("{:>10} {:>22}", l.placements, games(l.games));
    }
    println!(
        "time {:.3} s, {:.0} probes per second (per-score estimates: --json or --out)",
        r.seconds, r.probes_per_second
    );
}
