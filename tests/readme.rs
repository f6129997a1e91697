//! The README's summary table is exactly what `reversi report` wrote to `results/summary.md`,
//! and the README starts with its two commands.

const START: &str = "<!-- summary:start (written by `reversi report`) -->";
const END: &str = "<!-- summary:end -->";

fn repo_file(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn readme_table_equals_results_summary() {
    let readme = repo_file("README.md");
    let a = readme.find(START).expect("summary start marker") + START.len();
    let b = readme.find(END).expect("summary end marker");
    let table = readme[a..b].trim();
    let summary = repo_file("results/summary.md");
    assert!(
        !table.is_empty(),
        "the README's summary table is empty: run `reversi report --readme README.md`"
    );
    assert_eq!(
        table,
        summary.trim(),
        "README table differs from results/summary.md: run `reversi report --readme README.md`"
    );
    // Every board row names a board whose results directory exists.
    for line in summary.lines().skip(2).take_while(|l| l.starts_with('|')) {
        let board = line
            .trim_start_matches('|')
            .split('|')
            .next()
            .unwrap()
            .trim();
        assert!(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("results")
                .join(board)
                .is_dir(),
            "no results/{board}"
        );
    }
}

#[test]
fn readme_opens_with_the_two_commands() {
    let readme = repo_file("README.md");
    let first_block: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("```"))
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .collect();
    assert!(first_block[0].starts_with("cargo run --release -- report"));
    assert!(first_block[1].starts_with("cargo test"));
    let ci = repo_file(".ci/run");
    assert!(
        ci.contains("cargo test"),
        ".ci/run must run the README's test command"
    );
}

/// `results/README.md` is the index `reversi report` writes from the files present, and every
/// file of `results/` and `plots/` is of a kind it describes.
#[test]
fn results_index_is_current_and_complete() {
    use reversi_nxn::export::index;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = index::files(&root.join("results"), &root.join("plots")).unwrap();
    assert_eq!(
        index::unknown(&files),
        Vec::<String>::new(),
        "files of no known kind: describe them in src/export/index.rs"
    );
    assert_eq!(
        repo_file("results/README.md"),
        index::index(&files),
        "results/README.md is not current: run `reversi report` (or `reversi report --index-only`)"
    );
}
