//! A picture of perfect play: the final board of a solution's principal variation, each square
//! numbered by the move that filled it, as Feinstein drew his 6x6 solution (1993).

use std::path::Path;

use plotters::prelude::*;
use plotters::style::FontStyle;

use super::draw::{draw_err, fonts, PlotError, FONT};
use crate::board::{Move, Position, Shape};

/// Pixels per square.
const CELL: i32 = 72;
/// Pixels around the board (for the coordinates) and above it (for the title).
const MARGIN: i32 = 36;
const TOP: i32 = 64;

/// What the picture needs of a `solution.json` (written by `reversi solve --save`).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct SolutionFile {
    /// The board, such as `6x6`.
    pub board: String,
    /// The start position's board string.
    pub position: String,
    /// The principal variation, in move notation.
    pub pv: Vec<String>,
    /// Black's margin under perfect play.
    pub value: i32,
}

/// The final board of the principal variation and the move number that filled each square
/// (0 for the discs of the start position).
///
/// # Errors
///
/// [`PlotError::Read`] if the board, position or a move does not parse or replay.
pub fn replay(s: &SolutionFile) -> Result<(Position, Vec<u32>), PlotError> {
    let bad = |message: String| PlotError::Read {
        path: format!("the {} solution", s.board),
        message,
    };
    let (r, c) = s
        .board
        .split_once('x')
        .and_then(|(r, c)| Some((r.parse().ok()?, c.parse().ok()?)))
        .ok_or_else(|| bad(format!("bad board '{}'", s.board)))?;
    let shape = Shape::new(r, c).map_err(|e| bad(e.to_string()))?;
    let mut pos =
        Position::from_board_string(&s.position, Some(shape)).map_err(|e| bad(e.to_string()))?;
    let mut order = vec![0u32; 64];
    let mut placed = 0;
    for text in &s.pv {
        let (next, turns) = pos.after_moves(text).map_err(|e| bad(e.to_string()))?;
        for turn in turns {
            if let Move::Place(sq) = turn {
                placed += 1;
                order[sq as usize] = placed;
            }
        }
        pos = next;
    }
    Ok((pos, order))
}

/// Draws the final board of `s`'s principal variation into `path`: discs in their final
/// colours, each numbered by the move that placed it (the start's discs unnumbered), empty
/// squares left green.
///
/// # Errors
///
/// [`PlotError::Read`] if the solution does not replay, [`PlotError::Draw`] if the PNG cannot
/// be written.
pub fn perfect_play_board(path: &Path, s: &SolutionFile) -> Result<(), PlotError> {
    fonts()?;
    let (end, order) = replay(s)?;
    let shape = end.shape();
    let (rows, cols) = (shape.rows() as i32, shape.cols() as i32);
    let width = (2 * MARGIN + cols * CELL).max(520);
    let height = TOP + MARGIN + rows * CELL;
    let err = draw_err(path);
    let root = BitMapBackend::new(path, (width as u32, height as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(&err)?;
    let winner = match s.value.signum() {
        1 => "black wins",
        -1 => "white wins",
        _ => "draw",
    };
    let title = format!(
        "{} perfect play: {winner} {}:{}",
        s.board,
        end.black_count(),
        end.white_count()
    );
    root.draw(&Text::new(
        title,
        (MARGIN, 14),
        (FONT, 24).into_font().style(FontStyle::Bold),
    ))
    .map_err(&err)?;
    let left = (width - cols * CELL) / 2;
    let green = RGBColor(0, 120, 60);
    let label = (FONT, 16).into_font().color(&BLACK);
    for col in 0..cols {
        let name = ((b'a' + col as u8) as char).to_string();
        let x = left + col * CELL + CELL / 2 - 4;
        root.draw(&Text::new(name, (x, TOP - 22), label.clone()))
            .map_err(&err)?;
    }
    for row in 0..rows {
        let y = TOP + row * CELL + CELL / 2 - 8;
        root.draw(&Text::new(
            (row + 1).to_string(),
            (left - 22, y),
            label.clone(),
        ))
        .map_err(&err)?;
        for col in 0..cols {
            let (x0, y0) = (left + col * CELL, TOP + row * CELL);
            root.draw(&Rectangle::new(
                [(x0, y0), (x0 + CELL, y0 + CELL)],
                green.filled(),
            ))
            .map_err(&err)?;
            root.draw(&Rectangle::new(
                [(x0, y0), (x0 + CELL, y0 + CELL)],
                BLACK.stroke_width(1),
            ))
            .map_err(&err)?;
            let sq = (8 * row + col) as u32;
            let bit = 1u64 << sq;
            let (disc, ink) = if end.black() & bit != 0 {
                (BLACK, WHITE)
            } else if end.white() & bit != 0 {
                (WHITE, BLACK)
            } else {
                continue;
            };
            let centre = (x0 + CELL / 2, y0 + CELL / 2);
            root.draw(&Circle::new(centre, CELL / 2 - 6, disc.filled()))
                .map_err(&err)?;
            root.draw(&Circle::new(centre, CELL / 2 - 6, BLACK.stroke_width(1)))
                .map_err(&err)?;
            let n = order[sq as usize];
            if n > 0 {
                let text = n.to_string();
                let dx = 7 * text.len() as i32;
                let font = (FONT, 24).into_font().color(&ink);
                root.draw(&Text::new(text, (centre.0 - dx, centre.1 - 11), font))
                    .map_err(&err)?;
            }
        }
    }
    root.present().map_err(&err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_principal_variation_numbers_every_square_it_fills() {
        let start = Shape::square(4).unwrap().start();
        let r = crate::solve::Solver::new(4).solve(
            &start,
            &crate::solve::SolveOptions::default(),
            &crate::progress::Silent,
        );
        let s = SolutionFile {
            board: "4x4".into(),
            position: start.to_board_string(),
            pv: r.pv.iter().map(|&m| start.move_name(m)).collect(),
            value: r.value,
        };
        let (end, order) = replay(&s).unwrap();
        let placed = r.pv.iter().filter(|m| **m != Move::Pass).count() as u32;
        let mut numbers: Vec<u32> = order.iter().copied().filter(|&n| n > 0).collect();
        numbers.sort_unstable();
        assert_eq!(numbers, (1..=placed).collect::<Vec<_>>());
        assert_eq!(end.black_count(), r.final_score.0);
        assert_eq!(end.white_count(), r.final_score.1);
        // The start's discs are unnumbered.
        for sq in [9, 10, 17, 18] {
            assert_eq!(order[sq], 0);
        }
    }
}
