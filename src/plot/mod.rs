//! Figures (plotters): SVG for papers, PNG to look at. Plotting reads analysis output and rows
//! only — it computes no physics.
//!
//! A figure is data ([`Figure`]: panels of series); [`save`] draws it in the one style of
//! [`style`] (Okabe–Ito colours with a marker per colour, powers of ten as 10⁻⁶, legends where
//! they hide no data) with an embedded font (DejaVu Sans), so it renders the same on any
//! machine; [`save_captioned`] adds a caption line (experiment, integrator, tolerance, κ).
//! docs/figures.md is the gallery.

mod canvas;
pub(crate) mod cell_chart;
pub(crate) mod heatmap;
mod panel;
pub mod style;
mod svg;

use canvas::Canvas;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

pub use style::REFERENCE;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mark {
    Markers,
    Line,
    Dashed,
    /// A line through markers.
    LineMarkers,
    Dotted,
    /// Dash–dot: with `Dashed` and `Dotted` a third style, e.g. for the other bound of a pair.
    DashDot,
    /// Nothing in the panel, a filled square in the legend: names the colour of a shaded band
    /// (drawn with the band's transparency).
    Swatch,
    /// Nothing in the panel, an opaque filled square in the legend: names a category's colour
    /// in a heatmap, drawn as opaque as its cells.
    Tile,
}

#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub mark: Mark,
    /// Index into the palette (`style::PALETTE`) and the marker shapes: series `i` has
    /// colour `i` and marker `i`; [`REFERENCE`] (black) is for limits, bounds and guides.
    pub color: usize,
}

impl Series {
    /// A series labelled `label` (empty: none in the legend), drawn as `mark` in palette
    /// colour `color`.
    pub fn new(
        label: impl Into<String>,
        points: Vec<(f64, f64)>,
        mark: Mark,
        color: usize,
    ) -> Series {
        Series {
            label: label.into(),
            points,
            mark,
            color,
        }
    }
}

/// A guide y ∝ x^`power` on log–log axes through (`x0`, `y0`), drawn to `x1`: a dashed black
/// reference line labelled e.g. "∝ κ⁻¹ᐟ³" (superscript digits and ᐟ, a raised slash).
pub(crate) fn power_guide(label: &str, (x0, y0): (f64, f64), x1: f64, power: f64) -> Series {
    Series {
        label: label.into(),
        points: vec![(x0, y0), (x1, y0 * (x1 / x0).powf(power))],
        mark: Mark::Dashed,
        color: REFERENCE,
    }
}

#[derive(Clone, Debug)]
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    /// Prefer the lower corners for the legend (default: the upper ones). The legend goes in
    /// the first corner that holds no data, else outside the plot, right of it.
    pub legend_lower: bool,
    pub series: Vec<Series>,
    /// Shaded x intervals (x0, x1, palette index), e.g. the phases of an impact.
    pub bands: Vec<(f64, f64, usize)>,
}

#[derive(Clone, Debug)]
pub struct Figure {
    pub panels: Vec<Panel>,
    /// Panels per row.
    pub columns: usize,
    pub size: (u32, u32),
}

impl Figure {
    /// Two panels side by side, 700 × 600 pixels each.
    pub(crate) fn side_by_side(left: Panel, right: Panel) -> Figure {
        Figure {
            panels: vec![left, right],
            columns: 2,
            size: (1400, 600),
        }
    }

    /// `panels` two to a row (one alone when there is one), each `panel` pixels wide and high;
    /// `None` without panels.
    pub(crate) fn two_to_a_row(panels: Vec<Panel>, panel: (u32, u32)) -> Option<Figure> {
        if panels.is_empty() {
            return None;
        }
        let columns = panels.len().min(2);
        let rows = panels.len().div_ceil(2) as u32;
        Some(Figure {
            panels,
            columns,
            size: (panel.0 * columns as u32, panel.1 * rows),
        })
    }
}

pub(crate) fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            dejavu::sans::regular(),
        );
    });
}

/// Write `dir/stem.svg` and `dir/stem.png`.
pub fn save(fig: &Figure, dir: &Path, stem: &str) -> Result<(), String> {
    save_captioned(fig, "", dir, stem)
}

/// Write `dir/stem.svg` and `dir/stem.png` with `caption` as a line under the panels (what a
/// reader needs to place the figure: experiment, integrator, tolerance, κ).
pub fn save_captioned(fig: &Figure, caption: &str, dir: &Path, stem: &str) -> Result<(), String> {
    render(dir, stem, fig.size, &(fig, caption))
}

