//! The 3D rod's dynamic jam as a system of the convergence study (`model = "rod3d_jam"`): the
//! rod (ρ = r_g²/l²) slides obliquely, at angle Δ₀ = φ − ψ to its vertical plane, from a
//! consistent pressing state (p > 0, b < 0) whose rigid slip crosses p = 0 transversally with
//! b < 0 at t* ([`super::jam`]; C–V §7.2). The compliant rod, started at the quasi-static
//! penetration δ = κλ_N (λ_N = −b/p), runs to separation (or `t_max`) on the spatial Coulomb
//! cone ([`crate::compliant::spatial_measured`]); the rigid reference is the slip up to t*.
//!
//! ```toml
//! name = "rod3d_jam"
//! model = "rod3d_jam"
//! [params]
//! mu = 1.0
//! gyration_sq = 0.01  # C–V Fig. 3Drod: r_g = 0.1 l
//! theta0 = 1.0
//! slip_angle0 = 1.0   # Δ₀ = φ − ψ at the start
//! speed0 = 3.0        # |u| of the contact point
//! omega0 = 0.2        # θ̇
//! psi_rate0 = -0.1    # ψ̇
//! damping = 0.0       # c_d
//! [sweep]
//! kappa = { min = 1e-10, max = 1e-5, per_decade = 2 }
//! [solver]
//! integrators = ["tsit45"]
//! rtol = 1e-10
//! atol = 1e-12
//! t_max = 1.0
//! ```
//!
//! Near t*, p ∝ (t* − t)^{1/2} ([`super::painleve`]); the normal frequency √(p/κ) stops
//! following the quasi-static force once √(p/κ)·(t* − t) ~ 1, i.e. t* − t ~ κ^{2/5}, where
//! λ_N ~ κ^{−1/5}: the compliant slip's end should approach t* like κ^{2/5} if what follows is
//! as short (docs/champneys_varkonyi.md, "The 3D rod").

use super::jam::{check_slip_start, rigid_slip, RigidSlip, SlipEnd, SlipState};
use super::mechanics::{SpatialRod, PSI, THETA};
use super::painleve::{
    crossing_rate, painleve_half_width, painleve_mu, painleve_parameter, projection,
};
use crate::compliant::cone::ConeMode;
use crate::compliant::normal::NormalCompliance;
use crate::compliant::spatial::{
    contact_velocities, RunSettings as SpatialSettings, SpatialContactProblem,
};
use crate::compliant::spatial_measured::{MeasuredRun, MeasuredSpatialContact};
use crate::error::{require_finite, require_non_negative, require_positive, SimError};
use crate::experiment::grammar::LogGrid;
use crate::experiment::system::{Method, Quantity, RunSettings, System};
use crate::integrate::{SolverStats, Tolerances};
use crate::report::table::{Cell, Table};
use serde::{Deserialize, Serialize};

/// The 3D rod's dynamic jam as a system of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rod3dJam;

/// `[params]` (the input columns of runs.csv, in this order).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Coulomb coefficient μ (static = kinetic).
    pub mu: f64,
    /// ρ = r_g²/l² (1/3: the uniform rod; C–V's Fig. 3Drod: 0.01).
    pub gyration_sq: f64,
    pub theta0: f64,
    /// Δ₀ = φ − ψ: the slip direction's angle to the rod's vertical plane.
    pub slip_angle0: f64,
    /// Slip speed |u| of the contact point.
    pub speed0: f64,
    /// θ̇ and ψ̇ at the start.
    pub omega0: f64,
    pub psi_rate0: f64,
    /// Dashpot c_d ≥ 0 (default 0: linear spring).
    #[serde(default)]
    pub damping: f64,
}

impl Params {
    fn rod(&self) -> SpatialRod {
        SpatialRod {
            gyration_sq: self.gyration_sq,
        }
    }

    /// The start with the end A at penetration δ, ψ = 0.
    fn start(&self, delta: f64) -> ([f64; 5], [f64; 5]) {
        let (s, c) = self.slip_angle0.sin_cos();
        self.rod().state_with_contact_point(
            delta,
            (self.theta0, 0.0),
            (self.omega0, self.psi_rate0),
            [self.speed0 * c, self.speed0 * s],
            0.0,
        )
    }

    /// p and b at the start (closed forms).
    fn start_p_b(&self) -> (f64, f64) {
        let pr = projection(
            self.gyration_sq,
            self.theta0,
            0.0,
            self.omega0,
            self.psi_rate0,
        );
        (
            painleve_parameter(self.gyration_sq, self.mu, self.theta0, self.slip_angle0),
            pr.b,
        )
    }
}

