//! The spring-loaded particle (`model = "spring_particle"`): the smallest example of a
//! mechanical system in its own folder ([`mechanics`]), run by the harness through the
//! [`Model`] contract, with a closed-form check: the slip onset time, against the compliant
//! closed form at each κ and against the rigid limit (README, "Adding a mechanical system").

pub mod mechanics;

use crate::analysis::extrapolate::{extrapolate, ExtrapolationOptions};
use crate::analysis::fit::power_law;
use crate::compliant::coulomb::Coulomb;
use crate::compliant::normal::{require_resolvable_kappa, NormalCompliance};
use crate::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use crate::error::{require_positive, SimError};
use crate::experiment::grammar::LogGrid;
use crate::experiment::model::{Cells, Model, SweepSpec};
use crate::experiment::record;
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::report::markdown::{fixed, sci, Markdown, MarkdownTable};
use mechanics::SpringParticleMechanics;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The spring-loaded particle as a model of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringParticle;

/// `[params]`: every parameter is fixed; only κ is swept.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
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

/// `[sweep]`: the κ ladder.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub kappa: LogGrid,
}

/// The one report of this model.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Analysis {
    SlipOnset,
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

impl Model for SpringParticle {
    const NAME: &'static str = "spring_particle";
    const SOLVER_KEYS: &'static [&'static str] = &["max_steps", "max_events"];
    type Params = Params;
    type Sweep = Sweep;
    type Analysis = Analysis;
    type Config = Params;
    const INPUT_COLUMNS: &'static [&'static str] = &[
        "mu",
        "stiffness",
        "depth",
        "load_amplitude",
        "load_frequency",
        "damping",
        "t_end",
    ];
    const MEASURE_COLUMNS: &'static [&'static str] = &[
        "mode_sequence",
        "n_events",
        "t_slip_onset",
        "t_slip_onset_closed_form",
        "t_slip_onset_rigid",
        "x_end",
        "load_work",
        "energy_balance_error",
    ];

    fn kappa(sweep: &Sweep) -> &LogGrid {
        &sweep.kappa
    }

    fn validate(spec: &SweepSpec<Self>) -> Result<(), SimError> {
        require_resolvable_kappa("sweep.kappa.min", spec.sweep.kappa.min)?;
        let p = &spec.params;
        if let Some(w) = spec.solver.window_scaled {
            return Err(SimError::invalid(
                "solver.window_scaled",
                w,
                "this model runs to params.t_end; a fast-time window belongs to the mode table",
            ));
        }
        require_positive("params.mu", p.mu)?;
        require_positive("params.stiffness", p.stiffness)?;
        require_positive("params.depth", p.depth)?;
        require_positive("params.load_frequency", p.load_frequency)?;
        check_scales(p, spec.sweep.kappa.max)?;
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

    fn grid_size(_: &SweepSpec<Self>) -> u128 {
        1
    }

    fn configurations(spec: &SweepSpec<Self>) -> Vec<Params> {
        vec![spec.params]
    }

    fn inputs(p: &Params) -> Cells {
        vec![
            ("mu", p.mu.to_string()),
            ("stiffness", p.stiffness.to_string()),
            ("depth", p.depth.to_string()),
            ("load_amplitude", p.load_amplitude.to_string()),
            ("load_frequency", p.load_frequency.to_string()),
            ("damping", p.damping.to_string()),
            ("t_end", p.t_end.to_string()),
        ]
    }

    fn run(
        spec: &SweepSpec<Self>,
        p: &Params,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String> {
        let system = p.mechanics();
        let problem = ContactProblem {
            system: &system,
            compliance: NormalCompliance::spring_dashpot(kappa, p.damping),
            friction: Coulomb {
                mu: p.mu,
                mu_s: p.mu,
            },
        };
        let s = &spec.solver;
        let mut options = SimulationOptions::new(integrator, s.rtol, s.atol).with_guards(
            None,
            s.max_steps,
            s.max_events,
        );
        options.end = EndCondition::Time(p.t_end);
        let (q0, qdot0) = initial_state(p, kappa);
        let r = simulate(&problem, &q0, &qdot0, &options).map_err(|e| e.to_string())?;
        let onset = r.events.first().map(|e| e.t);
        let measures = Measures {
            mode_sequence: r.modes_joined(">"),
            n_events: r.events.len(),
            t_slip_onset: onset,
            t_slip_onset_closed_form: system.slip_onset(p.mu, kappa),
            t_slip_onset_rigid: system.slip_onset(p.mu, 0.0),
            x_end: r.final_q[0],
            load_work: r.energy.load_work,
            energy_balance_error: r.energy.balance_error,
        };
        let cells = record::cells(&measures).map_err(|e| e.to_string())?;
        Ok((cells, r.stats))
    }

    fn report(spec: &SweepSpec<Self>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        write_atomically(&dir.join("summary.md"), &render_summary(spec, rows))
    }
}

/// summary.md: the slip onset against its closed form and its rigid limit, per integrator, with
/// the fitted rate of convergence to the rigid limit and the limit extrapolated from the ladder.
fn render_summary(spec: &SweepSpec<SpringParticle>, rows: &[Row]) -> String {
    let p = &spec.params;
    let mut md = Markdown::new();
    md.heading(1, format!("{}: spring-loaded particle, slip onset", spec.name))
        .generated_by(&spec.name, "")
        .paragraph(format!(
            "μ = {}, k = {}, d = {}, load {} sin({} t), c_d = {}; rtol {:e}, atol {:e}. Closed form \
             (at rest δ/κ = k(d − δ), so F_n = kd/(1 + kκ)): sin(ω t₁) = μ k d / ((1 + kκ) a); rigid limit κ = 0.",
            p.mu,
            p.stiffness,
            p.depth,
            p.load_amplitude,
            p.load_frequency,
            p.damping,
            spec.solver.rtol,
            spec.solver.atol
        ));
    let mut table = MarkdownTable::new([
        "integrator",
        "κ",
        "t₁ measured",
        "− closed form",
        "− rigid limit",
        "energy balance error",
    ]);
    for r in rows {
        let (Some(t), Some(exact), Some(rigid)) = (
            r.number("t_slip_onset"),
            r.number("t_slip_onset_closed_form"),
            r.number("t_slip_onset_rigid"),
        ) else {
            table.row([
                r.text("integrator").to_string(),
                r.text("kappa").to_string(),
                format!("failed: {}", r.text("error")),
            ]);
            continue;
        };
        table.row([
            r.text("integrator").to_string(),
            sci(r.number("kappa").unwrap_or(f64::NAN), 2),
            fixed(t, 12),
            sci(t - exact, 2),
            sci(t - rigid, 3),
            sci(r.number("energy_balance_error").unwrap_or(f64::NAN), 1),
        ]);
    }
    md.table(&table)
        .heading(2, "Convergence to the rigid limit");
    for kind in &spec.solver.integrators {
        let (kappa, gap): (Vec<f64>, Vec<f64>) = rows
            .iter()
            .filter(|r| r.text("integrator") == kind.name())
            .filter_map(|r| {
                Some((
                    r.number("kappa")?,
                    (r.number("t_slip_onset")? - r.number("t_slip_onset_rigid")?).abs(),
                ))
            })
            .unzip();
        match power_law(&kappa, &gap) {
            Some(f) => md.item(format!(
                "{kind}: |t₁ − t₁(rigid)| ∝ κ^{:.4} ± {:.4} (95 %, n = {}); predicted exponent 1.",
                f.slope, f.slope_ci95, f.n
            )),
            None => md.item(format!("{kind}: too few successful runs to fit a rate.")),
        };
        // The limit itself, extrapolated from the ladder without using the closed form
        // (docs/extrapolation.md §1), against the rigid onset.
        let (kappa, onset): (Vec<f64>, Vec<f64>) = rows
            .iter()
            .filter(|r| r.text("integrator") == kind.name())
            .filter_map(|r| Some((r.number("kappa")?, r.number("t_slip_onset")?)))
            .unzip();
        let rigid = rows.iter().find_map(|r| r.number("t_slip_onset_rigid"));
        match (
            extrapolate(&kappa, &onset, &ExtrapolationOptions::default()),
            rigid,
        ) {
            (Ok(e), Some(t_rigid)) => {
                md.item_continued(format!(
                    "t₁ extrapolated to κ → 0: {} ± {} ({}{}, {} points), rigid limit {}: difference {}, {} the interval.",
                    fixed(e.limit, 12),
                    sci(e.half_width, 1),
                    e.formula,
                    e.exponent.map(|p| format!(", p = {p:.4}")).unwrap_or_default(),
                    e.points,
                    fixed(t_rigid, 12),
                    sci(e.limit - t_rigid, 1),
                    if e.covers(t_rigid) { "inside" } else { "outside" }
                ));
            }
            (Err(r), _) => {
                md.item_continued(format!("t₁ extrapolated to κ → 0: refused ({r})."));
            }
            (Ok(_), None) => {}
        }
    }
    md.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_measured_columns_are_the_record_fields() {
        assert_eq!(
            record::columns::<Measures>(),
            SpringParticle::MEASURE_COLUMNS
        );
    }
}
