//! Several contacts, each with a normal and D tangential directions (D = 1 planar, D = 2
//! spatial): the general form of the mechanics the seed systems need (a particle on a plane in
//! 3D, two-contact systems). The planar single contact of [`PlanarContactSystem`] is its case
//! D = 1, K = 1, by the blanket implementation below.
//!
//! Projected onto the contact directions, `M q̈ = f + F(t) + Σ_k (λ_N,k d_k + Σ_j λ_T,kj c_kj)`
//! becomes, for the contact-point accelerations, `ẅ = w_free + W λ` with the Delassus matrix
//! `W = J M⁻¹ Jᵀ` (J stacks the normal and tangential rows of every contact) — C–V's (a, b) and
//! (A, B, C) for one planar contact (docs/model.md).

use super::{cholesky, cholesky_solve, dot, Mechanics, PlanarContactSystem, Real};

/// One contact point's directions at a configuration.
#[derive(Clone, Copy, Debug)]
pub struct ContactFrame<S, const N: usize, const D: usize> {
    /// Normal gap: positive when separated.
    pub gap: S,
    /// Normal direction `d(q)`: normal velocity `v = dᵀq̇` (positive away from the surface).
    pub normal: [S; N],
    /// Tangential directions `c_j(q)`: slip velocities `u_j = c_jᵀq̇`.
    pub tangents: [[S; N]; D],
    /// `ḋᵀq̇`.
    pub normal_drift: S,
    /// `ċ_jᵀq̇`.
    pub tangent_drift: [S; D],
}

/// A mechanical system with K frictional contacts, D tangential directions each.
pub trait ContactSystem<const N: usize, const D: usize, const K: usize>: Mechanics<N> {
    fn contact_frames<S: Real>(&self, q: &[S; N], qdot: &[S; N]) -> [ContactFrame<S, N, D>; K];
}

impl<T: PlanarContactSystem<N>, const N: usize> ContactSystem<N, 1, 1> for T {
    fn contact_frames<S: Real>(&self, q: &[S; N], qdot: &[S; N]) -> [ContactFrame<S, N, 1>; 1] {
        let k = self.contact_kinematics(q, qdot);
        [ContactFrame {
            gap: k.gap,
            normal: k.normal,
            tangents: [k.tangential],
            normal_drift: k.normal_drift,
            tangent_drift: [k.tangential_drift],
        }]
    }
}

/// The contact-space dynamics at one state: row `(k, 0)` is contact k's normal direction, rows
/// `(k, 1..=D)` its tangents.
#[derive(Clone, Debug)]
pub struct Delassus<S, const D: usize, const K: usize> {
    /// Contact-point accelerations with no contact force, `J M⁻¹ (f + F) + J̇ q̇`, in the row
    /// order above.
    pub free_all: Vec<S>,
    /// `W = J M⁻¹ Jᵀ`, (K(1+D))², row-major in the order above.
    pub w: Vec<S>,
}

impl<S: Real, const D: usize, const K: usize> Delassus<S, D, K> {
    /// Project the system at time `t` and `(q, q̇)`.
    pub fn at_time<Sys: ContactSystem<N, D, K>, const N: usize>(
        sys: &Sys,
        t: S,
        q: &[S; N],
        qdot: &[S; N],
    ) -> Self {
        let chol = cholesky(&sys.mass_matrix(q));
        let mut f = sys.generalized_force(q, qdot);
        if !sys.is_autonomous() {
            for (fi, li) in f.iter_mut().zip(sys.external_load(t)) {
                *fi = *fi + li;
            }
        }
        let free_accel = cholesky_solve(&chol, &f);
        let frames = sys.contact_frames(q, qdot);
        let mut rows: Vec<([S; N], S)> = Vec::with_capacity(K * (1 + D));
        for fr in &frames {
            rows.push((fr.normal, fr.normal_drift));
            for j in 0..D {
                rows.push((fr.tangents[j], fr.tangent_drift[j]));
            }
        }
        let per_force: Vec<[S; N]> = rows.iter().map(|(r, _)| cholesky_solve(&chol, r)).collect();
        let free_all: Vec<S> = rows
            .iter()
            .map(|(r, drift)| dot(r, &free_accel) + *drift)
            .collect();
        let w = rows
            .iter()
            .flat_map(|(r, _)| per_force.iter().map(move |m| dot(r, m)))
            .collect();
        Delassus { free_all, w }
    }

