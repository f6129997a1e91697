//! `reversi report`: regenerates every result and chart, reusing what is already computed, and
//! prints one summary table (also written to `results/summary.md` and, on request, into the
//! README between its summary markers).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use reversi_nxn::board::{Position, Scoring, Shape};
use reversi_nxn::count::{count, CountOptions};
use reversi_nxn::estimate::{estimate, EstimateOptions, EstimateReport};
use reversi_nxn::export::plot::{plot_results, thousands};
use reversi_nxn::export::tables::{perft_csv, write_atomic, write_json};
use reversi_nxn::perft::{perft_table, PerftOptions, PerftReport};
use reversi_nxn::play::known::Known;
use reversi_nxn::positions::{csv as positions_csv, positions, PositionsOptions, PositionsReport};
use reversi_nxn::solve::state::{status, StateError};
use reversi_nxn::solve::{proven_words, SolveOptions, Solver};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::UsageError;
use crate::bar::Bar;

/// Arguments of `reversi report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Recompute everything, even results already in the results directory.
    #[arg(long)]
    pub force: bool,
    /// Where the results go.
    #[arg(long, default_value = "results")]
    pub results: PathBuf,
    /// Where the charts go.
    #[arg(long, default_value = "plots")]
    pub plots: PathBuf,
    /// Probes of the estimate of each board of 29 to 36 squares (the games of smaller boards
    /// are counted; larger boards use a tenth).
    #[arg(long, default_value_t = 10_000_000, value_parser = clap::value_parser!(u64).range(1000..))]
    pub samples: u64,
    /// Seed of the estimates.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Memory budget for counting by layers, in MiB (5x5 needs about 3.2 GiB).
    #[arg(long, default_value_t = 4096)]
    pub memory: u64,
    /// Also write the summary table into this README, between its summary markers.
    #[arg(long)]
    pub readme: Option<PathBuf>,
    /// Only rewrite `results/README.md`, the index of the files in `results` and `plots`.
    #[arg(long)]
    pub index_only: bool,
}

/// The README markers around the summary table.
pub const SUMMARY_START: &str = "<!-- summary:start (written by `reversi report`) -->";
/// The README marker after the summary table.
pub const SUMMARY_END: &str = "<!-- summary:end -->";

/// Boards whose games are all counted: squares up to 5x5 and every rectangle of at most 25
/// squares (`R <= C`).
const COUNT_BOARDS: &[(u32, u32)] = &[
    (3, 3),
    (4, 4),
    (5, 5),
    (3, 4),
    (3, 5),
    (3, 6),
    (3, 7),
    (3, 8),
    (4, 5),
    (4, 6),
];

/// Boards whose exact counts take hours (layers on disk), run on their own by the command
/// beside each: the report shows their `results/RxC/` files when present and never starts
/// them itself, even with `--force`.
const LONG_COUNT_BOARDS: &[(u32, u32, &str)] = &[(
    4,
    7,
    "reversi count --rows 4 --cols 7 --memory 17000 --tmp-dir DIR (about 2 hours; see BENCHMARKS.md)",
)];

/// What the summary needs of a count's `summary.json`, with the tallies it checks the games
/// against.
#[derive(Debug, Clone, serde::Deserialize)]
struct CountSummary {
    games: u128,
    /// In `run.json` since it was split off; in `summary.json` before.
    #[serde(default)]
    seconds: f64,
    positions_per_layer: Option<Vec<serde_json::Value>>,
    black_wins: u128,
    draws: u128,
    white_wins: u128,
    score_matrix: Vec<Vec<u128>>,
    lengths: Vec<Tally>,
    margins: Vec<Tally>,
}

/// One row of a count's length or margin distribution.
#[derive(Debug, Clone, serde::Deserialize)]
struct Tally {
    games: u128,
}

impl CountSummary {
    /// Why the file's figures do not add up, if they do not: every game is a win, a draw or
    /// a loss, has one final score, one length and one margin.
    fn fault(&self) -> Option<String> {
        let sums = [
            (
                "wins, draws and losses",
                self.black_wins + self.draws + self.white_wins,
            ),
            (
                "the final-score matrix",
                self.score_matrix.iter().flatten().sum(),
            ),
            ("the lengths", self.lengths.iter().map(|t| t.games).sum()),
            ("the margins", self.margins.iter().map(|t| t.games).sum()),
        ];
        sums.iter()
            .find(|(_, n)| *n != self.games)
            .map(|(what, n)| {
                format!(
                    "{what} add up to {} games, not the {} it states",
                    thousands(*n),
                    thousands(self.games)
                )
            })
    }
}

