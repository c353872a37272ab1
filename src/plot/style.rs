//! The one figure style: palette, markers, line patterns, font sizes, tick positions and tick
//! labels. Every figure (line panels and heat maps) is drawn with these.

use plotters::prelude::RGBColor;

/// Okabe & Ito's colour-blind-safe palette ("Color Universal Design", 2008), ordered so that
/// neighbouring indices differ most; index [`REFERENCE`] (black) is for references and limits.
pub(crate) const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(230, 159, 0),   // orange
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(0, 0, 0),       // black: references
    RGBColor(136, 34, 85),   // Tol's wine (Okabe–Ito's yellow is too weak on white)
];

/// The palette index of reference curves (limits, bounds, guides).
pub const REFERENCE: usize = 6;

pub(crate) fn colour(index: usize) -> RGBColor {
    PALETTE[index % PALETTE.len()]
}

/// Marker shapes; series `i` has colour `i` and marker `i`, so series stay apart in grey print
/// and for readers who confuse the palette's blue/sky-blue or orange/vermillion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Shape {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
    Pentagon,
    Hexagon,
    Star,
}

pub(crate) fn shape(index: usize) -> Shape {
    const SHAPES: [Shape; 8] = [
        Shape::Circle,
        Shape::Square,
        Shape::TriangleUp,
        Shape::Diamond,
        Shape::TriangleDown,
        Shape::Pentagon,
        Shape::Hexagon,
        Shape::Star,
    ];
    SHAPES[index % SHAPES.len()]
}

/// Vertices of a marker of radius `r` around the origin (y down), `None` for a circle.
pub(crate) fn shape_vertices(shape: Shape, r: f64) -> Option<Vec<(f64, f64)>> {
    let polygon = |n: usize, start: f64, radius: &dyn Fn(usize) -> f64| -> Vec<(f64, f64)> {
        (0..n)
            .map(|k| {
                let a = start + std::f64::consts::TAU * k as f64 / n as f64;
                (radius(k) * a.cos(), radius(k) * a.sin())
            })
            .collect()
    };
    let up = -std::f64::consts::FRAC_PI_2;
    Some(match shape {
        Shape::Circle => return None,
        Shape::Square => polygon(4, std::f64::consts::FRAC_PI_4, &|_| r * 1.2),
        Shape::Diamond => polygon(4, up, &|_| r * 1.35),
        Shape::TriangleUp => polygon(3, up, &|_| r * 1.4),
        Shape::TriangleDown => polygon(3, -up, &|_| r * 1.4),
        Shape::Pentagon => polygon(5, up, &|_| r * 1.2),
        Shape::Hexagon => polygon(6, 0.0, &|_| r * 1.15),
        Shape::Star => polygon(10, up, &|k| if k % 2 == 0 { r * 1.6 } else { r * 0.7 }),
    })
}

/// Sizes in figure pixels.
pub(crate) mod size {
    pub const TITLE: f64 = 17.0;
    pub(crate) const AXIS_LABEL: f64 = 15.0;
    pub(crate) const TICK: f64 = 13.0;
    pub(crate) const LEGEND: f64 = 13.0;
    pub(crate) const CAPTION: f64 = 13.0;
    pub(crate) const LINE: f64 = 2.0;
    pub(crate) const MARKER: f64 = 3.6;
    pub(crate) const TICK_LENGTH: f64 = 5.0;
}

/// Dash pattern (on, off, … in figure pixels) of a line style; empty: solid.
pub(crate) fn dash_pattern(mark: super::Mark) -> &'static [f64] {
    use super::Mark;
    match mark {
        Mark::Dashed => &[7.0, 4.0],
        Mark::Dotted => &[2.0, 3.0],
        Mark::DashDot => &[8.0, 3.0, 2.0, 3.0],
        _ => &[],
    }
}

const SUPERSCRIPT_DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];

/// `n` in superscript digits, with a superscript minus: −6 → "⁻⁶".
pub(crate) fn superscript(n: i64) -> String {
    let mut s = String::new();
    if n < 0 {
        s.push('⁻');
    }
    for d in n.unsigned_abs().to_string().bytes() {
        s.push(SUPERSCRIPT_DIGITS[usize::from(d - b'0')]);
    }
    s
}

/// A number for a tick or a legend: plain between 10⁻³ and 10⁴, `m×10ⁿ` outside, with a true
/// minus sign; `decimals` digits after the point (plain form) or in the mantissa.
pub(crate) fn format_number(v: f64, decimals: usize) -> String {
    let a = v.abs();
    if v == 0.0 || (1e-3..1e4).contains(&a) {
        return format!("{v:.decimals$}").replacen('-', "−", 1);
    }
    format_power_of_ten(v, decimals)
}

