//! `reversi solve` run as a user would run it: text, JSON, files, and bad input.

use std::process::Command;

fn reversi(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// A JSON report's principal variation as `--moves` reads it.
fn pv_text(report: &serde_json::Value) -> String {
    let moves: Vec<&str> = report["pv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    moves.join(" ")
}

#[test]
fn json_report_of_4x4() {
    let out = reversi(&["solve", "-n", "4", "--json", "--hash-mb", "8"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Blog, 2008-07-03: the second player wins 4x4.
    assert_eq!(v["winner"], "white");
    assert_eq!(v["board"], "4x4");
    let value = v["value"].as_i64().unwrap();
    assert!(value < 0);
    let black = v["final_black"].as_i64().unwrap();
    let white = v["final_white"].as_i64().unwrap();
    assert_eq!(black - white, value);
    let moves = v["move_values"].as_array().unwrap();
    assert_eq!(moves.len(), 4);
    assert!(moves
        .iter()
        .all(|m| m["value"] == v["value"] && m["best"] == true));
    let pv = pv_text(&v);
    // The pv replays: the same command from the end of the pv finds a finished game.
    let out = reversi(&["solve", "-n", "4", "--moves", &pv, "--json"]);
    assert!(out.status.success());
    let end: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(end["value"], v["value"]);
    assert_eq!(end["move_values"].as_array().unwrap().len(), 0);
}

#[test]
fn text_report_has_value_map_and_speed() {
    let out = reversi(&["solve", "--rows", "3", "--cols", "5", "--hash-mb", "8"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("value map:"));
    assert!(text.contains("principal variation"));
    assert!(text.contains("nodes/s"));
}

#[test]
fn out_writes_the_json() {
    let dir = std::env::temp_dir().join(format!("reversi-solve-{}", std::process::id()));
    let path = dir.join("s.json");
    let out = reversi(&["solve", "-n", "3", "--out", path.to_str().unwrap()]);
    assert!(out.status.success());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["board"], "3x3");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_input_exits_2() {
    for args in [
        vec!["solve", "-n", "4", "--without", "magic"],
        vec!["solve", "-n", "4", "--without", "table,magic"],
        vec!["solve", "-n", "4", "--moves", "a1"],
        vec!["solve", "-n", "4", "--moves", "b1", "--save"],
        vec!["solve", "-n", "4", "--hash-mb", "100000000"],
        vec!["solve", "-n", "9"],
        vec!["solve", "-n", "4", "--pv-guide", "a1"],
        vec!["solve", "-n", "4", "--pv-guide", "b1 zz"],
        vec!["solve", "-n", "4", "--pv-guide", "b1", "--mode", "best"],
    ] {
        let out = reversi(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// On 4x4 every first move is best (blog, 2008-07-03), and the rule plays the first in
/// row-major order; a guide through the last makes the variation begin with it, with the
/// same value and move values, and the variation still replays to the value.
#[test]
fn a_guide_chooses_among_the_best_moves() {
    let json = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["solve", "-n", "4", "--json", "--hash-mb", "8"];
        args.extend_from_slice(extra);
        let out = reversi(&args);
        assert!(out.status.success(), "{args:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let plain = json(&[]);
    let best: Vec<&str> = plain["move_values"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["best"] == true)
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(plain["pv"][0], best[0]);
    let last = best.last().unwrap();
    assert_ne!(last, &best[0]);
    let guided = json(&["--pv-guide", last]);
    assert_eq!(guided["pv"][0], *last);
    assert_eq!(guided["value"], plain["value"]);
    assert_eq!(guided["move_values"], plain["move_values"]);
    let end = json(&["--moves", &pv_text(&guided)]);
    assert_eq!(end["value"], plain["value"]);
    assert_eq!(end["pv"].as_array().unwrap().len(), 0);
}

#[test]
fn without_takes_a_list() {
    // Several techniques off, as one list or as repeated flags: the same value as with all on.
    let value = |args: &[&str]| -> serde_json::Value {
        let mut all = vec![
            "solve",
            "--rows",
            "3",
            "--cols",
            "5",
            "--json",
            "--hash-mb",
            "8",
        ];
        all.extend_from_slice(args);
        let out = reversi(&all);
        assert!(out.status.success(), "{args:?}");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["value"].clone()
    };
    let all_on = value(&[]);
    assert_eq!(value(&["--without", "endgame,etc,stability"]), all_on);
    assert_eq!(
        value(&["--without", "endgame", "--without", "etc,stability"]),
        all_on
    );
}

/// FFO #40 (`../shared/suites/fforum-40-59.obf`, from Edax's repository): black to move, +38
/// under the Othello rules by a2, the only best move.
const FFO40: &str = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X";
/// The 4x4 start position, black to move.
const START4: &str = "-----OX--XO----- X";

/// A fresh directory for one test's files.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("reversi-batch-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn batch_solves_a_file_to_a_table_csv_and_json() {
    let dir = scratch("ok");
    let file = dir.join("p.obf");
    std::fs::write(
        &file,
        format!("% two positions\n{START4}\n\n{FFO40}; A2:+38; C7:+36;\n"),
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let csv = dir.join("p.csv");
    let out = reversi(&[
        "solve",
        "--file",
        file,
        "--scoring",
        "winner-takes-empties",
        "--hash-mb",
        "64",
        "--out",
        csv.to_str().unwrap(),
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("side to move"),
        "the convention is said: {text}"
    );
    assert!(text.contains("winner-takes-empties"), "{text}");
    assert!(text.contains("total: 2 positions"), "{text}");
    let rows: Vec<&str> = text.lines().filter(|l| l.contains(" a2")).collect();
    assert_eq!(rows.len(), 1, "{text}");
    assert!(rows[0].contains("+38"), "{text}");
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = csv_text.lines().collect();
    assert_eq!(lines.len(), 3, "{csv_text}");
    assert!(lines[0].starts_with("index,line,empties,side_to_move,value_to_move"));
    assert!(
        lines[2].starts_with("2,4,20,black,38,win,a2,"),
        "{csv_text}"
    );
    // The nodes spent ordering moves are a part of the nodes, some of them at 20 empties.
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = |name: &str| header.iter().position(|&h| h == name).unwrap();
    let row: Vec<&str> = lines[2].split(',').collect();
    let nodes: u64 = row[col("nodes")].parse().unwrap();
    let ordering: u64 = row[col("ordering_nodes")].parse().unwrap();
    assert!(ordering > 0 && ordering < nodes, "{csv_text}");

    // JSON on stdout; the 4x4 value agrees with a plain `solve` of the start (black to move,
    // so its black-relative value is the value for the side to move).
    let out = reversi(&["solve", "--file", file, "--json", "--hash-mb", "64"]);
    assert!(out.status.success());
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for key in [
        "index",
        "empties",
        "value_to_move",
        "best_moves",
        "nodes",
        "seconds",
    ] {
        assert!(rows.iter().all(|r| r.get(key).is_some()), "{key}");
    }
    let plain = reversi(&["solve", "-n", "4", "--json", "--hash-mb", "8"]);
    let plain: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert_eq!(rows[0]["value_to_move"], plain["value"]);
    assert_eq!(rows[0]["index"], 1);
    assert_eq!(rows[1]["line"], 4);
    assert_eq!(rows[0]["scoring"], "discs");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_bad_line_on_standard_input_is_named() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(["solve", "--file", "-"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{START4}\n-----OX--XZ----- X").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("standard input") && err.contains("line 2") && err.contains("'Z'"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// FFO #40's moves that win for black (Othello rule), from `reversi solve --file - --mode all`.
const WINNING_FFO40: [&str; 10] = ["b1", "c1", "a2", "a6", "c6", "c7", "d7", "f7", "g7", "d8"];

#[test]
fn batch_reads_standard_input_in_every_mode() {
    for (mode, value) in [("best", Some(38)), ("all", Some(38)), ("wld", None)] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_reversi"))
            .args([
                "solve",
                "--file",
                "-",
                "--json",
                "--mode",
                mode,
                "--scoring",
                "winner-takes-empties",
                "--hash-mb",
                "64",
            ])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            writeln!(stdin, "{FFO40}").unwrap();
        }
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{mode}");
        let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let row = &rows[0];
        assert_eq!(
            row["value_to_move"].as_i64().map(|v| v as i32),
            value,
            "{mode}"
        );
        assert_eq!(row["result"], "win", "{mode}");
        // a2 is the only move that keeps +38; in wld mode any winning move will do, and every
        // legal move of FFO #40 wins (b1 +30, c1 +30, a6 +24, ..., as `--mode all` lists them).
        if mode == "wld" {
            let mv = row["best_moves"][0].as_str().unwrap();
            assert!(WINNING_FFO40.contains(&mv), "{mv}");
        } else {
            assert_eq!(row["best_moves"][0], "a2", "{mode}");
        }
        assert_eq!(row["mode"], mode);
    }
}

#[test]
fn one_position_in_best_mode() {
    let out = reversi(&[
        "solve",
        "--board",
        FFO40,
        "--mode",
        "best",
        "--scoring",
        "winner-takes-empties",
        "--json",
        "--hash-mb",
        "64",
    ]);
    assert!(out.status.success());
    let row: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(row["value_to_move"], 38);
    assert_eq!(row["best_moves"][0], "a2");
}

/// Runs `solve --file` on a file holding `content` and returns the output.
fn batch_of(name: &str, content: &str, extra: &[&str]) -> std::process::Output {
    let dir = scratch(name);
    let file = dir.join("p.obf");
    std::fs::write(&file, content).unwrap();
    let mut args = vec!["solve", "--file", file.to_str().unwrap(), "--hash-mb", "16"];
    args.extend_from_slice(extra);
    let out = reversi(&args);
    std::fs::remove_dir_all(dir).unwrap();
    out
}

/// Asserts exit code 2 and one `Error:` line on stderr containing each of `expect`.
fn assert_bad(out: &std::process::Output, expect: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    assert!(err.starts_with("Error: "), "{err}");
    for e in expect {
        assert!(err.contains(e), "{err} lacks {e:?}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn batch_bad_input_is_refused_with_its_line_number() {
    let out = reversi(&["solve", "--file", "/nonexistent/p.obf"]);
    assert_bad(&out, &["cannot read", "/nonexistent/p.obf"]);
    assert!(out.stdout.is_empty());
    assert_bad(&batch_of("empty", "", &[]), &["no positions"]);
    assert_bad(
        &batch_of("comments", "% nothing\n\n", &[]),
        &["no positions"],
    );
    let short = format!("{START4}\n{}\n", &FFO40[1..]);
    assert_bad(&batch_of("short", &short, &[]), &["line 2", "squares"]);
    let bad_char = format!("{START4}\n{START4}\n{}\n", FFO40.replacen('-', "Z", 1));
    assert_bad(&batch_of("char", &bad_char, &[]), &["line 3", "'Z'"]);
    let side = "-----OX--XO----- Q\n";
    assert_bad(&batch_of("side", side, &[]), &["line 1", "side to move"]);
    let over = "XXXXOXXXX O\n";
    assert_bad(&batch_of("over", over, &[]), &["line 1", "already over"]);
    // Nothing is solved before the bad line is reported.
    assert!(batch_of("char2", &bad_char, &[]).stdout.is_empty());
    // --file with a board option is a usage error.
    assert_bad(
        &reversi(&["solve", "--file", "x.obf", "-n", "4"]),
        &["--file"],
    );
}

#[test]
fn keep_going_marks_the_bad_rows_and_solves_the_rest() {
    let content = format!("{START4}\nXXXXOXXXX O\nnonsense\n{START4}\n");
    let out = batch_of("keep", &content, &["--keep-going"]);
    assert_bad(&out, &["2 of 4 lines"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let errors: Vec<&str> = text.lines().filter(|l| l.contains("ERROR")).collect();
    assert_eq!(errors.len(), 2, "{text}");
    assert!(errors[0].contains("already over"), "{text}");
    assert!(text.contains("total: 2 positions"), "{text}");
    let out = batch_of("keepjson", &content, &["--keep-going", "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert!(rows[0]["error"].is_null());
    assert_eq!(rows[2]["line"], 3);
    assert!(rows[2]["error"].as_str().unwrap().contains("square"));
}

#[test]
fn positions_solved_at_once_give_the_rows_of_one_at_a_time() {
    let content = format!(
        "{START4}\n{FFO40}\nnonsense\n-----OX--XO----- O\n{}\n",
        FFO40.replace(" X", " O")
    );
    let fields = |out: &std::process::Output| -> Vec<String> {
        let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| {
                format!(
                    "{} {} {} {} {} {}",
                    r["index"],
                    r["line"],
                    r["empties"],
                    r["value_to_move"],
                    r["best_moves"],
                    r["error"]
                )
            })
            .collect()
    };
    let one = batch_of("jobs1", &content, &["--keep-going", "--json"]);
    assert_eq!(one.status.code(), Some(2));
    let one = fields(&one);
    assert_eq!(one.len(), 5);
    for jobs in ["2", "3"] {
        let args = ["--keep-going", "--threads", "2", "--jobs", jobs];
        let out = batch_of("jobs", &content, &[&args[..], &["--json"]].concat());
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(fields(&out), one, "--jobs {jobs}");
        // The table prints the rows in file order too.
        let out = batch_of("jobs", &content, &args);
        let text = String::from_utf8(out.stdout).unwrap();
        let index: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|w| w.parse::<usize>().is_ok())
            .collect();
        assert_eq!(index, ["1", "2", "3", "4", "5"], "{text}");
        assert!(text.contains("total: 4 positions"), "{text}");
    }
    assert_bad(
        &batch_of("jobs0", &format!("{START4}\n"), &["--jobs", "0"]),
        &["--jobs"],
    );
}
