//! The `[params]` of a Klarbring experiment and the particle they define (docs/klarbring.md,
//! "Interface"): the dimension (2 or 3) is the length of the arrays, normal component first,
//! BB's convention (U_N ≤ 0 admissible).

use super::mechanics::{KlarbringParticle, LoadComponent};
use crate::error::{require_finite, require_non_negative, require_positive, SimError};
use crate::experiment::grammar::MethodKind;
use serde::{Deserialize, Serialize};

/// `[params]`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// K as an array of rows, symmetric positive definite.
    pub stiffness: Vec<Vec<f64>>,
    /// F_i(t) = c_i + a_i cos(ω_i t) + b_i sin(ω_i t) + Σ_k p_ik t^k: the c_i.
    pub force_constant: Vec<f64>,
    /// The a_i (default 0).
    #[serde(default)]
    pub force_cos: Option<Vec<f64>>,
    /// The b_i (default 0).
    #[serde(default)]
    pub force_sin: Option<Vec<f64>>,
    /// The ω_i (default 0).
    #[serde(default)]
    pub force_frequency: Option<Vec<f64>>,
    /// Per component, the coefficients p_i1, p_i2, … of t, t², … (default none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force_polynomial: Option<Vec<Vec<f64>>>,
    /// Coulomb coefficient μ ≥ 0.
    pub mu: f64,
    /// Restitution e ∈ [0, 1] of the rigid impact law.
    pub restitution: f64,
    #[serde(rename = "U0")]
    pub u0: Vec<f64>,
    #[serde(rename = "V0")]
    pub v0: Vec<f64>,
    pub t_end: f64,
    /// `rigid`, or `compliant` (then the rigid reference runs too and is written as a row).
    pub method: MethodKind,
    /// c_d ≥ 0 of the compliant normal law δ/κ + c_d δ̇/√κ (default 0).
    #[serde(default)]
    pub damping: f64,
}

/// The particle of either dimension.
#[derive(Clone, Debug, PartialEq)]
pub enum Particle {
    Planar(KlarbringParticle<2>),
    Spatial(KlarbringParticle<3>),
}

impl Params {
    /// The dimension n: the number of rows of `stiffness`.
    pub(crate) fn dimension(&self) -> usize {
        self.stiffness.len()
    }

    /// A vector of length n, or an error naming `key`.
    fn vector<const N: usize>(key: &str, v: &[f64]) -> Result<[f64; N], SimError> {
        for (i, &x) in v.iter().enumerate() {
            require_finite(&format!("params.{key}[{i}]"), x)?;
        }
        v.try_into().map_err(|_| {
            SimError::invalid(
                &format!("params.{key}"),
                crate::error::as_written(&v),
                &format!(
                    "must have {N} components (the dimension of params.stiffness), normal first"
                ),
            )
        })
    }

    fn optional<const N: usize>(key: &str, v: &Option<Vec<f64>>) -> Result<[f64; N], SimError> {
        match v {
            Some(v) => Self::vector(key, v),
            None => Ok([0.0; N]),
        }
    }

    /// The particle of dimension N, checked.
    pub(crate) fn particle_of<const N: usize>(&self) -> Result<KlarbringParticle<N>, SimError> {
        let rows: Vec<[f64; N]> = self
            .stiffness
            .iter()
            .map(|r| Self::vector::<N>("stiffness row", r))
            .collect::<Result<_, _>>()?;
        let stiffness: [[f64; N]; N] = rows.try_into().map_err(|_| {
            SimError::invalid("params.stiffness", self.stiffness.len(), "must be square")
        })?;
        let c = Self::vector::<N>("force_constant", &self.force_constant)?;
        let a = Self::optional::<N>("force_cos", &self.force_cos)?;
        let b = Self::optional::<N>("force_sin", &self.force_sin)?;
        let w = Self::optional::<N>("force_frequency", &self.force_frequency)?;
        let poly: Vec<Vec<f64>> = match &self.force_polynomial {
            None => vec![Vec::new(); N],
            Some(p) if p.len() == N => p.clone(),
            Some(p) => {
                return Err(SimError::invalid(
                    "params.force_polynomial",
                    p.len(),
                    &format!("must have {N} rows (one per component, normal first)"),
                ))
            }
        };
        let load = std::array::from_fn(|i| LoadComponent {
            constant: c[i],
            cos: a[i],
            sin: b[i],
            frequency: w[i],
            polynomial: poly[i].clone(),
        });
        KlarbringParticle::new(stiffness, load, "params.stiffness")
    }

    /// The particle, of the dimension the arrays give.
    pub fn particle(&self) -> Result<Particle, SimError> {
        match self.dimension() {
            2 => Ok(Particle::Planar(self.particle_of::<2>()?)),
            3 => Ok(Particle::Spatial(self.particle_of::<3>()?)),
            n => Err(SimError::invalid(
                "params.stiffness",
                format!("{n} rows"),
                "the particle has dimension 2 or 3: give K as 2 or 3 rows",
            )),
        }
    }

