//! A table drawn as coloured cells: rows and columns with their headers, each cell split
//! side by side into entries, each entry filled with its category's colour (a light tint, so
//! that its text stays black and readable) and labelled; a flagged entry is framed in
//! vermillion. A paper's table of predicted outcomes redrawn with the outcomes computed (C–V's
//! Table 3). Data in, drawing out; no physics.

use super::canvas::{Canvas, DrawResult};
use super::panel;
use super::style::{self, size};
use super::Drawing;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use std::path::Path;

/// One entry of a cell: its category (palette index into [`CellChart::categories`]; `None`:
/// no data, grey), its text lines (the first larger) and whether it is flagged.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ChartEntry {
    pub category: Option<usize>,
    pub lines: Vec<String>,
    pub flagged: bool,
}

/// One cell: its row and column, a note in small grey type at its top (e.g. the paper's
/// entry), and its entries side by side.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ChartCell {
    pub row: usize,
    pub column: usize,
    pub note: String,
    pub entries: Vec<ChartEntry>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CellChart {
    /// Over the column headers.
    pub title: String,
    pub row_labels: Vec<String>,
    pub column_labels: Vec<String>,
    pub cells: Vec<ChartCell>,
    /// The legend's names of the categories, in palette order.
    pub categories: Vec<String>,
    /// The legend's name of a flagged entry's frame (none when no entry is flagged).
    pub flag_label: String,
    pub size: (u32, u32),
}

/// The fill of category `i`: its palette colour mixed with `TINT` parts of white.
const TINT: f64 = 0.6;
const FLAG: RGBColor = style::PALETTE[3];
const NO_DATA: RGBColor = RGBColor(215, 215, 215);

fn tint(colour: RGBColor) -> RGBColor {
    let mix = |c: u8| (f64::from(c) * (1.0 - TINT) + 255.0 * TINT).round() as u8;
    RGBColor(mix(colour.0), mix(colour.1), mix(colour.2))
}

/// Category `i`'s fill: the palette's colours in order, without its black (references).
fn fill(category: Option<usize>) -> RGBColor {
    category.map_or(NO_DATA, |i| {
        let index = i % (style::PALETTE.len() - 1);
        tint(style::colour(
            index + usize::from(index >= style::REFERENCE),
        ))
    })
}

/// Write `dir/stem.svg` and `dir/stem.png` with `caption` as a line under the chart.
pub(crate) fn save_cell_chart(
    chart: &CellChart,
    caption: &str,
    dir: &Path,
    stem: &str,
) -> Result<(), String> {
    super::render(dir, stem, chart.size, &(chart, caption))
}

