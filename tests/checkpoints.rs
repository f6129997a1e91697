//! End-to-end: no saved state is trusted unchecked. A real checkpoint of each kind (dp in
//! memory, dfs, deep perft) with one byte flipped, cut short, or swapped for another run's is
//! refused on `--resume` with exit code 2 and a one-line message naming the file, and nothing
//! is written to the results; the untouched checkpoint still resumes.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn reversi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

/// Every file under `dir` with its bytes: what a refused resume must leave as it was.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        // A lock file belongs to the runs (one killed with -9 leaves its own), not the results.
        if p.extension().is_some_and(|x| x == "lock") {
            continue;
        }
        if p.is_dir() {
            for (name, bytes) in snapshot(&p) {
                files.insert(format!("{}/{name}", p.display()), bytes);
            }
        } else {
            files.insert(p.display().to_string(), std::fs::read(&p).unwrap());
        }
    }
    files
}

/// The ways a checkpoint is spoilt.
fn flip_middle(bytes: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let i = b.len() / 2;
    b[i] ^= 0x01;
    b
}

/// One byte near the end flipped: in dp's entries, past its header.
fn flip_near_end(bytes: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let i = b.len() - 20;
    b[i] ^= 0x01;
    b
}

fn truncate(bytes: &[u8]) -> Vec<u8> {
    bytes[..bytes.len() * 2 / 3].to_vec()
}

/// Runs `resume` with `bytes` as the checkpoint `cp` and asserts it is refused: exit code 2,
/// one line naming the file and saying to delete it, and `results` left exactly as they were.
fn assert_refused(resume: &[&str], cp: &Path, bytes: &[u8], results: &Path, what: &str) {
    std::fs::write(cp, bytes).unwrap();
    let before = snapshot(results);
    let out = reversi(resume);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{what}: {resume:?} must be refused as bad input; stdout {} stderr {err}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(out.stdout.is_empty(), "{what}: no result printed");
    // Progress notes may come first (dfs tells its frontier); the error is one line.
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("Error:")).collect();
    assert_eq!(errors.len(), 1, "{what}: one error line: {err}");
    assert!(
        errors[0].contains(&cp.display().to_string()) && errors[0].contains("delete "),
        "{what}: names the file and what to do: {err}"
    );
    assert!(
        err.trim_end().ends_with(errors[0]),
        "{what}: nothing after the error: {err}"
    );
    assert_eq!(snapshot(results), before, "{what}: nothing written");
}

