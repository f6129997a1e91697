//! `reversi solve --file`: every position of an OBF file, one row each, as a table on stdout
//! and as CSV or JSON with `--out`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use reversi_nxn::board::{Position, Scoring};
use reversi_nxn::obf;
use reversi_nxn::solve::{Mode, Proof, SolveOptions, Solver};
use serde::Serialize;

use super::UsageError;

/// One move and its value for the side to move.
#[derive(Debug, Clone, Serialize)]
pub struct MoveValue {
    /// The move's name (`c2`, or `pass`).
    #[serde(rename = "move")]
    pub mv: String,
    /// Its value for the side to move.
    pub value: i32,
}

/// One output row: a solved position, or a bad line (`error` set).
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// 1-based position number in the file (comments and blank lines not counted).
    pub index: usize,
    /// 1-based line number in the file.
    pub line: usize,
    /// Empty squares.
    pub empties: Option<u32>,
    /// `black` or `white`.
    pub side_to_move: Option<&'static str>,
    /// Exact value for the side to move (null in wld mode, which proves only the sign).
    pub value_to_move: Option<i32>,
    /// `win`, `draw` or `loss` for the side to move.
    pub result: Option<&'static str>,
    /// The best moves found (one in best mode, all in all mode; in wld mode one move that
    /// keeps the result, none for a loss).
    pub best_moves: Vec<String>,
    /// Every move's value for the side to move (all mode only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_values: Option<Vec<MoveValue>>,
    /// Positions searched.
    pub nodes: u64,
    /// Of `nodes`, those of the heuristic searches that order moves or guess a value.
    pub ordering_nodes: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Nodes per second.
    pub nodes_per_second: f64,
    /// `best`, `all` or `wld`.
    pub mode: &'static str,
    /// `discs` or `winner-takes-empties`.
    pub scoring: &'static str,
    /// What is wrong with the line, if it could not be solved.
    pub error: Option<String>,
}

impl Row {
    /// The row of a proof.
    #[must_use]
    pub fn new(index: usize, line: usize, p: &Proof) -> Row {
        let pos = &p.position;
        Row {
            index,
            line,
            empties: Some(pos.empty().count_ones()),
            side_to_move: Some(pos.side_to_move().name()),
            value_to_move: p.value,
            result: Some(p.outcome.name()),
            best_moves: p.best_moves.iter().map(|&m| pos.move_name(m)).collect(),
            move_values: (p.mode == Mode::All).then(|| {
                p.move_values
                    .iter()
                    .map(|&(m, value)| MoveValue {
                        mv: pos.move_name(m),
                        value,
                    })
                    .collect()
            }),
            nodes: p.nodes,
            ordering_nodes: p.ordering_nodes,
            seconds: p.seconds,
            nodes_per_second: p.nodes as f64 / p.seconds.max(1e-9),
            mode: p.mode.name(),
            scoring: p.scoring.name(),
            error: None,
        }
    }

    /// The row of a bad line.
    fn error(index: usize, e: &obf::ObfError, mode: Mode, scoring: Scoring) -> Row {
        Row {
            index,
            line: e.line,
            empties: None,
            side_to_move: None,
            value_to_move: None,
            result: None,
            best_moves: Vec::new(),
            move_values: None,
            nodes: 0,
            ordering_nodes: 0,
            seconds: 0.0,
            nodes_per_second: 0.0,
            mode: mode.name(),
            scoring: scoring.name(),
            error: Some(e.kind.to_string()),
        }
    }
}

/// The line that says what the values mean.
#[must_use]
pub fn convention_line(mode: Mode, scoring: Scoring) -> String {
    let what = if mode == Mode::Wld {
        "result = win, draw or loss for the side to move under perfect play"
    } else {
        "value = the side to move's discs minus the other side's at the end under perfect play \
         (as in OBF and FFO files)"
    };
    format!(
        "convention: {what}; scoring {}: {}",
        scoring.name(),
        scoring.describe()
    )
}

/// The table's header line.
fn header() -> String {
    format!(
        "{:>5} {:>5} {:>7} {:>5} {:>6} {:>6} {:<12} {:>14} {:>6} {:>9} {:>10}\n",
        "index",
        "line",
        "empties",
        "side",
        "value",
        "result",
        "best",
        "nodes",
        "order",
        "seconds",
        "nodes/s"
    )
}

/// `part` as a percentage of `whole`, for the table's "order" column: the share of the nodes
/// spent ordering moves (and guessing the root's value) rather than proving.
fn share(part: u64, whole: u64) -> String {
    format!("{:.0}%", 100.0 * part as f64 / whole.max(1) as f64)
}

