//! C–V's classification of two slipping contacts (§6.1, Table tab:classification, Fig.
//! classification; Várkonyi 2015), computed from its definition. With both contacts slipping
//! (u_i > 0), v̇ = b + p λ_N (p = p⁺, 2×2, columns p₁, p₂); the modes and their consistency
//! (Table 3 at each contact):
//!
//! ```text
//!   FF     λ = 0:                         b₁ > 0, b₂ > 0
//!   S+S+   v̇ = 0:   λ = −p⁻¹b > 0           (−b in the open cone of p₁, p₂)
//!   S+F    λ₁ = −b₁/p₁₁ > 0, λ₂ = 0:       v̇₂ = b₂ + p₂₁λ₁ > 0
//!   FS+    λ₂ = −b₂/p₂₂ > 0, λ₁ = 0:       v̇₁ = b₁ + p₁₂λ₂ > 0
//! ```
//!
//! All four are invariant under positive scalings of p₁, p₂ and b, so consistency depends on the
//! directions alone. C–V's code s₁s₂s₃: γ_j the angle of p_j, γ̂₁ = γ₁ + π (of −p₁), β the angle
//! of −b, all in [0, 2π); s₁ the quadrant of γ₁; s₂ the index of the interval, among those
//! bounded by the sorted 0, γ₁, γ̂₁, π/2, π, 3π/2, 2π, that holds γ₂; s₃ that among 0, γ₁, γ₂,
//! π/2, π, 3π/2, 2π that holds β. [`tabulate`] enumerates a grid of the three directions, off
//! every boundary, and records which modes are consistent in each subclass s₁s₂s₃; C–V's Table
//! lists one member of each dual pair (contacts swapped) — [`PAPER_TABLE`], held against it.

use super::linear::slip_slip_stable;
use super::system::TwoContactSystem;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::f64::consts::{FRAC_PI_2, PI, TAU};

/// The four modes of two slipping contacts, in the Table's column order.
pub(crate) const MODES: [&str; 4] = ["FF", "S+S+", "S+F", "FS+"];

/// The directions' angle in [0, 2π).
fn angle(v: [f64; 2]) -> f64 {
    v[1].atan2(v[0]).rem_euclid(TAU)
}

/// The 1-based index of the interval of the sorted `bounds` (with 0 and 2π) holding `x`; `None`
/// on a boundary (a degenerate configuration, outside every class).
fn interval(x: f64, inner: &[f64]) -> Option<u8> {
    let mut bounds: Vec<f64> = vec![0.0, FRAC_PI_2, PI, 3.0 * FRAC_PI_2, TAU];
    bounds.extend(inner);
    bounds.sort_by(f64::total_cmp);
    if bounds.iter().any(|b| (x - b).abs() < 1e-12) {
        return None;
    }
    let below = bounds.iter().filter(|&&b| b < x).count();
    u8::try_from(below).ok()
}

/// C–V's class s₁s₂s₃ of columns `p1`, `p2` and `b` (module doc); `None` when a direction lies
/// on a boundary.
pub(crate) fn class_code(p1: [f64; 2], p2: [f64; 2], b: [f64; 2]) -> Option<[u8; 3]> {
    let [s1, s2] = class_pair(p1, p2)?;
    let s3 = interval(angle([-b[0], -b[1]]), &[angle(p1), angle(p2)])?;
    Some([s1, s2, s3])
}

/// The class s₁s₂ of columns `p1`, `p2` (Ivanov's coarser classification); `None` on a
/// boundary.
pub(crate) fn class_pair(p1: [f64; 2], p2: [f64; 2]) -> Option<[u8; 2]> {
    let (g1, g2) = (angle(p1), angle(p2));
    let s1 = interval(g1, &[])?;
    let s2 = interval(g2, &[g1, (g1 + PI).rem_euclid(TAU)])?;
    Some([s1, s2])
}

/// C–V's IWC columns (§6.3), in the Table's order.
pub const IMPACTS: [&str; 3] = ["IF", "FI", "II"];

