//! Drawing a [`Figure`]: panels laid out in a grid, each with its axes, ticks, series and a
//! legend placed where it hides no data; an optional caption line under the panels.

use super::canvas::{Canvas, DrawResult};
use super::style::{self, size, Shape};
use super::{Figure, Mark, Panel};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use std::collections::HashMap;

/// One axis in its drawing space (log10 of the value on a log axis).
pub struct Axis {
    pub log: bool,
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<(f64, String)>,
}

/// A value in an axis' drawing space, `None` where it cannot be drawn (≤ 0 on a log axis).
pub(crate) fn axis_value(v: f64, log: bool) -> Option<f64> {
    if log {
        (v > 0.0 && v.is_finite()).then(|| v.log10())
    } else {
        v.is_finite().then_some(v)
    }
}

impl Axis {
    /// An axis over `values` (drawing space) with a margin of `pad` of the span each side.
    pub fn over(values: impl Iterator<Item = f64>, log: bool, pad: f64) -> Option<Self> {
        let (mut lo, mut hi) = (f64::MAX, f64::MIN);
        for v in values {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if lo > hi {
            return None;
        }
        let d = if hi > lo {
            pad * (hi - lo)
        } else if log {
            0.5
        } else {
            0.1 * lo.abs().max(1e-12)
        };
        let (lo, hi) = (lo - d, hi + d);
        let ticks = if log {
            style::log_ticks(lo, hi)
        } else {
            style::linear_ticks(lo, hi)
        };
        Some(Self { log, lo, hi, ticks })
    }

    pub fn fraction(&self, v: f64) -> f64 {
        (v - self.lo) / (self.hi - self.lo)
    }
}

/// A legend line: label and how its sample is drawn.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    pub label: String,
    pub mark: Mark,
    pub colour: usize,
    /// A hollow marker (values not drawable on the axis).
    pub hollow: bool,
}

const SAMPLE_W: f64 = 30.0;
const LEGEND_PAD: f64 = 6.0;

fn row_height() -> f64 {
    size::LEGEND * 1.45
}

pub(crate) fn legend_size<DB: DrawingBackend>(cv: &Canvas<DB>, entries: &[Entry]) -> (f64, f64)
where
    DB::ErrorType: 'static,
{
    let text_w = entries
        .iter()
        .map(|e| cv.text_size(&e.label, size::LEGEND).0)
        .fold(0.0, f64::max);
    (
        2.0 * LEGEND_PAD + SAMPLE_W + 6.0 + text_w,
        2.0 * LEGEND_PAD + row_height() * entries.len() as f64,
    )
}

/// The legend sample of one entry, its left end at `at`.
pub(crate) fn draw_sample<DB: DrawingBackend>(
    cv: &Canvas<DB>,
    e: &Entry,
    at: (f64, f64),
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let c = style::colour(e.colour);
    let (x, y) = at;
    let mid = (x + SAMPLE_W / 2.0, y);
    if matches!(e.mark, Mark::Swatch | Mark::Tile) {
        let alpha = if e.mark == Mark::Swatch {
            BAND_ALPHA
        } else {
            1.0
        };
        return cv.rect(
            (x + 2.0, y - 6.0),
            (x + SAMPLE_W - 2.0, y + 6.0),
            c.mix(alpha).filled(),
        );
    }
    if !matches!(e.mark, Mark::Markers) {
        cv.line(
            &[(x, y), (x + SAMPLE_W, y)],
            style::dash_pattern(e.mark),
            size::LINE,
            c.to_rgba(),
        )?;
    }
    if matches!(e.mark, Mark::Markers | Mark::LineMarkers) || e.hollow {
        cv.marker(style::shape(e.colour), mid, size::MARKER, c, !e.hollow)?;
    }
    Ok(())
}