/// What one run measures: runs.csv's columns from `mode_sequence` on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Measures {
    /// The modes in time order, joined by `>` (rigid: `slide>` and how the slip ends, `jam`).
    pub mode_sequence: String,
    /// The end of the first slip phase (rigid: t*).
    pub t_slip_end: Option<f64>,
    /// The rigid slip's end t* (every row: the limit of `t_slip_end`).
    pub t_slip_end_rigid: f64,
    /// At the end of the first slip phase: ∫F_n dt, the slip angle Δ, p of that direction, the
    /// slip speed (rigid: at t*).
    pub slip_normal_impulse: Option<f64>,
    pub slip_angle_end: Option<f64>,
    pub p_end: Option<f64>,
    pub speed_end: Option<f64>,
    /// The rigid slip at t*: Δ*, b*, |u|*, the crossing rate dp/ds (measured) and its closed form.
    pub slip_angle_rigid: f64,
    pub b_rigid: f64,
    pub speed_rigid: f64,
    pub crossing_rate_rigid: f64,
    pub crossing_rate_closed_form: f64,
    pub peak_normal_force: Option<f64>,
    /// ∫F_n dt to separation (or to t_max).
    pub impulse_normal: Option<f64>,
    pub separated: Option<bool>,
    pub t_end: Option<f64>,
    /// At the end of the run: the contact point's normal velocity v and slip speed |u|, θ̇, ψ̇.
    pub v_out: Option<f64>,
    pub speed_out: Option<f64>,
    pub omega_out: Option<f64>,
    pub psi_rate_out: Option<f64>,
    pub energy_balance_error: Option<f64>,
}

fn rigid(p: &Params, t_max: f64) -> Result<RigidSlip, SimError> {
    let (q, qdot) = p.start(0.0);
    rigid_slip(&p.rod(), p.mu, &q, &qdot, t_max)
}

/// The time limit of the runs (`[solver] t_max`, default 1).
fn t_max(settings: &RunSettings) -> f64 {
    settings.t_max.unwrap_or(1.0)
}

/// The compliant run of `p` at `kappa` from the quasi-static penetration δ = κ(−b/p) to the
/// contact's opening (or `t_max`), every step sampled; and the length of the formulation's
/// motion state (the normal impulse follows it in each phase's state).
fn compliant_run(
    p: &Params,
    rod: &SpatialRod,
    kappa: f64,
    settings: &RunSettings,
) -> Result<(MeasuredRun, usize), SimError> {
    let (p0, b0) = p.start_p_b();
    let (q0, qdot0) = p.start(kappa * (-b0 / p0));
    let problem = MeasuredSpatialContact {
        problem: SpatialContactProblem {
            system: rod,
            compliance: NormalCompliance::spring_dashpot(kappa, p.damping),
            mu: p.mu,
        },
    };
    let run = problem.simulate(
        &q0,
        &qdot0,
        &spatial_settings(settings),
        Some(|_, to| to == ConeMode::Free),
        true,
    )?;
    Ok((run, problem.problem.state_len()))
}

fn spatial_settings(settings: &RunSettings) -> SpatialSettings {
    SpatialSettings {
        integrator: settings.integrator,
        tolerances: Tolerances {
            rtol: settings.rtol,
            atol: settings.atol,
        },
        t_end: t_max(settings),
        output_times: Vec::new(),
        max_steps: settings
            .max_steps
            .unwrap_or(crate::compliant::DEFAULT_MAX_STEPS),
        max_events: settings
            .max_events
            .unwrap_or(crate::compliant::DEFAULT_MAX_EVENTS),
    }
}

/// Slip angle Δ = φ − ψ, slip speed and p of the state `y` of the spatial formulation.
fn slip_of(p: &Params, rod: &SpatialRod, y: &[f64]) -> (f64, f64, f64) {
    let (_, _, u) = contact_velocities::<f64, SpatialRod, 5, 2>(rod, y);
    let rel = u[1].atan2(u[0]) - y[PSI];
    let angle = rel.sin().atan2(rel.cos());
    (
        angle,
        u[0].hypot(u[1]),
        painleve_parameter(p.gyration_sq, p.mu, y[THETA], angle),
    )
}

