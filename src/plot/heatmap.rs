//! Heatmaps over a scattered parameter grid (one cell per point), with curves and marked
//! points: the atlas figures. Data in, drawing out; no physics.

use super::{register_fonts, PALETTE};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// How cell values become colours.
#[derive(Clone, Debug)]
pub enum ColorScale {
    /// A continuous colour map over the values' range; the colour bar says `label`.
    Continuous { label: String },
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
pub struct HeatPanel {
    pub title: String,
    pub cells: Vec<Cell>,
    /// Curves drawn over the cells, with one legend label for all of them.
    pub curves: Vec<Vec<(f64, f64)>>,
    pub curve_label: String,
    /// Points marked with a cross, with their legend label.
    pub marks: Vec<(f64, f64)>,
    pub mark_label: String,
}

#[derive(Clone, Debug)]
pub struct HeatMap {
    pub panels: Vec<HeatPanel>,
    pub columns: usize,
    pub x_label: String,
    pub y_label: String,
    pub scale: ColorScale,
    pub size: (u32, u32),
}

/// Perceptually ordered map (viridis, 5 anchors, linear in between), t ∈ [0, 1].
fn viridis(t: f64) -> RGBColor {
    const A: [(f64, f64, f64); 5] = [
        (68.0, 1.0, 84.0),
        (59.0, 82.0, 139.0),
        (33.0, 145.0, 140.0),
        (94.0, 201.0, 98.0),
        (253.0, 231.0, 37.0),
    ];
    let t = t.clamp(0.0, 1.0) * 4.0;
    let i = (t.floor() as usize).min(3);
    let f = t - i as f64;
    let mix = |a: f64, b: f64| (a + (b - a) * f).round() as u8;
    RGBColor(
        mix(A[i].0, A[i + 1].0),
        mix(A[i].1, A[i + 1].1),
        mix(A[i].2, A[i + 1].2),
    )
}

/// Write `dir/stem.svg` and `dir/stem.png`.
pub fn save_heatmap(map: &HeatMap, dir: &Path, stem: &str) -> Result<(), String> {
    register_fonts();
    super::write_svg_and_png(
        dir,
        stem,
        |svg| {
            let root = SVGBackend::new(svg, map.size).into_drawing_area();
            draw(map, &root)?;
            root.present().map_err(|e| e.to_string())
        },
        |png| {
            let root = BitMapBackend::new(png, map.size).into_drawing_area();
            draw(map, &root)?;
            root.present().map_err(|e| e.to_string())
        },
    )
}

fn value_range(map: &HeatMap) -> (f64, f64) {
    let vals = map
        .panels
        .iter()
        .flat_map(|p| p.cells.iter().filter_map(|c| c.value))
        .filter(|v| v.is_finite());
    let (lo, hi) = vals.fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    if lo > hi {
        (0.0, 1.0)
    } else if hi - lo < 1e-12 * (1.0 + lo.abs()) {
        (lo - 0.5, hi + 0.5)
    } else {
        (lo, hi)
    }
}

fn draw<DB: DrawingBackend>(map: &HeatMap, root: &DrawingArea<DB, Shift>) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let err = |e: &dyn std::fmt::Display| e.to_string();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (w, _) = root.dim_in_pixel();
    let bar_w = if matches!(map.scale, ColorScale::Continuous { .. }) {
        110
    } else {
        0
    };
    let (plots, bar) = root.split_horizontally(w - bar_w);
    let (vlo, vhi) = value_range(map);
    let color_of = |v: Option<f64>| -> RGBColor {
        match (v, &map.scale) {
            (Some(v), ColorScale::Continuous { .. }) if v.is_finite() => {
                viridis((v - vlo) / (vhi - vlo))
            }
            (Some(v), ColorScale::Categories { .. }) if v >= 0.0 => {
                PALETTE[(v as usize) % PALETTE.len()]
            }
            _ => RGBColor(200, 200, 200),
        }
    };
    let columns = map.columns.max(1);
    let rows = map.panels.len().div_ceil(columns);
    let areas = plots.split_evenly((rows, columns));
    for (panel, area) in map.panels.iter().zip(areas.iter()) {
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for c in &panel.cells {
            x0 = x0.min(c.x - c.half_w);
            x1 = x1.max(c.x + c.half_w);
            y0 = y0.min(c.y - c.half_h);
            y1 = y1.max(c.y + c.half_h);
        }
        if x0 >= x1 || y0 >= y1 {
            continue;
        }
        // Blank room under the data for the legend (lower left), so it hides no cell.
        let entries = 1
            + usize::from(!panel.marks.is_empty())
            + match &map.scale {
                ColorScale::Categories { names } => names.len(),
                ColorScale::Continuous { .. } => 0,
            };
        let data_y0 = y0;
        let y0 = y0 - 0.065 * (y1 - y0) * entries as f64;
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(44)
            .y_label_area_size(56)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(map.x_label.as_str())
            .y_desc(map.y_label.as_str())
            // No ticks in the legend's blank room.
            .y_label_formatter(&|v| {
                if *v < data_y0 {
                    String::new()
                } else {
                    format!("{v:.1}")
                }
            })
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 15))
            .draw()
            .map_err(|e| err(&e))?;
        chart
            .draw_series(panel.cells.iter().map(|c| {
                Rectangle::new(
                    [
                        (c.x - c.half_w, c.y - c.half_h),
                        (c.x + c.half_w, c.y + c.half_h),
                    ],
                    color_of(c.value).filled(),
                )
            }))
            .map_err(|e| err(&e))?;
        if let ColorScale::Categories { names } = &map.scale {
            for (i, name) in names.iter().enumerate() {
                let color = PALETTE[i % PALETTE.len()];
                chart
                    .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
                    .map_err(|e| err(&e))?
                    .label(name.as_str())
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                    });
            }
        }
        for (k, curve) in panel.curves.iter().enumerate() {
            let s = chart
                .draw_series(LineSeries::new(
                    curve.iter().copied(),
                    BLACK.stroke_width(2),
                ))
                .map_err(|e| err(&e))?;
            if k == 0 && !panel.curve_label.is_empty() {
                s.label(panel.curve_label.as_str()).legend(|(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], BLACK.stroke_width(2))
                });
            }
        }
        if !panel.marks.is_empty() {
            let red = RGBColor(220, 20, 60);
            chart
                .draw_series(
                    panel
                        .marks
                        .iter()
                        .map(|&p| Cross::new(p, 2, red.stroke_width(1))),
                )
                .map_err(|e| err(&e))?
                .label(panel.mark_label.as_str())
                .legend(move |(x, y)| Cross::new((x + 6, y), 3, red.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .label_font(("sans-serif", 12))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.5))
            .position(SeriesLabelPosition::LowerLeft)
            .draw()
            .map_err(|e| err(&e))?;
    }
    if let ColorScale::Continuous { label } = &map.scale {
        let (_, h) = bar.dim_in_pixel();
        let bar = bar.margin(40, (h as f64 * 0.25) as u32, 10, 10);
        let mut chart = ChartBuilder::on(&bar)
            .y_label_area_size(0)
            .right_y_label_area_size(62)
            .build_cartesian_2d(0.0..1.0, vlo..vhi)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .y_desc(label.as_str())
            .label_style(("sans-serif", 12))
            .axis_desc_style(("sans-serif", 13))
            .draw()
            .map_err(|e| err(&e))?;
        let n = 100;
        chart
            .draw_series((0..n).map(|i| {
                let a = vlo + (vhi - vlo) * i as f64 / n as f64;
                let b = vlo + (vhi - vlo) * (i + 1) as f64 / n as f64;
                Rectangle::new(
                    [(0.0, a), (1.0, b)],
                    viridis((i as f64 + 0.5) / n as f64).filled(),
                )
            }))
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))
}