/// A count's `summary.json` read back, if it is there and parses (else `None`: it is
/// computed again); one that parses but does not add up is an error naming it.
fn read_count(path: &Path) -> Result<Option<CountSummary>> {
    let Some(s) = read_json::<CountSummary>(path) else {
        return Ok(None);
    };
    match s.fault() {
        None => Ok(Some(s)),
        Some(why) => Err(damaged(path, &why)),
    }
}

/// The error for a result file that parses but contradicts itself.
fn damaged(path: &Path, why: &str) -> anyhow::Error {
    UsageError(format!(
        "{} is damaged ({why}): restore it (git checkout -- {0}) or delete it and compute it \
         again",
        path.display()
    ))
    .into()
}

/// The `seconds` of a count's `run.json` in `dir`, if there is one.
fn run_seconds(dir: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join("run.json")).ok()?;
    serde_json::from_str::<serde_json::Value>(&text).ok()?["seconds"].as_f64()
}

/// Boards solved for perfect play: squares up to 6x6 and every rectangle of at most 36 squares
/// (`R <= C`; an `R x C` board is the transpose of `C x R`, start included).
const SOLVE_BOARDS: &[(u32, u32)] = &[
    (3, 3),
    (4, 4),
    (5, 5),
    (6, 6),
    (3, 4),
    (3, 5),
    (3, 6),
    (3, 7),
    (3, 8),
    (4, 5),
    (4, 6),
    (4, 7),
    (4, 8),
    (5, 6),
    (5, 7),
];

/// Boards whose perfect play takes a quarter of an hour or more, run on their own by the
/// command beside each: the report shows their solutions when present (the Othello rule's
/// column blank until it is there) and never starts them itself, even with `--force`.
const LONG_SOLVE_BOARDS: &[(u32, u32, &str)] = &[
    (
        5,
        8,
        "reversi solve --rows 5 --cols 8 --yes --save, then again with --scoring \
         winner-takes-empties (about 15 minutes each on two cores)",
    ),
    (
        6,
        7,
        "reversi prove --rows 6 --cols 7 --dir results/6x7/proof-discs-patterns \
         --unit-empties 32 --hash-mb 512 --yes --resume --save (19 core-hours), then the same \
         with --scoring winner-takes-empties --import results/6x7/proof-discs-patterns and \
         without --dir (resumable)",
    ),
    (
        6,
        8,
        "reversi solve --rows 6 --cols 8 --hash-mb 16384 --yes --state \
         results/6x8/solve-discs --resume --save (40 hours on two cores over many runs), then \
         the same with --scoring winner-takes-empties --import results/6x8/solve-discs and \
         --state results/6x8/solve-winner-takes-empties",
    ),
];

/// Boards strongly solved (every reachable position), where that fits in seconds.
const STRONG_BOARDS: &[(u32, u32)] = &[(3, 3), (4, 4), (3, 4), (3, 5), (3, 6), (3, 7)];

pub use reversi_nxn::play::known::file_name as solution_file;

/// What the summary needs of a `solution.json` (written by `reversi solve --save`) or of its
/// twin under the Othello rule.
#[derive(Debug, Clone, serde::Deserialize)]
struct SolutionSummary {
    value: i32,
    winner: String,
    final_black: u32,
    final_white: u32,
    seconds: f64,
    /// Threads of the run; 1 also for a proof in work units, whose seconds are its CPU time.
    threads: u32,
}

/// A solution read back, if it is there and parses (else `None`); one that parses but does
/// not agree with itself ([`Known::parse`]: a principal variation that does not replay from
/// the start to its final discs and value, move values that do not fit it) is an error naming
/// it.
fn read_solution(path: &Path, shape: Shape, scoring: Scoring) -> Result<Option<SolutionSummary>> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(None);
    };
    let Ok(s) = serde_json::from_str::<SolutionSummary>(&text) else {
        return Ok(None);
    };
    match Known::parse(&text, shape, scoring) {
        Ok(_) => Ok(Some(s)),
        Err(why) => Err(damaged(path, &why)),
    }
}

/// What the summary needs of a `strong.json` (written by `reversi strong`).
#[derive(Debug, Clone, serde::Deserialize)]
struct StrongSummary {
    canonical: u64,
    positions: u64,
}

