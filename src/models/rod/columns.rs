//! The columns of the rod's runs.csv: its inputs and what one impact measures.

use super::mechanics::THETA;
use crate::compliant::record::RunRecord;
use crate::experiment::model::Cells;

/// Input columns (between `kappa` and `integrator`).
pub const INPUT_COLUMNS: &[&str] = &["mu", "mu_s", "theta0", "omega0", "u0", "damping"];

/// Measured columns (between `error` and the work counters); `case` is known before the run.
pub const MEASURE_COLUMNS: &[&str] = &[
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
];

/// The measured cells of one impact.
pub fn measured_cells(r: &RunRecord) -> Cells {
    let mut cells = Cells::new();
    let mut put = |k: &'static str, v: String| cells.push((k, v));
    put(
        "mode_sequence",
        r.modes
            .iter()
            .map(|m| m.mode.name())
            .collect::<Vec<_>>()
            .join(">"),
    );
    put("n_events", r.events.len().to_string());
    put("t_slide", r.durations.slide.to_string());
    put("t_stick", r.durations.stick.to_string());
    put("t_reverse_slip", r.durations.reverse_slip.to_string());
    // The attitude where the first slide ends: where the hypotheses (eq. 19) of the
    // Zhao–Liu slide bounds bind.
    if let Some(m) = r.modes.first().filter(|m| m.mode.slip_sign() != 0) {
        put("theta_slide_end", m.q_end[THETA].to_string());
        put("omega_slide_end", m.qdot_end[THETA].to_string());
    }
    put("separated", r.separated.to_string());
    if let Some(p) = &r.post_impact {
        put("t_separation", p.t.to_string());
        put("u_out", p.u.to_string());
        put("v_out", p.v.to_string());
        put(
            "omega_out",
            p.omega.map(|w| w.to_string()).unwrap_or_default(),
        );
    }
    put("impulse_normal", r.impulse_normal.to_string());
    put("impulse_tangential", r.impulse_tangential.to_string());
    put("peak_normal_force", r.peak_normal_force.to_string());
    put("max_penetration", r.max_penetration.to_string());
    let e = &r.energy;
    put("energy_initial", e.initial_total.to_string());
    put("energy_final", e.final_total.to_string());
    put("friction_work", e.friction_work.to_string());
    put("damping_work", e.damping_work.to_string());
    put("separation_loss", e.separation_loss.to_string());
    put("energy_balance_error", e.balance_error.to_string());
    cells
}
