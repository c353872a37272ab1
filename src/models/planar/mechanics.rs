//! Champneys–Várkonyi's planar single contact with constant data: the system whose projected
//! scalars (C–V §3, (udynamics), (vdynamics)) are given numbers a, b, A, B, C.
//!
//! ```text
//!   q = (x, y),   M = [[A, B], [B, C]]⁻¹,   f = M (a, b)ᵀ,   gap y,   c = (1, 0),  d = (0, 1),
//! ```
//!
//! so that `cᵀM⁻¹c = A`, `cᵀM⁻¹d = B`, `dᵀM⁻¹d = C`, `cᵀM⁻¹f = a`, `dᵀM⁻¹f = b` exactly, at every
//! state: the fast dynamics of docs/champneys_varkonyi.md hold without freezing anything. The
//! force is constant, with potential `V = −fᵀq`.

use crate::model::{ContactKinematics, Mechanics, PlanarContactSystem, Real, FLOOR_DIRECTIONS};

/// The constant projected data (C–V's symbols in the comments).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstantPlanar {
    /// a: tangential acceleration without contact force.
    pub free_tangential_accel: f64,
    /// b: normal acceleration without contact force.
    pub free_normal_accel: f64,
    /// A = cᵀM⁻¹c > 0.
    pub tangential_mobility: f64,
    /// B = cᵀM⁻¹d.
    pub cross_mobility: f64,
    /// C = dᵀM⁻¹d > 0, with AC − B² > 0.
    pub normal_mobility: f64,
}

impl ConstantPlanar {
    /// AC − B²: positive iff M is positive definite (with A > 0).
    pub(crate) fn mobility_determinant(&self) -> f64 {
        self.tangential_mobility * self.normal_mobility - self.cross_mobility * self.cross_mobility
    }

    /// M = [[A, B], [B, C]]⁻¹.
    fn mass(&self) -> [[f64; 2]; 2] {
        let det = self.mobility_determinant();
        [
            [self.normal_mobility / det, -self.cross_mobility / det],
            [-self.cross_mobility / det, self.tangential_mobility / det],
        ]
    }

    /// f = M (a, b)ᵀ.
    fn force(&self) -> [f64; 2] {
        let m = self.mass();
        let (a, b) = (self.free_tangential_accel, self.free_normal_accel);
        [m[0][0] * a + m[0][1] * b, m[1][0] * a + m[1][1] * b]
    }
}

impl Mechanics<2> for ConstantPlanar {
    fn coordinate_names(&self) -> [&'static str; 2] {
        ["x", "y"]
    }

    fn mass_matrix<S: Real>(&self, _q: &[S; 2]) -> [[S; 2]; 2] {
        self.mass().map(|row| row.map(S::cst))
    }

    fn generalized_force<S: Real>(&self, _q: &[S; 2], _qdot: &[S; 2]) -> [S; 2] {
        self.force().map(S::cst)
    }

    fn potential_energy<S: Real>(&self, q: &[S; 2]) -> S {
        let f = self.force();
        -(q[0].scale(f[0]) + q[1].scale(f[1]))
    }
}

impl PlanarContactSystem<2> for ConstantPlanar {
    fn contact_kinematics<S: Real>(&self, q: &[S; 2], _qdot: &[S; 2]) -> ContactKinematics<S, 2> {
        ContactKinematics::particle_on_floor(q)
    }