/// Boards whose games per ply are tabulated, with the depth.
const PERFT_BOARDS: &[(u32, u32)] = &[(6, 12), (7, 11), (8, 11)];
/// Plies and memory (MiB) of the 8x8 distinct-positions table: ply 13 takes about 25 minutes
/// and 5.4 GiB on two cores (BENCHMARKS.md).
const POSITIONS_8X8: (u32, u64) = (13, 5400);
/// The most squares of a board whose games are counted exactly (4x7); the games of every
/// larger board are estimated.
const COUNTED_SQUARES: u32 = 28;
/// The most squares of a board whose estimate takes all of `--samples`; larger boards take a
/// tenth (their probes are dearer and their counts only an order of magnitude).
const FULL_ESTIMATE_SQUARES: u32 = 36;

/// The boards whose game counts are estimated: every board of more than [`COUNTED_SQUARES`]
/// squares, rows at most columns (a board and its transpose have the same games), smallest first.
fn estimate_boards() -> Vec<Shape> {
    let mut boards: Vec<Shape> = (3..=8)
        .flat_map(|r| (r..=8).map(move |c| (r, c)))
        .filter(|&(r, c)| r * c > COUNTED_SQUARES)
        .map(|(r, c)| Shape::new(r, c).expect("3 to 8 rows and columns"))
        .collect();
    boards.sort_by_key(|s| (s.squares(), s.rows()));
    boards
}

/// One line of the summary table.
#[derive(Debug, Default, Clone)]
struct Row {
    games: String,
    positions: String,
    result: String,
    /// Perfect play under the Othello rule (empty squares to the winner).
    othello: String,
    /// The run that found the games (a count or an estimate), as its files record it.
    games_seconds: Option<f64>,
    /// The solve of the start, and whether its time is of one core (a proof's CPU time).
    solve_seconds: Option<f64>,
    solve_one_core: bool,
}

/// Loads `path` as JSON if it exists (and `force` is off), else computes, writes and returns it.
fn reuse_or<T: Serialize + DeserializeOwned>(
    path: &Path,
    force: bool,
    compute: impl FnOnce() -> Result<T>,
) -> Result<T> {
    if !force && path.is_file() {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        if let Ok(value) = serde_json::from_str(&text) {
            eprintln!("reusing {}", path.display());
            return Ok(value);
        }
        eprintln!("{} is unreadable or outdated: recomputing", path.display());
    }
    let value = compute()?;
    write_json(path, &value).with_context(|| format!("writing {}", path.display()))?;
    Ok(value)
}

fn board_dir(results: &Path, shape: Shape) -> PathBuf {
    results.join(shape.name())
}

/// Fills a board's count columns from its count files in `dir`.
fn count_row(row: &mut Row, dir: &Path, summary: &CountSummary) {
    row.games = thousands(summary.games);
    row.games_seconds = Some(run_seconds(dir).unwrap_or(summary.seconds));
    if let Some(layers) = &summary.positions_per_layer {
        let total: u128 = layers
            .iter()
            .filter_map(|l| l["positions"].as_u64())
            .map(u128::from)
            .sum();
        row.positions = format!("{} up to symmetry", thousands(total));
    }
}