impl System for Rod3dJam {
    const NAME: &'static str = "rod3d_jam";
    const ABOUT: &'static str =
        "the slender rod in 3D slipping obliquely into a dynamic jam away from the G-spot \
         (Champneys–Várkonyi §7): the compliant jam as κ → 0 against the rigid slip";
    const EXAMPLE: &'static str = include_str!("../../../experiments/rod3d_jam.toml");
    const TITLE: &'static str = "the 3D rod slipping into a dynamic jam away from the G-spot";
    const SOLVER_KEYS: &'static [&'static str] = &["t_max", "max_steps", "max_events"];
    const RIGID: bool = true;
    type Config = Params;
    type Record = Measures;

    fn validate(p: &Params, kappa: Option<&LogGrid>) -> Result<(), SimError> {
        require_positive("params.mu", p.mu)?;
        require_positive("params.gyration_sq", p.gyration_sq)?;
        require_non_negative("params.damping", p.damping)?;
        for (key, value) in [
            ("params.slip_angle0", p.slip_angle0),
            ("params.omega0", p.omega0),
            ("params.psi_rate0", p.psi_rate0),
        ] {
            require_finite(key, value)?;
        }
        require_positive("params.speed0", p.speed0)?;
        if !(p.theta0 > 0.0 && p.theta0 < std::f64::consts::FRAC_PI_2) {
            return Err(SimError::invalid(
                "params.theta0",
                p.theta0,
                "the rod leans on its end: give 0 < theta0 < π/2",
            ));
        }
        if let Some(kappa) = kappa {
            require_positive("sweep.kappa.max", kappa.max)?;
        }
        // The start only: the rigid slip itself runs with each point.
        let (q, qdot) = p.start(0.0);
        check_slip_start(&p.rod(), p.mu, &q, &qdot)
    }

    fn run(
        p: &Params,
        method: Method,
        settings: &RunSettings,
    ) -> Result<(Measures, SolverStats), SimError> {
        let reference = rigid(p, t_max(settings))?;
        let l = reference.last;
        let mut m = Measures {
            t_slip_end_rigid: l.t,
            slip_angle_rigid: l.slip_angle,
            b_rigid: l.b,
            speed_rigid: l.speed,
            crossing_rate_rigid: reference.dp_ds,
            crossing_rate_closed_form: crossing_rate(
                p.gyration_sq,
                p.mu,
                l.theta,
                l.slip_angle,
                l.b,
                l.speed,
            ),
            ..Measures::default()
        };
        let Method::Compliant { kappa } = method else {
            let end = match reference.end {
                SlipEnd::Jam => "jam",
                SlipEnd::LiftOff => "free",
                SlipEnd::Stick => "stick",
                SlipEnd::Slipping => "slide",
            };
            m.mode_sequence = format!("slide>{end}");
            m.t_slip_end = Some(l.t);
            m.slip_normal_impulse = Some(l.normal_impulse);
            m.slip_angle_end = Some(l.slip_angle);
            m.p_end = Some(l.p);
            m.speed_end = Some(l.speed);
            return Ok((m, SolverStats::default()));
        };
        let rod = p.rod();
        let (r, n) = compliant_run(p, &rod, kappa, settings)?;
        let phases = &r.run.trace.phases;
        let slip = phases.first().filter(|ph| ph.mode == ConeMode::Slide);
        m.mode_sequence = phases
            .iter()
            .map(|ph| ph.mode.name())
            .collect::<Vec<_>>()
            .join(">");
        if let Some(ph) = slip {
            let (angle, speed, pe) = slip_of(p, &rod, &ph.y_end);
            m.t_slip_end = Some(ph.t_start + ph.duration);
            m.slip_normal_impulse = Some(ph.y_end[n]);
            m.slip_angle_end = Some(angle);
            m.p_end = Some(pe);
            m.speed_end = Some(speed);
        }
        m.peak_normal_force = r
            .samples
            .iter()
            .map(|s| s.normal_force[0])
            .fold(None, |a: Option<f64>, f| Some(a.map_or(f, |a| a.max(f))));
        let y = &r.run.trace.y_end;
        let (_, v, _) = contact_velocities::<f64, SpatialRod, 5, 2>(&rod, y);
        m.impulse_normal = Some(r.impulse_normal);
        m.separated = Some(r.run.trace.mode_end == ConeMode::Free);
        m.t_end = Some(r.run.trace.t_end);
        m.v_out = Some(v);
        m.speed_out = Some(slip_of(p, &rod, y).1);
        m.omega_out = Some(y[5 + THETA]);
        m.psi_rate_out = Some(y[5 + PSI]);
        m.energy_balance_error = Some(r.energy_balance_error);
        Ok((m, r.run.trace.stats))
    }

    /// The slip's end against t*; the outcome after the jam (∫F_n, v_out, θ̇_out), which the
    /// rigid slip does not determine, extrapolated to κ → 0 per law.
    fn quantities(_: &Params) -> Vec<Quantity> {
        let outcome = |column, symbol| Quantity {
            column,
            component: None,
            symbol,
            closed_form: None,
            rigid_limit: None,
            exponent: None,
            ..Quantity::default()
        };
        vec![
            Quantity {
                column: "t_slip_end",
                component: None,
                symbol: "t_slip",
                closed_form: None,
                rigid_limit: Some("t_slip_end_rigid"),
                exponent: Some(0.4),
                ..Quantity::default()
            },
            outcome("impulse_normal", "∫F_n"),
            outcome("v_out", "v_out"),
            outcome("omega_out", "θ̇_out"),
        ]
    }

    fn diagnostics() -> &'static [(&'static str, &'static str)] {
        &[
            ("peak_normal_force", "peak normal force"),
            ("p_end", "p at the slip's end"),
            ("energy_balance_error", "energy balance error"),
        ]
    }

    /// rigid_paths.csv: the rigid slip from the fan of starts of [`figure_starts`] (C–V Fig.
    /// 3Drod, right panel); compliant_path.csv: the compliant run at the ladder's power of ten
    /// nearest its middle (sampled at every step), for the figures.
    fn side_tables(
        p: &Params,
        _: &[Params],
        kappa: &[f64],
        settings: &RunSettings,
    ) -> Vec<(&'static str, String)> {
        let mut tables = Vec::new();
        let mut paths = Table::new([
            "start",
            "t",
            "theta",
            "slip_angle",
            "speed",
            "p",
            "b",
            "normal_impulse",
        ]);
        for (i, start) in figure_starts(p).iter().enumerate() {
            if let Ok(r) = rigid(start, t_max(settings)) {
                for s in &r.path {
                    paths.push(path_row(i, s));
                }
            }
        }
        tables.push(("rigid_paths.csv", paths.to_csv()));
        let middle = kappa.get(kappa.len() / 2).map_or(0.0, |k| k.log10());
        let decade = kappa
            .iter()
            .filter(|k| (k.log10() - k.log10().round()).abs() < 1e-9)
            .min_by(|a, b| {
                (a.log10() - middle)
                    .abs()
                    .total_cmp(&(b.log10() - middle).abs())
            });
        if let Some(&k) = decade {
            if let Ok(text) = compliant_path(p, k, settings) {
                tables.push(("compliant_path.csv", text));
            }
        }
        tables
    }

    fn describe(p: &Params) -> String {
        let (p0, b0) = p.start_p_b();
        let mut text = format!(
            "Rod with ρ = r_g²/l² = {} (k = {}), μ = {}; start θ0 = {}, Δ0 = φ − ψ = {}, |u0| = {}, θ̇0 = {}, ψ̇0 = {}: p = {:.6}, b = {:.6}; μ_P(θ0) = {:.6}",
            p.gyration_sq,
            1.0 / p.gyration_sq,
            p.mu,
            p.theta0,
            p.slip_angle0,
            p.speed0,
            p.omega0,
            p.psi_rate0,
            p0,
            b0,
            painleve_mu(p.gyration_sq, p.theta0)
        );
        if let Some(w) = painleve_half_width(p.gyration_sq, p.mu, p.theta0) {
            text += &format!(", Painlevé for |φ − ψ| < φ_max = {w:.6}");
        }
        text + &format!(
            "; compliant: c_d = {} at the quasi-static penetration",
            p.damping
        )
    }
}

