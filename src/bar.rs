//! A progress bar with an estimate of the time left, drawn on stderr when it is a terminal.

use indicatif::{ProgressBar, ProgressStyle};
use reversi_nxn::progress::Progress;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Draws the library's progress reports as an indicatif bar.
pub struct Bar {
    bar: ProgressBar,
    stop: Arc<AtomicBool>,
}

impl Bar {
    /// A bar that is hidden unless stderr is a terminal. `stop` is set by the Ctrl-C handler.
    pub fn new(stop: Arc<AtomicBool>) -> Bar {
        let bar = ProgressBar::hidden();
        Bar { bar, stop }
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
