//! Least-squares fits with 95 % confidence intervals (Student t): straight lines (n − 2 degrees
//! of freedom) and linear models with several columns (n − p).

use nalgebra::{DMatrix, DVector};
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The two-sided 95 % quantile of Student's t with `dof` degrees of freedom.
pub(crate) fn student_t95(dof: f64) -> Option<f64> {
    // The quantile inverts the incomplete beta function by iteration, and an atlas asks for the
    // same few degrees of freedom twice per extrapolation and once per slide-law fit, 10⁴–10⁵
    // times: the answers already found are kept per thread (the same values, bit for bit).
    thread_local! {
        static FOUND: std::cell::RefCell<Vec<(u64, Option<f64>)>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    let key = dof.to_bits();
    FOUND.with(|found| {
        if let Some(&(_, t)) = found.borrow().iter().find(|(k, _)| *k == key) {
            return t;
        }
        let t = StudentsT::new(0.0, 1.0, dof)
            .ok()
            .map(|d| d.inverse_cdf(0.975));
        let mut found = found.borrow_mut();
        if found.len() < 64 {
            found.push((key, t));
        }
        t
    })
}

/// y = intercept + slope·x fitted by ordinary least squares.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct LinearFit {
    pub slope: f64,
    pub intercept: f64,
    /// Half-width of the 95 % confidence interval of the slope.
    pub slope_ci95: f64,
    /// Half-width of the 95 % confidence interval of the intercept.
    pub intercept_ci95: f64,
    pub n: usize,
    /// Root-mean-square residual.
    pub rms_residual: f64,
}

impl LinearFit {
    /// The fitted power law of a [`power_law`] fit at `kappa`: e^intercept · κ^slope.
    pub(crate) fn power_law_at(&self, kappa: f64) -> f64 {
        (self.intercept + self.slope * kappa.ln()).exp()
    }
}

