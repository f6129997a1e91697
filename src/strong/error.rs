//! Why a strong solution could not be built ([`StrongError`]).

use thiserror::Error;

use super::MAX_SQUARES;
use crate::memory::MemoryError;

/// Why a strong solution could not be built.
#[derive(Debug, Error)]
pub enum StrongError {
    /// The board has too many squares for a 64-bit key.
    #[error("strong solutions need at most {MAX_SQUARES} squares; {0} has {1}")]
    TooLarge(String, u32),
    /// The memory budget is too small for this board.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// The user asked to stop.
    #[error("stopped by the user before the table was complete")]
    Stopped,
}
