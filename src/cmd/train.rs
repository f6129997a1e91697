//! `reversi train-eval`: solve sample positions of one board and fit its pattern evaluation to
//! them.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use reversi_nxn::board::Shape;
use reversi_nxn::progress::Progress;
use reversi_nxn::solve::probcut::evaluation_errors;
use reversi_nxn::solve::train::{fit, sample_empties, solve_samples, Sample};

use super::{ShapeArgs, UsageError};
use crate::bar::Bar;

/// Games solved between two saves of the samples file.
const CHUNK: u64 = 1024;
/// Deepest search of `--errors`.
const MAX_ERROR_DEPTH: u32 = 8;

/// Arguments of `reversi train-eval`.
#[derive(Debug, Args)]
pub struct TrainArgs {
    /// The board [default: 8x8].
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// Games to play; one position of each (with --empties empty squares) is solved.
    #[arg(long, default_value_t = 100_000)]
    pub games: u64,
    /// The empty squares of the solved positions, LO-HI (each game draws one), at most 30
    /// [default: 10-18 on 8x8; on smaller boards 10 to 8 fewer than at the start, at most 20].
    #[arg(long, value_name = "LO-HI")]
    pub empties: Option<String>,
    /// Seed of the games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The samples file: solved positions are appended to it, and a run that finds it resumes
    /// after the games it holds [default: data/eval/samples-seed`SEED`.txt, or
    /// samples-seed`SEED`-e`LO`-`HI`.txt for other --empties; on other boards than 8x8
    /// samples-`R`x`C`-seed`SEED`.txt, likewise].
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Where to write the fitted weights [default: assets/eval/pattern`R`x`C`.bin].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Passes of the fit over the samples.
    #[arg(long, default_value_t = 20)]
    pub epochs: u32,
    /// Transposition table of each worker, in MiB.
    #[arg(long, default_value_t = 8)]
    pub hash_mb: usize,
    /// Solve nothing and fit nothing: print the shipped evaluation's error against the
    /// samples file's exact values (the first --games games) by empty squares, searched 0 to
    /// this many plies deep: the figures behind probcut's margins.
    #[arg(long, value_name = "MAX_DEPTH")]
    pub errors: Option<u32>,
    /// With --errors, only the last tenth of the samples (the part the fit holds out).
    #[arg(long, requires = "errors")]
    pub held_out: bool,
}

