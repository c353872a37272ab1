//! The rod's fast-time dynamics at a contact state ([`FastContact`]): what C–V's mode table
//! (`model = "rod"`, `analysis = "mode_table"`) and the lift-off/IWC basin (`analysis =
//! "liftoff_iwc_basin"`) run on. A state is a rod of the rod's parameter tables
//! ([`RodGrid`]: μ, μ_s, θ0, θ̇0, u0, c_d, gyration_sq, explicit `states`) with a fast start
//! (Y0, V0 or `starts`), in the harness's orientation: C–V's rod at (θ, θ̇, u0) is
//! θ0 = π − θ, ω0 = −θ̇, the same u0 (docs/champneys_varkonyi.md §6). Its projected data move
//! with its configuration, by O(√κ) per unit of fast time, so its scaled numbers converge at
//! rate √κ rather than being κ-independent.

use super::mechanics::{PainleveRod, THETA};
use super::scenario::RodImpact;
use super::sweep::{RodGrid, RodParams, RodSweep};
use super::Rod;
use crate::compliant::coulomb::Coulomb;
use crate::error::SimError;
use crate::experiment::grammar::LogGrid;
use crate::experiment::grid::ParameterGrid;
use crate::experiment::rows::Cells;
use crate::model::iwc::FastStart;
use crate::study::fast::FastContact;

impl FastContact<3> for Rod {
    const NAME: &'static str = "rod";
    const TITLE: &'static str = "the Painlevé rod with a radius of gyration";
    const DESCRIBE: &'static str = "Each state is a rod (gyration_sq = r²/l², μ = μ_s, θ0, ω0, \
         u0) in the harness's orientation (C–V's θ is π − θ0, their θ̇ is −ω0; u0 is the same); \
         a, b, A, B, C are its projected scalars. The contact law is λ_N = max(δ/κ + c_d δ̇/√κ, \
         0). Unlike the planar system's, the rod's projected data move with its configuration \
         (by O(√κ) per unit of s), so its scaled numbers converge at rate √κ instead of being \
         κ-independent.";
    const STATE_COLUMNS: &'static [&'static str] = &[
        "mu",
        "mu_s",
        "theta0",
        "omega0",
        "u0",
        "damping",
        "gyration_sq",
    ];
    const SCALARS_ARE_INPUTS: bool = false;
    const ROTATION: Option<usize> = Some(THETA);
    type Params = RodParams;
    type Sweep = RodSweep;
    type State = RodImpact;
    type Body = PainleveRod;

    fn kappa(sweep: &RodSweep) -> &LogGrid {
        &sweep.kappa
    }

    fn validate(params: &RodParams, sweep: &RodSweep) -> Result<(), SimError> {
        let grid = RodGrid::new(params, sweep);
        grid.validate_sources()?;
        grid.first_invalid(&grid.configurations())
    }

    fn grid_size(params: &RodParams, sweep: &RodSweep) -> u128 {
        RodGrid::new(params, sweep).size()
    }

    fn states(params: &RodParams, sweep: &RodSweep) -> Vec<(RodImpact, usize)> {
        let kept = RodGrid::new(params, sweep).configurations().kept;
        kept.into_iter().map(|rod| (rod, 0)).collect()
    }

    fn state_key(sweep: &RodSweep, _index: usize) -> String {
        if sweep.states.is_some() {
            "sweep.states".to_string()
        } else {
            "params".to_string()
        }
    }

    fn state_cells(c: &RodImpact) -> Cells {
        let mut cells = c.parameter_cells();
        cells.push(("gyration_sq", c.gyration_sq.to_string()));
        cells
    }

    fn start(c: &RodImpact) -> FastStart {
        c.start
    }

    fn with_start(c: &RodImpact, start: FastStart) -> RodImpact {
        RodImpact { start, ..*c }
    }

    fn body(c: &RodImpact) -> PainleveRod {
        c.body()
    }

    /// Touching (δ = 0) with δ̇ = 0.
    fn contact_state(c: &RodImpact) -> ([f64; 3], [f64; 3]) {
        RodImpact {
            start: FastStart::REST,
            ..*c
        }
        .initial_state()
    }

    fn initial_state(c: &RodImpact, kappa: f64) -> ([f64; 3], [f64; 3]) {
        RodImpact { kappa, ..*c }.initial_state()
    }

    fn friction(c: &RodImpact) -> Coulomb {
        c.friction()
    }

    fn damping(c: &RodImpact) -> f64 {
        c.damping
    }
}
