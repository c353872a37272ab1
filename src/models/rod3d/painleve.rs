//! The 3D rod's contact-space quantities in closed form and its Painlevé conditions
//! (Champneys–Várkonyi §7, eqs. (a-3D)–(C-3D), (p-3D), (painleveness-3D), (tangentialdyn-3D)),
//! derived for any radius of gyration √ρ·l (k = 1/ρ; the paper prints k = 3, the uniform rod,
//! while its Fig. 3Drod uses r_g = 0.1 l, k = 100). m = l = g = 1.
//!
//! Newton–Euler at the end A (e the rod's axis, ω² = θ̇² + cos²θ ψ̇² its spin): a force F at A
//! accelerates A by F + k(F − (e·F)e), so W = I + k(I − e eᵀ); a torque-free slender rod turns
//! its axis on a great circle, ë = −ω² e, so A's free acceleration is g + ω² e. With
//! ê = (cos ψ, sin ψ) and e = (−cos θ ê, sin θ):
//!
//! ```text
//!   a = −ω² cos θ ê,            b = ω² sin θ − 1,
//!   A = (1 + k) I − k cos²θ ê êᵀ,   B = k sin θ cos θ ê,   C = 1 + k cos²θ.
//! ```
//!
//! At k = 3 these are the paper's (a-3D), (A-3D), (B-3D), (C-3D); its (b-3D) prints
//! l ψ̇² sin θ where ω² needs cos²θ ψ̇² (the paper's own (a-3D) has it: ψ̇² cos³θ): a typo.
//!
//! In slip along φ (λ_T = −μλ_N(cos φ, sin φ)), p(φ) = C − μBᵀ(cos φ, sin φ)
//! = 1 + k cos²θ − μk sin θ cos θ cos(φ − ψ), negative iff μ cos(φ − ψ) > μ_P(θ)
//! = (1 + k cos²θ)/(k sin θ cos θ) — (painleveness-3D) at k = 3.
//!
//! Where p = 0 with b < 0 the force λ_N = −b/p is unbounded; in C–V's rescaled time dt = p ds
//! the slip is regular, θ, ψ and their rates stand still at p = 0, and only the slip direction
//! moves: dφ/ds = ê_φ⊥·(du/ds)/|u| with du/ds = −b(B − μA ê_φ) there, so (Δ = φ − ψ)
//!
//! ```text
//!   dp/ds |_{p=0} = μ k² sin θ cos θ sin²Δ (sin θ cos θ + μ cos²θ cos Δ) b / |u|,
//! ```
//!
//! negative for b < 0 and cos Δ > 0 unless sin Δ = 0 (planar slip) or b = 0 (the G-spot): the
//! slip crosses p = 0 transversally, C–V's "dynamic jam in 3D". With R = −dp/ds there,
//! t* − t = ∫p ds = p²/(2R) near the crossing: p ∝ (t* − t)^{1/2} and λ_N ∝ (t* − t)^{−1/2}.

/// C–V's projected quantities of the 3D rod (the module doc's closed forms).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projection3d {
    /// Free tangential acceleration a and normal acceleration b of the end A.
    pub a: [f64; 2],
    pub b: f64,
    /// Tangential block A, cross terms B, normal mobility C of W = J M⁻¹ Jᵀ.
    pub a_mat: [[f64; 2]; 2],
    pub b_vec: [f64; 2],
    pub c: f64,
}

/// [`Projection3d`] at (θ, ψ) with spin rates (θ̇, ψ̇), for ρ = r_g²/l².
pub fn projection(
    gyration_sq: f64,
    theta: f64,
    psi: f64,
    omega: f64,
    psi_rate: f64,
) -> Projection3d {
    let k = 1.0 / gyration_sq;
    let (s, c) = theta.sin_cos();
    let e = [psi.cos(), psi.sin()];
    let spin_sq = omega * omega + c * c * psi_rate * psi_rate;
    let a_mat = std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            let identity = if i == j { 1.0 + k } else { 0.0 };
            identity - k * c * c * e[i] * e[j]
        })
    });
    Projection3d {
        a: e.map(|x| -spin_sq * c * x),
        b: spin_sq * s - 1.0,
        a_mat,
        b_vec: e.map(|x| k * s * c * x),
        c: 1.0 + k * c * c,
    }
}

