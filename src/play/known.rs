//! Perfect play known from a published solution (`results/RxC/solution.json`, or its twin under
//! the Othello rule, written by `reversi solve --save` or `reversi prove --save`): the exact
//! value of every first move of the start, and along the principal variation the move that
//! keeps the position's value. `analyze` and `play` look a position up here, in any of its
//! symmetric images, where the solver cannot solve it in the time given: on boards whose start
//! takes minutes to weeks (5x8, 6x7), they still play and advise perfectly where it is known.
//!
//! A file is checked whole before any of it is trusted ([`Known::parse`]): it must be the
//! start of its board under its scoring rule, its principal variation must replay to a finished
//! game with its final discs, value and winner, and its move values must name every legal first
//! move once, the best of them worth the value and marked best.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Advice, AdviceKind, Advisor};
use crate::board::{Move, Position, Scoring, Shape, Symmetry};

/// The file of a board's solution under `scoring`, in the board's results directory
/// (`results/RxC/`).
#[must_use]
pub const fn file_name(scoring: Scoring) -> &'static str {
    match scoring {
        Scoring::Discs => "solution.json",
        Scoring::WinnerTakesEmpties => "solution-winner-takes-empties.json",
    }
}

/// What is read of a solution file.
#[derive(Debug, Deserialize)]
struct SolutionText {
    board: String,
    position: String,
    scoring: String,
    value: i32,
    winner: String,
    final_black: u32,
    final_white: u32,
    pv: Vec<String>,
    move_values: Vec<MoveText>,
}

/// One first move of a solution file, black's margin after it.
#[derive(Debug, Deserialize)]
struct MoveText {
    #[serde(rename = "move")]
    mv: String,
    value: i32,
    best: bool,
}

/// A position whose perfect play is known.
#[derive(Debug, Clone)]
struct Entry {
    pos: Position,
    /// Black's margin under perfect play from here.
    value: i32,
    /// Legal turns with black's margin after each: every one (`complete`), or only the move of
    /// the principal variation.
    turns: Vec<(Move, i32)>,
    complete: bool,
}

/// The positions a published solution settles.
#[derive(Debug, Clone)]
pub struct Known {
    entries: Vec<Entry>,
    /// The solution is of the transposed board (`results/` keeps a board with at most as many
    /// rows as columns): positions are transposed to be looked up, and their moves back.
    transposed: bool,
    /// The file it was read from (empty for a text given to [`Known::parse`]).
    source: PathBuf,
}

impl Known {
    /// Reads a solution file's text for `shape` under `scoring`, checked whole.
    ///
    /// # Errors
    ///
    /// Why the text is not a solution of `shape`'s start under `scoring` that agrees with
    /// itself, in words ("its principal variation does not replay: ...").
    pub fn parse(text: &str, shape: Shape, scoring: Scoring) -> Result<Known, String> {
        let s: SolutionText =
            serde_json::from_str(text).map_err(|e| format!("not a solution file: {e}"))?;
        if s.board != shape.name() || s.scoring != scoring.name() {
            return Err(format!(
                "it solves {} under the {} rule, not {shape} under the {} rule",
                s.board,
                s.scoring,
                scoring.name()
            ));
        }
        let start = shape.start();
        if s.position != start.to_board_string() {
            return Err(format!("its position is not the start of {shape}"));
        }
        let turns = match start.after_moves(&s.pv.join(" ")) {
            Ok((_, turns)) => turns,
            Err(e) => return Err(format!("its principal variation does not replay: {e}")),
        };
        let mut line = Vec::with_capacity(turns.len());
        let mut end = start;
        for &t in &turns {
            line.push((end, t));
            end = end.apply(t).expect("after_moves replayed it");
        }
        let value = end.black_margin_under(scoring);
        let winner = match value.signum() {
            1 => "black",
            -1 => "white",
            _ => "draw",
        };
        if !end.is_over() {
            return Err("its principal variation stops before the end of the game".into());
        }
        if (end.black_count(), end.white_count()) != (s.final_black, s.final_white) {
            return Err(format!(
                "its principal variation ends {}:{}, not {}:{}",
                end.black_count(),
                end.white_count(),
                s.final_black,
                s.final_white
            ));
        }
        if value != s.value || winner != s.winner {
            return Err(format!(
                "its principal variation is worth {value:+}, not {:+} ({})",
                s.value, s.winner
            ));
        }
        let first = first_moves(&start, &s.move_values, value)?;
        if first.iter().find(|t| t.0 == line[0].1).map(|t| t.1) != Some(value) {
            return Err(format!(
                "its move values do not give the principal variation's first move the value {value:+}"
            ));
        }
        let mut entries = vec![Entry {
            pos: start,
            value,
            turns: first,
            complete: true,
        }];
        for &(pos, t) in &line[1..] {
            entries.push(Entry {
                pos,
                value,
                turns: vec![(t, value)],
                complete: pos.legal_turns().len() == 1,
            });
        }
        Ok(Known {
            entries,
            transposed: false,
            source: PathBuf::new(),
        })
    }

