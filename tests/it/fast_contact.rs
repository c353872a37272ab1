//! The fast-time studies through their capability trait (`rigid_limit::study::fast`) for a
//! system that is neither the rod nor the planar system of the crate: a cart of anisotropic
//! inertia, M = diag(m1, m2), under a constant force (f1, f2), against a surface inclined at α
//! (gap g = dᵀq with d = (−sin α, cos α), slip u = cᵀq̇ with c = (cos α, sin α)). Its C–V
//! scalars, derived by hand below, are
//!
//! ```text
//! A = cos²α/m1 + sin²α/m2,  B = sin α cos α (1/m2 − 1/m1),  C = sin²α/m1 + cos²α/m2,
//! a = cos α f1/m1 + sin α f2/m2,  b = −sin α f1/m1 + cos α f2/m2,
//! ```
//!
//! constant in q, so its fast dynamics are exactly C–V's linear ones. The generic mode table must
//! then find Table 3's outcome set in each state's cell (the cells and their entries written
//! here from C–V's Table 3, not computed by the crate), and the generic basin must find the
//! lift-off/IWC boundary on the line V0 = 0 at the saddle's depth Y* = b/p₊ at every κ, and the
//! generic phase portraits must draw its trajectories in its own gap and normal velocity.

use crate::common::{number, run_all};
use rigid_limit::compliant::coulomb::Coulomb;
use rigid_limit::error::SimError;
use rigid_limit::experiment::grammar::LogGrid;
use rigid_limit::experiment::rows::Cells;
use rigid_limit::experiment::table::Row;
use rigid_limit::model::iwc::FastStart;
use rigid_limit::model::{ContactKinematics, Mechanics, PlanarContactSystem, Real};
use rigid_limit::study::fast::basin::Basin;
use rigid_limit::study::fast::mode_table::ModeTable;
use rigid_limit::study::fast::plan::FastPlan;
use rigid_limit::study::fast::portraits::Portraits;
use rigid_limit::study::fast::FastContact;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The cart's mechanics at one force.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Cart {
    m1: f64,
    m2: f64,
    alpha: f64,
    force: [f64; 2],
}

impl Mechanics<2> for Cart {
    fn coordinate_names(&self) -> [&'static str; 2] {
        ["x", "y"]
    }
    fn mass_matrix<S: Real>(&self, _q: &[S; 2]) -> [[S; 2]; 2] {
        [[S::cst(self.m1), S::zero()], [S::zero(), S::cst(self.m2)]]
    }
    fn generalized_force<S: Real>(&self, _q: &[S; 2], _qdot: &[S; 2]) -> [S; 2] {
        self.force.map(S::cst)
    }
    fn potential_energy<S: Real>(&self, q: &[S; 2]) -> S {
        -(q[0].scale(self.force[0]) + q[1].scale(self.force[1]))
    }
}

impl PlanarContactSystem<2> for Cart {
    fn contact_kinematics<S: Real>(&self, q: &[S; 2], _qdot: &[S; 2]) -> ContactKinematics<S, 2> {
        let (s, c) = self.alpha.sin_cos();
        ContactKinematics {
            gap: q[0].scale(-s) + q[1].scale(c),
            tangential: [S::cst(c), S::cst(s)],
            normal: [S::cst(-s), S::cst(c)],
            tangential_drift: S::zero(),
            normal_drift: S::zero(),
        }
    }
}

/// `[params]`: the cart, the surface and the contact.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Params {
    m1: f64,
    m2: f64,
    alpha: f64,
    mu: f64,
    damping: f64,
}

