//! The spring-loaded particle (`model = "spring_particle"`): the smallest example of a
//! mechanical system in its own folder ([`mechanics`]) and a [`System`] of the harness (its
//! convergence study is `crate::study::convergence`), with a closed-form check: the slip onset time, against the compliant
//! closed form at each κ and against the rigid limit (README, "Adding a mechanical system").

pub mod mechanics;

use crate::compliant::coulomb::Coulomb;
use crate::compliant::normal::NormalCompliance;
use crate::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use crate::error::{require_positive, SimError};
use crate::experiment::grammar::LogGrid;
use crate::experiment::system::{Method, Quantity, RunSettings, System};
use crate::integrate::SolverStats;
use mechanics::SpringParticleMechanics;
use serde::{Deserialize, Serialize};

/// The spring-loaded particle as a system of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringParticle;

/// `[params]`: one configuration (the input columns of runs.csv, in this order).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Coulomb coefficient μ > 0 (static = kinetic).
    pub mu: f64,
    /// Spring stiffness k > 0.
    pub stiffness: f64,
    /// Depth d > 0 of the spring's anchor below the plane.
    pub depth: f64,
    /// Tangential load a sin(ωt): amplitude a.
    pub load_amplitude: f64,
    /// Load frequency ω > 0.
    pub load_frequency: f64,
    /// Dashpot c_d ≥ 0 (default 0).
    #[serde(default)]
    pub damping: f64,
    /// End of each run.
    pub t_end: f64,
}

impl Params {
    fn mechanics(&self) -> SpringParticleMechanics {
        SpringParticleMechanics {
            stiffness: self.stiffness,
            depth: self.depth,
            load_amplitude: self.load_amplitude,
            load_frequency: self.load_frequency,
        }
    }
}

/// The particle at rest in stick at x = 0, at the quasi-static penetration δ = κ F_n.
fn initial_state(p: &Params, kappa: f64) -> ([f64; 2], [f64; 2]) {
    let y0 = -kappa * p.mechanics().rest_normal_force(kappa);
    ([0.0, y0], [0.0, 0.0])
}

/// What one run measures: runs.csv's columns from `mode_sequence` to `energy_balance_error`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Measures {
    /// The modes in time order, joined by `>`.
    pub mode_sequence: String,
    pub n_events: usize,
    /// The first event (the stick → slide switch); none when the particle never slips.
    pub t_slip_onset: Option<f64>,
    /// The closed form of the slip onset at this κ and in the rigid limit (none where the load
    /// never reaches the friction cone).
    pub t_slip_onset_closed_form: Option<f64>,
    pub t_slip_onset_rigid: Option<f64>,
    pub x_end: f64,
    pub load_work: f64,
    pub energy_balance_error: f64,
}

/// Checks the spring and the load against the largest compliance `kappa_max` of the ladder. The
/// contact (stiffness 1/κ) must be stiffer than the spring that presses the particle into it
/// (κk < 1): the penetration κkd/(1 + κk) is then small against the depth d, and the model has a
/// rigid limit. The load must vary slower than the contact's normal oscillation (period 2π√κ):
/// ω√κ < 1, else the contact never sees the slowly varying load whose rigid limit is the onset
/// asin(μkd/a)/ω.
fn check_scales(p: &Params, kappa_max: f64) -> Result<(), SimError> {
    if kappa_max * p.stiffness >= 1.0 {
        return Err(SimError::invalid(
            "params.stiffness",
            crate::error::number_text(p.stiffness),
            &format!(
                "κ·k = {} at sweep.kappa.max = {}: the contact (stiffness 1/κ) must be stiffer than the spring (κ·k < 1), else the penetration is not small against params.depth and there is no rigid limit; lower the stiffness or sweep.kappa.max",
                crate::error::number_text(kappa_max * p.stiffness),
                crate::error::number_text(kappa_max)
            ),
        ));
    }
    if p.load_frequency * kappa_max.sqrt() >= 1.0 {
        return Err(SimError::invalid(
            "params.load_frequency",
            crate::error::number_text(p.load_frequency),
            &format!(
                "ω·√κ = {} at sweep.kappa.max = {}: the load must vary slower than the contact's normal oscillation (ω·√κ < 1), else the contact never sees a slowly varying load and there is no rigid limit; lower the frequency or sweep.kappa.max",
                crate::error::number_text(p.load_frequency * kappa_max.sqrt()),
                crate::error::number_text(kappa_max)
            ),
        ));
    }
    Ok(())
}

