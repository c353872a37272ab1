//! Scenarios of the Painlevé rod on a compliant contact: parameters, their validation, the initial
//! state and the run.
//!
//! - [`RodImpact`]: Zhao–Liu's tangential impact, the rod put down at δ = δ̇ = 0, sliding with u0,
//!   at attitude (θ0, θ̇0); runs to separation.
//! - [`Scenario::Sustained`]: the same parameters in a consistent configuration (A > 0), started at
//!   the quasi-static penetration (normal acceleration zero), run for a fixed time: long stiff
//!   contact, where an implicit integrator can step over the contact's fast time scale.
//! - [`Scenario::Drop`]: the rod dropped from a height, run for a fixed time through every bounce.

use crate::compliant::coulomb::Coulomb;
use crate::compliant::normal::NormalCompliance;
use crate::compliant::record::RunRecord;
use crate::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use crate::error::{require_finite, require_positive, require_representable, SimError};
use crate::model::iwc::FastStart;
use crate::model::ProjectedDynamics;
use crate::models::rod::mechanics::Y_A;
use crate::models::rod::mechanics::{
    PainleveRod, SlideCoefficients, SlipCase, UNIFORM_GYRATION_SQ,
};
use serde::{Deserialize, Serialize};

/// Parameters of one rod impact (nondimensional).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RodImpact {
    /// Compliance κ (stiffness 1/κ), > 0.
    pub kappa: f64,
    /// Kinetic friction coefficient μ > 0.
    pub mu: f64,
    /// Static friction coefficient μ_s ≥ μ.
    pub mu_s: f64,
    /// Initial angle θ0 ∈ (0, π) between rod and ground.
    pub theta0: f64,
    /// Initial angular velocity θ̇0.
    pub omega0: f64,
    /// Initial tangential velocity u0 of the contact point.
    pub u0: f64,
    /// Dashpot coefficient c_d ≥ 0 (0: linear spring).
    pub damping: f64,
    /// Squared radius of gyration ρ = r²/l² > 0 (1/3: Zhao–Liu's uniform rod; left out of the
    /// JSON then, whose keys are frozen).
    #[serde(default = "uniform", skip_serializing_if = "is_uniform")]
    pub gyration_sq: f64,
    /// The fast start (Y0, V0): gap κY0 and normal velocity √κV0 at t = 0
    /// (docs/champneys_varkonyi.md §3); Zhao–Liu's δ = δ̇ = 0 is the default (left out of the
    /// JSON then).
    #[serde(default, skip_serializing_if = "is_rest")]
    pub start: FastStart,
}

fn is_rest(start: &FastStart) -> bool {
    *start == FastStart::REST
}

fn uniform() -> f64 {
    UNIFORM_GYRATION_SQ
}

fn is_uniform(gyration_sq: &f64) -> bool {
    *gyration_sq == UNIFORM_GYRATION_SQ
}

impl RodImpact {
    /// Zhao–Liu's example (μ = μ_s = 2, θ0 = 1.3, θ̇0 = 0, u0 = −1, linear spring) at `kappa`.
    pub fn zhao_liu(kappa: f64) -> Self {
        RodImpact {
            kappa,
            mu: 2.0,
            mu_s: 2.0,
            theta0: 1.3,
            omega0: 0.0,
            u0: -1.0,
            damping: 0.0,
            gyration_sq: UNIFORM_GYRATION_SQ,
            start: FastStart::REST,
        }
    }

    /// Zhao–Liu's uniform rod (μ_s = μ) put down sliding at δ = δ̇ = 0, at `kappa`.
    pub fn uniform(kappa: f64, mu: f64, theta0: f64, omega0: f64, u0: f64, damping: f64) -> Self {
        RodImpact {
            kappa,
            mu,
            mu_s: mu,
            theta0,
            omega0,
            u0,
            damping,
            gyration_sq: UNIFORM_GYRATION_SQ,
            start: FastStart::REST,
        }
    }

    /// The rod's body.
    pub fn body(&self) -> PainleveRod {
        PainleveRod::new(self.gyration_sq)
    }