/// Something drawn in figure pixels on any backend.
pub(crate) trait Drawing {
    fn draw<DB: DrawingBackend>(&self, cv: &Canvas<'_, DB>) -> Result<(), String>
    where
        DB::ErrorType: 'static;
}

impl Drawing for (&Figure, &str) {
    fn draw<DB: DrawingBackend>(&self, cv: &Canvas<'_, DB>) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        panel::draw_figure(cv, self.0, self.1)
    }
}

/// Draw `drawing` on both backends into `dir/stem.svg` and `dir/stem.png`; `size` is the
/// figure's size in pixels.
pub(crate) fn render(
    dir: &Path,
    stem: &str,
    size: (u32, u32),
    drawing: &impl Drawing,
) -> Result<(), String> {
    register_fonts();
    write_svg_and_png(
        dir,
        stem,
        |path| {
            let root = svg::CompactSvg::new(path, size).into_drawing_area();
            drawing.draw(&Canvas {
                area: &root,
                scale: svg::SVG_SCALE,
                vector: true,
            })?;
            root.present().map_err(|e| e.to_string())
        },
        |path| {
            let root = BitMapBackend::new(path, size).into_drawing_area();
            drawing.draw(&Canvas {
                area: &root,
                scale: 1.0,
                vector: false,
            })?;
            root.present().map_err(|e| bitmap_write_error(&e))
        },
    )
}

/// The reason a bitmap could not be written, in words: the bitmap backend's errors print as
/// their Debug form (`ImageError(IoError(Custom { … }))`), so the I/O error inside is unwrapped
/// (a full disk reads "No space left on device").
fn bitmap_write_error(error: &DrawingAreaErrorKind<plotters_bitmap::BitMapBackendError>) -> String {
    use plotters_bitmap::BitMapBackendError as Bitmap;
    match error {
        DrawingAreaErrorKind::BackendError(plotters_backend::DrawingErrorKind::DrawingError(e)) => {
            match e {
                Bitmap::IOError(io) => io.to_string(),
                Bitmap::ImageError(image) => image.to_string(),
                other => other.to_string(),
            }
        }
        other => other.to_string(),
    }
}

/// Render `dir/stem.svg` and `dir/stem.png` through hidden temporary files renamed into place
/// only when both are complete: a failed write (a full disk) leaves neither a truncated figure
/// nor a temporary file.
pub(crate) fn write_svg_and_png(
    dir: &Path,
    stem: &str,
    svg: impl FnOnce(&Path) -> Result<(), String>,
    png: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let targets = [
        dir.join(format!("{stem}.svg")),
        dir.join(format!("{stem}.png")),
    ];
    // The extension stays last: the bitmap backend picks the format from it.
    let staged = [
        dir.join(format!(".{stem}.tmp.svg")),
        dir.join(format!(".{stem}.tmp.png")),
    ];
    let cannot_write = |target: &Path, reason: String| {
        format!("cannot write the figure {}: {reason}", target.display())
    };
    let result = svg(&staged[0])
        .map_err(|e| cannot_write(&targets[0], e))
        .and_then(|_| png(&staged[1]).map_err(|e| cannot_write(&targets[1], e)))
        .and_then(|_| {
            staged.iter().zip(&targets).try_for_each(|(from, to)| {
                std::fs::rename(from, to).map_err(|e| format!("{}: {e}", to.display()))
            })
        });
    if result.is_err() {
        for path in &staged {
            let _ = std::fs::remove_file(path);
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failed bitmap write names the file and the operating system's reason, not the
    /// backend's Debug form.
    #[test]
    fn a_full_disk_is_named_in_words() {
        let no_space = std::io::Error::from_raw_os_error(28);
        let error =
            DrawingAreaErrorKind::BackendError(plotters_backend::DrawingErrorKind::DrawingError(
                plotters_bitmap::BitMapBackendError::IOError(no_space),
            ));
        let dir = std::env::temp_dir();
        let message = write_svg_and_png(
            &dir,
            "rigid_limit_full_disk_test",
            |_| Ok(()),
            |_| Err(bitmap_write_error(&error)),
        )
        .unwrap_err();
        assert!(
            message.starts_with("cannot write the figure ")
                && message.contains("rigid_limit_full_disk_test.png")
                && message.contains("No space left on device")
                && !message.contains("IOError"),
            "{message}"
        );
    }
}