/// One state of `sweep.states`: the force and the slip velocity.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Entry {
    f1: f64,
    f2: f64,
    u0: f64,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Sweep {
    kappa: LogGrid,
    states: Vec<Entry>,
    starts: Option<Vec<FastStart>>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct State {
    cart: Cart,
    mu: f64,
    damping: f64,
    u0: f64,
    start: FastStart,
}

impl State {
    fn directions(&self) -> ([f64; 2], [f64; 2]) {
        let (s, c) = self.cart.alpha.sin_cos();
        ([c, s], [-s, c])
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct TiltedCart;

impl FastContact<2> for TiltedCart {
    const NAME: &'static str = "tilted_cart";
    const TITLE: &'static str = "a cart on an inclined surface";
    const DESCRIBE: &'static str = "Each state is a force (f1, f2) and a slip velocity u0.";
    const STATE_COLUMNS: &'static [&'static str] = &["f1", "f2", "u0"];
    const SCALARS_ARE_INPUTS: bool = false;
    type Params = Params;
    type Sweep = Sweep;
    type State = State;
    type Body = Cart;

    fn kappa(sweep: &Sweep) -> &LogGrid {
        &sweep.kappa
    }
    fn validate(_params: &Params, _sweep: &Sweep) -> Result<(), SimError> {
        Ok(())
    }
    fn grid_size(_params: &Params, sweep: &Sweep) -> u128 {
        (sweep.states.len() * sweep.starts.as_ref().map_or(1, Vec::len)) as u128
    }
    fn states(p: &Params, sweep: &Sweep) -> Vec<(State, usize)> {
        let starts = sweep.starts.clone().unwrap_or(vec![FastStart::REST]);
        let mut out = Vec::new();
        for (index, e) in sweep.states.iter().enumerate() {
            for &start in &starts {
                let cart = Cart {
                    m1: p.m1,
                    m2: p.m2,
                    alpha: p.alpha,
                    force: [e.f1, e.f2],
                };
                let state = State {
                    cart,
                    mu: p.mu,
                    damping: p.damping,
                    u0: e.u0,
                    start,
                };
                out.push((state, index));
            }
        }
        out
    }
    fn state_key(_sweep: &Sweep, index: usize) -> String {
        format!("sweep.states[{index}]")
    }
    fn state_cells(s: &State) -> Cells {
        vec![
            ("f1", s.cart.force[0].to_string()),
            ("f2", s.cart.force[1].to_string()),
            ("u0", s.u0.to_string()),
        ]
    }
    fn start(s: &State) -> FastStart {
        s.start
    }
    fn with_start(s: &State, start: FastStart) -> State {
        State { start, ..*s }
    }
    fn body(s: &State) -> Cart {
        s.cart
    }
    fn contact_state(s: &State) -> ([f64; 2], [f64; 2]) {
        let (c, _) = s.directions();
        ([0.0, 0.0], [s.u0 * c[0], s.u0 * c[1]])
    }
    fn initial_state(s: &State, kappa: f64) -> ([f64; 2], [f64; 2]) {
        let (c, d) = s.directions();
        let (gap, v) = (kappa * s.start.gap, kappa.sqrt() * s.start.normal_velocity);
        (
            [gap * d[0], gap * d[1]],
            [s.u0 * c[0] + v * d[0], s.u0 * c[1] + v * d[1]],
        )
    }
    fn friction(s: &State) -> Coulomb {
        Coulomb {
            mu: s.mu,
            mu_s: s.mu,
        }
    }
    fn damping(s: &State) -> f64 {
        s.damping
    }
}

const M1: f64 = 10.0;
const M2: f64 = 1.0;
const ALPHA: f64 = std::f64::consts::FRAC_PI_4;
const MU: f64 = 2.0;

/// The force f = b M d (f1, f2): M⁻¹f = b d, so a = cᵀ(b d) = 0 (c ⟂ d) and the free normal
/// acceleration is dᵀ(b d) = b.
fn force_with_normal_accel(b: f64) -> (f64, f64) {
    let (s, c) = ALPHA.sin_cos();
    (M1 * -s * b, M2 * c * b)
}

fn file(analysis: &str, states: &[(f64, f64)], starts: &str) -> String {
    let entries: Vec<String> = states
        .iter()
        .map(|&(b, u0)| {
            let (f1, f2) = force_with_normal_accel(b);
            format!("{{ f1 = {f1:?}, f2 = {f2:?}, u0 = {u0:?} }}")
        })
        .collect();
    format!(
        r#"
name = "tilted_cart_{analysis}"
model = "tilted_cart"
analysis = "{analysis}"
[params]
m1 = {M1:?}
m2 = {M2:?}
alpha = {ALPHA:?}
mu = {MU:?}
damping = 1.0
[sweep]
kappa = {{ min = 1e-10, max = 1e-8, per_decade = 1 }}
states = [{}]
{starts}
[solver]
integrators = ["tsit45"]
rtol = 1e-10
atol = 1e-12
window_scaled = 200
"#,
        entries.join(", ")
    )
}

/// C–V's scalars of the cart, by hand (module docs).
fn scalars(b_wanted: f64) -> [f64; 5] {
    let (s, c) = ALPHA.sin_cos();
    let (f1, f2) = force_with_normal_accel(b_wanted);
    [
        c * f1 / M1 + s * f2 / M2,
        -s * f1 / M1 + c * f2 / M2,
        c * c / M1 + s * s / M2,
        s * c * (1.0 / M2 - 1.0 / M1),
        s * s / M1 + c * c / M2,
    ]
}

/// Through the generic mode table, each state's outcomes over its fast starts are the entry of
/// C–V's Table 3 for its cell. Here A = C = 0.55, B = 0.45, μ = 2: p₊ = C − μB = −0.35 < 0 <
/// p₋ = 1.45, so b = +1 is row (iii) and b = −1 row (vi); u0 = +1 is column I, −1 column III.
#[test]
fn the_generic_mode_table_finds_table_3_for_a_third_system() {
    let states = [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)];
    // Table 3 (C–V 2016): I(iii) F and IWC, III(iii) F, I(vi) IWC, III(vi) S−.
    let table3 = [
        ("I(iii)", vec!["F", "IWC"]),
        ("III(iii)", vec!["F"]),
        ("I(vi)", vec!["IWC"]),
        ("III(vi)", vec!["S-"]),
    ];
    let starts = "starts = [{ Y0 = 0, V0 = 0 }, { Y0 = -2, V0 = 0 }, { Y0 = -8, V0 = 0 }, { Y0 = 0, V0 = -4 }]";
    let text = file("mode_table", &states, starts);
    let spec =
        FastPlan::<ModeTable<TiltedCart, 2>, 2>::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        &FastPlan::<ModeTable<TiltedCart, 2>, 2>::columns()[2..8],
        &["f1", "f2", "u0", "Y0", "V0", "integrator"]
    );
    let rows = run_all(&spec);
    assert_eq!(rows.len(), 4 * 4 * 3);
    for (i, ((b, u0), (cell, outcomes))) in states.iter().zip(&table3).enumerate() {
        let mine: Vec<&Row> = rows[i * 12..(i + 1) * 12].iter().collect();
        let expected_scalars = scalars(*b);
        for r in &mine {
            assert_eq!(r.text("status"), "ok", "{:?}", r.fields);
            assert_eq!(number(r, "u0"), *u0);
            for (column, want) in ["a", "b", "A", "B", "C"].iter().zip(expected_scalars) {
                assert!((number(r, column) - want).abs() < 1e-12, "{column}");
            }
            assert_eq!(r.text("cell"), *cell);
        }
        for kappa in ["1e-8", "1e-9", "1e-10"] {
            let got: BTreeSet<&str> = mine
                .iter()
                .filter(|r| r.cell_is("kappa", kappa))
                .map(|r| r.text("outcome"))
                .collect();
            let want: BTreeSet<&str> = outcomes.iter().copied().collect();
            assert_eq!(got, want, "{cell} at κ = {kappa}");
        }
    }
}