    /// Check every parameter; `flag` maps a parameter name to the name the user typed
    /// (a CLI flag or a TOML key), so the error names what to fix.
    pub fn validate(&self, flag: impl Fn(&str) -> String) -> Result<(), SimError> {
        crate::compliant::normal::require_resolvable_kappa(&flag("kappa"), self.kappa)?;
        crate::compliant::normal::require_penetrating_less_than_the_body(
            &flag("kappa"),
            self.kappa,
        )?;
        require_positive(&flag("mu"), self.mu)?;
        require_representable(&flag("mu"), self.mu)?;
        require_representable(&flag("mu_s"), self.mu_s)?;
        if self.mu_s < self.mu {
            return Err(SimError::invalid(
                &flag("mu_s"),
                self.mu_s,
                &format!(
                    "the static coefficient must be >= the kinetic mu = {}",
                    self.mu
                ),
            ));
        }
        require_finite(&flag("theta0"), self.theta0)?;
        if !(self.theta0 > 0.0 && self.theta0 < std::f64::consts::PI) {
            return Err(SimError::invalid(
                &flag("theta0"),
                self.theta0,
                "must lie in (0, pi): the rod's lower end touches the ground",
            ));
        }
        for (key, value) in [("omega0", self.omega0), ("u0", self.u0)] {
            crate::compliant::normal::require_penetrating_speed(
                &flag(key),
                value,
                &flag("kappa"),
                self.kappa,
            )?;
        }
        crate::compliant::normal::require_resolvable_damping(&flag("damping"), self.damping)?;
        require_positive(&flag("gyration_sq"), self.gyration_sq)?;
        for (key, value) in [("Y0", self.start.gap), ("V0", self.start.normal_velocity)] {
            crate::compliant::normal::require_representable_start(
                &flag(key),
                value,
                &flag("kappa"),
                self.kappa,
            )?;
        }
        Ok(())
    }

    /// Zhao–Liu eq. (11) at the initial state, for slip in the direction of u0 (leftward when
    /// u0 ≤ 0; a rightward slide is the mirror image, μ → −μ).
    pub fn slide_coefficients(&self) -> SlideCoefficients {
        let mu = if self.u0 > 0.0 { -self.mu } else { self.mu };
        self.body().slide_coefficients(mu, self.theta0, self.omega0)
    }

    pub fn case(&self) -> SlipCase {
        SlipCase::of(&self.slide_coefficients())
    }

    pub fn compliance(&self) -> NormalCompliance {
        NormalCompliance::spring_dashpot(self.kappa, self.damping)
    }

    /// The cells of the contact parameters μ, μ_s, θ0, ω0, u0, c_d: the first input columns of
    /// every rod table (the κ sweep's and the fast studies').
    pub(crate) fn parameter_cells(&self) -> Vec<(&'static str, String)> {
        vec![
            ("mu", self.mu.to_string()),
            ("mu_s", self.mu_s.to_string()),
            ("theta0", self.theta0.to_string()),
            ("omega0", self.omega0.to_string()),
            ("u0", self.u0.to_string()),
            ("damping", self.damping.to_string()),
        ]
    }

    pub fn friction(&self) -> Coulomb {
        Coulomb {
            mu: self.mu,
            mu_s: self.mu_s,
        }
    }

    /// Initial generalised coordinates and velocities (x_A, y_A, θ): the gap κY0 and normal
    /// velocity √κV0 of the fast start (touching at rest, δ = δ̇ = 0, by default).
    pub fn initial_state(&self) -> ([f64; 3], [f64; 3]) {
        let (gap, v) = self.start.unscaled(self.kappa);
        ([0.0, gap, self.theta0], [self.u0, v, self.omega0])
    }

    /// Validate and simulate the impact (until separation).
    pub fn simulate(&self, options: &SimulationOptions) -> Result<RunRecord, SimError> {
        Scenario::Impact(*self).simulate(options)
    }
}

/// What a run starts from and how long it runs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Scenario {
    /// Zhao–Liu's tangential impact (δ = δ̇ = 0 at t = 0), until the contact opens.
    Impact(RodImpact),
    /// Started at the quasi-static penetration δ = κ F_n with δ̇ = 0, F_n the force that makes the
    /// normal acceleration zero in the initial mode (slip in the direction of u0, or stick when
    /// u0 = 0); run until `t_end`. Needs a pressing, consistent configuration.
    Sustained {
        #[serde(flatten)]
        rod: RodImpact,
        t_end: f64,
    },
    /// Dropped with its contact point at `height` above the ground (velocities u0, 0, θ̇0); run
    /// until `t_end` through every bounce.
    Drop {
        #[serde(flatten)]
        rod: RodImpact,
        height: f64,
        t_end: f64,
    },
}

impl Scenario {
    pub fn rod(&self) -> &RodImpact {
        match self {
            Scenario::Impact(rod)
            | Scenario::Sustained { rod, .. }
            | Scenario::Drop { rod, .. } => rod,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Scenario::Impact(_) => "impact",
            Scenario::Sustained { .. } => "sustained",
            Scenario::Drop { .. } => "drop",
        }
    }

    /// The end of the run: `t_end`, or `None` for an impact (separation, unless the options
    /// ask for a fixed time).
    pub fn end(&self) -> Option<EndCondition> {
        match self {
            Scenario::Impact(_) => None,
            Scenario::Sustained { t_end, .. } | Scenario::Drop { t_end, .. } => {
                Some(EndCondition::Time(*t_end))
            }
        }
    }

