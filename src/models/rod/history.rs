//! The rod's `history.csv`: one representative impact sampled at every step, for the time-history
//! figure.

use super::{AnalysisKind, Rod};
use crate::cells;
use crate::compliant::SimulationOptions;
use crate::experiment::model::SweepSpec;
use crate::experiment::runner::{write_atomically, RunError, HISTORY_CSV};
use crate::report::table::Table;
use std::path::Path;

/// Simulate one representative impact with its trajectory and write `dir/history.csv`
/// (columns: kappa, t, mode, penetration, normal_force, u, omega).
pub fn write_history(spec: &SweepSpec<Rod>, dir: &Path) -> Result<(), RunError> {
    if spec.analysis_kind() != AnalysisKind::Sweep {
        return Ok(());
    }
    let kappas = spec.sweep.kappa.values();
    let Some(&kappa) = kappas
        .iter()
        .min_by(|a, b| (a.log10() + 6.0).abs().total_cmp(&(b.log10() + 6.0).abs()))
    else {
        return Ok(());
    };
    let s = &spec.solver;
    let mut options = SimulationOptions::new(s.integrators[0], s.rtol, s.atol).with_guards(
        s.t_max,
        s.max_steps,
        s.max_events,
    );
    options.record_trajectory = true;
    let mut table = Table::new([
        "kappa",
        "t",
        "mode",
        "penetration",
        "normal_force",
        "u",
        "omega",
    ]);
    if let Ok(record) = spec.impact(kappa).simulate(&options) {
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
    write_atomically(&dir.join(HISTORY_CSV), &table.to_csv())
}
