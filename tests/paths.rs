//! Output and working paths are checked before any work starts, and two runs on one directory
//! or checkpoint are kept apart by a lock that names the running one (issue 41).

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn reversi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .output()
        .expect("run reversi")
}

/// Exit code 2, one `Error:` line on stderr containing `expect`, nothing on stdout.
fn assert_refused(args: &[&str], expect: &str) -> String {
    let out = reversi(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("Error: "), "{args:?}: {err}");
    assert!(err.contains(expect), "{args:?}: {err} lacks {expect:?}");
    assert!(out.stdout.is_empty(), "{args:?}: work was done first");
    err
}

#[test]
fn a_directory_given_as_a_file_is_refused_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    assert_refused(&["solve", "-n", "4", "--out", d], "is a directory");
    assert_refused(&["positions", "-n", "4", "--csv", d], "is a directory");
    assert_refused(&["positions", "-n", "4", "--json-out", d], "is a directory");
    assert_refused(
        &[
            "perft",
            "-n",
            "6",
            "--fast",
            "--depth",
            "10",
            "--checkpoint",
            d,
        ],
        "is a directory",
    );
}

#[test]
fn a_file_given_as_a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    let f = file.to_str().unwrap();
    assert_refused(
        &["count", "-n", "4", "--store", "disk", "--tmp-dir", f],
        "not a directory",
    );
    assert_refused(&["count", "-n", "4", "--out", f], "not a directory");
    assert_refused(&["estimate", "-n", "4", "--out", f], "not a directory");
}

#[test]
fn moves_and_finished_games_are_refused_in_one_line() {
    assert_refused(&["solve", "-n", "4", "--moves", "b10"], "bad square 'b10'");
    let full = format!("{} X", "X".repeat(16));
    assert_refused(
        &["solve", "-n", "4", "--board", &full, "--mode", "best"],
        "already over",
    );
}