    /// The solution of `shape` under `scoring` in `results` ([`Known::path`]), or of the
    /// transposed board where `shape` has more rows than columns (`results/` keeps one of the
    /// two), checked ([`Known::parse`]); `None` if there is no such file.
    ///
    /// # Errors
    ///
    /// The file and why it cannot be read or is not trusted, in words.
    pub fn load(results: &Path, shape: Shape, scoring: Scoring) -> Result<Option<Known>, String> {
        let transposed = Shape::new(shape.cols(), shape.rows()).expect("a board's transpose");
        let mut tries = vec![(shape, false)];
        if shape.rows() > shape.cols() {
            tries.push((transposed, true));
        }
        for (on, transposed) in tries {
            let path = Known::path(results, on, scoring);
            let why = |why: String| format!("{}: {why}", path.display());
            match std::fs::read_to_string(&path) {
                Ok(text) => {
                    let mut known = Known::parse(&text, on, scoring).map_err(why)?;
                    known.transposed = transposed;
                    known.source = path;
                    return Ok(Some(known));
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(why(e.to_string())),
            }
        }
        Ok(None)
    }

    /// Where [`Known::load`] looks first.
    #[must_use]
    pub fn path(results: &Path, shape: Shape, scoring: Scoring) -> PathBuf {
        results.join(shape.name()).join(file_name(scoring))
    }

    /// Black's margin under perfect play from the start (the solution's value).
    #[must_use]
    pub fn value(&self) -> i32 {
        self.entries[0].value
    }

    /// The file it was read from ([`Known::load`]).
    #[must_use]
    pub fn source(&self) -> &Path {
        &self.source
    }

    /// Positions it settles: the start and each one along the principal variation.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it settles no position (never, for a parsed file).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The advice it holds for `pos` or for a symmetric image of it, for the side to move
    /// (turns in row-major order): [`AdviceKind::Exact`] where every turn's value is known,
    /// [`AdviceKind::Line`] on the principal variation, where only its move's is.
    #[must_use]
    pub fn lookup(&self, pos: &Position) -> Option<Advice> {
        if self.transposed {
            let mut advice = self.lookup_here(&transpose(pos))?;
            for (m, _) in &mut advice.scores {
                if let Move::Place(sq) = m {
                    *sq = (*sq % 8) * 8 + *sq / 8;
                }
            }
            advice.scores.sort_by_key(|&(m, _)| turn_order(m));
            return Some(advice);
        }
        self.lookup_here(pos)
    }

    /// [`Known::lookup`] on the solution's own board.
    fn lookup_here(&self, pos: &Position) -> Option<Advice> {
        let shape = pos.shape();
        for e in &self.entries {
            if e.pos.shape() != shape || e.pos.disc_count() != pos.disc_count() {
                continue;
            }
            // The symmetry that maps the known position onto `pos` maps its moves too.
            let Some(&s) = Symmetry::all(shape)
                .iter()
                .find(|s| s.apply_position(&e.pos) == *pos)
            else {
                continue;
            };
            let own = |black: i32| if pos.black_to_move() { black } else { -black };
            let mut scores: Vec<(Move, i32)> = e
                .turns
                .iter()
                .map(|&(m, v)| match m {
                    Move::Place(sq) => (Move::Place(s.apply_square(shape, sq)), own(v)),
                    Move::Pass => (Move::Pass, own(v)),
                })
                .collect();
            scores.sort_by_key(|&(m, _)| turn_order(m));
            let kind = if e.complete {
                AdviceKind::Exact
            } else {
                AdviceKind::Line {
                    value: own(e.value),
                }
            };
            return Some(Advice { scores, kind });
        }
        None
    }
}

/// Row-major order of turns (a pass, the only turn when legal, last).
fn turn_order(m: Move) -> u32 {
    match m {
        Move::Place(sq) => sq,
        Move::Pass => 64,
    }
}

/// `pos` on the transposed board: square (r, c) to (c, r).
fn transpose(pos: &Position) -> Position {
    let shape = pos.shape();
    let t = |b: u64| Symmetry::Transpose.apply(shape, b);
    Position::from_player(
        Shape::new(shape.cols(), shape.rows()).expect("a board's transpose"),
        t(pos.player()),
        t(pos.opponent()),
        pos.black_to_move(),
    )
}

/// The first moves of a solution file as turns of `start` with black's margins, checked: every
/// legal turn once, the best for the side to move worth `value` and those alone marked best.
fn first_moves(
    start: &Position,
    moves: &[MoveText],
    value: i32,
) -> Result<Vec<(Move, i32)>, String> {
    let legal = start.legal_turns();
    let mut turns = Vec::with_capacity(moves.len());
    for m in moves {
        let turn = match start.after_moves(&m.mv) {
            Ok((_, played)) if played.len() == 1 => played[0],
            _ => {
                return Err(format!(
                    "its move values name '{}', not a legal first move",
                    m.mv
                ))
            }
        };
        if turns.iter().any(|&(t, _)| t == turn) {
            return Err(format!("its move values name {} twice", m.mv));
        }
        turns.push((turn, m.value));
    }
    if turns.len() != legal.len() {
        return Err(format!(
            "its move values give {} of the {} legal first moves",
            turns.len(),
            legal.len()
        ));
    }
    let own = |v: i32| if start.black_to_move() { v } else { -v };
    let best = turns.iter().map(|&(_, v)| own(v)).max();
    if best != Some(own(value)) {
        return Err(format!(
            "its best move value is not the value {value:+} of its principal variation"
        ));
    }
    if moves.iter().any(|m| m.best != (own(m.value) == own(value))) {
        return Err("its move values mark as best other moves than those worth the value".into());
    }
    Ok(turns)
}

/// Perfect play looked up in a published solution ([`Known`]); positions it does not settle go
/// to `fallback`.
pub struct KnownAdvisor<F: Advisor> {
    /// The solution, if the board has one.
    pub known: Option<Known>,
    /// The advisor for positions the solution does not settle.
    pub fallback: F,
}

impl<F: Advisor> Advisor for KnownAdvisor<F> {
    fn advise(&mut self, pos: &Position) -> Advice {
        match self.known.as_ref().and_then(|k| k.lookup(pos)) {
            Some(a) => a,
            None => self.fallback.advise(pos),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::json::solution;
    use crate::solve::{SolveOptions, Solver};

    /// A solution file of `shape`'s start under `scoring`, as `solve --save` writes it.
    fn solved(shape: Shape, scoring: Scoring) -> (String, Solver) {
        let mut solver = Solver::new(64);
        let opts = SolveOptions {
            scoring,
            ..SolveOptions::default()
        };
        let report = solver.solve(&shape.start(), &opts, &crate::progress::Silent);
        let text = serde_json::to_string_pretty(&solution(&report)).unwrap();
        solver.set_scoring(scoring);
        (text, solver)
    }

    #[test]
    fn the_start_and_its_images_get_the_solvers_move_values() {
        for (r, c) in [(4, 4), (4, 5), (5, 5)] {
            let shape = Shape::new(r, c).unwrap();
            for scoring in [Scoring::Discs, Scoring::WinnerTakesEmpties] {
                let (text, mut solver) = solved(shape, scoring);
                let known = Known::parse(&text, shape, scoring).unwrap();
                for &s in Symmetry::all(shape) {
                    let pos = s.apply_position(&shape.start());
                    let advice = known.lookup(&pos).expect("every image of the start");
                    assert_eq!(advice.kind, AdviceKind::Exact);
                    let far = std::time::Instant::now() + std::time::Duration::from_secs(600);
                    let want = solver.move_values_within(&pos, far).unwrap();
                    assert_eq!(advice.scores, want, "{shape} {scoring:?} {s:?}");
                }
            }
        }
    }

    #[test]
    fn a_transposed_board_reads_the_solution_of_its_transpose() {
        let shape = Shape::new(4, 5).unwrap();
        let (text, _) = solved(shape, Scoring::Discs);
        let dir = tempfile::tempdir().unwrap();
        let path = Known::path(dir.path(), shape, Scoring::Discs);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        let tall = Shape::new(5, 4).unwrap();
        let known = Known::load(dir.path(), tall, Scoring::Discs)
            .unwrap()
            .unwrap();
        let mut solver = Solver::new(64);
        let start = tall.start();
        let mut on_line = 0;
        for pos in std::iter::once(start).chain(
            start
                .legal_turns()
                .into_iter()
                .map(|t| start.apply(t).unwrap()),
        ) {
            let far = std::time::Instant::now() + std::time::Duration::from_secs(600);
            let exact = solver.move_values_within(&pos, far).unwrap();
            match known.lookup(&pos) {
                Some(a) if a.kind == AdviceKind::Exact => assert_eq!(a.scores, exact),
                Some(a) => {
                    let best = exact.iter().map(|e| e.1).max();
                    assert!(a
                        .scores
                        .iter()
                        .all(|m| exact.contains(m) && Some(m.1) == best));
                    on_line += 1;
                }
                None => assert_ne!(pos, start, "the start is known"),
            }
        }
        assert!(
            on_line >= 1,
            "the principal variation's first move, in its image"
        );
        assert!(Known::load(dir.path(), tall, Scoring::WinnerTakesEmpties)
            .unwrap()
            .is_none());
        std::fs::write(&path, "{}").unwrap();
        let why = Known::load(dir.path(), tall, Scoring::Discs).unwrap_err();
        assert!(why.contains(&path.display().to_string()), "{why}");
    }

    #[test]
    fn the_principal_variation_keeps_the_value_and_nothing_else_is_known() {
        let shape = Shape::new(4, 5).unwrap();
        let (text, mut solver) = solved(shape, Scoring::Discs);
        let known = Known::parse(&text, shape, Scoring::Discs).unwrap();
        let s: SolutionText = serde_json::from_str(&text).unwrap();
        let (_, turns) = shape.start().after_moves(&s.pv.join(" ")).unwrap();
        assert_eq!(known.len(), turns.len());
        let mut pos = shape.start();
        for &t in &turns {
            let advice = known.lookup(&pos).unwrap();
            let far = std::time::Instant::now() + std::time::Duration::from_secs(600);
            let exact = solver.move_values_within(&pos, far).unwrap();
            let best = exact.iter().map(|e| e.1).max().unwrap();
            if advice.kind == AdviceKind::Exact {
                assert_eq!(advice.scores, exact);
            } else {
                // The known move is one the solver finds best, with its value.
                assert_eq!(advice.kind, AdviceKind::Line { value: best });
                assert_eq!(advice.scores, [(t, best)]);
            }
            assert!(advice.best_moves().contains(&t));
            pos = pos.apply(t).unwrap();
        }
        // Off the line, nothing: the solver's second-best first move.
        let first = solver
            .move_values_within(
                &shape.start(),
                std::time::Instant::now() + std::time::Duration::from_secs(60),
            )
            .unwrap();
        let worst = first.iter().min_by_key(|m| m.1).unwrap().0;
        if worst != turns[0] {
            assert!(known.lookup(&shape.start().apply(worst).unwrap()).is_none());
        }
    }

    #[test]
    fn a_file_that_contradicts_itself_is_refused() {
        let shape = Shape::new(4, 5).unwrap();
        let (text, _) = solved(shape, Scoring::Discs);
        let good: serde_json::Value = serde_json::from_str(&text).unwrap();
        let refused = |change: &dyn Fn(&mut serde_json::Value), scoring: Scoring| {
            let mut v = good.clone();
            change(&mut v);
            Known::parse(&v.to_string(), shape, scoring).unwrap_err()
        };
        let keep = |_: &mut serde_json::Value| {};
        assert!(refused(&keep, Scoring::WinnerTakesEmpties).contains("not 4x5 under the winner"));
        assert!(
            Known::parse(&text, Shape::new(5, 4).unwrap(), Scoring::Discs)
                .unwrap_err()
                .contains("not 5x4")
        );
        let value =
            |v: &mut serde_json::Value| v["value"] = (v["value"].as_i64().unwrap() + 2).into();
        assert!(refused(&value, Scoring::Discs).contains("is worth"));
        let pv = |v: &mut serde_json::Value| {
            v["pv"].as_array_mut().unwrap().pop();
        };
        assert!(refused(&pv, Scoring::Discs).contains("stops before the end"));
        let corner = |v: &mut serde_json::Value| v["pv"][0] = "a1".into();
        assert!(refused(&corner, Scoring::Discs).contains("does not replay"));
        let best = |v: &mut serde_json::Value| {
            for m in v["move_values"].as_array_mut().unwrap() {
                if m["best"] == true {
                    m["value"] = (m["value"].as_i64().unwrap() + 1).into();
                }
            }
        };
        assert!(refused(&best, Scoring::Discs).contains("best move value"));
        let gone = |v: &mut serde_json::Value| {
            v["move_values"].as_array_mut().unwrap().pop();
        };
        assert!(refused(&gone, Scoring::Discs).contains("of the 4 legal first moves"));
        let twice = |v: &mut serde_json::Value| {
            let m = v["move_values"][0].clone();
            v["move_values"][1] = m;
        };
        assert!(refused(&twice, Scoring::Discs).contains("twice"));
        let mark = |v: &mut serde_json::Value| {
            for m in v["move_values"].as_array_mut().unwrap() {
                m["best"] = true.into();
            }
        };
        assert!(refused(&mark, Scoring::Discs).contains("mark as best"));
        assert!(Known::parse("{", shape, Scoring::Discs)
            .unwrap_err()
            .starts_with("not a solution file"));
    }
}
