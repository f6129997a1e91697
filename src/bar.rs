//! A progress bar with an estimate of the time left, drawn on stderr when it is a terminal;
//! when stderr is a file (a run left in the background with its output in a log), a plain line
//! with the same figures every [`LOG_EVERY`] instead.

use indicatif::{ProgressBar, ProgressStyle};
use reversi_nxn::progress::Progress;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often a bar that is not drawn writes a progress line.
pub const LOG_EVERY: Duration = Duration::from_secs(60);

/// Draws the library's progress reports as an indicatif bar.
pub struct Bar {
    bar: ProgressBar,
    stop: Arc<AtomicBool>,
    /// When the last progress line was written, if stderr is not a terminal.
    logged: Option<Mutex<Instant>>,
}

impl Bar {
    /// A bar that is hidden unless stderr is a terminal. `stop` is set by the Ctrl-C handler.
    pub fn new(stop: Arc<AtomicBool>) -> Bar {
        let bar = ProgressBar::hidden();
        let logged = (!std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .then(|| Mutex::new(Instant::now()));
        Bar { bar, stop, logged }
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
    }

    fn advance(&self, n: u64) {
        self.bar.inc(n);
        let Some(logged) = &self.logged else { return };
        let Ok(mut last) = logged.try_lock() else {
            return;
        };
        if last.elapsed() < LOG_EVERY {
            return;
        }
        *last = Instant::now();
        let (pos, len) = (self.bar.position(), self.bar.length().unwrap_or(0));
        let elapsed = self.bar.elapsed().as_secs();
        let left = if pos > 0 && len >= pos {
            format!(", about {} s left", self.bar.eta().as_secs())
        } else {
            String::new()
        };
        let pct = if len > 0 {
            100.0 * pos as f64 / len as f64
        } else {
            0.0
        };
        eprintln!(
            "{}: {pos} of {len} ({pct:.1}%), {elapsed} s so far{left}",
            self.bar.message()
        );
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
