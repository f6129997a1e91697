//! The `reversi` binary run as a user runs it: good input prints results, bad input gets a
//! one-line error and exit code 2, never a panic.

use std::process::{Command, Output};

fn reversi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .output()
        .expect("run reversi")
}

/// Asserts a clean refusal: exit code 2, one line on stderr that starts with `Error:` and
/// contains `expect`, nothing on stdout.
fn assert_refused(args: &[&str], expect: &str) {
    let out = reversi(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{args:?}: not one line: {err}"
    );
    assert!(err.starts_with("Error: "), "{args:?}: {err}");
    assert!(err.contains(expect), "{args:?}: {err} lacks {expect:?}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

#[test]
fn perft_prints_the_reference_counts() {
    let out = reversi(&["perft", "--depth", "5"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // OEIS A124004, plies 1-5 on the 8x8 start.
    for (ply, games) in [(1, 4), (2, 12), (3, 56), (4, 244), (5, 1396)] {
        assert!(
            text.lines().any(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                f.len() >= 2 && f[0] == ply.to_string() && f[1] == games.to_string()
            }),
            "ply {ply}: {text}"
        );
    }
    assert!(text.contains("A124004"));
}

#[test]
fn perft_fast_and_json_agree() {
    let out = reversi(&[
        "perft",
        "-n",
        "6",
        "-d",
        "7",
        "--fast",
        "--json",
        "--threads",
        "1",
    ]);
    assert!(out.status.success());
    let fast: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let out = reversi(&["perft", "-n", "6", "-d", "7", "--json", "--threads", "2"]);
    let full: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for ply in 0..7 {
        assert_eq!(fast["plies"][ply]["games"], full["plies"][ply]["games"]);
    }
}

#[test]
fn perft_from_moves_and_board_string() {
    let a = reversi(&["perft", "-n", "5", "--moves", "c2 b2", "-d", "4", "--json"]);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    let a: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    let board = a["position"].as_str().unwrap().to_string();
    let b = reversi(&["perft", "--board", &board, "-d", "4", "--json"]);
    let b: serde_json::Value = serde_json::from_slice(&b.stdout).unwrap();
    assert_eq!(a["plies"], b["plies"]);
}

#[test]
fn bad_input_is_refused_in_one_line() {
    assert_refused(&["perft", "--size", "9"], "9");
    assert_refused(&["perft", "--size", "2"], "2");
    assert_refused(&["perft", "--rows", "4"], "--cols");
    assert_refused(&["perft", "--frobnicate"], "--frobnicate");
    assert_refused(&["perft", "--depth", "x"], "depth");
    assert_refused(&["perft", "-n", "4", "--moves", "a1"], "illegal move a1");
    assert_refused(&["perft", "-n", "4", "--moves", "b1 zz"], "bad move");
    assert_refused(&["perft", "-n", "4", "--moves", "e1"], "bad square");
    assert_refused(
        &["perft", "-n", "4", "--moves", "pass"],
        "illegal move pass",
    );
    assert_refused(&["perft", "--board", "XXO"], "malformed board string");
    assert_refused(
        &["perft", "-n", "4", "--board", "-----OX--XO----Q X"],
        "unknown character",
    );
    assert_refused(
        &["perft", "-n", "4", "--board", "-----OX--XO----- Z"],
        "side to move",
    );
    assert_refused(&["perft", "--hash-mb", "100000000"], "available");
    assert_refused(&["frobnicate"], "frobnicate");
    assert_refused(&[], "no command given; the commands are perft, positions");
    assert_refused(
        &["perft", "--board", "-----OX--XO-----"],
        "X or O for the side to move",
    );
    assert_refused(&["count", "--board", "---------------- X"], "no discs");
    // A budget just too small is named with a need above it, never "needs 1 MiB, more than 1".
    let tiny = "count -n 5 --memory 1 --store memory --no-files";
    let tiny: Vec<&str> = tiny.split(' ').collect();
    assert_refused(&tiny, "more than the budget of 1 MiB");
    let out = reversi(&tiny);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("about 1 MiB"));
    // Outputs that cannot be written are refused before the work starts (a file stands
    // where a directory is needed). 6x6 by dp would run for minutes: refused at once.
    let file = std::env::temp_dir().join(format!("reversi-cli-{}-file", std::process::id()));
    std::fs::write(&file, "").unwrap();
    let f = file.to_str().unwrap();
    let under = format!("{f}/x.json");
    assert_refused(&["count", "-n", "6", "--out", f], "not a directory");
    assert_refused(&["estimate", "-n", "6", "--out", f], "not a directory");
    assert_refused(&["solve", "-n", "6", "--out", &under], "not a directory");
    assert_refused(&["strong", "-n", "4", "--out", f], "not a directory");
    let _ = std::fs::remove_file(&file);
    // Requests of hours or more ask for --yes, with the estimate.
    assert_refused(&["solve", "-n", "8"], "--yes");
    // A start whose solution is published says where it is and what it says.
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/6x7/solution.json"),
    )
    .unwrap();
    let value = serde_json::from_str::<serde_json::Value>(&text).unwrap()["value"]
        .as_i64()
        .unwrap();
    assert_refused(
        &["solve", "--rows", "6", "--cols", "7"],
        &format!("pass --yes to start it anyway (its published solution, results/6x7/solution.json, says {}, black {value:+};",
            match value.signum() { 1 => "black wins", -1 => "white wins", _ => "a draw" }),
    );
    for bad in [
        "",
        "0",
        "150,x",
        "1001",
        "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
    ] {
        assert_refused(
            &["solve", "-n", "4", "--probcut-levels", bad],
            "expected 1 to 15 comma-separated margins",
        );
    }
    assert_refused(
        &["solve", "-n", "4", "--without", "probcut2"],
        "probcut or defer-ordering",
    );
    assert_refused(&["perft", "-n", "8", "-d", "30"], "--yes");
    assert_refused(&["count", "-n", "6", "--method", "dfs"], "--yes");
    assert_refused(&["count", "--rows", "4", "--cols", "8"], "--yes");
}

#[test]
fn help_works() {
    let out = reversi(&["--help"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("perft"));
}

/// A reader that has gone (`reversi perft ... | head -1`) ends the program quietly with
/// 128 + SIGPIPE, as it ends `yes | head`: no panic, no backtrace, no error (progress on
/// stderr may come first). The pipe's read end is closed before the program starts, so its
/// first write to stdout fails.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    // `solve --file` writes its table with explicit writes rather than the print macros.
    let dir = tempfile::tempdir().unwrap();
    let obf = dir.path().join("p.obf");
    std::fs::write(&obf, "-----OX--XO----- X\n").unwrap();
    let obf = obf.to_str().unwrap();
    for args in [
        &["perft", "-n", "4", "-d", "3"][..],
        &["positions", "-n", "6", "-d", "4"],
        &["solve", "-n", "4"],
        &["solve", "--file", obf, "--hash-mb", "16"],
    ] {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_reversi"))
            .args(args)
            .stdout(writer)
            .output()
            .expect("run reversi");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("Error"), "{args:?}: {err}");
    }
}

