//! What one simulation measures: the record the analysis reads (it never calls a solver).

use super::coulomb::Mode;
use super::Event;
use crate::integrate::{IntegratorKind, SolverStats};
use serde::Serialize;

/// One phase of the run, in global nondimensional time.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ModeInterval {
    pub mode: Mode,
    pub t_start: f64,
    /// Phase duration, measured in phase-local time (exact even for phases 10⁷× shorter than
    /// the time at which they start).
    pub duration: f64,
    pub t_end: f64,
    /// Generalised coordinates and velocities at the end of the phase.
    pub q_end: Vec<f64>,
    pub qdot_end: Vec<f64>,
    /// ∫ F_n dt from the start of the run to the end of the phase (left out of the JSON, whose
    /// keys are frozen).
    #[serde(skip)]
    pub impulse_normal_end: f64,
    /// The normal force at the end of the phase, in the phase's mode (left out of the JSON, as
    /// above): where a stick breaks into reverse slip it is Zhao–Liu's F_n(ε₃), eq. (53).
    #[serde(skip)]
    pub normal_force_end: f64,
}

/// A located switching event of the compliant contact.
pub type EventRecord = crate::hybrid::EventRecord<Mode, Event>;

/// The state when the contact first opens after an impact.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PostImpact {
    pub t: f64,
    /// Tangential velocity of the contact point.
    pub u: f64,
    /// Normal velocity of the contact point, positive away from the surface.
    pub v: f64,
    pub q: Vec<f64>,
    pub qdot: Vec<f64>,
}

/// Energy bookkeeping: `final_total − initial_total = friction_work + damping_work + load_work
/// + viscous_work − separation_loss` up to `balance_error`.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct EnergyAccount {
    /// Kinetic + gravity + spring energy at the start.
    pub initial_total: f64,
    /// At the end of the run:
    pub kinetic: f64,
    pub gravity: f64,
    /// Elastic energy δ²/(2κ) of a closed contact (0 when open).
    pub spring: f64,
    /// ∫ F_τ u dt ≤ 0.
    pub friction_work: f64,
    /// ∫ −c_d δ̇²/√κ dt ≤ 0.
    pub damping_work: f64,
    /// ∫ F(t)·q̇ dt: the work of a non-autonomous system's external load (left out of the JSON
    /// of an autonomous system, where it is 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub load_work: f64,
    /// ∫ (power of the dissipative body forces) dt ≤ 0 (viscous drag; left out of the JSON of
    /// a system without one, where it is 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub viscous_work: f64,
    /// Elastic energy discarded when a spring–dashpot contact opens at δ > 0 (0 for c_d = 0).
    pub separation_loss: f64,
    pub final_total: f64,
    /// final − initial − friction − damping − load − viscous + separation_loss: zero up to the
    /// tolerance.
    pub balance_error: f64,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// A point of the sampled trajectory.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Sample {
    pub t: f64,
    pub mode: Mode,
    pub q: Vec<f64>,
    pub qdot: Vec<f64>,
    pub normal_force: f64,
    pub tangential_force: f64,
}

/// A sampled state of a run of several contacts, or of a spatial contact: each contact's normal
/// force, and its tangential force (one per contact, or the spatial contact's two components).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ContactsSample {
    pub t: f64,
    /// The mode's name (each contact's, `,`-joined, for several).
    pub mode: &'static str,
    pub q: Vec<f64>,
    pub qdot: Vec<f64>,
    pub normal_force: Vec<f64>,
    pub tangential_force: Vec<f64>,
}

/// Everything one run measured.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunRecord {
    pub integrator: IntegratorKind,
    pub modes: Vec<ModeInterval>,
    pub events: Vec<EventRecord>,
    /// Whether the contact opened (the run ends there unless run to a fixed time).
    pub separated: bool,
    pub post_impact: Option<PostImpact>,
    /// ∫ F_n dt over the run.
    pub impulse_normal: f64,
    /// ∫ F_τ dt over the run.
    pub impulse_tangential: f64,
    pub peak_normal_force: f64,
    pub max_penetration: f64,
    pub energy: EnergyAccount,
    pub stats: SolverStats,
    pub final_time: f64,
    pub final_q: Vec<f64>,
    pub final_qdot: Vec<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trajectory: Option<Vec<Sample>>,
    /// The states at [`super::SimulationOptions::output_times`] (as many as were reached).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<Sample>,
}

impl RunRecord {
    /// The sequence of modes, e.g. `slide_left → stick → slide_right → free`.
    pub fn mode_sequence(&self) -> String {
        self.modes_joined(" → ")
    }

    /// The names of the modes in time order joined by `separator` (runs.csv's `>`).
    /// The phases as `simulate` prints them: mode, start, end and duration, a line each under
    /// a header.
    pub fn phase_table(&self) -> String {
        let mut out = format!(
            "{:<12} {:>22} {:>22} {:>22}\n",
            "mode", "t_start", "t_end", "duration"
        );
        for m in &self.modes {
            out.push_str(&format!(
                "{:<12} {:>22.15e} {:>22.15e} {:>22.15e}\n",
                m.mode.name(),
                m.t_start,
                m.t_end,
                m.duration
            ));
        }
        out
    }

    pub fn modes_joined(&self, separator: &str) -> String {
        let names: Vec<_> = self.modes.iter().map(|m| m.mode.name()).collect();
        names.join(separator)
    }
}