/// A small parameter (κ, ε, a tolerance) in a figure's title, legend or caption, by one rule
/// whatever its size: a power of ten as 10ⁿ, any other value as m×10ⁿ with one decimal in the
/// mantissa (10⁻², 3.5×10⁻², 3.2×10⁻³ for 0.0031623), so that κ = 0.01 and κ = 10⁻⁴ in one
/// figure read alike.
pub(crate) fn format_small_parameter(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    format_power_of_ten(v, 1)
}

/// `v` as m×10ⁿ with `decimals` digits in the mantissa, trailing zeros dropped, 10ⁿ when the
/// mantissa is 1, the plain mantissa when n = 0; a true minus sign.
fn format_power_of_ten(v: f64, decimals: usize) -> String {
    let minus = |s: String| s.replacen('-', "−", 1);
    // Rust's own exponent formatting rounds the mantissa and carries into the exponent
    // (9.96e-8 at one decimal is 1.0e-7, not 10×10⁻⁸).
    let s = format!("{v:.decimals$e}");
    let (mantissa, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i64 = e.parse().unwrap_or(0);
    let trimmed = if mantissa.contains('.') {
        mantissa.trim_end_matches('0').trim_end_matches('.')
    } else {
        mantissa
    };
    if e == 0 {
        minus(trimmed.to_string())
    } else if trimmed == "1" {
        format!("10{}", superscript(e))
    } else if trimmed == "-1" {
        format!("−10{}", superscript(e))
    } else {
        minus(format!("{trimmed}×10{}", superscript(e)))
    }
}

/// A parameter value as a person writes it, with its shortest digits: 2, 1.3, −1, 10⁻⁶,
/// 3.2×10⁻⁴. A small parameter (κ, ε, a tolerance) goes through [`format_small_parameter`].
pub(crate) fn format_value(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 || !v.is_finite() || (1e-3..1e4).contains(&a) {
        return format!("{v}").replacen('-', "−", 1);
    }
    // The shortest mantissa that reads back as v.
    let shortest = format!("{v:e}");
    let decimals = shortest
        .split('e')
        .next()
        .and_then(|m| m.split_once('.'))
        .map_or(0, |(_, d)| d.len());
    format_power_of_ten(v, decimals)
}

/// Ticks of a log axis over log10 values [lo, hi]: (log10 value, label). Decades as 10ⁿ (every
/// k-th decade when there are many); where fewer than three decades fall inside, also 2 and
/// 5 × 10ⁿ (two decade ticks alone leave a reader nothing to read values between), then
/// every whole mantissa; within a range so narrow that whole mantissas give fewer than three
/// ticks (a distance that is the same at every κ: 1e-9 to 1.9e-9), the round steps of the
/// values themselves ([`linear_ticks`]) placed on the log scale.
pub(crate) fn log_ticks(lo: f64, hi: f64) -> Vec<(f64, String)> {
    let (first, last) = (lo.ceil() as i64, hi.floor() as i64);
    let decades = last - first + 1;
    if decades >= 3 {
        let step = [1, 2, 3, 4, 5, 10, 20]
            .into_iter()
            .find(|s| decades / s <= 7)
            .unwrap_or(50);
        return (first..=last)
            .filter(|e| e.rem_euclid(step) == 0)
            .map(|e| (e as f64, format!("10{}", superscript(e))))
            .collect();
    }
    for mantissas in [
        &[1.0, 2.0, 5.0][..],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
    ] {
        let at: Vec<(f64, f64, i64)> = (lo.floor() as i64..=hi.ceil() as i64)
            .flat_map(|e| mantissas.iter().map(move |&m| (m, e)))
            .map(|(m, e)| (m * 10f64.powi(e as i32), m, e))
            .filter(|(v, _, _)| (lo..=hi).contains(&v.log10()))
            .collect();
        // One form per axis: plain only when every tick reads plain (0.002 beside 5×10⁻⁴
        // would write the same kind of number two ways).
        let plain = at.iter().all(|&(_, _, e)| PLAIN_EXPONENTS.contains(&e));
        let ticks: Vec<(f64, String)> = at
            .into_iter()
            .map(|(v, m, e)| (v.log10(), mantissa_tick(m, e, plain)))
            .collect();
        if ticks.len() >= 3 {
            return ticks;
        }
    }
    linear_ticks(10f64.powf(lo), 10f64.powf(hi))
        .into_iter()
        .filter(|&(v, _)| v > 0.0)
        .map(|(v, label)| (v.log10(), label))
        .collect()
}

/// The exponents e of the log-axis ticks m × 10ᵉ that may be written plain: 10⁻³ to 10⁴.
const PLAIN_EXPONENTS: std::ops::Range<i64> = -3..4;

/// The label of the log-axis tick m × 10ᵉ (m a whole mantissa 1–9): `plain` (e in
/// [`PLAIN_EXPONENTS`]) with the decimals e asks for (0.002, 0.05, 300), else m×10ᵉ (5×10⁻⁴),
/// 10ᵉ for m = 1.
fn mantissa_tick(m: f64, e: i64, plain: bool) -> String {
    if plain {
        let decimals = usize::try_from(-e).unwrap_or(0);
        format!("{:.decimals$}", m * 10f64.powi(e as i32))
    } else if m == 1.0 {
        format!("10{}", superscript(e))
    } else {
        format!("{m}×10{}", superscript(e))
    }
}

/// Ticks of a linear axis: 4–8 values at a step of 1, 2 or 5 × 10ⁿ, labelled with the digits
/// the step needs.
pub(crate) fn linear_ticks(lo: f64, hi: f64) -> Vec<(f64, String)> {
    if hi <= lo || hi.is_nan() || lo.is_nan() {
        return Vec::new();
    }
    let raw = (hi - lo) / 6.0;
    let e = raw.log10().floor();
    let unit = 10f64.powf(e);
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * unit)
        .find(|s| (hi - lo) / s <= 8.0)
        .unwrap_or(10.0 * unit);
    let decimals = (-(step.log10() + 1e-9).floor()).max(0.0) as usize;
    let magnitude = lo.abs().max(hi.abs());
    // Steps finer than 10⁻³ would need ticks like −0.0005: those read as m×10ⁿ too.
    let scientific = !(1e-3..1e4).contains(&magnitude) || decimals > 3;
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last)
        .map(|k| {
            let v = k as f64 * step;
            let label = if k == 0 {
                "0".to_string()
            } else if scientific {
                // Mantissa digits: those the step needs relative to the value's own decade.
                let digits = (v.abs().log10().floor() - step.log10().floor()).max(0.0) as usize;
                format_power_of_ten(v, digits)
            } else {
                format!("{v:.decimals$}").replacen('-', "−", 1)
            };
            (v, label)
        })
        .collect()
}