    /// The size each load key reaches by `t_end`, in units of the particle's weight, as
    /// (key, its values as written, Σ_i |c_i|, |a_i|, |b_i| or Σ_k |p_ik| t_endᵏ).
    fn load_terms(&self) -> [(&'static str, String, f64); 4] {
        let sum = |v: &[f64]| v.iter().map(|x| x.abs()).sum::<f64>();
        let written = |v: &Option<Vec<f64>>| crate::error::as_written(v);
        let polynomial: f64 = self
            .force_polynomial
            .iter()
            .flatten()
            .flat_map(|row| row.iter().enumerate())
            .map(|(k, p)| p.abs() * self.t_end.abs().powi(k as i32 + 1))
            .sum();
        [
            (
                "params.force_constant",
                crate::error::as_written(&self.force_constant),
                sum(&self.force_constant),
            ),
            (
                "params.force_cos",
                written(&self.force_cos),
                sum(self.force_cos.as_deref().unwrap_or_default()),
            ),
            (
                "params.force_sin",
                written(&self.force_sin),
                sum(self.force_sin.as_deref().unwrap_or_default()),
            ),
            (
                "params.force_polynomial",
                crate::error::as_written(&self.force_polynomial),
                polynomial,
            ),
        ]
    }

    /// Checks the scales of the problem against what the penalty law and double precision
    /// represent. The load must stay below √(largest double) ≈ 1.3e154, so that its work (F²/K
    /// with an O(1) stiffness) is finite. With a compliant run at compliances up to `kappa_max`,
    /// the contact (stiffness 1/κ) must be stiffer than the particle's spring (κ‖K‖ < 1, the
    /// Frobenius norm bounding K's largest eigenvalue) and the penetration the load presses in,
    /// about κ·|F|, must be small against the unit length (κ|F| < 1): otherwise the compliant
    /// model is no contact and has no rigid limit to converge to.
    pub(crate) fn check_scales(&self, kappa_max: Option<f64>) -> Result<(), SimError> {
        let terms = self.load_terms();
        let load: f64 = terms.iter().map(|t| t.2).sum();
        // The key that contributes most is the one to fix.
        let (load_key, load_written, _) = terms
            .iter()
            .max_by(|a, b| a.2.total_cmp(&b.2))
            .cloned()
            .unwrap_or_default();
        let largest_load = f64::MAX.sqrt();
        if load.is_nan() || load >= largest_load {
            return Err(SimError::invalid(
                load_key,
                load_written,
                &format!(
                    "the load's size Σ|c| + |a| + |b| + Σ|p| t_endᵏ = {} must be < √(largest double) = {}: its work (F²/K) overflows double precision",
                    crate::error::number_text(load),
                    crate::error::number_text(largest_load)
                ),
            ));
        }
        let Some(kappa) = kappa_max else {
            return Ok(());
        };
        let norm = self
            .stiffness
            .iter()
            .flatten()
            .map(|k| k * k)
            .sum::<f64>()
            .sqrt();
        if kappa * norm >= 1.0 {
            return Err(SimError::invalid(
                "params.stiffness",
                crate::error::as_written(&self.stiffness),
                &format!(
                    "κ·‖K‖ = {} at sweep.kappa.max = {}: the contact (stiffness 1/κ) must be stiffer than the particle's spring (κ·‖K‖ < 1), else the compliant model is no contact and has no rigid limit; lower the stiffness or sweep.kappa.max",
                    crate::error::number_text(kappa * norm),
                    crate::error::number_text(kappa)
                ),
            ));
        }
        if kappa * load >= 1.0 {
            return Err(SimError::invalid(
                load_key,
                load_written,
                &format!(
                    "the load (size {}) presses the contact in by about κ·|F| = {} unit lengths at sweep.kappa.max = {}: it must be < 1, a penetration small against the body, for the penalty law to stand for a contact",
                    crate::error::number_text(load),
                    crate::error::number_text(kappa * load),
                    crate::error::number_text(kappa)
                ),
            ));
        }
        Ok(())
    }

    /// Check everything; errors name the key.
    pub fn validate(&self) -> Result<(), SimError> {
        let n = self.dimension();
        self.particle()?;
        require_non_negative("params.mu", self.mu)?;
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(SimError::invalid(
                "params.restitution",
                self.restitution,
                "the restitution coefficient e must lie in [0, 1]",
            ));
        }
        crate::compliant::normal::require_resolvable_damping("params.damping", self.damping)?;
        require_positive("params.t_end", self.t_end)?;
        for (key, v) in [("U0", &self.u0), ("V0", &self.v0)] {
            if v.len() != n {
                return Err(SimError::invalid(
                    &format!("params.{key}"),
                    crate::error::as_written(v),
                    &format!("must have {n} components (the dimension of params.stiffness), normal first"),
                ));
            }
            for (i, &x) in v.iter().enumerate() {
                require_finite(&format!("params.{key}[{i}]"), x)?;
            }
        }
        if self.u0[0] > 0.0 || (self.u0[0] == 0.0 && self.v0[0] > 0.0) {
            return Err(SimError::invalid(
                "params.U0",
                crate::error::as_written(&self.u0),
                "the start must be admissible (BB §1): U0[0] = U_N ≤ 0, and V0[0] ≤ 0 when U_N = 0",
            ));
        }
        if self.method == MethodKind::Incremental {
            return Err(SimError::invalid(
                "params.method",
                "incremental",
                "this model runs method = \"rigid\" or \"compliant\"",
            ));
        }
        Ok(())
    }
}