/// Whether an impulse in the open cone of `p1`, `p2` (both impulses positive) gives a velocity
/// change in the open quadrant whose signs are `signs` (x, y).
fn cone_meets_quadrant(p1: [f64; 2], p2: [f64; 2], signs: [f64; 2]) -> bool {
    let inside_quadrant = |v: [f64; 2]| v[0] * signs[0] > 0.0 && v[1] * signs[1] > 0.0;
    let cross = |u: [f64; 2], v: [f64; 2]| u[0] * v[1] - u[1] * v[0];
    let det = cross(p1, p2);
    // d = a p₁ + b p₂ with a, b > 0 (Cramer's rule).
    let strictly_inside = |d: [f64; 2]| cross(d, p2) / det > 0.0 && cross(p1, d) / det > 0.0;
    // The cone is an arc shorter than π: it meets the open quadrant iff an edge lies in it or
    // the arc crosses one of the quadrant's two bounding rays.
    inside_quadrant(p1)
        || inside_quadrant(p2)
        || strictly_inside([signs[0], 0.0])
        || strictly_inside([0.0, signs[1]])
}

/// Which IWCs `p1`, `p2` allow (§6.3), in the order of [`IMPACTS`]. IF: an impulse at contact
/// 1 drives it into the ground and lifts contact 2, p₁₁ < 0 and p₂₁ > 0; FI: p₂₂ < 0 and
/// p₁₂ > 0; II (necessary only): positive impulses at both contacts that drive both into the
/// ground, P λ < 0 for some λ > 0 — the cone of p₁, p₂ meets the open third quadrant. C–V's
/// text says "fourth quadrant"; that reading contradicts the Table's own (x) marks
/// ([`Classification::ii_fourth_quadrant_mismatch_count`]).
pub(crate) fn impacts_possible(p1: [f64; 2], p2: [f64; 2]) -> [bool; 3] {
    [
        p1[0] < 0.0 && p1[1] > 0.0,
        p2[1] < 0.0 && p2[0] > 0.0,
        cone_meets_quadrant(p1, p2, [-1.0, -1.0]),
    ]
}

/// The normal stability of a mode over a class (§6.2), the Table's shading: no shading
/// (stable for every P and law of the class), light (stable or not, depending on them), dark
/// (unstable for every one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Shade {
    Stable,
    Either,
    Unstable,
}

/// The modes whose stability the Table shades, in its column order (FF is never shaded: a
/// free contact does not influence the normal stability).
pub const SHADED_MODES: [&str; 3] = ["S+S+", "S+F", "FS+"];

/// Whether each of [`SHADED_MODES`] is normally stable for columns `p1`, `p2` and the linear
/// law f_j = k_j Y_j + q_j V_j (k_j, q_j < 0). S+F: contact 1 alone, Y₁'' = b₁ + p₁₁(k₁Y₁ +
/// q₁V₁), stable iff −p₁₁q₁ > 0 and −p₁₁k₁ > 0 (Hurwitz, degree 2), i.e. p₁₁ > 0 (C–V §6.2
/// by §4); FS+ likewise with p₂₂; S+S+: the 4 × 4 Jacobian of (TC2) ([`slip_slip_stable`]).
pub(crate) fn modes_stable(p1: [f64; 2], p2: [f64; 2], k: [f64; 2], q: [f64; 2]) -> [bool; 3] {
    let s = TwoContactSystem {
        free_accel: [-1.0, -1.0],
        response: [[p1[0], p2[0]], [p1[1], p2[1]]],
        stiffness: k,
        damping: q,
    };
    let single = |p: f64, k: f64, q: f64| -p * q > 0.0 && -p * k > 0.0;
    [
        slip_slip_stable(&s),
        single(p1[0], k[0], q[0]),
        single(p2[1], k[1], q[1]),
    ]
}