pub(crate) fn draw_legend<DB: DrawingBackend>(
    cv: &Canvas<DB>,
    entries: &[Entry],
    top_left: (f64, f64),
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (w, h) = legend_size(cv, entries);
    let (x, y) = top_left;
    cv.rect((x, y), (x + w, y + h), WHITE.mix(0.92).filled())?;
    cv.rect(
        (x, y),
        (x + w, y + h),
        ShapeStyle {
            color: RGBColor(150, 150, 150).to_rgba(),
            filled: false,
            stroke_width: 1,
        },
    )?;
    for (k, e) in entries.iter().enumerate() {
        let cy = y + LEGEND_PAD + row_height() * (k as f64 + 0.5);
        draw_sample(cv, e, (x + LEGEND_PAD, cy))?;
        cv.text(
            &e.label,
            (x + LEGEND_PAD + SAMPLE_W + 6.0, cy),
            size::LEGEND,
            (HPos::Left, VPos::Center),
            false,
            BLACK,
        )?;
    }
    Ok(())
}

/// Opacity of shaded x intervals.
pub(crate) const BAND_ALPHA: f64 = 0.2;

/// A series in drawing space: drawable points, and the x of values a log y axis cannot show.
struct Prepared {
    points: Vec<(f64, f64)>,
    not_drawable: Vec<f64>,
}

fn prepare(panel: &Panel) -> Vec<Prepared> {
    panel
        .series
        .iter()
        .map(|s| {
            let mut p = Prepared {
                points: Vec::new(),
                not_drawable: Vec::new(),
            };
            for &(x, y) in &s.points {
                let Some(xv) = axis_value(x, panel.log_x) else {
                    continue;
                };
                match axis_value(y, panel.log_y) {
                    Some(yv) => p.points.push((xv, yv)),
                    None if panel.log_y && y <= 0.0 => p.not_drawable.push(xv),
                    None => {}
                }
            }
            p
        })
        .collect()
}

/// The legend entries of a panel, in series order (unlabelled series have none), plus one for
/// values a log axis cannot show, when there are any.
pub(crate) fn entries(panel: &Panel) -> Vec<Entry> {
    let prepared = prepare(panel);
    let mut out: Vec<Entry> = panel
        .series
        .iter()
        .filter(|s| !s.label.is_empty())
        .map(|s| Entry {
            label: s.label.clone(),
            mark: s.mark,
            colour: s.color,
            hollow: false,
        })
        .collect();
    if let Some((s, _)) = panel
        .series
        .iter()
        .zip(&prepared)
        .find(|(_, p)| !p.not_drawable.is_empty())
    {
        out.push(Entry {
            label: "hollow, on the axis: value 0 (not on a log scale)".into(),
            mark: Mark::Markers,
            colour: s.color,
            hollow: true,
        });
    }
    out
}

/// Figure pixels rectangle (x0, y0, x1, y1).
pub(crate) type Rect = (f64, f64, f64, f64);

