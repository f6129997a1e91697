//! Move generation and flips on the 64-bit frame.
//!
//! Moves come from the usual 8x8 Kogge-Stone fills, all eight directions at once; the flips of
//! one move from precomputed rays, one direction at a time (the run of opponent discs along a
//! ray ends at its lowest or highest square not the opponent's), which measured a quarter
//! faster than fills from the single square. A smaller board sits in the top-left
//! corner of the frame; its off-board squares are never occupied and never legal targets
//! (targets are masked with the board's empty squares), so a ray can neither cross them nor
//! end on them, and no per-size masks are needed inside the fills.

/// Bits of the frame whose column is neither `a` nor `h`: shifting these sideways never wraps.
const NOT_EDGE_COLS: u64 = 0x7E7E_7E7E_7E7E_7E7E;

/// The bit of square `(row, col)` in the 8x8 frame.
#[inline]
#[must_use]
pub const fn square_bit(row: u32, col: u32) -> u64 {
    1u64 << (8 * row + col)
}

/// The squares next to any of `b` in the 8x8 frame (the caller masks them with empty squares,
/// which never include off-board bits).
#[inline]
#[must_use]
pub fn neighbours(b: u64) -> u64 {
    const NOT_A: u64 = 0xFEFE_FEFE_FEFE_FEFE;
    const NOT_H: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let h = ((b << 1) & NOT_A) | ((b >> 1) & NOT_H);
    let row = b | h;
    h | (row << 8) | (row >> 8)
}

/// Squares reached from `p` over one or more contiguous squares of `m` in the direction of a
/// shift by `d` (both signs), i.e. the candidate targets in that line.
#[inline(always)]
fn line_targets(p: u64, m: u64, d: u32) -> u64 {
    let mut left = m & (p << d);
    left |= m & (left << d);
    let pre_left = m & (m << d);
    left |= pre_left & (left << (2 * d));
    left |= pre_left & (left << (2 * d));

    let mut right = m & (p >> d);
    right |= m & (right >> d);
    let pre_right = m & (m >> d);
    right |= pre_right & (right >> (2 * d));
    right |= pre_right & (right >> (2 * d));

    (left << d) | (right >> d)
}

/// The legal moves of the player owning `p` against the opponent owning `o`, among the squares
/// of `empty` (the board's empty squares).
///
/// # Examples
///
/// ```
/// use reversi_nxn::board::{legal_moves, Shape};
/// let start = Shape::square(8).unwrap().start();
/// let moves = legal_moves(start.player(), start.opponent(), start.empty());
/// assert_eq!(moves.count_ones(), 4);
/// ```
#[inline(always)]
#[must_use]
pub fn legal_moves(p: u64, o: u64, empty: u64) -> u64 {
    let side = o & NOT_EDGE_COLS;
    (line_targets(p, side, 1)
        | line_targets(p, o, 8)
        | line_targets(p, side, 7)
        | line_targets(p, side, 9))
        & empty
}

/// Who moves after a placement, with a forced pass folded in: the rule every layered count
/// and the strong tables share ([`after_move`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// The side whose turn it is has a move.
    Moves,
    /// It has none but the other side has one: the turn passes back.
    Passes,
    /// Neither side can move: the game is over.
    Over,
}

/// Who moves next in the position `(p, o)` with empty squares `empty`, `p` being the side
/// whose turn it is (after a placement, the placer's opponent).
#[inline(always)]
#[must_use]
pub fn after_move(p: u64, o: u64, empty: u64) -> Next {
    if has_moves(p, o, empty) {
        Next::Moves
    } else if has_moves(o, p, empty) {
        Next::Passes
    } else {
        Next::Over
    }
}

/// Whether the owner of `p` has a legal move against `o` among the squares of `empty`: the same
/// as `legal_moves(p, o, empty) != 0`, but it stops at the first direction with a move, so it is
/// about four times cheaper when there is one (the usual case).
#[inline(always)]
#[must_use]
pub fn has_moves(p: u64, o: u64, empty: u64) -> bool {
    let side = o & NOT_EDGE_COLS;
    line_targets(p, side, 1) & empty != 0
        || line_targets(p, o, 8) & empty != 0
        || line_targets(p, side, 9) & empty != 0
        || line_targets(p, side, 7) & empty != 0
}

/// Steps (row, column) of the eight directions: the first four move to higher bits.
const DIRS: [(i32, i32); 8] = [
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, -1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
];