/// The printed Table's last columns: per class, the shading of [`SHADED_MODES`] and the marks
/// of [`IMPACTS`] (II's "(x)": its necessary condition holds).
pub(crate) const PAPER_SHADING_AND_IMPACTS: [(u8, [Shade; 3], [bool; 3]); 16] = {
    use Shade::{Either as Y, Stable as S, Unstable as G};
    const N: bool = false;
    const X: bool = true;
    [
        (11, [G, S, S], [N, N, N]),
        (12, [S, S, S], [N, N, N]),
        (13, [Y, S, S], [N, N, N]),
        (14, [Y, S, G], [N, N, X]),
        (15, [G, S, G], [N, N, X]),
        (16, [G, S, G], [N, X, N]),
        (22, [G, G, S], [X, N, N]),
        (23, [Y, G, S], [X, N, N]),
        (24, [G, G, G], [X, N, X]),
        (25, [G, G, G], [X, X, X]),
        (26, [G, G, G], [X, X, N]),
        (33, [G, G, S], [N, N, X]),
        (34, [G, G, G], [N, N, X]),
        (35, [G, G, G], [N, N, X]),
        (42, [S, S, S], [N, N, N]),
        (43, [G, S, S], [N, N, X]),
    ]
};

/// Random magnitudes (rigid data P) drawn per pair of directions, and laws per P, for the
/// shading.
const MAGNITUDE_DRAWS: usize = 4;
const LAW_DRAWS: usize = 8;

/// Which of [`MODES`] are consistent (strict inequalities: generic configurations).
pub(crate) fn consistent_modes(p1: [f64; 2], p2: [f64; 2], b: [f64; 2]) -> [bool; 4] {
    let det = p1[0] * p2[1] - p2[0] * p1[1];
    // −b = λ₁p₁ + λ₂p₂ by Cramer's rule.
    let l1 = (-b[0] * p2[1] + p2[0] * b[1]) / det;
    let l2 = (-p1[0] * b[1] + b[0] * p1[1]) / det;
    let sf = -b[0] / p1[0];
    let fs = -b[1] / p2[1];
    [
        b[0] > 0.0 && b[1] > 0.0,
        l1 > 0.0 && l2 > 0.0,
        sf > 0.0 && b[1] + p1[1] * sf > 0.0,
        fs > 0.0 && b[0] + p2[0] * fs > 0.0,
    ]
}

/// The subclasses s₃ of one class s₁s₂ in which each mode is consistent (a row of the Table).
pub(crate) type ClassRow = [Vec<u8>; 4];

/// C–V's printed Table tab:classification: class s₁s₂, its dual, and per mode (FF, S+S+, S+F,
/// FS+) the s₃ where it is consistent.
pub const PAPER_TABLE: [(u8, u8, [&[u8]; 4]); 16] = [
    (11, 11, [&[5], &[2], &[1, 2, 6], &[2, 3, 4]]),
    (12, 12, [&[5], &[2], &[1, 6], &[3, 4]]),
    (13, 41, [&[5], &[2, 3], &[1, 6], &[4]]),
    (14, 31, [&[4, 5], &[2, 3, 4], &[1, 6], &[4]]),
    (15, 32, [&[4, 5], &[1, 5, 6], &[1, 6], &[4]]),
    (16, 21, [&[4], &[1, 6], &[1, 5, 6], &[4, 5]]),
    (22, 45, [&[5], &[3], &[4, 5], &[3, 4]]),
    (23, 46, [&[5], &[3], &[3, 4, 5], &[4]]),
    (24, 36, [&[4, 5], &[3, 4], &[3, 4, 5], &[4]]),
    (25, 25, [&[4], &[3, 4, 5], &[3, 4], &[4, 5]]),
    (26, 26, [&[4], &[1, 2, 6], &[3, 4], &[4, 5]]),
    (33, 44, [&[4, 5], &[3, 4], &[5], &[3]]),
    (34, 34, [&[3, 4, 5], &[4], &[5], &[3]]),
    (35, 35, [&[3, 4, 5], &[4], &[4, 5], &[3, 4]]),
    (42, 42, [&[4], &[1, 2, 6], &[5], &[3]]),
    (43, 43, [&[4], &[3, 4, 5], &[5], &[3]]),
];

