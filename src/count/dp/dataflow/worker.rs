//! One worker of the dataflow count: its part of each layer, the rounds, the exchange.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

use super::{checkpoint, Fail, Job, WorkerOut};
use crate::count::dp::building::CHUNK;
use crate::count::dp::expand::{expand_chunk, Local};
use crate::count::dp::layer::{half, partition, Table};
use crate::count::dp::{partitions_for, Expansion, Key, Layer, Packer, Slot};
use crate::count::{ExchangeRow, LayerRow};
use crate::memory::HugeBuf;

/// Received children staged before they are merged into the tables.
const STAGE: usize = 1 << 21;

/// Children staged before they are sent and the worker takes in what others sent.
const FLUSH: usize = 1 << 14;

/// A message between workers, routed to worker `to` by timely's exchange.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Msg {
    to: u32,
    body: Body,
}

#[derive(Clone, Serialize, Deserialize)]
enum Body {
    /// Children with colour `half` to move (0 black), as [`words_of`] writes them.
    Children { half: u8, words: Vec<u64> },
    /// What a worker tells every worker once per round.
    Stat(Stat),
}

/// A worker's record of one round.
#[derive(Clone, Serialize, Deserialize)]
struct Stat {
    from: u32,
    handshake: u64,
    /// Handshake: the layers (bit = disc count) this worker has saved.
    saved: u64,
    /// Positions in the worker's part of the layer.
    len: u64,
    fail: Option<Fail>,
    /// The worker would like the next layer saved.
    save: bool,
    /// Final round: the worker's score tallies, as (low, high) words.
    tally: Vec<u64>,
    /// Bytes of children the worker sent in the previous round to other workers of its
    /// process and to other processes.
    sent: [u64; 2],
}

/// 64-bit words of a key.
pub(crate) fn key_words<K: Key>() -> usize {
    K::BYTES.div_ceil(8)
}

/// Appends the entries `v` to `out` as words: the key (low word first), then the counts.
pub(crate) fn words_of<S: Slot<N>, const N: usize>(v: &[S], out: &mut Vec<u64>) {
    let kw = key_words::<S::K>();
    out.reserve(v.len() * (kw + N));
    for e in v {
        let b = e.key().bits();
        out.push(b as u64);
        if kw == 2 {
            out.push((b >> 64) as u64);
        }
        out.extend_from_slice(&e.counts());
    }
}

/// The entry of the words `w` ([`words_of`]); `None` for a key that is no key, or for counts
/// too large for the slot.
pub(crate) fn entry_of<S: Slot<N>, const N: usize>(w: &[u64]) -> Option<S> {
    let kw = key_words::<S::K>();
    let mut bits = u128::from(w[0]);
    if kw == 2 {
        bits |= u128::from(w[1]) << 64;
    }
    let key = S::K::from_bits(bits)?;
    let mut counts = [0u64; N];
    counts.copy_from_slice(&w[kw..kw + N]);
    S::pack(key, counts)
}

/// A worker's part of the next layer while it is built: tables by colour and by the hash bits
/// below those that chose the worker.
pub(crate) struct Part<S: Copy, const N: usize> {
    me: usize,
    peers: usize,
    /// Tables per colour.
    q: usize,
    tables: Vec<Table<S, N>>,
    /// Entries waiting, by table.
    staged: Vec<Vec<S>>,
    staged_n: usize,
    pub(crate) ok: bool,
}

impl<S: Slot<N>, const N: usize> Part<S, N> {
    /// Tables for about `guess` positions, a share `black` of them with black to move (as
    /// `Building::new`: the halves of a layer differ greatly in size).
    pub(crate) fn new(me: usize, peers: usize, guess: usize, black: f64) -> Part<S, N> {
        let black = black.clamp(0.0, 1.0);
        let major = black.max(1.0 - black);
        let q = partitions_for(
            (guess as f64 * 2.0 * major) as usize,
            std::mem::size_of::<S>(),
        )
        .max(1);
        let initial = |share: f64| (guess as f64 * share / q as f64 * 8.0 / 7.0) as usize;
        let (b, w) = (initial(black), initial(1.0 - black));
        Part {
            me,
            peers,
            q,
            tables: (0..2 * q)
                .map(|t| Table::new(if t < q { b } else { w }))
                .collect(),
            staged: (0..2 * q).map(|_| Vec::new()).collect(),
            staged_n: 0,
            ok: true,
        }
    }

    /// The table of an entry with colour `h` to move whose key hashes to `hash`. The worker was
    /// chosen by `partition(hash, peers)`, so `partition(hash, peers * q)` falls in this
    /// worker's run of `q`.
    #[inline]
    fn table_of(&self, h: usize, hash: u64) -> usize {
        let g = partition(hash, self.peers * self.q) - self.me * self.q;
        debug_assert!(g < self.q, "an entry of another worker");
        h * self.q + g.min(self.q - 1)
    }

