//! Klarbring's particle in the convention of Ballard & Basseville (2005) §1 (docs/klarbring.md):
//! a unit mass in ℝⁿ (n = 2 or 3) in the quadratic well of an SPD stiffness K, loaded by an
//! analytic force F(t), kept in the half-space U_N ≤ 0 (normal component first):
//!
//! ```text
//!   Ü + K U = F(t) + R,   K = [[k_N, Wᵀ], [W, K_T]],   U_N ≤ 0.
//! ```
//!
//! In contact (U_N = 0) the normal reaction is N = −R_N = F_N − W·U_T ≥ 0 and the tangential
//! force that stick must hold is −g, g = F_T − K_T U_T (BB eq. (7) and §4.1). As a contact
//! system: gap −U_N, normal direction (−1, 0, …) (gap rate −V_N), tangents the unit vectors
//! of the tangential components. A public constructor, so other models (Dance's particle:
//! K = 0, a polynomial load) reuse it.

use crate::error::SimError;
use crate::model::{
    ContactFrame, ContactKinematics, ContactSystem, Mechanics, PlanarContactSystem, Real,
};

/// One component of the load: `c + a cos(ω t) + b sin(ω t) + Σ_{k≥1} p_k t^k`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadComponent {
    pub constant: f64,
    pub cos: f64,
    pub sin: f64,
    pub frequency: f64,
    /// p_1, p_2, …: the coefficients of t, t², ….
    pub polynomial: Vec<f64>,
}

impl LoadComponent {
    /// The component at time `t`.
    pub fn at<S: Real>(&self, t: S) -> S {
        let wt = t.scale(self.frequency);
        let mut poly = S::zero();
        for &p in self.polynomial.iter().rev() {
            poly = (poly + S::cst(p)) * t;
        }
        S::cst(self.constant) + wt.cos().scale(self.cos) + wt.sin().scale(self.sin) + poly
    }
}

/// The particle: stiffness and load; `N` = 2 (one tangent) or 3 (two tangents).
#[derive(Clone, Debug, PartialEq)]
pub struct KlarbringParticle<const N: usize> {
    /// K, symmetric positive definite (or zero: a particle with no well).
    pub stiffness: [[f64; N]; N],
    /// F(t), normal component first.
    pub load: [LoadComponent; N],
}

impl<const N: usize> KlarbringParticle<N> {
    /// The particle with stiffness `stiffness` (rows; `field` names it in errors) and load
    /// `load`: K must be symmetric and positive semi-definite (zero allowed), as BB's K is SPD
    /// and Dance's particle has none.
    pub fn new(
        stiffness: [[f64; N]; N],
        load: [LoadComponent; N],
        field: &str,
    ) -> Result<Self, SimError> {
        for (i, row) in stiffness.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                crate::error::require_finite(&format!("{field}[{i}][{j}]"), v)?;
                if (v - stiffness[j][i]).abs() > 1e-12 * (1.0 + v.abs()) {
                    return Err(SimError::invalid(
                        &format!("{field}[{i}][{j}]"),
                        v,
                        &format!(
                            "K must be symmetric: {field}[{j}][{i}] = {}",
                            stiffness[j][i]
                        ),
                    ));
                }
            }
        }
        let zero = stiffness.iter().flatten().all(|&v| v == 0.0);
        if !zero {
            if let Some(k) = first_non_positive_pivot(&stiffness) {
                return Err(SimError::invalid(
                    field,
                    format!("{stiffness:?}"),
                    &format!(
                        "K must be positive definite (BB §1: K_T SPD and k_N > Wᵀ K_T⁻¹ W); its leading {}×{} minor is not",
                        k + 1,
                        k + 1
                    ),
                ));
            }
        }
        Ok(KlarbringParticle { stiffness, load })
    }

    /// F(t).
    pub fn force<S: Real>(&self, t: S) -> [S; N] {
        std::array::from_fn(|i| self.load[i].at(t))
    }

    /// The normal reaction of a contact at rest with the tangential displacement `u_t` (the
    /// last N − 1 components of `u`, `u[0]` = U_N): N = F_N − W·U_T − k_N U_N (BB §3).
    pub fn normal_reaction(&self, t: f64, u: &[f64; N]) -> f64 {
        let mut n = self.load[0].at(t);
        for (j, &uj) in u.iter().enumerate() {
            n -= self.stiffness[0][j] * uj;
        }
        n
    }
}

