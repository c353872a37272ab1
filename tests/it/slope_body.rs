//! C–V §6.4: the body on two legs on a 10° slope (systems/cv_slope_body.toml,
//! experiments/cv_slope_instability.toml; docs/champneys_varkonyi.md, "Stability of equilibria
//! with two contacts"), checked against what the harness does not compute:
//!
//! - the rest forces of TT from the statics of the body (vertical balance and moments about G);
//! - the growth per cycle of the rigid rocking from the homogeneous cycle map, derived here with
//!   constant accelerations and impact maps at the equilibrium's configuration (its own linear
//!   algebra), against the rigid reference's first cycles at a small perturbation;
//! - the normal momentum against the normal impulses (impacts included) over the rigid run;
//! - the compliant model as κ → 0 against the rigid reference.
//!
//! `cargo test --release --test slope_body -- --nocapture` prints the numbers.

use rigid_limit::analysis::cycles::{cycles, landings};
use rigid_limit::experiment::system::{Method, RunSettings, System};
use rigid_limit::integrate::IntegratorKind;
use rigid_limit::models::described::description::Description;
use rigid_limit::models::described::{Described, Record};
use rigid_limit::models::Experiment;

/// The body's numbers, as systems/cv_slope_body.toml writes them.
const M: f64 = 1.0;
const J: f64 = 4.0;
const X: [f64; 2] = [-0.2, 0.2];
const H: f64 = 0.5;
const MU: [f64; 2] = [0.11, 5.0];
const G: f64 = 1.0;
fn alpha() -> f64 {
    10f64.to_radians()
}

fn description(omega0: f64, damping: f64) -> Description {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("experiments")
        .join("cv_slope_instability.toml");
    let mut d = match Experiment::load(&path).unwrap_or_else(|e| panic!("{e}")) {
        Experiment::Described(spec) => spec.params,
        other => panic!("read as {}", other.name()),
    };
    Described::set_parameter(&mut d, "omega0", omega0).unwrap();
    Described::set_parameter(&mut d, "damping", damping).unwrap();
    d
}

fn run(d: &Description, method: Method, t_end: f64) -> Record {
    let settings = RunSettings {
        t_end: Some(t_end),
        max_events: Some(5000),
        ..RunSettings::new(IntegratorKind::Dop853, 1e-10, 1e-12)
    };
    Described::run(d, method, &settings)
        .unwrap_or_else(|e| panic!("{method:?}: {e}"))
        .0
}

fn growth_of(r: &Record) -> Vec<f64> {
    let times: Vec<String> = r.event_times.iter().map(|t| t.to_string()).collect();
    let l = landings(&times.join(" "), &r.event_kinds, &r.event_contacts, false).unwrap();
    cycles(&l, "leg1").growth
}

// ---------------------------------------------------------------- the homogeneous cycle map

