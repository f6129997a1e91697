//! A progress bar with an estimate of the time left, drawn on stderr when it is a terminal;
//! when stderr is a file (a run left in the background with its output in a log), a plain line
//! with the same figures every [`LOG_EVERY`] instead.

use indicatif::{ProgressBar, ProgressStyle};
use reversi_nxn::progress::{human_duration, Progress};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// How often a bar that is not drawn writes a progress line, unless the environment variable
/// `REVERSI_PROGRESS_SECS` gives another number of seconds.
pub const LOG_EVERY: Duration = Duration::from_secs(60);

/// [`LOG_EVERY`], or `REVERSI_PROGRESS_SECS` when it holds a number of seconds (a fraction
/// such as 0.2 too; 0 writes a line at every advance).
fn log_every() -> Duration {
    std::env::var("REVERSI_PROGRESS_SECS")
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s.trim().parse::<f64>().ok()?).ok())
        .unwrap_or(LOG_EVERY)
}

/// How often [`Bar::watch`] refreshes a drawn bar.
const DRAW_EVERY: Duration = Duration::from_secs(1);

/// The shortest period of [`Bar::watch`]'s lines, whatever `REVERSI_PROGRESS_SECS` says (0
/// there means every advance, which a watch has none of).
const WATCH_MIN: Duration = Duration::from_millis(100);

/// Draws the library's progress reports as an indicatif bar.
pub struct Bar {
    bar: ProgressBar,
    stop: Arc<AtomicBool>,
    /// When the last progress line was written, if stderr is not a terminal.
    logged: Option<Mutex<LogState>>,
    /// What the work is on now ([`Progress::working_on`]), for [`Bar::watch`].
    working: Mutex<String>,
    /// The whole work this run is part of, for [`Bar::watch`]'s lines ([`Bar::set_whole`]).
    whole: Mutex<Option<Whole>>,
    /// How far the work has got inside what it is on, for [`Bar::watch`]'s lines
    /// ([`Bar::set_detail`]).
    detail: Mutex<Option<Detail>>,
}

/// What [`Bar::set_detail`] takes: words read afresh for each of [`Bar::watch`]'s lines.
pub type Detail = Box<dyn Fn() -> Option<String> + Send + Sync>;

/// The whole of a long work that a run is part of: what the runs before it did (a resumed
/// solve), and the nodes the work was sized at before it started, if known.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Whole {
    /// Nodes of the runs before this one.
    pub nodes_before: u64,
    /// Seconds of the runs before this one.
    pub seconds_before: f64,
    /// Nodes the whole work is estimated at beforehand.
    pub sized_nodes: Option<f64>,
}

/// What [`Bar::watch`]'s line adds for the whole work, after this run's `nodes` in `seconds`:
/// the totals of all runs when there were runs before, and the time left if the work takes the
/// nodes it was sized at, at this run's average rate (said as such: a size estimate strays
/// tenfold, so it is no promise).
#[must_use]
pub fn whole_words(whole: &Whole, nodes: u64, seconds: f64) -> String {
    let total = whole.nodes_before + nodes;
    let mut words = String::new();
    if whole.nodes_before > 0 || whole.seconds_before > 0.0 {
        words += &format!(
            "; all runs {:.3e} nodes, {}",
            total as f64,
            human_duration(whole.seconds_before + seconds)
        );
    }
    if let Some(sized) = whole.sized_nodes {
        let rate = nodes as f64 / seconds;
        if (total as f64) < sized && rate.is_finite() && rate > 0.0 {
            words += &format!(
                "; about {} left at this rate if it takes the {sized:.1e} nodes it is sized at",
                human_duration((sized - total as f64) / rate)
            );
        } else if total as f64 >= sized {
            words += &format!("; past the {sized:.1e} nodes it was sized at");
        }
    }
    words
}

/// What the progress lines of a bar that is not drawn keep between calls.
struct LogState {
    /// When the last line was written.
    last: Instant,
    /// How often to write one.
    every: Duration,
    /// When and at which position the work was first seen to advance since `start` (the first
    /// advance of a resumed run is the work taken from its checkpoint): the time left is
    /// reckoned from the average rate since then, which a pause or a resumed jump cannot skew.
    base: Option<(Instant, u64)>,
}

impl Bar {
    /// A bar that is hidden unless stderr is a terminal. `stop` is set by the Ctrl-C handler.
    pub fn new(stop: Arc<AtomicBool>) -> Bar {
        let bar = ProgressBar::hidden();
        let logged = (!std::io::IsTerminal::is_terminal(&std::io::stderr())).then(|| {
            Mutex::new(LogState {
                last: Instant::now(),
                every: log_every(),
                base: None,
            })
        });
        Bar {
            bar,
            stop,
            logged,
            working: Mutex::new(String::new()),
            whole: Mutex::new(None),
            detail: Mutex::new(None),
        }
    }

    /// Makes [`Bar::watch`]'s lines put this run in the whole work ([`whole_words`]).
    pub fn set_whole(&self, whole: Whole) {
        if let Ok(mut w) = self.whole.lock() {
            *w = Some(whole);
        }
    }

    /// Makes [`Bar::watch`]'s lines add `detail`'s words, when it has any, after what the work
    /// says it is on: how far it has got inside it (a solve's root move).
    pub fn set_detail(&self, detail: Detail) {
        if let Ok(mut d) = self.detail.lock() {
            *d = Some(detail);
        }
    }