/// Starts `args` in the background and waits until it holds the lock file `lock`.
fn start_holding(args: &[&str], lock: &std::path::Path) -> std::process::Child {
    let child = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start reversi");
    let t = Instant::now();
    while !std::fs::read_to_string(lock).is_ok_and(|s| s.contains("pid")) {
        assert!(t.elapsed() < Duration::from_secs(60), "no lock at {lock:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

#[test]
fn two_counts_on_one_directory_are_kept_apart() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = out.to_str().unwrap();
    // A count of 4x6 runs for several seconds: long enough to meet it while it runs.
    let args = [
        "count",
        "--rows",
        "4",
        "--cols",
        "6",
        "--out",
        o,
        "--checkpoint-secs",
        "0",
        "--threads",
        "1",
    ];
    let mut first = start_holding(&args, &out.join(".reversi.lock"));
    let err = assert_refused(&args, "is in use by another run");
    assert!(err.contains(&format!("pid {}", first.id())), "{err}");
    first.kill().unwrap();
    first.wait().unwrap();
    // The lock went with the process: a new run may take the directory (and is stopped at
    // once, its work beside the point here).
    let mut again = start_holding(&args, &out.join(".reversi.lock"));
    again.kill().unwrap();
    again.wait().unwrap();
}

#[test]
fn two_disk_counts_on_one_tmp_dir_are_kept_apart() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let t = tmp.to_str().unwrap();
    let out1 = dir.path().join("a");
    let out2 = dir.path().join("b");
    let args = |o: &std::path::Path| -> Vec<String> {
        [
            "count",
            "--rows",
            "4",
            "--cols",
            "6",
            "--store",
            "disk",
            "--disk",
            "2",
            "--tmp-dir",
            t,
            "--threads",
            "1",
            "--out",
            o.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let a1 = args(&out1);
    let a1: Vec<&str> = a1.iter().map(String::as_str).collect();
    let mut first = start_holding(&a1, &out1.join(".reversi.lock"));
    // Its disk directory's lock is taken just after the --out one.
    let started = Instant::now();
    let lock = loop {
        let found = std::fs::read_dir(&tmp)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "lock"));
        if let Some(p) = found {
            break p;
        }
        assert!(started.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(lock
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("reversi-count-4x6-"));
    let a2 = args(&out2);
    let a2: Vec<&str> = a2.iter().map(String::as_str).collect();
    assert_refused(&a2, "the disk store's directory");
    first.kill().unwrap();
    first.wait().unwrap();
}

/// Runs `args` (with `M` standing for the mount point) on a small filesystem of `size` bytes,
/// first filled with `fill` KiB of zeros, in a private mount namespace (`unshare -m`, as root).
/// Returns the exit code, stderr and the `.tmp` files left, or `None` where this machine cannot
/// mount one (no `unshare`, or not allowed).
fn on_full_disk(size: &str, fill: u32, args: &str) -> Option<(i32, String, String)> {
    let out = tempfile::tempdir().unwrap();
    let m = out.path().join("m");
    std::fs::create_dir(&m).unwrap();
    let o = out.path().display().to_string();
    let m = m.display().to_string();
    let bin = env!("CARGO_BIN_EXE_reversi");
    let args = args.replace('M', &m);
    let script = format!(
        "mount -t tmpfs -o size={size} tmpfs {m} || exit 77\n\
         dd if=/dev/zero of={m}/fill bs=1024 count={fill} 2>/dev/null\n\
         {bin} {args} >/dev/null 2>{o}/err\n\
         echo $? >{o}/rc\n\
         find {m} -name '*.tmp' >{o}/tmps\n"
    );
    let status = Command::new("unshare")
        .args(["-m", "sh", "-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    if status.code() != Some(0) {
        return None;
    }
    let read = |n: &str| std::fs::read_to_string(out.path().join(n)).unwrap();
    Some((
        read("rc").trim().parse().unwrap(),
        read("err"),
        read("tmps"),
    ))
}

#[test]
fn a_full_disk_is_an_error_and_leaves_no_temporary_file() {
    let cases = [
        // The results of a count, its checkpoint, a solve's, an estimate's, positions' tables.
        ("8k", 0, "count -n 4 --out M/a", "summary.json"),
        (
            "64k",
            0,
            "count --rows 4 --cols 5 --checkpoint-secs 0 --out M/a",
            "count-dp.checkpoint",
        ),
        ("4k", 4, "solve -n 4 --out M/s.json", "s.json"),
        ("4k", 4, "estimate -n 4 -k 1000 --out M/e", "estimate.json"),
        ("4k", 4, "positions -n 4 --csv M/p.csv", "p.csv"),
    ];
    for (size, fill, args, file) in cases {
        let Some((rc, err, tmps)) = on_full_disk(size, fill, args) else {
            eprintln!("skipped: this machine cannot mount a small tmpfs (unshare -m)");
            return;
        };
        assert_eq!(rc, 1, "{args}: {err}");
        // Progress notes may come first; the error is the last line.
        let last = err.trim_end().lines().last().unwrap_or("");
        assert!(last.starts_with("Error: "), "{args}: {err}");
        assert!(last.contains("No space left"), "{args}: {err}");
        assert!(last.contains(file), "{args}: {err} does not name {file}");
        assert_eq!(tmps, "", "{args}: temporary files left: {tmps}");
    }
}

#[test]
fn a_disk_store_count_too_big_for_the_free_space_is_refused_before_it_starts() {
    // 4x6 on disk peaks at about 0.3 GiB by the estimate (the rule of 4x7's 32 GiB); on a
    // 4 MiB filesystem it is refused at once, naming the need, the space and the way out.
    let args = "count --rows 4 --cols 6 --store disk --tmp-dir M --no-files";
    let Some((rc, err, _)) = on_full_disk("4m", 0, args) else {
        eprintln!("skipped: this machine cannot mount a small tmpfs (unshare -m)");
        return;
    };
    assert_eq!(rc, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(
        err.contains("GiB of disk at its peak") && err.contains("free") && err.contains("--yes"),
        "{err}"
    );
}