/// Draw one panel inside `rect`; `legend`: draw the panel's own legend.
pub(crate) fn draw_panel<DB: DrawingBackend>(
    cv: &Canvas<DB>,
    panel: &Panel,
    rect: Rect,
    legend: bool,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let prepared = prepare(panel);
    let has_hidden = prepared.iter().any(|p| !p.not_drawable.is_empty());
    let xs = prepared
        .iter()
        .flat_map(|p| p.points.iter().map(|q| q.0).chain(p.not_drawable.clone()));
    let ys = prepared.iter().flat_map(|p| p.points.iter().map(|q| q.1));
    let title_h = if panel.title.is_empty() {
        10.0
    } else {
        size::TITLE * 1.7
    };
    title(cv, &panel.title, rect)?;
    let (Some(ax), Some(mut ay)) = (
        Axis::over(xs, panel.log_x, 0.04),
        Axis::over(ys, panel.log_y, 0.05),
    ) else {
        return Ok(());
    };
    if has_hidden {
        // Room under the data for the markers of values the log axis cannot show.
        let extra = 0.08 * (ay.hi - ay.lo);
        ay = Axis {
            lo: ay.lo - extra,
            ticks: style::log_ticks(ay.lo - extra, ay.hi),
            ..ay
        };
    }
    let entries = if legend { entries(panel) } else { Vec::new() };
    let (lw, lh) = legend_size(cv, &entries);
    let m = 6.0;
    // Where the legend goes: the first corner of the plot (in order of preference) that holds
    // no drawn point or line; failing that, the same with the y axis raised so that a band
    // above the data holds the legend; outside, right of the plot, when neither does.
    let place = |ay: &Axis| {
        let (left, bottom) = margins(cv, ay, &panel.x_label, &panel.y_label);
        let plot = (
            rect.0 + left,
            rect.1 + title_h,
            rect.2 - 16.0,
            rect.3 - bottom,
        );
        let at = free_corner(panel, &prepared, &ax, ay, &plot, has_hidden, (lw, lh), m);
        (plot, at)
    };
    let (mut plot, mut legend_at) = place(&ay);
    if entries.is_empty() {
        legend_at = None;
    }
    let headroom = (lh + 2.0 * m + 8.0) / (plot.3 - plot.1);
    if !entries.is_empty() && legend_at.is_none() && (0.0..0.45).contains(&headroom) {
        let hi = ay.lo + (ay.hi - ay.lo) / (1.0 - headroom);
        let ticks = if ay.log {
            style::log_ticks(ay.lo, hi)
        } else {
            style::linear_ticks(ay.lo, hi)
        };
        let raised = Axis { hi, ticks, ..ay };
        if let (p, Some(at)) = place(&raised) {
            (plot, legend_at, ay) = (p, Some(at), raised);
        }
    }
    if !entries.is_empty() && legend_at.is_none() {
        plot.2 = rect.2 - lw - 12.0;
        legend_at = Some((plot.2 + 10.0, plot.1));
    }
    let to_px = |plot: &Rect, q: (f64, f64)| to_pixels(plot, &ax, &ay, q);
    let (px0, py0, px1, py1) = plot;
    // Shaded intervals, grid, data, frame, ticks, labels, legend.
    for &(b0, b1, c) in &panel.bands {
        let (Some(b0), Some(b1)) = (axis_value(b0, ax.log), axis_value(b1, ax.log)) else {
            continue;
        };
        let x0 = to_px(&plot, (b0, ay.lo)).0.clamp(px0, px1);
        let x1 = to_px(&plot, (b1, ay.lo)).0.clamp(px0, px1);
        cv.rect(
            (x0, py0),
            (x1, py1),
            style::colour(c).mix(BAND_ALPHA).filled(),
        )?;
    }
    grid(cv, &plot, &ax, &ay)?;
    let pixels: Vec<Vec<(f64, f64)>> = prepared
        .iter()
        .map(|p| p.points.iter().map(|&q| to_px(&plot, q)).collect())
        .collect();
    let radii = marker_radii(panel, &pixels);
    for (((s, p), px), radii) in panel.series.iter().zip(&prepared).zip(&pixels).zip(&radii) {
        let c = style::colour(s.color);
        if matches!(
            s.mark,
            Mark::Line | Mark::Dashed | Mark::Dotted | Mark::DashDot | Mark::LineMarkers
        ) {
            cv.line(px, style::dash_pattern(s.mark), size::LINE, c.to_rgba())?;
        }
        let shape: Shape = style::shape(s.color);
        if matches!(s.mark, Mark::Markers | Mark::LineMarkers) {
            for (&q, &r) in px.iter().zip(radii) {
                cv.marker(shape, q, r, c, true)?;
            }
        }
        for &x in &p.not_drawable {
            let at = (to_px(&plot, (x, ay.lo)).0, py1 - size::MARKER - 3.0);
            cv.marker(shape, at, size::MARKER, c, false)?;
        }
    }
    frame(cv, &plot, &ax, &ay)?;
    axis_labels(cv, &plot, rect, &panel.x_label, &panel.y_label)?;
    if let Some(at) = legend_at {
        draw_legend(cv, &entries, at)?;
    }
    Ok(())
}

