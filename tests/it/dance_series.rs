//! Dance's formal series (docs/dance.md): 60-digit arithmetic to degree 1001, the factorial
//! growth of the μ = 1 counterexample and the convergence of the μ = 1/2 series.

use rigid_limit::models::dance::precision::{BigFloat, SeriesScalar};
use rigid_limit::models::dance::series::{FormalSeries, LogCoefficients};
use rigid_limit::models::dance::truncation::{
    factorial_growth, odd_part, partial_sum, ratio_radius,
};

const DEGREE: usize = 1001;

/// Every coefficient to t¹⁰⁰¹ agrees between 256-bit (77 digits) and 352-bit (106 digits)
/// arithmetic to better than 1e-60 relative, for both μ: the 256-bit values carry ≥ 60
/// correct digits although the μ = 1 coefficients reach 10⁸⁹⁶ and their Cauchy sums cancel.
#[test]
fn two_precisions_agree_to_sixty_digits_at_degree_1001() {
    for mu in [1.0, 0.5] {
        let coarse = FormalSeries::<BigFloat<256>>::new(mu, DEGREE).unwrap();
        let fine = FormalSeries::<BigFloat<352>>::new(mu, DEGREE).unwrap();
        let mut worst: f64 = 0.0;
        for (c, f) in [
            (&coarse.parallel_velocity, &fine.parallel_velocity),
            (&coarse.perpendicular_velocity, &fine.perpendicular_velocity),
        ] {
            for k in 0..=DEGREE {
                assert_eq!(c[k].is_zero(), f[k].is_zero(), "μ {mu} k {k}");
                worst = worst.max(c[k].relative_difference(&f[k].with_bits::<256>()));
            }
        }
        assert!(worst < 1e-60, "μ {mu}: worst relative difference {worst:e}");
        if mu == 1.0 {
            let top = coarse.parallel_velocity[DEGREE].ln_abs() / 10f64.ln();
            assert!(top > 890.0 && top < 900.0, "log10 |c_1001| = {top}");
        }
    }
}

/// |[v^∥]_{2n+1}| ~ K Γ(n + β)/Aⁿ with A = 3 ± 1e-3 for μ = 1 (Dance 2022: Ω(n!/3ⁿ)); the fit on
/// the upper half of the range moves A by less than 1e-6.
#[test]
fn counterexample_coefficients_grow_like_gamma_over_three_to_the_n() {
    let s = FormalSeries::<BigFloat<256>>::new(1.0, DEGREE).unwrap();
    let odd = odd_part(&LogCoefficients::of(&s.parallel_velocity));
    let g = factorial_growth(&odd.ln_abs).unwrap();
    assert!((g.a - 3.0).abs() < 1e-3, "{g:?}");
    assert!(g.a_spread < 1e-6 && g.beta_spread < 1e-3, "{g:?}");
    // Alternating signs from t⁵ on: a Borel-summable series along the real axis.
    assert!((2..odd.negative.len()).all(|n| odd.negative[n] != odd.negative[n - 1]));
}

/// μ = 1/2 converges: the ratio of its t²-coefficients tends to a finite negative limit
/// (singularities on the imaginary t axis), and at t = .5 the partial sums settle geometrically,
/// at the rate (t/R)² per odd term.
#[test]
fn convergent_case_has_a_finite_radius_and_settles_at_half() {
    let s = FormalSeries::<BigFloat<256>>::new(0.5, DEGREE).unwrap();
    let l = LogCoefficients::of(&s.parallel_velocity);
    let odd = odd_part(&l);
    let r = ratio_radius(&odd.ln_abs, &odd.negative).unwrap();
    assert!(r.ratio_limit < 0.0 && r.radius_spread < 1e-5, "{r:?}");
    let radius_t = r.radius.sqrt();
    assert!(radius_t > 1.0 && radius_t < 2.0, "R = {radius_t}");
    let limit = partial_sum(&l, 0.5, DEGREE);
    let rate = (0.25 / r.radius).powi(2); // two odd terms per step of 4 in degree
    let mut last_gap = f64::INFINITY;
    for degree in (5..=25).step_by(4) {
        let gap = (partial_sum(&l, 0.5, degree) - limit).abs();
        assert!(gap < last_gap, "degree {degree}: {gap:e}");
        if degree >= 13 {
            let ratio = gap / last_gap;
            assert!(
                ratio > 0.5 * rate && ratio < 2.0 * rate,
                "degree {degree}: {ratio} vs {rate}"
            );
        }
        last_gap = gap;
    }
    assert!(last_gap < 1e-11, "{last_gap:e}");
}
