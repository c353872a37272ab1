//! The tangential-impact scenario of Zhao–Liu: the Painlevé rod put down at δ = δ̇ = 0, sliding
//! with u0, at attitude (θ0, θ̇0), on a compliant contact. Parameters, their validation, and the
//! run.

use crate::contact::NormalCompliance;
use crate::error::{require_finite, require_non_negative, require_positive, SimError};
use crate::friction::Coulomb;
use crate::hybrid::{simulate, ContactProblem, SimulationOptions};
use crate::model::rod::{PainleveRod, SlideCoefficients, SlipCase};
use crate::record::RunRecord;
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
        }
    }

    /// Check every parameter; `flag` maps a parameter name to the name the user typed
    /// (a CLI flag or a TOML key), so the error names what to fix.
    pub fn validate(&self, flag: impl Fn(&str) -> String) -> Result<(), SimError> {
        require_positive(&flag("kappa"), self.kappa)?;
        require_positive(&flag("mu"), self.mu)?;
        require_finite(&flag("mu_s"), self.mu_s)?;
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
        require_finite(&flag("omega0"), self.omega0)?;
        require_finite(&flag("u0"), self.u0)?;
        require_non_negative(&flag("damping"), self.damping)?;
        Ok(())
    }

    /// Zhao–Liu eq. (11) at the initial state, for slip in the direction of u0 (leftward when
    /// u0 ≤ 0; a rightward slide is the mirror image, μ → −μ).
    pub fn slide_coefficients(&self) -> SlideCoefficients {
        let mu = if self.u0 > 0.0 { -self.mu } else { self.mu };
        SlideCoefficients::new(mu, self.theta0, self.omega0)
    }

    pub fn case(&self) -> SlipCase {
        SlipCase::of(&self.slide_coefficients())
    }

    pub fn compliance(&self) -> NormalCompliance {
        NormalCompliance::spring_dashpot(self.kappa, self.damping)
    }

    pub fn friction(&self) -> Coulomb {
        Coulomb {
            mu: self.mu,
            mu_s: self.mu_s,
        }
    }

    /// Initial generalised coordinates and velocities (x_A, y_A, θ): touching, δ = δ̇ = 0.
    pub fn initial_state(&self) -> ([f64; 3], [f64; 3]) {
        ([0.0, 0.0, self.theta0], [self.u0, 0.0, self.omega0])
    }

    /// Validate and simulate.
    pub fn simulate(&self, options: &SimulationOptions) -> Result<RunRecord, SimError> {
        self.validate(|name| name.to_string())?;
        let rod = PainleveRod;
        let problem = ContactProblem {
            system: &rod,
            compliance: self.compliance(),
            friction: self.friction(),
        };
        let (q0, qdot0) = self.initial_state();
        simulate(&problem, &q0, &qdot0, options)
    }
}
