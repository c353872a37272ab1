//! Drawing in figure pixels on either backend: text (with combining marks), lines with dash
//! patterns, markers. The SVG backend is [`super::svg::SVG_SCALE`] times finer than a figure
//! pixel, the PNG backend is not; a [`Canvas`] converts.

use super::style::{self, Shape};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;

pub(crate) type DrawResult = Result<(), String>;

/// Backend units per figure pixel, and whether the backend renders text itself (SVG: the
/// viewer's text engine places combining marks; plotters' bitmap text does not).
pub(crate) struct Canvas<'a, DB: DrawingBackend> {
    pub area: &'a DrawingArea<DB, Shift>,
    pub scale: f64,
    pub vector: bool,
}

pub(crate) fn fail(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// U+0307 COMBINING DOT ABOVE: θ̇ is "θ\u{307}".
const DOT_ABOVE: char = '\u{307}';

impl<DB: DrawingBackend> Canvas<'_, DB>
where
    DB::ErrorType: 'static,
{
    pub fn px(&self, v: f64) -> i32 {
        (v * self.scale).round() as i32
    }

    pub fn point(&self, (x, y): (f64, f64)) -> (i32, i32) {
        (self.px(x), self.px(y))
    }

    fn font(&self, size: f64) -> TextStyle<'static> {
        TextStyle::from(("sans-serif", size * self.scale).into_font())
    }

    /// Width and height of `text` at `size`, in figure pixels.
    pub fn text_size(&self, text: &str, size: f64) -> (f64, f64) {
        let stripped: String = text.chars().filter(|&c| c != DOT_ABOVE).collect();
        let (w, h) = self
            .area
            .estimate_text_size(&stripped, &self.font(size))
            .unwrap_or((0, 0));
        (f64::from(w) / self.scale, f64::from(h) / self.scale)
    }

    /// Draw `text` anchored at `at` (figure pixels); `vertical`: reading upwards.
    pub fn text(
        &self,
        text: &str,
        at: (f64, f64),
        size: f64,
        anchor: (HPos, VPos),
        vertical: bool,
        colour: RGBColor,
    ) -> DrawResult {
        let transform = if vertical {
            FontTransform::Rotate270
        } else {
            FontTransform::None
        };
        let style = self
            .font(size)
            .color(&colour)
            .pos(Pos::new(anchor.0, anchor.1))
            .transform(transform.clone());
        let pos = self.point(at);
        if self.vector || !text.contains(DOT_ABOVE) {
            return self
                .area
                .draw(&Text::new(text.to_string(), pos, style))
                .map_err(fail);
        }
        // Bitmap text drops each glyph's side bearing, so a combining dot lands beside its
        // letter: draw the letters without it and the dot over the letter's middle.
        let stripped: String = text.chars().filter(|&c| c != DOT_ABOVE).collect();
        self.area
            .draw(&Text::new(stripped.clone(), pos, style))
            .map_err(fail)?;
        let font = self.font(size);
        let width = |s: &str| -> f64 {
            f64::from(
                self.area
                    .estimate_text_size(s, &font)
                    .map(|d| d.0)
                    .unwrap_or(0),
            )
        };
        let px_size = size * self.scale;
        let (total, height) = (width(&stripped), (px_size / 1.24).floor());
        // The default text drawing's anchor offsets (plotters_backend::DrawingBackend::draw_text)
        // and its baseline, half a font size below the layout box's top.
        let dx = match anchor.0 {
            HPos::Left => 0.0,
            HPos::Center => -(total / 2.0).floor(),
            HPos::Right => -total,
        };
        let dy = match anchor.1 {
            VPos::Top => 0.0,
            VPos::Center => -(height / 2.0).floor(),
            VPos::Bottom => -height,
        };
        let baseline = dy + px_size / 2.0;
        let mut prefix = String::new();
        for c in text.chars() {
            if c != DOT_ABOVE {
                prefix.push(c);
                continue;
            }
            let Some(base) = prefix.chars().last() else {
                continue;
            };
            let pen = width(&prefix) - width(&base.to_string());
            let centre = (
                dx + pen + 0.5 * width(&base.to_string()) - 0.02 * px_size,
                baseline - 0.74 * px_size,
            );
            let (x, y) = transform.transform(centre.0.round() as i32, centre.1.round() as i32);
            let r = (0.07 * px_size).max(1.0).round() as i32;
            self.area
                .draw(&Circle::new((pos.0 + x, pos.1 + y), r, colour.filled()))
                .map_err(fail)?;
        }
        Ok(())
    }

    /// A polyline in figure pixels, solid or with a dash pattern (figure pixels, on/off…).
    pub fn line(
        &self,
        points: &[(f64, f64)],
        pattern: &[f64],
        width: f64,
        colour: RGBAColor,
    ) -> DrawResult {
        let stroke = ShapeStyle {
            color: colour,
            filled: false,
            stroke_width: (width * self.scale).round().max(1.0) as u32,
        };
        for piece in dashes(points, pattern) {
            if piece.len() < 2 {
                continue;
            }
            let path: Vec<(i32, i32)> = piece.iter().map(|&p| self.point(p)).collect();
            self.area
                .draw(&PathElement::new(path, stroke))
                .map_err(fail)?;
        }
        Ok(())
    }

    /// A marker centred at `at` (figure pixels).
    pub fn marker(
        &self,
        shape: Shape,
        at: (f64, f64),
        radius: f64,
        colour: RGBColor,
        filled: bool,
    ) -> DrawResult {
        let style = if filled {
            colour.filled()
        } else {
            colour.stroke_width((1.5 * self.scale).round() as u32)
        };
        match style::shape_vertices(shape, radius) {
            None => self
                .area
                .draw(&Circle::new(self.point(at), self.px(radius), style))
                .map_err(fail),
            Some(v) => {
                let mut pts: Vec<(i32, i32)> = v
                    .iter()
                    .map(|&(x, y)| self.point((at.0 + x, at.1 + y)))
                    .collect();
                if filled {
                    self.area.draw(&Polygon::new(pts, style)).map_err(fail)
                } else {
                    pts.push(pts[0]);
                    self.area.draw(&PathElement::new(pts, style)).map_err(fail)
                }
            }
        }
    }

    /// A filled rectangle between two corners (figure pixels).
    pub fn rect(&self, a: (f64, f64), b: (f64, f64), style: ShapeStyle) -> DrawResult {
        let style = ShapeStyle {
            stroke_width: (f64::from(style.stroke_width) * self.scale).round() as u32,
            ..style
        };
        self.area
            .draw(&Rectangle::new([self.point(a), self.point(b)], style))
            .map_err(fail)
    }
}

