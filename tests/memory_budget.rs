//! End-to-end: `--memory` bounds the peak resident memory of a count, whether it finishes or
//! refuses a layer that would not fit (every large allocation is budgeted before it is made).
//! The bound is the budget plus a fixed overhead of [`OVERHEAD_MIB`] (the program, thread
//! stacks, the score tallies). Peak RSS is the child's `ru_maxrss`, read with `wait4`.

use std::process::{Command, Stdio};

/// What a run may hold beyond its `--memory`.
const OVERHEAD_MIB: u64 = reversi_nxn::memory::FIXED_OVERHEAD >> 20;

/// Runs `reversi ARGS --memory BUDGET --no-files` and returns its exit code, stderr and peak
/// RSS in MiB.
fn run(args: &[&str], budget_mib: u64) -> (i32, String, u64) {
    let budget = budget_mib.to_string();
    run_as(
        &[args, &["--memory", &budget, "--no-files"]].concat(),
        budget_mib,
    )
}

/// Runs `reversi ARGS` and returns its exit code, stderr and peak RSS in MiB.
// The child is reaped by wait4 (for its rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn run_as(args: &[&str], budget_mib: u64) -> (i32, String, u64) {
    let err_path = std::env::temp_dir().join(format!(
        "reversi-memory-{}-{budget_mib}-{}.err",
        std::process::id(),
        args.join("_").replace(['/', ' '], "-")
    ));
    let err_file = std::fs::File::create(&err_path).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err_file)
        .spawn()
        .expect("the binary runs");
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on the pid of a child this test started and has not reaped.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    assert!(libc::WIFEXITED(status), "{args:?} did not exit normally");
    let err = std::fs::read_to_string(&err_path).unwrap();
    let _ = std::fs::remove_file(&err_path);
    // ru_maxrss is in KiB on Linux.
    (
        libc::WEXITSTATUS(status),
        err,
        (usage.ru_maxrss as u64).div_ceil(1024),
    )
}

fn within(args: &[&str], budget_mib: u64) -> (i32, String) {
    let (code, err, rss) = run(args, budget_mib);
    assert!(
        rss <= budget_mib + OVERHEAD_MIB,
        "{args:?} --memory {budget_mib}: peak RSS {rss} MiB ({err})"
    );
    (code, err)
}

fn refused_within(args: &[&str], budget_mib: u64) {
    let (code, err) = within(args, budget_mib);
    assert_eq!(code, 2, "{args:?} --memory {budget_mib}: {err}");
    assert!(
        err.contains(&format!("more than the budget of {budget_mib} MiB")),
        "{err}"
    );
}

#[test]
fn six_by_six_is_refused_before_the_budget_is_exceeded() {
    // 6x6 grows past any of these budgets within seconds (its layer of 17 discs needs several
    // GiB); it used to reach 9.4 GB of RSS under a budget of 4 GiB before refusing.
    for budget in [256, 1024, 4096] {
        refused_within(&["count", "-n", "6", "--store", "memory", "--yes"], budget);
    }
}

#[test]
fn five_by_five_under_small_budgets() {
    for budget in [256, 1024] {
        refused_within(&["count", "-n", "5", "--store", "memory"], budget);
    }
    // The disk store under a small budget finishes within it.
    let (code, err) = within(&["count", "--rows", "4", "--cols", "5"], 64);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn the_solver_holds_its_table_and_little_more() {
    // The transposition table is the solver's one large allocation, of --hash-mb MiB.
    for hash in [16, 128] {
        let h = hash.to_string();
        let (code, err, rss) = run_as(&["solve", "-n", "5", "--hash-mb", &h], hash);
        assert_eq!(code, 0, "{err}");
        assert!(
            rss <= hash + OVERHEAD_MIB,
            "--hash-mb {hash}: peak RSS {rss} MiB"
        );
    }
}

/// The whole 5x5 count in memory within 4 GiB (about two minutes on two cores):
/// `cargo test --release --test memory_budget -- --ignored`.
#[test]
#[ignore]
fn five_by_five_finishes_within_four_gib() {
    let (code, err) = within(&["count", "-n", "5", "--store", "memory"], 4096);
    assert_eq!(code, 0, "{err}");
}
