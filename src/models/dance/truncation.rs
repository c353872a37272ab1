//! What the coefficients of a formal series say, in f64 from their logarithms
//! ([`LogCoefficients`]): partial sums, the optimal truncation, the growth K Γ(n+β)/Aⁿ of a
//! divergent series and the radius of a convergent one (docs/dance.md, "Growth",
//! "Optimal truncation", "Radius"). Pure functions: no solver, no I/O.

use super::series::LogCoefficients;
use crate::analysis::fit::multiple_least_squares;

/// c_k t^k as f64 (t > 0), 0 for a zero coefficient.
fn term(c: &LogCoefficients, k: usize, ln_t: f64) -> f64 {
    let ln = c.ln_abs[k];
    if ln == f64::NEG_INFINITY {
        return 0.0;
    }
    let magnitude = (ln + k as f64 * ln_t).exp();
    if c.negative[k] {
        -magnitude
    } else {
        magnitude
    }
}

/// Σ_{k ≤ degree} c_k t^k at t > 0.
pub fn partial_sum(c: &LogCoefficients, t: f64, degree: usize) -> f64 {
    let ln_t = t.ln();
    (0..=degree.min(c.ln_abs.len() - 1))
        .map(|k| term(c, k, ln_t))
        .sum()
}

/// The series summed to just before its smallest term at t.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OptimalTruncation {
    pub t: f64,
    /// Σ of the nonzero terms before the smallest.
    pub value: f64,
    /// |c_k t^k| of the smallest nonzero term.
    pub smallest_term: f64,
    /// Its power k.
    pub smallest_power: usize,
    /// Whether the smallest term is the last nonzero coefficient computed: then the terms may
    /// still be decreasing (a convergent series, or too low a degree) and `value` is the
    /// partial sum to that degree.
    pub at_last_coefficient: bool,
}

/// The optimal truncation of the series at t > 0: the smallest nonzero term |c_k t^k| over
/// the computed coefficients (the first, if several tie), and the sum of the terms before it.
pub(crate) fn optimal_truncation(c: &LogCoefficients, t: f64) -> OptimalTruncation {
    let ln_t = t.ln();
    let nonzero: Vec<usize> = (0..c.ln_abs.len())
        .filter(|&k| c.ln_abs[k] > f64::NEG_INFINITY)
        .collect();
    let smallest = nonzero
        .iter()
        .copied()
        .min_by(|&a, &b| {
            let la = c.ln_abs[a] + a as f64 * ln_t;
            let lb = c.ln_abs[b] + b as f64 * ln_t;
            la.total_cmp(&lb)
        })
        .unwrap_or(0);
    OptimalTruncation {
        t,
        value: (0..smallest).map(|k| term(c, k, ln_t)).sum(),
        smallest_term: term(c, smallest, ln_t).abs(),
        smallest_power: smallest,
        at_last_coefficient: nonzero.last() == Some(&smallest),
    }
}

/// |c_n| ~ K Γ(n + β)/Aⁿ fitted on a coefficient sequence c_n (n = 0, 1, …).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GrowthFit {
    pub a: f64,
    pub beta: f64,
    /// ln K, from the largest n fitted.
    pub ln_k: f64,
    /// The fit's n range.
    pub n_first: usize,
    pub n_last: usize,
    /// |A − A'| and |β − β'| against the fit on the upper half of the range only: how far the
    /// neglected corrections move the estimates.
    pub a_spread: f64,
    pub beta_spread: f64,
}

/// Fit the ratios ρ_n = |c_{n+1}/c_n| = (n + β)/A (1 + O(1/n²)) ... as
/// ρ_n = n/A + β/A + d₁/n + d₂/n² by least squares over n ∈ [n_last/4, n_last)
/// (docs/dance.md, (D11)). `None` below 16 usable ratios or for a zero coefficient in range.
pub fn factorial_growth(ln_abs: &[f64]) -> Option<GrowthFit> {
    let fit_on = |first: usize, last: usize| -> Option<(f64, f64)> {
        let n: Vec<f64> = (first..last).map(|n| n as f64).collect();
        let ratio: Vec<f64> = (first..last)
            .map(|n| (ln_abs[n + 1] - ln_abs[n]).exp())
            .collect();
        if ratio.iter().any(|r| !r.is_finite()) {
            return None;
        }
        let columns = vec![
            n.clone(),
            vec![1.0; n.len()],
            n.iter().map(|n| 1.0 / n).collect(),
            n.iter().map(|n| 1.0 / (n * n)).collect(),
        ];
        let f = multiple_least_squares(&columns, &ratio)?;
        let a = 1.0 / f.coefficients[0];
        Some((a, f.coefficients[1] * a))
    };
    let last = ln_abs.len().checked_sub(1)?;
    let first = (last / 4).max(2);
    if last < first + 16 {
        return None;
    }
    let (a, beta) = fit_on(first, last)?;
    let (a_half, beta_half) = fit_on(last / 2, last)?;
    let ln_k =
        ln_abs[last] - statrs::function::gamma::ln_gamma(last as f64 + beta) + last as f64 * a.ln();
    Some(GrowthFit {
        a,
        beta,
        ln_k,
        n_first: first,
        n_last: last,
        a_spread: (a - a_half).abs(),
        beta_spread: (beta - beta_half).abs(),
    })
}