impl System for SpringParticle {
    const NAME: &'static str = "spring_particle";
    const ABOUT: &'static str =
        "a spring-loaded particle that sticks, then slides: the smallest model folder";
    const EXAMPLE: &'static str = include_str!("../../../experiments/spring_particle.toml");
    const TITLE: &'static str = "spring-loaded particle, slip onset";
    const SOLVER_KEYS: &'static [&'static str] = &["max_steps", "max_events"];
    type Config = Params;
    type Record = Measures;

    fn validate(p: &Params, kappa: Option<&LogGrid>) -> Result<(), SimError> {
        require_positive("params.mu", p.mu)?;
        require_positive("params.stiffness", p.stiffness)?;
        require_positive("params.depth", p.depth)?;
        require_positive("params.load_frequency", p.load_frequency)?;
        if let Some(kappa) = kappa {
            check_scales(p, kappa.max)?;
        }
        crate::compliant::normal::require_resolvable_damping("params.damping", p.damping)?;
        require_positive("params.t_end", p.t_end)?;
        if p.mechanics().slip_onset(p.mu, 0.0).is_none() {
            return Err(SimError::invalid(
                "params.load_amplitude",
                p.load_amplitude,
                &format!(
                    "must exceed mu·stiffness·depth = {} for the particle to slip",
                    p.mu * p.stiffness * p.depth
                ),
            ));
        }
        Ok(())
    }

    fn run(
        p: &Params,
        method: Method,
        settings: &RunSettings,
    ) -> Result<(Measures, SolverStats), SimError> {
        let kappa = method.compliant_kappa(Self::NAME)?;
        let system = p.mechanics();
        let problem = ContactProblem {
            system: &system,
            compliance: NormalCompliance::spring_dashpot(kappa, p.damping),
            friction: Coulomb {
                mu: p.mu,
                mu_s: p.mu,
            },
        };
        let mut options = SimulationOptions::new(settings.integrator, settings.rtol, settings.atol)
            .with_guards(None, settings.max_steps, settings.max_events);
        options.end = EndCondition::Time(p.t_end);
        let (q0, qdot0) = initial_state(p, kappa);
        let r = simulate(&problem, &q0, &qdot0, &options)?;
        let measures = Measures {
            mode_sequence: r.modes_joined(">"),
            n_events: r.events.len(),
            t_slip_onset: r.events.first().map(|e| e.t),
            t_slip_onset_closed_form: system.slip_onset(p.mu, kappa),
            t_slip_onset_rigid: system.slip_onset(p.mu, 0.0),
            x_end: r.final_q[0],
            load_work: r.energy.load_work,
            energy_balance_error: r.energy.balance_error,
        };
        Ok((measures, r.stats))
    }

    fn quantities(_: &Params) -> Vec<Quantity> {
        vec![Quantity {
            column: "t_slip_onset",
            component: None,
            symbol: "t₁",
            closed_form: Some("t_slip_onset_closed_form"),
            rigid_limit: Some("t_slip_onset_rigid"),
            exponent: Some(1.0),
            ..Quantity::default()
        }]
    }

    fn diagnostics() -> &'static [(&'static str, &'static str)] {
        &[("energy_balance_error", "energy balance error")]
    }

    fn describe(p: &Params) -> String {
        format!(
            "μ = {}, k = {}, d = {}, load {} sin({} t), c_d = {}. Closed form of the slip onset \
             (at rest δ/κ = k(d − δ), so F_n = kd/(1 + kκ)): sin(ω t₁) = μ k d / ((1 + kκ) a)",
            p.mu, p.stiffness, p.depth, p.load_amplitude, p.load_frequency, p.damping
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::convergence::Convergence;

    #[test]
    fn the_columns_of_runs_csv_are_the_configuration_and_record_fields() {
        let spec = Convergence::<SpringParticle>::parse(include_str!(
            "../../../experiments/spring_particle.toml"
        ))
        .unwrap();
        assert_eq!(
            spec.columns(),
            [
                "point_id",
                "kappa",
                "mu",
                "stiffness",
                "depth",
                "load_amplitude",
                "load_frequency",
                "damping",
                "t_end",
                "integrator",
                "rtol",
                "atol",
                "status",
                "error",
                "mode_sequence",
                "n_events",
                "t_slip_onset",
                "t_slip_onset_closed_form",
                "t_slip_onset_rigid",
                "x_end",
                "load_work",
                "energy_balance_error",
                "steps",
                "rejected_steps",
                "rhs_evals",
                "jvp_evals",
                "jacobian_evals",
                "lu_factorisations",
                "newton_iterations",
                "wall_time_s",
            ]
        );
    }
}