/// `RAYS[sq][d]`: the squares of the frame seen from `sq` in direction `DIRS[d]`, up to the
/// frame's edge (not including `sq`).
static RAYS: [[u64; 8]; 64] = rays();

/// `NEIGHBOURS[sq]`: the squares of the frame next to `sq`. A move next to no disc of `o`
/// flips nothing, which is most often the case of the empty squares tried near the end.
static NEIGHBOURS: [u64; 64] = neighbour_table();

const fn neighbour_table() -> [u64; 64] {
    let mut t = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            let (dr, dc) = DIRS[d];
            let (r, c) = (sq as i32 / 8 + dr, sq as i32 % 8 + dc);
            if r >= 0 && r < 8 && c >= 0 && c < 8 {
                t[sq] |= 1u64 << (8 * r + c);
            }
            d += 1;
        }
        sq += 1;
    }
    t
}

const fn rays() -> [[u64; 8]; 64] {
    let mut t = [[0u64; 8]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            let (dr, dc) = DIRS[d];
            let (mut r, mut c) = (sq as i32 / 8 + dr, sq as i32 % 8 + dc);
            while r >= 0 && r < 8 && c >= 0 && c < 8 {
                t[sq][d] |= 1u64 << (8 * r + c);
                r += dr;
                c += dc;
            }
            d += 1;
        }
        sq += 1;
    }
    t
}

/// The discs of `o` that turn over when the owner of `p` plays on square `sq` (a bit index of
/// the frame). Zero means the move is illegal (or `sq` is occupied: check that first).
///
/// # Examples
///
/// ```
/// use reversi_nxn::board::{flips, Shape};
/// let start = Shape::square(8).unwrap().start();
/// // d3 is row 2, col 3: bit 19. It turns d4 (bit 27).
/// assert_eq!(flips(start.player(), start.opponent(), 19), 1 << 27);
/// ```
#[inline(always)]
#[must_use]
pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
    // Along each ray the run of `o` next to `sq` ends at the first square that is not `o`
    // (a disc of `p`, an empty square, or off the board, which is never occupied); the run
    // turns over if that square is `p`'s. Towards higher bits the first such square is the
    // lowest bit of the ray outside `o`, towards lower bits the highest.
    let rays = &RAYS[sq as usize];
    if NEIGHBOURS[sq as usize] & o == 0 {
        return 0;
    }
    // Branch-free: whether a run turns over is a coin toss, and mispredicted branches cost
    // more than the arithmetic on both outcomes (a tenth of the dfs count's time).
    let mut f = 0;
    for &ray in &rays[..4] {
        let stop = ray & !o;
        let first = stop & stop.wrapping_neg();
        let hit = u64::from(first & p != 0).wrapping_neg();
        f |= ray & first.wrapping_sub(1) & hit;
    }
    for &ray in &rays[4..] {
        let stop = ray & !o;
        // The highest bit of `stop`; if `stop` is 0 the shift by 64 wraps to a shift by 0,
        // and `stop != 0` masks that case out.
        let first = (1u64 << 63).wrapping_shr(stop.leading_zeros());
        let hit = u64::from((first & p != 0) & (stop != 0)).wrapping_neg();
        f |= ray & !(first | first.wrapping_sub(1)) & hit;
    }
    f
}

