//! The lift-off/IWC basin (`analysis = "liftoff_iwc_basin"`) of any [`FastContact`] system:
//! for a state whose slip is a Painlevé saddle (p_σ < 0, docs/champneys_varkonyi.md §4), the
//! boundary between fast starts (Y0, V0) that lift off and those that end in an IWC, found by
//! bisection of compliant runs along three lines of the (Y0, V0) plane ([`BasinLine`]), against
//! the saddle's stable manifold V = λ_s (Y − b/p) in closed form. Each state and line is one
//! point, bisected at each κ; the report fits the offsets' rate in κ
//! ([`crate::analysis::basin`], [`crate::report::basin`]). For a system with constant data the
//! fast dynamics are linear and the boundary is the closed form at every κ; for one whose data
//! move with its configuration (the rod, by O(√κ) per unit of fast time) it approaches the
//! frozen state's manifold.

use super::plan::{FastPlan, FastStudy};
use super::run::FastRun;
use super::{fast_starts_given, projection, window, FastContact};
use crate::error::SimError;
use crate::experiment::grammar::SolverSpec;
use crate::experiment::rows::Cells;
use crate::experiment::runner::RunError;
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::model::consistency::Outcome;
use crate::model::iwc::{FastStart, SlipSaddle};
use crate::model::ProjectedDynamics;
use crate::report::basin::BasinStudy;
use serde::Serialize;
use std::marker::PhantomData;
use std::path::Path;

/// The lift-off/IWC basin of system `S` (with `N` coordinates): a [`FastStudy`], run as
/// `FastPlan<Basin<S, N>, N>`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Basin<S, const N: usize>(PhantomData<S>);

/// One bisection: a state and a line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BasinPoint<State> {
    pub state: State,
    pub line: BasinLine,
}

/// The one analysis of a basin table (`analysis = "liftoff_iwc_basin"`).
#[derive(Clone, Copy, Debug, serde::Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BasinAnalysis {
    LiftoffIwcBasin,
}

/// A basin experiment takes no fast starts: the bisection chooses them. `y0_v0_given` says
/// whether Y0, V0 or `starts` appear anywhere.
pub(crate) fn refuse_starts(y0_v0_given: bool) -> Result<(), SimError> {
    if y0_v0_given {
        return Err(SimError::invalid(
            "sweep.starts",
            "given",
            "the basin bisects the fast start itself along V0 = 0, Y0 = 0 and Y0 = 2b/p: leave Y0, V0 and starts out",
        ));
    }
    Ok(())
}

/// A line of the (Y0, V0) plane along which the boundary is bisected, parametrised by the free
/// coordinate t.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum BasinLine {
    /// V0 = 0, t = Y0.
    RestingDepth,
    /// Y0 = 0, t = V0.
    SurfaceVelocity,
    /// Y0 = 2b/p (twice the saddle's depth), t = V0.
    TwiceSaddleVelocity,
}

impl BasinLine {
    pub const ALL: [BasinLine; 3] = [
        BasinLine::RestingDepth,
        BasinLine::SurfaceVelocity,
        BasinLine::TwiceSaddleVelocity,
    ];

    /// The line as written in tables: `V0=0`, `Y0=0`, `Y0=2b/p`.
    pub fn name(self) -> &'static str {
        match self {
            BasinLine::RestingDepth => "V0=0",
            BasinLine::SurfaceVelocity => "Y0=0",
            BasinLine::TwiceSaddleVelocity => "Y0=2b/p",
        }
    }

    /// The fast start at parameter `t` on this line.
    pub fn start(self, saddle: &SlipSaddle, t: f64) -> FastStart {
        let (gap, normal_velocity) = match self {
            BasinLine::RestingDepth => (t, 0.0),
            BasinLine::SurfaceVelocity => (0.0, t),
            BasinLine::TwiceSaddleVelocity => (2.0 * saddle.equilibrium_gap, t),
        };
        FastStart {
            gap,
            normal_velocity,
        }
    }

    /// Where the stable manifold V = λ_s (Y − Y*) crosses the line.
    pub fn closed_form(self, saddle: &SlipSaddle) -> f64 {
        match self {
            BasinLine::RestingDepth => saddle.equilibrium_gap,
            BasinLine::SurfaceVelocity | BasinLine::TwiceSaddleVelocity => {
                saddle.stable_manifold_velocity(self.start(saddle, 0.0).gap)
            }
        }
    }
}