/// A marker already drawn: its series and its centre in figure pixels.
type DrawnMarker = (usize, (f64, f64));

/// The radius of each marker of each series (`pixels`: its points in figure pixels):
/// [`size::MARKER`], halved for the first earlier series with a marker on the same spot (closer
/// than a marker's radius) and down to a third for more. Series whose values coincide (a distance up to a
/// lift-off that never comes equals the one over the whole run) would otherwise hide all but the
/// last drawn; nested, each shows its own shape and colour.
fn marker_radii(panel: &Panel, pixels: &[Vec<(f64, f64)>]) -> Vec<Vec<f64>> {
    let near = size::MARKER;
    let cell = |(x, y): (f64, f64)| ((x / near).floor() as i64, (y / near).floor() as i64);
    // The markers drawn so far by grid cell of a marker's size: (series, centre).
    let mut drawn: HashMap<(i64, i64), Vec<DrawnMarker>> = HashMap::new();
    let mut radii = Vec::with_capacity(pixels.len());
    for (i, (s, px)) in panel.series.iter().zip(pixels).enumerate() {
        if !matches!(s.mark, Mark::Markers | Mark::LineMarkers) {
            radii.push(vec![size::MARKER; px.len()]);
            continue;
        }
        let own: Vec<f64> = px
            .iter()
            .map(|&(x, y)| {
                let (cx, cy) = cell((x, y));
                let mut under: Vec<usize> = Vec::new();
                for key in (-1..=1).flat_map(|dx| (-1..=1).map(move |dy| (cx + dx, cy + dy))) {
                    for &(j, (ox, oy)) in drawn.get(&key).into_iter().flatten() {
                        if (ox - x).hypot(oy - y) < near && !under.contains(&j) {
                            under.push(j);
                        }
                    }
                }
                match under.len() {
                    0 => size::MARKER,
                    1 => 0.5 * size::MARKER,
                    _ => size::MARKER / 3.0,
                }
            })
            .collect();
        for &q in px {
            drawn.entry(cell(q)).or_default().push((i, q));
        }
        radii.push(own);
    }
    radii
}

/// The first corner of `plot` (in the panel's order of preference) where a legend of `size`
/// covers no drawn point or line, if any.
#[allow(clippy::too_many_arguments)]
fn free_corner(
    panel: &Panel,
    prepared: &[Prepared],
    ax: &Axis,
    ay: &Axis,
    plot: &Rect,
    has_hidden: bool,
    (lw, lh): (f64, f64),
    m: f64,
) -> Option<(f64, f64)> {
    let mut obstacles: Vec<(f64, f64)> = Vec::new();
    for (s, p) in panel.series.iter().zip(prepared) {
        let px: Vec<(f64, f64)> = p
            .points
            .iter()
            .map(|&q| to_pixels(plot, ax, ay, q))
            .collect();
        obstacles.extend(&px);
        if !matches!(s.mark, Mark::Markers) {
            for w in px.windows(2) {
                let n = ((w[1].0 - w[0].0).hypot(w[1].1 - w[0].1) / 3.0).ceil() as usize;
                obstacles.extend((1..n).map(|k| {
                    let t = k as f64 / n as f64;
                    (
                        w[0].0 + t * (w[1].0 - w[0].0),
                        w[0].1 + t * (w[1].1 - w[0].1),
                    )
                }));
            }
        }
    }
    if has_hidden {
        obstacles.push((plot.0, plot.3));
        obstacles.push((plot.2, plot.3));
        // The hollow markers of values the log axis cannot show, where draw_panel puts them.
        for p in prepared {
            for &x in &p.not_drawable {
                let px = to_pixels(plot, ax, ay, (x, ay.lo)).0;
                obstacles.push((px, plot.3 - size::MARKER - 3.0));
            }
        }
    }
    let (x_l, x_r, x_c) = (plot.0 + m, plot.2 - m - lw, (plot.0 + plot.2 - lw) / 2.0);
    let (y_t, y_b, y_c) = (plot.1 + m, plot.3 - m - lh, (plot.1 + plot.3 - lh) / 2.0);
    let upper = [(x_l, y_t), (x_r, y_t), (x_c, y_t)];
    let lower = [(x_l, y_b), (x_r, y_b), (x_c, y_b)];
    let middle = [(x_l, y_c), (x_r, y_c)];
    let order: Vec<(f64, f64)> = if panel.legend_lower {
        lower.iter().chain(&upper).chain(&middle).copied().collect()
    } else {
        upper.iter().chain(&lower).chain(&middle).copied().collect()
    };
    let fits = lw < plot.2 - plot.0 - 2.0 * m && lh < plot.3 - plot.1 - 2.0 * m;
    order.into_iter().filter(|_| fits).find(|&(x, y)| {
        !obstacles
            .iter()
            .any(|&(ox, oy)| ox > x - 4.0 && ox < x + lw + 4.0 && oy > y - 4.0 && oy < y + lh + 4.0)
    })
}