/// [`flips`] with the eight directions in two AVX2 registers, for the copies of the hot loops
/// compiled for x86-64-v3 ([`crate::cpu`]). Towards higher bits the first square that is not
/// the opponent's is the lowest bit of the ray outside `o`, as in [`flips`]. Towards lower bits
/// AVX2 has no vector `lzcnt` to find the highest such bit, so those squares are smeared away
/// from `sq` instead (three shifts cover a ray of seven squares): what stays unsmeared is the
/// run next to `sq`, and the first smeared square closes it. Equal to [`flips`] everywhere.
///
/// # Safety
/// Outside code compiled with AVX2, the CPU must have AVX2 (see [`crate::cpu::level`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
#[must_use]
pub fn flips_avx2(p: u64, o: u64, sq: u32) -> u64 {
    use std::arch::x86_64::{
        _mm256_add_epi64, _mm256_and_si256, _mm256_andnot_si256, _mm256_castsi256_si128,
        _mm256_cmpeq_epi64, _mm256_extracti128_si256, _mm256_or_si256, _mm256_set1_epi64x,
        _mm256_setr_epi64x, _mm256_setzero_si256, _mm256_slli_epi64, _mm256_srlv_epi64,
        _mm256_sub_epi64, _mm_cvtsi128_si64, _mm_or_si128, _mm_unpackhi_epi64,
    };
    if NEIGHBOURS[sq as usize] & o == 0 {
        return 0;
    }
    // The bit patterns go through `i64` unchanged (`as` between same-width integers).
    let r = RAYS[sq as usize].map(|x| x as i64);
    let up = _mm256_setr_epi64x(r[0], r[1], r[2], r[3]);
    let down = _mm256_setr_epi64x(r[4], r[5], r[6], r[7]);
    let pp = _mm256_set1_epi64x(p as i64);
    let oo = _mm256_set1_epi64x(o as i64);
    let zero = _mm256_setzero_si256();

    // Towards higher bits: the lowest square of the ray not `o`'s; the run below it turns
    // over if that square is `p`'s (if there is none, `first` is 0 and so is the hit).
    let stop = _mm256_andnot_si256(oo, up);
    let first = _mm256_and_si256(stop, _mm256_sub_epi64(zero, stop));
    let miss = _mm256_cmpeq_epi64(_mm256_and_si256(first, pp), zero);
    let below = _mm256_add_epi64(first, _mm256_set1_epi64x(-1));
    let f_up = _mm256_andnot_si256(miss, _mm256_and_si256(up, below));

    // Towards lower bits (steps 1, 7, 8, 9 as in `DIRS[4..]`): every ray square at or beyond
    // the first one not `o`'s. Smeared bits that leave the ray move further from it, so one
    // mask at the end removes them.
    let step = _mm256_setr_epi64x(1, 7, 8, 9);
    let mut s = _mm256_andnot_si256(oo, down);
    s = _mm256_or_si256(s, _mm256_srlv_epi64(s, step));
    s = _mm256_or_si256(s, _mm256_srlv_epi64(s, _mm256_slli_epi64::<1>(step)));
    s = _mm256_or_si256(s, _mm256_srlv_epi64(s, _mm256_slli_epi64::<2>(step)));
    s = _mm256_and_si256(s, down);
    let first = _mm256_andnot_si256(_mm256_srlv_epi64(s, step), s);
    let miss = _mm256_cmpeq_epi64(_mm256_and_si256(first, pp), zero);
    let f_down = _mm256_andnot_si256(miss, _mm256_andnot_si256(s, down));

    let f = _mm256_or_si256(f_up, f_down);
    let f = _mm_or_si128(_mm256_castsi256_si128(f), _mm256_extracti128_si256::<1>(f));
    _mm_cvtsi128_si64(_mm_or_si128(f, _mm_unpackhi_epi64(f, f))) as u64
}

/// `COUNT_FLIPS[x][line]`: how many discs turn over when a square at position `x` of a line of
/// eight is played by the owner of the positions set in `line`, every other position of the
/// line being the opponent's (as on a board whose only empty square is `x`).
static COUNT_FLIPS: [[u8; 256]; 8] = count_flips_table();

const fn count_flips_table() -> [[u8; 256]; 8] {
    let mut t = [[0u8; 256]; 8];
    let mut x = 0;
    while x < 8 {
        let mut line = 0;
        while line < 256 {
            let mut n = 0;
            let mut i = x + 1;
            while i < 8 && line & (1 << i) == 0 {
                i += 1;
            }
            if i < 8 {
                n += i - x - 1;
            }
            let mut i = x as i32 - 1;
            while i >= 0 && line & (1 << i) == 0 {
                i -= 1;
            }
            if i >= 0 {
                n += (x as i32 - i - 1) as usize;
            }
            t[x][line] = n as u8;
            line += 1;
        }
        x += 1;
    }
    t
}

/// `DIAGONALS[sq]`: the two diagonals of the frame through `sq` (down-right, down-left).
static DIAGONALS: [[u64; 2]; 64] = diagonals();

const fn diagonals() -> [[u64; 2]; 64] {
    let mut t = [[0u64; 2]; 64];
    let mut sq = 0;
    while sq < 64 {
        let rays = &RAYS[sq];
        // DIRS: 3 = (1, 1) and 7 = (-1, -1); 1 = (1, -1) and 5 = (-1, 1).
        t[sq][0] = rays[3] | rays[7] | 1u64 << sq;
        t[sq][1] = rays[1] | rays[5] | 1u64 << sq;
        sq += 1;
    }
    t
}