/// The saddle of the slip in the direction of `pd.u` with damping `c_d`, or why there is none.
pub(crate) fn saddle_of<const N: usize>(
    pd: &ProjectedDynamics<f64, N>,
    mu: f64,
    damping: f64,
) -> Result<SlipSaddle, String> {
    if pd.u == 0.0 {
        return Err("u0 = 0: no slip, no saddle".into());
    }
    let p = pd.painleve_parameter(mu, pd.u.signum());
    SlipSaddle::new(p, pd.free_normal_accel, damping).ok_or_else(|| {
        format!("the slip is normally stable (p = {p} >= 0): no lift-off/IWC boundary")
    })
}

/// The measured columns of a basin table after C–V's scalars: the saddle and its closed form
/// ([`derived_cells`]), then the bisection ([`boundary_cells`]).
pub const MEASURES: &[&str] = &[
    "painleve_parameter",
    "stable_rate",
    "saddle_gap",
    "closed_form",
    "boundary",
    "offset",
    "bracket_width",
    "side_below",
    "side_above",
    "n_runs",
];

/// The cells of the saddle and its closed-form crossing of `line`.
pub fn derived_cells(saddle: &Result<SlipSaddle, String>, line: BasinLine) -> Cells {
    match saddle {
        Ok(s) => vec![
            ("painleve_parameter", s.painleve_parameter.to_string()),
            ("stable_rate", s.stable_rate.to_string()),
            ("saddle_gap", s.equilibrium_gap.to_string()),
            ("closed_form", line.closed_form(s).to_string()),
        ],
        Err(_) => Vec::new(),
    }
}

/// The bisection's result.
#[derive(Clone, Debug)]
pub struct Boundary {
    pub t: f64,
    pub width: f64,
    /// The sides at the lower and upper end of the final bracket.
    pub below: Outcome,
    pub above: Outcome,
    pub runs: usize,
    pub stats: SolverStats,
}

/// Bisect the F/IWC boundary on `line` to a bracket of width `tolerance`, starting from the
/// closed form ± 1 (widened up to ± 64 until the two ends lie on different sides). `side`
/// runs one start.
pub(crate) fn bisect(
    saddle: &SlipSaddle,
    line: BasinLine,
    tolerance: f64,
    mut side: impl FnMut(FastStart) -> Result<(Outcome, SolverStats), String>,
) -> Result<Boundary, String> {
    let mut stats = SolverStats::default();
    let mut runs = 0;
    let mut at = |t: f64| -> Result<Outcome, String> {
        let (o, s) = side(line.start(saddle, t))?;
        stats.add(&s);
        runs += 1;
        Ok(o)
    };
    let centre = line.closed_form(saddle);
    let mut half = 1.0;
    let (mut lo, mut hi) = (centre - half, centre + half);
    let (mut side_lo, mut side_hi) = (at(lo)?, at(hi)?);
    while side_lo == side_hi {
        half *= 2.0;
        if half > 64.0 {
            return Err(format!(
                "no lift-off/IWC boundary on {} within {centre} ± 64 (both sides {})",
                line.name(),
                side_lo.symbol()
            ));
        }
        (lo, hi) = (centre - half, centre + half);
        (side_lo, side_hi) = (at(lo)?, at(hi)?);
    }
    let edge = refine_edge((lo, side_lo), (hi, side_hi), tolerance, &mut at)?;
    Ok(Boundary {
        t: edge.t,
        width: edge.width,
        below: edge.below,
        above: edge.above,
        runs,
        stats,
    })
}

/// An edge between two outcomes on a line, bracketed to `width` (any outcome type: the
/// single contact's [`Outcome`] by default, the two contacts' IF/FI elsewhere).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Edge<O = Outcome> {
    /// The bracket's midpoint.
    pub t: f64,
    pub width: f64,
    /// The outcomes at the lower and upper end of the bracket.
    pub below: O,
    pub above: O,
}

