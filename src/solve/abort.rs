//! The stop flag of a split of the parallel search, which both the search (to return at once
//! under a raised flag) and the split (to raise it on a cutoff) use.

use std::sync::atomic::{AtomicBool, Ordering};

/// The stop flag of one split, chained to the flags of the splits around it.
#[derive(Debug)]
pub struct Abort<'a> {
    flag: AtomicBool,
    parent: Option<&'a Abort<'a>>,
}

impl<'a> Abort<'a> {
    /// A raised-by-nobody flag of a split inside the split of `parent`, if any.
    #[must_use]
    pub fn under(parent: Option<&'a Abort<'a>>) -> Abort<'a> {
        Abort {
            flag: AtomicBool::new(false),
            parent,
        }
    }

    /// Raises this split's flag: it was cut off.
    #[inline]
    pub fn set(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// Whether this split or any split around it has been cut off.
    #[inline]
    #[must_use]
    pub fn is_set(&self) -> bool {
        let mut a = Some(self);
        while let Some(x) = a {
            if x.flag.load(Ordering::Relaxed) {
                return true;
            }
            a = x.parent;
        }
        false
    }
}
