//! End-to-end tests of `reversi strong` and `reversi heuristics`, and of the table file.

use std::path::PathBuf;
use std::process::Command;

use reversi_nxn::board::Shape;
use reversi_nxn::progress::Silent;
use reversi_nxn::strong::{build, StrongOptions, StrongTable};

fn reversi(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .output()
        .expect("run reversi")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("reversi-strong-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn strong_4x4_writes_a_table_that_loads_back_equal() {
    let dir = temp_dir("4x4");
    let out = reversi(&["strong", "-n", "4", "--out", dir.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("white (the second player) wins"), "{text}");
    let loaded = StrongTable::load(&dir.join("strong.bin")).unwrap();
    let shape = Shape::square(4).unwrap();
    let (built, report) = build(shape, &StrongOptions::default(), &Silent).unwrap();
    assert_eq!(loaded.len(), built.len());
    for (a, b) in loaded.layers().zip(built.layers()) {
        assert_eq!(a.keys, b.keys);
        assert_eq!(a.values, b.values);
        assert_eq!(a.moves_to_end, b.moves_to_end);
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("strong.json")).unwrap()).unwrap();
    assert_eq!(json["positions"], report.positions);
    assert_eq!(json["canonical"], report.canonical);

    // The heuristic audit reads the table and writes one CSV row per strategy.
    let out = reversi(&[
        "heuristics",
        "-n",
        "4",
        "--table",
        dir.join("strong.bin").to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(dir.join("heuristics.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "strategy,positions,perfect_share,mean_loss,max_loss,expected_loss"
    );
    assert_eq!(lines.count(), 6);

    // A damaged file is refused, not misread.
    let mut bytes = std::fs::read(dir.join("strong.bin")).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    std::fs::write(dir.join("bad.bin"), &bytes).unwrap();
    assert!(StrongTable::load(&dir.join("bad.bin")).is_err());
    let out = reversi(&[
        "heuristics",
        "-n",
        "4",
        "--no-save",
        "--table",
        dir.join("bad.bin").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("checksum"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn strong_results_do_not_depend_on_threads() {
    let run = |threads: &str| {
        let out = reversi(&[
            "--threads",
            threads,
            "strong",
            "--rows",
            "3",
            "--cols",
            "6",
            "--no-save",
            "--json",
        ]);
        assert!(out.status.success());
        let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for k in ["seconds_forward", "seconds_backward", "command", "peak_mb"] {
            v.as_object_mut().unwrap().remove(k);
        }
        v
    };
    assert_eq!(run("1"), run("2"));
    let audit = |threads: &str| {
        let out = reversi(&[
            "--threads",
            threads,
            "heuristics",
            "--rows",
            "3",
            "--cols",
            "6",
            "--no-save",
        ]);
        assert!(out.status.success());
        out.stdout
    };
    assert_eq!(audit("1"), audit("2"));
}

#[test]
fn strong_refuses_bad_requests() {
    // Too little memory for a board: a one-line message and exit code 2.
    let out = reversi(&[
        "strong",
        "--rows",
        "4",
        "--cols",
        "5",
        "--memory",
        "1",
        "--no-save",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("raise --memory"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // More memory than the machine has.
    let out = reversi(&["strong", "-n", "4", "--memory", "999999999", "--no-save"]);
    assert_eq!(out.status.code(), Some(2));
    // Too many squares for a key.
    let out = reversi(&["strong", "-n", "6", "--no-save"]);
    assert_eq!(out.status.code(), Some(2));
    // A move list makes no sense here.
    let out = reversi(&["strong", "-n", "4", "--moves", "b1", "--no-save"]);
    assert_eq!(out.status.code(), Some(2));
    let out = reversi(&["heuristics", "-n", "9"]);
    assert_eq!(out.status.code(), Some(2));
}