/// p(φ) = 1 + k cos²θ − μk sin θ cos θ cos(φ − ψ) of slip at angle `slip_angle` = φ − ψ to the
/// rod's vertical plane (eq. (p-3D)).
pub(crate) fn painleve_parameter(gyration_sq: f64, mu: f64, theta: f64, slip_angle: f64) -> f64 {
    let k = 1.0 / gyration_sq;
    let (s, c) = theta.sin_cos();
    1.0 + k * c * c - mu * k * s * c * slip_angle.cos()
}

/// μ_P(θ) = (1 + k cos²θ)/(k sin θ cos θ): p(φ) < 0 iff μ cos(φ − ψ) > μ_P(θ)
/// (eq. (painleveness-3D)).
pub(crate) fn painleve_mu(gyration_sq: f64, theta: f64) -> f64 {
    let k = 1.0 / gyration_sq;
    let (s, c) = theta.sin_cos();
    (1.0 + k * c * c) / (k * s * c)
}

/// φ_max: p(φ) < 0 for |φ − ψ| < φ_max = arccos(μ_P(θ)/μ); `None` when μ ≤ μ_P(θ) (no slip
/// direction is Painlevé). φ_max → 0 as μ ↓ μ_P and → π/2 as μ → ∞.
pub(crate) fn painleve_half_width(gyration_sq: f64, mu: f64, theta: f64) -> Option<f64> {
    let ratio = painleve_mu(gyration_sq, theta) / mu;
    (ratio < 1.0).then(|| ratio.acos())
}

/// dp/ds at p = 0 in C–V's rescaled time dt = p ds (module doc), for slip speed |u| at angle
/// Δ = φ − ψ, free normal acceleration b.
pub(crate) fn crossing_rate(
    gyration_sq: f64,
    mu: f64,
    theta: f64,
    slip_angle: f64,
    b: f64,
    speed: f64,
) -> f64 {
    let k = 1.0 / gyration_sq;
    let (s, c) = theta.sin_cos();
    let (sd, cd) = slip_angle.sin_cos();
    mu * k * k * s * c * sd * sd * (s * c + mu * c * c * cd) * b / speed
}

#[cfg(test)]
mod tests {
    use super::super::mechanics::SpatialRod;
    use super::*;
    use crate::model::Delassus;

    /// W = J M⁻¹ Jᵀ and J M⁻¹ f + J̇q̇ of the Lagrangian coordinates are the Newton–Euler closed
    /// forms, at arbitrary states and radii of gyration.
    #[test]
    fn delassus_of_the_coordinates_is_the_closed_form() {
        for rho in [1.0 / 3.0, 0.01, 0.2] {
            let rod = SpatialRod { gyration_sq: rho };
            for &(theta, psi, w, wpsi) in &[
                (0.7, 0.3, 0.4, -1.1),
                (1.2, -2.0, -0.8, 0.5),
                (0.3, 2.5, 1.5, 2.0),
            ] {
                let (q, qdot) =
                    rod.state_with_contact_point(0.01, (theta, psi), (w, wpsi), [0.3, -0.2], 0.1);
                let d: Delassus<f64, 2, 1> = Delassus::at_time(&rod, 0.0, &q, &qdot);
                let p = projection(rho, theta, psi, w, wpsi);
                let tol = 1e-12 / rho;
                assert!(
                    (d.free_all[0] - p.b).abs() < tol,
                    "b {} {}",
                    d.free_all[0],
                    p.b
                );
                for i in 0..2 {
                    assert!((d.free_all[1 + i] - p.a[i]).abs() < tol);
                    assert!((d.entry(0, 1 + i, 0, 0) - p.b_vec[i]).abs() < tol);
                    for j in 0..2 {
                        assert!((d.entry(0, 1 + i, 0, 1 + j) - p.a_mat[i][j]).abs() < tol);
                    }
                }
                assert!((d.entry(0, 0, 0, 0) - p.c).abs() < tol);
            }
        }
    }

