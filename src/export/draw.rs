//! What every chart shares: the bundled font, its registration, and the error of drawing.
//!
//! Below both `plot.rs` and `perfect_play.rs`, so that the board picture can use the font and
//! `plot_results` can draw the board picture without the two files importing each other.

use std::path::Path;
use std::sync::OnceLock;

use plotters::style::{register_font, FontStyle};

/// DejaVu Sans 2.37 (Debian's fonts-dejavu-core), Bitstream Vera licence.
static DEJAVU_SANS: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// The font family every chart uses.
pub(crate) const FONT: &str = "sans-serif";

/// A chart could not be drawn or written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The bundled font did not load (a broken build).
    #[error("the bundled font could not be loaded")]
    Font,
    /// Nothing to draw.
    #[error("no data to plot: {0}")]
    Empty(String),
    /// A results file could not be read.
    #[error("reading {path}: {message}")]
    Read {
        /// The file being read.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// plotters failed while drawing or writing the file.
    #[error("drawing {path}: {message}")]
    Draw {
        /// The file being drawn.
        path: String,
        /// plotters' message.
        message: String,
    },
}

/// Registers the bundled font with plotters (once per process).
pub(crate) fn fonts() -> Result<(), PlotError> {
    static DONE: OnceLock<bool> = OnceLock::new();
    let ok = *DONE.get_or_init(|| {
        [FontStyle::Normal, FontStyle::Bold]
            .into_iter()
            .all(|style| register_font(FONT, style, DEJAVU_SANS).is_ok())
    });
    if ok {
        Ok(())
    } else {
        Err(PlotError::Font)
    }
}

/// Maps a plotters error to [`PlotError::Draw`].
pub(crate) fn draw_err<E: std::fmt::Display>(path: &Path) -> impl Fn(E) -> PlotError + '_ {
    move |e| PlotError::Draw {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}