/// One subclass s₁s₂s₃ as enumerated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Subclass {
    pub code: u16,
    /// The consistent modes (joined by ","; empty: inconsistent).
    pub modes: String,
    /// How many distinct sets of consistent modes the grid found in it (1: the code decides
    /// consistency, C–V's claim).
    pub mode_sets: usize,
    pub samples: usize,
}

/// The enumeration against the printed Table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Classification {
    /// Directions per angle of the grid (n³ configurations).
    pub grid: usize,
    /// Classes s₁s₂ and subclasses s₁s₂s₃ met.
    pub classes: usize,
    pub subclasses: usize,
    /// Subclasses whose sampled configurations disagree on the consistent modes.
    pub undecided_subclasses: usize,
    /// Subclasses with two or more consistent modes, and with none.
    pub indeterminate: Vec<u16>,
    pub inconsistent: Vec<u16>,
    /// Classes whose dual (contacts swapped) is not the Table's, or whose computed row under
    /// the dual map differs from the class's own.
    pub dual_mismatches: Vec<String>,
    pub dual_mismatch_count: usize,
    /// Cells (class, mode) of the printed Table that differ from the computed ones, as
    /// "class mode: printed … computed …".
    pub table_mismatches: Vec<String>,
    /// Printed cells compared, and how many differ (the length of `table_mismatches`).
    pub table_cells: usize,
    pub table_mismatch_count: usize,
    /// Subclasses with all four modes consistent (C–V: e.g. 254, 354).
    pub quadruple: Vec<u16>,
    pub subclass_list: Vec<Subclass>,
    /// The Table's last columns, computed per printed class from its n² pairs of directions,
    /// each with `MAGNITUDE_DRAWS` random magnitudes times `LAW_DRAWS` random laws
    /// (`stability_samples` in all).
    pub class_properties: Vec<ClassProperties>,
    pub stability_samples: usize,
    /// Printed shading cells (16 × 3) and IWC cells (16 × 3), and those that differ from the
    /// computed ("class column: printed … computed …").
    pub shading_cells: usize,
    pub shading_mismatch_count: usize,
    pub shading_mismatches: Vec<String>,
    pub impact_cells: usize,
    pub impact_mismatch_count: usize,
    pub impact_mismatches: Vec<String>,
    /// Classes whose pairs of directions disagree on the IWC columns (C–V: the class decides).
    pub undecided_impact_classes: usize,
    /// II marks of the Table that differ from the text's "fourth quadrant" reading.
    pub ii_fourth_quadrant_mismatch_count: usize,
    /// Printed classes in which some rigid data P have an S+S+ verdict that depends on the
    /// law, and those whose shading is light (stable or not) without any such P.
    pub law_decided_classes: Vec<u8>,
    pub light_classes_without_law_dependence: Vec<u8>,
}

/// One printed class's computed last columns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassProperties {
    pub class: u8,
    /// Shading of [`SHADED_MODES`].
    pub shading: [Shade; 3],
    /// The fraction of S+S+'s samples that are stable.
    pub slip_slip_stable_fraction: f64,
    /// The fraction of the class's rigid data P whose S+S+ verdict depends on the law (C–V
    /// §6.2: "undecidable within rigid-body theory").
    pub slip_slip_law_decided_fraction: f64,
    /// [`IMPACTS`] possible.
    pub impacts: [bool; 3],
    /// A representative pair of directions (γ₁, γ₂): the class's sample nearest its mean, and
    /// for each subclass s₃ (in order) the middle β of its interval and how many modes are
    /// consistent there — Fig. classification's arrows.
    pub representative: (f64, f64),
    pub subclass_directions: Vec<(f64, usize)>,
}