/// Fit `y = a + b x`; `None` with fewer than 3 points or no spread in x.
pub(crate) fn least_squares(x: &[f64], y: &[f64]) -> Option<LinearFit> {
    let n = x.len();
    if n < 3 || y.len() != n {
        return None;
    }
    let nf = n as f64;
    let mx = x.iter().sum::<f64>() / nf;
    let my = y.iter().sum::<f64>() / nf;
    let sxx: f64 = x.iter().map(|xi| (xi - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = x.iter().zip(y).map(|(xi, yi)| (xi - mx) * (yi - my)).sum();
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let ssr: f64 = x
        .iter()
        .zip(y)
        .map(|(xi, yi)| (yi - intercept - slope * xi).powi(2))
        .sum();
    let dof = nf - 2.0;
    let s2 = ssr / dof;
    let t = student_t95(dof)?;
    Some(LinearFit {
        slope,
        intercept,
        slope_ci95: t * (s2 / sxx).sqrt(),
        intercept_ci95: t * (s2 * (1.0 / nf + mx * mx / sxx)).sqrt(),
        n,
        rms_residual: (ssr / nf).sqrt(),
    })
}

/// y ≈ X β fitted by ordinary least squares, for a design X with several columns.
#[derive(Clone, Debug, PartialEq)]
pub struct MultipleFit {
    /// β, one per column.
    pub coefficients: Vec<f64>,
    /// y − X β.
    pub residuals: Vec<f64>,
    /// Diagonal of the hat matrix X (XᵀX)⁻¹ Xᵀ: the leave-one-out residual of point i is
    /// `residuals[i] / (1 − leverages[i])` (the PRESS residual).
    pub leverages: Vec<f64>,
    /// (XᵀX)⁻¹: the covariance of β is σ² times this.
    pub unscaled_covariance: DMatrix<f64>,
}

impl MultipleFit {
    /// Degrees of freedom n − p.
    pub(crate) fn dof(&self) -> usize {
        self.residuals.len() - self.coefficients.len()
    }

    /// Residual variance s² = Σ r² / (n − p) (`None` without degrees of freedom).
    pub(crate) fn residual_variance(&self) -> Option<f64> {
        let dof = self.dof();
        (dof > 0).then(|| self.residuals.iter().map(|r| r * r).sum::<f64>() / dof as f64)
    }

    /// Standard error of coefficient `j`, √(s² (XᵀX)⁻¹_jj).
    pub(crate) fn standard_error(&self, j: usize) -> Option<f64> {
        Some((self.residual_variance()? * self.unscaled_covariance[(j, j)]).sqrt())
    }

    /// Leave-one-out (PRESS) residual of point i: y_i minus the prediction of the fit without i.
    pub fn loo_residual(&self, i: usize) -> f64 {
        self.residuals[i] / (1.0 - self.leverages[i])
    }

    /// Change of coefficient `j` when point i is left out (β₋ᵢ − β = −(XᵀX)⁻¹ xᵢ eᵢ/(1 − hᵢᵢ)).
    pub fn loo_coefficient_shift(&self, columns: &[Vec<f64>], i: usize, j: usize) -> f64 {
        let g_x: f64 = columns
            .iter()
            .enumerate()
            .map(|(k, col)| self.unscaled_covariance[(j, k)] * col[i])
            .sum();
        -g_x * self.loo_residual(i)
    }
}

/// Fit y ≈ Σ_j β_j `columns[j]` by Householder QR of the column-scaled design (each column scaled
/// to unit norm: the columns of an asymptotic expansion differ by many orders of magnitude).
/// `None` with fewer points than columns, a non-finite entry, or a rank-deficient design
/// (a column within 1e-13 of the span of the others, relative).
pub fn multiple_least_squares(columns: &[Vec<f64>], y: &[f64]) -> Option<MultipleFit> {
    let (n, p) = (y.len(), columns.len());
    if p == 0 || n < p || columns.iter().any(|c| c.len() != n) {
        return None;
    }
    let scale: Vec<f64> = columns
        .iter()
        .map(|c| c.iter().map(|v| v * v).sum::<f64>().sqrt())
        .collect();
    if scale.iter().any(|s| !s.is_finite() || *s == 0.0) || y.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let x = DMatrix::from_fn(n, p, |i, j| columns[j][i] / scale[j]);
    let qr = x.clone().qr();
    let (q, r) = (qr.q(), qr.r());
    let diag_max = (0..p).map(|j| r[(j, j)].abs()).fold(0.0, f64::max);
    if (0..p).any(|j| r[(j, j)].abs() <= 1e-13 * diag_max) {
        return None;
    }
    let yv = DVector::from_column_slice(y);
    let scaled = r.solve_upper_triangular(&(q.transpose() * &yv))?;
    let r_inv = r.solve_upper_triangular(&DMatrix::identity(p, p))?;
    let g_scaled = &r_inv * r_inv.transpose();
    let coefficients: Vec<f64> = (0..p).map(|j| scaled[j] / scale[j]).collect();
    let fitted = &x * &scaled;
    Some(MultipleFit {
        residuals: (0..n).map(|i| y[i] - fitted[i]).collect(),
        leverages: (0..n).map(|i| q.row(i).norm_squared()).collect(),
        unscaled_covariance: DMatrix::from_fn(p, p, |a, b| {
            g_scaled[(a, b)] / (scale[a] * scale[b])
        }),
        coefficients,
    })
}

/// Power law T = c κ^p fitted in log–log: `slope` is the exponent p.
pub fn power_law(kappa: &[f64], value: &[f64]) -> Option<LinearFit> {
    let x: Vec<f64> = kappa.iter().map(|k| k.ln()).collect();
    let y: Vec<f64> = value.iter().map(|v| v.ln()).collect();
    least_squares(&x, &y)
}

/// The slide's law T = √κ (a x + b) + κ (c x² + d x + e), x = ln(1/√κ): the two-term law of
/// docs/model.md (a = 1/λ, b = ℓ/λ) with its next order, the drift of the configuration over
/// the slide (docs/extrapolation.md §2.3, "The slide's duration", eq. (2.7a)): O(ε), ε = √κ τ_s ∝ √κ x,
/// in the impulse and the offset ℓ, and, with θ̇0 ≠ 0, the growth rate λ(θ) changing along
/// θ = θ0 + √κ θ̇0 τ, which adds √κ x² to τ_s. Fitted as T/√κ = a x + b + √κ (c x² + d x + e);
/// `slope` is a, `intercept` is b, their intervals 95 % (Student t, n − 5 degrees of freedom).
/// Without the next order a straight line in x takes it into a and b: the undamped Zhao–Liu
/// impact over κ ≤ 1e-6 then gives a 1.5 % below 1/λ. `None` with fewer than 6 points or a
/// rank-deficient design.
pub(crate) fn slide_law(kappa: &[f64], duration: &[f64]) -> Option<LinearFit> {
    let n = kappa.len();
    if n < 6 || duration.len() != n {
        return None;
    }
    let x: Vec<f64> = kappa.iter().map(|k| (1.0 / k.sqrt()).ln()).collect();
    let y: Vec<f64> = kappa
        .iter()
        .zip(duration)
        .map(|(k, t)| t / k.sqrt())
        .collect();
    let root: Vec<f64> = kappa.iter().map(|k| k.sqrt()).collect();
    let columns = vec![
        x.clone(),
        vec![1.0; n],
        root.iter().zip(&x).map(|(r, x)| r * x * x).collect(),
        root.iter().zip(&x).map(|(r, x)| r * x).collect(),
        root,
    ];
    let fit = multiple_least_squares(&columns, &y)?;
    let t = student_t95(fit.dof() as f64)?;
    let ssr: f64 = fit.residuals.iter().map(|r| r * r).sum();
    Some(LinearFit {
        slope: fit.coefficients[0],
        intercept: fit.coefficients[1],
        slope_ci95: t * fit.standard_error(0)?,
        intercept_ci95: t * fit.standard_error(1)?,
        n,
        rms_residual: (ssr / n as f64).sqrt(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Synthetic data with a known exponent and deterministic noise: the fit recovers the
    /// exponent and its interval covers it; noise-free data give a zero-width interval.
    #[test]
    fn power_law_recovers_a_known_exponent() {
        let kappa: Vec<f64> = (0..30).map(|i| 10f64.powf(-2.0 - 0.3 * i as f64)).collect();
        let noise = |i: usize| 1.0 + 0.01 * ((i * 7919 % 13) as f64 / 13.0 - 0.5);
        let t: Vec<f64> = kappa
            .iter()
            .enumerate()
            .map(|(i, k)| 3.0 * k.powf(0.5) * noise(i))
            .collect();
        let f = power_law(&kappa, &t).unwrap();
        assert!((f.slope - 0.5).abs() < 2e-3, "{f:?}");
        assert!((f.slope - 0.5).abs() <= f.slope_ci95 && f.slope_ci95 < 2e-3);
        let exact: Vec<f64> = kappa.iter().map(|k| 3.0 * k.powf(0.25)).collect();
        let g = power_law(&kappa, &exact).unwrap();
        assert!((g.slope - 0.25).abs() < 1e-12 && g.slope_ci95 < 1e-10);
        assert!((g.intercept.exp() - 3.0).abs() < 1e-10);
    }

    /// Exact two-term data give a and b back; a next order κ (c x² + d x + e) is separated from them
    /// (a straight line in x would take it into a and b).
    #[test]
    fn slide_law_recovers_both_coefficients() {
        let kappa: Vec<f64> = (0..20).map(|i| 10f64.powf(-4.0 - 0.5 * i as f64)).collect();
        let x = |k: f64| (1.0 / k.sqrt()).ln();
        let two_term: Vec<f64> = kappa
            .iter()
            .map(|k| k.sqrt() * (1.7 * x(*k) + 2.4))
            .collect();
        let f = slide_law(&kappa, &two_term).unwrap();
        assert!(
            (f.slope - 1.7).abs() < 1e-10 && (f.intercept - 2.4).abs() < 1e-9,
            "{f:?}"
        );
        let drifted: Vec<f64> = kappa
            .iter()
            .zip(&two_term)
            .map(|(k, t)| t + k * (0.8 * x(*k) * x(*k) + 30.0 * x(*k) - 50.0))
            .collect();
        let f = slide_law(&kappa, &drifted).unwrap();
        assert!(
            (f.slope - 1.7).abs() < 1e-9 && (f.intercept - 2.4).abs() < 1e-8,
            "{f:?}"
        );
        let line = least_squares(
            &kappa.iter().map(|k| x(*k)).collect::<Vec<_>>(),
            &kappa
                .iter()
                .zip(&drifted)
                .map(|(k, t)| t / k.sqrt())
                .collect::<Vec<_>>(),
        )
        .unwrap();
        assert!((line.slope - 1.7).abs() > 1e-3, "{line:?}");
        assert!(slide_law(&kappa[..5], &drifted[..5]).is_none());
    }

    /// A three-column fit recovers exact coefficients; its PRESS residuals and leave-one-out
    /// coefficient shifts equal explicit refits without the point.
    #[test]
    fn multiple_fit_matches_explicit_leave_one_out_refits() {
        let x: Vec<f64> = (0..9).map(|i| 0.3 * i as f64).collect();
        let columns = vec![vec![1.0; 9], x.clone(), x.iter().map(|v| v * v).collect()];
        let exact: Vec<f64> = x.iter().map(|v| 2.0 - 0.5 * v + 0.25 * v * v).collect();
        let f = multiple_least_squares(&columns, &exact).unwrap();
        for (got, want) in f.coefficients.iter().zip([2.0, -0.5, 0.25]) {
            assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        }
        let y: Vec<f64> = exact
            .iter()
            .enumerate()
            .map(|(i, v)| v + 0.01 * ((i * 7 % 5) as f64 - 2.0))
            .collect();
        let f = multiple_least_squares(&columns, &y).unwrap();
        assert_eq!(f.dof(), 6);
        for i in [0, 4, 8] {
            let keep = |c: &Vec<f64>| -> Vec<f64> {
                c.iter()
                    .enumerate()
                    .filter(|(k, _)| *k != i)
                    .map(|(_, v)| *v)
                    .collect()
            };
            let cols: Vec<Vec<f64>> = columns.iter().map(keep).collect();
            let g = multiple_least_squares(&cols, &keep(&y)).unwrap();
            let predicted: f64 = (0..3).map(|j| g.coefficients[j] * columns[j][i]).sum();
            assert!((y[i] - predicted - f.loo_residual(i)).abs() < 1e-12);
            let shift = f.loo_coefficient_shift(&columns, i, 0);
            assert!((g.coefficients[0] - f.coefficients[0] - shift).abs() < 1e-12);
        }
        // A repeated column is rank deficient.
        assert!(multiple_least_squares(&[x.clone(), x.clone()], &y).is_none());
    }

    /// The 95 % interval uses Student's t: with 3 points (1 dof) t = 12.706.
    #[test]
    fn confidence_interval_uses_student_t() {
        let f = least_squares(&[0.0, 1.0, 2.0], &[0.0, 1.1, 1.9]).unwrap();
        let s2: f64 = [0.0f64, 1.1, 1.9]
            .iter()
            .enumerate()
            .map(|(i, y)| (y - f.intercept - f.slope * i as f64).powi(2))
            .sum::<f64>();
        let expected = 12.706_204_736 * (s2 / 2.0).sqrt();
        assert!(
            (f.slope_ci95 - expected).abs() < 1e-6,
            "{} vs {expected}",
            f.slope_ci95
        );
    }
}