/// The radius of convergence in x of Σ c_n xⁿ from the signed ratios c_{n+1}/c_n →
/// 1/x_s (1 + O(1/n)) (Domb–Sykes: linear in 1/n), fitted as y₀ + y₁/n + y₂/n² over
/// n ∈ [n_last/4, n_last).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RadiusFit {
    /// 1/x_s: the nearest singularity x_s = 1/limit, on the positive (limit > 0) or the
    /// negative (limit < 0) x axis.
    pub ratio_limit: f64,
    /// |x_s|.
    pub radius: f64,
    /// |radius − radius'| against the fit on the upper half of the range.
    pub radius_spread: f64,
}

pub fn ratio_radius(ln_abs: &[f64], negative: &[bool]) -> Option<RadiusFit> {
    let fit_on = |first: usize, last: usize| -> Option<f64> {
        let n: Vec<f64> = (first..last).map(|n| n as f64).collect();
        let ratio: Vec<f64> = (first..last)
            .map(|n| {
                let r = (ln_abs[n + 1] - ln_abs[n]).exp();
                if negative[n + 1] != negative[n] {
                    -r
                } else {
                    r
                }
            })
            .collect();
        if ratio.iter().any(|r| !r.is_finite()) {
            return None;
        }
        let columns = vec![
            vec![1.0; n.len()],
            n.iter().map(|n| 1.0 / n).collect(),
            n.iter().map(|n| 1.0 / (n * n)).collect(),
        ];
        Some(multiple_least_squares(&columns, &ratio)?.coefficients[0])
    };
    let last = ln_abs.len().checked_sub(1)?;
    let first = (last / 4).max(2);
    if last < first + 16 {
        return None;
    }
    let limit = fit_on(first, last)?;
    let half = fit_on(last / 2, last)?;
    Some(RadiusFit {
        ratio_limit: limit,
        radius: 1.0 / limit.abs(),
        radius_spread: (1.0 / limit.abs() - 1.0 / half.abs()).abs(),
    })
}

/// The odd coefficients c_{2n+1} of a series in odd powers, as the sequence n = 0, 1, … (the
/// series is t Σ c_{2n+1} (t²)ⁿ).
pub fn odd_part(c: &LogCoefficients) -> LogCoefficients {
    LogCoefficients {
        ln_abs: c.ln_abs.iter().skip(1).step_by(2).copied().collect(),
        negative: c.negative.iter().skip(1).step_by(2).copied().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logs(c: &[f64]) -> LogCoefficients {
        LogCoefficients {
            ln_abs: c.iter().map(|x| x.abs().ln()).collect(),
            negative: c.iter().map(|x| *x < 0.0).collect(),
        }
    }

    /// Euler's series Σ (−1)ⁿ n! xⁿ: A = 1, β = 1 exactly (n! = Γ(n + 1)), and its optimal
    /// truncation at x = 0.105 stops before n = 9 with the smallest term 9!·0.105⁹, within it of
    /// the Borel sum ∫₀^∞ e^{−s}/(1 + xs) ds = 0.91205969… (scipy quad).
    #[test]
    fn euler_series_growth_and_truncation() {
        let mut c = vec![1.0f64];
        for n in 1..120 {
            let prev = c[n - 1];
            c.push(-prev * n as f64);
        }
        let l = logs(&c);
        let g = factorial_growth(&l.ln_abs).unwrap();
        assert!(
            (g.a - 1.0).abs() < 1e-9 && (g.beta - 1.0).abs() < 1e-7,
            "{g:?}"
        );
        assert!(g.ln_k.abs() < 1e-9, "{g:?}");
        let o = optimal_truncation(&l, 0.105);
        assert_eq!(o.smallest_power, 9);
        assert!((o.smallest_term - 362880.0 * 0.105f64.powi(9)).abs() < 1e-15);
        assert!(!o.at_last_coefficient);
        let error = (o.value - 0.912_059_690_853_866_5).abs();
        assert!(
            error < o.smallest_term && error > 0.1 * o.smallest_term,
            "{o:?}"
        );
    }

    /// 1/(1 + x/2) = Σ (−x/2)ⁿ: ratio limit −1/2, radius 2; partial sums converge below it.
    #[test]
    fn geometric_series_radius() {
        let c: Vec<f64> = (0..200).map(|n| (-0.5f64).powi(n)).collect();
        let l = logs(&c);
        let r = ratio_radius(&l.ln_abs, &l.negative).unwrap();
        assert!(
            (r.radius - 2.0).abs() < 1e-10 && r.ratio_limit < 0.0,
            "{r:?}"
        );
        assert!((partial_sum(&l, 1.0, 199) - 2.0 / 3.0).abs() < 1e-15);
        assert!(optimal_truncation(&l, 1.0).at_last_coefficient);
    }
}