/// Left and bottom margins of a plot for its tick labels and axis labels.
pub(crate) fn margins<DB: DrawingBackend>(
    cv: &Canvas<DB>,
    ay: &Axis,
    x_label: &str,
    y_label: &str,
) -> (f64, f64)
where
    DB::ErrorType: 'static,
{
    let tick_w = ay
        .ticks
        .iter()
        .map(|t| cv.text_size(&t.1, size::TICK).0)
        .fold(0.0, f64::max);
    let label_h = size::AXIS_LABEL * 1.3;
    let left =
        8.0 + if y_label.is_empty() {
            0.0
        } else {
            label_h + 6.0
        } + tick_w
            + 5.0
            + size::TICK_LENGTH;
    let bottom = size::TICK_LENGTH
        + 5.0
        + size::TICK * 1.2
        + if x_label.is_empty() {
            6.0
        } else {
            label_h + 10.0
        };
    (left, bottom)
}

/// Figure pixels of a point in drawing space.
pub(crate) fn to_pixels(plot: &Rect, ax: &Axis, ay: &Axis, (x, y): (f64, f64)) -> (f64, f64) {
    (
        plot.0 + ax.fraction(x) * (plot.2 - plot.0),
        plot.3 - ay.fraction(y) * (plot.3 - plot.1),
    )
}

/// The rectangle (figure pixels) of the `k`-th panel of a grid of `columns` columns filled
/// row by row from the top left, each panel `pw` × `ph` pixels.
pub(crate) fn grid_cell(k: usize, columns: usize, (pw, ph): (f64, f64)) -> Rect {
    let (r, c) = (k / columns, k % columns);
    (
        c as f64 * pw,
        r as f64 * ph,
        (c + 1) as f64 * pw,
        (r + 1) as f64 * ph,
    )
}

/// A panel's title, centred at the top of its rectangle `rect` (figure pixels).
pub(crate) fn title<DB: DrawingBackend>(cv: &Canvas<DB>, title: &str, rect: Rect) -> DrawResult
where
    DB::ErrorType: 'static,
{
    cv.text(
        title,
        ((rect.0 + rect.2) / 2.0, rect.1 + 6.0),
        size::TITLE,
        (HPos::Center, VPos::Top),
        false,
        BLACK,
    )
}

