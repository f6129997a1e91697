//! What the disk store expects of the next layer before it builds it: its growth, the share of
//! it with black to move, and sizes in words.

use super::super::Packer;
use super::manifest::{Manifest, SegmentRec};
use crate::board::Position;

pub(super) const GIB: f64 = (1u64 << 30) as f64;

/// The share of the positions of `recs` with black to move, if every record knows it.
pub(super) fn share(recs: &[SegmentRec]) -> Option<f64> {
    let entries: u64 = recs.iter().map(|s| s.entries).sum();
    let black = recs.iter().map(|s| s.black).sum::<Option<u64>>()?;
    (entries > 0).then(|| black as f64 / entries as f64)
}

/// The share of the next layer with black to move when no segment records it (manifests of
/// the first version): without passes, the colour to move alternates with the disc count.
pub(super) fn parity_share(pk: &Packer, m: &Manifest) -> f64 {
    match Position::from_board_string(&m.position, Some(pk.shape)) {
        Ok(root) => {
            let same = (m.discs + 1 - root.disc_count()).is_multiple_of(2);
            if same == root.black_to_move() {
                0.97
            } else {
                0.03
            }
        }
        Err(_) => 0.5,
    }
}

/// Bytes in the largest binary unit that keeps the number at least 1.
pub(super) fn human(bytes: f64) -> String {
    let mut x = bytes;
    for unit in ["bytes", "KiB", "MiB"] {
        if x < 1024.0 {
            return format!("{x:.1} {unit}");
        }
        x /= 1024.0;
    }
    format!("{x:.1} GiB")
}

/// The growth expected from the current layer (of `entries` positions) to the next: the last
/// growth, times its last change (growth falls layer after layer once the board fills).
pub(crate) fn predicted_growth(rows: &[(u32, u64)], entries: u64, last: f64) -> f64 {
    let g = match rows {
        [.., (_, a), (_, b)] if *a > 0 && *b > 0 => {
            let (g0, g1) = (*b as f64 / *a as f64, entries as f64 / *b as f64);
            g1 * (g1 / g0).clamp(0.5, 1.5)
        }
        [.., (_, b)] if *b > 0 => entries as f64 / *b as f64,
        _ => last,
    };
    g.clamp(0.3, 4.0)
}
