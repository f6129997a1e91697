//! Distinct positions per ply: the published 8x8 terms (tests/data/positions.txt, OEIS A124005
//! and A124006), a slow twin that keeps every position in a `HashMap`, and perft's game counts.

use std::collections::{HashMap, HashSet};

use reversi_nxn::board::{Position, Shape, Symmetry};
use reversi_nxn::perft::{perft_table, PerftOptions};
use reversi_nxn::positions::{positions, PositionsOptions, PositionsRow};
use reversi_nxn::progress::Silent;

fn start_after(board: &str, moves: &str) -> Position {
    let (r, c) = board.split_once('x').expect("board like 8x8");
    let shape = Shape::new(r.parse().unwrap(), c.parse().unwrap()).unwrap();
    match moves {
        "-" => shape.start(),
        m => shape.start().after_moves(m).unwrap().0,
    }
}

#[test]
fn published_8x8_terms() {
    let data = include_str!("data/positions.txt");
    let start = start_after("8x8", "-");
    let report = positions(&start, 8, PositionsOptions::default(), &Silent).unwrap();
    let mut checked = 0;
    for line in data
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!((f[0], f[1], f[2]), ("positions", "8x8", "-"), "{line}");
        let ply: usize = f[3].parse().unwrap();
        let row = &report.plies[ply];
        assert_eq!(row.positions, f[4].parse::<u128>().unwrap(), "{line}");
        assert_eq!(row.one_path, f[5].parse::<u128>().unwrap(), "{line}");
        checked += 1;
    }
    assert_eq!(checked, 9);
}

/// The slow twin: every position of a ply in a `HashMap` from (black, white, black to move) to
/// its number of paths, with the engine's conventions (a pass uses a ply; a game that ends at a
/// ply is among that ply's positions and is not expanded further). Classes are counted by the
/// least image under the symmetries that map the root onto itself, found here from scratch.
fn twin(root: &Position, depth: u32) -> Vec<PositionsRow> {
    let shape = root.shape();
    let fixing: Vec<Symmetry> = Symmetry::all(shape)
        .iter()
        .copied()
        .filter(|g| g.apply_position(root) == *root)
        .collect();
    let key = |p: &Position| (p.black(), p.white(), p.black_to_move());
    let mut layer: HashMap<(u64, u64, bool), (Position, u128)> = HashMap::new();
    layer.insert(key(root), (*root, 1));
    let mut rows = Vec::new();
    for ply in 0..=depth {
        let classes: HashSet<(u64, u64, bool)> = layer
            .values()
            .map(|(p, _)| {
                fixing
                    .iter()
                    .map(|g| key(&g.apply_position(p)))
                    .min()
                    .unwrap()
            })
            .collect();
        rows.push(PositionsRow {
            ply,
            games: layer.values().map(|(_, n)| n).sum(),
            positions: layer.len() as u128,
            one_path: layer.values().filter(|(_, n)| *n == 1).count() as u128,
            classes: classes.len() as u64,
        });
        let mut next: HashMap<(u64, u64, bool), (Position, u128)> = HashMap::new();
        for (pos, n) in layer.values() {
            for turn in pos.legal_turns() {
                let child = pos.apply(turn).unwrap();
                next.entry(key(&child)).or_insert((child, 0)).1 += n;
            }
        }
        layer = next;
    }
    rows
}

#[test]
fn agrees_with_the_hashmap_twin() {
    // (board, moves from the start, plies): whole games on 4x4 and 3x5, the first plies of
    // larger boards, odd and rectangular boards (fewer symmetries fix their start), and starts
    // after a move (only the identity, or a diagonal mirror, fixes them).
    let cases = [
        ("4x4", "-", 16),
        ("3x5", "-", 15),
        ("4x5", "-", 12),
        ("5x5", "-", 9),
        ("5x5", "c2", 8),
        ("4x6", "-", 9),
        ("6x6", "-", 8),
        ("6x6", "c2", 7),
        ("7x7", "-", 7),
        ("8x8", "-", 7),
        ("8x8", "f5", 7),
    ];
    for (board, moves, depth) in cases {
        let root = start_after(board, moves);
        let want = twin(&root, depth);
        for opts in [
            PositionsOptions::default(),
            PositionsOptions {
                symmetry: false,
                ..PositionsOptions::default()
            },
        ] {
            let got = positions(&root, depth, opts, &Silent).unwrap();
            assert_eq!(got.stopped, None);
            for (g, w) in got.plies.iter().zip(&want) {
                let g = if opts.symmetry {
                    g.clone()
                } else {
                    PositionsRow {
                        classes: w.classes, // without symmetry the classes are the positions
                        ..g.clone()
                    }
                };
                assert_eq!(&g, w, "{board} after {moves}, symmetry {}", opts.symmetry);
            }
            assert_eq!(got.plies.len(), want.len());
        }
    }
}

#[test]
fn paths_sum_to_perft_games() {
    // Every path to a position at ply n is a game at ply n, so the path counts sum to perft's
    // games (A124004's convention) at every ply, games that end included.
    for (board, depth) in [("4x4", 16), ("5x5", 10), ("6x6", 9), ("8x8", 9)] {
        let root = start_after(board, "-");
        let table = perft_table(&root, depth, PerftOptions::default(), &Silent);
        let got = positions(&root, depth, PositionsOptions::default(), &Silent).unwrap();
        assert_eq!(got.plies[0].games, 1);
        for row in &table.plies {
            assert_eq!(
                got.plies[row.ply as usize].games, row.games,
                "{board} ply {}",
                row.ply
            );
        }
    }
}

#[test]
fn results_never_depend_on_the_thread_count() {
    let root = start_after("6x6", "-");
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| positions(&root, 9, PositionsOptions::default(), &Silent).unwrap())
            .plies
    };
    assert_eq!(run(1), run(3));
}

fn reversi(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .output()
        .expect("run reversi")
}

#[test]
fn the_binary_writes_csv_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, json) = (dir.path().join("p.csv"), dir.path().join("p.json"));
    let out = reversi(&[
        "positions",
        "-n",
        "8",
        "-d",
        "8",
        "--csv",
        csv.to_str().unwrap(),
        "--json-out",
        json.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(
        text.lines().next(),
        Some("ply,games,positions,one_path,classes")
    );
    // OEIS A124004, A124005, A124006 at ply 8; 67,361 classes under the four symmetries that
    // fix the start.
    assert_eq!(text.lines().last(), Some("8,390216,269352,191380,67361"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["plies"][8]["positions"], 269_352);
    assert_eq!(report["symmetries"].as_array().unwrap().len(), 4);
}

#[test]
fn deep_perft_from_the_binary_and_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let cp = dir.path().join("run.checkpoint");
    let cp = cp.to_str().unwrap();
    let args = ["perft", "-n", "6", "-d", "11", "--fast", "--checkpoint", cp];
    let out = reversi(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let want = reversi_nxn::perft::perft(&start_after("6x6", "-"), 11, PerftOptions::default());
    assert!(
        text.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["11", &want.to_string()]),
        "{text}"
    );
    assert!(text.contains("positions merged at ply 8"), "{text}");
    // A checkpoint left by another run is never overwritten without --resume, and a foreign
    // one is refused with it.
    std::fs::write(cp, "{}").unwrap();
    let out = reversi(&args);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--resume"));
    let mut resume = args.to_vec();
    resume.push("--resume");
    assert!(!reversi(&resume).status.success());
}
