//! Flips for the solver: the board's ray method (see [`crate::board::flips`]) with no branch on
//! the discs inside a ray, so that unpredictable runs cost no mispredicted jumps.
//!
//! Along each of the eight rays from the square, the run of the opponent's discs ends at the
//! first square that is not the opponent's; the run turns over if that square is the mover's.
//! Whether it is becomes a mask (all ones or zero) instead of a jump.

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

/// `NEIGHBOURS[sq]`: the squares of the frame next to `sq`.
static NEIGHBOURS: [u64; 64] = neighbours();

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

const fn neighbours() -> [u64; 64] {
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

/// All ones if `x` is not zero, else zero.
#[inline(always)]
fn mask_if(x: u64) -> u64 {
    u64::from(x != 0).wrapping_neg()
}

/// The discs of `o` that turn over when the owner of `p` plays on the empty square `sq`: the
/// same as [`crate::board::flips`].
#[inline]
#[must_use]
pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
    let rays = &RAYS[sq as usize];
    if NEIGHBOURS[sq as usize] & o == 0 {
        return 0;
    }
    let mut f = 0;
    for &ray in &rays[..4] {
        // Towards higher bits the run ends at the lowest bit of the ray outside `o`.
        let stop = ray & !o;
        let first = stop & stop.wrapping_neg();
        f |= ray & first.wrapping_sub(1) & mask_if(first & p);
    }
    for &ray in &rays[4..] {
        // Towards lower bits, at the highest. Bit 0 stands in when there is none: it is then
        // either off the ray (masked out below) or the opponent's, so nothing turns over.
        let stop = (ray & !o) | 1;
        let first = (1u64 << 63) >> stop.leading_zeros();
        f |= ray & (first.wrapping_neg() ^ first) & mask_if(first & p & ray);
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// The same flips as the board's function on random discs, every empty square tried.
    #[test]
    fn agrees_with_the_board_flips() {
        let mut rng = SplitMix64::new(11);
        for _ in 0..20_000 {
            let (a, b) = (rng.next(), rng.next());
            let occupied = a | b | rng.next();
            let (p, o) = (occupied & a, occupied & !a);
            for sq in 0..64 {
                if occupied & (1u64 << sq) == 0 {
                    assert_eq!(
                        flips(p, o, sq),
                        crate::board::flips(p, o, sq),
                        "{p:x} {o:x} {sq}"
                    );
                }
            }
        }
    }
}
