//! Heatmaps over a scattered parameter grid (one cell per point), with curves and marked
//! points: the atlas figures. Data in, drawing out; no physics.
//!
//! One colour scale for all panels, with one colour bar; a continuous scale spans the 2nd to
//! 98th percentile of the values, so a few outliers do not wash out the rest, and the bar's
//! end triangles mark that colours saturate beyond it. Legends (curves, marks, categories) go
//! in one row under the panels. The cells are one bitmap per panel (an embedded PNG in SVG).

use super::canvas::{Canvas, DrawResult};
use super::panel::{self, Axis, Entry, Rect};
use super::style::{self, size};
use super::{Drawing, Mark};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use std::path::Path;

/// How cell values become colours.
#[derive(Clone, Debug)]
pub(crate) enum ColorScale {
    /// A continuous colour map over the values' robust range; the colour bar says `label`.
    Continuous { label: String },
    /// Like `Continuous`, over log10 of the (positive) values; the bar's ticks read 10ⁿ.
    LogContinuous { label: String },
    /// Value i is category `names[i]` (palette colour i), shown in a legend.
    Categories { names: Vec<String> },
}

/// One cell: centre, half sizes, value (`None`: no data, drawn grey).
#[derive(Clone, Copy, Debug)]
pub struct Cell {
    pub x: f64,
    pub y: f64,
    pub half_w: f64,
    pub half_h: f64,
    pub value: Option<f64>,
}

#[derive(Clone, Debug)]
pub(crate) struct HeatPanel {
    pub title: String,
    pub cells: Vec<Cell>,
    /// Curves drawn over the cells, with one legend label for all of them.
    pub curves: Vec<Vec<(f64, f64)>>,
    pub curve_label: String,
    /// Points marked with a small ring, with their legend label.
    pub marks: Vec<(f64, f64)>,
    pub mark_label: String,
}

#[derive(Clone, Debug)]
pub(crate) struct HeatMap {
    pub panels: Vec<HeatPanel>,
    pub columns: usize,
    pub x_label: String,
    pub y_label: String,
    pub scale: ColorScale,
    pub size: (u32, u32),
}

/// Perceptually ordered map (viridis, 9 anchors, linear in between), t ∈ [0, 1].
fn viridis(t: f64) -> RGBColor {
    const A: [(f64, f64, f64); 9] = [
        (68.0, 1.0, 84.0),
        (71.0, 45.0, 123.0),
        (59.0, 82.0, 139.0),
        (44.0, 114.0, 142.0),
        (33.0, 145.0, 140.0),
        (40.0, 174.0, 128.0),
        (94.0, 201.0, 98.0),
        (173.0, 220.0, 48.0),
        (253.0, 231.0, 37.0),
    ];
    let t = t.clamp(0.0, 1.0) * 8.0;
    let i = (t.floor() as usize).min(7);
    let f = t - i as f64;
    let mix = |a: f64, b: f64| (a + (b - a) * f).round() as u8;
    RGBColor(
        mix(A[i].0, A[i + 1].0),
        mix(A[i].1, A[i + 1].1),
        mix(A[i].2, A[i + 1].2),
    )
}

const NO_DATA: RGBColor = RGBColor(200, 200, 200);

/// Write `dir/stem.svg` and `dir/stem.png` with a caption line under the panels.
pub(crate) fn save_heatmap_captioned(
    map: &HeatMap,
    caption: &str,
    dir: &Path,
    stem: &str,
) -> Result<(), String> {
    super::render(dir, stem, map.size, &(map, caption))
}

/// The colour range of a continuous scale: the 2nd and 98th percentiles of the finite values
/// (in drawing space: log10 for a log scale), and how many values lie below and above it.
pub(crate) fn robust_range(values: &[f64]) -> Option<(f64, f64, usize, usize)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    let (mut lo, mut hi) = (at(0.02), at(0.98));
    if hi - lo < 1e-12 * (1.0 + lo.abs()) {
        (lo, hi) = (v[0], v[v.len() - 1]);
    }
    if hi - lo < 1e-12 * (1.0 + lo.abs()) {
        (lo, hi) = (lo - 0.5, hi + 0.5);
    }
    let below = v.iter().filter(|&&x| x < lo).count();
    let above = v.iter().filter(|&&x| x > hi).count();
    Some((lo, hi, below, above))
}

impl HeatMap {
    /// A cell's value in the scale's drawing space.
    fn drawn(&self, v: Option<f64>) -> Option<f64> {
        let v = v?;
        match self.scale {
            ColorScale::LogContinuous { .. } => panel::axis_value(v, true),
            _ => v.is_finite().then_some(v),
        }
    }

    fn values(&self) -> Vec<f64> {
        self.panels
            .iter()
            .flat_map(|p| p.cells.iter().filter_map(|c| self.drawn(c.value)))
            .collect()
    }