/// `text` (a quantity's symbol or a configuration's label, written with the system's names) for
/// a figure: a Greek name as its letter (`theta` → θ, `mu` → μ), a `_dot` suffix as the dot
/// above (`theta_dot` → θ̇) and a trailing index as a subscript.
pub(crate) fn plot_text(text: &str) -> String {
    const GREEK: [(&str, &str); 20] = [
        ("alpha", "α"),
        ("beta", "β"),
        ("gamma", "γ"),
        ("delta", "δ"),
        ("epsilon", "ε"),
        ("zeta", "ζ"),
        ("eta", "η"),
        ("theta", "θ"),
        ("kappa", "κ"),
        ("lambda", "λ"),
        ("mu", "μ"),
        ("nu", "ν"),
        ("xi", "ξ"),
        ("rho", "ρ"),
        ("sigma", "σ"),
        ("tau", "τ"),
        ("phi", "φ"),
        ("chi", "χ"),
        ("psi", "ψ"),
        ("omega", "ω"),
    ];
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let (base, dot) = match word.strip_suffix("_dot") {
            Some(base) => (base.to_string(), true),
            None => (word.clone(), false),
        };
        // A named subscript stays written out after its letter, the dot on the letter
        // (`x_A_dot` → ẋ_A): Unicode has no subscript capitals.
        let (base, named) = match base.split_once('_') {
            Some((head, sub)) if !head.is_empty() && !sub.is_empty() => {
                (head.to_string(), format!("_{sub}"))
            }
            _ => (base, String::new()),
        };
        // A trailing index is a subscript (`u0` → u₀, `theta0` → θ₀).
        let stem = base.trim_end_matches(|c: char| c.is_ascii_digit());
        let (stem, index) = if stem.is_empty() {
            (base.as_str(), "")
        } else {
            (stem, &base[stem.len()..])
        };
        let letter = GREEK
            .iter()
            .find(|(name, _)| *name == stem)
            .map_or(stem, |(_, letter)| letter);
        out.push_str(letter);
        if dot {
            out.push('\u{307}');
        }
        out.extend(
            index
                .chars()
                .filter_map(|c| c.to_digit(10).and_then(|d| char::from_u32(0x2080 + d))),
        );
        out.push_str(&named);
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_of_ten_are_superscripts() {
        assert_eq!(superscript(-6), "⁻⁶");
        assert_eq!(superscript(12), "¹²");
        assert_eq!(format_number(1e-6, 1), "10⁻⁶");
        assert_eq!(format_number(3.2e-4, 1), "3.2×10⁻⁴");
        assert_eq!(format_number(-0.25, 2), "−0.25");
        assert_eq!(format_number(79.0, 0), "79");
        // A mantissa rounded up to 10 carries into the exponent.
        assert_eq!(format_number(9.96e-8, 1), "10⁻⁷");
        assert_eq!(format_number(-9.97e5, 1), "−10⁶");
        assert_eq!(format_number(9.96e-8, 2), "9.96×10⁻⁸");
        assert_eq!(format_value(1e-10), "10⁻¹⁰");
        assert_eq!(format_value(-3.2e-4), "−3.2×10⁻⁴");
        assert_eq!(format_value(1.3), "1.3");
    }

    /// One rule for a small parameter at every size: κ = 0.01 prints as 10⁻², as 10⁻⁴ does.
    #[test]
    fn small_parameters_are_powers_of_ten_at_every_size() {
        assert_eq!(format_small_parameter(0.01), "10⁻²");
        assert_eq!(format_small_parameter(1e-4), "10⁻⁴");
        assert_eq!(format_small_parameter(0.001), "10⁻³");
        assert_eq!(format_small_parameter(0.035), "3.5×10⁻²");
        assert_eq!(format_small_parameter(10f64.powf(-2.5)), "3.2×10⁻³");
        assert_eq!(format_small_parameter(3e-5), "3×10⁻⁵");
        assert_eq!(format_small_parameter(0.1), "10⁻¹");
        assert_eq!(format_small_parameter(1.0), "1");
        assert_eq!(format_small_parameter(2.5), "2.5");
        assert_eq!(format_small_parameter(0.0), "0");
    }

    #[test]
    fn log_ticks_are_decades_or_mantissas_within_range() {
        let t = log_ticks(-12.3, -0.7);
        assert!(t.len() <= 8 && t.len() >= 3, "{t:?}");
        assert!(t
            .iter()
            .all(|(v, l)| *v == v.round() && l.starts_with("10")));
        let t = log_ticks(-3.2, -2.5);
        assert!(t.len() >= 2, "{t:?}");
        assert!(t.iter().all(|(v, _)| (-3.2..=-2.5).contains(v)));
        // Within a decade and a half the mantissas are labelled with the digits they need,
        // never rounded to "0" (1e-3 and 2e-3 read 0.001 and 0.002), and in one form per axis:
        // powers of ten throughout when one tick needs them.
        let labels: Vec<String> = log_ticks(-2.9, -1.5).into_iter().map(|(_, l)| l).collect();
        assert_eq!(labels, ["0.002", "0.005", "0.01", "0.02"], "{labels:?}");
        let labels: Vec<String> = log_ticks(-3.8, -2.5).into_iter().map(|(_, l)| l).collect();
        assert_eq!(labels, ["2×10⁻⁴", "5×10⁻⁴", "10⁻³", "2×10⁻³"], "{labels:?}");
        let labels: Vec<String> = log_ticks(0.1, 1.2).into_iter().map(|(_, l)| l).collect();
        assert_eq!(labels, ["2", "5", "10"], "{labels:?}");
        // Two decade ticks inside: 2 and 5 × 10ⁿ between them.
        let labels: Vec<String> = log_ticks(-0.35, 1.8).into_iter().map(|(_, l)| l).collect();
        assert_eq!(
            labels,
            ["0.5", "1", "2", "5", "10", "20", "50"],
            "{labels:?}"
        );
        // Narrower than one whole mantissa to the next: the values' own round steps.
        let t = log_ticks(0.9e-9f64.log10(), 1.95e-9f64.log10());
        assert!(t.len() >= 3, "{t:?}");
        for (v, label) in &t {
            assert!(
                (0.9e-9f64.log10()..=1.95e-9f64.log10()).contains(v),
                "{t:?}"
            );
            assert!(label.contains("×10⁻⁹") || label == "10⁻⁹", "{label}");
        }
    }

    #[test]
    fn plot_text_writes_greek_dots_and_subscripts() {
        assert_eq!(plot_text("theta_dot(t_end)"), "θ\u{307}(t_end)");
        assert_eq!(plot_text("theta0 = 1.3, u0 = -1"), "θ₀ = 1.3, u₀ = -1");
        assert_eq!(plot_text("x_A_dot, y_A, mu_s"), "x\u{307}_A, y_A, μ_s");
    }

    #[test]
    fn linear_ticks_cover_the_range_with_a_round_step() {
        let t = linear_ticks(0.62, 1.78);
        assert!((4..=8).contains(&t.len()), "{t:?}");
        assert_eq!(t[0].1, "0.8");
        let t = linear_ticks(-2e-6, 3e-6);
        assert!(t.iter().any(|(_, l)| l == "0"));
        assert!(t.iter().any(|(_, l)| l.contains("×10⁻⁶")), "{t:?}");
        // A step of 5×10⁻⁴ within the plain magnitudes: no −0.0005.
        let t = linear_ticks(-2.1e-3, 0.0);
        let labels: Vec<&str> = t.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["−2×10⁻³", "−1.5×10⁻³", "−10⁻³", "−5×10⁻⁴", "0"]);
    }
}