/// Split a polyline into the drawn pieces of a dash pattern (solid when empty); the pattern
/// runs on across vertices, so dashes keep their length on densely sampled curves.
pub(crate) fn dashes(points: &[(f64, f64)], pattern: &[f64]) -> Vec<Vec<(f64, f64)>> {
    if pattern.is_empty() {
        return vec![points.to_vec()];
    }
    let period: f64 = pattern.iter().sum();
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut phase = 0.0; // distance into the pattern
    let on_at = |phase: f64| -> (bool, f64) {
        // (drawing?, distance to the pattern's next switch)
        let mut p = phase % period;
        for (k, len) in pattern.iter().enumerate() {
            if p < *len {
                return (k % 2 == 0, len - p);
            }
            p -= len;
        }
        (true, pattern[0])
    };
    let mut current: Vec<(f64, f64)> = Vec::new();
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        let seg = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        let mut done = 0.0;
        while done < seg {
            let (on, left) = on_at(phase);
            let step = left.min(seg - done).max(1e-9);
            let at = |d: f64| (a.0 + (b.0 - a.0) * d / seg, a.1 + (b.1 - a.1) * d / seg);
            if on {
                if current.is_empty() {
                    current.push(at(done));
                }
                current.push(at(done + step));
            } else if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            done += step;
            phase += step;
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::dashes;

    #[test]
    fn dashes_keep_their_length_across_vertices() {
        // A 20 px line in ten 2 px segments with pattern 7 on, 3 off: dashes of 7 px at 0 and 10.
        let pts: Vec<(f64, f64)> = (0..=10).map(|i| (2.0 * f64::from(i), 0.0)).collect();
        let d = dashes(&pts, &[7.0, 3.0]);
        assert_eq!(d.len(), 2);
        for (dash, start) in d.iter().zip([0.0, 10.0]) {
            assert!((dash[0].0 - start).abs() < 1e-9);
            assert!((dash.last().unwrap().0 - start - 7.0).abs() < 1e-9);
        }
        assert_eq!(dashes(&pts, &[]).len(), 1);
    }
}
