//! One fast-time run of a planar single contact ([`FastRun`]): from a state displaced to its
//! fast start, the compliant contact run to s = t/√κ = `window_scaled` (or to the first
//! opening), classified by the outcome rule ([`crate::compliant::outcome`]) and measured in the
//! fast variables (s = t/√κ, Y = y/κ, V = v/√κ). The mode table and the basin run it; so do
//! the planar system's other fast-time analyses.

use super::FastContact;
use crate::compliant::coulomb::{Coulomb, Mode};
use crate::compliant::normal::NormalCompliance;
use crate::compliant::outcome::{fast_outcome, first_exit, slip_stop_before_opening};
use crate::compliant::record::RunRecord;
use crate::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use crate::experiment::grammar::SolverSpec;
use crate::experiment::rows::Cells;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::model::consistency::Outcome;
use crate::model::iwc::{FastStart, IwcLimit};
use crate::model::{PlanarContactSystem, ProjectedDynamics};

/// One fast-time run: the contact state at gap 0 and v = 0 displaced to the fast start `start`
/// (the gap by κY0, its rate by √κV0) and run to s = `window_scaled`.
pub struct FastRun<'a, Sys> {
    pub system: &'a Sys,
    pub friction: Coulomb,
    pub damping: f64,
    pub start: FastStart,
    pub window_scaled: f64,
    /// The coordinate whose rate is the post-impact angular velocity ω ([`FastContact::ROTATION`]).
    pub rotation: Option<usize>,
}

impl<'a, Sys> FastRun<'a, Sys> {
    /// The fast run of `state` of system `S` (its mechanics `body`) over `window_scaled`.
    pub fn at<S: FastContact<N, Body = Sys>, const N: usize>(
        body: &'a Sys,
        state: &S::State,
        window_scaled: f64,
    ) -> Self {
        FastRun {
            system: body,
            friction: S::friction(state),
            damping: S::damping(state),
            start: S::start(state),
            window_scaled,
            rotation: S::ROTATION,
        }
    }
}