/// Halve the bracket `[lo, hi]` (outcomes `side_lo` ≠ `side_hi`) until it is narrower than
/// `tolerance`, keeping the lower end's outcome below: the edge of the lower end's outcome.
/// `at` runs one start. When a third outcome appears inside, the bracket follows the edge of
/// the lower end's outcome.
pub fn refine_edge<O: Copy + PartialEq>(
    (mut lo, side_lo): (f64, O),
    (mut hi, mut side_hi): (f64, O),
    tolerance: f64,
    at: &mut impl FnMut(f64) -> Result<O, String>,
) -> Result<Edge<O>, String> {
    while hi - lo > tolerance {
        let mid = 0.5 * (lo + hi);
        let s = at(mid)?;
        if s == side_lo {
            lo = mid;
        } else {
            hi = mid;
            side_hi = s;
        }
    }
    Ok(Edge {
        t: 0.5 * (lo + hi),
        width: hi - lo,
        below: side_lo,
        above: side_hi,
    })
}

/// The outcomes at the scan points `values` (increasing) and every edge between neighbours
/// with different outcomes, refined by [`refine_edge`]. Bands narrower than the scan's spacing
/// may be missed (both ends alike); an edge's bracket may contain more than one edge when a
/// band inside it is missed.
pub fn scan_edges<O: Copy + PartialEq>(
    values: &[f64],
    tolerance: f64,
    at: &mut impl FnMut(f64) -> Result<O, String>,
) -> Result<(Vec<O>, Vec<Edge<O>>), String> {
    let outcomes = values
        .iter()
        .map(|&t| at(t))
        .collect::<Result<Vec<_>, _>>()?;
    let mut edges = Vec::new();
    for i in 1..values.len() {
        if outcomes[i] != outcomes[i - 1] {
            edges.push(refine_edge(
                (values[i - 1], outcomes[i - 1]),
                (values[i], outcomes[i]),
                tolerance,
                at,
            )?);
        }
    }
    Ok((outcomes, edges))
}

/// The measured cells of a bisection.
pub fn boundary_cells(b: &Boundary, closed_form: f64) -> Cells {
    vec![
        ("boundary", b.t.to_string()),
        ("offset", (b.t - closed_form).to_string()),
        ("bracket_width", b.width.to_string()),
        ("side_below", b.below.symbol().to_string()),
        ("side_above", b.above.symbol().to_string()),
        ("n_runs", b.runs.to_string()),
    ]
}

/// The bisection tolerance: far below the 1e-8 at which the planar boundary is compared with
/// the closed form, above the integration error of a start's side (rtol 1e-10).
pub(crate) const BISECTION_TOLERANCE: f64 = 1e-10;

/// What the basin reports of the experiment `name` on `S` are told: its name, `S`'s basin
/// title and state columns, and the bisection's bracket [`BISECTION_TOLERANCE`].
pub(crate) fn basin_study<S: FastContact<N>, const N: usize>(name: &str) -> BasinStudy<'_> {
    BasinStudy {
        name,
        title: S::BASIN_TITLE,
        state_columns: S::STATE_COLUMNS,
        bracket: BISECTION_TOLERANCE,
    }
}

/// The error of a state without a saddle, for validation.
pub(crate) fn require_saddle(
    saddle: &Result<SlipSaddle, String>,
    key: &str,
) -> Result<(), SimError> {
    match saddle {
        Ok(_) => Ok(()),
        Err(e) => Err(SimError::invalid(key, "this state", e)),
    }
}

/// The saddle of the slip of `state` at its contact, or why there is none.
pub fn saddle<S: FastContact<N>, const N: usize>(state: &S::State) -> Result<SlipSaddle, String> {
    saddle_of(
        &projection::<S, N>(state),
        S::friction(state).mu,
        S::damping(state),
    )
}

