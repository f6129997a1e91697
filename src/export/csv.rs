//! CSV tables of a count report, one function per file.

use crate::count::CountReport;

fn finish(w: ::csv::Writer<Vec<u8>>) -> anyhow::Result<Vec<u8>> {
    w.into_inner().map_err(|e| anyhow::anyhow!("csv: {e}"))
}

/// `score_matrix.csv`: one row per black disc count `b = 0..=S`, one column per white disc
/// count; header `black\white,0,1,...,S`; cell = games ending `b:w`.
///
/// # Errors
///
/// A CSV writer error (not expected for in-memory output).
pub fn score_matrix(r: &CountReport) -> anyhow::Result<Vec<u8>> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let n = r.score_matrix.len();
    let mut header = vec!["black\\white".to_string()];
    header.extend((0..n).map(|i| i.to_string()));
    w.write_record(&header)?;
    for (b, row) in r.score_matrix.iter().enumerate() {
        let mut rec = vec![b.to_string()];
        rec.extend(row.iter().map(u128::to_string));
        w.write_record(&rec)?;
    }
    finish(w)
}

/// `lengths.csv`: `placements,games` (placements from the 4-disc start; non-zero rows).
///
/// # Errors
///
/// A CSV writer error.
pub fn lengths(r: &CountReport) -> anyhow::Result<Vec<u8>> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(["placements", "games"])?;
    for row in &r.lengths {
        w.write_record([row.placements.to_string(), row.games.to_string()])?;
    }
    finish(w)
}

/// `margins.csv`: `margin,games` (black discs minus white discs; non-zero rows).
///
/// # Errors
///
/// A CSV writer error.
pub fn margins(r: &CountReport) -> anyhow::Result<Vec<u8>> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(["margin", "games"])?;
    for row in &r.margins {
        w.write_record([row.margin.to_string(), row.games.to_string()])?;
    }
    finish(w)
}

/// `first_moves.csv`: `move,games,black_wins,draws,white_wins`.
///
/// # Errors
///
/// A CSV writer error.
pub fn first_moves(r: &CountReport) -> anyhow::Result<Vec<u8>> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(["move", "games", "black_wins", "draws", "white_wins"])?;
    for m in &r.first_moves {
        w.write_record([
            m.mv.clone(),
            m.games.to_string(),
            m.black_wins.to_string(),
            m.draws.to_string(),
            m.white_wins.to_string(),
        ])?;
    }
    finish(w)
}

/// `positions_per_layer.csv`: `discs,positions` (dp only; empty table otherwise).
///
/// # Errors
///
/// A CSV writer error.
pub fn positions_per_layer(r: &CountReport) -> anyhow::Result<Vec<u8>> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(["discs", "positions"])?;
    for row in r.positions_per_layer.iter().flatten() {
        w.write_record([row.discs.to_string(), row.positions.to_string()])?;
    }
    finish(w)
}