/// Runs every job, then the charts and the summary.
pub fn run(args: &ReportArgs) -> Result<()> {
    if args.index_only {
        write_index(&args.results, &args.plots)?;
        println!("wrote {}", args.results.join("README.md").display());
        return Ok(());
    }
    let t0 = Instant::now();
    // A count stopped here resumes from its checkpoint (saved every minute) the next time;
    // the solves save nothing, so Ctrl-C ends the report at once.
    let bar = Bar::new(super::no_stop());
    let mut rows: BTreeMap<(u32, u32), Row> = BTreeMap::new();

    for &(r, c) in COUNT_BOARDS {
        let shape = Shape::new(r, c)?;
        let dir = board_dir(&args.results, shape);
        let path = dir.join("summary.json");
        let existing = if args.force { None } else { read_count(&path)? };
        let summary = match existing {
            Some(s) => s,
            _ => {
                eprintln!("count {shape}");
                reversi_nxn::memory::check_available(args.memory)?;
                let opts = CountOptions {
                    memory_mb: args.memory,
                    checkpoint: Some(dir.join("count-dp.checkpoint")),
                    resume: dir.join("count-dp.checkpoint").exists(),
                    whole_process: true,
                    ..CountOptions::default()
                };
                let report = count(&shape.start(), "", &opts, &bar)?;
                reversi_nxn::export::write_count(&report, &dir)?;
                read_count(&path)?.context("reading back the count just written")?
            }
        };
        count_row(rows.entry((r, c)).or_default(), &dir, &summary);
    }

    for &(r, c, command) in LONG_COUNT_BOARDS {
        let shape = Shape::new(r, c)?;
        let dir = board_dir(&args.results, shape);
        let Some(summary) = read_count(&dir.join("summary.json"))? else {
            eprintln!("count {shape}: not in {} (run: {command})", dir.display());
            continue;
        };
        count_row(rows.entry((r, c)).or_default(), &dir, &summary);
    }

    let long = LONG_SOLVE_BOARDS
        .iter()
        .map(|&(r, c, command)| (r, c, Some(command)));
    for (r, c, command) in SOLVE_BOARDS.iter().map(|&(r, c)| (r, c, None)).chain(long) {
        let shape = Shape::new(r, c)?;
        let dir = board_dir(&args.results, shape);
        let (discs, othello) = if let Some(command) = command {
            let read = |scoring| read_solution(&dir.join(solution_file(scoring)), shape, scoring);
            match (read(Scoring::Discs)?, read(Scoring::WinnerTakesEmpties)?) {
                (Some(d), o) => (d, o),
                _ => {
                    eprintln!("solve {shape}: not in {} (run: {command})", dir.display());
                    continue;
                }
            }
        } else {
            (
                solution(&dir, shape, Scoring::Discs, args.force, &bar)?,
                Some(solution(
                    &dir,
                    shape,
                    Scoring::WinnerTakesEmpties,
                    args.force,
                    &bar,
                )?),
            )
        };
        let row = rows.entry((r, c)).or_default();
        row.result = perfect_play(&discs, None);
        row.solve_seconds = Some(discs.seconds);
        row.solve_one_core = discs.threads == 1;
        if let Some(othello) = othello {
            // Both rules give every finished game a value of the same sign (board::scoring).
            anyhow::ensure!(
                discs.winner == othello.winner,
                "{shape}: the winner differs between the scoring rules ({} and {}): a bug",
                discs.winner,
                othello.winner
            );
            row.othello = perfect_play(&othello, Some(shape.squares()));
        }
    }

    for &(r, c) in STRONG_BOARDS {
        let shape = Shape::new(r, c)?;
        let dir = board_dir(&args.results, shape);
        if args.force || read_json::<StrongSummary>(&dir.join("strong.json")).is_none() {
            eprintln!("strong {shape}");
            super::strong::build_and_save(shape, 4096, Some(&dir), None, &bar)?;
        }
    }
    // Every strong solution on disk, those built by hand (`reversi strong`) included.
    for (&(r, c), row) in rows.iter_mut() {
        let path = board_dir(&args.results, Shape::new(r, c)?).join("strong.json");
        if let Some(s) = read_json::<StrongSummary>(&path) {
            row.positions = format!(
                "{} ({} up to symmetry)",
                thousands(u128::from(s.positions)),
                thousands(u128::from(s.canonical))
            );
        }
    }

    for &(n, depth) in PERFT_BOARDS {
        let shape = Shape::square(n)?;
        let dir = board_dir(&args.results, shape);
        eprintln!("perft {shape} to depth {depth}");
        let report: PerftReport = reuse_or(&dir.join("perft.json"), args.force, || {
            Ok(perft_table(
                &shape.start(),
                depth,
                PerftOptions::default(),
                &bar,
            ))
        })?;
        write_atomic(&dir.join("perft.csv"), &perft_csv(&report))?;
    }

    {
        // Distinct positions per ply on 8x8, as far as POSITIONS_8X8 reaches.
        let (depth, memory_mb) = POSITIONS_8X8;
        let shape = Shape::square(8)?;
        let dir = board_dir(&args.results, shape);
        eprintln!("positions {shape} to ply {depth} in {memory_mb} MiB");
        let report: PositionsReport = reuse_or(&dir.join("positions.json"), args.force, || {
            let opts = PositionsOptions {
                memory_mb,
                symmetry: true,
            };
            Ok(positions(&shape.start(), depth, opts, &bar)?)
        })?;
        write_atomic(&dir.join("positions.csv"), &positions_csv(&report))?;
    }

    for shape in estimate_boards() {
        let samples = if shape.squares() <= FULL_ESTIMATE_SQUARES {
            args.samples
        } else {
            args.samples / 10
        };
        let dir = board_dir(&args.results, shape);
        eprintln!("estimate {shape} with {samples} probes");
        let path = dir.join("estimate.json");
        let opts = EstimateOptions {
            samples,
            seed: args.seed,
        };
        let mut report: EstimateReport = reuse_or(&path, args.force, || {
            let r = estimate(&shape.start(), opts, &bar);
            anyhow::ensure!(
                !r.interrupted,
                "stopped: the {shape} estimate was not saved"
            );
            Ok(r)
        })?;
        if report.samples != samples || report.seed != args.seed {
            report = estimate(&shape.start(), opts, &bar);
            anyhow::ensure!(
                !report.interrupted,
                "stopped: the {shape} estimate was not saved"
            );
            write_json(&path, &report)?;
        }
        let row = rows.entry((shape.rows(), shape.cols())).or_default();
        row.games_seconds = Some(report.seconds);
        row.games = format!(
            "≈ {:.3e} (95% CI {:.3e} – {:.3e}, {} probes)",
            report.games.mean,
            report.games.ci95_low,
            report.games.ci95_high,
            thousands(u128::from(report.samples))
        );
    }

    in_progress(&args.results, &mut rows)?;
    eprintln!("charts into {}", args.plots.display());
    let charts = plot_results(&args.results, &args.plots)?;
    let table = summary_table(&rows);
    write_atomic(&args.results.join("summary.md"), &table)?;
    write_index(&args.results, &args.plots)?;
    if let Some(readme) = &args.readme {
        update_readme(readme, &table)?;
    }
    println!("{table}");
    println!(
        "{} charts in {}; total time {:.1} s",
        charts.len(),
        args.plots.display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The solution of `shape`'s start under `scoring`, from its file in `dir` (unless `force`),
/// else solved and written there.
fn solution(
    dir: &Path,
    shape: Shape,
    scoring: Scoring,
    force: bool,
    bar: &Bar,
) -> Result<SolutionSummary> {
    let path = dir.join(solution_file(scoring));
    let existing = if force {
        None
    } else {
        read_solution(&path, shape, scoring)?
    };
    match existing {
        Some(s) => Ok(s),
        _ => {
            eprintln!("solve {shape}, scoring {}", scoring.name());
            let mut solver = Solver::new(1024);
            let opts = SolveOptions {
                scoring,
                ..SolveOptions::default()
            };
            let report = solver.solve(&shape.start(), &opts, bar);
            write_json(&path, &reversi_nxn::export::json::solution(&report))?;
            read_solution(&path, shape, scoring)?.context("reading back the solution just written")
        }
    }
}

/// The solves kept across runs (`reversi solve --state results/RxC/solve-SCORING`) of boards
/// without a solution under that rule yet: what each has proven so far, in its perfect-play
/// cell, read and checked as `--status` reads it.
fn in_progress(results: &Path, rows: &mut BTreeMap<(u32, u32), Row>) -> Result<()> {
    for r in 3..=8 {
        for c in r..=8 {
            let shape = Shape::new(r, c)?;
            let dir = board_dir(results, shape);
            for scoring in [Scoring::Discs, Scoring::WinnerTakesEmpties] {
                let state = dir.join(format!("solve-{}", scoring.name()));
                if !state.is_dir() || dir.join(solution_file(scoring)).exists() {
                    continue;
                }
                let pos = shape.start();
                let st = match status(&state, &pos, scoring) {
                    // A directory whose run has written nothing yet.
                    Err(StateError::Missing { .. }) => continue,
                    r => r.with_context(|| format!("the {shape} solve in progress"))?,
                };
                let Some(bounds) = st.root_bounds(&pos) else {
                    continue;
                };
                let squares = shape.squares() as i32;
                let doing = "in progress";
                let mut words = proven_words(doing, bounds, 1, squares);
                if words == doing {
                    let moves = moves_proven(&st, &pos, squares);
                    if moves.is_empty() {
                        words.push_str(", nothing proven yet");
                    } else {
                        words = format!("{doing}, the value not bounded yet; {}", moves.join("; "));
                    }
                }
                eprintln!("solve {shape}, scoring {}: {words}", scoring.name());
                let row = rows.entry((r, c)).or_default();
                let cell = match scoring {
                    Scoring::Discs => &mut row.result,
                    Scoring::WinnerTakesEmpties => &mut row.othello,
                };
                *cell = format!(
                    "{words} ({:.2e} nodes in {:.1} h; `{}`)",
                    st.nodes as f64,
                    st.seconds / 3600.0,
                    state.display()
                );
            }
        }
    }
    Ok(())
}

/// What the solve whose status is `st` has proven of the root moves of `pos` (one move of
/// each symmetry class, in black's terms): "d2, proven at most -2 for black".
fn moves_proven(
    st: &reversi_nxn::solve::state::Status,
    pos: &Position,
    squares: i32,
) -> Vec<String> {
    let sign = if pos.black_to_move() { 1 } else { -1 };
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for &m in &pos.legal_turns() {
        let key = pos.apply(m).expect("a legal turn").canonical();
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let name = pos.move_name(m);
        let words = proven_words(&name, st.child_bounds(key, squares), sign, squares);
        if words != name {
            out.push(words);
        }
    }
    out
}

/// A solution as the summary shows it: the winner, the discs on the board at the end of the
/// principal variation and black's margin; with `squares`, also the empty squares left, if any
/// (which the Othello rule gives to the winner).
fn perfect_play(s: &SolutionSummary, squares: Option<u32>) -> String {
    let who = if s.winner == "draw" {
        "draw".to_string()
    } else {
        format!("{} wins", s.winner)
    };
    let empty = squares.map_or(0, |n| n.saturating_sub(s.final_black + s.final_white));
    let left = match empty {
        0 => String::new(),
        1 => ", 1 empty square".to_string(),
        n => format!(", {n} empty squares"),
    };
    format!(
        "{who} {}:{}{left} (black {:+})",
        s.final_black, s.final_white, s.value
    )
}

/// Reads a JSON file if it exists and parses as `T`.
fn read_json<T: DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// The summary as a Markdown table.
fn summary_table(rows: &BTreeMap<(u32, u32), Row>) -> String {
    let mut s = String::from(
        "| board | games | reachable positions | perfect play (final score) | perfect play, Othello rule (empty squares to the winner) | time for the games (s) | time for perfect play (s) |\n|---|---|---|---|---|---|---|\n",
    );
    let secs = |t: Option<f64>| t.map_or(String::new(), |t| format!("{t:.1}"));
    for (&(rows, cols), r) in rows {
        let games_time = match r.games_seconds {
            Some(t) if r.games.starts_with('≈') => format!("{t:.1} (estimate)"),
            t => secs(t),
        };
        s.push_str(&format!(
            "| {rows}x{cols} | {} | {} | {} | {} | {} | {} |\n",
            r.games,
            r.positions,
            r.result,
            r.othello,
            games_time,
            match r.solve_seconds {
                Some(t) if r.solve_one_core => format!("{t:.1} (one core)"),
                t => secs(t),
            }
        ));
    }
    let one_core = if rows.values().any(|r| r.solve_one_core) {
        " A time marked one core is of one thread: a proof's CPU time (the seconds of all its \
         work units), or a one-thread run's wall time."
    } else {
        ""
    };
    s.push_str(&format!(
        "\nTimes are wall-clock seconds of the run that wrote the result (two cores unless its \
         file says otherwise): the exact count, or the estimate where the games are marked \
         ≈.{one_core} A blank cell was not computed: games are counted exactly up to 28 squares \
         and estimated on every larger board, and reachable positions are known only where \
         the games are counted; perfect play past 40 squares is a proof in work units \
         (`reversi prove`) or a `reversi solve --state` kept across runs, published here when \
         complete and confirmed by a second computation; a cell marked in progress gives what \
         such a solve has proven so far (as of this table's writing; `--status` prints it \
         now). `results/README.md` says what every file holds.\n",
    ));
    s
}

/// Writes `results/README.md`, the index of the files in `results` and `plots`.
pub fn write_index(results: &Path, plots: &Path) -> Result<()> {
    use reversi_nxn::export::index;
    let path = results.join("README.md");
    // Listed with the index itself, which the first run has not yet written.
    let mut files = index::files(results, plots)?;
    if !files.iter().any(|f| f == "results/README.md") {
        files.push("results/README.md".into());
        files.sort();
    }
    write_atomic(&path, &index::index(&files))
        .with_context(|| format!("writing {}", path.display()))
}

/// Replaces the text between the summary markers of `readme` with `table`.
fn update_readme(readme: &Path, table: &str) -> Result<()> {
    let text =
        std::fs::read_to_string(readme).with_context(|| format!("reading {}", readme.display()))?;
    let (Some(a), Some(b)) = (text.find(SUMMARY_START), text.find(SUMMARY_END)) else {
        anyhow::bail!("{} has no summary markers", readme.display());
    };
    let new = format!("{}{SUMMARY_START}\n{table}{}", &text[..a], &text[b..]);
    write_atomic(readme, &new)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A proof's time (a solution of one thread) is marked as one core's, and the footnote
    /// explains the mark only when some row has it.
    #[test]
    fn proof_times_are_marked_one_core() {
        let solved = |seconds, one_core| Row {
            result: "black +15".into(),
            solve_seconds: Some(seconds),
            solve_one_core: one_core,
            ..Row::default()
        };
        let mut rows = BTreeMap::from([((5, 8), solved(1020.0, false))]);
        let table = summary_table(&rows);
        assert!(table.contains("| 1020.0 |"), "{table}");
        assert!(!table.contains("one core"), "{table}");

        rows.insert((6, 7), solved(90000.0, true));
        let table = summary_table(&rows);
        assert!(table.contains("| 1020.0 |"), "{table}");
        assert!(table.contains("| 90000.0 (one core) |"), "{table}");
        assert!(
            table.contains("A time marked one core is of one thread"),
            "{table}"
        );
    }

    /// A solve kept in `results/RxC/solve-SCORING/` shows what it has proven in its board's
    /// perfect-play cell under its rule, until the board's solution under that rule exists; a
    /// damaged state is an error that names the board.
    #[test]
    fn solves_in_progress_show_their_bounds() {
        use reversi_nxn::solve::state::SolveState;
        use std::time::Duration;
        let results = tempfile::tempdir().unwrap();
        let shape = Shape::new(4, 5).unwrap();
        let pos = shape.start();
        let dir = board_dir(results.path(), shape).join("solve-discs");
        let mut state = SolveState::open(
            &dir,
            &pos,
            Scoring::Discs,
            false,
            Duration::from_secs(60),
            1,
        )
        .unwrap();
        let mut rows = BTreeMap::new();
        in_progress(results.path(), &mut rows).unwrap();
        assert!(rows.is_empty(), "no state file written yet");
        // Black's value after each of the four moves at most 16; at least 2 after the first.
        let children: Vec<_> = pos
            .legal_turns()
            .iter()
            .map(|&m| pos.apply(m).unwrap().canonical())
            .collect();
        // A bound of one move that bounds nothing of the root's value is named.
        state
            .narrow(children[0], (-20, 14), (7_100_000, 7100.0))
            .unwrap();
        in_progress(results.path(), &mut rows).unwrap();
        let first = pos.move_name(pos.legal_turns()[0]);
        let cell = &rows[&(4, 5)].result;
        assert!(
            cell.starts_with(&format!(
                "in progress, the value not bounded yet; {first}, proven at most +14 for black ("
            )),
            "{cell}"
        );
        state
            .narrow(children[0], (2, 16), (7_200_000, 7200.0))
            .unwrap();
        in_progress(results.path(), &mut rows).unwrap();
        let cell = &rows[&(4, 5)].result;
        assert!(
            cell.starts_with("in progress, proven at least +2 for black (7.20e6 nodes in 2.0 h;"),
            "{cell}"
        );
        assert!(rows[&(4, 5)].othello.is_empty());
        for (i, &child) in children.iter().enumerate() {
            state
                .narrow(child, (-20, 12 - i as i32), (8, 7300.0))
                .unwrap();
        }
        in_progress(results.path(), &mut rows).unwrap();
        let cell = &rows[&(4, 5)].result;
        assert!(
            cell.starts_with("in progress, proven between +2 and +12"),
            "{cell}"
        );
        drop(state);
        // Once the solution is there, the cell is the report's to fill.
        let mut rows = BTreeMap::new();
        std::fs::write(dir.parent().unwrap().join("solution.json"), "{}").unwrap();
        in_progress(results.path(), &mut rows).unwrap();
        assert!(rows.is_empty());
        std::fs::remove_file(dir.parent().unwrap().join("solution.json")).unwrap();
        std::fs::write(dir.join("solve-state.json"), "{").unwrap();
        let err = in_progress(results.path(), &mut rows).unwrap_err();
        assert!(format!("{err:#}").contains("4x5"), "{err:#}");
    }
}
