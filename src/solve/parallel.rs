//! The parallel search: young brothers wait, on rayon.
//!
//! At a null-window node (`beta == alpha + 1`) with enough empty squares, the first (best
//! ordered) move is searched alone; if it does not cut off, the other moves are searched at once
//! on rayon's workers, all with the same window (a null window never moves), sharing the table.
//! When one of them cuts off, the split's [`Abort`] flag tells the others to stop; a search
//! under a raised flag sees it within 16 interior nodes (`POLL_EVERY`), returns from there
//! without storing anything, and its result is dropped (one that finished first is complete,
//! hence sound).
//!
//! The value is the same for any number of threads: every result used is a complete,
//! sound alpha-beta result, and the table stores only sound bounds. Only the node count and the
//! time depend on the threads.

use rayon::prelude::*;

use super::abort::Abort;
use super::search::{Cand, Searcher, INF};
use super::watch::Watched;
use crate::cpu::Cpu;

impl<C: Cpu> Searcher<'_, C> {
    /// Searches the moves `rest` of `(p, o)` in parallel with the null window `(alpha, beta)`,
    /// counting each move done in `watched` (the node, when it is at the watched top plies).
    /// Returns the best complete result and its move (`-INF` if none finished because a split
    /// around this one was cut off).
    pub(super) fn split(
        &mut self,
        p: u64,
        o: u64,
        rest: &[Cand],
        alpha: i32,
        beta: i32,
        watched: Option<Watched>,
    ) -> (i32, u32) {
        debug_assert_eq!(beta, alpha + 1);
        let abort = Abort::under(self.abort);
        let ctx = self.ctx;
        rest.par_iter()
            .map(|c| {
                if abort.is_set() {
                    return (-INF, c.sq);
                }
                let mut s = Searcher::new(ctx, self.cpu, Some(&abort));
                s.sel = self.sel;
                let (np, no) = (o ^ c.flips, p | c.flips | (1u64 << c.sq));
                let v = -s.search(np, no, -beta, -alpha);
                if s.aborted() {
                    return (-INF, c.sq);
                }
                if let Some(w) = watched {
                    ctx.table.top().add(w);
                }
                if v >= beta {
                    abort.set();
                }
                (v, c.sq)
            })
            .reduce(
                || (-INF, u32::MAX),
                |a, b| {
                    // The larger value; on a tie the earlier square, so the choice is stable.
                    if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
                        b
                    } else {
                        a
                    }
                },
            )
    }
}