impl<S: FastContact<N>, const N: usize> FastStudy<N> for Basin<S, N> {
    type System = S;
    type Analysis = BasinAnalysis;
    type Point = BasinPoint<S::State>;
    const INPUTS: &'static [&'static str] = &["line"];
    const MEASURES: &'static [&'static str] = MEASURES;

    fn validate(plan: &FastPlan<Self, N>) -> Result<(), SimError> {
        S::validate(&plan.params, &plan.sweep)?;
        refuse_starts(fast_starts_given(&plan.params, &plan.sweep))?;
        window(&plan.solver)?;
        S::check_solver(&plan.params, &plan.sweep, &plan.solver)?;
        for (state, index) in S::states(&plan.params, &plan.sweep) {
            require_saddle(&saddle::<S, N>(&state), &S::state_key(&plan.sweep, index))?;
        }
        Ok(())
    }

    fn grid_size(plan: &FastPlan<Self, N>) -> u128 {
        S::grid_size(&plan.params, &plan.sweep) * BasinLine::ALL.len() as u128
    }

    fn points(plan: &FastPlan<Self, N>) -> Vec<BasinPoint<S::State>> {
        S::states(&plan.params, &plan.sweep)
            .into_iter()
            .flat_map(|(state, _)| BasinLine::ALL.map(|line| BasinPoint { state, line }))
            .collect()
    }

    fn state(c: &BasinPoint<S::State>) -> &S::State {
        &c.state
    }

    fn inputs(c: &BasinPoint<S::State>) -> Cells {
        vec![("line", c.line.name().to_string())]
    }

    fn derived(c: &BasinPoint<S::State>) -> Cells {
        derived_cells(&saddle::<S, N>(&c.state), c.line)
    }

    fn run(
        solver: &SolverSpec,
        c: &BasinPoint<S::State>,
        window: f64,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String> {
        let saddle = saddle::<S, N>(&c.state)?;
        let b = bisect(&saddle, c.line, BISECTION_TOLERANCE, |start| {
            let state = S::with_start(&c.state, start);
            let (q0, qdot0) = S::initial_state(&state, kappa);
            let body = S::body(&state);
            FastRun::at::<S, N>(&body, &state, window).side(&q0, &qdot0, kappa, integrator, solver)
        })?;
        let cells = boundary_cells(&b, c.line.closed_form(&saddle));
        Ok((cells, b.stats))
    }

    fn report(plan: &FastPlan<Self, N>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        crate::report::basin::write_report(&basin_study::<S, N>(&plan.name), rows, dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each line's closed form is a start on the stable manifold (α = 0), and the sides of
    /// the linear saddle on either side are F above and IWC below along V0 = 0.
    #[test]
    fn closed_forms_lie_on_the_stable_manifold() {
        let saddle = SlipSaddle::new(-0.6, 1.0, 1.0).unwrap();
        for line in BasinLine::ALL {
            let t = line.closed_form(&saddle);
            assert!(saddle.unstable_amplitude(line.start(&saddle, t)).abs() < 1e-14);
        }
        let line = BasinLine::RestingDepth;
        let t = line.closed_form(&saddle);
        assert!(saddle.unstable_amplitude(line.start(&saddle, t + 0.1)) > 0.0);
        assert!(saddle.unstable_amplitude(line.start(&saddle, t - 0.1)) < 0.0);
    }

    /// A scan finds every band wider than its spacing and refines each edge to the tolerance;
    /// a band between two scan points is missed.
    #[test]
    fn scan_edges_finds_the_bands() {
        let band = |t: f64| -> Result<Outcome, String> {
            Ok(if (-3.3..1.7).contains(&t) {
                Outcome::Stick
            } else if (2.2..2.4).contains(&t) {
                Outcome::SlipPositive
            } else {
                Outcome::LiftOff
            })
        };
        let scan: Vec<f64> = (-5..=5).map(f64::from).collect();
        let (outcomes, edges) = scan_edges(&scan, 1e-12, &mut { band }).unwrap();
        assert_eq!(outcomes.len(), 11);
        assert_eq!(edges.len(), 2);
        assert!((edges[0].t + 3.3).abs() < 1e-12 && edges[0].below == Outcome::LiftOff);
        assert!((edges[1].t - 1.7).abs() < 1e-12 && edges[1].above == Outcome::LiftOff);
    }

    /// Bisection on the linear saddle's sign finds the closed form to its tolerance.
    #[test]
    fn bisection_finds_a_sign_change() {
        let saddle = SlipSaddle::new(-0.6, 1.0, 1.0).unwrap();
        for line in BasinLine::ALL {
            let b = bisect(&saddle, line, 1e-12, |start| {
                let side = if saddle.unstable_amplitude(start) < 0.0 {
                    Outcome::Iwc
                } else {
                    Outcome::LiftOff
                };
                Ok((side, SolverStats::default()))
            })
            .unwrap();
            assert!((b.t - line.closed_form(&saddle)).abs() < 1e-12, "{line:?}");
            assert_ne!(b.below, b.above);
        }
    }
}