impl<Sys> FastRun<'_, Sys> {
    fn problem<const N: usize>(&self, kappa: f64) -> ContactProblem<'_, Sys, N>
    where
        Sys: PlanarContactSystem<N>,
    {
        ContactProblem {
            system: self.system,
            compliance: NormalCompliance::spring_dashpot(kappa, self.damping),
            friction: self.friction,
        }
    }

    /// The compliant run from `(q, q̇)` at `kappa` until `end`, with the fast-scaled absolute
    /// tolerances; with `trajectory = Some(ds)`, every accepted step in the record's trajectory
    /// and the states every ds in fast time s = t/√κ in its outputs.
    #[allow(clippy::too_many_arguments)]
    pub fn record<const N: usize>(
        &self,
        q0: &[f64; N],
        qdot0: &[f64; N],
        kappa: f64,
        integrator: IntegratorKind,
        solver: &SolverSpec,
        end: EndCondition,
        trajectory: Option<f64>,
    ) -> Result<RunRecord, String>
    where
        Sys: PlanarContactSystem<N>,
    {
        let mut options = SimulationOptions::new(integrator, solver.rtol, solver.atol).with_guards(
            None,
            solver.max_steps,
            solver.max_events,
        );
        options.end = end;
        options.t_max = self.window_scaled * kappa.sqrt();
        options.fast_tolerances = true;
        if let Some(spacing) = trajectory {
            options.record_trajectory = true;
            let (end_s, ds) = (self.window_scaled, spacing);
            options.output_times = (1..)
                .map(|i| i as f64 * ds)
                .take_while(|s| *s <= end_s)
                .map(|s| s * kappa.sqrt())
                .collect();
        }
        simulate(&self.problem(kappa), q0, qdot0, &options).map_err(|e| e.to_string())
    }

    /// The F/IWC side of `(q, q̇)` ([`first_exit`]): run until the contact first opens, at most
    /// for the window.
    pub fn side<const N: usize>(
        &self,
        q0: &[f64; N],
        qdot0: &[f64; N],
        kappa: f64,
        integrator: IntegratorKind,
        solver: &SolverSpec,
    ) -> Result<(Outcome, SolverStats), String>
    where
        Sys: PlanarContactSystem<N>,
    {
        // A start with the contact open lifts off (a run to separation would never end).
        let problem = self.problem(kappa);
        let mut y0 = vec![0.0; problem.state_len()];
        y0[..N].copy_from_slice(q0);
        y0[N..2 * N].copy_from_slice(qdot0);
        if problem.initial_mode(&y0) == Mode::Free {
            return Ok((Outcome::LiftOff, SolverStats::default()));
        }
        let r = match self.record(
            q0,
            qdot0,
            kappa,
            integrator,
            solver,
            EndCondition::Separation,
            None,
        ) {
            Err(e) if e.contains("no separation") => {
                return Err(format!(
                    "neither lift-off nor IWC within s = {}",
                    self.window_scaled
                ))
            }
            other => other?,
        };
        let side = first_exit(&r)
            .ok_or_else(|| format!("neither lift-off nor IWC within s = {}", self.window_scaled))?;
        Ok((side, r.stats))
    }

    /// The outcome rule's verdict ([`fast_outcome`]) on the run from `(q, q̇)` over the whole
    /// window, and the run's record, with the trajectory ([`Self::record`]) when `trajectory` is
    /// set.
    pub fn outcome<const N: usize>(
        &self,
        q0: &[f64; N],
        qdot0: &[f64; N],
        kappa: f64,
        integrator: IntegratorKind,
        solver: &SolverSpec,
        trajectory: Option<f64>,
    ) -> Result<(Outcome, RunRecord), String>
    where
        Sys: PlanarContactSystem<N>,
    {
        let window = EndCondition::Time(self.window_scaled * kappa.sqrt());
        let r = self.record(q0, qdot0, kappa, integrator, solver, window, trajectory)?;
        let u0 = ProjectedDynamics::at(self.system, q0, qdot0).u;
        Ok((fast_outcome(&r, u0), r))
    }

    /// Run at `kappa` from `(q, q̇)` (the initial state, already at the fast start) and
    /// measure the mode table's run columns ([`super::mode_table::MEASURES`], from `outcome` on).
    pub fn run<const N: usize>(
        &self,
        q0: &[f64; N],
        qdot0: &[f64; N],
        kappa: f64,
        integrator: IntegratorKind,
        solver: &SolverSpec,
    ) -> Result<(Cells, SolverStats), String>
    where
        Sys: PlanarContactSystem<N>,
    {
        let sys = self.system;
        let sk = kappa.sqrt();
        let (outcome, r) = self.outcome(q0, qdot0, kappa, integrator, solver, None)?;
        let problem = self.problem(kappa);
        let start_pd = ProjectedDynamics::at(sys, q0, qdot0);
        let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        let scaled_times: Vec<String> = r.events.iter().map(|e| (e.t / sk).to_string()).collect();
        let slip_stop = (outcome == Outcome::Iwc)
            .then(|| slip_stop_before_opening(&r))
            .flatten();
        // The first open state: the start itself when the run starts in free flight, else the
        // state when the contact first opens (if it does).
        let rotation = self.rotation;
        let opening = if r.modes.first().is_some_and(|m| m.mode == Mode::Free) {
            Some((0.0, start_pd.u, start_pd.v, rotation.map(|i| qdot0[i])))
        } else {
            r.post_impact
                .as_ref()
                .map(|p| (p.t, p.u, p.v, rotation.map(|i| p.qdot[i])))
        };
        let mut end_q = [0.0; N];
        let mut end_qdot = [0.0; N];
        end_q.copy_from_slice(&r.final_q);
        end_qdot.copy_from_slice(&r.final_qdot);
        let end = ProjectedDynamics::at(sys, &end_q, &end_qdot);
        let end_mode = r.modes.last().map_or(Mode::Free, |m| m.mode);
        let normal_force_end = if end_mode.is_contact() {
            problem.compliance.closed_contact_force(-end.gap, -end.v)
        } else {
            0.0
        };
        let limit = IwcLimit::of(
            sys,
            q0,
            qdot0,
            self.friction.mu,
            self.friction.mu_s,
            self.damping,
            self.start,
        )
        .ok();
        let sequence: Vec<_> = r.modes.iter().map(|m| m.mode.name()).collect();
        let cells = vec![
            ("outcome", outcome.symbol().to_string()),
            ("mode_sequence", sequence.join(">")),
            ("n_events", r.events.len().to_string()),
            ("s_events", scaled_times.join(" ")),
            ("s_slip_stop", opt(slip_stop.map(|i| r.events[i].t / sk))),
            (
                "limit_s_slip_stop",
                opt(limit.map(|l| l.slide_duration(kappa) / sk)),
            ),
            (
                "slip_stop_impulse",
                opt(slip_stop.map(|i| r.modes[i].impulse_normal_end)),
            ),
            ("s_open", opt(opening.map(|o| o.0 / sk))),
            ("V_open", opt(opening.map(|o| o.2 / sk))),
            ("u_out", opt(opening.map(|o| o.1))),
            ("v_out", opt(opening.map(|o| o.2))),
            ("omega_out", opt(opening.and_then(|o| o.3))),
            ("Y_end", (end.gap / kappa).to_string()),
            ("V_end", (end.v / sk).to_string()),
            ("normal_force_end", normal_force_end.to_string()),
            ("energy_balance_error", r.energy.balance_error.to_string()),
        ];
        Ok((cells, r.stats))
    }
}