    /// Check every parameter and that the initial state is what the scenario claims; `flag` maps
    /// a parameter name to the name the user typed.
    pub fn validate(&self, flag: impl Fn(&str) -> String) -> Result<(), SimError> {
        self.rod().validate(&flag)?;
        match self {
            Scenario::Impact(_) => Ok(()),
            Scenario::Sustained { t_end, .. } => {
                require_positive(&flag("t_end"), *t_end)?;
                self.initial_state().map(|_| ()).map_err(|e| match e {
                    SimError::InvalidInput {
                        field,
                        value,
                        requirement,
                    } => SimError::InvalidInput {
                        field: flag(&field),
                        value,
                        requirement,
                    },
                    other => other,
                })
            }
            Scenario::Drop { height, t_end, .. } => {
                require_positive(&flag("t_end"), *t_end)?;
                require_positive(&flag("height"), *height)?;
                require_representable(&flag("height"), *height).map(|_| ())
            }
        }
    }

    /// Initial generalised coordinates and velocities (x_A, y_A, θ), or why there is none.
    pub fn initial_state(&self) -> Result<([f64; 3], [f64; 3]), SimError> {
        let rod = self.rod();
        let (mut q, qdot) = rod.initial_state();
        match self {
            Scenario::Impact(_) => {}
            Scenario::Sustained { .. } => {
                q[Y_A] = -rod.kappa * quasi_static_normal_force(rod, &q, &qdot)?;
            }
            Scenario::Drop { height, .. } => q[Y_A] = *height,
        }
        Ok((q, qdot))
    }

    /// Validate and simulate (to the scenario's end).
    pub fn simulate(&self, options: &SimulationOptions) -> Result<RunRecord, SimError> {
        self.validate(|name| name.to_string())?;
        let params = self.rod();
        let rod = params.body();
        let problem = ContactProblem {
            system: &rod,
            compliance: params.compliance(),
            friction: params.friction(),
        };
        let (q0, qdot0) = self.initial_state()?;
        match self.end() {
            Some(end) => {
                let mut options = options.clone();
                options.end = end;
                simulate(&problem, &q0, &qdot0, &options)
            }
            None => simulate(&problem, &q0, &qdot0, options),
        }
    }
}

/// The normal force that makes the normal acceleration zero at (q, q̇) with the contact closed:
/// `b + B λ_T + C λ_N = 0` (C–V eq. (3.3)) with λ_T = ∓μ λ_N in slip (direction of u), or the
/// stick force when u = 0. In slip the numerator and denominator are Zhao–Liu's B and A in the
/// direction of u (eq. (11)); the force must be that of a pressing (B < 0), consistent (A > 0)
/// start, and the error names the condition that fails and the parameter that sets it (in stick
/// the denominator C − B²/A is always positive: only the pressing condition can fail).
pub(crate) fn quasi_static_normal_force(
    rod: &RodImpact,
    q: &[f64; 3],
    qdot: &[f64; 3],
) -> Result<f64, SimError> {
    let p = ProjectedDynamics::at(&rod.body(), q, qdot);
    let (pressing, mobility) = if p.u != 0.0 {
        let slip = -p.u.signum() * rod.mu;
        (
            p.free_normal_accel,
            p.normal_mobility + slip * p.cross_mobility,
        )
    } else {
        (
            p.free_normal_accel
                - p.cross_mobility * p.free_tangential_accel / p.tangential_mobility,
            p.normal_mobility - p.cross_mobility * p.cross_mobility / p.tangential_mobility,
        )
    };
    // Written so that NaN fails too.
    let (pressed, consistent) = (pressing < 0.0, mobility > 0.0);
    if !pressed {
        let (condition, limit) = if p.u != 0.0 {
            (
                format!("Zhao–Liu B = θ̇0² sin θ0 − 1 < 0; here B = {pressing:.4}"),
                format!(
                    "lower |θ̇0| below 1/√(sin θ0) = {:.4}",
                    1.0 / rod.theta0.sin().sqrt()
                ),
            )
        } else {
            (
                format!("in stick the normal acceleration without contact force, b − B a/A (C–V eqs. (3.2)–(3.3) at u̇ = 0), < 0; here it is {pressing:.4}"),
                "lower |θ̇0|".to_string(),
            )
        };
        return Err(SimError::invalid(
            "omega0",
            rod.omega0,
            &format!("a sustained contact needs the rod pressed into the ground, {condition}: the rod lifts off; {limit}"),
        ));
    }
    if !consistent {
        let interval = match rod.body().painleve_theta_interval(rod.mu) {
            Some((lo, hi)) if rod.u0 < 0.0 => {
                format!(
                    "choose θ0 outside ({lo:.4}, {hi:.4}) for μ = {}, or a smaller μ",
                    rod.mu
                )
            }
            _ => "choose θ0 or μ with A > 0".to_string(),
        };
        return Err(SimError::invalid(
            "theta0",
            rod.theta0,
            &format!("a sustained slide needs consistent slip, Zhao–Liu A > 0; here A = {mobility:.4} (the Painlevé paradox): {interval}"),
        ));
    }
    let force = -pressing / mobility;
    if force.is_finite() {
        Ok(force)
    } else {
        Err(SimError::invalid(
            "omega0",
            rod.omega0,
            "the quasi-static normal force overflows; choose a smaller |θ̇0|",
        ))
    }
}
