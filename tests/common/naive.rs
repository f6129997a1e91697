//! A naive Reversi board: a plain 2-D array and a square-by-square, direction-by-direction scan.
//! Written to be obviously correct, not fast; the bitboard engine is tested against it.

/// 0 empty, 1 black, 2 white.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct NaiveBoard {
    pub rows: usize,
    pub cols: usize,
    pub cells: Vec<Vec<u8>>,
    /// 1 if black is to move, 2 if white.
    pub to_move: u8,
}

const DIRS: [(i32, i32); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

impl NaiveBoard {
    /// The start position, written out from REFERENCE.md's rule for each axis: an even side of
    /// n puts the block at n/2 - 1, an odd side at n/2; white on the block's main diagonal.
    pub fn start(rows: usize, cols: usize) -> NaiveBoard {
        let mut cells = vec![vec![0u8; cols]; rows];
        let r = if rows.is_multiple_of(2) {
            rows / 2 - 1
        } else {
            rows / 2
        };
        let c = if cols.is_multiple_of(2) {
            cols / 2 - 1
        } else {
            cols / 2
        };
        cells[r][c] = 2;
        cells[r + 1][c + 1] = 2;
        cells[r][c + 1] = 1;
        cells[r + 1][c] = 1;
        NaiveBoard {
            rows,
            cols,
            cells,
            to_move: 1,
        }
    }

    fn inside(&self, r: i32, c: i32) -> bool {
        r >= 0 && c >= 0 && (r as usize) < self.rows && (c as usize) < self.cols
    }

    /// The squares that would turn over if `who` played at (r, c).
    pub fn flips_for(&self, who: u8, r: usize, c: usize) -> Vec<(usize, usize)> {
        let mut all = Vec::new();
        if self.cells[r][c] != 0 {
            return all;
        }
        let them = 3 - who;
        for (dr, dc) in DIRS {
            let mut line = Vec::new();
            let (mut rr, mut cc) = (r as i32 + dr, c as i32 + dc);
            while self.inside(rr, cc) && self.cells[rr as usize][cc as usize] == them {
                line.push((rr as usize, cc as usize));
                rr += dr;
                cc += dc;
            }
            if !line.is_empty()
                && self.inside(rr, cc)
                && self.cells[rr as usize][cc as usize] == who
            {
                all.extend(line);
            }
        }
        all
    }

    /// Legal moves of `who`, row-major.
    pub fn moves_for(&self, who: u8) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for r in 0..self.rows {
            for c in 0..self.cols {
                if !self.flips_for(who, r, c).is_empty() {
                    v.push((r, c));
                }
            }
        }
        v
    }

    pub fn moves(&self) -> Vec<(usize, usize)> {
        self.moves_for(self.to_move)
    }

    pub fn is_over(&self) -> bool {
        self.moves_for(1).is_empty() && self.moves_for(2).is_empty()
    }

    pub fn play(&mut self, r: usize, c: usize) {
        let who = self.to_move;
        let f = self.flips_for(who, r, c);
        assert!(!f.is_empty(), "naive board: illegal move");
        for (fr, fc) in f {
            self.cells[fr][fc] = who;
        }
        self.cells[r][c] = who;
        self.to_move = 3 - who;
    }

    pub fn pass(&mut self) {
        self.to_move = 3 - self.to_move;
    }

    /// (black discs, white discs).
    pub fn score(&self) -> (u32, u32) {
        let mut s = (0, 0);
        for row in &self.cells {
            for &x in row {
                match x {
                    1 => s.0 += 1,
                    2 => s.1 += 1,
                    _ => {}
                }
            }
        }
        s
    }

    /// Games in progress or just ended after exactly `depth` plies (a pass is a ply; an ended
    /// game is not counted later), by plain recursion.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.moves();
        if moves.is_empty() {
            if self.moves_for(3 - self.to_move).is_empty() {
                return 0;
            }
            let mut b = self.clone();
            b.pass();
            return b.perft(depth - 1);
        }
        moves
            .into_iter()
            .map(|(r, c)| {
                let mut b = self.clone();
                b.play(r, c);
                b.perft(depth - 1)
            })
            .sum()
    }
}
