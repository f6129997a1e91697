//! `results/README.md`: the index of what `results/` and `plots/` hold, each kind of file with
//! its columns and units and the boards that have it. Written by `reversi report` from the
//! files present, so that it never drifts from them; a file of a kind it does not know is
//! listed as such (and a test fails on it).

use std::collections::BTreeMap;
use std::path::Path;

/// A kind of file: its name pattern (`RxC` stands for a board), and what it holds.
struct Kind {
    pattern: &'static str,
    what: &'static str,
}

/// Every kind of file in `results/` and `plots/`, in the order of the index.
const KINDS: &[Kind] = &[
    Kind {
        pattern: "results/summary.md",
        what: "The summary table of every board (the README's table): games, reachable \
               positions, perfect play under both rules, and the seconds each took. A blank \
               cell is a figure not computed for that board (too large, or not yet run).",
    },
    Kind {
        pattern: "results/README.md",
        what: "This index.",
    },
    Kind {
        pattern: "results/RxC/summary.json",
        what: "The exact count of every game from the start (`reversi count`): `games`, \
               `black_wins`, `draws`, `white_wins`; `score_matrix` (as the CSV below); \
               `lengths` and `margins` (as the CSVs below) with their quantiles; `first_moves`; \
               `classes` (first moves merged by symmetry); `positions_per_layer`. Counts are \
               decimal integers (they may pass 2^64).",
    },
    Kind {
        pattern: "results/RxC/run.json",
        what: "How that count ran: `seconds` (wall clock), `threads`, `peak_layer_mb` (MiB of \
               the largest layer held), `resumed_units` (work taken from a checkpoint). Depends \
               on the machine; the counts do not.",
    },
    Kind {
        pattern: "results/RxC/score_matrix.csv",
        what: "Games by final score: the row is black's discs, the column white's discs at the \
               end (`black\\white` in the corner); each cell is a number of games.",
    },
    Kind {
        pattern: "results/RxC/lengths.csv",
        what: "`placements,games`: games by the number of discs placed (passes not counted).",
    },
    Kind {
        pattern: "results/RxC/margins.csv",
        what: "`margin,games`: games by black's discs minus white's at the end (empty squares \
               count for nobody).",
    },
    Kind {
        pattern: "results/RxC/first_moves.csv",
        what: "`move,games,black_wins,draws,white_wins`: the games after each first move.",
    },
    Kind {
        pattern: "results/RxC/positions_per_layer.csv",
        what: "`discs,positions`: distinct positions met with that many discs on the board, \
               merged by symmetry with the colour to move kept, forced passes folded into the \
               next position, finished games left out.",
    },
    Kind {
        pattern: "results/RxC/checks.md",
        what: "A second computation of the count, by other methods, and whether their files \
               are byte-identical (written by the script it names).",
    },
    Kind {
        pattern: "results/RxC/solution.json",
        what: "Perfect play from the start (`reversi solve --save`), the blog's rule (empty \
               squares count for nobody): `value` (black's discs minus white's at the end, \
               perfect play by both), `winner`, `final_black`, `final_white`, `pv` (the \
               principal variation), `move_values` (each first move's value, same units), \
               `nodes`, `seconds`, `nodes_per_second`, `threads`. `reversi analyze` and \
               `reversi play` read it back (checked whole) for perfect play where the solver \
               cannot finish in time.",
    },
    Kind {
        pattern: "results/RxC/solution-winner-takes-empties.json",
        what: "The same under the Othello rule (empty squares at the end go to the winner, as \
               Edax and the FFO suite count them).",
    },
    Kind {
        pattern: "results/RxC/proof-SCORING/units-I-of-P.log",
        what: "The proof log of `reversi prove` (process I of P): a header, then one line per \
               solved work unit (position, window, fail-soft result, nodes, seconds, build), \
               each line an FNV-1a checksum then JSON. The proof's whole state: `reversi \
               prove ... --status` prints the bounds it proves.",
    },
    Kind {
        pattern: "results/RxC/proof-winner-takes-empties/units-imported.log",
        what: "The bounds of the proof under the blog's rule that hold under the Othello rule \
               (a winner's margin only grows when it takes the empty squares), carried over by \
               `reversi prove --scoring winner-takes-empties --import DIR`: lines as in a \
               proof log, with no nodes and a `derived` field naming their source.",
    },
    Kind {
        pattern: "results/RxC/solve-SCORING/solve-state.json",
        what: "A `reversi solve --state` kept across working stretches: the position, the \
               rule, each root move's exact value as it is found (once per symmetry class, \
               the child's discs from the root mover's side), the bounds proven so far of \
               the value of a root move in progress (`open`), the nodes and seconds of all \
               runs, then the principal variation's walk so far (`pv`: the turns found and \
               the next turn's moves refuted); `reversi solve ... --state DIR --status` \
               prints it.",
    },
    Kind {
        pattern: "results/RxC/solve-SCORING/report.json",
        what: "The report of that solve once finished (`reversi solve ... --state DIR --out \
               DIR/report.json`), with the fields of `solution.json`: how a second \
               computation, which writes no `solution.json`, keeps its answer.",
    },
    Kind {
        pattern: "results/RxC/solve-SCORING/solve-table.bin",
        what: "The table snapshot beside a `solve-state.json`: the bounds of the positions \
               with the most empty squares, exact ones and the probcut passes' selective ones \
               with their level (at most `--state-mb`, 1 MiB by default), which a resumed \
               solve puts into its table first. Binary: a magic, \
               a JSON header (position, rule, nodes and seconds so far), the count, 24 bytes \
               a bound, an FNV-1a checksum; checked before it is used.",
    },
    Kind {
        pattern: "results/RxC/strong.json",
        what: "The strong solution (`reversi strong`): every reachable position's value; \
               `positions` (distinct, merged by symmetry and colour), `in_play` (as \
               `count`'s layers), `layers`, `start_value` (discs, the mover's view), \
               `start_moves_to_end`, `first_moves`, memory (`peak_mb`) and `seconds_*`.",
    },
    Kind {
        pattern: "results/RxC/strong.bin",
        what: "The strong table itself (binary, checksummed): the value and moves to the end \
               of each position, read by `play` and `analyze`.",
    },
    Kind {
        pattern: "results/RxC/heuristics.csv",
        what: "Simple strategies against the strong table, over every position in play: \
               `perfect_share` (share of positions where the strategy's move is perfect, ties \
               counted as expected shares), `mean_loss` (mean discs of margin given away where \
               the move is not perfect), `max_loss` (the most any of its moves gives away), \
               `expected_loss` (mean discs given away per position, perfect moves as 0).",
    },
    Kind {
        pattern: "results/RxC/perft.csv",
        what: "`ply,games,ended`: perft, the move sequences of each length (a pass uses a \
               ply, as OEIS A124004), and the games that ended at that ply.",
    },
    Kind {
        pattern: "results/RxC/perft.json",
        what: "The same with the board, the convention and the seconds.",
    },
    Kind {
        pattern: "results/RxC/positions.csv",
        what: "`ply,games,positions,one_path,classes`: per ply, the games, the distinct \
               positions, those reached by one path only, and the positions up to symmetry.",
    },
    Kind {
        pattern: "results/RxC/positions.json",
        what: "The same with the time and memory of each ply.",
    },
    Kind {
        pattern: "results/RxC/estimate.json",
        what: "An estimate of the games where no exact count exists (`reversi estimate`): \
               `games` with its `relative_std_error` and `interval`, outcomes, score and \
               length distributions, from `samples` random games of seed `seed`.",
    },
    Kind {
        pattern: "plots/RxC-scores.png",
        what: "The score matrix as a heatmap (log scale).",
    },
    Kind {
        pattern: "plots/RxC-margin.png",
        what: "Games by final margin.",
    },
    Kind {
        pattern: "plots/RxC-lengths.png",
        what: "Games by length.",
    },
    Kind {
        pattern: "plots/RxC-estimate-scores.png",
        what: "The estimated score matrix.",
    },
    Kind {
        pattern: "plots/RxC-estimate-margin.png",
        what: "The estimated games by margin.",
    },
    Kind {
        pattern: "plots/RxC-estimate-lengths.png",
        what: "The estimated games by length.",
    },
    Kind {
        pattern: "plots/RxC-perft.png",
        what: "Perft per ply (log scale).",
    },
    Kind {
        pattern: "plots/RxC-perfect-play.png",
        what: "The final board of the principal variation, each square numbered by the move \
               that filled it.",
    },
];