/// Solves the samples still missing, then fits and writes the weights.
pub fn run(args: &TrainArgs) -> Result<()> {
    if args.games < 10 {
        return Err(UsageError("--games must be at least 10".into()).into());
    }
    let shape = match args.shape.given()? {
        Some(shape) => shape,
        None => Shape::square(8)?,
    };
    let default_empties = sample_empties(shape);
    let empties = match &args.empties {
        Some(text) => parse_empties(text)?,
        None => default_empties.clone(),
    };
    let empties_text = format!("{}-{}", empties.start(), empties.end());
    // The board's default range keeps the plain file name and header; 8x8 keeps its old ones.
    let tag = if empties == default_empties {
        String::new()
    } else {
        format!("-e{empties_text}")
    };
    let board = if shape.squares() == 64 {
        String::new()
    } else {
        format!("{}-", shape.name())
    };
    let data = args.data.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "data/eval/samples-{board}seed{}{tag}.txt",
            args.seed
        ))
    });
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("assets/eval/pattern{}.bin", shape.name())));
    let on_board = if board.is_empty() {
        String::new()
    } else {
        format!(", board {}", shape.name())
    };
    let header = if tag.is_empty() {
        format!("# reversi train-eval samples, seed {}{on_board}", args.seed)
    } else {
        format!(
            "# reversi train-eval samples, seed {}, empties {empties_text}{on_board}",
            args.seed,
        )
    };
    let mut lines: Vec<String> = match std::fs::read_to_string(&data) {
        Ok(text) => text.lines().map(str::to_owned).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e).with_context(|| format!("reading {}", data.display())),
    };
    if args.errors.is_some_and(|d| d > MAX_ERROR_DEPTH) {
        return Err(UsageError(format!(
            "--errors: at most {MAX_ERROR_DEPTH} plies (each ply costs several times the one before)"
        ))
        .into());
    }
    if args.errors.is_some() && lines.len() < 2 {
        return Err(UsageError(format!("--errors: {} holds no samples", data.display())).into());
    }
    if lines.is_empty() {
        if let Some(dir) = data.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(&data, format!("{header}\n"))
            .with_context(|| format!("writing {}", data.display()))?;
        lines.push(header.clone());
    } else if lines[0] != header {
        return Err(UsageError(format!(
            "{} was not written for {} with --seed {} --empties {empties_text} (its first line \
             is '{}')",
            data.display(),
            shape.name(),
            args.seed,
            lines[0]
        ))
        .into());
    }
    // One line per game after the header: a sample, or '-' for a game that ended early.
    let mut samples = Vec::new();
    for (n, line) in lines.iter().enumerate().skip(1) {
        if line != "-" {
            samples.push(
                Sample::from_line(line)
                    .map_err(|e| UsageError(format!("{} line {}: {e}", data.display(), n + 1)))?,
            );
        }
    }
    let mut done = (lines.len() - 1) as u64;
    if let Some(depth) = args.errors {
        return print_errors(shape, &lines, &samples, args, depth);
    }
    if done < args.games {
        let stop = super::stop_flag();
        let bar = Bar::new(std::sync::Arc::clone(&stop));
        bar.start("games solved", args.games);
        bar.advance(done);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&data)
            .with_context(|| format!("opening {}", data.display()))?;
        while done < args.games {
            if bar.should_stop() {
                bar.finish();
                return Err(super::Interrupted(format!(
                    "stopped after {done} of {} games; {} holds them and the same command resumes",
                    args.games,
                    data.display()
                ))
                .into());
            }
            let end = (done + CHUNK).min(args.games);
            // A stop in the chunk keeps the games solved before the first one left out.
            let solved = solve_samples(shape, args.seed, done..end, &empties, args.hash_mb, &stop);
            let end = done + solved.len() as u64;
            let mut text = String::new();
            for s in solved {
                match s {
                    Some(s) => {
                        text.push_str(&s.to_line());
                        samples.push(s);
                    }
                    None => text.push('-'),
                }
                text.push('\n');
            }
            file.write_all(text.as_bytes())
                .and_then(|()| file.flush())
                .with_context(|| format!("writing {}", data.display()))?;
            bar.advance(end - done);
            done = end;
        }
        bar.finish();
    }
    let samples_used = if done > args.games {
        // The file holds more games than asked: fit on the first ones only (`lines` is the
        // file as read, which then held them all).
        first_games(&lines, &samples, args.games)
    } else {
        &samples[..]
    };
    if samples_used.len() < 10 {
        return Err(UsageError("fewer than 10 games reached a sample position".into()).into());
    }
    let (weights, report) = fit(shape, samples_used, args.epochs);
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(&out, weights.to_bytes())
        .with_context(|| format!("writing {}", out.display()))?;
    println!(
        "fitted on {} samples, {} held out: error {:.2} discs (a constant guess: {:.2}), \
         correlation {:.3}; weights written to {}",
        report.train,
        report.held_out,
        report.rmse,
        report.rmse_constant,
        report.correlation,
        out.display()
    );
    Ok(())
}

/// The samples of the first `games` games of a samples file's `lines` (all when it holds fewer).
fn first_games<'s>(lines: &[String], samples: &'s [Sample], games: u64) -> &'s [Sample] {
    let keep = lines
        .iter()
        .skip(1)
        .take(usize::try_from(games).unwrap_or(usize::MAX))
        .filter(|l| *l != "-")
        .count();
    &samples[..keep.min(samples.len())]
}

/// `--errors`: the table of the shallow search's errors against the samples.
fn print_errors(
    shape: Shape,
    lines: &[String],
    samples: &[Sample],
    args: &TrainArgs,
    depth: u32,
) -> Result<()> {
    let mut used = first_games(lines, samples, args.games);
    if args.held_out {
        used = &used[used.len() - used.len() / 10..];
    }
    if used.is_empty() {
        return Err(UsageError("--errors: no samples to measure".into()).into());
    }
    let depths: Vec<u32> = (0..=depth).collect();
    println!("empties  depth  positions  mean error  sd (discs; exact minus search)");
    for r in evaluation_errors(shape, used, &depths) {
        println!(
            "{:>7}  {:>5}  {:>9}  {:>10.2}  {:>5.2}",
            r.empties, r.depth, r.count, r.mean, r.sd
        );
    }
    Ok(())
}

/// The range of `--empties`: `LO-HI` with `1 <= LO <= HI <= 30`.
fn parse_empties(text: &str) -> Result<std::ops::RangeInclusive<u32>> {
    let bad = || {
        UsageError(format!(
            "--empties '{text}': expected LO-HI with 1 <= LO <= HI <= 30"
        ))
    };
    let (lo, hi) = text.split_once('-').ok_or_else(bad)?;
    let (lo, hi): (u32, u32) = (
        lo.trim().parse().map_err(|_| bad())?,
        hi.trim().parse().map_err(|_| bad())?,
    );
    if lo == 0 || lo > hi || hi > 30 {
        return Err(bad().into());
    }
    Ok(lo..=hi)
}
