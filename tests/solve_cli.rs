//! `reversi solve` run as a user would run it: text, JSON, files, and bad input.

use std::process::Command;

fn reversi(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .output()
        .expect("the binary runs")
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
    let pv: Vec<&str> = v["pv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    // The pv replays: the same command from the end of the pv finds a finished game.
    let out = reversi(&["solve", "-n", "4", "--moves", &pv.join(" "), "--json"]);
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
        vec!["solve", "-n", "4", "--moves", "a1"],
        vec!["solve", "-n", "4", "--moves", "b1", "--save"],
        vec!["solve", "-n", "4", "--hash-mb", "100000000"],
        vec!["solve", "-n", "9"],
    ] {
        let out = reversi(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
