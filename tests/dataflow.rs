//! End-to-end tests of the dataflow count (`reversi count --workers`, `--processes`): the
//! files equal the one-process count's byte for byte whatever the numbers of processes and
//! workers; a lost process stops the others with a clear error, and `--resume` on every process
//! finishes with the same files; bad cluster input is refused before counting.
//!
//! Processes talk over 127.0.0.1 only, on ports the system hands out (bound to port 0 and
//! released just before the processes start), so parallel tests do not clash.

mod common;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A scratch directory, removed when the test ends.
fn dir(name: &str) -> common::Scratch {
    common::Scratch::new("dataflow", name)
}

fn reversi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Asserts that `a` and `b` hold the same files with the same bytes, but `run.json` (time,
/// threads, memory of one run).
fn same_files(a: &Path, b: &Path) {
    let names = |d: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n != "run.json" && !n.ends_with(".checkpoint"))
            .collect();
        v.sort();
        v
    };
    let (na, nb) = (names(a), names(b));
    assert_eq!(na, nb, "{} and {}", a.display(), b.display());
    assert!(na.contains(&"summary.json".to_string()));
    for n in na {
        let (x, y) = (
            std::fs::read(a.join(&n)).unwrap(),
            std::fs::read(b.join(&n)).unwrap(),
        );
        assert!(
            x == y,
            "{n} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

/// A hostfile of `n` free ports on 127.0.0.1.
fn hostfile(d: &Path, n: usize) -> PathBuf {
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let text: String = listeners
        .iter()
        .map(|l| format!("127.0.0.1:{}\n", l.local_addr().unwrap().port()))
        .collect();
    let path = d.join("hosts.txt");
    std::fs::write(&path, text).unwrap();
    path
}

/// Starts process `i` of `n` with `args`, writing into `out`.
fn start(args: &[&str], n: usize, i: usize, w: usize, hosts: &Path, out: &Path) -> Child {
    let (n, i, w) = (n.to_string(), i.to_string(), w.to_string());
    Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(["count"])
        .args(args)
        .args(["--workers", &w, "--processes", &n, "--process", &i])
        .arg("--hostfile")
        .arg(hosts)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs `n` processes of `w` workers to the end; panics unless all succeed. Process 0's
/// files are in `d/out0`.
fn cluster(d: &Path, args: &[&str], n: usize, w: usize) {
    let hosts = hostfile(d, n);
    let kids: Vec<Child> = (0..n)
        .map(|i| start(args, n, i, w, &hosts, &d.join(format!("out{i}"))))
        .collect();
    for (i, k) in kids.into_iter().enumerate() {
        let out = k.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "process {i} of {n}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for i in 1..n {
        assert!(
            !d.join(format!("out{i}/summary.json")).exists(),
            "only process 0 writes the files"
        );
    }
}

/// Runs `count` with `args` (and the environment variable `env`), expects success and returns
/// its stderr.
fn count_ok(args: &[&str], env: Option<(&str, &str)>) -> String {
    let mut c = Command::new(env!("CARGO_BIN_EXE_reversi"));
    c.arg("count").args(args);
    if let Some((k, v)) = env {
        c.env(k, v);
    }
    let r = c.output().expect("the binary runs");
    let err = String::from_utf8_lossy(&r.stderr).into_owned();
    assert!(r.status.success(), "{args:?}: {err}");
    err
}

fn one_process(d: &Path, args: &[&str], extra: &[&str]) -> PathBuf {
    let out = d.join(format!("one{}", extra.join("")));
    let o = out.to_str().unwrap();
    let r = reversi(&[&["count"], args, extra, &["--out", o]].concat());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    out
}

#[test]
fn workers_and_processes_do_not_change_the_files() {
    for (name, args) in [
        ("4x5", &["--rows", "4", "--cols", "5"][..]),
        ("5x5-line", &["-n", "5", "--moves", "c2 b2 b3 b4 a4 c1"][..]),
    ] {
        let d = dir(name);
        let plain = one_process(&d, args, &[]);
        for w in ["1", "2", "3"] {
            let df = one_process(&d, args, &["--workers", w]);
            same_files(&plain, &df);
        }
        for (n, w) in [(2, 1), (3, 1), (2, 2)] {
            let c = d.join(format!("c{n}x{w}"));
            std::fs::create_dir_all(&c).unwrap();
            cluster(&c, args, n, w);
            same_files(&plain, &c.join("out0"));
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}

#[test]
fn the_disk_store_does_not_change_the_files() {
    let d = dir("disk");
    let args = &["--rows", "4", "--cols", "5"][..];
    let plain = one_process(&d, args, &[]);
    let tmp = d.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let disk = [
        args,
        &[
            "--store",
            "disk",
            "--memory",
            "8",
            "--tmp-dir",
            tmp.to_str().unwrap(),
        ],
    ]
    .concat();
    for w in ["1", "3"] {
        let df = one_process(&d, &disk, &["--workers", w]);
        same_files(&plain, &df);
    }
    let c = d.join("c2x1");
    std::fs::create_dir_all(&c).unwrap();
    cluster(&c, &disk, 2, 1);
    same_files(&plain, &c.join("out0"));
    // Tables planned for a tenth of a worker's share outgrow their budget: the parts are
    // built again, finer, and the files are still the same.
    let out = d.join("retries");
    let o = out.to_str().unwrap();
    let plan_low = ("REVERSI_TEST_PLAN_SHARE", "0.1");
    let err = count_ok(
        &[&disk[..], &["--workers", "2", "--out", o]].concat(),
        Some(plan_low),
    );
    assert!(
        err.contains("outgrew --memory"),
        "no part was built again: {err}"
    );
    same_files(&plain, &out);
    // A disk budget too small stops the run (exit 2, saying what to do); --resume with a larger
    // one finishes it with the same files.
    let out = d.join("small-disk");
    let o = out.to_str().unwrap();
    let small = [
        &disk[..],
        &["--workers", "2", "--out", o, "--disk", "0.001"],
    ]
    .concat();
    let r = reversi(&[&["count"], &small[..]].concat());
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(err.contains("raise --disk"), "{err}");
    let larger = [
        &disk[..],
        &["--workers", "2", "--out", o, "--disk", "1", "--resume"],
    ]
    .concat();
    count_ok(&larger, None);
    same_files(&plain, &out);
    // --store auto moves to the disk store when a layer would not fit --memory.
    let out = d.join("auto");
    let auto = [
        args,
        &["--memory", "10", "--tmp-dir", tmp.to_str().unwrap()],
    ]
    .concat();
    let o = out.to_str().unwrap();
    let err = count_ok(&[&auto[..], &["--workers", "2", "--out", o]].concat(), None);
    assert!(
        err.contains("are kept on disk"),
        "no move to the disk store: {err}"
    );
    same_files(&plain, &out);
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(
        left.is_empty(),
        "the workers' directories are removed at the end"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// The larger boards, 4x6 and 5x5 after `c2 b2`, with 2 and 3 processes in memory and 2 on the
/// disk store (about eight minutes on two cores):
/// `cargo test --release --test dataflow -- --ignored`.
#[test]
#[ignore]
fn larger_boards_on_two_and_three_processes() {
    for (name, args) in [
        ("4x6", &["--rows", "4", "--cols", "6"][..]),
        ("5x5-c2b2", &["-n", "5", "--moves", "c2 b2"][..]),
    ] {
        let d = dir(name);
        let plain = one_process(&d, args, &[]);
        for n in [2, 3] {
            let c = d.join(format!("c{n}"));
            std::fs::create_dir_all(&c).unwrap();
            cluster(&c, args, n, 1);
            same_files(&plain, &c.join("out0"));
        }
        // On the disk store, with 256 MiB per process: several parts per layer.
        let c = d.join("c2-disk");
        let tmp = c.join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let t = tmp.to_str().unwrap();
        let disk = [
            args,
            &["--store", "disk", "--memory", "256", "--tmp-dir", t],
        ]
        .concat();
        cluster(&c, &disk, 2, 1);
        same_files(&plain, &c.join("out0"));
        let _ = std::fs::remove_dir_all(&d);
    }
}

#[test]
fn a_lost_process_stops_the_others_and_resume_finishes() {
    let d = dir("kill");
    // Process 1's saved layers.
    let saved = |out: &Path| {
        std::fs::read_dir(out.join("count-dataflow.checkpoint"))
            .map(|r| r.count())
            .unwrap_or(0)
    };
    kill_and_resume(&d, &["--checkpoint-secs", "0"], &saved);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_lost_process_on_the_disk_store_stops_the_others_and_resume_finishes() {
    let d = dir("kill-disk");
    let tmp = d.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    // Process 1's saved parts: the step of its newest state.
    let steps = |_: &Path| {
        let Ok(rd) = std::fs::read_dir(&tmp) else {
            return 0;
        };
        rd.filter_map(Result::ok)
            .filter_map(|run| std::fs::read(run.path().join("w0001-of-0003/state.json")).ok())
            // A sealed line: 16 hex digits of checksum, a space, the JSON.
            .filter_map(|b| b.get(17..).map(<[u8]>::to_vec))
            .filter_map(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .filter_map(|v| v["now"]["step"].as_u64())
            .map(|s| s as usize)
            .max()
            .unwrap_or(0)
    };
    let flags = [
        "--store",
        "disk",
        "--memory",
        "96",
        "--tmp-dir",
        tmp.to_str().unwrap(),
    ];
    kill_and_resume(&d, &flags, &steps);
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(
        left.is_empty(),
        "the workers' directories are removed at the end"
    );
}

/// Starts 3 processes on 5x5 after `c2 b2 b3 b4 a4` with `flags`, kills process 1 once
/// `saved(its out directory)` is at least 2, checks that the others stop with a clear error
/// soon, resumes every process and compares the files with one process's.
fn kill_and_resume(d: &Path, flags: &[&str], saved: &dyn Fn(&Path) -> usize) {
    let board = &["-n", "5", "--moves", "c2 b2 b3 b4 a4"][..];
    let args = &[board, flags].concat()[..];
    let plain = one_process(d, board, &[]);
    let hosts = hostfile(d, 3);
    let outs: Vec<PathBuf> = (0..3).map(|i| d.join(format!("out{i}"))).collect();
    let mut kids: Vec<Child> = (0..3)
        .map(|i| start(args, 3, i, 1, &hosts, &outs[i]))
        .collect();
    // Wait until process 1 saved a few layers or parts, then kill it mid-count.
    let t = Instant::now();
    while saved(&outs[1]) < 2 && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(saved(&outs[1]) >= 2, "process 1 saved no layer");
    kids[1].kill().unwrap();
    let killed = Instant::now();
    let _ = kids[1].wait();
    for i in [0, 2] {
        let out = kids
            .remove(if i == 0 { 0 } else { 1 })
            .wait_with_output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            // The count may have ended before the kill was noticed: then nothing to check.
            continue;
        }
        assert!(
            killed.elapsed() < Duration::from_secs(20),
            "process {i} hung"
        );
        assert_eq!(out.status.code(), Some(1), "process {i}: {err}");
        assert!(err.contains("dataflow"), "process {i}: {err}");
        assert!(!err.contains("panicked"), "process {i}: {err}");
    }
    // Every process again with --resume: the same files as one process.
    let kids: Vec<Child> = (0..3)
        .map(|i| {
            let a = [args, &["--resume"]].concat();
            start(&a, 3, i, 1, &hosts, &outs[i])
        })
        .collect();
    for (i, k) in kids.into_iter().enumerate() {
        let out = k.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "resumed process {i}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    same_files(&plain, &outs[0]);
}

/// Runs `count` with `args` and expects exit 2 with one line on stderr containing `needle`.
fn refused(args: &[&str], needle: &str) {
    let out = reversi(&[&["count", "--rows", "4", "--cols", "5", "--no-files"], args].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
}

#[test]
fn bad_cluster_input_is_refused() {
    let d = dir("bad");
    let bad = d.join("bad.txt");
    std::fs::write(&bad, "127.0.0.1:40001\nnot a host\n").unwrap();
    let b = bad.to_str().unwrap();
    refused(
        &["--processes", "2", "--process", "0", "--hostfile", b],
        "line 2",
    );
    let good = hostfile(&d, 2);
    let g = good.to_str().unwrap();
    refused(
        &["--processes", "2", "--process", "2", "--hostfile", g],
        "out of range",
    );
    refused(
        &["--processes", "3", "--process", "0", "--hostfile", g],
        "has 2 host:port lines",
    );
    refused(&["--processes", "2", "--process", "0"], "--hostfile");
    refused(&["--workers", "2", "--method", "dfs"], "only --method dp");
    refused(&["--workers", "0"], "--workers");
    refused(
        &[
            "--hostfile",
            d.join("none.txt").to_str().unwrap(),
            "--process",
            "0",
        ],
        "cannot read",
    );
}

#[test]
fn a_port_in_use_is_reported() {
    let d = dir("port");
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    let hosts = d.join("hosts.txt");
    std::fs::write(
        &hosts,
        format!(
            "127.0.0.1:{port}\n127.0.0.1:{}\n",
            other.local_addr().unwrap().port()
        ),
    )
    .unwrap();
    drop(other);
    let out = reversi(&[
        "count",
        "--rows",
        "4",
        "--cols",
        "5",
        "--no-files",
        "--processes",
        "2",
        "--process",
        "0",
        "--hostfile",
        hosts.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&port.to_string()) || err.contains("in use"),
        "{err}"
    );
    drop(taken);
}

#[test]
fn processes_started_differently_are_refused() {
    let d = dir("differ");
    let hosts = hostfile(&d, 2);
    let a = start(
        &["--rows", "4", "--cols", "5"],
        2,
        0,
        1,
        &hosts,
        &d.join("a"),
    );
    let b = start(
        &["--rows", "4", "--cols", "6"],
        2,
        1,
        1,
        &hosts,
        &d.join("b"),
    );
    for (name, k) in [("a", a), ("b", b)] {
        let out = k.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains("started with another board"), "{name}: {err}");
        assert!(!d.join(name).join("summary.json").exists());
    }
}
