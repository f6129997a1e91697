//! A worker's rounds: its dataflow, sending children and records, and waiting until a round is
//! over everywhere.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

use super::job::{Fail, Job};
use super::part::{Inbox, Part};
use super::wire::{words_of, Body, Msg, Stat};
use crate::count::dp::expand::Local;
use crate::count::dp::Slot;

/// The worker's side of a round: sends, steps the dataflow until the round is over everywhere,
/// and returns the round's records from every worker.
pub(super) struct Rounds<'a, S: Copy, const N: usize> {
    worker: &'a mut Worker,
    input: InputHandle<u64, CapacityContainerBuilder<Vec<Msg>>>,
    probe: ProbeHandle<u64>,
    inbox: Rc<RefCell<Inbox<S, N>>>,
    peers: usize,
    /// Workers per process.
    workers: usize,
    /// Bytes of children sent this round to other workers of this process, to other processes.
    sent: [u64; 2],
    handshake: u64,
}

impl<'a, S: Slot<N>, const N: usize> Rounds<'a, S, N> {
    /// The worker's dataflow: an input of messages, exchanged to the worker each names, into an
    /// operator that merges children into the [`Inbox`] and files the records by round.
    pub(super) fn new(worker: &'a mut Worker, job: &Job) -> Rounds<'a, S, N> {
        let me = worker.index();
        let peers = worker.peers();
        let inbox = Rc::new(RefCell::new(Inbox::<S, N> {
            me,
            peers,
            guess: 1024,
            black: 0.5,
            next: BTreeMap::new(),
            stats: BTreeMap::new(),
            bad: false,
            cap: usize::MAX,
            over: BTreeSet::new(),
            stage: super::wire::STAGE,
        }));
        let mut input = InputHandle::<u64, CapacityContainerBuilder<Vec<Msg>>>::new_with_builder();
        let probe = ProbeHandle::new();
        {
            let inbox = Rc::clone(&inbox);
            worker.dataflow::<u64, _, _>(|scope| {
                scope
                    .input_from(&mut input)
                    .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                        Exchange::new(|m: &Msg| u64::from(m.to)),
                        "merge",
                        move |_, _| {
                            move |input, _output| {
                                input.for_each(|cap, data| {
                                    let t = *cap.least().expect("a time");
                                    let mut inbox = inbox.borrow_mut();
                                    for m in data.drain(..) {
                                        inbox.receive(t, m);
                                    }
                                });
                            }
                        },
                    )
                    .probe_with(&probe);
            });
        }
        Rounds {
            worker,
            input,
            probe,
            inbox,
            peers,
            workers: job.meter.discs.len(),
            sent: [0; 2],
            handshake: job.handshake,
        }
    }

    pub(super) fn me(&self) -> usize {
        self.worker.index()
    }

    pub(super) fn peers(&self) -> usize {
        self.peers
    }

    /// This worker's record of a round, with `fail` and the bytes sent since the last one.
    pub(super) fn stat(&mut self, fail: Option<Fail>) -> Stat {
        Stat {
            from: self.me() as u32,
            handshake: self.handshake,
            saved: 0,
            len: 0,
            fail,
            save: false,
            tally: Vec::new(),
            sent: std::mem::take(&mut self.sent),
            over: false,
            disk_saved: 0,
        }
    }

    /// Sizes the parts of the coming round: about `guess` positions, a share `black` of them
    /// with black to move, at most `cap` bytes with `stage` entries staged.
    pub(super) fn prepare(&mut self, guess: usize, black: f64, cap: usize, stage: usize) {
        let mut inbox = self.inbox.borrow_mut();
        inbox.guess = guess;
        inbox.black = black;
        inbox.cap = cap;
        inbox.stage = stage;
    }

    /// The part received in round `t`, if any, and whether it outgrew its cap.
    pub(super) fn take_part(&mut self, t: u64) -> (Option<Part<S, N>>, bool) {
        let mut inbox = self.inbox.borrow_mut();
        (inbox.next.remove(&t), inbox.over.remove(&t))
    }

    /// Bytes of the parts being received.
    pub(super) fn part_bytes(&self) -> usize {
        self.inbox.borrow().next.values().map(Part::bytes).sum()
    }

    /// Round `t`, in which every worker tells its `len`: every worker's record.
    pub(super) fn all_lens(&mut self, t: u64, len: u64) -> Result<Vec<Stat>, Fail> {
        self.begin(t);
        let mut stat = self.stat(None);
        stat.len = len;
        self.tell_all(&stat);
        self.finish(t)
    }

    /// Starts round `t`: what is sent from now on belongs to it.
    pub(super) fn begin(&mut self, t: u64) {
        self.input.advance_to(t);
    }

    pub(super) fn send(&mut self, m: Msg) {
        self.input.send(m);
    }

    /// Sends `stat` to every worker.
    pub(super) fn tell_all(&mut self, stat: &Stat) {
        for to in 0..self.peers {
            self.input.send(Msg {
                to: to as u32,
                body: Body::Stat(stat.clone()),
            });
        }
    }

    /// Ends round `t`: waits until every worker's messages of the round are merged.
    pub(super) fn finish(&mut self, t: u64) -> Result<Vec<Stat>, Fail> {
        self.input.advance_to(t + 1);
        while self.probe.less_than(&(t + 1)) {
            self.worker.step();
        }
        let mut inbox = self.inbox.borrow_mut();
        if inbox.bad {
            return Err(Fail::Other("a batch of children did not decode".into()));
        }
        let stats = inbox.stats.remove(&t).unwrap_or_default();
        if stats.len() != self.peers {
            return Err(Fail::Other(format!(
                "round {t}: {} of {} workers reported",
                stats.len(),
                self.peers
            )));
        }
        Ok(stats)
    }
}

/// The score tallies, once, to everyone, in round `t`: their sums, per class (cells of `ss`).
pub(super) fn share_tallies<S: Slot<N>, const N: usize>(
    rounds: &mut Rounds<'_, S, N>,
    t: u64,
    tally: &[u128],
    ss: usize,
) -> Result<Vec<Vec<u128>>, Fail> {
    let mut last = rounds.stat(None);
    last.tally = tally
        .iter()
        .flat_map(|&c| [c as u64, (c >> 64) as u64])
        .collect();
    rounds.begin(t);
    rounds.tell_all(&last);
    let stats = rounds.finish(t)?;
    let mut sum = vec![0u128; tally.len()];
    for s in &stats {
        for (a, w) in sum.iter_mut().zip(s.tally.chunks_exact(2)) {
            *a += u128::from(w[0]) | u128::from(w[1]) << 64;
        }
    }
    Ok(sum.chunks(ss).map(<[u128]>::to_vec).collect())
}

/// Sends the staged children to their owners and lets the dataflow take in what came.
pub(super) fn flush<S: Slot<N>, const N: usize>(rounds: &mut Rounds<'_, S, N>, l: &mut Local<S>) {
    let peers = rounds.peers;
    for (t, v) in l.staged.iter_mut().enumerate() {
        if v.is_empty() {
            continue;
        }
        let mut words = Vec::new();
        words_of::<S, N>(v, &mut words);
        v.clear();
        let to = t % peers;
        let me = rounds.worker.index();
        if to != me {
            let far = usize::from(to / rounds.workers != me / rounds.workers);
            rounds.sent[far] += 8 * words.len() as u64;
        }
        rounds.send(Msg {
            to: to as u32,
            body: Body::Children {
                half: (t / peers) as u8,
                words,
            },
        });
    }
    rounds.worker.step();
}