/// One row of the table.
fn row_text(r: &Row) -> String {
    if let Some(e) = &r.error {
        return format!("{:>5} {:>5} ERROR: {e}\n", r.index, r.line);
    }
    let side = match r.side_to_move {
        Some("black") => "X",
        Some(_) => "O",
        None => "",
    };
    let value = r
        .value_to_move
        .map_or("-".to_string(), |v| format!("{v:+}"));
    let best = if r.best_moves.is_empty() {
        "-".to_string()
    } else {
        r.best_moves.join(",")
    };
    format!(
        "{:>5} {:>5} {:>7} {:>5} {:>6} {:>6} {:<12} {:>14} {:>6} {:>9.3} {:>10.3e}\n",
        r.index,
        r.line,
        r.empties.unwrap_or(0),
        side,
        value,
        r.result.unwrap_or(""),
        best,
        r.nodes,
        share(r.ordering_nodes, r.nodes),
        r.seconds,
        r.nodes_per_second
    )
}

/// The rows as a table (with its header line if `with_header`).
#[must_use]
pub fn table(rows: &[Row], with_header: bool) -> String {
    let mut s = if with_header { header() } else { String::new() };
    for r in rows {
        s.push_str(&row_text(r));
    }
    s
}

/// The rows as CSV (best moves separated by spaces).
fn csv(rows: &[Row]) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "index",
        "line",
        "empties",
        "side_to_move",
        "value_to_move",
        "result",
        "best_moves",
        "nodes",
        "ordering_nodes",
        "seconds",
        "nodes_per_second",
        "mode",
        "scoring",
        "error",
    ])?;
    let opt = |x: Option<String>| x.unwrap_or_default();
    for r in rows {
        w.write_record([
            r.index.to_string(),
            r.line.to_string(),
            opt(r.empties.map(|e| e.to_string())),
            r.side_to_move.unwrap_or("").to_string(),
            opt(r.value_to_move.map(|v| v.to_string())),
            r.result.unwrap_or("").to_string(),
            r.best_moves.join(" "),
            r.nodes.to_string(),
            r.ordering_nodes.to_string(),
            format!("{:.6}", r.seconds),
            format!("{:.0}", r.nodes_per_second),
            r.mode.to_string(),
            r.scoring.to_string(),
            r.error.clone().unwrap_or_default(),
        ])?;
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("csv: {e}"))
}

/// Writes `bytes` to `path`, creating its directory.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    reversi_nxn::atomic::write_atomic_bytes(path, bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// What `solve --file` asks of a batch, from the solve command's arguments.
#[derive(Debug, Clone)]
pub struct BatchArgs {
    /// Solve the other lines when one does not parse.
    pub keep_going: bool,
    /// `--mode`, if given (the batch default is `best`).
    pub mode: Option<Mode>,
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// JSON on standard output instead of the table.
    pub json: bool,
    /// The scoring rule of the values.
    pub scoring: Scoring,
    /// Keep the table from one position to the next.
    pub keep_table: bool,
    /// Where to write the rows (CSV, or JSON by the extension).
    pub out: Option<PathBuf>,
    /// Positions solved at once (at least 1; capped at the threads and the positions).
    pub jobs: usize,
}

/// Solves every position of the OBF file `path` (`-`: standard input) and prints the rows.
pub fn run(args: &BatchArgs, path: &Path, opts: &SolveOptions) -> Result<()> {
    let stdin = path == Path::new("-");
    let name = if stdin {
        "standard input".to_string()
    } else {
        path.display().to_string()
    };
    let text = if stdin {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| UsageError(format!("cannot read standard input: {e}")))?;
        s
    } else {
        std::fs::read_to_string(path).map_err(|e| UsageError(format!("cannot read {name}: {e}")))?
    };
    let entries: Vec<Result<obf::Entry, obf::ObfError>> = obf::parse(&text).collect();
    if entries.is_empty() {
        return Err(UsageError(format!(
            "{name}: no positions (the file is empty or holds only comments)"
        ))
        .into());
    }
    if !args.keep_going {
        if let Some(Err(e)) = entries.iter().find(|e| e.is_err()) {
            return Err(anyhow::Error::new(e.clone()).context(format!(
                "{name} (use --keep-going to solve the other lines)"
            )));
        }
    }
    let mode = args.mode.unwrap_or(Mode::Best);
    let text_out = !args.json;
    let mut stdout = std::io::stdout().lock();
    if text_out {
        writeln!(stdout, "{}", convention_line(mode, args.scoring))?;
        write!(stdout, "{}", header())?;
    }
    let t0 = Instant::now();
    let solvable = entries.iter().filter(|e| e.is_ok()).count();
    let jobs = args
        .jobs
        .min(rayon::current_num_threads())
        .min(solvable)
        .max(1);
    stdout.flush()?;
    drop(stdout);
    let rows = if jobs == 1 {
        solve_in_turn(args, &entries, mode, opts)?
    } else {
        solve_at_once(args, &entries, mode, opts, jobs)?
    };
    let mut stdout = std::io::stdout().lock();
    let seconds = t0.elapsed().as_secs_f64();
    let bad = rows.iter().filter(|r| r.error.is_some()).count();
    let nodes: u64 = rows.iter().map(|r| r.nodes).sum();
    let ordering: u64 = rows.iter().map(|r| r.ordering_nodes).sum();
    if text_out {
        writeln!(
            stdout,
            "total: {} positions, {} nodes ({} ordering), {:.3} s, {:.3e} nodes/s, {} threads",
            rows.len() - bad,
            nodes,
            share(ordering, nodes),
            seconds,
            nodes as f64 / seconds.max(1e-9),
            rayon::current_num_threads()
        )?;
    }
    let json = serde_json::to_string_pretty(&rows)?;
    if let Some(out) = &args.out {
        let bytes = if out
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
        {
            csv(&rows)?
        } else {
            format!("{json}\n").into_bytes()
        };
        write_file(out, &bytes)?;
        if text_out {
            writeln!(stdout, "wrote {}", out.display())?;
        }
    }
    if args.json {
        writeln!(stdout, "{json}")?;
    }
    if bad > 0 {
        return Err(UsageError(format!(
            "{bad} of {} lines of {name} could not be solved (rows marked ERROR)",
            rows.len()
        ))
        .into());
    }
    Ok(())
}

