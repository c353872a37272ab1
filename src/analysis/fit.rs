//! Least-squares fits with 95 % confidence intervals (Student t, n − 2 degrees of freedom).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

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

/// Fit `y = a + b x`; `None` with fewer than 3 points or no spread in x.
pub fn least_squares(x: &[f64], y: &[f64]) -> Option<LinearFit> {
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
    let t = StudentsT::new(0.0, 1.0, dof).ok()?.inverse_cdf(0.975);
    Some(LinearFit {
        slope,
        intercept,
        slope_ci95: t * (s2 / sxx).sqrt(),
        intercept_ci95: t * (s2 * (1.0 / nf + mx * mx / sxx)).sqrt(),
        n,
        rms_residual: (ssr / nf).sqrt(),
    })
}

/// Power law T = c κ^p fitted in log–log: `slope` is the exponent p.
pub fn power_law(kappa: &[f64], value: &[f64]) -> Option<LinearFit> {
    let x: Vec<f64> = kappa.iter().map(|k| k.ln()).collect();
    let y: Vec<f64> = value.iter().map(|v| v.ln()).collect();
    least_squares(&x, &y)
}

/// The slide's two-term law T = √κ (a ln(1/√κ) + b): `slope` is a, `intercept` is b.
pub fn slide_law(kappa: &[f64], duration: &[f64]) -> Option<LinearFit> {
    let x: Vec<f64> = kappa.iter().map(|k| (1.0 / k.sqrt()).ln()).collect();
    let y: Vec<f64> = kappa
        .iter()
        .zip(duration)
        .map(|(k, t)| t / k.sqrt())
        .collect();
    least_squares(&x, &y)
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

    #[test]
    fn slide_law_recovers_both_coefficients() {
        let kappa: Vec<f64> = (0..20).map(|i| 10f64.powf(-4.0 - 0.5 * i as f64)).collect();
        let t: Vec<f64> = kappa
            .iter()
            .map(|k| k.sqrt() * (1.7 * (1.0 / k.sqrt()).ln() + 2.4))
            .collect();
        let f = slide_law(&kappa, &t).unwrap();
        assert!((f.slope - 1.7).abs() < 1e-10 && (f.intercept - 2.4).abs() < 1e-9);
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