/// What the pairs of directions of one class s₁s₂ gave.
#[derive(Default)]
struct ClassSamples {
    impacts: BTreeSet<[bool; 3]>,
    ii_fourth_quadrant: BTreeSet<bool>,
    /// Per shaded mode: (unstable, stable) counts.
    stability: [[usize; 2]; 3],
    /// Rigid data P drawn, and those whose S+S+ verdict differs between the drawn laws.
    rigid_samples: usize,
    law_decided: usize,
    /// The pairs of angles (γ₁, γ₂) met.
    angles: Vec<(f64, f64)>,
}

/// The class's pair of angles nearest the mean of its pairs (a class is a product of two
/// intervals in [0, 2π), so the mean lies inside it), and the subclasses' middle directions
/// of −b with their number of consistent modes.
fn representative(angles: &[(f64, f64)]) -> ((f64, f64), Vec<(f64, usize)>) {
    let n = angles.len().max(1) as f64;
    let mean = (
        angles.iter().map(|a| a.0).sum::<f64>() / n,
        angles.iter().map(|a| a.1).sum::<f64>() / n,
    );
    let (g1, g2) = angles
        .iter()
        .copied()
        .min_by(|a, b| {
            let d = |x: (f64, f64)| (x.0 - mean.0).powi(2) + (x.1 - mean.1).powi(2);
            d(*a).total_cmp(&d(*b))
        })
        .unwrap_or(mean);
    let mut bounds = [0.0, g1, g2, FRAC_PI_2, PI, 3.0 * FRAC_PI_2, TAU];
    bounds.sort_by(f64::total_cmp);
    let (p1, p2) = ([g1.cos(), g1.sin()], [g2.cos(), g2.sin()]);
    let subclasses = bounds
        .windows(2)
        .map(|w| {
            let beta = 0.5 * (w[0] + w[1]);
            let b = [-beta.cos(), -beta.sin()];
            let modes = consistent_modes(p1, p2, b).iter().filter(|&&m| m).count();
            (beta, modes)
        })
        .collect();
    ((g1, g2), subclasses)
}

fn code_number(c: [u8; 3]) -> u16 {
    100 * u16::from(c[0]) + 10 * u16::from(c[1]) + u16::from(c[2])
}