#[test]
fn train_eval_writes_weights_resumes_and_refuses_another_seed() {
    // A small run: solves 30 games' positions, fits, writes a weights file; the same command
    // again solves nothing more (the samples file is unchanged) and writes the same weights;
    // a samples file of another seed is refused.
    let dir = std::env::temp_dir().join(format!("reversi-cli-{}-train", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("samples.txt");
    let out = dir.join("w.bin");
    let args = [
        "train-eval",
        "--games",
        "30",
        "--epochs",
        "2",
        "--data",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let first = reversi(&args);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let samples = std::fs::read_to_string(&data).unwrap();
    // The header and one line per game.
    assert_eq!(samples.lines().count(), 31);
    let weights = std::fs::read(&out).unwrap();
    let eight = reversi_nxn::board::Shape::square(8).unwrap();
    assert!(reversi_nxn::solve::pattern::Weights::from_bytes(eight, &weights).is_ok());
    let again = reversi(&args);
    assert!(again.status.success());
    assert_eq!(std::fs::read_to_string(&data).unwrap(), samples);
    assert_eq!(std::fs::read(&out).unwrap(), weights);
    let mut other = args.to_vec();
    other.extend(["--seed", "2"]);
    assert_refused(&other, "was not written for 8x8 with --seed 2");
    // Another range of empty squares is another stream: its header differs.
    let mut deeper = args.to_vec();
    deeper.extend(["--empties", "11-12"]);
    assert_refused(
        &deeper,
        "was not written for 8x8 with --seed 1 --empties 11-12",
    );
    // Another board: its own layout, and the 8x8 samples file is refused.
    let rect = dir.join("w4x5.bin");
    let small = reversi(&[
        "train-eval",
        "--rows",
        "4",
        "--cols",
        "5",
        "--games",
        "30",
        "--epochs",
        "2",
        "--data",
        dir.join("samples4x5.txt").to_str().unwrap(),
        "--out",
        rect.to_str().unwrap(),
    ]);
    assert!(
        small.status.success(),
        "{}",
        String::from_utf8_lossy(&small.stderr)
    );
    let four_five = reversi_nxn::board::Shape::new(4, 5).unwrap();
    let w = std::fs::read(&rect).unwrap();
    assert!(reversi_nxn::solve::pattern::Weights::from_bytes(four_five, &w).is_ok());
    assert!(reversi_nxn::solve::pattern::Weights::from_bytes(eight, &w).is_err());
    let mut board = args.to_vec();
    board.extend(["--rows", "4", "--cols", "5"]);
    assert_refused(&board, "was not written for 4x5");
    // --errors measures the evaluation against the file's samples and changes nothing.
    let mut errors = args.to_vec();
    errors.extend(["--errors", "2"]);
    let table = reversi(&errors);
    assert!(table.status.success());
    let text = String::from_utf8_lossy(&table.stdout);
    // A header, then one row per empty-square count found and depth 0-2.
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert!(!rows.is_empty() && rows.len().is_multiple_of(3), "{text}");
    let positions: usize = rows
        .iter()
        .filter(|r| r.split_whitespace().nth(1) == Some("0"))
        .map(|r| {
            r.split_whitespace()
                .nth(2)
                .unwrap()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    let solved = samples.lines().skip(1).filter(|l| *l != "-").count();
    assert_eq!(positions, solved, "{text}");
    assert_eq!(std::fs::read_to_string(&data).unwrap(), samples);
    let missing = dir.join("none.txt");
    assert_refused(
        &[
            "train-eval",
            "--errors",
            "2",
            "--data",
            missing.to_str().unwrap(),
        ],
        "holds no samples",
    );
    assert!(!missing.exists());
    let mut too_deep = args.to_vec();
    too_deep.extend(["--errors", "9"]);
    assert_refused(&too_deep, "--errors: at most 8 plies");
    for bad in ["0-5", "12-11", "20-31", "12", "a-b"] {
        let mut a = args.to_vec();
        a.extend(["--empties", bad]);
        assert_refused(&a, "expected LO-HI with 1 <= LO <= HI <= 30");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