    /// Adds `e` with colour `h` to move.
    pub(crate) fn insert(&mut self, h: usize, e: S) {
        let hash = e.key().hash();
        let t = self.table_of(h, hash);
        self.ok &= self.tables[t].insert(e, hash);
    }

    /// Adds the entries of `words` ([`words_of`]) with colour `h` to move; `false` if the
    /// batch does not decode. They are staged by table and merged a table at a time once
    /// [`STAGE`] are waiting: each table (a few MiB) then takes many insertions while it is
    /// in the cache, as the one-process count's batches do.
    pub(crate) fn insert_words(&mut self, h: usize, words: &[u64]) -> bool {
        let stride = key_words::<S::K>() + N;
        for w in words.chunks_exact(stride) {
            let Some(e) = entry_of::<S, N>(w) else {
                self.ok = false;
                continue;
            };
            let t = self.table_of(h, e.key().hash());
            self.staged[t].push(e);
        }
        self.staged_n += words.len() / stride;
        if self.staged_n >= STAGE {
            self.merge_staged();
        }
        words.len().is_multiple_of(stride)
    }

    /// Merges the staged entries into their tables.
    fn merge_staged(&mut self) {
        for (table, staged) in self.tables.iter_mut().zip(&mut self.staged) {
            self.ok &= table.insert_all(staged.iter());
            staged.clear();
        }
        self.staged_n = 0;
    }

    pub(crate) fn bytes(&self) -> usize {
        self.tables.iter().map(Table::bytes).sum::<usize>()
            + self.staged.iter().map(Vec::capacity).sum::<usize>() * std::mem::size_of::<S>()
    }

    /// The finished part of the layer of `discs` discs.
    pub(crate) fn into_layer(mut self, discs: u32) -> Layer<S, N> {
        self.merge_staged();
        Layer {
            discs,
            per_half: self.q,
            parts: self.tables.into_iter().map(Table::into_part).collect(),
        }
    }
}

/// What the merge operator has received, by round.
struct Inbox<S: Copy, const N: usize> {
    me: usize,
    peers: usize,
    /// Size guess for a part not yet started, and the share of it with black to move.
    guess: usize,
    black: f64,
    next: BTreeMap<u64, Part<S, N>>,
    stats: BTreeMap<u64, Vec<Stat>>,
    /// A batch that did not decode (a bug or a foreign process): reported at the round's end.
    bad: bool,
}

impl<S: Slot<N>, const N: usize> Inbox<S, N> {
    fn receive(&mut self, t: u64, m: Msg) {
        match m.body {
            Body::Stat(s) => self.stats.entry(t).or_default().push(s),
            Body::Children { half, words } => {
                let (me, peers, guess, black) = (self.me, self.peers, self.guess, self.black);
                let part = self
                    .next
                    .entry(t)
                    .or_insert_with(|| Part::new(me, peers, guess, black));
                self.bad |= !part.insert_words(usize::from(half & 1), &words);
            }
        }
    }
}

/// The worker's side of a round: sends, steps the dataflow until the round is over everywhere,
/// and returns the round's records from every worker.
struct Rounds<'a, S: Copy, const N: usize> {
    worker: &'a mut Worker,
    input: InputHandle<u64, CapacityContainerBuilder<Vec<Msg>>>,
    probe: ProbeHandle<u64>,
    inbox: Rc<RefCell<Inbox<S, N>>>,
    peers: usize,
    /// Workers per process.
    workers: usize,
    /// Bytes of children sent this round to other workers of this process, to other processes.
    sent: [u64; 2],
}