    fn legend(&self) -> Vec<Entry> {
        let mut out = Vec::new();
        if let ColorScale::Categories { names } = &self.scale {
            for (i, n) in names.iter().enumerate() {
                out.push(Entry {
                    label: n.clone(),
                    mark: Mark::Tile,
                    colour: i,
                    hollow: false,
                });
            }
        }
        if let Some(p) = self.panels.iter().find(|p| !p.curves.is_empty()) {
            if !p.curve_label.is_empty() {
                out.push(Entry {
                    label: p.curve_label.clone(),
                    mark: Mark::Line,
                    colour: style::REFERENCE,
                    hollow: false,
                });
            }
        }
        if let Some(p) = self.panels.iter().find(|p| !p.marks.is_empty()) {
            out.push(Entry {
                label: p.mark_label.clone(),
                mark: Mark::Markers,
                colour: style::REFERENCE,
                hollow: true,
            });
        }
        out
    }
}

impl Drawing for (&HeatMap, &str) {
    fn draw<DB: DrawingBackend>(&self, cv: &Canvas<'_, DB>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let (map, caption) = *self;
        let (w, h) = cv.area.dim_in_pixel();
        let (w, h) = (f64::from(w) / cv.scale, f64::from(h) / cv.scale);
        cv.rect((0.0, 0.0), (w, h), WHITE.filled())?;
        let continuous = !matches!(map.scale, ColorScale::Categories { .. });
        let range = if continuous {
            robust_range(&map.values())
        } else {
            None
        };
        let colour_of = |v: Option<f64>| -> RGBColor {
            match (map.drawn(v), &map.scale, range) {
                (Some(v), ColorScale::Categories { .. }, _) if v >= 0.0 => {
                    style::colour(v as usize)
                }
                (Some(v), _, Some((lo, hi, _, _))) => viridis((v - lo) / (hi - lo)),
                _ => NO_DATA,
            }
        };
        let entries = map.legend();
        let legend_h = if entries.is_empty() {
            0.0
        } else {
            size::LEGEND * 1.45 + 12.0
        };
        let bar_w = if continuous { 120.0 } else { 0.0 };
        let bottom = h - panel::caption_height(caption) - legend_h;
        let columns = map.columns.max(1);
        let rows = map.panels.len().div_ceil(columns).max(1);
        let (pw, ph) = ((w - bar_w) / columns as f64, bottom / rows as f64);
        for (k, p) in map.panels.iter().enumerate() {
            let rect = panel::grid_cell(k, columns, (pw, ph));
            draw_panel(cv, map, p, rect, &colour_of)?;
        }
        if !entries.is_empty() {
            // One row, centred.
            let widths: Vec<f64> = entries
                .iter()
                .map(|e| cv.text_size(&e.label, size::LEGEND).0 + 30.0 + 30.0)
                .collect();
            let mut x = ((w - bar_w - widths.iter().sum::<f64>()) / 2.0).max(10.0);
            let y = bottom + legend_h / 2.0;
            for (e, ew) in entries.iter().zip(widths) {
                panel::draw_sample(cv, e, (x, y))?;
                cv.text(
                    &e.label,
                    (x + 36.0, y),
                    size::LEGEND,
                    (HPos::Left, VPos::Center),
                    false,
                    BLACK,
                )?;
                x += ew;
            }
        }
        if let (
            Some(range),
            ColorScale::Continuous { label } | ColorScale::LogContinuous { label },
        ) = (range, &map.scale)
        {
            let log = matches!(map.scale, ColorScale::LogContinuous { .. });
            colour_bar(
                cv,
                (w - bar_w + 14.0, 50.0, w - bar_w + 36.0, bottom - 50.0),
                range,
                log,
                label,
            )?;
        }
        panel::draw_caption(cv, caption, w, h)
    }
}