/// Light grid lines at the ticks (under the data).
pub(crate) fn grid<DB: DrawingBackend>(
    cv: &Canvas<DB>,
    plot: &Rect,
    ax: &Axis,
    ay: &Axis,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let colour = RGBColor(225, 225, 225).to_rgba();
    for (v, _) in &ax.ticks {
        let x = to_pixels(plot, ax, ay, (*v, ay.lo)).0;
        cv.line(&[(x, plot.1), (x, plot.3)], &[], 1.0, colour)?;
    }
    for (v, _) in &ay.ticks {
        let y = to_pixels(plot, ax, ay, (ax.lo, *v)).1;
        cv.line(&[(plot.0, y), (plot.2, y)], &[], 1.0, colour)?;
    }
    Ok(())
}

/// The plot's frame, ticks and tick labels (over the data).
pub(crate) fn frame<DB: DrawingBackend>(
    cv: &Canvas<DB>,
    plot: &Rect,
    ax: &Axis,
    ay: &Axis,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (px0, py0, px1, py1) = *plot;
    let outline = ShapeStyle {
        color: BLACK.to_rgba(),
        filled: false,
        stroke_width: 1,
    };
    cv.rect((px0, py0), (px1, py1), outline)?;
    for (v, label) in &ax.ticks {
        let x = to_pixels(plot, ax, ay, (*v, ay.lo)).0;
        cv.line(
            &[(x, py1), (x, py1 + size::TICK_LENGTH)],
            &[],
            1.0,
            BLACK.to_rgba(),
        )?;
        cv.text(
            label,
            (x, py1 + size::TICK_LENGTH + 4.0),
            size::TICK,
            (HPos::Center, VPos::Top),
            false,
            BLACK,
        )?;
    }
    for (v, label) in &ay.ticks {
        let y = to_pixels(plot, ax, ay, (ax.lo, *v)).1;
        cv.line(
            &[(px0 - size::TICK_LENGTH, y), (px0, y)],
            &[],
            1.0,
            BLACK.to_rgba(),
        )?;
        cv.text(
            label,
            (px0 - size::TICK_LENGTH - 4.0, y),
            size::TICK,
            (HPos::Right, VPos::Center),
            false,
            BLACK,
        )?;
    }
    Ok(())
}

/// The x label under the plot, the y label (reading upwards) at the left edge of `rect`.
pub(crate) fn axis_labels<DB: DrawingBackend>(
    cv: &Canvas<DB>,
    plot: &Rect,
    rect: Rect,
    x_label: &str,
    y_label: &str,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    cv.text(
        x_label,
        ((plot.0 + plot.2) / 2.0, rect.3 - 6.0),
        size::AXIS_LABEL,
        (HPos::Center, VPos::Bottom),
        false,
        BLACK,
    )?;
    cv.text(
        y_label,
        (rect.0 + 8.0, (plot.1 + plot.3) / 2.0),
        size::AXIS_LABEL,
        (HPos::Center, VPos::Top),
        true,
        BLACK,
    )
}

/// Height of the caption line under the panels.
pub(crate) fn caption_height(caption: &str) -> f64 {
    if caption.is_empty() {
        0.0
    } else {
        size::CAPTION * 2.0
    }
}

pub(crate) fn draw_caption<DB: DrawingBackend>(
    cv: &Canvas<DB>,
    caption: &str,
    width: f64,
    height: f64,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    if caption.is_empty() {
        return Ok(());
    }
    cv.line(
        &[
            (10.0, height - caption_height(caption)),
            (width - 10.0, height - caption_height(caption)),
        ],
        &[],
        1.0,
        RGBColor(200, 200, 200).to_rgba(),
    )?;
    // A caption wider than the figure is set smaller rather than cut off at the right edge.
    let full = cv.text_size(caption, size::CAPTION).0;
    let font = if full > width - 24.0 {
        size::CAPTION * (width - 24.0) / full
    } else {
        size::CAPTION
    };
    cv.text(
        caption,
        (12.0, height - caption_height(caption) / 2.0),
        font,
        (HPos::Left, VPos::Center),
        false,
        RGBColor(70, 70, 70),
    )
}