/// The classes of a grid of `n` directions per angle (γ₁, γ₂, β at (i + ½)/n · 2π, shifted off
/// the axes and each other), each configuration classified and its consistent modes found.
pub fn tabulate(n: usize) -> Classification {
    let dir = |i: usize, shift: f64| {
        let a = TAU * (i as f64 + 0.5 + shift) / n as f64;
        [a.cos(), a.sin()]
    };
    // Subclass code → (set of mode sets, samples).
    let mut seen: BTreeMap<[u8; 3], (Vec<[bool; 4]>, usize)> = BTreeMap::new();
    let mut duals: BTreeMap<[u8; 2], Vec<[u8; 2]>> = BTreeMap::new();
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                let (p1, p2, b) = (dir(i, 0.0), dir(j, 0.13), dir(k, 0.29));
                let b = [-b[0], -b[1]];
                let Some(code) = class_code(p1, p2, b) else {
                    continue;
                };
                if (p1[0] * p2[1] - p2[0] * p1[1]).abs() < 1e-9 {
                    continue;
                }
                let modes = consistent_modes(p1, p2, b);
                let entry = seen.entry(code).or_default();
                if !entry.0.contains(&modes) {
                    entry.0.push(modes);
                }
                entry.1 += 1;
                // The dual: contacts swapped, p = [[p22, p21], [p12, p11]], b reversed.
                let (q1, q2, c) = ([p2[1], p2[0]], [p1[1], p1[0]], [b[1], b[0]]);
                if let Some(dual) = class_code(q1, q2, c) {
                    let d = duals.entry([code[0], code[1]]).or_default();
                    if !d.contains(&[dual[0], dual[1]]) {
                        d.push([dual[0], dual[1]]);
                    }
                }
            }
        }
    }
    // The last columns depend on p₁, p₂ alone: per pair of directions, the IWC columns, and
    // each shaded mode's stability over log-uniform magnitudes |p_j| ∈ [0.1, 10] and laws
    // −k_j ∈ [0.1, 10], −q_j ∈ [0.01, 10].
    let mut seed = 2016_u64;
    let mut uniform = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut log_uniform = |lo: f64, hi: f64| 10f64.powf(lo + (hi - lo) * uniform());
    let mut per_class: BTreeMap<[u8; 2], ClassSamples> = BTreeMap::new();
    let mut stability_samples = 0;
    for i in 0..n {
        for j in 0..n {
            let (d1, d2) = (dir(i, 0.0), dir(j, 0.13));
            if (d1[0] * d2[1] - d2[0] * d1[1]).abs() < 1e-9 {
                continue;
            }
            let Some(pair) = class_pair(d1, d2) else {
                continue;
            };
            let e = per_class.entry(pair).or_default();
            e.angles.push((angle(d1), angle(d2)));
            e.impacts.insert(impacts_possible(d1, d2));
            e.ii_fourth_quadrant
                .insert(cone_meets_quadrant(d1, d2, [1.0, -1.0]));
            for _ in 0..MAGNITUDE_DRAWS {
                // One rigid P: its S+S+ verdict under every drawn law.
                let (m1, m2) = (log_uniform(-1.0, 1.0), log_uniform(-1.0, 1.0));
                let mut verdicts = [false; 2];
                for _ in 0..LAW_DRAWS {
                    let k = [-log_uniform(-1.0, 1.0), -log_uniform(-1.0, 1.0)];
                    let q = [-log_uniform(-2.0, 1.0), -log_uniform(-2.0, 1.0)];
                    let stable = modes_stable(d1.map(|x| x * m1), d2.map(|x| x * m2), k, q);
                    for (m, st) in stable.into_iter().enumerate() {
                        e.stability[m][usize::from(st)] += 1;
                    }
                    verdicts[usize::from(stable[0])] = true;
                    stability_samples += 1;
                }
                e.rigid_samples += 1;
                if verdicts == [true, true] {
                    e.law_decided += 1;
                }
            }
        }
    }
    let (mut shading_mismatches, mut impact_mismatches) = (Vec::new(), Vec::new());
    let mut ii_fourth_quadrant_mismatch_count = 0;
    let mut class_properties = Vec::new();
    for (class, printed_shading, printed_impacts) in PAPER_SHADING_AND_IMPACTS {
        let Some(e) = per_class.get(&[class / 10, class % 10]) else {
            shading_mismatches.push(format!("{class}: no sample"));
            continue;
        };
        let shading = e
            .stability
            .map(|[unstable, stable]| match (unstable, stable) {
                (_, 0) => Shade::Unstable,
                (0, _) => Shade::Stable,
                _ => Shade::Either,
            });
        let impacts = e.impacts.first().copied().unwrap_or_default();
        for m in 0..3 {
            if shading[m] != printed_shading[m] {
                shading_mismatches.push(format!(
                    "{class} {}: printed {:?}, computed {:?}",
                    SHADED_MODES[m], printed_shading[m], shading[m]
                ));
            }
            if impacts[m] != printed_impacts[m] {
                impact_mismatches.push(format!(
                    "{class} {}: printed {}, computed {}",
                    IMPACTS[m], printed_impacts[m], impacts[m]
                ));
            }
        }
        if e.ii_fourth_quadrant
            .iter()
            .any(|&x| x != printed_impacts[2])
        {
            ii_fourth_quadrant_mismatch_count += 1;
        }
        let [unstable, stable] = e.stability[0];
        let (representative, subclass_directions) = representative(&e.angles);
        class_properties.push(ClassProperties {
            representative,
            subclass_directions,
            class,
            shading,
            slip_slip_stable_fraction: stable as f64 / (stable + unstable).max(1) as f64,
            slip_slip_law_decided_fraction: e.law_decided as f64 / e.rigid_samples.max(1) as f64,
            impacts,
        });
    }
    let subclass_list: Vec<Subclass> = seen
        .iter()
        .map(|(code, (sets, samples))| Subclass {
            code: code_number(*code),
            modes: (0..4)
                .filter(|&m| sets[0][m])
                .map(|m| MODES[m])
                .collect::<Vec<_>>()
                .join(","),
            mode_sets: sets.len(),
            samples: *samples,
        })
        .collect();
    let row = |class: [u8; 2]| -> ClassRow {
        std::array::from_fn(|m| {
            seen.iter()
                .filter(|(c, (sets, _))| c[0] == class[0] && c[1] == class[1] && sets[0][m])
                .map(|(c, _)| c[2])
                .collect()
        })
    };
    let mut table_mismatches = Vec::new();
    let mut dual_mismatches = Vec::new();
    let mut table_cells = 0;
    for (class, dual, printed) in PAPER_TABLE {
        let c = [class / 10, class % 10];
        let computed = row(c);
        for m in 0..4 {
            table_cells += 1;
            if computed[m] != printed[m] {
                table_mismatches.push(format!(
                    "{class} {}: printed {:?}, computed {:?}",
                    MODES[m], printed[m], computed[m]
                ));
            }
        }
        let found = duals.get(&c).cloned().unwrap_or_default();
        if found != [[dual / 10, dual % 10]] {
            dual_mismatches.push(format!("{class}: printed dual {dual}, computed {found:?}"));
        }
    }
    let classes = {
        let mut c: Vec<[u8; 2]> = seen.keys().map(|k| [k[0], k[1]]).collect();
        c.dedup();
        c.len()
    };
    let with = |f: &dyn Fn(usize) -> bool| -> Vec<u16> {
        seen.iter()
            .filter(|(_, (sets, _))| f(sets[0].iter().filter(|&&x| x).count()))
            .map(|(c, _)| code_number(*c))
            .collect()
    };
    Classification {
        grid: n,
        classes,
        subclasses: seen.len(),
        undecided_subclasses: seen.values().filter(|(sets, _)| sets.len() > 1).count(),
        indeterminate: with(&|k| k >= 2),
        quadruple: with(&|k| k == 4),
        table_mismatch_count: table_mismatches.len(),
        dual_mismatch_count: dual_mismatches.len(),
        inconsistent: with(&|k| k == 0),
        dual_mismatches,
        table_mismatches,
        table_cells,
        subclass_list,
        stability_samples,
        shading_cells: 3 * PAPER_SHADING_AND_IMPACTS.len(),
        shading_mismatch_count: shading_mismatches.len(),
        shading_mismatches,
        impact_cells: 3 * PAPER_SHADING_AND_IMPACTS.len(),
        impact_mismatch_count: impact_mismatches.len(),
        impact_mismatches,
        undecided_impact_classes: per_class.values().filter(|e| e.impacts.len() > 1).count(),
        ii_fourth_quadrant_mismatch_count,
        law_decided_classes: class_properties
            .iter()
            .filter(|c| c.slip_slip_law_decided_fraction > 0.0)
            .map(|c| c.class)
            .collect(),
        light_classes_without_law_dependence: class_properties
            .iter()
            .filter(|c| c.shading[0] == Shade::Either && c.slip_slip_law_decided_fraction == 0.0)
            .map(|c| c.class)
            .collect(),
        class_properties,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The consistency conditions against a direct construction: for random directions, a mode
    /// marked consistent has λ ≥ 0 solving its equalities and v̇ ≥ 0 at its free contacts.
    #[test]
    fn consistent_modes_solve_their_equalities() {
        let mut seed = 12345_u64;
        let mut rand = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for _ in 0..2000 {
            let (p1, p2, b) = ([rand(), rand()], [rand(), rand()], [rand(), rand()]);
            let modes = consistent_modes(p1, p2, b);
            let vdot = |l: [f64; 2]| {
                [
                    b[0] + p1[0] * l[0] + p2[0] * l[1],
                    b[1] + p1[1] * l[0] + p2[1] * l[1],
                ]
            };
            let det = p1[0] * p2[1] - p2[0] * p1[1];
            let l = [
                (-b[0] * p2[1] + p2[0] * b[1]) / det,
                (-p1[0] * b[1] + b[0] * p1[1]) / det,
            ];
            let v = vdot(l);
            assert!(v[0].abs() < 1e-9 * (1.0 + l[0].abs() + l[1].abs()));
            assert_eq!(modes[1], l[0] > 0.0 && l[1] > 0.0);
            let sf = vdot([-b[0] / p1[0], 0.0]);
            assert_eq!(modes[2], -b[0] / p1[0] > 0.0 && sf[1] > 0.0);
            let fs = vdot([0.0, -b[1] / p2[1]]);
            assert_eq!(modes[3], -b[1] / p2[1] > 0.0 && fs[0] > 0.0);
        }
    }

    /// C–V's Fig. unstableslip (A) data (docs/two_contact.md): class 261, S+S+ alone
    /// consistent.
    #[test]
    fn fig_unstableslip_a_is_class_261() {
        let (p1, p2, b) = ([-0.055, 0.055], [0.088, -0.036], [-1.0, -1.0]);
        assert_eq!(class_code(p1, p2, b), Some([2, 6, 1]));
        assert_eq!(consistent_modes(p1, p2, b), [false, true, false, false]);
    }

    /// C–V's (A) data allow IF and FI (p₁ in the second quadrant, p₂ in the fourth) but no
    /// II: the cone of p₁, p₂ passes through the first quadrant, not the third.
    #[test]
    fn fig_unstableslip_a_allows_if_and_fi_only() {
        let (p1, p2) = ([-0.055, 0.055], [0.088, -0.036]);
        assert_eq!(impacts_possible(p1, p2), [true, true, false]);
        // Swapping the columns' order does not change the cone.
        assert!(cone_meets_quadrant(p2, p1, [1.0, 1.0]));
        assert!(!cone_meets_quadrant(p2, p1, [-1.0, -1.0]));
        // p₁ in the first quadrant, p₂ in the third, turning through the second: II possible.
        assert!(impacts_possible([1.0, 0.2], [-1.0, -0.1])[2]);
    }

    /// The last columns computed from the definitions (Hurwitz, the IWC conditions) equal the
    /// printed shading and marks in every cell, each class decides its IWCs, and the text's
    /// "fourth quadrant" for II contradicts the Table.
    #[test]
    fn the_last_columns_match_the_printed_table() {
        let c = tabulate(48);
        assert!(
            c.shading_mismatches.is_empty(),
            "{:?}",
            c.shading_mismatches
        );
        assert!(c.impact_mismatches.is_empty(), "{:?}", c.impact_mismatches);
        assert_eq!(c.undecided_impact_classes, 0);
        assert!(c.ii_fourth_quadrant_mismatch_count > 0);
        // The light classes, and only they, hold rigid data whose S+S+ verdict depends on
        // the law.
        let light: Vec<u8> = c
            .class_properties
            .iter()
            .filter(|p| p.shading[0] == Shade::Either)
            .map(|p| p.class)
            .collect();
        assert_eq!(c.law_decided_classes, light);
        assert!(c.light_classes_without_law_dependence.is_empty());
        // The light shading is a genuine mix.
        for p in c
            .class_properties
            .iter()
            .filter(|p| p.shading[0] == Shade::Either)
        {
            assert!(
                p.slip_slip_stable_fraction > 0.01 && p.slip_slip_stable_fraction < 0.99,
                "{p:?}"
            );
        }
    }

    /// Every subclass decides consistency (one mode set), all 24 classes and their 144
    /// subclasses occur, and the Table's duals hold.
    #[test]
    fn the_code_decides_consistency() {
        let c = tabulate(48);
        assert_eq!(c.classes, 24);
        assert_eq!(c.subclasses, 144);
        assert_eq!(c.undecided_subclasses, 0);
        assert!(c.dual_mismatches.is_empty(), "{:?}", c.dual_mismatches);
    }
}