/// A count stopped by the test hook after `units` units, which leaves its checkpoint.
fn stopped_count(args: &[&str], units: &str) {
    let out = reversi(&[args, &["--stop-after", units, "--threads", "1"]].concat());
    assert_eq!(
        out.status.code(),
        Some(130),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Spoils a count's checkpoint every way, then checks that the untouched one still resumes.
fn count_checkpoint_is_sealed(method: &str, other: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = out.to_str().unwrap();
    let base = [
        "count", "--rows", "4", "--cols", "5", "--method", method, "--out", o,
    ];
    let cp = out.join(format!("count-{method}.checkpoint"));
    // Another run's checkpoint (another board or options), in a directory of its own.
    let elsewhere = tmp.path().join("other");
    let e = elsewhere.to_str().unwrap();
    stopped_count(&[other, &["--method", method, "--out", e]].concat(), "3");
    let foreign = std::fs::read(elsewhere.join(format!("count-{method}.checkpoint"))).unwrap();
    stopped_count(&base, "5");
    let good = std::fs::read(&cp).unwrap();
    let resume = [&base[..], &["--resume"]].concat();
    assert_refused(&resume, &cp, &flip_middle(&good), &out, "a flipped byte");
    assert_refused(
        &resume,
        &cp,
        &flip_near_end(&good),
        &out,
        "a flipped byte near the end",
    );
    assert_refused(&resume, &cp, &truncate(&good), &out, "a truncated file");
    assert_refused(
        &resume,
        &cp,
        &good[..good.len() - 1],
        &out,
        "a lost last byte",
    );
    assert_refused(&resume, &cp, &foreign, &out, "another run's checkpoint");
    std::fs::write(&cp, &good).unwrap();
    let done = reversi(&resume);
    assert!(
        done.status.success(),
        "the good checkpoint resumes: {}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(String::from_utf8_lossy(&done.stdout).contains("taken from the checkpoint"));
    assert!(out.join("summary.json").exists());
}

#[test]
fn dp_checkpoint_is_sealed() {
    count_checkpoint_is_sealed("dp", &["count", "-n", "4", "--store", "memory"]);
}

#[test]
fn dfs_checkpoint_is_sealed() {
    count_checkpoint_is_sealed(
        "dfs",
        &["count", "--rows", "4", "--cols", "5", "--no-symmetry"],
    );
}

/// A deep perft run stopped by SIGINT once it is counting, which saves its checkpoint `cp`.
fn stopped_perft(args: &[&str], cp: &Path) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    // Merging at ply 4 takes milliseconds; by then it counts the deeper plies for many seconds.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(child.try_wait().unwrap().is_none(), "{args:?} ended early");
    // SAFETY: kill(2) on the pid of a child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("{args:?} still running 20 s after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.code(), Some(130), "{args:?}");
    assert!(cp.exists(), "{args:?} left no checkpoint");
}

#[test]
fn perft_checkpoint_is_sealed() {
    let tmp = tempfile::tempdir().unwrap();
    let cp = tmp.path().join("perft.checkpoint");
    let c = cp.to_str().unwrap();
    let deep = |depth: &'static str| -> Vec<&str> {
        vec![
            "perft",
            "-n",
            "8",
            "-d",
            depth,
            "--fast",
            "--yes",
            "--merge-ply",
            "4",
            "--memory",
            "64",
            "--hash-mb",
            "16",
            "--checkpoint",
            c,
        ]
    };
    stopped_perft(&deep("13"), &cp);
    let foreign = std::fs::read(&cp).unwrap();
    std::fs::remove_file(&cp).unwrap();
    stopped_perft(&deep("14"), &cp);
    let good = std::fs::read(&cp).unwrap();
    let resume = [&deep("14")[..], &["--resume"]].concat();
    let dir = tmp.path();
    assert_refused(&resume, &cp, &flip_middle(&good), dir, "a flipped byte");
    assert_refused(
        &resume,
        &cp,
        &flip_near_end(&good),
        dir,
        "a flipped byte near the end",
    );
    assert_refused(&resume, &cp, &truncate(&good), dir, "a truncated file");
    assert_refused(
        &resume,
        &cp,
        &good[..good.len() - 1],
        dir,
        "a lost last byte",
    );
    assert_refused(&resume, &cp, &foreign, dir, "another run's checkpoint");
    // Without --resume an existing checkpoint is refused too, as bad input.
    assert_refused(
        &deep("14"),
        &cp,
        &good,
        dir,
        "a fresh run over a checkpoint",
    );
}

/// The disk store's run directory under `tmp` (there is one).
fn disk_run(tmp: &Path) -> Option<std::path::PathBuf> {
    std::fs::read_dir(tmp)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.is_dir())
}

/// A disk-store count killed (`kill -9`) once its manifest is written; returns its run
/// directory.
fn killed_disk_count(args: &[&str], tmp: &Path) -> std::path::PathBuf {
    let mut child = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let t0 = Instant::now();
    let run = loop {
        if let Some(run) = disk_run(tmp).filter(|r| r.join("manifest.json").exists()) {
            break run;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "{args:?} finished before a manifest"
        );
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no manifest in 60 s"
        );
        std::thread::sleep(Duration::from_millis(2));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    run
}

#[test]
fn disk_store_manifest_is_sealed() {
    let tmp = tempfile::tempdir().unwrap();
    let (t1, t2) = (tmp.path().join("t1"), tmp.path().join("t2"));
    std::fs::create_dir_all(&t1).unwrap();
    std::fs::create_dir_all(&t2).unwrap();
    let out = tmp.path().join("out");
    let args = |board: &'static [&'static str], t: &Path| -> Vec<String> {
        let mut a: Vec<String> = [
            "count",
            "--store",
            "disk",
            "--memory",
            "3",
            "--threads",
            "1",
        ]
        .iter()
        .chain(board)
        .map(|s| s.to_string())
        .collect();
        a.extend(["--tmp-dir".into(), t.display().to_string()]);
        a.extend(["--out".into(), out.display().to_string()]);
        a
    };
    let strs = |a: &[String]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let other = args(&["-n", "4"], &t2);
    let other_run = killed_disk_count(&other.iter().map(String::as_str).collect::<Vec<_>>(), &t2);
    let foreign = std::fs::read(other_run.join("manifest.json")).unwrap();
    let mine = strs(&args(&["--rows", "4", "--cols", "5"], &t1));
    let mine: Vec<&str> = mine.iter().map(String::as_str).collect();
    let run = killed_disk_count(&mine, &t1);
    let manifest = run.join("manifest.json");
    let good = std::fs::read(&manifest).unwrap();
    let resume = [&mine[..], &["--resume"]].concat();
    // Nothing of the run is deleted or written either.
    assert_refused(
        &resume,
        &manifest,
        &flip_middle(&good),
        &t1,
        "a flipped byte",
    );
    assert_refused(
        &resume,
        &manifest,
        &truncate(&good),
        &t1,
        "a truncated manifest",
    );
    assert_refused(&resume, &manifest, &foreign, &t1, "another run's manifest");
    assert!(!out.join("summary.json").exists(), "no results");
    std::fs::write(&manifest, &good).unwrap();
    let done = reversi(&resume);
    assert!(
        done.status.success(),
        "the good manifest resumes: {}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(out.join("summary.json").exists());
}

