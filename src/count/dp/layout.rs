//! The entry layout of a count: which key and counts width a board and its first-move classes
//! need, and the run of a count with it ([`by_layout`]).
//!
//! Below the one-process count in `mod.rs` and the dataflow count, which both run through it.

use super::{Entry, Packed2, Slot};
use crate::board::Position;
use crate::count::{CountError, MethodResult};

/// A count run with the entry layout [`by_layout`] chooses.
pub(crate) trait ByLayout {
    /// Runs with entries of layout `S` holding `N` path counts.
    fn run<S: Slot<N>, const N: usize>(&self) -> Result<MethodResult, CountError>;
    /// Called before running again with wider entries, after 16-byte ones overflowed.
    fn before_widening(&self) {}
}

/// Runs `job` with the entry layout for `k` first-move classes on `root`'s board: the key type
/// by board size, the counts width by the number of classes. Two classes on at most 25
/// squares fit 16-byte entries unless a count reaches 2^39: then the job runs again, wider.
pub(crate) fn by_layout(
    root: &Position,
    k: usize,
    job: &impl ByLayout,
) -> Result<MethodResult, CountError> {
    let small = root.shape().squares() <= 32;
    macro_rules! go {
        ($n:literal) => {
            if small {
                job.run::<Entry<u64, $n>, $n>()
            } else {
                job.run::<Entry<u128, $n>, $n>()
            }
        };
    }
    match k {
        1 => go!(1),
        2 if root.shape().squares() <= 25 => match job.run::<Packed2, 2>() {
            Err(CountError::Overflow(_)) => {
                job.before_widening();
                job.run::<Entry<u64, 2>, 2>()
            }
            r => r,
        },
        2 => go!(2),
        3 | 4 => go!(4),
        5..=8 => go!(8),
        9..=32 => go!(32),
        k => Err(CountError::Checkpoint {
            path: "-".into(),
            msg: format!("{k} first-move classes: dp handles at most 32; use --method dfs"),
        }),
    }
}