/// The index of the first leading minor whose Cholesky pivot is not positive.
fn first_non_positive_pivot<const N: usize>(m: &[[f64; N]; N]) -> Option<usize> {
    let mut l = [[0.0; N]; N];
    for j in 0..N {
        let d = m[j][j] - (0..j).map(|k| l[j][k] * l[j][k]).sum::<f64>();
        if d <= 0.0 || !d.is_finite() {
            return Some(j);
        }
        l[j][j] = d.sqrt();
        for i in j + 1..N {
            l[i][j] = (m[i][j] - (0..j).map(|k| l[i][k] * l[j][k]).sum::<f64>()) / l[j][j];
        }
    }
    None
}

impl<const N: usize> Mechanics<N> for KlarbringParticle<N> {
    fn coordinate_names(&self) -> [&'static str; N] {
        std::array::from_fn(|i| ["U_N", "U_T1", "U_T2"][i.min(2)])
    }
    fn mass_matrix<S: Real>(&self, _q: &[S; N]) -> [[S; N]; N] {
        std::array::from_fn(|i| std::array::from_fn(|j| S::cst(f64::from(u8::from(i == j)))))
    }
    /// −K U.
    fn generalized_force<S: Real>(&self, q: &[S; N], _qdot: &[S; N]) -> [S; N] {
        std::array::from_fn(|i| (0..N).fold(S::zero(), |s, j| s - q[j].scale(self.stiffness[i][j])))
    }
    /// ½ Uᵀ K U.
    fn potential_energy<S: Real>(&self, q: &[S; N]) -> S {
        let mut e = S::zero();
        for i in 0..N {
            for j in 0..N {
                e = e + (q[i] * q[j]).scale(0.5 * self.stiffness[i][j]);
            }
        }
        e
    }
    fn is_autonomous(&self) -> bool {
        false
    }
    fn external_load<S: Real>(&self, t: S) -> [S; N] {
        self.force(t)
    }
}

/// The 2D particle: one tangent, the planar single contact.
impl PlanarContactSystem<2> for KlarbringParticle<2> {
    fn contact_kinematics<S: Real>(&self, q: &[S; 2], _qdot: &[S; 2]) -> ContactKinematics<S, 2> {
        let (o, z) = (S::cst(1.0), S::zero());
        ContactKinematics {
            gap: -q[0],
            tangential: [z, o],
            normal: [-o, z],
            tangential_drift: z,
            normal_drift: z,
        }
    }

    /// The wall is the line x = 0 and the particle is the contact point: c = e_y, d = −e_x.
    fn constant_contact_directions(&self) -> Option<([f64; 2], [f64; 2])> {
        Some(([0.0, 1.0], [-1.0, 0.0]))
    }
}

/// The 3D particle: two tangents.
impl ContactSystem<3, 2, 1> for KlarbringParticle<3> {
    fn contact_frames<S: Real>(&self, q: &[S; 3], _qdot: &[S; 3]) -> [ContactFrame<S, 3, 2>; 1] {
        let (o, z) = (S::cst(1.0), S::zero());
        [ContactFrame {
            gap: -q[0],
            normal: [-o, z, z],
            tangents: [[z, o, z], [z, z, o]],
            normal_drift: z,
            tangent_drift: [z, z],
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planar_contact_directions_are_constant() {
        let particle =
            KlarbringParticle::new([[2.0, 0.5], [0.5, 1.0]], [load(1.0), load(0.0)], "K").unwrap();
        crate::model::check_constant_contact_directions(&particle);
    }

    fn load(c: f64) -> LoadComponent {
        LoadComponent {
            constant: c,
            ..Default::default()
        }
    }

    #[test]
    fn refuses_a_non_spd_or_asymmetric_stiffness() {
        let bad = KlarbringParticle::new([[1.0, 2.0], [2.0, 1.0]], [load(1.0), load(0.0)], "K");
        assert!(bad.unwrap_err().to_string().contains("positive definite"));
        let asym = KlarbringParticle::new([[2.0, 0.8], [0.7, 1.0]], [load(1.0), load(0.0)], "K");
        assert!(asym.unwrap_err().to_string().contains("symmetric"));
        assert!(KlarbringParticle::new([[0.0; 2]; 2], [load(1.0), load(0.0)], "K").is_ok());
    }

    #[test]
    fn load_component_sums_its_terms() {
        let c = LoadComponent {
            constant: 1.0,
            cos: 0.5,
            sin: 1.5,
            frequency: 2.0,
            polynomial: vec![0.0, 3.0],
        };
        let t = 0.7_f64;
        let expected = 1.0 + 0.5 * (2.0 * t).cos() + 1.5 * (2.0 * t).sin() + 3.0 * t * t;
        assert!((c.at(t) - expected).abs() < 1e-15);
    }
}