/// Draw the whole figure: panels in a grid; when every panel has the same legend (a
/// multi-panel figure of the same series), that legend once, in rows under the panels.
pub(crate) fn draw_figure<DB: DrawingBackend>(
    cv: &Canvas<DB>,
    fig: &Figure,
    caption: &str,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (w, h) = cv.area.dim_in_pixel();
    let (w, h) = (f64::from(w) / cv.scale, f64::from(h) / cv.scale);
    cv.rect((0.0, 0.0), (w, h), WHITE.filled())?;
    let all: Vec<Vec<Entry>> = fig.panels.iter().map(entries).collect();
    let shared = fig.panels.len() > 1 && !all[0].is_empty() && all.iter().all(|e| *e == all[0]);
    // A shared legend: entries side by side, as many per row as fit.
    let (shared_rows, per_row, cell_w) = if shared {
        let cell_w = all[0]
            .iter()
            .map(|e| cv.text_size(&e.label, size::LEGEND).0)
            .fold(0.0, f64::max)
            + SAMPLE_W
            + 24.0;
        let per_row = ((w - 20.0) / cell_w).floor().max(1.0) as usize;
        (all[0].len().div_ceil(per_row), per_row, cell_w)
    } else {
        (0, 1, 0.0)
    };
    let legend_h = if shared {
        shared_rows as f64 * row_height() + 10.0
    } else {
        0.0
    };
    let bottom = h - caption_height(caption) - legend_h;
    let columns = fig.columns.max(1);
    let rows = fig.panels.len().div_ceil(columns).max(1);
    let (pw, ph) = (w / columns as f64, bottom / rows as f64);
    for (k, panel) in fig.panels.iter().enumerate() {
        let rect = grid_cell(k, columns, (pw, ph));
        draw_panel(cv, panel, rect, !shared)?;
    }
    if shared {
        let used = per_row.min(all[0].len()) as f64 * cell_w;
        let x0 = ((w - used) / 2.0).max(10.0);
        for (k, e) in all[0].iter().enumerate() {
            let (r, c) = (k / per_row, k % per_row);
            let at = (
                x0 + c as f64 * cell_w,
                bottom + 5.0 + row_height() * (r as f64 + 0.5),
            );
            draw_sample(cv, e, at)?;
            cv.text(
                &e.label,
                (at.0 + SAMPLE_W + 6.0, at.1),
                size::LEGEND,
                (HPos::Left, VPos::Center),
                false,
                BLACK,
            )?;
        }
    }
    draw_caption(cv, caption, w, h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::Series;

    /// Three series on the same two spots and one apart: the first keeps the full marker, the
    /// second is drawn at half its size inside it, the third at a third; a line's points and a
    /// marker elsewhere are left as they are.
    #[test]
    fn coinciding_markers_nest() {
        let at = vec![(10.0, 10.0), (50.0, 50.0)];
        let series = |mark, points: Vec<(f64, f64)>| Series::new("", points, mark, 0);
        let panel = Panel {
            title: String::new(),
            x_label: String::new(),
            y_label: String::new(),
            log_x: false,
            log_y: false,
            legend_lower: false,
            series: vec![
                series(Mark::Markers, at.clone()),
                series(Mark::LineMarkers, at.clone()),
                series(Mark::Markers, at.clone()),
                series(Mark::Line, at.clone()),
                series(Mark::Markers, vec![(90.0, 90.0)]),
            ],
            bands: Vec::new(),
        };
        let pixels: Vec<Vec<(f64, f64)>> = panel.series.iter().map(|s| s.points.clone()).collect();
        let r = marker_radii(&panel, &pixels);
        let m = size::MARKER;
        assert_eq!(r[0], [m, m]);
        assert_eq!(r[1], [m / 2.0, m / 2.0]);
        assert_eq!(r[2], [m / 3.0, m / 3.0]);
        assert_eq!(r[3], [m, m]);
        assert_eq!(r[4], [m]);
    }
}
