//! A compact SVG backend with sub-pixel coordinates.
//!
//! plotters hands every backend integer coordinates; plotters' own SVG backend writes them as
//! they come, so a line through data points kinks at every pixel. This backend is drawn on at
//! [`SVG_SCALE`] times the figure's size and writes each coordinate divided by it (one decimal):
//! the figure keeps its size and its lines run straight. It also writes only what differs from
//! SVG's defaults, and a bitmap (a heat map's cells) as one embedded PNG instead of thousands of
//! rectangles.

use plotters::prelude::{BitMapBackend, IntoDrawingArea};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontTransform,
};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Backend units per figure pixel in SVG output (coordinates are written to 1/10 pixel).
pub(crate) const SVG_SCALE: f64 = 10.0;

/// The figure's family in SVG: the font the PNG is drawn with, then any sans-serif.
const FONT_FAMILY: &str = "DejaVu Sans,sans-serif";

#[derive(Debug)]
pub(crate) struct SvgError(String);

impl std::fmt::Display for SvgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SvgError {}

type DrawResult = Result<(), DrawingErrorKind<SvgError>>;

/// Writes `path` on [`DrawingBackend::present`].
pub(crate) struct CompactSvg {
    path: PathBuf,
    /// The figure's size in pixels (the backend is `SVG_SCALE` times larger).
    size: (u32, u32),
    body: String,
    saved: bool,
}

impl CompactSvg {
    pub fn new(path: &Path, size: (u32, u32)) -> Self {
        Self {
            path: path.to_path_buf(),
            size,
            body: String::new(),
            saved: false,
        }
    }
}