impl Drawing for (&CellChart, &str) {
    fn draw<DB: DrawingBackend>(&self, cv: &Canvas<'_, DB>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let (chart, caption) = *self;
        let (w, h) = cv.area.dim_in_pixel();
        let (w, h) = (f64::from(w) / cv.scale, f64::from(h) / cv.scale);
        cv.rect((0.0, 0.0), (w, h), WHITE.filled())?;
        let flagged = chart
            .cells
            .iter()
            .flat_map(|c| &c.entries)
            .any(|e| e.flagged);
        let legend: Vec<(String, Option<usize>)> = chart
            .categories
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), Some(i)))
            .chain(flagged.then(|| (chart.flag_label.clone(), None)))
            .collect();
        // The legend wraps into rows that fit the width.
        let sample = 22.0;
        let widths: Vec<f64> = legend
            .iter()
            .map(|(n, _)| sample + 8.0 + cv.text_size(n, size::LEGEND).0 + 24.0)
            .collect();
        let mut legend_rows: Vec<Vec<usize>> = vec![Vec::new()];
        let mut used = 0.0;
        for (i, lw) in widths.iter().enumerate() {
            if used + lw > w - 40.0 && !legend_rows.last().is_some_and(Vec::is_empty) {
                legend_rows.push(Vec::new());
                used = 0.0;
            }
            used += lw;
            if let Some(row) = legend_rows.last_mut() {
                row.push(i);
            }
        }
        let line_h = size::LEGEND * 1.8;
        let legend_h = legend_rows.len() as f64 * line_h + 10.0;
        let bottom = h - panel::caption_height(caption) - legend_h;
        let title_h = if chart.title.is_empty() { 0.0 } else { 34.0 };
        let header_w = chart
            .row_labels
            .iter()
            .map(|l| cv.text_size(l, size::AXIS_LABEL).0)
            .fold(0.0, f64::max)
            + 24.0;
        let header_h = 30.0;
        let (left, top) = (header_w, title_h + header_h);
        let n_columns = chart.column_labels.len().max(1) as f64;
        let n_rows = chart.row_labels.len().max(1) as f64;
        let (cw, ch) = ((w - left - 12.0) / n_columns, (bottom - top - 8.0) / n_rows);
        if !chart.title.is_empty() {
            cv.text(
                &chart.title,
                (w / 2.0, title_h / 2.0 + 2.0),
                size::TITLE,
                (HPos::Center, VPos::Center),
                false,
                BLACK,
            )?;
        }
        for (j, label) in chart.column_labels.iter().enumerate() {
            cv.text(
                label,
                (left + (j as f64 + 0.5) * cw, title_h + header_h / 2.0),
                size::AXIS_LABEL,
                (HPos::Center, VPos::Center),
                false,
                BLACK,
            )?;
        }
        for (i, label) in chart.row_labels.iter().enumerate() {
            cv.text(
                label,
                (header_w - 12.0, top + (i as f64 + 0.5) * ch),
                size::AXIS_LABEL,
                (HPos::Right, VPos::Center),
                false,
                BLACK,
            )?;
        }
        let grid = RGBColor(120, 120, 120);
        for cell in &chart.cells {
            let (x0, y0) = (left + cell.column as f64 * cw, top + cell.row as f64 * ch);
            let note_h = if cell.note.is_empty() { 0.0 } else { 20.0 };
            let n = cell.entries.len().max(1) as f64;
            let ew = cw / n;
            for (k, e) in cell.entries.iter().enumerate() {
                let ex = x0 + k as f64 * ew;
                cv.rect((ex, y0), (ex + ew, y0 + ch), fill(e.category).filled())?;
                let body = y0 + note_h;
                let sizes: Vec<f64> = (0..e.lines.len())
                    .map(|l| if l == 0 { size::AXIS_LABEL } else { size::TICK })
                    .collect();
                let total: f64 = sizes.iter().map(|s| s * 1.35).sum();
                let mut y = body + (ch - note_h - total) / 2.0;
                for (line, s) in e.lines.iter().zip(&sizes) {
                    cv.text(
                        line,
                        (ex + ew / 2.0, y + s * 0.675),
                        *s,
                        (HPos::Center, VPos::Center),
                        false,
                        BLACK,
                    )?;
                    y += s * 1.35;
                }
                if e.flagged {
                    cv.rect(
                        (ex + 2.0, y0 + 2.0),
                        (ex + ew - 2.0, y0 + ch - 2.0),
                        FLAG.stroke_width(3),
                    )?;
                }
                if k > 0 {
                    cv.line(
                        &[(ex, y0 + note_h), (ex, y0 + ch)],
                        &[3.0, 3.0],
                        1.0,
                        grid.to_rgba(),
                    )?;
                }
            }
            if !cell.note.is_empty() {
                cv.text(
                    &cell.note,
                    (x0 + 6.0, y0 + note_h / 2.0 + 1.0),
                    size::TICK - 1.0,
                    (HPos::Left, VPos::Center),
                    false,
                    RGBColor(70, 70, 70),
                )?;
            }
        }
        // The grid over the fills.
        for j in 0..=chart.column_labels.len() {
            let x = left + j as f64 * cw;
            cv.line(
                &[(x, top), (x, top + n_rows * ch)],
                &[],
                1.0,
                grid.to_rgba(),
            )?;
        }
        for i in 0..=chart.row_labels.len() {
            let y = top + i as f64 * ch;
            cv.line(
                &[(left, y), (left + n_columns * cw, y)],
                &[],
                1.0,
                grid.to_rgba(),
            )?;
        }
        for (r, row) in legend_rows.iter().enumerate() {
            let row_w: f64 = row.iter().map(|&i| widths[i]).sum();
            let mut x = ((w - row_w) / 2.0).max(10.0);
            let y = bottom + 6.0 + (r as f64 + 0.5) * line_h;
            for &i in row {
                let (name, category) = &legend[i];
                let (a, b) = (
                    (x, y - sample / 2.0 + 3.0),
                    (x + sample, y + sample / 2.0 - 3.0),
                );
                match category {
                    Some(c) => {
                        cv.rect(a, b, fill(Some(*c)).filled())?;
                        cv.rect(a, b, grid.stroke_width(1))?;
                    }
                    None => cv.rect(a, b, FLAG.stroke_width(3))?,
                }
                cv.text(
                    name,
                    (x + sample + 8.0, y),
                    size::LEGEND,
                    (HPos::Left, VPos::Center),
                    false,
                    BLACK,
                )?;
                x += widths[i];
            }
        }
        panel::draw_caption(cv, caption, w, h)
    }
}
