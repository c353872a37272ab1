//! Figures (plotters): SVG for papers, PNG to look at. Plotting reads analysis output and rows
//! only — it computes no physics.
//!
//! A figure is data ([`Figure`]: panels of series); [`save`] draws it with an embedded font
//! (DejaVu Sans), so it renders the same on any machine.

pub mod heatmap;

use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mark {
    Markers,
    Line,
    Dashed,
    /// A line through markers.
    LineMarkers,
}

#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub mark: Mark,
    /// Index into the palette.
    pub color: usize,
}

#[derive(Clone, Debug)]
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    /// Put the legend in the lower left corner (default: upper left).
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

pub(crate) const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(80, 80, 80),
    // An eighth series (the integrator study's eight methods): Tol's wine.
    RGBColor(136, 34, 85),
];

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
    register_fonts();
    write_svg_and_png(
        dir,
        stem,
        |svg| {
            let root = SVGBackend::new(svg, fig.size).into_drawing_area();
            draw(fig, &root)?;
            root.present().map_err(|e| e.to_string())
        },
        |png| {
            let root = BitMapBackend::new(png, fig.size).into_drawing_area();
            draw(fig, &root)?;
            root.present().map_err(|e| e.to_string())
        },
    )
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
    let result = svg(&staged[0]).and_then(|_| png(&staged[1])).and_then(|_| {
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

fn axis_value(v: f64, log: bool) -> Option<f64> {
    if log {
        (v > 0.0 && v.is_finite()).then(|| v.log10())
    } else {
        v.is_finite().then_some(v)
    }
}

fn tick_label(v: f64, log: bool, span: f64) -> String {
    let v = if !log && v.abs() < 1e-9 * span {
        0.0
    } else {
        v
    };
    if log {
        if (v - v.round()).abs() < 1e-9 {
            format!("1e{}", v.round() as i64)
        } else {
            format!("{:.1e}", 10f64.powf(v))
        }
    } else {
        let a = v.abs();
        if a != 0.0 && !(1e-3..1e4).contains(&a) {
            format!("{v:.1e}")
        } else {
            format!("{}", (v * 1e6).round() / 1e6)
        }
    }
}

fn draw<DB: DrawingBackend>(fig: &Figure, root: &DrawingArea<DB, Shift>) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let err = |e: &dyn std::fmt::Display| e.to_string();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let rows = fig.panels.len().div_ceil(fig.columns.max(1));
    let areas = root.split_evenly((rows, fig.columns.max(1)));
    for (panel, area) in fig.panels.iter().zip(areas.iter()) {
        let pts: Vec<Vec<(f64, f64)>> = panel
            .series
            .iter()
            .map(|s| {
                s.points
                    .iter()
                    .filter_map(|&(x, y)| {
                        Some((axis_value(x, panel.log_x)?, axis_value(y, panel.log_y)?))
                    })
                    .collect()
            })
            .collect();
        let all: Vec<(f64, f64)> = pts.iter().flatten().copied().collect();
        if all.is_empty() {
            continue;
        }
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in &all {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        let pad = |a: f64, b: f64| {
            let d = if b > a {
                0.05 * (b - a)
            } else {
                0.5 * a.abs().max(1e-12)
            };
            (a - d, b + d)
        };
        let (x0, x1) = pad(x0, x1);
        let (y0, y1) = pad(y0, y1);
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(78)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| err(&e))?;
        let (lx, ly) = (panel.log_x, panel.log_y);
        chart
            .configure_mesh()
            .x_desc(panel.x_label.as_str())
            .y_desc(panel.y_label.as_str())
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 16))
            .x_label_formatter(&move |v| tick_label(*v, lx, x1 - x0))
            .y_label_formatter(&move |v| tick_label(*v, ly, y1 - y0))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| err(&e))?;
        for &(b0, b1, c) in &panel.bands {
            let (Some(b0), Some(b1)) = (axis_value(b0, lx), axis_value(b1, lx)) else {
                continue;
            };
            let fill = PALETTE[c % PALETTE.len()].mix(0.15).filled();
            chart
                .draw_series(std::iter::once(Rectangle::new([(b0, y0), (b1, y1)], fill)))
                .map_err(|e| err(&e))?;
        }
        for (s, p) in panel.series.iter().zip(pts) {
            let color = PALETTE[s.color % PALETTE.len()];
            let style = color.stroke_width(2);
            let anno = match s.mark {
                Mark::Markers => chart
                    .draw_series(p.iter().map(|&q| Circle::new(q, 3, color.filled())))
                    .map_err(|e| err(&e))?,
                Mark::Line => chart
                    .draw_series(LineSeries::new(p, style))
                    .map_err(|e| err(&e))?,
                Mark::Dashed => chart
                    .draw_series(DashedLineSeries::new(p, 8, 5, style))
                    .map_err(|e| err(&e))?,
                Mark::LineMarkers => {
                    chart
                        .draw_series(p.iter().map(|&q| Circle::new(q, 3, color.filled())))
                        .map_err(|e| err(&e))?;
                    chart
                        .draw_series(LineSeries::new(p, style))
                        .map_err(|e| err(&e))?
                }
            };
            if s.label.is_empty() {
                continue;
            }
            let mark = s.mark;
            anno.label(s.label.as_str()).legend(
                move |(x, y)| -> DynElement<'static, DB, (i32, i32)> {
                    match mark {
                        Mark::Markers => Circle::new((x + 10, y), 3, color.filled()).into_dyn(),
                        _ => PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                            .into_dyn(),
                    }
                },
            );
        }
        if panel.series.iter().all(|s| s.label.is_empty()) {
            continue;
        }
        chart
            .configure_series_labels()
            .label_font(("sans-serif", 13))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.5))
            .position(if panel.legend_lower {
                SeriesLabelPosition::LowerLeft
            } else {
                SeriesLabelPosition::UpperLeft
            })
            .draw()
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))
}