/// The number of discs that turn over when the owner of `p` plays on `sq`, the board's only
/// empty square: every other square of the board is `p`'s or the opponent's, so `p` alone
/// decides, and each of the four lines through `sq` is one lookup (as Edax's
/// `count_last_flip`). Squares off a smaller board count as the opponent's here, which is
/// harmless: a board in the corner of the frame is convex, so a run that reaches them never
/// ends on a disc of `p`. Equals `flips(p, o, sq).count_ones()` for such positions.
///
/// # Examples
///
/// ```
/// use reversi_nxn::board::{flips, last_flip_count};
/// // 3x3 board, all full but b2 (bit 9); the player holds a1 and c3, the opponent the rest.
/// let board = 0b111 | 0b111 << 8 | 0b111 << 16;
/// let p = 1 | 1 << 18;
/// let o = board & !p & !(1 << 9);
/// assert_eq!(last_flip_count(p, 9), 0);
/// assert_eq!(flips(p, o, 9), 0);
/// ```
#[inline(always)]
#[must_use]
pub fn last_flip_count(p: u64, sq: u32) -> u32 {
    const FILE_A: u64 = 0x0101_0101_0101_0101;
    let (r, c) = ((sq >> 3) as usize, (sq & 7) as usize);
    let [down_right, down_left] = DIAGONALS[sq as usize];
    // Row r as a byte, bit = column.
    let row = (p >> (8 * r)) as u8 as usize;
    // Column c gathered into the top byte, row i at bit 7 - i (the terms 8i + 9j never meet).
    let col = (((p >> c) & FILE_A).wrapping_mul(0x8040_2010_0804_0201) >> 56) as usize;
    // A diagonal has one square per column: summing its rows gives a byte, bit = column.
    let d1 = ((p & down_right).wrapping_mul(FILE_A) >> 56) as usize;
    let d2 = ((p & down_left).wrapping_mul(FILE_A) >> 56) as usize;
    u32::from(COUNT_FLIPS[c][row])
        + u32::from(COUNT_FLIPS[7 - r][col])
        + u32::from(COUNT_FLIPS[c][d1])
        + u32::from(COUNT_FLIPS[c][d2])
}

/// Iterator over the set bits of a bitboard, lowest first (row-major order of squares).
#[derive(Debug, Clone, Copy)]
pub struct Squares(pub u64);

impl Iterator for Squares {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            None
        } else {
            let sq = self.0.trailing_zeros();
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_wrap_across_rows_on_full_width() {
        // Player on h1 (bit 7), opponent on a2 (bit 8), empty b2: shifting east from h1 must not
        // reach a2 on the next row.
        let p = 1u64 << 7;
        let o = 1u64 << 8;
        assert_eq!(legal_moves(p, o, 1u64 << 9), 0);
        assert_eq!(flips(p, o, 9), 0);
    }

    #[test]
    fn has_moves_agrees_with_legal_moves() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let y = x.rotate_left(23) ^ 0x9E37_79B9_7F4A_7C15;
            let (p, o) = (x & !y, y & !x);
            let empty = !(p | o) & x.rotate_left(7);
            assert_eq!(has_moves(p, o, empty), legal_moves(p, o, empty) != 0);
        }
    }

    #[test]
    fn last_flip_count_agrees_with_flips() {
        // Random full boards of every size with one empty square: the lookup count equals the
        // popcount of the real flips, for both sides.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for rows in 3..=8u32 {
            for cols in 3..=8u32 {
                let board = (0..rows).fold(0u64, |m, r| m | (((1u64 << cols) - 1) << (8 * r)));
                let squares: Vec<u32> = Squares(board).collect();
                for _ in 0..20_000 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let sq = squares[(x >> 40) as usize % squares.len()];
                    // Dense and sparse boards too, not only half-and-half ones.
                    let p = match x % 3 {
                        0 => x,
                        1 => x | x.rotate_left(17),
                        _ => x & x.rotate_left(17),
                    } & board
                        & !(1u64 << sq);
                    let o = board & !p & !(1u64 << sq);
                    assert_eq!(last_flip_count(p, sq), flips(p, o, sq).count_ones());
                    assert_eq!(last_flip_count(o, sq), flips(o, p, sq).count_ones());
                }
            }
        }
    }

    #[test]
    fn long_run_flips() {
        // a1 player, b1..g1 opponent, play h1: six flips.
        let p = 1u64;
        let o = 0b0111_1110u64;
        assert_eq!(flips(p, o, 7), o);
        assert_eq!(legal_moves(p, o, 1 << 7), 1 << 7);
    }
}
