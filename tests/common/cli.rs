//! Helpers for tests that run the binary: its JSON output, the answer of a solve that must
//! not depend on how it was computed, and the one-line errors of bad input.

use std::process::Output;

/// What a successful run printed on standard output.
pub fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("text on stdout")
}

/// The JSON a successful run printed on standard output.
pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(out)).expect("JSON on stdout")
}

/// What must agree between two computations of a solution (`solve` and `prove`, a solve
/// and a resumed one): value, winner, final score, principal variation, every move's value
/// and the scoring rule; everything but nodes and time.
pub fn answer(v: &serde_json::Value) -> serde_json::Value {
    serde_json::json!([
        v["value"],
        v["winner"],
        v["final_black"],
        v["final_white"],
        v["pv"],
        v["move_values"],
        v["scoring"]
    ])
}

/// Asserts that a run failed with exit code `code` and one line on standard error that
/// contains `needle`.
pub fn fails_with(out: &Output, code: i32, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
}