#[test]
fn dataflow_disk_state_is_sealed() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("t");
    std::fs::create_dir_all(&t).unwrap();
    let out = tmp.path().join("out");
    let (ts, os) = (t.display().to_string(), out.display().to_string());
    let args = [
        "count",
        "--rows",
        "4",
        "--cols",
        "5",
        "--workers",
        "2",
        "--store",
        "disk",
        "--memory",
        "8",
        "--tmp-dir",
        &ts,
        "--out",
        &os,
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let t0 = Instant::now();
    // Both workers must have saved a state for the good one to resume.
    let (state, other) = loop {
        if let Some(run) = disk_run(&t) {
            let [a, b] = ["w0000-of-0002", "w0001-of-0002"].map(|w| run.join(w).join("state.json"));
            if a.exists() && b.exists() {
                break (a, b);
            }
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before a state was saved"
        );
        assert!(t0.elapsed() < Duration::from_secs(60), "no state in 60 s");
        std::thread::sleep(Duration::from_millis(2));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let good = std::fs::read(&state).unwrap();
    let resume = [&args[..], &["--resume"]].concat();
    assert_refused(&resume, &state, &flip_middle(&good), &t, "a flipped byte");
    assert_refused(&resume, &state, &truncate(&good), &t, "a truncated state");
    // The other worker's state, whole and of this run, in the first worker's place.
    let swapped = std::fs::read(&other).unwrap();
    assert_refused(&resume, &state, &swapped, &t, "the other worker's state");
    std::fs::write(&state, &good).unwrap();
    let done = reversi(&resume);
    assert!(
        done.status.success(),
        "the good state resumes: {}",
        String::from_utf8_lossy(&done.stderr)
    );
}

/// Copies the directory `from` into `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

#[test]
fn report_checks_the_results_it_reuses() {
    // `reversi report` reuses the files of results/: a count whose figures do not add up, or a
    // solution whose principal variation does not replay to its value, is refused by name
    // rather than shown in the summary. The committed results pass the same checks.
    let tmp = tempfile::tempdir().unwrap();
    let (results, plots) = (tmp.path().join("results"), tmp.path().join("plots"));
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("results"),
        &results,
    );
    let (r, p) = (results.display().to_string(), plots.display().to_string());
    let report = || reversi(&["report", "--results", &r, "--plots", &p]);
    let ok = report();
    assert!(
        ok.status.success(),
        "the committed results pass: {}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let edit = |file: &str, change: &dyn Fn(&mut serde_json::Value)| {
        let path = results.join(file);
        let good = std::fs::read(&path).unwrap();
        let mut v: serde_json::Value = serde_json::from_slice(&good).unwrap();
        change(&mut v);
        std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
        let out = report();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {err}");
        let last = err.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("Error: ") && last.contains(&path.display().to_string()),
            "{file}: names the file: {err}"
        );
        std::fs::write(&path, good).unwrap();
        last.to_string()
    };
    let games = |v: &mut serde_json::Value| {
        v["games"] = (v["games"].as_u64().unwrap() + 1).into();
    };
    assert!(edit("4x5/summary.json", &games).contains("add up to"));
    let value = |v: &mut serde_json::Value| {
        v["value"] = (v["value"].as_i64().unwrap() + 2).into();
    };
    assert!(edit("5x5/solution.json", &value).contains("is worth"));
    assert!(edit("5x8/solution-winner-takes-empties.json", &value).contains("is worth"));
    let pv = |v: &mut serde_json::Value| {
        let pv = v["pv"].as_array_mut().unwrap();
        pv.truncate(pv.len() - 1);
    };
    assert!(edit("6x6/solution.json", &pv).contains("stops before the end"));
    assert!(report().status.success(), "restored, they pass again");
}