/// A coordinate in figure pixels, with at most one decimal and no trailing zeros.
fn num(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

fn c(v: i32) -> String {
    num(f64::from(v) / SVG_SCALE)
}

fn colour(col: BackendColor) -> String {
    let (r, g, b) = col.rgb;
    let hex = format!("#{r:02x}{g:02x}{b:02x}");
    if col.alpha < 1.0 {
        format!("{hex}\" opacity=\"{:.3}", col.alpha)
    } else {
        hex
    }
}

fn width(w: u32) -> String {
    num(f64::from(w) / SVG_SCALE)
}

/// The fill or stroke attributes of a shape; `None` for a transparent one (nothing to draw).
fn paint<S: BackendStyle>(style: &S, fill: bool) -> Option<String> {
    let col = style.color();
    if col.alpha == 0.0 {
        return None;
    }
    Some(if fill {
        format!("fill=\"{}\"", colour(col))
    } else {
        format!(
            "fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"",
            colour(col),
            width(style.stroke_width())
        )
    })
}

fn points(path: impl IntoIterator<Item = BackendCoord>) -> String {
    let mut s = String::new();
    for (i, (x, y)) in path.into_iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{},{}", c(x), c(y));
    }
    s
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Base64 (RFC 4648, with padding) of `bytes`.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(A[((n >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

impl CompactSvg {
    /// Append the element `element(paint)` of a shape in `style` (filled or stroked), unless it
    /// is transparent.
    fn shape<S: BackendStyle>(
        &mut self,
        style: &S,
        fill: bool,
        element: impl FnOnce(&str) -> String,
    ) -> DrawResult {
        if let Some(paint) = paint(style, fill) {
            self.body.push_str(&element(&paint));
            self.body.push('\n');
        }
        Ok(())
    }
}

impl DrawingBackend for CompactSvg {
    type ErrorType = SvgError;

    fn get_size(&self) -> (u32, u32) {
        (
            (f64::from(self.size.0) * SVG_SCALE) as u32,
            (f64::from(self.size.1) * SVG_SCALE) as u32,
        )
    }

    fn ensure_prepared(&mut self) -> DrawResult {
        Ok(())
    }

    fn present(&mut self) -> DrawResult {
        if self.saved {
            return Ok(());
        }
        let (w, h) = self.size;
        let text = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\" font-family=\"{FONT_FAMILY}\" \
             stroke-linejoin=\"round\">\n{}</svg>\n",
            self.body
        );
        std::fs::write(&self.path, text).map_err(|e| {
            DrawingErrorKind::DrawingError(SvgError(format!("{}: {e}", self.path.display())))
        })?;
        self.saved = true;
        Ok(())
    }

    fn draw_pixel(&mut self, p: BackendCoord, col: BackendColor) -> DrawResult {
        if col.alpha > 0.0 {
            let one = num(1.0 / SVG_SCALE);
            let _ = writeln!(
                self.body,
                "<rect x=\"{}\" y=\"{}\" width=\"{one}\" height=\"{one}\" fill=\"{}\"/>",
                c(p.0),
                c(p.1),
                colour(col)
            );
        }
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> DrawResult {
        self.draw_path([from, to], style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        style: &S,
        fill: bool,
    ) -> DrawResult {
        let (x, y) = (c(a.0.min(b.0)), c(a.1.min(b.1)));
        let (w, h) = (c((b.0 - a.0).abs()), c((b.1 - a.1).abs()));
        self.shape(style, fill, |paint| {
            format!("<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" {paint}/>")
        })
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> DrawResult {
        let path = points(path);
        self.shape(style, false, |paint| {
            format!("<polyline points=\"{path}\" {paint}/>")
        })
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        centre: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> DrawResult {
        let (x, y, r) = (c(centre.0), c(centre.1), width(radius));
        self.shape(style, fill, |paint| {
            format!("<circle cx=\"{x}\" cy=\"{y}\" r=\"{r}\" {paint}/>")
        })
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> DrawResult {
        let vert = points(vert);
        self.shape(style, true, |paint| {
            format!("<polygon points=\"{vert}\" {paint}/>")
        })
    }

    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> DrawResult {
        let col = style.color();
        if col.alpha == 0.0 {
            return Ok(());
        }
        let anchor = match style.anchor().h_pos {
            HPos::Left => "",
            HPos::Right => " text-anchor=\"end\"",
            HPos::Center => " text-anchor=\"middle\"",
        };
        // The same vertical offsets as plotters' SVG backend, so layouts match the PNG.
        let dy = match style.anchor().v_pos {
            VPos::Top => " dy=\"0.76em\"",
            VPos::Center => " dy=\"0.5ex\"",
            VPos::Bottom => " dy=\"-0.5ex\"",
        };
        let (x, y) = (c(pos.0), c(pos.1));
        let rotate = match style.transform() {
            FontTransform::Rotate90 => format!(" transform=\"rotate(90,{x},{y})\""),
            FontTransform::Rotate180 => format!(" transform=\"rotate(180,{x},{y})\""),
            FontTransform::Rotate270 => format!(" transform=\"rotate(270,{x},{y})\""),
            _ => String::new(),
        };
        let fill = if col.rgb == (0, 0, 0) && col.alpha >= 1.0 {
            String::new()
        } else {
            format!(" fill=\"{}\"", colour(col))
        };
        let _ = writeln!(
            self.body,
            "<text x=\"{x}\" y=\"{y}\"{dy}{anchor} font-size=\"{}\"{fill}{rotate}>{}</text>",
            num(style.size() / 1.24 / SVG_SCALE),
            escape(text)
        );
        Ok(())
    }

    /// A bitmap is embedded as one PNG; one bitmap pixel covers one figure pixel.
    fn blit_bitmap(&mut self, pos: BackendCoord, (w, h): (u32, u32), src: &[u8]) -> DrawResult {
        let fail = |e: String| DrawingErrorKind::DrawingError(SvgError(e));
        // plotters' PNG encoder writes files only: encode through a hidden scratch file.
        let scratch = self.path.with_extension("raster.png");
        let encoded = (|| -> Result<Vec<u8>, String> {
            {
                let area = BitMapBackend::new(&scratch, (w, h)).into_drawing_area();
                area.draw(
                    &plotters::element::BitMapElement::with_ref((0, 0), (w, h), src)
                        .ok_or("bitmap buffer of the wrong size")?,
                )
                .map_err(|e| e.to_string())?;
                area.present().map_err(|e| e.to_string())?;
            }
            std::fs::read(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))
        })();
        let _ = std::fs::remove_file(&scratch);
        let png = encoded.map_err(fail)?;
        let _ = writeln!(
            self.body,
            "<image x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{h}\" preserveAspectRatio=\"none\" \
             style=\"image-rendering:pixelated\" href=\"data:image/png;base64,{}\"/>",
            c(pos.0),
            c(pos.1),
            base64(&png)
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_examples() {
        // RFC 4648 §10 test vectors.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), coded);
        }
    }

    #[test]
    fn coordinates_are_written_to_a_tenth_of_a_pixel() {
        assert_eq!(c(1234), "123.4");
        assert_eq!(c(1230), "123");
        assert_eq!(c(-5), "-0.5");
    }
}