fn draw_panel<DB: DrawingBackend>(
    cv: &Canvas<DB>,
    map: &HeatMap,
    p: &HeatPanel,
    rect: Rect,
    colour_of: &dyn Fn(Option<f64>) -> RGBColor,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let xs = p
        .cells
        .iter()
        .flat_map(|c| [c.x - c.half_w, c.x + c.half_w]);
    let ys = p
        .cells
        .iter()
        .flat_map(|c| [c.y - c.half_h, c.y + c.half_h]);
    let (Some(ax), Some(ay)) = (Axis::over(xs, false, 0.0), Axis::over(ys, false, 0.0)) else {
        return Ok(());
    };
    panel::title(cv, &p.title, rect)?;
    let (left, bottom) = panel::margins(cv, &ay, &map.x_label, &map.y_label);
    let plot = (
        rect.0 + left,
        rect.1 + size::TITLE * 1.7,
        rect.2 - 14.0,
        rect.3 - bottom,
    );
    // The cells as one bitmap, one pixel per figure pixel.
    let (bw, bh) = (
        (plot.2 - plot.0).round().max(1.0) as usize,
        (plot.3 - plot.1).round().max(1.0) as usize,
    );
    let mut buffer = vec![255u8; bw * bh * 3];
    for c in &p.cells {
        let (x0, y1) = panel::to_pixels(&plot, &ax, &ay, (c.x - c.half_w, c.y - c.half_h));
        let (x1, y0) = panel::to_pixels(&plot, &ax, &ay, (c.x + c.half_w, c.y + c.half_h));
        let col = colour_of(c.value);
        let clamp = |v: f64, n: usize| (v.round().max(0.0) as usize).min(n);
        let (i0, i1) = (clamp(x0 - plot.0, bw), clamp(x1 - plot.0, bw));
        let (j0, j1) = (clamp(y0 - plot.1, bh), clamp(y1 - plot.1, bh));
        for j in j0..j1 {
            for i in i0..i1 {
                let k = 3 * (j * bw + i);
                buffer[k..k + 3].copy_from_slice(&[col.0, col.1, col.2]);
            }
        }
    }
    let element = BitMapElement::with_owned_buffer(
        cv.point((plot.0, plot.1)),
        (bw as u32, bh as u32),
        buffer,
    )
    .ok_or("heat map bitmap of the wrong size")?;
    cv.area.draw(&element).map_err(|e| e.to_string())?;
    for curve in &p.curves {
        let inside: Vec<(f64, f64)> = curve
            .iter()
            .filter(|q| (ax.lo..=ax.hi).contains(&q.0) && (ay.lo..=ay.hi).contains(&q.1))
            .map(|&q| panel::to_pixels(&plot, &ax, &ay, q))
            .collect();
        cv.line(&inside, &[], size::LINE, BLACK.to_rgba())?;
    }
    for &m in &p.marks {
        cv.marker(
            style::Shape::Circle,
            panel::to_pixels(&plot, &ax, &ay, m),
            2.5,
            BLACK,
            false,
        )?;
    }
    panel::frame(cv, &plot, &ax, &ay)?;
    panel::axis_labels(cv, &plot, rect, &map.x_label, &map.y_label)
}

/// The shared colour bar in `bar` (figure pixels), with triangles at the ends where colours
/// saturate, the number of saturated cells beside them, and its label.
fn colour_bar<DB: DrawingBackend>(
    cv: &Canvas<DB>,
    bar: Rect,
    (lo, hi, below, above): (f64, f64, usize, usize),
    log: bool,
    label: &str,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (x0, y0, x1, y1) = bar;
    let n = 128;
    for i in 0..n {
        let (a, b) = (i as f64 / n as f64, (i + 1) as f64 / n as f64);
        cv.rect(
            (x0, y1 - b * (y1 - y0)),
            (x1, y1 - a * (y1 - y0)),
            viridis((a + b) / 2.0).filled(),
        )?;
    }
    let tri = 14.0;
    let triangle = |tip: f64, base: f64, c: RGBColor| -> DrawResult {
        let pts = [(x0, base), (x1, base), ((x0 + x1) / 2.0, tip)];
        let v: Vec<(i32, i32)> = pts.iter().map(|&q| cv.point(q)).collect();
        cv.area
            .draw(&Polygon::new(v, c.filled()))
            .map_err(|e| e.to_string())
    };
    let note = |count: usize, y: f64, v: VPos| -> DrawResult {
        cv.text(
            &format!("{count} beyond"),
            ((x0 + x1) / 2.0, y),
            size::TICK - 2.0,
            (HPos::Center, v),
            false,
            RGBColor(70, 70, 70),
        )
    };
    if above > 0 {
        triangle(y0 - tri, y0, viridis(1.0))?;
        note(above, y0 - tri - 3.0, VPos::Bottom)?;
    }
    if below > 0 {
        triangle(y1 + tri, y1, viridis(0.0))?;
        note(below, y1 + tri + 3.0, VPos::Top)?;
    }
    let outline = ShapeStyle {
        color: BLACK.to_rgba(),
        filled: false,
        stroke_width: 1,
    };
    cv.rect((x0, y0), (x1, y1), outline)?;
    let ticks = if log {
        style::log_ticks(lo, hi)
    } else {
        style::linear_ticks(lo, hi)
    };
    let mut widest: f64 = 0.0;
    for (v, t) in &ticks {
        let y = y1 - (v - lo) / (hi - lo) * (y1 - y0);
        cv.line(&[(x1, y), (x1 + 4.0, y)], &[], 1.0, BLACK.to_rgba())?;
        cv.text(
            t,
            (x1 + 7.0, y),
            size::TICK,
            (HPos::Left, VPos::Center),
            false,
            BLACK,
        )?;
        widest = widest.max(cv.text_size(t, size::TICK).0);
    }
    cv.text(
        label,
        (x1 + 14.0 + widest, (y0 + y1) / 2.0),
        size::AXIS_LABEL,
        (HPos::Center, VPos::Top),
        true,
        BLACK,
    )
}

#[cfg(test)]
mod tests {
    use super::robust_range;

    #[test]
    fn a_few_outliers_saturate_instead_of_stretching_the_range() {
        let mut v: Vec<f64> = (0..100).map(f64::from).collect();
        v[99] = 1e6;
        let (lo, hi, below, above) = robust_range(&v).unwrap();
        assert!(lo <= 2.0 && hi < 100.0, "{lo} {hi}");
        assert_eq!(below, v.iter().filter(|&&x| x < lo).count());
        assert!(above >= 1);
    }
}
