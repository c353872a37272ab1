//! The rod's `history.csv`: one representative impact sampled at every step, for the time-history
//! figure.

use super::scenario::RodImpact;
use crate::cells;
use crate::compliant::SimulationOptions;
use crate::experiment::system::RunSettings;
use crate::report::table::Table;

/// history.csv's columns: κ, time, mode, penetration, normal force, slip velocity u, spin θ̇.
pub(crate) const HISTORY_COLUMNS: [&str; 7] = [
    "kappa",
    "t",
    "mode",
    "penetration",
    "normal_force",
    "u",
    "omega",
];

/// The impact of the state `state` at the κ of the ladder `kappas` nearest 1e-6, simulated with
/// `settings` and its trajectory: the text of history.csv (columns kappa, t, mode, penetration,
/// normal_force, u, omega; the header alone when the run fails), or `None` without a ladder.
pub(crate) fn history_table(
    state: &RodImpact,
    kappas: &[f64],
    settings: &RunSettings,
) -> Option<String> {
    let &kappa = kappas
        .iter()
        .min_by(|a, b| (a.log10() + 6.0).abs().total_cmp(&(b.log10() + 6.0).abs()))?;
    let mut options = SimulationOptions::new(settings.integrator, settings.rtol, settings.atol)
        .with_guards(settings.t_max, settings.max_steps, settings.max_events);
    options.record_trajectory = true;
    let mut table = Table::new(HISTORY_COLUMNS);
    let impact = RodImpact { kappa, ..*state };
    if let Ok(record) = impact.simulate(&options) {
        for s in record.trajectory.unwrap_or_default() {
            table.push(cells![
                kappa,
                s.t,
                s.mode.name(),
                -s.q[1],
                s.normal_force,
                s.qdot[0],
                s.qdot[2]
            ]);
        }
    }
    Some(table.to_csv())
}
