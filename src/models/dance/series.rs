//! Dance's formal series for the particle starting to slide (Dance 2024, Prop. 3.4, eqs.
//! (26)–(28)), for f^t = (1, t), f^n = −1 and any μ ∈ (0, 1]: the recurrence of
//! docs/dance.md, (D2)–(D8), generic over the number type ([`SeriesScalar`]).
//!
//! Slip starts along â = (1, 0) (eq. (5)). With v^∥ = â·v, v^⊥ = v₂ and w = v^⊥/v^∥ (the paper's
//! v†, eq. (8)), and s = (1 + w²)^(−1/2):
//!
//! ```text
//!   (v^∥)'       = 1 − μ s            eq. (26)
//!   (v^⊥)'       = t − μ w s          eq. (27)
//!   v^⊥          = v^∥ w              eq. (28)
//! ```

use super::precision::SeriesScalar;
use crate::error::SimError;

/// The formal series of the sliding velocity to `degree`: coefficient k of each is that of t^k.
#[derive(Clone, Debug)]
pub struct FormalSeries<S> {
    pub mu: f64,
    /// v^∥ = v₁, the velocity along â = (1, 0): odd powers only, from t (μ < 1) or t³ (μ = 1).
    pub parallel_velocity: Vec<S>,
    /// v^⊥ = v₂ = v^∥ w: even powers only.
    pub perpendicular_velocity: Vec<S>,
    /// w = v^⊥/v^∥, the paper's v† along (0, 1): odd powers, w₁ = 1/(2 − μ) (docs/dance.md, (D8)).
    pub direction_ratio: Vec<S>,
}

/// Checks that Prop. 3.4 applies: ‖f^t(t)‖ = √(1 + t²) > μ|f^n| = μ near t = 0 needs μ ≤ 1, and
/// its hypothesis on the leading coefficient of μ f^n needs μ > 0.
pub(crate) fn require_sliding_mu(field: &str, mu: f64) -> Result<f64, SimError> {
    if mu.is_finite() && mu > 0.0 && mu <= 1.0 {
        Ok(mu)
    } else {
        Err(SimError::invalid(
            field,
            crate::error::number_text(mu),
            "must be in (0, 1]: with μ > 1 the force (1, t) stays inside the friction cone near \
             t = 0 and the particle does not start to slide; μ = 0 has no friction and no series \
             to study (Dance 2024, Prop. 3.4)",
        ))
    }
}

impl<S: SeriesScalar> FormalSeries<S> {
    /// The coefficients to t^degree (`degree` ≥ 1), exactly as far as `S` carries them.
    pub fn new(mu: f64, degree: usize) -> Result<Self, SimError> {
        require_sliding_mu("params.mu", mu)?;
        if degree == 0 {
            return Err(SimError::invalid(
                "params.series_degree",
                degree,
                "must be >= 1",
            ));
        }
        let zero = S::from_int(0);
        let one = S::from_int(1);
        let mu_s = S::from_f64(mu);
        let n = degree + 1;
        let mut a = vec![zero.clone(); n]; // v^∥
        let mut w = vec![zero.clone(); n];
        let mut g = vec![zero.clone(); n]; // 1 + w²
        let mut s = vec![zero.clone(); n]; // (1 + w²)^(−1/2)
        g[0] = one.clone();
        s[0] = one.clone();
        // Sum of x_j y_{k−j} over j in `range`, skipping the parity zeros.
        let cauchy = |x: &[S], y: &[S], k: usize, range: std::ops::RangeInclusive<usize>| {
            let mut acc = zero.clone();
            for j in range {
                if !x[j].is_zero() && !y[k - j].is_zero() {
                    acc = acc.add(&x[j].mul(&y[k - j]));
                }
            }
            acc
        };
        for m in 1..=degree {
            let k = m - 1;
            if k >= 1 {
                // (D4): g_k = Σ_{j=1}^{k−1} w_j w_{k−j}; (D5): s = g^(−1/2) by
                // k s_k = Σ_{j=1}^{k} (j/2 − k) g_j s_{k−j}  (g_0 = 1).
                g[k] = cauchy(&w, &w, k, 1..=k - 1);
                let mut acc = zero.clone();
                for j in 1..=k {
                    if !g[j].is_zero() && !s[k - j].is_zero() {
                        let factor = S::from_f64(j as f64 / 2.0 - k as f64);
                        acc = acc.add(&factor.mul(&g[j]).mul(&s[k - j]));
                    }
                }
                s[k] = acc.div(&S::from_int(k as i64));
            }
            // (D3), eq. (26): m a_m = [1 − μ s]_{m−1}.
            let forcing = if m == 1 { one.clone() } else { zero.clone() };
            a[m] = forcing
                .sub(&mu_s.mul(&s[m - 1]))
                .div(&S::from_int(m as i64));
            // (D6), eqs. (27)–(28) at t^m: (m+1) Σ_j a_j w_{m+1−j} = [t]_m − μ [w s]_m, solved for
            // w_m, whose factor is (m+1) a_1 + μ = (m+1)(1 − μ) + μ ≥ 1.
            let mut rhs = forcing.sub(&mu_s.mul(&cauchy(&s, &w, m, 2..=m - 1)));
            if m >= 2 {
                let coupled = cauchy(&a, &w, m + 1, 2..=m);
                rhs = rhs.sub(&S::from_int(m as i64 + 1).mul(&coupled));
            }
            let factor = S::from_int(m as i64 + 1).mul(&a[1]).add(&mu_s);
            w[m] = rhs.div(&factor);
        }
        let perpendicular: Vec<S> = (0..n)
            .map(|k| {
                if k == 0 {
                    zero.clone()
                } else {
                    cauchy(&a, &w, k, 1..=k - 1)
                }
            })
            .collect();
        Ok(FormalSeries {
            mu,
            parallel_velocity: a,
            perpendicular_velocity: perpendicular,
            direction_ratio: w,
        })
    }