/// Through the generic basin, the lift-off/IWC boundary of the I(iii) state on the line V0 = 0
/// is the saddle's depth Y* = b/p₊ (the fast dynamics are linear: Y'' = b + p₊λ_N, λ_N = −Y −
/// c_d Y' at rest in slip), at every κ to the bisection's tolerance.
#[test]
fn the_generic_basin_finds_the_saddle_depth_for_a_third_system() {
    let text = file("liftoff_iwc_basin", &[(1.0, 1.0)], "");
    let spec = FastPlan::<Basin<TiltedCart, 2>, 2>::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let [_, b, _, bb, cc] = scalars(1.0);
    let depth = b / (cc - MU * bb);
    let rows = run_all(&spec);
    assert_eq!(rows.len(), 3 * 3);
    let resting: Vec<&Row> = rows.iter().filter(|r| r.text("line") == "V0=0").collect();
    assert_eq!(resting.len(), 3);
    for r in resting {
        assert_eq!(r.text("status"), "ok", "{:?}", r.fields);
        assert!((number(r, "closed_form") - depth).abs() < 1e-12);
        assert!(
            (number(r, "boundary") - depth).abs() < 1e-8,
            "{:?}",
            r.fields
        );
    }
    // A fast start in the file is refused by the basin, naming the key.
    let given = file(
        "liftoff_iwc_basin",
        &[(1.0, 1.0)],
        "starts = [{ Y0 = 0, V0 = 0 }]",
    );
    let e = FastPlan::<Basin<TiltedCart, 2>, 2>::parse(&given)
        .unwrap_err()
        .to_string();
    assert!(e.contains("sweep.starts"), "{e}");
    // A state whose slip is not a saddle (III(iii): p₋ > 0) is refused, naming its entry.
    let stable = file("liftoff_iwc_basin", &[(1.0, 1.0), (1.0, -1.0)], "");
    let e = FastPlan::<Basin<TiltedCart, 2>, 2>::parse(&stable)
        .unwrap_err()
        .to_string();
    assert!(e.contains("sweep.states[1]"), "{e}");
}

