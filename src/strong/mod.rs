//! Strong solutions: the exact value and moves-to-end of every position reachable from the start.
//!
//! **What is solved.** Every position reachable from the start of a board is given
//!
//! - its *value*: the final disc difference under perfect play by both sides, empty squares
//!   counted for nobody. The table stores it from the side to move's point of view;
//!   [`StrongTable::value`] turns it into black minus white.
//! - its *moves-to-end*: the number of placements until the game ends under perfect play
//!   (passes are not placements). Among the moves that keep the value, a side whose value is
//!   a win or a draw (`>= 0`) takes the quickest end, a side that loses takes the longest one.
//!
//! **Positions.** A forced pass is folded into the position: a position whose side to move
//! has no move while the other side has one is replaced by the position after the pass. So
//! every stored position has a move for the side to move, or the game is over. Two positions
//! with the same discs but different sides to move are different positions, but they have the
//! same value from the side to move's point of view, so the table keys on the discs of the side
//! to move and of the other side only.
//!
//! **Method** ([`build`]): retrograde analysis in layers by disc count (every placement adds
//! exactly one disc). The layers are enumerated forward from the start in the layer tables of
//! dp's count (`forward.rs`), and each becomes a sorted `Vec` of canonical keys (the smallest
//! image under the board's symmetries, see [`Position::canonical`]); values are then resolved
//! backward from the last layer, each position looking its children up by binary search in
//! the next layer.

mod error;
mod forward;
mod retro;
mod store;

pub use error::StrongError;
pub use forward::LayerCount;
pub use retro::{build, FirstMove, StrongOptions, StrongReport, CONVENTION};
pub use store::{StoreError, FORMAT_VERSION, MAGIC};

use crate::board::{after_move, flips, Next, Position, Shape, Squares, Symmetry};

/// The largest number of squares a strong table can hold: both sides' discs must pack into one
/// 64-bit key.
pub const MAX_SQUARES: u32 = 32;

/// The odd multiplier that scrambles keys (Knuth's golden-ratio constant).
pub const KEY_MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

/// The inverse of [`KEY_MULTIPLIER`] modulo 2^64 (Newton's iteration doubles the correct bits).
const KEY_INVERSE: u64 = {
    let mut inv = KEY_MULTIPLIER; // correct to 3 bits for any odd number
    let mut i = 0;
    while i < 5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(KEY_MULTIPLIER.wrapping_mul(inv)));
        i += 1;
    }
    inv
};

/// The key of discs `(player, opponent)`: the code `pack(player) | pack(opponent) << squares`
/// times [`KEY_MULTIPLIER`] modulo 2^64. The product is a bijection, and its top bits are spread
/// evenly, so a sorted layer can be indexed by them.
#[inline]
#[must_use]
pub fn key_of(shape: Shape, player: u64, opponent: u64) -> u64 {
    let code = shape.pack(player) | (shape.pack(opponent) << shape.squares());
    code.wrapping_mul(KEY_MULTIPLIER)
}

/// The discs `(player, opponent)` of a key.
#[inline]
#[must_use]
pub fn discs_of(shape: Shape, key: u64) -> (u64, u64) {
    let code = key.wrapping_mul(KEY_INVERSE);
    let n = shape.squares();
    let low = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    (shape.unpack(code & low), shape.unpack(code >> n))
}

/// A position with the forced pass folded in: if the side to move has no move but the other
/// side has one, the position after the pass, and `true`.
#[inline]
#[must_use]
pub fn fold_pass(pos: &Position) -> (Position, bool) {
    if pos.moves() == 0 && pos.opponent_moves() != 0 {
        (pos.pass(), true)
    } else {
        (*pos, false)
    }
}

/// The child of discs `(p, o)` after a placement on `sq`, with a forced pass folded in: the
/// child's discs `(player, opponent)` and whether the turn came back to the mover (a pass).
#[inline]
#[must_use]
pub fn child_discs(mask: u64, p: u64, o: u64, sq: u32) -> (u64, u64, bool) {
    let f = flips(p, o, sq);
    let np = o ^ f;
    let no = p | f | (1u64 << sq);
    match after_move(np, no, mask & !(np | no)) {
        Next::Passes => (no, np, true),
        Next::Moves | Next::Over => (np, no, false),
    }
}

/// The symmetries of a board as permutations, with their products, for tracking which images
/// of a canonical position are reachable.
#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub(crate) syms: Vec<Symmetry>,
    /// `mul[i][j]` is the index of `syms[i] ∘ syms[j]` (apply `j` first).
    pub(crate) mul: Vec<Vec<usize>>,
    /// `inv[i]` is the index of the inverse of `syms[i]`.
    pub(crate) inv: Vec<usize>,
}

