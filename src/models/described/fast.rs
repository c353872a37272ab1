//! C–V's scale-free fast system of two slipping contacts (C–V §6.2, eq. (TC1) of
//! docs/two_contact.md: Y_i'' = b_i + Σ_j P_ij f_j) projected from a described system at its
//! start (docs/multi_contact.md, "C–V's two contacts from a rigid body"): with d_i, c_i the
//! normal and tangential rows of contact i, M the mass matrix and f the forces at the start,
//!
//! ```text
//! P_ij = d_iᵀ M⁻¹ (d_j + μ_j σ_j c_j),   σ_j = −sign(c_jᵀ q̇)   (friction opposes the slip),
//! b_i  = d_iᵀ M⁻¹ f + ḋ_iᵀ q̇,
//! Y_i  = g_i/κ,  V_i = d_iᵀ q̇/√κ   (C–V's scaled gap and its rate in s = t/√κ),
//! ```
//!
//! and the spring–dashpot F_n = δ/κ + c_d δ̇/√κ as the law f_j = −Y_j − c_d,j V_j (k_j = −1,
//! q_j = −c_d,j) while the contact is closed: the harness's law of
//! [`crate::models::two_contact`]. Its first opening is the κ → 0 limit of the body's first
//! opening in s, when the data P and b move by O(κ) over the fast window.

use super::description::{Compiled, ContactDescription, Description};
use crate::analysis::first_opening::ScaleFreeOpening;
use crate::error::SimError;
use crate::experiment::grammar::SolverSpec;
use crate::experiment::system::RunSettings;
use crate::models::two_contact::classification::class_code;
use crate::models::two_contact::runs::run_fast;
use crate::models::two_contact::system::{ContactLaw, FastTwoContact, TwoContactSystem};

/// The projected fast system and its start [Y1, Y2, V1, V2].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projection {
    pub system: TwoContactSystem,
    pub start: [f64; 4],
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The scale-free fast system of `d`'s two planar contacts, both slipping, projected at its
/// start at compliance `kappa`. An error names the field that does not give one.
pub fn project(d: &Description, kappa: f64) -> Result<Projection, SimError> {
    let compiled: Compiled = d.compile()?;
    if compiled.contacts.len() != 2 || compiled.is_spatial() {
        return Err(SimError::invalid(
            "system.contacts",
            format!(
                "{} {} contacts",
                compiled.contacts.len(),
                if compiled.is_spatial() {
                    "spatial"
                } else {
                    "planar"
                }
            ),
            "the scale-free fast system (C–V §6.2) is of two planar contacts",
        ));
    }
    let (q, qdot) = d.initial_state(kappa)?;
    let n = q.len();
    let m = nalgebra::DMatrix::from_fn(n, n, |i, j| {
        compiled.mass_matrix[i][j].eval::<f64>(&q, &qdot, 0.0)
    });
    let inverse = m.try_inverse().ok_or_else(|| {
        SimError::invalid(
            "system.mass_matrix",
            "singular",
            "must be invertible at the initial state (q = system.initial.q)",
        )
    })?;
    let mobility = |v: &[f64]| -> Vec<f64> {
        let x = &inverse * nalgebra::DVector::from_column_slice(v);
        x.iter().copied().collect()
    };
    let mut force: Vec<f64> = compiled
        .force
        .iter()
        .map(|e| e.eval::<f64>(&q, &qdot, 0.0))
        .collect();
    if let Some(load) = &compiled.load {
        for (f, e) in force.iter_mut().zip(load) {
            *f += e.eval::<f64>(&[], &[], 0.0);
        }
    }
    let free = mobility(&force);
    let rows = |exprs: &[crate::expression::Expr]| -> Vec<f64> {
        exprs
            .iter()
            .map(|e| e.eval::<f64>(&q, &qdot, 0.0))
            .collect()
    };
    let normal: Vec<Vec<f64>> = compiled.contacts.iter().map(|c| rows(&c.normal)).collect();
    let mut columns = Vec::with_capacity(2);
    for (j, c) in compiled.contacts.iter().enumerate() {
        let tangential = rows(&c.tangential);
        let slip = dot(&tangential, &qdot);
        if slip == 0.0 || !slip.is_finite() {
            return Err(SimError::invalid(
                "system.initial.q_dot",
                format!("slip {slip} at contact {}", c.name),
                "the scale-free fast system (C–V §6.2) is of two slipping contacts: each contact's tangential velocity must be nonzero at the start",
            ));
        }
        // Coulomb's sliding friction μ_j F_j against the slip, along σ_j c_j.
        let friction = c.mu * -slip.signum();
        let column: Vec<f64> = normal[j]
            .iter()
            .zip(&tangential)
            .map(|(dk, ck)| dk + friction * ck)
            .collect();
        columns.push(mobility(&column));
    }
    let mut response = [[0.0; 2]; 2];
    let mut free_accel = [0.0; 2];
    let mut start = [0.0; 4];
    for (i, c) in compiled.contacts.iter().enumerate() {
        free_accel[i] = dot(&normal[i], &free) + c.normal_drift.eval::<f64>(&q, &qdot, 0.0);
        for (j, column) in columns.iter().enumerate() {
            response[i][j] = dot(&normal[i], column);
        }
        start[i] = c.gap.eval::<f64>(&q, &qdot, 0.0) / kappa;
        start[2 + i] = dot(&normal[i], &qdot) / kappa.sqrt();
    }
    let damping = [0, 1].map(|j| -compiled.contacts[j].damping);
    Ok(Projection {
        system: TwoContactSystem {
            free_accel,
            response,
            stiffness: [-1.0; 2],
            damping,
        },
        start,
    })
}

impl Projection {
    /// The first opening of this scale-free fast system, run with the harness's law for
    /// `window_scaled` units of s by `settings`' integrator at its tolerances and guards;
    /// `contacts` name the contacts, `start` (the swept parameter's value) labels it.
    pub fn first_opening(
        &self,
        contacts: &[ContactDescription],
        settings: &RunSettings,
        window_scaled: f64,
        start: f64,
    ) -> Result<ScaleFreeOpening, SimError> {
        let fast = FastTwoContact {
            system: self.system,
            law: ContactLaw::Harness,
        };
        let solver = SolverSpec {
            integrators: vec![settings.integrator],
            rtol: settings.rtol,
            atol: settings.atol,
            t_max: None,
            max_points: None,
            window_scaled: Some(window_scaled),
            max_steps: settings.max_steps,
            t_end: None,
            max_events: settings.max_events,
        };
        let run = run_fast(
            &fast,
            &self.start,
            window_scaled,
            settings.integrator,
            &solver,
        )
        .map_err(|e| SimError::invalid("first_opening", "the scale-free fast system", &e))?;
        let first = run.first_opening();
        let system = self.system;
        let column = |j: usize| [system.response[0][j], system.response[1][j]];
        let class = class_code(column(0), column(1), system.free_accel)
            .map_or_else(String::new, |c| c.iter().map(u8::to_string).collect());
        Ok(ScaleFreeOpening {
            start,
            contact: first.map(|(_, j)| contacts[j - 1].name.clone()),
            s: first.map(|(s, _)| s),
            outcome: run.outcome(&fast).symbol().to_string(),
            response: system.response,
            b: system.free_accel,
            class,
            error: None,
        })
    }
}
