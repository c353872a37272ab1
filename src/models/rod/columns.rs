//! The columns of the rod's runs.csv: its inputs and what one impact measures ([`RodMeasures`]).

use super::mechanics::THETA;
use crate::compliant::coulomb::Mode;
use crate::compliant::record::{ModeInterval, RunRecord};
use serde::{Deserialize, Serialize};

/// Input columns (between `kappa` and `integrator`).
pub(crate) const INPUT_COLUMNS: &[&str] = &["mu", "mu_s", "theta0", "omega0", "u0", "damping"];

/// Measured columns (between `error` and the work counters): `case`, known before the run, then
/// the fields of [`RodMeasures`] (a test holds the two lists together).
pub(crate) const MEASURE_COLUMNS: &[&str] = &[
    "case",
    "mode_sequence",
    "n_events",
    "t_slide",
    "t_stick",
    "t_reverse_slip",
    "theta_slide_end",
    "omega_slide_end",
    "separated",
    "t_separation",
    "u_out",
    "v_out",
    "omega_out",
    "impulse_normal",
    "impulse_tangential",
    "peak_normal_force",
    "max_penetration",
    "energy_initial",
    "energy_final",
    "friction_work",
    "damping_work",
    "separation_loss",
    "energy_balance_error",
    "normal_force_stick_end",
];

/// Total time in each kind of contact phase, Zhao–Liu's three: "slide" is slip in the direction
/// of the first slip phase, "reverse_slip" slip in the other direction. Zero when absent.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct PhaseDurations {
    pub slide: f64,
    pub stick: f64,
    pub reverse_slip: f64,
}

impl PhaseDurations {
    /// The contact phases of a run (its [`RunRecord::modes`]) summed into slide, stick and
    /// reverse slip.
    pub fn of(modes: &[ModeInterval]) -> PhaseDurations {
        let first_slip = modes
            .iter()
            .map(|m| m.mode.slip_sign())
            .find(|&s| s != 0)
            .unwrap_or(0);
        let mut d = PhaseDurations::default();
        for m in modes {
            match m.mode {
                Mode::Stick => d.stick += m.duration,
                Mode::Free => {}
                _ if m.mode.slip_sign() == first_slip => d.slide += m.duration,
                _ => d.reverse_slip += m.duration,
            }
        }
        d
    }
}

/// What one impact of the rod measures: a row of runs.csv from `mode_sequence` to
/// `normal_force_stick_end` (an empty cell where a field is `None`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RodMeasures {
    /// The modes in time order, joined by `>`.
    pub mode_sequence: String,
    pub n_events: usize,
    /// Phase durations (Zhao–Liu's slide, stick and reverse slip).
    pub t_slide: f64,
    pub t_stick: f64,
    pub t_reverse_slip: f64,
    /// θ and θ̇ where the first slide ends: where the hypotheses (eq. 19) of the Zhao–Liu slide
    /// bounds bind; none when the run does not start slipping.
    pub theta_slide_end: Option<f64>,
    pub omega_slide_end: Option<f64>,
    pub separated: bool,
    /// The post-impact state (none without separation).
    pub t_separation: Option<f64>,
    pub u_out: Option<f64>,
    pub v_out: Option<f64>,
    pub omega_out: Option<f64>,
    pub impulse_normal: f64,
    pub impulse_tangential: f64,
    pub peak_normal_force: f64,
    pub max_penetration: f64,
    /// The energy account (docs/model.md).
    pub energy_initial: f64,
    pub energy_final: f64,
    pub friction_work: f64,
    pub damping_work: f64,
    pub separation_loss: f64,
    pub energy_balance_error: f64,
    /// The normal force where the first stick ends (none without a stick): where it breaks into
    /// reverse slip, Zhao–Liu's F_n(ε₃) of eq. (53), O(1) as κ → 0
    /// ([`super::mechanics::PainleveRod::stick_end_normal_force`]).
    pub normal_force_stick_end: Option<f64>,
}

impl From<&RunRecord> for RodMeasures {
    fn from(r: &RunRecord) -> Self {
        let slide = r.modes.first().filter(|m| m.mode.slip_sign() != 0);
        let post = r.post_impact.as_ref();
        let e = &r.energy;
        let durations = PhaseDurations::of(&r.modes);
        RodMeasures {
            mode_sequence: r.modes_joined(">"),
            n_events: r.events.len(),
            t_slide: durations.slide,
            t_stick: durations.stick,
            t_reverse_slip: durations.reverse_slip,
            theta_slide_end: slide.map(|m| m.q_end[THETA]),
            omega_slide_end: slide.map(|m| m.qdot_end[THETA]),
            separated: r.separated,
            t_separation: post.map(|p| p.t),
            u_out: post.map(|p| p.u),
            v_out: post.map(|p| p.v),
            omega_out: post.map(|p| p.qdot[THETA]),
            impulse_normal: r.impulse_normal,
            impulse_tangential: r.impulse_tangential,
            peak_normal_force: r.peak_normal_force,
            max_penetration: r.max_penetration,
            energy_initial: e.initial_total,
            energy_final: e.final_total,
            friction_work: e.friction_work,
            damping_work: e.damping_work,
            separation_loss: e.separation_loss,
            energy_balance_error: e.balance_error,
            normal_force_stick_end: r
                .modes
                .iter()
                .find(|m| m.mode == Mode::Stick)
                .map(|m| m.normal_force_end),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::record::columns;

    #[test]
    fn the_measured_columns_are_case_then_the_record_fields() {
        let mut derived = vec!["case"];
        derived.extend(columns::<RodMeasures>());
        assert_eq!(derived, MEASURE_COLUMNS);
    }
}