impl Group {
    pub(crate) fn new(shape: Shape) -> Group {
        let syms: Vec<Symmetry> = Symmetry::all(shape).to_vec();
        let squares: Vec<u32> = Squares(shape.mask()).collect();
        let perm = |s: Symmetry| -> Vec<u32> {
            squares.iter().map(|&q| s.apply_square(shape, q)).collect()
        };
        let perms: Vec<Vec<u32>> = syms.iter().map(|&s| perm(s)).collect();
        let find = |target: &[u32]| perms.iter().position(|p| p == target).expect("closed");
        let mul = (0..syms.len())
            .map(|i| {
                (0..syms.len())
                    .map(|j| {
                        let composed: Vec<u32> = squares
                            .iter()
                            .map(|&q| syms[i].apply_square(shape, syms[j].apply_square(shape, q)))
                            .collect();
                        find(&composed)
                    })
                    .collect()
            })
            .collect::<Vec<Vec<usize>>>();
        let inv = (0..syms.len())
            .map(|i| (0..syms.len()).find(|&j| mul[i][j] == 0).expect("inverse"))
            .collect();
        Group { syms, mul, inv }
    }
}

/// The canonical key of discs `(p, o)` (side to move's discs first).
#[inline]
#[must_use]
pub fn canonical_key(shape: Shape, p: u64, o: u64) -> u64 {
    let c = Position::from_player(shape, p, o, true).canonical();
    key_of(shape, c.0, c.1)
}

/// The value of one position from the side to move's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Entry {
    /// Final disc difference, side to move minus the other side, under perfect play.
    pub value: i8,
    /// Placements until the end under perfect play (quickest if `value >= 0`, longest if not).
    pub moves_to_end: u8,
}

/// One layer of the table: every reachable canonical position with `discs` discs, sorted by key.
#[derive(Debug, Clone, Default)]
pub struct Layer {
    /// Number of discs on the board.
    pub discs: u32,
    /// Sorted keys ([`key_of`] of the canonical discs).
    pub keys: Vec<u64>,
    /// Value of each key, side to move minus the other side.
    pub values: Vec<i8>,
    /// Moves-to-end of each key.
    pub moves_to_end: Vec<u8>,
    /// `index[b]` is the first key whose top `bits` bits are `>= b`: a lookup reads one slot
    /// here and searches a handful of keys, rather than binary-searching the whole layer.
    index: Vec<u32>,
    /// Bits of the key that pick the index slot.
    bits: u32,
}

impl Layer {
    /// A layer from sorted keys and their entries, with its lookup index.
    #[must_use]
    pub fn new(discs: u32, keys: Vec<u64>, values: Vec<i8>, moves_to_end: Vec<u8>) -> Layer {
        let (index, bits) = build_index(&keys);
        Layer {
            discs,
            keys,
            values,
            moves_to_end,
            index,
            bits,
        }
    }

    /// The position of `key` in [`Layer::keys`], if present.
    #[inline]
    #[must_use]
    pub fn find(&self, key: u64) -> Option<usize> {
        if self.index.is_empty() {
            return self.keys.binary_search(&key).ok();
        }
        let b = if self.bits == 0 {
            0
        } else {
            (key >> (64 - self.bits)) as usize
        };
        let (lo, hi) = (self.index[b] as usize, self.index[b + 1] as usize);
        self.keys[lo..hi].binary_search(&key).ok().map(|i| lo + i)
    }

    /// The entry of `key`, if present.
    #[inline]
    #[must_use]
    pub fn get(&self, key: u64) -> Option<Entry> {
        let i = self.find(key)?;
        Some(Entry {
            value: self.values[i],
            moves_to_end: self.moves_to_end[i],
        })
    }
}

/// The slot index of sorted keys: about four keys per slot (no index under 64 keys).
fn build_index(keys: &[u64]) -> (Vec<u32>, u32) {
    if keys.len() < 64 || keys.len() > u32::MAX as usize {
        return (Vec::new(), 0);
    }
    let bits = (keys.len() / 4).ilog2().min(30);
    let slots = 1usize << bits;
    let mut index = Vec::with_capacity(slots + 1);
    let mut i = 0usize;
    for b in 0..slots as u64 {
        while i < keys.len() && (keys[i] >> (64 - bits)) < b {
            i += 1;
        }
        index.push(i as u32);
    }
    index.push(keys.len() as u32);
    (index, bits)
}

/// A strong solution: value and moves-to-end of every reachable position up to symmetry.
///
/// # Examples
///
/// ```
/// use reversi_nxn::board::Shape;
/// use reversi_nxn::progress::Silent;
/// use reversi_nxn::strong::{build, StrongOptions};
/// let shape = Shape::square(4).unwrap();
/// let (table, _report) = build(shape, &StrongOptions::default(), &Silent).unwrap();
/// let (value, _moves) = table.value(&shape.start()).unwrap();
/// assert!(value < 0); // white, the second player, wins 4x4 (blog 2008-07-03)
/// ```
#[derive(Debug, Clone)]
pub struct StrongTable {
    shape: Shape,
    /// Layers indexed by disc count (empty layers for counts no position has).
    layers: Vec<Layer>,
}