/// One row of rigid_paths.csv.
fn path_row(start: usize, s: &SlipState) -> Vec<Cell> {
    let mut row = vec![Cell::from(start)];
    row.extend(
        [
            s.t,
            s.theta,
            s.slip_angle,
            s.speed,
            s.p,
            s.b,
            s.normal_impulse,
        ]
        .map(Cell::from),
    );
    row
}

/// The starts of the figure's rigid paths: the configured one and slip angles and angles
/// around it (C–V Fig. 3Drod's right panel shows several; its starts are not given).
pub fn figure_starts(p: &Params) -> Vec<Params> {
    let mut starts = vec![*p];
    for (dtheta, dangle) in [
        (0.0, 0.3),
        (0.0, -0.3),
        (-0.15, 0.2),
        (0.15, 0.2),
        (0.0, -2.0 * p.slip_angle0),
    ] {
        starts.push(Params {
            theta0: p.theta0 + dtheta,
            slip_angle0: p.slip_angle0 + dangle,
            ..*p
        });
    }
    starts
}

/// The compliant run of `p` at `kappa`, sampled at every step: t, mode, θ, Δ, |u|, p, F_n.
fn compliant_path(p: &Params, kappa: f64, settings: &RunSettings) -> Result<String, SimError> {
    let rod = p.rod();
    let (r, _) = compliant_run(p, &rod, kappa, settings)?;
    let mut table = Table::new([
        "kappa",
        "t",
        "mode",
        "theta",
        "slip_angle",
        "speed",
        "p",
        "normal_force",
    ]);
    for s in &r.samples {
        let mut y = s.q.clone();
        y.extend(&s.qdot);
        let (angle, speed, pe) = slip_of(p, &rod, &y);
        table.push([
            Cell::from(kappa),
            Cell::from(s.t),
            Cell::Text(s.mode.to_string()),
            Cell::from(s.q[THETA]),
            Cell::from(angle),
            Cell::from(speed),
            Cell::from(pe),
            Cell::from(s.normal_force[0]),
        ]);
    }
    Ok(table.to_csv())
}
