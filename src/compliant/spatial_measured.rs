//! The compliant spatial contact of [`super::spatial`] with what a run of a described system
//! reports (docs/described_systems.md, "Outputs"): the normal impulse ∫F_n dt and the work of
//! the contact and of the load, integrated with the motion to the same tolerance, and the
//! largest penetration, located as an extremum (δ̇ falling through 0).
//!
//! ODE state: the spatial formulation's `[q, q̇, τ, ê]`, then `[∫F_n dt, ∫λ·(J q̇) dt,
//! ∫F(τ)·q̇ dt]`. The formulation itself never reads the three quadratures, so its motion is
//! that of [`SpatialContactProblem`] under the longer state's error control.

use super::cone::ConeMode;
use super::record::ContactsSample;
use super::spatial::{
    contact_velocities, simulate_spatial_observed, RunSettings, SpatialContactProblem,
    SpatialEvent, SpatialFormulation, SpatialRun,
};
use crate::error::SimError;
use crate::hybrid::{Crossing, HybridSystem, Named, Observer};
use crate::model::{kinetic_energy, ContactSystem, Real, ValidityMargin};
use std::borrow::Cow;

/// An event of the measured formulation: one of the contact's, or the largest penetration
/// (an observer: it changes no mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeasuredEvent {
    Contact(SpatialEvent),
    MaxPenetration,
}

impl Named for MeasuredEvent {
    fn name(&self) -> &'static str {
        match self {
            MeasuredEvent::Contact(e) => e.name(),
            MeasuredEvent::MaxPenetration => "max_penetration",
        }
    }
}

/// [`SpatialContactProblem`] with its impulse, works and largest penetration measured.
pub struct MeasuredSpatialContact<'a, Sys, const N: usize, const D: usize> {
    pub problem: SpatialContactProblem<'a, Sys, N, D>,
}

/// What a measured run gives.
#[derive(Clone, Debug)]
pub struct MeasuredRun {
    pub run: SpatialRun<MeasuredEvent>,
    /// ∫F_n dt.
    pub impulse_normal: f64,
    /// The largest penetration (0 if the contact never closed).
    pub max_penetration: f64,
    /// (T + V)_end − (T + V)_start − (work of the contact and of the load): zero up to the
    /// integration error when the system's potential V holds all of its working body forces.
    pub energy_balance_error: f64,
    /// ∫λ·(J q̇) dt, the work of the contact's forces (elastic, dashpot and friction), and
    /// ∫F(τ)·q̇ dt, the work of the load.
    pub contact_work: f64,
    pub load_work: f64,
    /// The states at the start and end of each phase and of every accepted step, with the
    /// contact's forces (when [`MeasuredSpatialContact::simulate`] is asked for them; else empty).
    pub samples: Vec<ContactsSample>,
}

impl<'a, Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize>
    MeasuredSpatialContact<'a, Sys, N, D>
{
    /// The length of the spatial formulation's own state; the quadratures follow it.
    fn motion_len(&self) -> usize {
        self.problem.state_len()
    }

    /// The initial state of the spatial formulation, with the quadratures at 0.
    pub fn initial_state(&self, q0: &[f64; N], qdot0: &[f64; N]) -> Vec<f64> {
        let mut y = self.problem.initial_state(q0, qdot0);
        y.extend([0.0; 3]);
        y
    }

    /// T + V at `y`.
    fn mechanical_energy(&self, y: &[f64]) -> f64 {
        let q: [f64; N] = std::array::from_fn(|i| y[i]);
        let qdot: [f64; N] = std::array::from_fn(|i| y[N + i]);
        kinetic_energy(self.problem.system, &q, &qdot) + self.problem.system.potential_energy(&q)
    }

    /// Run from `(q0, q̇0)` to `settings.t_end`, or to the first `stop` transition (with the
    /// states of [`MeasuredRun::samples`] when `sample`).
    pub fn simulate(
        &self,
        q0: &[f64; N],
        qdot0: &[f64; N],
        settings: &RunSettings,
        stop: Option<fn(ConeMode, ConeMode) -> bool>,
        sample: bool,
    ) -> Result<MeasuredRun, SimError> {
        let compliance = &self.problem.compliance;
        super::normal::require_resolvable_kappa("kappa", compliance.kappa)?;
        super::normal::require_resolvable_damping("damping", compliance.damping)?;
        let y0 = self.initial_state(q0, qdot0);
        let mut observer = MeasuredObserver {
            max_penetration: 0.0,
            samples: sample.then(Vec::new),
        };
        let run = simulate_spatial_observed(self, &y0, settings, stop, &mut observer)?;
        let y = &run.trace.y_end;
        let n = self.motion_len();
        let energy_change = self.mechanical_energy(y) - self.mechanical_energy(&y0);
        Ok(MeasuredRun {
            impulse_normal: y[n],
            max_penetration: observer.max_penetration,
            energy_balance_error: energy_change - y[n + 1] - y[n + 2],
            contact_work: y[n + 1],
            load_work: y[n + 2],
            samples: observer.samples.unwrap_or_default(),
            run,
        })
    }
}

/// Records the largest penetration of a closed contact and, when asked, the states.
struct MeasuredObserver {
    max_penetration: f64,
    samples: Option<Vec<ContactsSample>>,
}

