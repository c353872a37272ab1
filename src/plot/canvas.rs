//! Drawing in figure pixels on either backend: text (with combining marks, subscripts and
//! superscripts), lines with dash patterns, markers. The SVG backend is
//! [`super::svg::SVG_SCALE`] times finer than a figure pixel, the PNG backend is not; a
//! [`Canvas`] converts.

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

/// In figure text, `_` makes the one letter after it a subscript, as the papers write c_d, λ_N,
/// x_A: Unicode has subscript forms of digits and a few letters only (no d, no capitals).
const SUBSCRIPT: char = '_';
/// In figure text, `^` makes the exponent after it a superscript, as the papers write κ^0.9456:
/// Unicode has no superscript decimal point, and an extrapolation's formula names its fitted
/// exponent with one.
const SUPERSCRIPT: char = '^';
/// A subscript's or superscript's size, relative to its text.
const SCRIPT_SIZE: f64 = 0.7;
/// How far a subscript's baseline sits below its text's, in text sizes.
const SUBSCRIPT_DROP: f64 = 0.22;
/// How far a superscript's bottom sits above its text's, in text sizes: its top then reaches
/// a little above the text's digits and capitals, as TeX sets an exponent.
const SUPERSCRIPT_RISE: f64 = 0.4;
/// The space after a subscript or superscript, in text sizes (TeX's \scriptspace): the small
/// letters leave the space above or below them empty, and without it "c_d = 0" reads as
/// "c_d= 0".
const SCRIPT_SPACE: f64 = 0.1;

/// Where a run of figure text sits: on the line, lowered as a subscript or raised as a
/// superscript.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Script {
    Line,
    Sub,
    Super,
}

impl Script {
    /// The size of a run in this script, in text of `size`.
    fn size(self, size: f64) -> f64 {
        match self {
            Script::Line => size,
            Script::Sub | Script::Super => size * SCRIPT_SIZE,
        }
    }

    /// The space after a run in this script, in text of `size`.
    fn space_after(self, size: f64) -> f64 {
        match self {
            Script::Line => 0.0,
            Script::Sub | Script::Super => SCRIPT_SPACE * size,
        }
    }
}

/// The exponent at the start of `chars` (after a `^`): an optional minus sign, then letters and
/// digits, with a `.` only between digits (a sentence's full stop after "κ^p." stays on the
/// line); the combining marks after a letter come with it. Empty when nothing after the `^` is
/// an exponent.
fn exponent(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> String {
    let mut ahead = chars.clone();
    let mut exponent = String::new();
    if let Some(&sign) = ahead.peek().filter(|&&c| c == '-' || c == '−') {
        exponent.push(sign);
        ahead.next();
    }
    while let Some(&c) = ahead.peek() {
        let digit_after = || ahead.clone().nth(1).is_some_and(|d| d.is_ascii_digit());
        let continues = c.is_alphanumeric()
            || c == DOT_ABOVE
            || (c == '.' && exponent.ends_with(|d: char| d.is_ascii_digit()) && digit_after());
        if !continues {
            break;
        }
        exponent.push(c);
        ahead.next();
    }
    if exponent.chars().all(|c| c == '-' || c == '−') {
        return String::new();
    }
    *chars = ahead;
    exponent
}

/// `text` in runs on the line, subscripts and superscripts: "c_d = 0" is
/// [("c", Line), ("d", Sub), (" = 0", Line)], "g κ^0.95 + c" is
/// [("g κ", Line), ("0.95", Super), (" + c", Line)]. A subscript keeps the combining marks after
/// its letter; a `_` at the end, or a `^` before no exponent (see [`exponent`]), stays as it is.
fn script_runs(text: &str) -> Vec<(String, Script)> {
    let mut runs: Vec<(String, Script)> = Vec::new();
    let mut line = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let script = match (c, chars.peek()) {
            (SUBSCRIPT, Some(&letter)) => {
                chars.next();
                let mut sub = letter.to_string();
                while let Some(&mark) = chars.peek().filter(|&&m| m == DOT_ABOVE) {
                    sub.push(mark);
                    chars.next();
                }
                Some((sub, Script::Sub))
            }
            (SUPERSCRIPT, Some(_)) => Some(exponent(&mut chars))
                .filter(|e| !e.is_empty())
                .map(|e| (e, Script::Super)),
            _ => None,
        };
        match script {
            Some(run) => {
                if !line.is_empty() {
                    runs.push((std::mem::take(&mut line), Script::Line));
                }
                runs.push(run);
            }
            None => line.push(c),
        }
    }
    if !line.is_empty() {
        runs.push((line, Script::Line));
    }
    runs
}

