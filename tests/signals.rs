//! End-to-end: Ctrl-C (SIGINT), SIGTERM and SIGHUP stop every long computation within two
//! seconds with exit code 130, the binary run as a user would. A count saves what it can
//! resume, and a kept solve (`solve --state`) a last table snapshot.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A scratch directory, removed when the test ends.
fn dir(name: &str) -> common::Scratch {
    common::Scratch::new("signals", name)
}

fn start(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

/// Sends `signal` to a run of `args` after `after`, and returns how long it took to exit, its
/// exit code and its stderr. Panics if it has not exited within ten seconds.
fn stop(args: &[&str], signal: i32, after: Duration) -> (Duration, Option<i32>, String) {
    let mut child = start(args);
    std::thread::sleep(after);
    assert!(
        child.try_wait().unwrap().is_none(),
        "{args:?} ended before the signal"
    );
    // SAFETY: kill(2) on the pid of a child this test started and has not reaped.
    let rc = unsafe { libc::kill(child.id() as i32, signal) };
    assert_eq!(rc, 0);
    let t0 = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if t0.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("{args:?} still running 10 s after signal {signal}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = t0.elapsed();
    let out = child.wait_with_output().unwrap();
    (
        took,
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_stopped(args: &[&str], signal: i32, after: Duration) -> String {
    let (took, code, err) = stop(args, signal, after);
    assert_eq!(code, Some(130), "{args:?} on signal {signal}: {err}");
    // Stopping includes writing the checkpoint (a 4x6 layer: tens of MB), which took up to
    // 2.1 s at a load of 12 on two cores: the bound is for a stop that does not wait for
    // the work to finish, not a timing.
    assert!(
        took < Duration::from_secs(6),
        "{args:?} took {took:?} to stop on signal {signal}"
    );
    err
}

const SIGNALS: [i32; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

#[test]
fn perft_stops_on_every_signal() {
    for s in SIGNALS {
        assert_stopped(
            &["perft", "-n", "8", "-d", "64", "--yes"],
            s,
            Duration::from_millis(500),
        );
    }
}

#[test]
fn dfs_count_stops_inside_a_subtree_and_saves() {
    // A 6x6 subtree never finishes: the walk itself must see the signal.
    for s in SIGNALS {
        let d = dir(&format!("dfs-{s}"));
        let err = assert_stopped(
            &[
                "count",
                "-n",
                "6",
                "--method",
                "dfs",
                "--yes",
                "--out",
                d.to_str().unwrap(),
            ],
            s,
            Duration::from_millis(1500),
        );
        assert!(err.contains("--resume"), "{err}");
        assert!(d.join("count-dfs.checkpoint").exists(), "{err}");
        let _ = std::fs::remove_dir_all(&d);
    }
}

#[test]
fn dp_count_solve_and_estimate_stop() {
    let d = dir("dp");
    let err = assert_stopped(
        &[
            "count",
            "--rows",
            "4",
            "--cols",
            "6",
            "--store",
            "memory",
            "--out",
            d.to_str().unwrap(),
        ],
        libc::SIGTERM,
        Duration::from_millis(1500),
    );
    assert!(err.contains("interrupted"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
    assert_stopped(
        &["solve", "-n", "6", "--hash-mb", "64"],
        libc::SIGINT,
        Duration::from_millis(800),
    );
    assert_stopped(
        &["estimate", "-n", "8", "-k", "1000000000"],
        libc::SIGHUP,
        Duration::from_millis(800),
    );
}

#[test]
fn train_eval_stops_inside_a_chunk_and_keeps_the_games_solved() {
    // Positions of 22-24 empty squares of 6x6 take a tenth of a second or more each, so a
    // chunk of 1,024 games takes minutes: the stop must not wait for the chunk's end.
    let d = dir("train");
    let data = d.join("samples.txt");
    let err = assert_stopped(
        &[
            "train-eval",
            "-n",
            "6",
            "--empties",
            "22-24",
            "--games",
            "2048",
            "--data",
            data.to_str().unwrap(),
            "--out",
            d.join("w.bin").to_str().unwrap(),
        ],
        libc::SIGINT,
        Duration::from_millis(1500),
    );
    assert!(err.contains("the same command resumes"), "{err}");
    let text = std::fs::read_to_string(&data).unwrap();
    let games = text.lines().count() - 1; // after the header line
    assert!(games < 1024, "{games} games: the stop waited for the chunk");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn kept_solve_writes_a_last_snapshot_on_a_signal() {
    // No periodic snapshot within the run (an hour apart): the file is the stop's.
    let d = dir("solve-state");
    let state = d.to_str().unwrap();
    let err = assert_stopped(
        &[
            "solve",
            "-n",
            "6",
            "--hash-mb",
            "64",
            "--state",
            state,
            "--snapshot-secs",
            "3600",
        ],
        libc::SIGTERM,
        Duration::from_millis(1500),
    );
    assert!(err.contains("last table snapshot"), "{err}");
    assert!(err.contains("--resume"), "{err}");
    assert!(d.join("solve-table.bin").exists(), "{err}");
    // The snapshot reads back (checked whole) as the state of one run.
    let status = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(["solve", "-n", "6", "--state", state, "--status"])
        .output()
        .expect("the binary runs");
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(status.status.success(), "{text}");
    assert!(text.contains("\n1 runs, "), "{text}");
}
