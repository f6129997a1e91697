//! End-to-end tests of the PNG charts: they decode, have the expected size, are not blank,
//! carry text drawn with the bundled font, and `reversi plot` renders a results tree.

mod common;

use std::path::Path;
use std::process::Command;

use reversi_nxn::board::Shape;
use reversi_nxn::export::plot::{
    length_histogram, margin_histogram, margins, perft_chart, score_heatmap, HeatmapTitle,
    CHART_SIZE, HEATMAP_SIZE,
};

/// Decodes a PNG into (width, height, RGB pixels).
fn decode(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("png exists"));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png frame");
    assert_eq!(info.color_type, png::ColorType::Rgb, "{}", path.display());
    let px = buf[..info.buffer_size()]
        .chunks(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (info.width, info.height, px)
}

/// Checks size, that the image is not blank, and that its top band (the title) has dark
/// pixels: text was drawn, so the bundled font loaded.
fn check_png(path: &Path, size: (u32, u32)) {
    let (w, h, px) = decode(path);
    assert_eq!((w, h), size, "{}", path.display());
    let non_white = px.iter().filter(|p| **p != [255, 255, 255]).count();
    assert!(
        non_white > px.len() / 50,
        "{} is nearly blank",
        path.display()
    );
    let title_dark = px[..(w * 45) as usize]
        .iter()
        .filter(|p| p.iter().all(|&c| c < 100))
        .count();
    assert!(title_dark > 200, "{} has no title text", path.display());
}

/// The exact 4x4 games from the start (60,060 of them: REFERENCE.md, blog 2008-03-29).
fn four_by_four() -> common::Games {
    let g = common::Games::from(&Shape::square(4).unwrap().start());
    assert_eq!(g.total, 60_060);
    g
}

#[test]
fn heatmap_renders_with_text_and_colour_bar() {
    let g = four_by_four();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("4x4-scores.png");
    let title = HeatmapTitle {
        board: "4x4",
        total: "60,060",
        subject: "exact count",
    };
    score_heatmap(&path, &g.matrix(16), &title).unwrap();
    check_png(&path, HEATMAP_SIZE);
    // The colour bar (right-hand strip) holds the darkest and brightest ends of the scale.
    let (w, _, px) = decode(&path);
    let strip: Vec<[u8; 3]> = px
        .chunks(w as usize)
        .flat_map(|row| row[(w as usize - 170)..].to_vec())
        .collect();
    assert!(strip.contains(&[253, 231, 37]) || strip.iter().any(|p| p[0] > 240 && p[2] < 60));
    assert!(strip.iter().any(|p| p[0] < 80 && p[1] < 20 && p[2] > 70));
}

#[test]
fn histograms_and_perft_chart_render() {
    let g = four_by_four();
    let dir = tempfile::tempdir().unwrap();
    let m = margins(&g.matrix(16));
    let lengths: Vec<(u32, u128)> = g.lengths.iter().map(|(&l, &n)| (l, n)).collect();
    for log in [false, true] {
        let p = dir.path().join(format!("margin-{log}.png"));
        margin_histogram(&p, "4x4", &m, log).unwrap();
        check_png(&p, CHART_SIZE);
        let p = dir.path().join(format!("lengths-{log}.png"));
        length_histogram(&p, "4x4", &lengths, log).unwrap();
        check_png(&p, CHART_SIZE);
    }
    // OEIS A124004, the first eight plies of 8x8 perft (REFERENCE.md).
    let plies: Vec<(u32, u128)> = [4, 12, 56, 244, 1396, 8200, 55_092, 390_216]
        .iter()
        .enumerate()
        .map(|(i, &g)| (i as u32 + 1, g))
        .collect();
    let p = dir.path().join("perft.png");
    perft_chart(&p, "8x8", &plies).unwrap();
    check_png(&p, CHART_SIZE);
}

#[test]
fn empty_data_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let title = HeatmapTitle {
        board: "3x3",
        total: "0",
        subject: "exact count",
    };
    assert!(score_heatmap(&dir.path().join("x.png"), &vec![vec![0; 10]; 10], &title).is_err());
    assert!(margin_histogram(&dir.path().join("y.png"), "3x3", &[], true).is_err());
}

/// Writes `results/4x4/` fixtures in the format of `reversi count` and `reversi perft`, from
/// the slow enumerator.
fn write_fixtures(results: &Path) {
    let g = four_by_four();
    let dir = results.join("4x4");
    std::fs::create_dir_all(&dir).unwrap();
    let m = g.matrix(16);
    let mut csv = String::from("black\\white");
    for w in 0..=16 {
        csv += &format!(",{w}");
    }
    csv.push('\n');
    for (b, row) in m.iter().enumerate() {
        csv += &b.to_string();
        for c in row {
            csv += &format!(",{c}");
        }
        csv.push('\n');
    }
    std::fs::write(dir.join("score_matrix.csv"), csv).unwrap();
    let mut lengths = String::from("placements,games\n");
    for (l, n) in &g.lengths {
        lengths += &format!("{l},{n}\n");
    }
    std::fs::write(dir.join("lengths.csv"), lengths).unwrap();
    std::fs::write(
        dir.join("perft.csv"),
        "ply,games,ended\n1,4,0\n2,12,0\n3,56,0\n4,244,0\n",
    )
    .unwrap();
    // An estimate, written by the tool itself.
    let out = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(["estimate", "-n", "4", "--samples", "5000", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    // A folder that is not a board, and a board with nothing plottable: both skipped.
    std::fs::create_dir_all(results.join("notes")).unwrap();
    std::fs::create_dir_all(results.join("5x5")).unwrap();
}

#[test]
fn plot_command_renders_every_chart() {
    let dir = tempfile::tempdir().unwrap();
    let (results, plots) = (dir.path().join("results"), dir.path().join("plots"));
    write_fixtures(&results);
    let out = Command::new(env!("CARGO_BIN_EXE_reversi"))
        .args(["plot", "--results"])
        .arg(&results)
        .arg("--plots")
        .arg(&plots)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(listed.lines().count(), 7, "{listed}");
    check_png(&plots.join("4x4-scores.png"), HEATMAP_SIZE);
    check_png(&plots.join("4x4-estimate-scores.png"), HEATMAP_SIZE);
    for what in [
        "margin",
        "lengths",
        "perft",
        "estimate-margin",
        "estimate-lengths",
    ] {
        check_png(&plots.join(format!("4x4-{what}.png")), CHART_SIZE);
    }
    // Keep a copy to look at when asked (REVERSI_PLOT_KEEP=dir).
    if let Ok(keep) = std::env::var("REVERSI_PLOT_KEEP") {
        std::fs::create_dir_all(&keep).unwrap();
        for e in std::fs::read_dir(&plots).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), Path::new(&keep).join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn plot_command_rejects_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let run = |results: &Path| {
        Command::new(env!("CARGO_BIN_EXE_reversi"))
            .args(["plot", "--results"])
            .arg(results)
            .arg("--plots")
            .arg(dir.path().join("plots"))
            .output()
            .unwrap()
    };
    // No such directory: a user mistake, exit 2, one line.
    let out = run(&dir.path().join("missing"));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
    // A malformed matrix: an error naming the file, no panic.
    let bad = dir.path().join("bad");
    std::fs::create_dir_all(bad.join("4x4")).unwrap();
    std::fs::write(
        bad.join("4x4/score_matrix.csv"),
        "black\\white,0,1\n0,1,x\n",
    )
    .unwrap();
    let out = run(&bad);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("score_matrix.csv") && !err.contains("panicked"),
        "{err}"
    );
}