/// Whether `text` has a subscript or a superscript.
fn has_script(text: &str) -> bool {
    text.contains([SUBSCRIPT, SUPERSCRIPT])
        && script_runs(text).iter().any(|(_, s)| *s != Script::Line)
}

impl<DB: DrawingBackend> Canvas<'_, DB>
where
    DB::ErrorType: 'static,
{
    pub(crate) fn px(&self, v: f64) -> i32 {
        (v * self.scale).round() as i32
    }

    pub fn point(&self, (x, y): (f64, f64)) -> (i32, i32) {
        (self.px(x), self.px(y))
    }

    fn font(&self, size: f64) -> TextStyle<'static> {
        TextStyle::from(("sans-serif", size * self.scale).into_font())
    }

    /// Width and height of `text` at `size`, in figure pixels.
    pub(crate) fn text_size(&self, text: &str, size: f64) -> (f64, f64) {
        if !has_script(text) {
            return self.plain_text_size(text, size);
        }
        let height = self.plain_text_size(text, size).1;
        let width = script_runs(text)
            .iter()
            .map(|(run, script)| {
                let (lead, inner, trail) = self.run_extent(run, script.size(size));
                lead + inner + trail + script.space_after(size)
            })
            .sum();
        (width, height)
    }

    /// The widths of a run's leading spaces, of the rest without trailing spaces, and of the
    /// trailing spaces: text drawn from its first letter, and measured so, drops the spaces at
    /// its ends ("c_d = 0" would read "c_d= 0").
    fn run_extent(&self, run: &str, size: f64) -> (f64, f64, f64) {
        let space = self.plain_text_size("x x", size).0 - self.plain_text_size("xx", size).0;
        let inner = run.trim_matches(' ');
        let lead = run.len() - run.trim_start_matches(' ').len();
        let trail = run.len() - run.trim_end_matches(' ').len();
        if inner.is_empty() {
            return (space * run.len() as f64, 0.0, 0.0);
        }
        (
            space * lead as f64,
            self.plain_text_size(inner, size).0,
            space * trail as f64,
        )
    }

    /// [`Self::text_size`] of text without subscripts or superscripts.
    fn plain_text_size(&self, text: &str, size: f64) -> (f64, f64) {
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
        if has_script(text) {
            return self.text_with_scripts(text, at, size, anchor, vertical, colour);
        }
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
        // Plotters' bitmap text draws each glyph's ink from the pen position, dropping its left
        // side bearing, and has no mark positioning: draw the letters without the combining dots
        // and each dot over the ink of its letter as drawn (see `dot_above`).
        let stripped: String = text.chars().filter(|&c| c != DOT_ABOVE).collect();
        self.area
            .draw(&Text::new(stripped.clone(), pos, style))
            .map_err(fail)?;
        let font = self.font(size).font;
        let px_size = size * self.scale;
        let (total, height) = (
            f64::from(
                self.area
                    .estimate_text_size(&stripped, &self.font(size))
                    .map_or(0, |d| d.0),
            ),
            (px_size / 1.24).floor(),
        );
        // The default text drawing's anchor offsets (plotters_backend::DrawingBackend::draw_text),
        // applied before the rotation of vertical text.
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
        let mut prefix = String::new();
        for c in text.chars() {
            if c != DOT_ABOVE {
                prefix.push(c);
                continue;
            }
            let Some(base) = prefix.chars().last() else {
                continue;
            };
            let (Some(prefix_ink), Some(base_ink)) = (
                bitmap_ink(&font, &prefix),
                bitmap_ink(&font, &base.to_string()),
            ) else {
                continue; // a dot over a space or at the start: nothing to sit on
            };
            let ((cx, cy), r) = dot_above(prefix_ink, base_ink, px_size);
            let (x, y) = transform.transform((dx + cx).round() as i32, (dy + cy).round() as i32);
            // A title at the figure's top edge leaves no room above its capitals: the dot moves
            // into the gap rather than off the figure.
            let (w, h) = self.area.dim_in_pixel();
            let inside = |v: i32, extent: u32| v.clamp(r, (extent as i32 - 1 - r).max(r));
            let centre = (inside(pos.0 + x, w), inside(pos.1 + y, h));
            self.area
                .draw(&Circle::new(centre, r, colour.filled()))
                .map_err(fail)?;
        }
        Ok(())
    }

    /// [`Self::text`] of text with subscripts or superscripts: each run drawn from the left, one
    /// after the other, a subscript or superscript smaller, with its bottom [`SUBSCRIPT_DROP`]
    /// below the text's or [`SUPERSCRIPT_RISE`] above it, and [`SCRIPT_SPACE`] after it.
    fn text_with_scripts(
        &self,
        text: &str,
        at: (f64, f64),
        size: f64,
        anchor: (HPos, VPos),
        vertical: bool,
        colour: RGBColor,
    ) -> DrawResult {
        let (total, height) = self.text_size(text, size);
        // Along the text (u) and across it, downwards (w), from the anchor point.
        let mut u = match anchor.0 {
            HPos::Left => 0.0,
            HPos::Center => -total / 2.0,
            HPos::Right => -total,
        };
        let bottom = match anchor.1 {
            VPos::Top => height,
            VPos::Center => height / 2.0,
            VPos::Bottom => 0.0,
        };
        for (run, script) in script_runs(text) {
            let run_size = script.size(size);
            let (w, v_pos) = match script {
                Script::Line => (0.0, anchor.1),
                Script::Sub => (bottom + SUBSCRIPT_DROP * size, VPos::Bottom),
                Script::Super => (bottom - SUPERSCRIPT_RISE * size, VPos::Bottom),
            };
            let (lead, inner, trail) = self.run_extent(&run, run_size);
            u += lead;
            // Vertical text reads upwards: along it is −y, downwards across it is +x.
            let run_at = if vertical {
                (at.0 + w, at.1 - u)
            } else {
                (at.0 + u, at.1 + w)
            };
            self.text(
                run.trim_matches(' '),
                run_at,
                run_size,
                (HPos::Left, v_pos),
                vertical,
                colour,
            )?;
            u += inner + trail + script.space_after(size);
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
    pub(crate) fn marker(
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
    pub(crate) fn rect(&self, a: (f64, f64), b: (f64, f64), style: ShapeStyle) -> DrawResult {
        let style = ShapeStyle {
            stroke_width: (f64::from(style.stroke_width) * self.scale).round() as u32,
            ..style
        };
        self.area
            .draw(&Rectangle::new([self.point(a), self.point(b)], style))
            .map_err(fail)
    }
}

/// Where a glyph run's ink lands when plotters' bitmap text draws it at (0, 0), the top-left of
/// its layout box: pixel columns `left..=right`, rows `top..=bottom`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ink {
    left: i32,
    right: i32,
    top: i32,
    bottom: i32,
}

/// Pixel coverage below which a glyph's antialiased edge is not seen (5 %, 13 of 255 grey
/// levels): the rasteriser reports coverages of 10⁻³ a column beyond a letter's visible edge.
const VISIBLE_COVERAGE: f32 = 0.05;

/// The visible ink of `text` as plotters' bitmap text draws it (the same glyph placement as
/// the PNG backend: `FontDesc::draw` is what `DrawingBackend::draw_text` calls); `None` when
/// blank.
fn bitmap_ink(font: &FontDesc<'_>, text: &str) -> Option<Ink> {
    let mut ink: Option<Ink> = None;
    let _ = font.draw(text, (0, 0), |x, y, coverage| {
        if coverage >= VISIBLE_COVERAGE {
            ink = Some(match ink {
                None => Ink {
                    left: x,
                    right: x,
                    top: y,
                    bottom: y,
                },
                Some(b) => Ink {
                    left: b.left.min(x),
                    right: b.right.max(x),
                    top: b.top.min(y),
                    bottom: b.bottom.max(y),
                },
            });
        }
        Ok::<(), ()>(())
    });
    ink
}

/// Centre (pixels from the layout box's top-left) and radius of a combining dot over the last
/// letter of a text whose first letters up to and including that one draw `prefix` ink, the
/// letter alone drawing `letter` ink, at font size `px_size` pixels. The letter is the rightmost
/// ink of the prefix (its ink spans the letter's own width left of `prefix.right`), so the dot
/// sits over the middle of the letter as drawn, a gap above its top, whatever came before it
/// (subscripts, kerning, the dropped side bearings).
fn dot_above(prefix: Ink, letter: Ink, px_size: f64) -> ((f64, f64), i32) {
    let r = (0.07 * px_size).round().max(1.0) as i32;
    let gap = (0.06 * px_size).round().max(1.0);
    let width = f64::from(letter.right - letter.left);
    let centre_x = f64::from(prefix.right) - 0.5 * width;
    // A filled circle of radius r covers rows centre ± r: its lowest row is `gap` rows clear of
    // the letter's top row.
    let centre_y = f64::from(letter.top) - gap - 1.0 - f64::from(r);
    ((centre_x, centre_y), r)
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
    use super::{dashes, dot_above, script_runs, Canvas, Ink, Script, DOT_ABOVE};
    use plotters::prelude::*;
    use plotters::style::text_anchor::{HPos, VPos};

    const SIZE: (u32, u32) = (640, 640);

    /// The pixels of `draw` on a white bitmap of [`SIZE`].
    fn render(draw: impl Fn(&Canvas<'_, BitMapBackend<'_>>)) -> Vec<u8> {
        super::super::register_fonts();
        let mut buf = vec![255u8; (SIZE.0 * SIZE.1 * 3) as usize];
        {
            let area = BitMapBackend::with_buffer(&mut buf, SIZE).into_drawing_area();
            draw(&Canvas {
                area: &area,
                scale: 1.0,
                vector: false,
            });
            area.present().unwrap();
        }
        buf
    }

    fn text(
        text: &str,
        at: (f64, f64),
        size: f64,
        anchor: (HPos, VPos),
        vertical: bool,
    ) -> Vec<u8> {
        render(|cv| cv.text(text, at, size, anchor, vertical, BLACK).unwrap())
    }

    /// (x, y) of the pixels visibly darker in `a` than in `b` (by 13 of 255 grey levels, 5 %).
    fn darker(a: &[u8], b: &[u8]) -> Vec<(i32, i32)> {
        (0..a.len() / 3)
            .filter(|&i| i32::from(a[3 * i]) < i32::from(b[3 * i]) - 12)
            .map(|i| ((i as u32 % SIZE.0) as i32, (i as u32 / SIZE.0) as i32))
            .collect()
    }

    /// (min x, max x, min y, max y) of a pixel set.
    fn bounds(p: &[(i32, i32)]) -> (i32, i32, i32, i32) {
        let xs = p.iter().map(|q| q.0);
        let ys = p.iter().map(|q| q.1);
        (
            xs.clone().min().unwrap(),
            xs.max().unwrap(),
            ys.clone().min().unwrap(),
            ys.max().unwrap(),
        )
    }

    #[test]
    fn dot_sits_over_the_middle_of_its_letter_a_gap_above_it() {
        // Letter ink 7 px wide ending at column 20 of the prefix, top row 3, 20 px font:
        // radius round(1.4) = 1, gap round(1.2) = 1, so the dot's rows are −2…0 above row 3.
        let prefix = Ink {
            left: 0,
            right: 20,
            top: 0,
            bottom: 15,
        };
        let letter = Ink {
            left: 0,
            right: 6,
            top: 3,
            bottom: 15,
        };
        let ((x, y), r) = dot_above(prefix, letter, 20.0);
        assert_eq!((x, y, r), (17.0, 0.0, 1));
        let ((_, y), r) = dot_above(prefix, letter, 40.0);
        assert_eq!(r, 3); // round(2.8)
        assert!(y + f64::from(r) < f64::from(letter.top) - 1.0);
    }

    /// The dot's pixels (the PNG text with dots minus the same text without them) are centred on
    /// the letter's own pixels (the text up to the letter minus the text before it), found
    /// without the code under test, and clear above them; Centre/Right anchors and vertical
    /// text put the dot at the same place relative to the letters.
    #[test]
    fn png_dots_are_centred_over_their_letters_for_every_anchor_and_rotation() {
        for (before, letter, after) in [
            ("caption · θ₀ = 1.3, ", 'θ', "₀ = 0"),
            ("", 'x', ""),
            ("slip ", 'u', " (m/s)"),
            ("q = 1, ", 'q', "₁"),
        ] {
            for size in [10.5, 13.0, 24.0] {
                let dotted = format!("{before}{letter}{DOT_ABOVE}{after}");
                let plain = format!("{before}{letter}{after}");
                let at = (20.0, 300.0);
                let top_left = (HPos::Left, VPos::Top);
                let dot = darker(
                    &text(&dotted, at, size, top_left, false),
                    &text(&plain, at, size, top_left, false),
                );
                assert!(!dot.is_empty(), "no dot drawn in {dotted:?}");
                let glyph = darker(
                    &text(&format!("{before}{letter}"), at, size, top_left, false),
                    &text(before, at, size, top_left, false),
                );
                let (d, g) = (bounds(&dot), bounds(&glyph));
                let (dot_mid, glyph_mid) = (d.0 + d.1, g.0 + g.1); // doubled centres
                assert!(
                    (dot_mid - glyph_mid).abs() <= 1,
                    "{dotted:?} at {size} px: dot columns {}…{}, letter columns {}…{}",
                    d.0,
                    d.1,
                    g.0,
                    g.1
                );
                assert!(
                    d.3 < g.2,
                    "{dotted:?} at {size} px: dot rows {}…{} reach the letter's top row {}",
                    d.2,
                    d.3,
                    g.2
                );
                // The dot relative to the plain text's ink, for the other anchors and vertical.
                let relative = |anchor, vertical| {
                    let with = text(&dotted, (320.0, 320.0), size, anchor, vertical);
                    let without = text(&plain, (320.0, 320.0), size, anchor, vertical);
                    let ink = bounds(&darker(&without, &vec![255u8; without.len()]));
                    let d = bounds(&darker(&with, &without));
                    if vertical {
                        // Reading upwards: the text's x runs up the page, its y to the right.
                        (ink.3 - d.3, d.0 - ink.0)
                    } else {
                        (d.0 - ink.0, d.2 - ink.2)
                    }
                };
                let reference = relative(top_left, false);
                for anchor in [(HPos::Center, VPos::Center), (HPos::Right, VPos::Bottom)] {
                    for vertical in [false, true] {
                        let got = relative(anchor, vertical);
                        assert!(
                            (got.0 - reference.0).abs() <= 1 && (got.1 - reference.1).abs() <= 1,
                            "{dotted:?} at {size} px, vertical {vertical}: dot at {got:?} from the ink, {reference:?} when horizontal"
                        );
                    }
                }
            }
        }
    }

    /// A title flush with the figure's top edge (the atlas panels' θ̇₀ = … at 17 px) keeps its
    /// whole dot: as many dot pixels as the same title lower down.
    #[test]
    fn dots_at_the_top_edge_stay_on_the_figure() {
        let dot_pixels = |y: f64| {
            let top = (HPos::Center, VPos::Top);
            darker(
                &text("θ\u{307}₀ = 0", (100.0, y), 17.0, top, false),
                &text("θ₀ = 0", (100.0, y), 17.0, top, false),
            )
            .len()
        };
        assert!(dot_pixels(100.0) >= 5);
        assert_eq!(dot_pixels(0.0), dot_pixels(100.0));
    }

    fn runs(text: &str) -> Vec<(String, Script)> {
        script_runs(text)
    }

    fn owned(v: &[(&str, Script)]) -> Vec<(String, Script)> {
        v.iter().map(|&(t, s)| (t.to_string(), s)).collect()
    }

    #[test]
    fn an_underscore_makes_the_letter_after_it_a_subscript() {
        use Script::{Line, Sub};
        assert_eq!(
            runs("damping c_d = 0"),
            owned(&[("damping c", Line), ("d", Sub), (" = 0", Line)])
        );
        assert_eq!(runs("ẋ_A"), owned(&[("ẋ", Line), ("A", Sub)]));
        assert_eq!(runs("x_a\u{307}"), owned(&[("x", Line), ("a\u{307}", Sub)]));
        assert_eq!(runs("plain"), owned(&[("plain", Line)]));
        assert_eq!(runs("end_"), owned(&[("end_", Line)]));
    }

    #[test]
    fn a_caret_makes_the_exponent_after_it_a_superscript() {
        use Script::{Line, Sub, Super};
        assert_eq!(
            runs("fitted y₀ + d κ L² + g κ^0.9456"),
            owned(&[("fitted y₀ + d κ L² + g κ", Line), ("0.9456", Super)])
        );
        assert_eq!(
            runs("y₀ + c κ^p + d κ^2p"),
            owned(&[
                ("y₀ + c κ", Line),
                ("p", Super),
                (" + d κ", Line),
                ("2p", Super)
            ])
        );
        assert_eq!(
            runs("F_n ∝ κ^−1."),
            owned(&[
                ("F", Line),
                ("n", Sub),
                (" ∝ κ", Line),
                ("−1", Super),
                (".", Line)
            ])
        );
        assert_eq!(runs("a ^ b, c^"), owned(&[("a ^ b, c^", Line)]));
        assert_eq!(runs("κ^-"), owned(&[("κ^-", Line)]));
    }

    /// A superscript is drawn smaller and raised: its ink starts above the ink of the text on
    /// the line and ends above that text's bottom, and the text's measured width covers it.
    #[test]
    fn png_superscripts_are_raised_and_measured() {
        let at = (20.0, 300.0);
        let top_left = (HPos::Left, VPos::Top);
        let blank = vec![255u8; (SIZE.0 * SIZE.1 * 3) as usize];
        let base = text("κ", at, 13.0, top_left, false);
        let line = bounds(&darker(&base, &blank));
        let exponent = bounds(&darker(&text("κ^0.9456", at, 13.0, top_left, false), &base));
        assert!(
            exponent.0 > line.1,
            "exponent {exponent:?} overlaps κ {line:?}"
        );
        assert!(
            exponent.2 < line.2,
            "exponent {exponent:?} no higher than κ {line:?}"
        );
        assert!(
            exponent.3 < line.3,
            "exponent {exponent:?} reaches κ's baseline {line:?}"
        );
        render(|cv| {
            let (w, _) = cv.text_size("κ^0.9456", 13.0);
            assert!(
                at.0 + w >= f64::from(exponent.1),
                "width {w} short of {exponent:?}"
            );
        });
    }

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