/// `Study` is what the registry needs of a study; the generic study carries the system's name.
#[test]
fn the_studies_are_named_by_the_system() {
    use rigid_limit::experiment::registry::Study;
    assert_eq!(
        <FastPlan<ModeTable<TiltedCart, 2>, 2> as Study>::MODEL,
        "tilted_cart"
    );
    assert_eq!(
        &FastPlan::<Basin<TiltedCart, 2>, 2>::columns()[2..6],
        &["f1", "f2", "u0", "line"]
    );
}

/// Through the generic phase portraits, the trajectories are the cart's gap g = dᵀq and normal
/// velocity dᵀq̇ in the fast variables, not its coordinates: each starts at its fast start
/// (Y0, V0), and in the I(iii) state (a slip saddle at Y* = b/p₊) every start's outcome is the
/// one of its side of the saddle's stable manifold (above F, below IWC).
#[test]
fn the_generic_portraits_draw_the_third_systems_fast_plane() {
    let starts = "starts = [{ Y0 = 0, V0 = 0 }, { Y0 = -2, V0 = 0 }, { Y0 = -8, V0 = 0 }, { Y0 = -2, V0 = 3 }]";
    let text = file("phase_portraits", &[(1.0, 1.0)], starts);
    let spec =
        FastPlan::<Portraits<TiltedCart, 2>, 2>::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let [_, b, _, bb, cc] = scalars(1.0);
    let rows = run_all(&spec);
    assert_eq!(rows.len(), 4 * 3);
    for r in &rows {
        assert_eq!(r.text("status"), "ok", "{:?}", r.fields);
        assert_eq!(r.text("cell"), "I(iii)");
        assert!((number(r, "saddle_gap") - b / (cc - MU * bb)).abs() < 1e-12);
        let first = |column: &str| -> f64 {
            r.text(column)
                .split_whitespace()
                .next()
                .unwrap_or_else(|| panic!("{column} empty"))
                .parse()
                .unwrap()
        };
        assert!((first("trajectory_Y") - number(r, "Y0")).abs() < 1e-6);
        assert!((first("trajectory_V") - number(r, "V0")).abs() < 1e-6);
    }
    let measures = rigid_limit::analysis::portraits::panel_measures(
        &rows,
        <TiltedCart as FastContact<2>>::STATE_COLUMNS,
    );
    assert_eq!(measures.len(), 1);
    assert_eq!(
        measures[0].manifold_side_agreement,
        Some(1.0),
        "{:?}",
        measures[0]
    );
}