impl<Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize>
    Observer<MeasuredSpatialContact<'_, Sys, N, D>> for MeasuredObserver
{
    fn state(
        &mut self,
        sys: &MeasuredSpatialContact<'_, Sys, N, D>,
        t: f64,
        mode: ConeMode,
        y: &[f64],
    ) {
        self.extremum(sys, t, mode, MeasuredEvent::MaxPenetration, y);
        if let Some(samples) = &mut self.samples {
            let (forces, _) = sys.problem.contact_forces(mode, &y[..sys.motion_len()]);
            samples.push(ContactsSample {
                t,
                mode: mode.name(),
                q: y[..N].to_vec(),
                qdot: y[N..2 * N].to_vec(),
                normal_force: vec![forces[0]],
                tangential_force: forces[1..].to_vec(),
            });
        }
    }
    fn extremum(
        &mut self,
        sys: &MeasuredSpatialContact<'_, Sys, N, D>,
        _: f64,
        mode: ConeMode,
        _: MeasuredEvent,
        y: &[f64],
    ) {
        if mode.is_contact() {
            let (gap, _, _) = contact_velocities::<f64, Sys, N, D>(sys.problem.system, y);
            self.max_penetration = self.max_penetration.max(-gap);
        }
    }
}

impl<Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize> HybridSystem
    for MeasuredSpatialContact<'_, Sys, N, D>
{
    type Mode = ConeMode;
    type Event = MeasuredEvent;

    fn dim(&self) -> usize {
        self.motion_len() + 3
    }
    /// The spatial formulation's, and `atol` for the quadratures.
    fn absolute_tolerances(&self, atol: f64) -> Vec<f64> {
        let mut tolerances = self.problem.absolute_tolerances(atol);
        tolerances.extend([atol; 3]);
        tolerances
    }
    fn min_step(&self) -> f64 {
        self.problem.min_step()
    }
    fn initial_mode(&self, y: &[f64]) -> ConeMode {
        self.problem.initial_mode(&y[..self.motion_len()])
    }
    fn field<S: Real>(&self, mode: ConeMode, y: &[S], dy: &mut [S]) {
        let n = self.motion_len();
        let forces = self.problem.field_and_forces(mode, &y[..n], &mut dy[..n]);
        let (_, normal_rate, tangential) =
            contact_velocities::<S, Sys, N, D>(self.problem.system, y);
        let contact_power = (0..D).fold(forces[0] * normal_rate, |s, j| {
            s + forces[1 + j] * tangential[j]
        });
        let system = self.problem.system;
        let load_power = if system.is_autonomous() {
            S::zero()
        } else {
            let load = system.external_load(y[super::spatial::time_index(N)]);
            (0..N).fold(S::zero(), |s, i| s + load[i] * y[N + i])
        };
        dy[n] = forces[0];
        dy[n + 1] = contact_power;
        dy[n + 2] = load_power;
    }
    fn watched(&self, mode: ConeMode) -> Cow<'_, [(MeasuredEvent, Crossing)]> {
        let mut events: Vec<(MeasuredEvent, Crossing)> = self
            .problem
            .watched(mode)
            .iter()
            .map(|&(e, c)| (MeasuredEvent::Contact(e), c))
            .collect();
        if mode.is_contact() {
            events.push((MeasuredEvent::MaxPenetration, Crossing::Falling));
        }
        Cow::Owned(events)
    }
    fn is_switching(&self, event: MeasuredEvent) -> bool {
        matches!(event, MeasuredEvent::Contact(_))
    }
    fn event_value<S: Real>(&self, _mode: ConeMode, event: MeasuredEvent, y: &[S]) -> S {
        match event {
            MeasuredEvent::Contact(e) => self.problem.event_value(e, &y[..self.motion_len()]),
            // δ̇ = −(gap rate), falling through 0 at the deepest point.
            MeasuredEvent::MaxPenetration => {
                -contact_velocities::<S, Sys, N, D>(self.problem.system, y).1
            }
        }
    }
    fn transition(&self, mode: ConeMode, event: MeasuredEvent, y: &mut [f64]) -> ConeMode {
        let n = self.motion_len();
        match event {
            MeasuredEvent::Contact(e) => self.problem.next_mode(e, &mut y[..n]),
            // Not a switching event: the driver never asks.
            MeasuredEvent::MaxPenetration => mode,
        }
    }
    fn domain(&self) -> &[ValidityMargin] {
        self.problem.system.validity_margins()
    }
    fn domain_margin(&self, index: usize, y: &[f64]) -> f64 {
        let q: [f64; N] = std::array::from_fn(|i| y[i]);
        let qdot: [f64; N] = std::array::from_fn(|i| y[N + i]);
        self.problem.system.validity_margin(index, &q, &qdot)
    }
}

impl<Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize> SpatialFormulation
    for MeasuredSpatialContact<'_, Sys, N, D>
{
    fn event_delay(&self, event: MeasuredEvent, y: &[f64]) -> f64 {
        match event {
            MeasuredEvent::Contact(e) => self.problem.event_delay(e, &y[..self.motion_len()]),
            MeasuredEvent::MaxPenetration => 0.0,
        }
    }
}