    /// At k = 3 the closed forms are C–V's printed (a-3D), (A-3D), (B-3D), (C-3D), and (b-3D)
    /// with ψ̇² cos²θ for its ψ̇²; (painleveness-3D)'s μ_P(θ).
    #[test]
    fn uniform_rod_is_the_papers_printed_coefficients() {
        let (theta, psi, w, wpsi) = (0.6_f64, 0.9_f64, 0.7_f64, -1.3_f64);
        let p = projection(1.0 / 3.0, theta, psi, w, wpsi);
        let (s, c) = theta.sin_cos();
        let (sp, cp) = psi.sin_cos();
        let a1 = -(wpsi * wpsi * cp * c.powi(3) + w * w * cp * c);
        let a2 = -(wpsi * wpsi * sp * c.powi(3) + w * w * sp * c);
        let close = |x: f64, y: f64| (x - y).abs() < 1e-13;
        assert!(close(p.a[0], a1) && close(p.a[1], a2));
        let printed_b = wpsi * wpsi * s + w * w * s - 1.0;
        assert!(close(p.b, printed_b - wpsi * wpsi * s * (1.0 - c * c)));
        assert!(!close(p.b, printed_b));
        assert!(close(
            p.a_mat[0][0],
            1.0 + 3.0 * sp * sp + 3.0 * cp * cp * s * s
        ));
        assert!(close(p.a_mat[0][1], -3.0 * sp * cp * c * c));
        assert!(close(
            p.a_mat[1][1],
            1.0 + 3.0 * cp * cp + 3.0 * sp * sp * s * s
        ));
        assert!(close(p.b_vec[0], 3.0 * s * c * cp) && close(p.b_vec[1], 3.0 * s * c * sp));
        assert!(close(p.c, 1.0 + 3.0 * c * c));
        assert!(close(
            painleve_mu(1.0 / 3.0, theta),
            (1.0 + 3.0 * c * c) / (3.0 * c * s)
        ));
    }

    /// p(φ) = C − μBᵀ(cos φ, sin φ) of the projection, zero on the edge of the Painlevé range.
    #[test]
    fn painleve_range_is_where_p_is_negative() {
        let (rho, mu, theta, psi) = (0.01, 1.0, 1.0, 0.4);
        let pr = projection(rho, theta, psi, 0.0, 0.0);
        for phi in [-1.0_f64, 0.2, 0.4, 1.5, 3.0] {
            let from_projection = pr.c - mu * (pr.b_vec[0] * phi.cos() + pr.b_vec[1] * phi.sin());
            let p = painleve_parameter(rho, mu, theta, phi - psi);
            assert!((p - from_projection).abs() < 1e-12);
        }
        let width = painleve_half_width(rho, mu, theta).unwrap();
        assert!(painleve_parameter(rho, mu, theta, width).abs() < 1e-12);
        assert!(painleve_parameter(rho, mu, theta, 0.99 * width) < 0.0);
        assert!(painleve_parameter(rho, mu, theta, 1.01 * width) > 0.0);
        // At μ = μ_P(θ) the range closes; as μ grows it opens towards π/2.
        assert!(painleve_half_width(rho, painleve_mu(rho, theta) * 0.999, theta).is_none());
        assert!(painleve_half_width(rho, 1e6, theta).unwrap() > std::f64::consts::FRAC_PI_2 - 1e-4);
    }
}