    /// The highest power computed.
    pub fn degree(&self) -> usize {
        self.parallel_velocity.len() - 1
    }
}

/// The coefficients of the position u = ∫₀ᵗ v (u(0) = 0): u_k = v_{k−1}/k.
pub fn integrated<S: SeriesScalar>(velocity: &[S]) -> Vec<S> {
    let mut u = vec![S::from_int(0)];
    for (k, c) in velocity.iter().enumerate() {
        u.push(c.div(&S::from_int(k as i64 + 1)));
    }
    u
}

/// A coefficient list as (ln |c_k|, sign) for the f64 analyses (the magnitudes overflow f64).
#[derive(Clone, Debug, PartialEq)]
pub struct LogCoefficients {
    /// ln |c_k| (−∞ for a zero coefficient).
    pub ln_abs: Vec<f64>,
    pub negative: Vec<bool>,
}

impl LogCoefficients {
    pub fn of<S: SeriesScalar>(coefficients: &[S]) -> Self {
        LogCoefficients {
            ln_abs: coefficients.iter().map(|c| c.ln_abs()).collect(),
            negative: coefficients.iter().map(|c| c.is_negative()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::precision::{BigFloat, Rational};
    use super::*;

    /// μ = 1 to t⁷, derived by hand in docs/dance.md (D9): v^∥ = t³/6 − 13t⁵/120 + 79t⁷/720,
    /// w = t − t³/6 + 23t⁵/120.
    #[test]
    fn counterexample_series_starts_as_derived() {
        let s = FormalSeries::<Rational>::new(1.0, 15).unwrap();
        let text: Vec<String> = s.parallel_velocity.iter().map(|c| c.to_string()).collect();
        let odd: Vec<&str> = text.iter().skip(1).step_by(2).map(String::as_str).collect();
        // To t¹⁵: substituted into the sliding law with sympy's series arithmetic (not this
        // recurrence), these leave no residual through t¹² (docs/dance.md, "Independent checks").
        let expected = [
            "0",
            "1/6",
            "-13/120",
            "79/720",
            "-7439/51840",
            "1289987/5702400",
            "-370576091/889574400",
            "23522881633/26687232000",
        ];
        assert_eq!(odd, expected);
        assert!(text.iter().step_by(2).all(|c| c == "0"));
        let w: Vec<String> = s.direction_ratio.iter().map(|c| c.to_string()).collect();
        assert_eq!(&w[..6], ["0", "1", "0", "-1/6", "0", "23/120"]);
        // v^⊥ = v^∥ w = t⁴/6 − (1/36 + 13/120) t⁶ + …
        assert_eq!(s.perpendicular_velocity[4].to_string(), "1/6");
        assert_eq!(s.perpendicular_velocity[6].to_string(), "-49/360");
    }

    /// μ = 1/2: v^∥ = t/2 + t³/27 − …, w₁ = 1/(2 − μ) = 2/3 (D8).
    #[test]
    fn convergent_case_leading_terms() {
        let s = FormalSeries::<Rational>::new(0.5, 5).unwrap();
        assert_eq!(s.parallel_velocity[1].to_string(), "1/2");
        assert_eq!(s.parallel_velocity[3].to_string(), "1/27");
        assert_eq!(s.direction_ratio[1].to_string(), "2/3");
    }

    /// The truncated floats agree with the exact rationals to their precision, and two
    /// precisions agree with each other to ≥ 60 digits at degree 201.
    #[test]
    fn big_floats_reproduce_the_rationals() {
        let exact = FormalSeries::<Rational>::new(1.0, 31).unwrap();
        let float = FormalSeries::<BigFloat<256>>::new(1.0, 201).unwrap();
        for (k, c) in exact.parallel_velocity.iter().enumerate() {
            let as_float = rational_as_float(c);
            let d = float.parallel_velocity[k].relative_difference(&as_float);
            assert!(d < 1e-70, "k {k}: {d:e}");
        }
        let finer = FormalSeries::<BigFloat<320>>::new(1.0, 201).unwrap();
        for k in (1..=201).step_by(2) {
            let d = float.parallel_velocity[k]
                .relative_difference(&finer.parallel_velocity[k].with_bits::<256>());
            assert!(d < 1e-60, "k {k}: {d:e}");
        }
    }

    fn rational_as_float(r: &Rational) -> BigFloat<256> {
        // num/den through the float type: numerator and denominator exact at these sizes.
        big_int_as_float(&r.num).div(&big_int_as_float(&r.den))
    }

    fn big_int_as_float(n: &num_bigint::BigInt) -> BigFloat<256> {
        let digits = n.to_string();
        let ten = BigFloat::<256>::from_int(10);
        let mut x = BigFloat::<256>::from_int(0);
        for ch in digits.trim_start_matches('-').chars() {
            x = x
                .mul(&ten)
                .add(&BigFloat::from_int(ch.to_digit(10).unwrap() as i64));
        }
        if digits.starts_with('-') {
            BigFloat::from_int(0).sub(&x)
        } else {
            x
        }
    }

    #[test]
    fn mu_outside_the_sliding_range_is_refused() {
        for mu in [0.0, -0.5, 1.5, f64::NAN] {
            let e = FormalSeries::<f64>::new(mu, 5).unwrap_err().to_string();
            assert!(e.contains("params.mu"), "{e}");
        }
        assert!(FormalSeries::<f64>::new(1.0, 0).is_err());
    }
}