/// Prints `row` to standard output as a line of the table, unless the output is JSON.
fn print_row(args: &BatchArgs, row: &Row) -> Result<()> {
    if !args.json {
        let mut stdout = std::io::stdout().lock();
        write!(stdout, "{}", row_text(row))?;
        stdout.flush()?;
    }
    Ok(())
}

/// A solver for a batch's positions one after the other, its table cleared between them
/// unless `--keep-table`.
struct Prover {
    solver: Solver,
    keep_table: bool,
    solved_any: bool,
}

impl Prover {
    fn new(args: &BatchArgs) -> Prover {
        Prover {
            solver: Solver::new(args.hash_mb),
            keep_table: args.keep_table,
            solved_any: false,
        }
    }

    fn prove(&mut self, pos: &Position, mode: Mode, opts: &SolveOptions) -> Proof {
        if self.solved_any && !self.keep_table {
            self.solver.clear();
        }
        self.solved_any = true;
        self.solver.prove(pos, mode, opts)
    }
}

/// Solves the entries one after the other with one solver (its table cleared between
/// positions unless `--keep-table`), printing each row as it is done.
fn solve_in_turn(
    args: &BatchArgs,
    entries: &[Result<obf::Entry, obf::ObfError>],
    mode: Mode,
    opts: &SolveOptions,
) -> Result<Vec<Row>> {
    let mut prover = Prover::new(args);
    let mut rows = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let row = match entry {
            Ok(e) => Row::new(i + 1, e.line, &prover.prove(&e.position, mode, opts)),
            Err(e) => Row::error(i + 1, e, mode, args.scoring),
        };
        print_row(args, &row)?;
        rows.push(row);
    }
    Ok(rows)
}

/// The rows done so far, printed in file order as soon as every earlier row is done.
struct Done {
    rows: Vec<Option<Row>>,
    /// The first row not printed yet.
    printed: usize,
}

/// Solves the entries `jobs` at a time (`jobs` at most the threads): each job is a solver with
/// its own table that takes the next position, the ones with more empty squares (the costlier)
/// first, until none is left; a thread whose job has run out helps the others' parallel
/// searches. Rows are printed in file order.
fn solve_at_once(
    args: &BatchArgs,
    entries: &[Result<obf::Entry, obf::ObfError>],
    mode: Mode,
    opts: &SolveOptions,
    jobs: usize,
) -> Result<Vec<Row>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    let mut order: Vec<(usize, &obf::Entry)> = entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| Some((i, e.as_ref().ok()?)))
        .collect();
    // Stable: equal empties stay in file order.
    order.sort_by_key(|(_, e)| std::cmp::Reverse(e.position.empty().count_ones()));
    let rows = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            e.as_ref()
                .err()
                .map(|e| Row::error(i + 1, e, mode, args.scoring))
        })
        .collect();
    let done = Mutex::new(Done { rows, printed: 0 });
    let failed: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let flush = |done: &mut Done| {
        while let Some(Some(row)) = done.rows.get(done.printed) {
            if let Err(e) = print_row(args, row) {
                lock(&failed).get_or_insert(e);
            }
            done.printed += 1;
        }
    };
    flush(&mut lock(&done));
    let next = AtomicUsize::new(0);
    rayon::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|_| {
                let mut prover = Prover::new(args);
                while let Some(&(i, e)) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if lock(&failed).is_some() {
                        // Standard output is gone: the rows would be lost.
                        break;
                    }
                    let proof = prover.prove(&e.position, mode, opts);
                    let mut done = lock(&done);
                    done.rows[i] = Some(Row::new(i + 1, e.line, &proof));
                    flush(&mut done);
                }
            });
        }
    });
    if let Some(e) = lock(&failed).take() {
        return Err(e);
    }
    let done = lock(&done);
    Ok(done.rows.iter().flatten().cloned().collect())
}

/// The value behind `m`, even if a thread panicked holding it (the batch then reports what
/// it has).
fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
