//! PNG charts drawn with `plotters` and a bundled font: score heatmaps, histograms, games per ply.
//!
//! Text is drawn with DejaVu Sans, compiled into the binary (`assets/fonts/`, Bitstream Vera
//! licence, see `assets/fonts/LICENSE-DejaVu.txt`) and handed to plotters' `ab_glyph` renderer,
//! so the charts need no system font and no fontconfig: they render the same on a bare machine.
//!
//! Logarithmic scales are drawn on `log10` of the values with ticks at whole powers of ten
//! labelled `1, 10, 100, 1000, 10⁴, 10⁵, ...`; zero counts have no logarithm and are left
//! blank (heatmap) or undrawn (bars).

use std::ops::Range;
use std::path::Path;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::prelude::*;
use plotters::style::FontStyle;

pub use super::draw::PlotError;
use super::draw::{draw_err, fonts, FONT};

/// Width and height of a heatmap image, in pixels.
pub const HEATMAP_SIZE: (u32, u32) = (960, 800);
/// Width and height of a histogram or per-ply chart, in pixels.
pub const CHART_SIZE: (u32, u32) = (960, 600);

/// `n` with commas between groups of three digits: `189,174,688,641`.
///
/// # Examples
///
/// ```
/// assert_eq!(reversi_nxn::export::plot::thousands(60_060), "60,060");
/// ```
#[must_use]
pub fn thousands(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The label of the tick at `10^e`: plain up to 1000, then `10⁴`, `10⁵`, ...
fn power_label(e: f64) -> String {
    let e = e.round() as i32;
    if (0..=3).contains(&e) {
        return 10u32.pow(e as u32).to_string();
    }
    const SUP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut s = String::from("10");
    if e < 0 {
        s.push('⁻');
    }
    for d in e.unsigned_abs().to_string().bytes() {
        s.push(SUP[(d - b'0') as usize]);
    }
    s
}

/// Whole numbers from `lo` to `hi` spaced so that there are at most about `max` of them.
fn int_ticks(lo: i64, hi: i64, max: usize) -> Vec<i64> {
    let span = (hi - lo).max(1) as f64;
    let mut step = 1i64;
    for s in [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] {
        step = s;
        if span / s as f64 <= max as f64 {
            break;
        }
    }
    let first = lo.div_euclid(step) * step;
    (0..)
        .map(|i| first + i * step)
        .skip_while(|&t| t < lo)
        .take_while(|&t| t <= hi)
        .collect()
}

/// Power-of-ten ticks over `lo..=hi` (both log10 values), thinned to at most about 12.
fn power_ticks(lo: f64, hi: f64) -> Vec<f64> {
    int_ticks(lo.floor() as i64, hi.ceil() as i64, 12)
        .into_iter()
        .map(|t| t as f64)
        .collect()
}

/// A linear `f64` axis whose ticks are exactly the given values (plotters' own key points on
/// `f64` ranges fall between whole numbers, and its `with_key_points` loses the label
/// formatter).
#[derive(Debug, Clone)]
struct Axis {
    range: Range<f64>,
    ticks: Vec<f64>,
}

impl Axis {
    fn new(range: Range<f64>, ticks: Vec<f64>) -> Axis {
        Axis { range, ticks }
    }
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let t = (v - self.range.start) / (self.range.end - self.range.start);
        limit.0 + (f64::from(limit.1 - limit.0) * t).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

/// The colour at `t` in `0..=1` along the viridis map (dark purple to yellow), interpolated
/// between nine of its published anchor colours.
fn viridis(t: f64) -> RGBColor {
    const ANCHORS: [(u8, u8, u8); 9] = [
        (68, 1, 84),
        (71, 44, 122),
        (59, 81, 139),
        (44, 113, 142),
        (33, 144, 141),
        (39, 173, 129),
        (92, 200, 99),
        (170, 220, 50),
        (253, 231, 37),
    ];
    let t = t.clamp(0.0, 1.0) * (ANCHORS.len() - 1) as f64;
    let i = (t.floor() as usize).min(ANCHORS.len() - 2);
    let f = t - i as f64;
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * f).round() as u8;
    let (a, b) = (ANCHORS[i], ANCHORS[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// The text of a heatmap's title.
#[derive(Debug, Clone)]
pub struct HeatmapTitle<'a> {
    /// Board name, such as `4x4`.
    pub board: &'a str,
    /// Total games as printed in the title, such as `60,060` ([`thousands`]) or `≈ 2.85e22`.
    pub total: &'a str,
    /// What was counted, such as `all games from the start` or `games after c2`.
    pub subject: &'a str,
}

/// Draws the final-score heatmap: black discs on x, white discs on y, one cell per score
/// coloured by the number of games on a logarithmic scale, with a colour bar.
///
/// `matrix[b][w]` is the number of games ending with `b` black and `w` white discs (rows =
/// black count, columns = white count; rows may differ in length). Cells with no game stay
/// white.
///
/// # Errors
///
/// [`PlotError::Empty`] if every count is zero, [`PlotError::Draw`] if the file cannot be
/// written.
pub fn score_heatmap(
    path: &Path,
    matrix: &[Vec<u128>],
    title: &HeatmapTitle<'_>,
) -> Result<(), PlotError> {
    let cells: Vec<Vec<f64>> = matrix
        .iter()
        .map(|row| row.iter().map(|&c| c as f64).collect())
        .collect();
    heatmap(path, &cells, title)
}

/// [`score_heatmap`] for estimated (fractional) counts, such as an estimate's score
/// distribution.
///
/// # Errors
///
/// As [`score_heatmap`].
pub fn score_heatmap_f64(
    path: &Path,
    matrix: &[Vec<f64>],
    title: &HeatmapTitle<'_>,
) -> Result<(), PlotError> {
    heatmap(path, matrix, title)
}

fn heatmap(path: &Path, m: &[Vec<f64>], title: &HeatmapTitle<'_>) -> Result<(), PlotError> {
    fonts()?;
    let err = draw_err(path);
    let max = m.iter().flatten().copied().fold(0.0f64, f64::max);
    if max <= 0.0 {
        return Err(PlotError::Empty(format!("{} score matrix", title.board)));
    }
    let min = m
        .iter()
        .flatten()
        .copied()
        .filter(|&c| c > 0.0)
        .fold(f64::INFINITY, f64::min);
    // The colour scale runs over whole powers of ten around the data, at least one decade
    // (from 1 unless an estimate puts a score below one game).
    let lo = min.log10().floor().min(0.0);
    let hi = max.log10().ceil().max(lo + 1.0);
    let colour = |c: f64| viridis((c.log10() - lo) / (hi - lo));

    let black_max = m.len().saturating_sub(1) as i64;
    let white_max = m.iter().map(Vec::len).max().unwrap_or(1).saturating_sub(1) as i64;
    let side = black_max.max(white_max);

    let root = BitMapBackend::new(path, HEATMAP_SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(&err)?;
    let heading = format!(
        "{} Reversi: {} games — final scores ({})",
        title.board, title.total, title.subject
    );
    let root = root
        .titled(&heading, (FONT, 24).into_font().style(FontStyle::Bold))
        .map_err(&err)?;
    let (main, bar) = root.split_horizontally(HEATMAP_SIZE.0 - 170);

    let ticks: Vec<f64> = int_ticks(0, side, 16)
        .into_iter()
        .map(|t| t as f64)
        .collect();
    let mut chart = ChartBuilder::on(&main)
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(60)
        .build_cartesian_2d(
            Axis::new(-0.5..side as f64 + 0.5, ticks.clone()),
            Axis::new(-0.5..side as f64 + 0.5, ticks),
        )
        .map_err(&err)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("black discs at the end")
        .y_desc("white discs at the end")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .label_style((FONT, 16))
        .axis_desc_style((FONT, 18))
        .draw()
        .map_err(&err)?;
    // The scores a game can end with lie on or below the diagonal b + w = squares: draw it
    // faintly as a guide.
    chart
        .draw_series(LineSeries::new(
            [(-0.5, side as f64 + 0.5), (side as f64 + 0.5, -0.5)],
            RGBColor(200, 200, 200).stroke_width(1),
        ))
        .map_err(&err)?;
    chart
        .draw_series(m.iter().enumerate().flat_map(|(b, row)| {
            row.iter()
                .enumerate()
                .filter(|(_, &c)| c > 0.0)
                .map(move |(w, &c)| {
                    let (x, y) = (b as f64, w as f64);
                    Rectangle::new([(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)], colour(c).filled())
                })
        }))
        .map_err(&err)?;

    // The colour bar: a column of thin bands from 10^lo to 10^hi, labelled at powers of ten.
    let mut cb = ChartBuilder::on(&bar)
        .margin_top(44)
        .margin_bottom(62)
        .margin_left(20)
        .set_label_area_size(LabelAreaPosition::Right, 80)
        .build_cartesian_2d(0.0..1.0, Axis::new(lo..hi, power_ticks(lo, hi)))
        .map_err(&err)?;
    cb.configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_label_formatter(&|v| power_label(*v))
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 18))
        .draw()
        .map_err(&err)?;
    bar.draw_text("games", &(FONT, 18).into_text_style(&bar), (20, 12))
        .map_err(&err)?;
    let bands = 200;
    cb.draw_series((0..bands).map(|i| {
        let a = lo + (hi - lo) * f64::from(i) / f64::from(bands);
        let b = lo + (hi - lo) * f64::from(i + 1) / f64::from(bands);
        let mid = 10f64.powf((a + b) / 2.0);
        Rectangle::new([(0.0, a), (1.0, b)], colour(mid).filled())
    }))
    .map_err(&err)?;
    root.present().map_err(&err)?;
    Ok(())
}

/// A bar chart of counts per whole-number value (a histogram with unit bins).
#[derive(Debug, Clone)]
pub struct Histogram<'a> {
    /// Chart title.
    pub title: &'a str,
    /// Label of the x axis.
    pub x_label: &'a str,
    /// Label of the y axis.
    pub y_label: &'a str,
    /// `(value, count)` pairs, in any order; zero counts are allowed.
    pub bars: &'a [(i64, f64)],
    /// Draw the counts on a logarithmic scale.
    pub log_y: bool,
}

/// Draws a [`Histogram`] to a PNG of [`CHART_SIZE`].
///
/// # Errors
///
/// [`PlotError::Empty`] if no count is positive, [`PlotError::Draw`] if the file cannot be
/// written.
pub fn histogram(path: &Path, h: &Histogram<'_>) -> Result<(), PlotError> {
    fonts()?;
    let err = draw_err(path);
    let bars: Vec<(i64, f64)> = h.bars.iter().copied().filter(|&(_, c)| c > 0.0).collect();
    if bars.is_empty() {
        return Err(PlotError::Empty(h.title.to_string()));
    }
    let xmin = bars.iter().map(|b| b.0).min().unwrap_or(0);
    let xmax = bars.iter().map(|b| b.0).max().unwrap_or(0);
    let cmax = bars.iter().map(|b| b.1).fold(0.0, f64::max);
    let cmin = bars.iter().map(|b| b.1).fold(f64::INFINITY, f64::min);
    let xticks: Vec<f64> = int_ticks(xmin, xmax, 20)
        .into_iter()
        .map(|t| t as f64)
        .collect();
    let xrange = Axis::new(xmin as f64 - 0.7..xmax as f64 + 0.7, xticks);

    let root = BitMapBackend::new(path, CHART_SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(&err)?;
    let fill = RGBColor(49, 104, 142).filled();
    if h.log_y {
        let lo = cmin.log10().floor().min(0.0);
        let hi = (cmax.log10().ceil()).max(lo + 1.0);
        let mut chart = ChartBuilder::on(&root)
            .caption(h.title, (FONT, 24).into_font().style(FontStyle::Bold))
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .build_cartesian_2d(xrange, Axis::new(lo..hi, power_ticks(lo, hi)))
            .map_err(&err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc(h.x_label)
            .y_desc(format!("{} (log scale)", h.y_label))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| power_label(*v))
            .light_line_style(WHITE)
            .label_style((FONT, 16))
            .axis_desc_style((FONT, 18))
            .draw()
            .map_err(&err)?;
        chart
            .draw_series(bars.iter().map(|&(v, c)| {
                let x = v as f64;
                Rectangle::new([(x - 0.4, lo), (x + 0.4, c.log10())], fill)
            }))
            .map_err(&err)?;
    } else {
        let mut chart = ChartBuilder::on(&root)
            .caption(h.title, (FONT, 24).into_font().style(FontStyle::Bold))
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(110)
            .build_cartesian_2d(xrange, 0.0..cmax * 1.05)
            .map_err(&err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc(h.x_label)
            .y_desc(h.y_label)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| count_label(*v))
            .light_line_style(WHITE)
            .label_style((FONT, 16))
            .axis_desc_style((FONT, 18))
            .draw()
            .map_err(&err)?;
        chart
            .draw_series(bars.iter().map(|&(v, c)| {
                let x = v as f64;
                Rectangle::new([(x - 0.4, 0.0), (x + 0.4, c)], fill)
            }))
            .map_err(&err)?;
    }
    root.present().map_err(&err)?;
    Ok(())
}

/// A linear-axis count: whole numbers with commas below a billion, else `1.5e12`.
fn count_label(v: f64) -> String {
    if v.abs() < 1e9 {
        thousands(v.round().max(0.0) as u128)
    } else {
        format!("{v:.1e}")
    }
}

/// Draws the histogram of final margins (black discs minus white discs) from `(margin,
/// games)` pairs.
///
/// # Errors
///
/// As [`histogram`].
pub fn margin_histogram(
    path: &Path,
    board: &str,
    bars: &[(i64, u128)],
    log_y: bool,
) -> Result<(), PlotError> {
    let bars: Vec<(i64, f64)> = bars.iter().map(|&(v, c)| (v, c as f64)).collect();
    let title = format!("{board} Reversi: final margin");
    histogram(
        path,
        &Histogram {
            title: &title,
            x_label: "black discs − white discs at the end",
            y_label: "games",
            bars: &bars,
            log_y,
        },
    )
}

/// Draws the histogram of game lengths from `(placements, games)` pairs.
///
/// # Errors
///
/// As [`histogram`].
pub fn length_histogram(
    path: &Path,
    board: &str,
    bars: &[(u32, u128)],
    log_y: bool,
) -> Result<(), PlotError> {
    let bars: Vec<(i64, f64)> = bars
        .iter()
        .map(|&(v, c)| (i64::from(v), c as f64))
        .collect();
    let title = format!("{board} Reversi: game length");
    histogram(
        path,
        &Histogram {
            title: &title,
            x_label: "placements (passes not counted)",
            y_label: "games",
            bars: &bars,
            log_y,
        },
    )
}

/// Draws games per ply (from a perft table: `(ply, games)` pairs) as a line on a logarithmic
/// y axis.
///
/// # Errors
///
/// [`PlotError::Empty`] if no count is positive, [`PlotError::Draw`] if the file cannot be
/// written.
pub fn perft_chart(path: &Path, board: &str, plies: &[(u32, u128)]) -> Result<(), PlotError> {
    fonts()?;
    let err = draw_err(path);
    let pts: Vec<(f64, f64)> = plies
        .iter()
        .filter(|&&(_, g)| g > 0)
        .map(|&(p, g)| (f64::from(p), (g as f64).log10()))
        .collect();
    if pts.is_empty() {
        return Err(PlotError::Empty(format!("{board} perft table")));
    }
    let xmin = plies.iter().map(|p| p.0).min().unwrap_or(0);
    let xmax = plies.iter().map(|p| p.0).max().unwrap_or(1).max(xmin + 1);
    let hi = pts.iter().map(|p| p.1).fold(0.0, f64::max).ceil().max(1.0);
    let xticks: Vec<f64> = int_ticks(i64::from(xmin), i64::from(xmax), 20)
        .into_iter()
        .map(|t| t as f64)
        .collect();

    let root = BitMapBackend::new(path, CHART_SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(&err)?;
    let title = format!("{board} Reversi: games per ply (perft)");
    let mut chart = ChartBuilder::on(&root)
        .caption(&title, (FONT, 24).into_font().style(FontStyle::Bold))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(
            Axis::new(f64::from(xmin) - 0.5..f64::from(xmax) + 0.5, xticks),
            Axis::new(0.0..hi, power_ticks(0.0, hi)),
        )
        .map_err(&err)?;
    chart
        .configure_mesh()
        .x_desc("ply (a pass uses a ply)")
        .y_desc("games in progress or just ended (log scale)")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| power_label(*v))
        .label_style((FONT, 16))
        .axis_desc_style((FONT, 18))
        .light_line_style(WHITE)
        .draw()
        .map_err(&err)?;
    let line = RGBColor(49, 104, 142);
    chart
        .draw_series(LineSeries::new(pts.iter().copied(), line.stroke_width(2)))
        .map_err(&err)?;
    chart
        .draw_series(pts.iter().map(|&p| Circle::new(p, 4, line.filled())))
        .map_err(&err)?;
    root.present().map_err(&err)?;
    Ok(())
}

/// Reads `score_matrix.csv`: a header `black\white,0,1,...,S`, then one row `b,count,...`
/// per black count. Returns `matrix[b][w]`.
///
/// # Errors
///
/// [`PlotError::Read`] if the file is missing or malformed.
pub fn read_score_matrix(path: &Path) -> Result<Vec<Vec<u128>>, PlotError> {
    let bad = |message: String| PlotError::Read {
        path: path.display().to_string(),
        message,
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_path(path)
        .map_err(|e| bad(e.to_string()))?;
    let header = reader.headers().map_err(|e| bad(e.to_string()))?.clone();
    let whites: Vec<usize> = header
        .iter()
        .skip(1)
        .map(|h| h.trim().parse::<usize>())
        .collect::<Result<_, _>>()
        .map_err(|e| bad(format!("header: {e}")))?;
    let width = whites.iter().max().map_or(0, |&w| w + 1);
    let mut matrix: Vec<Vec<u128>> = Vec::new();
    for (line, record) in reader.records().enumerate() {
        let record = record.map_err(|e| bad(e.to_string()))?;
        let at = |e: std::num::ParseIntError| bad(format!("row {}: {e}", line + 2));
        let b: usize = record.get(0).unwrap_or("").trim().parse().map_err(at)?;
        if b > 64 {
            return Err(bad(format!("row {}: {b} black discs", line + 2)));
        }
        if matrix.len() <= b {
            matrix.resize(b + 1, vec![0; width]);
        }
        for (cell, &w) in record.iter().skip(1).zip(&whites) {
            matrix[b][w] = cell.trim().parse().map_err(at)?;
        }
    }
    Ok(matrix)
}

/// Reads a two-column CSV of whole numbers with a header (`placements,games`, or the first
/// two columns of `ply,games,ended`).
///
/// # Errors
///
/// [`PlotError::Read`] if the file is missing or malformed.
pub fn read_pairs(path: &Path) -> Result<Vec<(u32, u128)>, PlotError> {
    let bad = |message: String| PlotError::Read {
        path: path.display().to_string(),
        message,
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_path(path)
        .map_err(|e| bad(e.to_string()))?;
    let mut out = Vec::new();
    for (line, record) in reader.records().enumerate() {
        let record = record.map_err(|e| bad(e.to_string()))?;
        let field = |i: usize| record.get(i).unwrap_or("").trim().to_string();
        let at = |e: std::num::ParseIntError| bad(format!("row {}: {e}", line + 2));
        out.push((field(0).parse().map_err(at)?, field(1).parse().map_err(at)?));
    }
    Ok(out)
}

/// Games per final margin (black − white), from a score matrix.
#[must_use]
pub fn margins(matrix: &[Vec<u128>]) -> Vec<(i64, u128)> {
    let mut by_margin = std::collections::BTreeMap::new();
    for (b, row) in matrix.iter().enumerate() {
        for (w, &c) in row.iter().enumerate() {
            if c > 0 {
                *by_margin.entry(b as i64 - w as i64).or_insert(0u128) += c;
            }
        }
    }
    by_margin.into_iter().collect()
}

/// Whether counts spread over more than three orders of magnitude (then a log scale shows
/// the rare values that a linear one flattens to nothing).
#[must_use]
pub fn wants_log_scale(counts: impl IntoIterator<Item = u128>) -> bool {
    let (mut lo, mut hi) = (u128::MAX, 0u128);
    for c in counts.into_iter().filter(|&c| c > 0) {
        lo = lo.min(c);
        hi = hi.max(c);
    }
    hi > 0 && hi / lo >= 1000
}

/// Renders every chart that the files in `results/<R>x<C>/` allow into `plots`:
/// `<R>x<C>-scores.png` and `<R>x<C>-margin.png` from `score_matrix.csv`,
/// `<R>x<C>-lengths.png` from `lengths.csv`, `<R>x<C>-perft.png` from `perft.csv`, and
/// `<R>x<C>-estimate-scores.png`, `-estimate-margin.png`, `-estimate-lengths.png` from
/// `estimate.json` (written by `reversi estimate --out`).
/// Histograms switch to a log scale when their counts span three orders of magnitude.
/// Returns the files written, in board order.
///
/// # Errors
///
/// [`PlotError::Read`] for a missing directory or a malformed file, [`PlotError::Draw`] if a
/// PNG cannot be written.
pub fn plot_results(results: &Path, plots: &Path) -> Result<Vec<std::path::PathBuf>, PlotError> {
    let read_err = |p: &Path, e: std::io::Error| PlotError::Read {
        path: p.display().to_string(),
        message: e.to_string(),
    };
    let mut boards: Vec<(u32, u32, std::path::PathBuf)> = std::fs::read_dir(results)
        .map_err(|e| read_err(results, e))?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let (r, c) = name.split_once('x')?;
            Some((r.parse().ok()?, c.parse().ok()?, entry.path()))
        })
        .filter(|(_, _, p)| p.is_dir())
        .collect();
    boards.sort();
    std::fs::create_dir_all(plots).map_err(|e| PlotError::Draw {
        path: plots.display().to_string(),
        message: format!("cannot create the directory: {e}"),
    })?;
    let mut written = Vec::new();
    for (r, c, dir) in boards {
        let board = format!("{r}x{c}");
        let out = |what: &str| plots.join(format!("{board}-{what}.png"));
        let scores = dir.join("score_matrix.csv");
        if scores.is_file() {
            let matrix = read_score_matrix(&scores)?;
            let total = thousands(matrix.iter().flatten().sum());
            let title = HeatmapTitle {
                board: &board,
                total: &total,
                subject: "exact count",
            };
            score_heatmap(&out("scores"), &matrix, &title)?;
            written.push(out("scores"));
            let m = margins(&matrix);
            let log = wants_log_scale(m.iter().map(|x| x.1));
            margin_histogram(&out("margin"), &board, &m, log)?;
            written.push(out("margin"));
        }
        let lengths = dir.join("lengths.csv");
        if lengths.is_file() {
            let l = read_pairs(&lengths)?;
            let log = wants_log_scale(l.iter().map(|x| x.1));
            length_histogram(&out("lengths"), &board, &l, log)?;
            written.push(out("lengths"));
        }
        let perft = dir.join("perft.csv");
        if perft.is_file() {
            perft_chart(&out("perft"), &board, &read_pairs(&perft)?)?;
            written.push(out("perft"));
        }
        let solution = dir.join("solution.json");
        if solution.is_file() {
            let text = std::fs::read_to_string(&solution).map_err(|e| read_err(&solution, e))?;
            let s: super::perfect_play::SolutionFile =
                serde_json::from_str(&text).map_err(|e| PlotError::Read {
                    path: solution.display().to_string(),
                    message: e.to_string(),
                })?;
            super::perfect_play::perfect_play_board(&out("perfect-play"), &s)?;
            written.push(out("perfect-play"));
        }
        let estimate = dir.join("estimate.json");
        if estimate.is_file() {
            written.extend(plot_estimate(&estimate, &board, plots)?);
        }
    }
    Ok(written)
}

/// Renders the charts of one `estimate.json` ([`crate::estimate::EstimateReport`]) into
/// `plots/<board>-estimate-{scores,margin,lengths}.png`; returns the files written.
///
/// # Errors
///
/// [`PlotError::Read`] if the file is not an estimate report, [`PlotError::Draw`] if a PNG
/// cannot be written.
pub fn plot_estimate(
    path: &Path,
    board: &str,
    plots: &Path,
) -> Result<Vec<std::path::PathBuf>, PlotError> {
    let bad = |message: String| PlotError::Read {
        path: path.display().to_string(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let r: crate::estimate::EstimateReport =
        serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let out = |what: &str| plots.join(format!("{board}-estimate-{what}.png"));
    let squares = r
        .scores
        .iter()
        .map(|s| s.black.max(s.white))
        .max()
        .unwrap_or(0) as usize;
    let mut matrix = vec![vec![0.0; squares + 1]; squares + 1];
    let mut by_margin = std::collections::BTreeMap::new();
    for s in &r.scores {
        matrix[s.black as usize][s.white as usize] = s.games;
        *by_margin
            .entry(i64::from(s.black) - i64::from(s.white))
            .or_insert(0.0) += s.games;
    }
    let total = format!("≈ {:.3e}", r.games.mean);
    let subject = format!("estimate, {} probes", thousands(u128::from(r.samples)));
    let title = HeatmapTitle {
        board,
        total: &total,
        subject: &subject,
    };
    score_heatmap_f64(&out("scores"), &matrix, &title)?;
    let margin: Vec<(i64, f64)> = by_margin.into_iter().collect();
    let heading = format!("{board} Reversi: final margin (estimate)");
    histogram(
        &out("margin"),
        &Histogram {
            title: &heading,
            x_label: "black discs − white discs at the end",
            y_label: "games, estimated",
            bars: &margin,
            log_y: true,
        },
    )?;
    let lengths: Vec<(i64, f64)> = r
        .lengths
        .iter()
        .map(|l| (i64::from(l.placements), l.games))
        .collect();
    let heading = format!("{board} Reversi: game length (estimate)");
    histogram(
        &out("lengths"),
        &Histogram {
            title: &heading,
            x_label: "placements (passes not counted)",
            y_label: "games, estimated",
            bars: &lengths,
            log_y: true,
        },
    )?;
    Ok(vec![out("scores"), out("margin"), out("lengths")])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(189_174_688_641), "189,174,688,641");
    }

    #[test]
    fn power_labels() {
        assert_eq!(power_label(0.0), "1");
        assert_eq!(power_label(3.0), "1000");
        assert_eq!(power_label(4.0), "10⁴");
        assert_eq!(power_label(21.0), "10²¹");
    }

    #[test]
    fn ticks_are_whole_and_bounded() {
        assert_eq!(int_ticks(0, 16, 16), (0..=16).collect::<Vec<_>>());
        assert_eq!(
            int_ticks(0, 64, 16),
            vec![0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60]
        );
        assert_eq!(int_ticks(-7, 9, 10), vec![-6, -4, -2, 0, 2, 4, 6, 8]);
    }

    #[test]
    fn viridis_ends() {
        assert_eq!(viridis(0.0), RGBColor(68, 1, 84));
        assert_eq!(viridis(1.0), RGBColor(253, 231, 37));
    }
}