/// `name` with a board `RxC` (one digit each) replaced by `RxC`; in a proof log's path also
/// the rule and the process numbers.
fn generic(path: &str) -> String {
    let b: Vec<char> = path.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if i + 2 < b.len()
            && b[i].is_ascii_digit()
            && b[i + 1] == 'x'
            && b[i + 2].is_ascii_digit()
            && (i == 0 || matches!(b[i - 1], '/'))
        {
            out.push_str("RxC");
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    if let Some((dir, file)) = out.rsplit_once('/') {
        if file == crate::proof::log::IMPORTED {
            return out;
        }
        if file == crate::solve::state::STATE_FILE
            || file == crate::solve::state::TABLE_FILE
            || file == "report.json"
        {
            if let Some((head, _)) = dir.rsplit_once("/solve-") {
                return format!("{head}/solve-SCORING/{file}");
            }
        }
        if let Some(rest) = file.strip_prefix("units-") {
            if rest.ends_with(".log") {
                let dir = match dir.rsplit_once("/proof-") {
                    Some((head, _)) => format!("{head}/proof-SCORING"),
                    None => dir.to_string(),
                };
                return format!("{dir}/units-I-of-P.log");
            }
        }
    }
    out
}

/// The board of a path, if it names one (`results/5x5/…`, `plots/5x5-…`).
fn board_of(path: &str) -> Option<String> {
    let b = path.as_bytes();
    (0..b.len().saturating_sub(2)).find_map(|i| {
        (b[i].is_ascii_digit()
            && b[i + 1] == b'x'
            && b[i + 2].is_ascii_digit()
            && (i == 0 || b[i - 1] == b'/'))
            .then(|| path[i..i + 3].to_string())
    })
}

/// The files under `results` and `plots`, named as `results/…` and `plots/…` whatever the
/// two directories are called, sorted; working files of runs in progress left out.
///
/// # Errors
///
/// A directory that cannot be read.
pub fn files(results: &Path, plots: &Path) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    for (top, root) in [("results", results), ("plots", plots)] {
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            if !dir.is_dir() {
                continue;
            }
            for e in std::fs::read_dir(&dir)? {
                let p = e?.path();
                if p.is_dir() {
                    stack.push(p);
                } else if let Ok(rel) = p.strip_prefix(root) {
                    let name = format!("{top}/{}", rel.to_string_lossy().replace('\\', "/"));
                    // Working files, not kept in the repository (.gitignore): checkpoints,
                    // files being written and locks.
                    let working = [".checkpoint", ".tmp", ".lock"]
                        .iter()
                        .any(|x| name.ends_with(x));
                    if !working {
                        out.push(name);
                    }
                }
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The files of `files` that match no known kind.
#[must_use]
pub fn unknown(files: &[String]) -> Vec<String> {
    files
        .iter()
        .filter(|f| !KINDS.iter().any(|k| k.pattern == generic(f)))
        .cloned()
        .collect()
}

/// The index, in Markdown, of `files` (as [`files`] lists them).
#[must_use]
pub fn index(files: &[String]) -> String {
    let mut boards: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for f in files {
        let g = generic(f);
        if let Some(k) = KINDS.iter().find(|k| k.pattern == g) {
            let e = boards.entry(k.pattern).or_default();
            if let Some(b) = board_of(f) {
                if !e.contains(&b) {
                    e.push(b);
                }
            }
        }
    }
    let mut s = String::from(
        "# What results/ and plots/ hold\n\n\
         Written by `reversi report` from the files present (do not edit by hand). Every file \
         here was computed by the tool; the README says which command makes each figure. \
         `RxC` is a board of R rows and C columns; values are from black's side (black's \
         discs minus white's) unless a file says otherwise; times are wall-clock seconds on \
         the machine that ran them.\n\n\
         | file | what it holds | boards |\n|---|---|---|\n",
    );
    for k in KINDS {
        let Some(b) = boards.get(k.pattern) else {
            continue;
        };
        let mut b = b.clone();
        b.sort_by_key(|x| (x.as_bytes()[0], x.as_bytes()[2]));
        s.push_str(&format!(
            "| `{}` | {} | {} |\n",
            k.pattern,
            k.what,
            b.join(", ")
        ));
    }
    let unknown = unknown(files);
    if !unknown.is_empty() {
        s.push_str("\nFiles of no known kind (describe them in `src/export/index.rs`):\n\n");
        for f in unknown {
            s.push_str(&format!("- `{f}`\n"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_patterns() {
        assert_eq!(
            generic("results/5x5/summary.json"),
            "results/RxC/summary.json"
        );
        assert_eq!(
            generic("plots/6x6-perfect-play.png"),
            "plots/RxC-perfect-play.png"
        );
        assert_eq!(
            generic("results/6x7/proof-discs/units-0-of-1.log"),
            "results/RxC/proof-SCORING/units-I-of-P.log"
        );
        assert_eq!(
            generic("results/6x7/proof-winner-takes-empties/units-imported.log"),
            "results/RxC/proof-winner-takes-empties/units-imported.log"
        );
        assert_eq!(
            generic("results/6x7/solve-discs/solve-state.json"),
            "results/RxC/solve-SCORING/solve-state.json"
        );
        assert_eq!(
            generic("results/6x7/solve-winner-takes-empties/solve-table.bin"),
            "results/RxC/solve-SCORING/solve-table.bin"
        );
        assert_eq!(
            generic("results/6x8/solve-discs-check/report.json"),
            "results/RxC/solve-SCORING/report.json"
        );
        assert_eq!(
            board_of("plots/6x6-perfect-play.png").as_deref(),
            Some("6x6")
        );
        assert_eq!(board_of("results/summary.md"), None);
        assert_eq!(unknown(&["results/5x5/stray.txt".into()]).len(), 1);
    }
}
