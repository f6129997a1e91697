//! A heuristic evaluation for positions too deep to solve: mobility, corners, corner-adjacent
//! squares and a simple count of stable edge discs, as the Black & White seed's evaluator
//! weighs features of a position.

use crate::board::{legal_moves, Shape};

/// Discs of `p` that can never be flipped because they fill a line from a corner along an edge
/// (a lower bound on stable discs, cheap to compute).
fn edge_anchored(p: u64, shape: Shape) -> u64 {
    let (rows, cols) = (shape.rows() as i32, shape.cols() as i32);
    let mut stable = 0u64;
    let corners = [
        (0, 0, 1, 1),
        (0, cols - 1, 1, -1),
        (rows - 1, 0, -1, 1),
        (rows - 1, cols - 1, -1, -1),
    ];
    for (r0, c0, dr, dc) in corners {
        // Along the row, then along the column, while the discs are ours.
        for (sr, sc) in [(0, dc), (dr, 0)] {
            let (mut r, mut c) = (r0, c0);
            while r >= 0 && r < rows && c >= 0 && c < cols {
                let bit = shape.bit(r as u32, c as u32);
                if p & bit == 0 {
                    break;
                }
                stable |= bit;
                r += sr;
                c += sc;
            }
        }
    }
    stable
}

/// The heuristic value of a position for the side to move (who owns `p`), in hundredths of a
/// disc of advantage, roughly. Larger is better for the side to move.
#[must_use]
pub fn evaluate(p: u64, o: u64, shape: Shape) -> i32 {
    let empty = shape.mask() & !(p | o);
    let my_moves = legal_moves(p, o, empty).count_ones() as i32;
    let their_moves = legal_moves(o, p, empty).count_ones() as i32;
    let corner = shape.corners();
    let corner_diff = (p & corner).count_ones() as i32 - (o & corner).count_ones() as i32;
    let mut x_penalty = 0;
    for (c, x) in shape.x_squares() {
        if empty & c != 0 {
            x_penalty += (p & x != 0) as i32 - (o & x != 0) as i32;
        }
    }
    let stable =
        edge_anchored(p, shape).count_ones() as i32 - edge_anchored(o, shape).count_ones() as i32;
    let discs = p.count_ones() as i32 - o.count_ones() as i32;
    // Disc count matters more as the board fills.
    let filled = 100 - 100 * empty.count_ones() as i32 / shape.squares() as i32;
    100 * (my_moves - their_moves) + 800 * corner_diff - 300 * x_penalty
        + 200 * stable
        + filled * discs / 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_are_good() {
        let shape = Shape::square(8).unwrap();
        let p = 1u64; // a1
        let o = 1u64 << 9; // b2
        assert!(evaluate(p, o, shape) > 0);
        assert!(evaluate(o, p, shape) < 0);
        assert_eq!(Shape::new(3, 5).unwrap().corners().count_ones(), 4);
    }
}