    /// Runs `work` while a second thread reports on it: the running count `nodes`, the time,
    /// and what the work says it is on ([`Progress::working_on`], `first` until it says): on
    /// the drawn bar every [`DRAW_EVERY`], or when stderr is not a terminal in a line every
    /// [`LOG_EVERY`] (`REVERSI_PROGRESS_SECS`). For work whose units are few and long (a solve
    /// has a handful of root moves), so that it does not look stuck. The reporter only reads
    /// the counter, so the work runs as fast as without it.
    pub fn watch<T>(
        &self,
        label: &str,
        nodes: &AtomicU64,
        first: &str,
        work: impl FnOnce() -> T,
    ) -> T {
        if let Ok(mut w) = self.working.lock() {
            *w = first.to_string();
        }
        let t0 = Instant::now();
        let every = if self.logged.is_some() {
            log_every().max(WATCH_MIN)
        } else {
            DRAW_EVERY
        };
        let (done, wait) = mpsc::channel::<()>();
        std::thread::scope(|scope| {
            scope.spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(every) {
                    let n = nodes.load(Ordering::Relaxed);
                    let mut what = self.working.lock().map(|w| w.clone()).unwrap_or_default();
                    if let Some(words) = self.detail.lock().ok().and_then(|d| d.as_ref()?()) {
                        what = format!("{what}; {words}");
                    }
                    let secs = t0.elapsed().as_secs_f64();
                    let whole = self.whole.lock().ok().and_then(|w| *w);
                    let more = whole.map_or(String::new(), |w| whole_words(&w, n, secs));
                    if self.logged.is_some() {
                        eprintln!("{label}: {what}, {n} nodes, {secs:.0} s so far{more}");
                    } else {
                        self.bar
                            .set_message(format!("{label} {what}, {n:.2e} nodes{more}"));
                    }
                }
            });
            let r = work();
            drop(done);
            r
        })
    }
}

impl Progress for Bar {
    fn start(&self, label: &str, total: u64) {
        self.bar.set_length(total);
        self.bar.set_position(0);
        self.bar.reset_eta();
        self.bar
            .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        self.bar.set_style(
            ProgressStyle::with_template(
                "{msg:>8} [{elapsed_precise}] {wide_bar} {pos}/{len} ({percent}%) eta {eta}",
            )
            .expect("static template"),
        );
        self.bar.set_message(label.to_string());
        if let Some(Ok(mut state)) = self.logged.as_ref().map(Mutex::lock) {
            state.base = None;
        }
    }

    fn resize(&self, total: u64) {
        self.bar.set_length(total);
    }

    fn advance(&self, n: u64) {
        self.bar.inc(n);
        let Some(logged) = &self.logged else { return };
        let Ok(mut state) = logged.try_lock() else {
            return;
        };
        let (pos, len) = (self.bar.position(), self.bar.length().unwrap_or(0));
        let Some((t0, p0)) = state.base else {
            state.base = Some((Instant::now(), pos));
            return;
        };
        if state.last.elapsed() < state.every {
            return;
        }
        state.last = Instant::now();
        let done = pos.saturating_sub(p0);
        let left = if done > 0 && len >= pos {
            let secs = t0.elapsed().as_secs_f64() * (len - pos) as f64 / done as f64;
            format!(", about {secs:.0} s left")
        } else {
            String::new()
        };
        let pct = if len > 0 {
            100.0 * pos as f64 / len as f64
        } else {
            0.0
        };
        eprintln!(
            "{}: {pos} of {len} ({pct:.1}%), {} s so far{left}",
            self.bar.message(),
            self.bar.elapsed().as_secs()
        );
    }

    fn working_on(&self, what: &str) {
        if let Ok(mut w) = self.working.lock() {
            *w = what.to_string();
        }
    }

    fn note(&self, line: &str) {
        if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            self.bar.println(line);
        } else {
            eprintln!("{line}");
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn should_stop(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_give_totals_and_the_time_left_by_the_size() {
        let first = Whole {
            nodes_before: 0,
            seconds_before: 0.0,
            sized_nodes: Some(1e9),
        };
        // A first run at 1e6 nodes a second with 9e8 of 1e9 nodes to go: 900 s.
        assert_eq!(
            whole_words(&first, 100_000_000, 100.0),
            "; about 15 minutes left at this rate if it takes the 1.0e9 nodes it is sized at"
        );
        // A resumed run: the totals, and the time left after them.
        let resumed = Whole {
            nodes_before: 400_000_000,
            seconds_before: 3_600.0,
            ..first
        };
        assert_eq!(
            whole_words(&resumed, 100_000_000, 100.0),
            "; all runs 5.000e8 nodes, 62 minutes; about 8 minutes left at this rate if it \
             takes the 1.0e9 nodes it is sized at"
        );
        assert_eq!(
            whole_words(&resumed, 700_000_000, 100.0),
            "; all runs 1.100e9 nodes, 62 minutes; past the 1.0e9 nodes it was sized at"
        );
        // Nothing searched yet: no rate, no time left.
        assert_eq!(whole_words(&first, 0, 0.0), "");
        let no_size = Whole {
            sized_nodes: None,
            ..resumed
        };
        assert_eq!(
            whole_words(&no_size, 0, 1.0),
            "; all runs 4.000e8 nodes, 60 minutes"
        );
    }
}