type V3 = [f64; 3];
fn dot(a: &V3, b: &V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn minv(f: &V3) -> V3 {
    [f[0] / M, f[1] / M, f[2] / J]
}
fn axpy(a: f64, x: &V3, y: &V3) -> V3 {
    [y[0] + a * x[0], y[1] + a * x[1], y[2] + a * x[2]]
}
/// Leg i's normal d_i = ∂gap/∂q and tangent c_i = ∂s/∂q at θ = 0 (gap z + X_i sin θ + …,
/// s = x + X_i cos θ + h sin θ).
fn normal(i: usize) -> V3 {
    [0.0, 1.0, X[i]]
}
fn tangent(_i: usize) -> V3 {
    [1.0, 0.0, H]
}
fn gravity() -> V3 {
    [M * G * alpha().sin(), -M * G * alpha().cos(), 0.0]
}
/// The velocity change of a sticking impact (or the acceleration of a sticking leg): the
/// impulse P = (P_N, P_T) on leg i that zeroes both its normal and tangential velocity
/// `v`, W_ii P = −J_i v, with W_ii = J_i M⁻¹ J_iᵀ (2 × 2, Cramer).
fn stick(i: usize, v: &V3, rhs: [f64; 2]) -> (V3, [f64; 2]) {
    let (d, c) = (normal(i), tangent(i));
    let (w_nn, w_nt, w_tt) = (dot(&d, &minv(&d)), dot(&d, &minv(&c)), dot(&c, &minv(&c)));
    let det = w_nn * w_tt - w_nt * w_nt;
    let (b_n, b_t) = (-rhs[0], -rhs[1]);
    let p_n = (b_n * w_tt - w_nt * b_t) / det;
    let p_t = (w_nn * b_t - w_nt * b_n) / det;
    let dv = minv(&axpy(p_t, &c, &[p_n * d[0], p_n * d[1], p_n * d[2]]));
    (axpy(1.0, &dv, v), [p_n, p_t])
}

/// Phase durations and the growth of one cycle started by a rotation about leg 1 at θ̇ = 1:
/// (t_SF, t_FT, λ).
fn cycle_map() -> (f64, f64, f64) {
    let (d1, c1, d2) = (normal(0), tangent(0), normal(1));
    let f = gravity();
    // Start: leg 1 at rest (d1ᵀq̇ = c1ᵀq̇ = 0), θ̇ = 1: q̇ = (−h, −X1, 1).
    let v0: V3 = [-H, -X[0], 1.0];
    assert!(dot(&d1, &v0).abs() < 1e-15 && dot(&c1, &v0).abs() < 1e-15);
    // S+F: leg 1 slides down the slope (F_T = −μ1 N1), N1 from d1ᵀq̈ = 0.
    let push = axpy(-MU[0], &c1, &d1);
    let n1 = -dot(&d1, &minv(&f)) / dot(&d1, &minv(&push));
    let a_sf = minv(&axpy(n1, &push, &f));
    assert!(
        n1 > 0.0 && dot(&c1, &a_sf) > 0.0,
        "leg 1 slides down from rest"
    );
    // Leg 2's gap d2ᵀ(v t + a t²/2) returns to 0.
    let t_sf = -2.0 * dot(&d2, &v0) / dot(&d2, &a_sf);
    let v_minus = axpy(t_sf, &a_sf, &v0);
    // Sticking impact of leg 2 (r = 0); leg 1 leaves.
    let (v_plus, p2) = stick(
        1,
        &v_minus,
        [dot(&d2, &v_minus), dot(&tangent(1), &v_minus)],
    );
    assert!(p2[0] > 0.0 && p2[1].abs() <= MU[1] * p2[0], "leg 2 sticks");
    assert!(dot(&d1, &v_plus) > 0.0, "leg 1 rises");
    // FT: leg 2 sticks (its force holds both its accelerations at 0).
    let a0 = minv(&f);
    let (a_ft, f2) = stick(1, &a0, [dot(&d2, &a0), dot(&tangent(1), &a0)]);
    assert!(f2[0] > 0.0 && f2[1].abs() <= MU[1] * f2[0], "leg 2 holds");
    let t_ft = -2.0 * dot(&d1, &v_plus) / dot(&d1, &a_ft);
    let v_minus = axpy(t_ft, &a_ft, &v_plus);
    // Sticking impact of leg 1; leg 2 leaves; the cycle ends at a rotation about leg 1.
    let (v_end, p1) = stick(0, &v_minus, [dot(&d1, &v_minus), dot(&c1, &v_minus)]);
    assert!(p1[0] > 0.0 && p1[1].abs() <= MU[0] * p1[0], "leg 1 sticks");
    assert!(dot(&d2, &v_end) > 0.0, "leg 2 rises");
    (t_sf, t_ft, v_end[2])
}

#[test]
fn the_rest_forces_are_the_statics_and_the_body_left_at_rest_stays() {
    // N1 + N2 = mg cos α; X1 N1 + X2 N2 = h mg sin α (moments about G, friction −mg sin α at
    // depth h).
    let (s, c) = (alpha().sin(), alpha().cos());
    let n2 = M * G * (H * s - X[0] * c) / (X[1] - X[0]);
    let n1 = M * G * c - n2;
    let t_end = 2.0;
    let r = run(&description(0.0, 2.0), Method::Rigid, t_end);
    println!(
        "rest: N1 = {n1:.12}, N2 = {n2:.12}; rigid impulses / t = {:.12}, {:.12}; events {}",
        r.impulse_normal[0] / t_end,
        r.impulse_normal[1] / t_end,
        r.event_times.len()
    );
    assert!(r.event_times.is_empty(), "no event at rest");
    assert_eq!(r.mode_sequence, "stick,stick");
    assert!((r.impulse_normal[0] / t_end - n1).abs() < 1e-9);
    assert!((r.impulse_normal[1] / t_end - n2).abs() < 1e-9);
    assert!(r.q_dot_end.iter().all(|v| v.abs() < 1e-10));
    // On the springs (κ = 1e-6, c_d = 2) the statical penetrations hold it there too.
    let k = run(
        &description(0.0, 2.0),
        Method::Compliant { kappa: 1e-6 },
        0.5,
    );
    println!(
        "rest on springs (κ = 1e-6): impulses / t = {:.12}, {:.12}; q̇(t) = {:?}",
        k.impulse_normal[0] / 0.5,
        k.impulse_normal[1] / 0.5,
        k.q_dot_end
    );
    assert!(k.event_times.is_empty(), "{}", k.mode_sequence);
    // Within O(κ): the springs tilt the body by θ = O(κ), which moves the legs' arms.
    assert!((k.impulse_normal[0] / 0.5 - n1).abs() < 1e-5);
    assert!(k.q_dot_end.iter().all(|v| v.abs() < 1e-9));
}

#[test]
fn the_rigid_rocking_grows_by_the_factor_of_the_homogeneous_cycle_map() {
    let (t_sf, t_ft, lambda) = cycle_map();
    println!("cycle map at θ̇ = 1: t_SF = {t_sf:.9}, t_FT = {t_ft:.9}, growth λ = {lambda:.9}");
    assert!(lambda > 1.0);
    let omega0 = 1e-4;
    let r = run(&description(omega0, 2.0), Method::Rigid, 1.5);
    // The first two phases: S+F to leg 2's impact, FT to leg 1's.
    let kinds: Vec<&str> = r.event_kinds.split(' ').collect();
    let contacts: Vec<&str> = r.event_contacts.split(' ').collect();
    assert_eq!(&kinds[..4], ["impact"; 4]);
    assert_eq!(&contacts[..4], ["leg2", "leg1", "leg2", "leg1"]);
    assert!(r
        .mode_sequence
        .starts_with("slide_right,free>free,stick>slide_right,free>free,stick"));
    let t = &r.event_times;
    let rel = |a: f64, b: f64| (a / b - 1.0).abs();
    println!(
        "rigid at ω0 = {omega0:e}: t_SF = {:.9}, t_FT = {:.9} (÷ω0)",
        t[0] / omega0,
        (t[1] - t[0]) / omega0
    );
    assert!(rel(t[0] / omega0, t_sf) < 1e-3);
    assert!(rel((t[1] - t[0]) / omega0, t_ft) < 1e-3);
    let g = growth_of(&r);
    println!("rigid growth per cycle at ω0 = {omega0:e}: {g:?}");
    assert!(g.len() >= 3);
    for x in &g {
        assert!((x - lambda).abs() < 1e-4, "{x} against {lambda}");
    }
}

#[test]
fn the_normal_momentum_is_the_normal_impulses_over_the_rigid_rocking() {
    // m ż(t) − m ż(0) = −mg cos α t + Σ_i P_N,i (the normal rows d_i = (0, 1, X_i + O(θ))
    // carry their impulse into ż exactly: the normal's z-component is 1 at every θ).
    let omega0 = 1e-2;
    let t_end = 6.0;
    let r = run(&description(omega0, 2.0), Method::Rigid, t_end);
    let dz = r.q_dot_end[1] - (-omega0 * X[0]);
    let predicted = (-M * G * alpha().cos() * t_end + r.impulse_normal.iter().sum::<f64>()) / M;
    println!(
        "Δż = {dz:.3e}, predicted {predicted:.3e}; energy balance error {:?}",
        r.energy_balance_error
    );
    assert!((dz - predicted).abs() < 1e-9);
    assert!(r.energy_balance_error.unwrap().abs() < 1e-10);
}

#[test]
fn the_compliant_rocking_grows_and_approaches_the_rigid_growth_as_kappa_falls() {
    let omega0 = 1e-2;
    let t_end = 7.0;
    let rigid = growth_of(&run(&description(omega0, 4.0), Method::Rigid, t_end));
    // The compliant landing's limit is not exactly r = 0: the overdamped spring (c_d = 4)
    // opens at F_n = 0 with a small normal velocity left. So the ladder converges (successive
    // differences shrink) to a growth close to, not equal to, the rigid reference's.
    let mut growth = Vec::new();
    for kappa in [1e-6, 1e-7, 1e-8] {
        let g = growth_of(&run(
            &description(omega0, 4.0),
            Method::Compliant { kappa },
            t_end,
        ));
        println!("c_d = 4, κ = {kappa:e}: growth {g:?}; rigid {rigid:?}");
        assert!(g.len() >= 2 && g.iter().all(|x| *x > 1.0));
        growth.push(g[0]);
    }
    assert!((growth[2] - growth[1]).abs() < 0.5 * (growth[1] - growth[0]).abs());
    assert!((growth[2] - rigid[0]).abs() < 2e-3);
}