impl<S: Slot<N>, const N: usize> Rounds<'_, S, N> {
    /// Starts round `t`: what is sent from now on belongs to it.
    fn begin(&mut self, t: u64) {
        self.input.advance_to(t);
    }

    fn send(&mut self, m: Msg) {
        self.input.send(m);
    }

    /// Sends `stat` to every worker.
    fn tell_all(&mut self, stat: &Stat) {
        for to in 0..self.peers {
            self.input.send(Msg {
                to: to as u32,
                body: Body::Stat(stat.clone()),
            });
        }
    }

    /// Ends round `t`: waits until every worker's messages of the round are merged.
    fn finish(&mut self, t: u64) -> Result<Vec<Stat>, Fail> {
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

/// Runs one worker to the end; every worker returns the same result.
pub(crate) fn worker_main<S: Slot<N>, const N: usize>(
    worker: &mut Worker,
    job: &Job,
) -> Result<WorkerOut, Fail> {
    let me = worker.index();
    let peers = worker.peers();
    let local = me % job.meter.discs.len();
    let shape = job.root.shape();
    let pk = Packer::new(shape, job.symmetry);
    let k = job.classes.len();
    let stride = shape.squares() as usize + 1;
    let ss = stride * stride;

    let inbox = Rc::new(RefCell::new(Inbox::<S, N> {
        me,
        peers,
        guess: 1024,
        black: 0.5,
        next: BTreeMap::new(),
        stats: BTreeMap::new(),
        bad: false,
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
    let mut rounds = Rounds {
        worker,
        input,
        probe,
        inbox: Rc::clone(&inbox),
        peers,
        workers: job.meter.discs.len(),
        sent: [0; 2],
    };

    // Handshake: the same run everywhere, and the layers every worker saved.
    let dir = job.checkpoint.as_deref();
    let saved = dir.map_or(0, |d| checkpoint::saved_mask(d, job.run_id, me, peers));
    let hello = Stat {
        from: me as u32,
        handshake: job.handshake,
        saved,
        len: 0,
        fail: None,
        save: false,
        tally: Vec::new(),
        sent: [0; 2],
    };
    rounds.begin(0);
    rounds.tell_all(&hello);
    let stats = rounds.finish(0)?;
    if let Some(other) = stats.iter().find(|s| s.handshake != job.handshake) {
        let workers = job.meter.discs.len();
        return Err(Fail::Input(format!(
            "process {} was started with another board, options, --workers, number of \
             processes or --resume than process {}: start every process with the same command",
            other.from as usize / workers,
            me / workers
        )));
    }
    let common = stats.iter().fold(u64::MAX, |m, s| m & s.saved);

    let mut tally = vec![0u128; k * ss];
    let mut rows: Vec<LayerRow> = Vec::new();
    let mut layer: Layer<S, N>;
    let mut resumed = 0;
    if job.resume {
        if common == 0 {
            return Err(Fail::Input(
                "--resume: no layer was saved by every worker (start afresh without --resume \
                 after deleting the checkpoint directories)"
                    .into(),
            ));
        }
        let discs = 63 - common.leading_zeros();
        let dir = dir.expect("resume has a directory");
        let state = checkpoint::load::<S, N>(dir, job.run_id, me, peers, discs, k * ss)
            .map_err(Fail::Other)?;
        layer = state.layer;
        tally = state.tally;
        rows = state.rows;
        resumed = rows.len() as u64;
    } else {
        let discs = job.classes[0].disc_count();
        let mut part = Part::<S, N>::new(me, peers, 1, 0.5);
        for (i, c) in job.classes.iter().enumerate() {
            let mut counts = [0u64; N];
            counts[i] = 1;
            let key = S::K::canonical(&pk, c.player(), c.opponent());
            if partition(key.hash(), peers) == me {
                part.insert(half(c.black_to_move()), S::pack(key, counts).expect("ones"));
            }
        }
        layer = part.into_layer(discs);
    }

    let mut save_now = false;
    let mut last_save = Instant::now();
    let mut peak = 0usize;
    let mut growth = 4.0f64;
    let mut fail: Option<Fail> = None;
    let mut rounds_here = 0u64;
    let mut exchanged = Vec::new();
    let mut l = Local::<S> {
        staged: (0..2 * peers).map(|_| Vec::new()).collect(),
        tally: vec![0u128; k * ss],
        ok: true,
    };
    loop {
        let discs = layer.discs;
        let t = u64::from(discs);
        let my_len = layer.len();
        job.meter.len[local].store(my_len as u64, Ordering::Relaxed);
        job.meter.done[local].store(0, Ordering::Relaxed);
        job.meter.discs[local].store(discs, Ordering::Relaxed);
        if save_now && fail.is_none() {
            if let Some(d) = dir {
                for (a, b) in tally.iter_mut().zip(&l.tally) {
                    *a += b;
                }
                l.tally.fill(0);
                if let Err(e) = checkpoint::save(d, job.run_id, me, peers, &layer, &tally, &rows) {
                    fail = Some(Fail::Other(e));
                }
                last_save = Instant::now();
            }
        }
        if fail.is_none() && job.stop_after.is_some_and(|n| rounds_here >= n) {
            fail = Some(Fail::Stopped);
        }
        let stat = Stat {
            from: me as u32,
            handshake: job.handshake,
            saved: 0,
            len: my_len as u64,
            fail: fail.clone(),
            save: dir.is_some() && last_save.elapsed() >= job.save_every,
            tally: Vec::new(),
            sent: std::mem::take(&mut rounds.sent),
        };
        rounds.begin(t);
        rounds.tell_all(&stat);
        if fail.is_none() {
            let guess = (my_len as f64 * (0.75 * growth).clamp(0.5, 4.0)) as usize;
            // Children mostly have the other colour to move.
            let black_here = layer.half_len(0) as f64 / my_len.max(1) as f64;
            let mut inbox = rounds.inbox.borrow_mut();
            inbox.guess = guess;
            inbox.black = 1.0 - black_here;
            drop(inbox);
            if let Err(f) = expand_part(&mut rounds, &mut layer, &pk, &mut l, job, local, &mut peak)
            {
                fail = Some(f);
            }
        }
        let stats = rounds.finish(t)?;
        if let Some(f) = stats.iter().find_map(|s| s.fail.clone()) {
            return Err(f);
        }
        if rounds_here > 0 {
            exchanged.push(exchange_row(discs - 1, &stats));
        }
        let total: u64 = stats.iter().map(|s| s.len).sum();
        if total == 0 {
            break;
        }
        rows.push(LayerRow {
            discs,
            positions: total,
        });
        rounds_here += 1;
        job.meter.layers_done.fetch_add(1, Ordering::Relaxed);
        save_now = stats.iter().any(|s| s.save);
        let next = rounds
            .inbox
            .borrow_mut()
            .next
            .remove(&t)
            .unwrap_or_else(|| Part::new(me, peers, 0, 0.5));
        if !next.ok || !l.ok {
            fail = Some(Fail::Overflow);
        }
        let before = my_len.max(1);
        layer = next.into_layer(discs + 1);
        growth = layer.len() as f64 / before as f64;
    }

    // The tallies, once, to everyone.
    for (a, b) in tally.iter_mut().zip(&l.tally) {
        *a += b;
    }
    let t = u64::from(layer.discs) + 1;
    let last = Stat {
        from: me as u32,
        handshake: job.handshake,
        saved: 0,
        len: 0,
        fail: None,
        save: false,
        tally: tally
            .iter()
            .flat_map(|&c| [c as u64, (c >> 64) as u64])
            .collect(),
        sent: [0; 2],
    };
    rounds.begin(t);
    rounds.tell_all(&last);
    let stats = rounds.finish(t)?;
    let mut sum = vec![0u128; k * ss];
    for s in &stats {
        for (a, w) in sum.iter_mut().zip(s.tally.chunks_exact(2)) {
            *a += u128::from(w[0]) | u128::from(w[1]) << 64;
        }
    }
    Ok(WorkerOut {
        matrices: sum.chunks(ss).map(<[u128]>::to_vec).collect(),
        rows,
        exchanged,
        peak,
        resumed,
    })
}

/// The traffic of the round that expanded the layer of `discs` discs, from the records of the
/// round after it.
fn exchange_row(discs: u32, stats: &[Stat]) -> ExchangeRow {
    ExchangeRow {
        discs,
        within_processes: stats.iter().map(|s| s.sent[0]).sum(),
        between_processes: stats.iter().map(|s| s.sent[1]).sum(),
    }
}

/// Expands the worker's part of the layer, freeing it as it goes, and sends the children to
/// their owners in batches, taking in the others' batches between two.
fn expand_part<S: Slot<N>, const N: usize>(
    rounds: &mut Rounds<'_, S, N>,
    layer: &mut Layer<S, N>,
    pk: &Packer,
    l: &mut Local<S>,
    job: &Job,
    local: usize,
    peak: &mut usize,
) -> Result<(), Fail> {
    let peers = rounds.peers;
    let x = Expansion::new(pk, peers, None);
    let mut staged = 0usize;
    let mut done = 0u64;
    for p in 0..layer.parts.len() {
        let btm = p < layer.per_half;
        let part = std::mem::replace(&mut layer.parts[p], HugeBuf::new(0, S::FREE));
        for chunk in part.chunks(CHUNK) {
            l.ok &= expand_chunk(chunk, btm, &x, l);
            staged = l.staged.iter().map(Vec::len).sum();
            done += chunk.len() as u64;
            if staged >= FLUSH {
                flush(rounds, l);
                job.meter.done[local].store(done, Ordering::Relaxed);
            }
        }
        drop(part);
        let next_bytes = rounds
            .inbox
            .borrow()
            .next
            .values()
            .map(Part::bytes)
            .sum::<usize>();
        let now = layer.bytes() + next_bytes + staged * std::mem::size_of::<S>();
        *peak = (*peak).max(now);
        if *peak as u64 > job.worker_budget {
            return Err(Fail::Memory(
                (*peak as u64).div_ceil(1 << 20),
                job.worker_budget >> 20,
            ));
        }
    }
    flush(rounds, l);
    job.meter.done[local].store(done, Ordering::Relaxed);
    Ok(())
}

/// Sends the staged children to their owners and lets the dataflow take in what came.
fn flush<S: Slot<N>, const N: usize>(rounds: &mut Rounds<'_, S, N>, l: &mut Local<S>) {
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
