//! Streaming a worker's segments of the current layer through the expansion, sending the
//! children to their owners.

use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;

use super::super::job::{Fail, Job};
use super::super::rounds::{flush, Rounds};
use super::super::wire::FLUSH;
use super::state::{at, State};
use crate::count::dp::building::CHUNK;
use crate::count::dp::expand::{expand_chunk, Local};
use crate::count::dp::segment::{self, SegmentReader};
use crate::count::dp::{Expansion, Key, Slot};

/// Where a part's progress goes on the bar: the worker, the positions counted done before
/// the part, and the part's share of the next layer.
pub(super) struct Bar {
    pub(super) local: usize,
    pub(super) before: f64,
    pub(super) share: f64,
}

/// Streams this worker's segments of the current layer, expands them through `x` and sends the
/// children to their owners. Returns the bytes read.
#[allow(clippy::too_many_arguments)]
pub(super) fn expand_from_disk<S: Slot<N>, const N: usize>(
    rounds: &mut Rounds<'_, S, N>,
    state: &State,
    dir: &Path,
    x: &Expansion,
    l: &mut Local<S>,
    batch: usize,
    job: &Job,
    bar: &Bar,
    peak: &mut usize,
) -> Result<u64, Fail> {
    let show = |done: u64| {
        let at = bar.before + bar.share * done as f64;
        job.meter.done[bar.local].store(at as u64, Relaxed);
    };
    let mut read = 0;
    let mut done = 0u64;
    for rec in &state.layer {
        let path = dir.join(&rec.file);
        let mut r = SegmentReader::open(&path, N, <S::K as Key>::BYTES, state.discs, rec.info())
            .map_err(|e| at(&path, e))?;
        loop {
            let blocks = r.blocks(batch).map_err(|e| at(&path, e))?;
            if blocks.is_empty() {
                break;
            }
            for b in &blocks {
                let v = b.decode::<S, N>().map_err(|e| match e {
                    segment::DecodeError::Overflow => Fail::Overflow,
                    segment::DecodeError::Damaged(what) => at(&path, what),
                })?;
                for chunk in v.chunks(CHUNK) {
                    l.ok &= expand_chunk(chunk, b.black_to_move(), x, l);
                    done += chunk.len() as u64;
                    if l.staged.iter().map(Vec::len).sum::<usize>() >= FLUSH {
                        flush(rounds, l);
                        show(done);
                    }
                }
                *peak = (*peak).max(rounds.part_bytes() + v.len() * std::mem::size_of::<S>());
            }
        }
        read += r.read;
    }
    flush(rounds, l);
    show(done);
    Ok(read)
}