    /// `W[(k, a), (l, b)]`, a, b = 0 for the normal and 1 + j for tangent j.
    pub fn entry(&self, k: usize, a: usize, l: usize, b: usize) -> S {
        let n = K * (1 + D);
        self.w[(k * (1 + D) + a) * n + l * (1 + D) + b]
    }
}

/// The generalised acceleration `q̈ = M⁻¹(f + F(t) + Jᵀλ)` under the contact forces `λ`, given
/// in the row order of [`Delassus`] (contact k's normal, then its D tangents).
pub fn generalized_accel<
    S: Real,
    Sys: ContactSystem<N, D, K>,
    const N: usize,
    const D: usize,
    const K: usize,
>(
    sys: &Sys,
    t: S,
    q: &[S; N],
    qdot: &[S; N],
    forces: &[S],
) -> [S; N] {
    let mut f = sys.generalized_force(q, qdot);
    if !sys.is_autonomous() {
        for (fi, li) in f.iter_mut().zip(sys.external_load(t)) {
            *fi = *fi + li;
        }
    }
    for (k, fr) in sys.contact_frames(q, qdot).iter().enumerate() {
        let base = k * (1 + D);
        for (i, fi) in f.iter_mut().enumerate() {
            let mut total = forces[base] * fr.normal[i];
            for j in 0..D {
                total = total + forces[base + 1 + j] * fr.tangents[j][i];
            }
            *fi = *fi + total;
        }
    }
    cholesky_solve(&cholesky(&sys.mass_matrix(q)), &f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ContactKinematics, ProjectedDynamics};

    /// A planar system seen as `ContactSystem<N, 1, 1>` gives C–V's a, b, A, B, C exactly.
    #[test]
    fn the_planar_case_is_cv_projection() {
        struct Tilted;
        impl Mechanics<2> for Tilted {
            fn coordinate_names(&self) -> [&'static str; 2] {
                ["x", "y"]
            }
            fn mass_matrix<S: Real>(&self, q: &[S; 2]) -> [[S; 2]; 2] {
                let c = S::cst(0.3) + q[0].scale(0.1);
                [[S::cst(2.0), c], [c, S::cst(1.0)]]
            }
            fn generalized_force<S: Real>(&self, _: &[S; 2], qdot: &[S; 2]) -> [S; 2] {
                [qdot[1].scale(0.2), S::cst(-1.0)]
            }
            fn potential_energy<S: Real>(&self, q: &[S; 2]) -> S {
                q[1]
            }
        }
        impl PlanarContactSystem<2> for Tilted {
            fn contact_kinematics<S: Real>(
                &self,
                q: &[S; 2],
                qdot: &[S; 2],
            ) -> ContactKinematics<S, 2> {
                ContactKinematics {
                    gap: q[1] - q[0].scale(0.5),
                    tangential: [S::cst(1.0), S::cst(0.5)],
                    normal: [S::cst(-0.5), S::cst(1.0)],
                    tangential_drift: qdot[0] * qdot[1].scale(0.01),
                    normal_drift: qdot[0] * qdot[0].scale(0.02),
                }
            }
        }
        let (q, qdot) = ([0.4, -0.1], [1.2, -0.7]);
        let p = ProjectedDynamics::at(&Tilted, &q, &qdot);
        let d: Delassus<f64, 1, 1> = Delassus::at_time(&Tilted, 0.0, &q, &qdot);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-15 * a.abs().max(1.0);
        assert!(close(d.free_all[0], p.free_normal_accel));
        assert!(close(d.free_all[1], p.free_tangential_accel));
        assert!(close(d.entry(0, 0, 0, 0), p.normal_mobility));
        assert!(close(d.entry(0, 1, 0, 1), p.tangential_mobility));
        assert!(close(d.entry(0, 0, 0, 1), p.cross_mobility));
        assert!(close(d.entry(0, 1, 0, 0), p.cross_mobility));
    }

    /// A particle with an anisotropic mass on the plane z = 0 (D = 2) and a second contact on
    /// the wall x = 1 (K = 2): W = J M⁻¹ Jᵀ against the explicit inverse of M.
    #[test]
    fn spatial_two_contact_delassus_matches_the_explicit_inverse() {
        struct Particle;
        const M: [[f64; 3]; 3] = [[2.0, 0.3, 0.0], [0.3, 1.0, 0.2], [0.0, 0.2, 1.5]];
        impl Mechanics<3> for Particle {
            fn coordinate_names(&self) -> [&'static str; 3] {
                ["x", "y", "z"]
            }
            fn mass_matrix<S: Real>(&self, _: &[S; 3]) -> [[S; 3]; 3] {
                M.map(|r| r.map(S::cst))
            }
            fn generalized_force<S: Real>(&self, _: &[S; 3], _: &[S; 3]) -> [S; 3] {
                [S::cst(0.5), S::zero(), S::cst(-1.0)]
            }
            fn potential_energy<S: Real>(&self, q: &[S; 3]) -> S {
                q[2]
            }
        }
        impl ContactSystem<3, 2, 2> for Particle {
            fn contact_frames<S: Real>(
                &self,
                q: &[S; 3],
                _: &[S; 3],
            ) -> [ContactFrame<S, 3, 2>; 2] {
                let (o, z) = (S::cst(1.0), S::zero());
                [
                    ContactFrame {
                        gap: q[2],
                        normal: [z, z, o],
                        tangents: [[o, z, z], [z, o, z]],
                        normal_drift: z,
                        tangent_drift: [z, z],
                    },
                    ContactFrame {
                        gap: o - q[0],
                        normal: [-o, z, z],
                        tangents: [[z, o, z], [z, z, o]],
                        normal_drift: z,
                        tangent_drift: [z, z],
                    },
                ]
            }
        }
        // Explicit inverse by cofactors.
        let m = M;
        let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        let cof = |i: usize, j: usize| {
            let r: Vec<usize> = (0..3).filter(|&x| x != j).collect();
            let c: Vec<usize> = (0..3).filter(|&x| x != i).collect();
            let minor = m[r[0]][c[0]] * m[r[1]][c[1]] - m[r[0]][c[1]] * m[r[1]][c[0]];
            if (i + j).is_multiple_of(2) {
                minor
            } else {
                -minor
            }
        };
        let inv: Vec<Vec<f64>> = (0..3)
            .map(|i| (0..3).map(|j| cof(i, j) / det).collect())
            .collect();
        let rows: [[f64; 3]; 6] = [
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ];
        let d: Delassus<f64, 2, 2> = Delassus::at_time(&Particle, 0.0, &[0.2, 0.0, 0.0], &[0.0; 3]);
        let f = [0.5, 0.0, -1.0];
        for (a, ra) in rows.iter().enumerate() {
            let free: f64 = (0..3)
                .map(|i| ra[i] * (0..3).map(|j| inv[i][j] * f[j]).sum::<f64>())
                .sum();
            assert!((d.free_all[a] - free).abs() < 1e-15, "free {a}");
            for (b, rb) in rows.iter().enumerate() {
                let w: f64 = (0..3)
                    .map(|i| ra[i] * (0..3).map(|j| inv[i][j] * rb[j]).sum::<f64>())
                    .sum();
                assert!((d.w[a * 6 + b] - w).abs() < 1e-15, "W[{a}][{b}]");
            }
        }
        assert_eq!(d.entry(1, 0, 0, 1), d.w[3 * 6 + 1]);
    }
}