    /// The contact point is the coordinate pair itself: c = e_x, d = e_y.
    fn constant_contact_directions(&self) -> Option<([f64; 2], [f64; 2])> {
        Some(FLOOR_DIRECTIONS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integrate::rk4_step;
    use crate::model::iwc::{FastStart, IwcLimit, NoIwc};
    use crate::model::ProjectedDynamics;

    #[test]
    fn contact_directions_are_constant() {
        let system = ConstantPlanar {
            free_tangential_accel: 0.3,
            free_normal_accel: -1.0,
            tangential_mobility: 2.0,
            cross_mobility: 0.4,
            normal_mobility: 1.5,
        };
        crate::model::check_constant_contact_directions(&system);
    }

    fn system(a: f64, b: f64, aa: f64, bb: f64, cc: f64) -> ConstantPlanar {
        ConstantPlanar {
            free_tangential_accel: a,
            free_normal_accel: b,
            tangential_mobility: aa,
            cross_mobility: bb,
            normal_mobility: cc,
        }
    }

    /// The generic projection returns the data, at any state.
    #[test]
    fn projection_returns_the_constant_data() {
        let s = system(0.3, -1.0, 1.1, 0.3, 0.1 + 0.3 * 0.3 / 1.1 + 0.05);
        let pd = ProjectedDynamics::at(&s, &[0.7, -2e-3], &[1.5, -0.2]);
        for (got, want) in [
            (pd.free_tangential_accel, s.free_tangential_accel),
            (pd.free_normal_accel, s.free_normal_accel),
            (pd.tangential_mobility, s.tangential_mobility),
            (pd.cross_mobility, s.cross_mobility),
            (pd.normal_mobility, s.normal_mobility),
        ] {
            assert!((got - want).abs() < 1e-13, "{got} vs {want}");
        }
    }

    /// RK4 on `η'' = −rate·(η + c_d η')` from `y = (η, η')` until `stop`, with the impulse ∫f.
    fn rk4(
        rate: f64,
        cd: f64,
        mut y: [f64; 2],
        h: f64,
        stop: impl Fn([f64; 2], f64) -> bool,
    ) -> ([f64; 2], f64, f64) {
        let rhs = |y: &[f64; 2]| [y[1], -rate * (y[0] + cd * y[1])];
        let (mut t, mut impulse) = (0.0, 0.0);
        while !stop(y, impulse) {
            let f0 = y[0] + cd * y[1];
            y = rk4_step(rhs, &y, h);
            t += h;
            impulse += 0.5 * h * (f0 + y[0] + cd * y[1]);
        }
        (y, t, impulse)
    }

    /// The generic IWC limit against a direct integration of its two linear stages: the slip
    /// (η'' = −p f from a tiny seed) reaches the impulse |u0|/k on the unstable eigenvector,
    /// and the stick (η'' = −K f) releases where the closed form says.
    #[test]
    fn iwc_limit_matches_direct_integration_of_its_two_stages() {
        let s = system(0.0, 1.0, 1.0, 0.8, 1.0); // C–V's P+, b = 1: cell I(iii)
        let (mu, cd) = (2.0, 1.0);
        let deep = FastStart {
            gap: -2.0,
            normal_velocity: 0.0,
        };
        let l = IwcLimit::of(&s, &[0.0, 0.0], &[1.0, 0.0], mu, mu, cd, deep).unwrap();
        let p = 1.0 - mu * 0.8;
        assert!((l.painleve_parameter - p).abs() < 1e-15);
        assert!((l.slide_impulse - 1.0 / (mu - 0.8)).abs() < 1e-14);
        let (y, _, _) = rk4(p, cd, [1e-9, 0.0], 1e-4, |_, i| i >= l.slide_impulse);
        assert!((y[1] / y[0] - l.slide_rate).abs() < 1e-6, "{y:?}");
        let (end, t, _) = rk4(l.stick_stiffness, cd, y, 1e-5, |y, _| {
            y[0] + cd * y[1] <= 0.0
        });
        assert!(
            (t - l.stick_duration_scaled).abs() < 2e-5,
            "{t} vs {}",
            l.stick_duration_scaled
        );
        assert!(
            (-end[1] - l.v_out).abs() < 1e-4 * l.v_out,
            "{} vs {}",
            -end[1],
            l.v_out
        );
    }

    /// The outgoing velocity is the impulse balance: u_out = cᵀq̇_out = 0, v_out = dᵀq̇_out =
    /// p P_s + K P_st (from v0 = 0); the stick breaks where −(a + Bλ_N)/A = ±μ_s λ_N.
    #[test]
    fn outgoing_velocity_is_the_impulse_balance() {
        let s = system(0.3, -1.0, 1.0, -0.8, 1.0); // P−, b = −1, u0 < 0: III(v)
        let l = IwcLimit::of(
            &s,
            &[0.0, 0.0],
            &[-1.5, 0.0],
            2.0,
            2.5,
            0.5,
            FastStart::REST,
        )
        .unwrap();
        assert_eq!(l.slip_sign, -1.0);
        assert!(l.qdot_out[0].abs() < 1e-14, "u_out = {}", l.qdot_out[0]);
        assert!((l.qdot_out[1] - l.v_out).abs() < 1e-14);
        let balance = l.painleve_parameter * l.slide_impulse + l.stick_stiffness * l.stick_impulse;
        assert!((balance - l.v_out).abs() < 1e-13);
        let lt = -(0.3 - 0.8 * l.stick_break_force);
        assert!((lt.abs() - 2.5 * l.stick_break_force).abs() < 1e-14);
    }

    /// The refusals: no slip, a stable slip, a start on the lift-off side, an overdamped stick.
    #[test]
    fn iwc_refusals_name_the_reason() {
        let s = system(0.0, 1.0, 1.0, 0.8, 1.0);
        let of = |qdot: [f64; 2], cd: f64, start| {
            IwcLimit::of(&s, &[0.0, 0.0], &qdot, 2.0, 2.0, cd, start)
        };
        let deep = FastStart {
            gap: -2.0,
            normal_velocity: 0.0,
        };
        assert_eq!(of([0.0, 0.0], 1.0, deep).unwrap_err(), NoIwc::NoSlip);
        assert_eq!(of([-1.0, 0.0], 1.0, deep).unwrap_err(), NoIwc::StableSlip);
        // b > 0: from rest the saddle throws the contact open.
        assert_eq!(
            of([1.0, 0.0], 1.0, FastStart::REST).unwrap_err(),
            NoIwc::LiftOffSide
        );
        assert!(of([1.0, 0.0], 1.0, deep).is_ok());
        // K = 0.36: K c_d² ≥ 4 from c_d = 10/3.
        assert_eq!(
            of([1.0, 0.0], 3.4, deep).unwrap_err(),
            NoIwc::OverdampedStick
        );
    }
}