impl StrongTable {
    /// A table from its layers (any order; missing disc counts are empty).
    #[must_use]
    pub fn from_layers(shape: Shape, layers: Vec<Layer>) -> StrongTable {
        let mut by_discs: Vec<Layer> = (0..=shape.squares())
            .map(|d| Layer::new(d, Vec::new(), Vec::new(), Vec::new()))
            .collect();
        for l in layers {
            let d = l.discs as usize;
            by_discs[d] = l;
        }
        StrongTable {
            shape,
            layers: by_discs,
        }
    }

    /// The board.
    #[must_use]
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The non-empty layers, by increasing disc count.
    pub fn layers(&self) -> impl Iterator<Item = &Layer> {
        self.layers.iter().filter(|l| !l.keys.is_empty())
    }

    /// Number of canonical positions stored.
    #[must_use]
    pub fn len(&self) -> usize {
        self.layers.iter().map(|l| l.keys.len()).sum()
    }

    /// Whether the table holds no position.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entry of the discs `(player, opponent)` with the side to move to play, if stored. The
    /// discs need not be canonical; a forced pass must already be folded in.
    #[inline]
    #[must_use]
    pub fn entry_discs(&self, player: u64, opponent: u64) -> Option<Entry> {
        let discs = (player | opponent).count_ones() as usize;
        self.layers
            .get(discs)?
            .get(canonical_key(self.shape, player, opponent))
    }

    /// The value and moves-to-end of `pos` from the side to move's point of view, with a forced
    /// pass folded in (the value is then still the original mover's). `None` if the position is
    /// on another board or not reachable from the start.
    #[must_use]
    pub fn entry(&self, pos: &Position) -> Option<Entry> {
        if pos.shape() != self.shape {
            return None;
        }
        let (folded, passed) = fold_pass(pos);
        let e = self.entry_discs(folded.player(), folded.opponent())?;
        Some(Entry {
            value: if passed { -e.value } else { e.value },
            moves_to_end: e.moves_to_end,
        })
    }

    /// The exact value of `pos` as black minus white under perfect play, and its moves-to-end.
    /// `None` if the position is on another board or not reachable from the start.
    ///
    /// The query is canonicalised, so any symmetric image of a reachable position is answered.
    #[must_use]
    pub fn value(&self, pos: &Position) -> Option<(i8, u8)> {
        let e = self.entry(pos)?;
        let black = if pos.black_to_move() {
            e.value
        } else {
            -e.value
        };
        Some((black, e.moves_to_end))
    }

    /// The value (black minus white) of every legal placement of `pos`, in square order, or
    /// `None` if a child is missing (the position is not reachable from the start).
    #[must_use]
    pub fn move_values(&self, pos: &Position) -> Option<Vec<(u32, i8, u8)>> {
        Squares(pos.moves())
            .map(|sq| {
                let child = pos.play(sq)?;
                let (v, m) = self.value(&child)?;
                Some((sq, v, m.saturating_add(1)))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip() {
        for (r, c) in [(3, 3), (4, 4), (5, 5), (4, 8), (3, 7)] {
            let shape = Shape::new(r, c).unwrap();
            let (pos, _) = shape.start().after_moves("").unwrap();
            let first = Squares(pos.moves()).next().unwrap();
            let pos = pos.play(first).unwrap();
            let k = key_of(shape, pos.player(), pos.opponent());
            assert_eq!(discs_of(shape, k), (pos.player(), pos.opponent()));
        }
    }

    #[test]
    fn key_inverse_inverts() {
        assert_eq!(KEY_MULTIPLIER.wrapping_mul(KEY_INVERSE), 1);
    }

    #[test]
    fn index_finds_every_key_and_no_other() {
        let keys: Vec<u64> = {
            let mut k: Vec<u64> = (0..5000u64)
                .map(|i| (i * 7 + 3).wrapping_mul(KEY_MULTIPLIER))
                .collect();
            k.sort_unstable();
            k
        };
        let n = keys.len();
        let layer = Layer::new(9, keys.clone(), vec![1; n], vec![2; n]);
        assert!(!layer.index.is_empty());
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(layer.find(k), Some(i));
            assert_eq!(layer.find(k ^ 1), keys.binary_search(&(k ^ 1)).ok());
        }
        assert_eq!(layer.find(0), None);
        assert_eq!(layer.find(u64::MAX), None);
    }

    #[test]
    fn group_products_are_closed() {
        for shape in [Shape::square(5).unwrap(), Shape::new(3, 5).unwrap()] {
            let g = Group::new(shape);
            let b = 0b1011u64 | (1 << 9);
            for i in 0..g.syms.len() {
                for j in 0..g.syms.len() {
                    let k = g.mul[i][j];
                    assert_eq!(
                        g.syms[k].apply(shape, b),
                        g.syms[i].apply(shape, g.syms[j].apply(shape, b))
                    );
                }
                assert_eq!(g.mul[i][g.inv[i]], 0);
            }
        }
    }
}
