//! Several spatial contacts (compliant::spatial_multi) on a thin uniform rod lying flat on the
//! floor, both ends spatial contacts, pushed and spun (systems/flat_rod.toml;
//! docs/multi_contact.md, "A flat rod pushed and spun"): the closed forms of pure translation
//! and pure spin, the κ → 0 limit against the reduced rigid ODE of (x, y, φ) integrated here
//! independently, the energy balance, impulse–momentum, the simultaneous stop of both ends, the
//! described system against a hand-coded twin, two integrators, and bad descriptions refused.

use crate::common::{described, system_experiment};
use rigid_limit::compliant::cone::ConeMode;
use rigid_limit::compliant::normal::NormalCompliance;
use rigid_limit::compliant::spatial_multi::{
    simulate_spatial_multi, ConeLaw, ConeModes, SpatialContacts, SpatialMultiProblem,
    SpatialMultiRun,
};
use rigid_limit::experiment::system::{Method, RunSettings, System};
use rigid_limit::hybrid::{Named, RunControl, Until};
use rigid_limit::integrate::{IntegratorKind, Tolerances};
use rigid_limit::model::{ContactFrame, Mechanics, Real};
use rigid_limit::models::described::description::Description;
use rigid_limit::models::described::{Described, Record};
use rigid_limit::models::Experiment;

const G: f64 = 1.0;
const MU: f64 = 0.5;
const DAMPING: f64 = 0.5;
/// The rod's moment of inertia about its centre, m(2)²/12 with m = 1.
const INERTIA: f64 = 1.0 / 3.0;

/// The hand-coded twin of systems/flat_rod.toml: q = (x, y, z, φ), the ends s = +1 (A) and
/// s = −1 (B) at (x + s cos φ, y + s sin φ, z).
struct FlatRod;

impl Mechanics<4> for FlatRod {
    fn coordinate_names(&self) -> [&'static str; 4] {
        ["x", "y", "z", "phi"]
    }
    fn mass_matrix<S: Real>(&self, _q: &[S; 4]) -> [[S; 4]; 4] {
        let (o, z) = (S::cst(1.0), S::zero());
        [
            [o, z, z, z],
            [z, o, z, z],
            [z, z, o, z],
            [z, z, z, S::cst(INERTIA)],
        ]
    }
    fn generalized_force<S: Real>(&self, _q: &[S; 4], _qdot: &[S; 4]) -> [S; 4] {
        [S::zero(), S::zero(), S::cst(-G), S::zero()]
    }
    fn potential_energy<S: Real>(&self, q: &[S; 4]) -> S {
        q[2].scale(G)
    }
}

impl SpatialContacts<4> for FlatRod {
    fn contact_count(&self) -> usize {
        2
    }
    fn frame<S: Real>(&self, k: usize, q: &[S; 4], qdot: &[S; 4]) -> ContactFrame<S, 4, 2> {
        let s = if k == 0 { 1.0 } else { -1.0 };
        let (sin, cos) = q[3].sin_cos();
        let (o, z) = (S::cst(1.0), S::zero());
        let w2 = qdot[3] * qdot[3];
        ContactFrame {
            gap: q[2],
            normal: [z, z, o, z],
            // ∂(x + s cos φ)/∂q and ∂(y + s sin φ)/∂q.
            tangents: [[o, z, z, -sin.scale(s)], [z, o, z, cos.scale(s)]],
            normal_drift: z,
            tangent_drift: [-(cos * w2).scale(s), -(sin * w2).scale(s)],
        }
    }
    fn contact_name(&self, k: usize) -> String {
        ["A", "B"][k].to_string()
    }
}

fn laws(kappa: f64) -> Vec<ConeLaw> {
    vec![
        ConeLaw {
            compliance: NormalCompliance::spring_dashpot(kappa, DAMPING),
            mu: MU,
        };
        2
    ]
}

fn tolerances() -> Tolerances {
    Tolerances {
        rtol: 1e-10,
        atol: 1e-12,
    }
}

/// A run to the fixed time `t_end`.
fn to_time(t_end: f64) -> RunControl<ConeModes> {
    RunControl {
        until: Until::Time(t_end),
        output_times: Vec::new(),
        max_events: 100,
        max_steps: 1_000_000,
        absolute_tolerances: None,
    }
}

fn twin_run(kappa: f64, v: [f64; 3], t_end: f64, integrator: IntegratorKind) -> SpatialMultiRun {
    let rod = FlatRod;
    let problem = SpatialMultiProblem::new(&rod, laws(kappa)).unwrap();
    let control = to_time(t_end);
    simulate_spatial_multi(
        &problem,
        &[0.0; 4],
        &[v[0], v[1], 0.0, v[2]],
        integrator,
        tolerances(),
        &control,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The description in `file` at compliance `kappa`.
fn description_of(file: &str, kappa: f64) -> Description {
    let solver = "integrators = [\"dop853\"]\nrtol = 1e-10\natol = 1e-12";
    described(&system_experiment(file, kappa, solver)).params
}

/// systems/flat_rod.toml at compliance `kappa` with the start (vx0, vy0, w0) = `v`.
fn description(kappa: f64, v: [f64; 3]) -> Description {
    let mut d = description_of("systems/flat_rod.toml", kappa);
    for (key, value) in ["vx0", "vy0", "w0"].iter().zip(v) {
        Described::set_parameter(&mut d, key, value).unwrap();
    }
    d
}

fn described_run(kappa: f64, v: [f64; 3], t_end: f64, integrator: IntegratorKind) -> Record {
    let settings = RunSettings {
        t_end: Some(t_end),
        ..RunSettings::new(integrator, 1e-10, 1e-12)
    };
    let d = description(kappa, v);
    Described::run(&d, Method::Compliant { kappa }, &settings)
        .unwrap_or_else(|e| panic!("{e}"))
        .0
}

/// The run's only event is one stop of both ends at once: slide,slide > stick,stick. Its time.
fn single_joint_stop(r: &Record) -> f64 {
    assert_eq!(r.mode_sequence, "slide,slide>stick,stick", "{r:?}");
    assert_eq!(r.event_kinds, "stop", "{r:?}");
    r.event_times[0]
}

/// The reduced rigid ODE of the flat rod (docs/multi_contact.md): N_A = N_B = mg/2, the ends'
/// velocities V_± = v ± ω e_⊥ (e_⊥ = (−sin φ, cos φ)), m v̇ = F_+ + F_−, I ω̇ = e_∥ × (F_+ − F_−),
/// F_± = −μ (mg/2) V̂_±; RK4, its step shortened near the stop to a tenth of the time left,
/// 2E/P (E the kinetic energy, P = Σ μ N |V_±| its loss rate: √E falls linearly to the stop).
/// Returns the stop time, the pose (x, y, φ) there, and the smallest |v| and |ω| met up to
/// one step before the stop.
fn reduced_rigid(v0: [f64; 3]) -> (f64, [f64; 3], f64, f64) {
    let n = 0.5 * G;
    let field = |s: &[f64; 6]| -> [f64; 6] {
        let (sin, cos) = s[2].sin_cos();
        let mut f = [[0.0; 2]; 2];
        for (i, sign) in [1.0, -1.0].iter().enumerate() {
            let u = [s[3] - sign * s[5] * sin, s[4] + sign * s[5] * cos];
            let r = (u[0] * u[0] + u[1] * u[1]).sqrt();
            if r > 0.0 {
                f[i] = [-MU * n * u[0] / r, -MU * n * u[1] / r];
            }
        }
        let torque = cos * (f[0][1] - f[1][1]) - sin * (f[0][0] - f[1][0]);
        [
            s[3],
            s[4],
            s[5],
            f[0][0] + f[1][0],
            f[0][1] + f[1][1],
            torque / INERTIA,
        ]
    };
    let energy_and_loss = |s: &[f64; 6]| {
        let (sin, cos) = s[2].sin_cos();
        let e = 0.5 * (s[3] * s[3] + s[4] * s[4]) + 0.5 * INERTIA * s[5] * s[5];
        let loss: f64 = [1.0, -1.0]
            .iter()
            .map(|sign| {
                let u = [s[3] - sign * s[5] * sin, s[4] + sign * s[5] * cos];
                MU * n * (u[0] * u[0] + u[1] * u[1]).sqrt()
            })
            .sum();
        (e, loss)
    };
    let mut s = [0.0, 0.0, 0.0, v0[0], v0[1], v0[2]];
    let mut t = 0.0;
    let (mut min_v, mut min_w) = (f64::INFINITY, f64::INFINITY);
    loop {
        let (e, loss) = energy_and_loss(&s);
        let left = 2.0 * e / loss;
        if left < 1e-13 {
            // The velocities fall linearly over the time left: the pose moves by half of it.
            let pose = [0, 1, 2].map(|i| s[i] + 0.5 * s[3 + i] * left);
            return (t + left, pose, min_v, min_w);
        }
        min_v = min_v.min((s[3] * s[3] + s[4] * s[4]).sqrt());
        min_w = min_w.min(s[5].abs());
        let h = (1e-4f64).min(0.1 * left);
        let k1 = field(&s);
        let at = |k: &[f64; 6], c: f64| std::array::from_fn::<f64, 6, _>(|i| s[i] + c * h * k[i]);
        let k2 = field(&at(&k1, 0.5));
        let k3 = field(&at(&k2, 0.5));
        let k4 = field(&at(&k3, 1.0));
        for i in 0..6 {
            s[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        t += h;
    }
}

/// Pure translation (ω0 = 0): both ends slide alike, each with μ mg/2, so v̇ = −μg v̂: the rod
/// stops at v0/(μg) after v0²/(2μg). On the springs Σ F_n = m(z̈ + g), so the distance is
/// v0 T − μ(g T²/2 + z(T) − z(0)): the closed form plus μ κ g/2 (z(T) = −κg/2 at rest).
#[test]
fn pure_translation_stops_at_v0_over_mu_g_after_v0_squared_over_2_mu_g() {
    let kappa = 1e-6;
    let v = [0.6, 0.8, 0.0];
    let r = described_run(kappa, v, 3.0, IntegratorKind::Dop853);
    let t_stop = single_joint_stop(&r);
    let v0 = 1.0;
    assert!((t_stop - v0 / (MU * G)).abs() < 1e-8, "stop at {t_stop}");
    let distance = (r.q_end[0].powi(2) + r.q_end[1].powi(2)).sqrt();
    let expected = v0 * v0 / (2.0 * MU * G) + MU * kappa * G / 2.0;
    assert!((distance - expected).abs() < 1e-8, "distance {distance}");
    // Straight along v0, without turning.
    assert!((r.q_end[1] / r.q_end[0] - 0.8 / 0.6).abs() < 1e-10);
    assert!(r.q_end[3].abs() < 1e-10);
    assert!(
        r.q_dot_end.iter().all(|x| x.abs() < 1e-9),
        "{:?}",
        r.q_dot_end
    );
}

/// Pure spin (v0 = 0): each end's friction μ mg/2 at lever 1 gives the torque μmg, and
/// I = m/3: ω̇ = −3μg, the spin stops at ω0/(3μg) after turning ω0²/(6μg) (plus 3μκg/2 from
/// the springs' settling, as for the translation). The centre stays put.
#[test]
fn pure_spin_stops_at_omega0_over_3_mu_g() {
    let kappa = 1e-6;
    let w0 = 1.5;
    let r = described_run(kappa, [0.0, 0.0, w0], 3.0, IntegratorKind::Dop853);
    let t_stop = single_joint_stop(&r);
    assert!(
        (t_stop - w0 / (3.0 * MU * G)).abs() < 1e-8,
        "stop at {t_stop}"
    );
    let turned = w0 * w0 / (6.0 * MU * G) + 3.0 * MU * kappa * G / 2.0;
    assert!((r.q_end[3] - turned).abs() < 1e-8, "turned {}", r.q_end[3]);
    assert!(r.q_end[0].abs() < 1e-12 && r.q_end[1].abs() < 1e-12);
}

/// Pushed and spun, the rod's sliding and spinning stop at the same instant (a slide cannot
/// end while the rod spins: near v = 0 the ends' forces cancel but for a part linear in
/// v/|ω|, an exponential decay; a spin cannot end while it slides: near ω = 0 the torque is
/// linear in ω/|v|): the reduced ODE meets neither v = 0 nor ω = 0 before its stop, and the
/// compliant run stops both ends in one event, at rest after it.
#[test]
fn sliding_and_spinning_stop_together_and_both_ends_stop_in_one_event() {
    let v = [1.0, 0.5, 1.5];
    let (t_rigid, _, min_v, min_w) = reduced_rigid(v);
    assert!(min_v > 0.0 && min_w > 0.0, "v {min_v}, ω {min_w}");
    let run = twin_run(1e-6, v, 3.0, IntegratorKind::Dop853);
    assert_eq!(run.trace.events.len(), 1);
    let event = &run.trace.events[0];
    assert_eq!(event.from.iter().collect::<Vec<_>>(), [ConeMode::Slide; 2]);
    assert_eq!(event.to.iter().collect::<Vec<_>>(), [ConeMode::Stick; 2]);
    assert!((run.event_times[0] - t_rigid).abs() < 1e-4);
    let qdot = &run.trace.y_end[4..8];
    assert!(qdot.iter().all(|x| x.abs() < 1e-9), "{qdot:?}");
}

/// As κ → 0 the compliant stop time and final pose (x, y, φ) converge to the reduced rigid
/// ODE's, at the rate κ¹: the normal forces' deviation from mg/2 while the springs settle
/// (a time O(√κ)) has zero mean (Σ∫(F_n − mg/2) dt = m ż = 0 at rest) and a first moment O(κ).
#[test]
fn the_stop_and_the_pose_converge_to_the_reduced_rigid_ode_at_rate_one() {
    let v = [1.0, 0.5, 1.5];
    let (t_rigid, pose, _, _) = reduced_rigid(v);
    let kappas = [1e-3, 1e-4, 1e-5, 1e-6];
    let errors: Vec<f64> = kappas
        .iter()
        .map(|&kappa| {
            let r = described_run(kappa, v, 3.0, IntegratorKind::Dop853);
            let t = single_joint_stop(&r);
            let q = [r.q_end[0], r.q_end[1], r.q_end[3]];
            (0..3)
                .map(|i| (q[i] - pose[i]).abs())
                .fold((t - t_rigid).abs(), f64::max)
        })
        .collect();
    eprintln!("reduced rigid stop {t_rigid}, pose {pose:?}; errors {errors:?}");
    let n = kappas.len() as f64;
    let x: Vec<f64> = kappas.iter().map(|k| k.log10()).collect();
    let y: Vec<f64> = errors.iter().map(|e| e.log10()).collect();
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let slope = x
        .iter()
        .zip(&y)
        .map(|(a, b)| (a - mx) * (b - my))
        .sum::<f64>()
        / x.iter().map(|a| (a - mx).powi(2)).sum::<f64>();
    eprintln!("rate {slope}");
    assert!(
        (slope - 1.0).abs() < 0.15,
        "rate {slope}, errors {errors:?}"
    );
    assert!(errors[3] < 1e-5, "{errors:?}");
}

/// Kinetic + gravity + spring energy at the end = at the start + the friction work + the
/// dashpots' work (+ the stop impulse's, of rounding size), to 1e-9; each term is not small.
#[test]
fn the_energy_balance_closes() {
    let v = [1.0, 0.5, 1.5];
    let kappa = 1e-4;
    let rod = FlatRod;
    let run = twin_run(kappa, v, 3.0, IntegratorKind::Dop853);
    let problem = SpatialMultiProblem::new(&rod, laws(kappa)).unwrap();
    let layout = problem.layout();
    let y = &run.trace.y_end;
    let friction = y[layout.friction_work()];
    let contacts = y[layout.contact_work()];
    let initial = 0.5 * (v[0] * v[0] + v[1] * v[1]) + 0.5 * INERTIA * v[2] * v[2];
    let end = problem.mechanical_energy(run.trace.mode_end, y);
    assert!(
        (friction + initial).abs() < 1e-3,
        "friction work {friction}"
    );
    assert!(contacts < -1e-6, "dashpot work {contacts}");
    assert!(
        (end - initial - friction - contacts).abs() < 1e-9,
        "{end} against {initial} + {friction} + {contacts}"
    );
    assert!(run.energy_balance_error.abs() < 1e-9);
}

/// The tangential impulses sum to the change of horizontal momentum, and the normal impulses
/// less the weight's impulse to the vertical one (m = 1).
#[test]
fn the_impulses_sum_to_the_change_of_momentum() {
    let v = [1.0, 0.5, 1.5];
    let t_end = 3.0;
    let run = twin_run(1e-4, v, t_end, IntegratorKind::Dop853);
    let y = &run.trace.y_end;
    for j in 0..2 {
        let impulse: f64 = run.impulse_tangential.iter().map(|p| p[j]).sum();
        assert!((impulse - (y[4 + j] - v[j])).abs() < 1e-9, "tangent {j}");
    }
    let normal: f64 = run.impulse_normal.iter().sum();
    assert!((normal - G * t_end - y[6]).abs() < 1e-9, "normal {normal}");
}

/// systems/flat_rod.toml runs as the hand-coded twin; dop853 and radau5 agree.
#[test]
fn the_description_runs_as_the_twin_and_two_integrators_agree() {
    let v = [1.0, 0.5, 1.5];
    let kappa = 1e-5;
    let twin = twin_run(kappa, v, 3.0, IntegratorKind::Dop853);
    let described = described_run(kappa, v, 3.0, IntegratorKind::Dop853);
    assert_eq!(described.event_times.len(), twin.event_times.len());
    for (a, b) in described.event_times.iter().zip(&twin.event_times) {
        assert!((a - b).abs() < 1e-9, "{a} against {b}");
    }
    for i in 0..4 {
        assert!(
            (described.q_end[i] - twin.trace.y_end[i]).abs() < 1e-9,
            "q{i}"
        );
    }
    let implicit = described_run(kappa, v, 3.0, IntegratorKind::Radau5);
    assert_eq!(implicit.mode_sequence, described.mode_sequence);
    assert!((implicit.event_times[0] - described.event_times[0]).abs() < 1e-7);
    for i in 0..4 {
        assert!(
            (implicit.q_end[i] - described.q_end[i]).abs() < 1e-7,
            "q{i}"
        );
    }
}

/// A description mixing planar and spatial contacts, or whose tangents are dependent, is
/// refused in one line naming the key.
#[test]
fn bad_descriptions_are_refused_in_one_line() {
    let text = |second: &str| {
        format!(
            r#"
name = "bad"
model = "system"
[system]
coordinates = ["x", "y", "z", "phi"]
mass_matrix = [["1", "0", "0", "0"], ["0", "1", "0", "0"], ["0", "0", "1", "0"], ["0", "0", "0", "1/3"]]
force = ["0", "0", "-1", "0"]
[[system.contacts]]
name = "A"
gap = "z"
tangents = ["x + cos(phi)", "y + sin(phi)"]
mu = 0.5
[[system.contacts]]
name = "B"
gap = "z"
tangents = {second}
mu = 0.5
[system.initial]
q = ["0", "0", "0", "0"]
q_dot = ["1", "0", "0", "1"]
[sweep]
kappa = {{ min = 1e-6, max = 1e-6, per_decade = 1 }}
[solver]
integrators = ["dop853"]
rtol = 1e-10
atol = 1e-12
t_end = 1.0
"#
        )
    };
    for (second, key, hint) in [
        (
            r#"["x - cos(phi)"]"#,
            "system.contacts[1].tangents",
            "all planar or all spatial",
        ),
        (
            r#"["x - cos(phi)", "x - cos(phi)"]"#,
            "system.contacts[1].tangents",
            "must be independent",
        ),
    ] {
        let message = match Experiment::parse(&text(second)) {
            Err(e) => e.to_string(),
            Ok(Experiment::Described(spec)) => {
                let settings = RunSettings {
                    t_end: Some(1.0),
                    ..RunSettings::new(IntegratorKind::Dop853, 1e-10, 1e-12)
                };
                match Described::run(&spec.params, Method::Compliant { kappa: 1e-6 }, &settings) {
                    Err(e) => e.to_string(),
                    Ok(_) => panic!("{second} ran"),
                }
            }
            Ok(other) => panic!("read as {}", other.name()),
        };
        assert!(!message.contains('\n'), "{message}");
        assert!(message.contains(key) && message.contains(hint), "{message}");
    }
}

/// A unit mass on the floor z = 0 touching it at two points whose slip velocities are both
/// (ẋ, ẏ) but whose first tangents' drifts differ (0 and 1): sticking at both asks ẍ = 0 and
/// ẍ = −1 at once.
struct ContradictingTwins;

impl Mechanics<3> for ContradictingTwins {
    fn coordinate_names(&self) -> [&'static str; 3] {
        ["x", "y", "z"]
    }
    fn mass_matrix<S: Real>(&self, _q: &[S; 3]) -> [[S; 3]; 3] {
        let (o, z) = (S::cst(1.0), S::zero());
        [[o, z, z], [z, o, z], [z, z, o]]
    }
    fn generalized_force<S: Real>(&self, _q: &[S; 3], _qdot: &[S; 3]) -> [S; 3] {
        [S::zero(), S::zero(), S::cst(-G)]
    }
    fn potential_energy<S: Real>(&self, q: &[S; 3]) -> S {
        q[2].scale(G)
    }
}

impl SpatialContacts<3> for ContradictingTwins {
    fn contact_count(&self) -> usize {
        2
    }
    fn frame<S: Real>(&self, k: usize, q: &[S; 3], _qdot: &[S; 3]) -> ContactFrame<S, 3, 2> {
        let (o, z) = (S::cst(1.0), S::zero());
        ContactFrame {
            gap: q[2],
            normal: [z, z, o],
            tangents: [[o, z, z], [z, o, z]],
            normal_drift: z,
            tangent_drift: [S::cst(k as f64), z],
        }
    }
}

/// Dependent stick rows whose constraints contradict each other end the run at once with one
/// line naming both contacts and the pivot, instead of a guessed split.
#[test]
fn contradicting_stick_constraints_are_refused_naming_the_contacts() {
    let kappa = 1e-6;
    let problem = SpatialMultiProblem::new(&ContradictingTwins, laws(kappa)).unwrap();
    let control = to_time(1.0);
    let e = simulate_spatial_multi(
        &problem,
        &[0.0, 0.0, -kappa * G / 2.0],
        &[0.0; 3],
        IntegratorKind::Dop853,
        tolerances(),
        &control,
    )
    .unwrap_err()
    .to_string();
    assert!(!e.contains('\n'), "{e}");
    assert!(
        e.contains("contact 0 and contact 1 cannot all stick") && e.contains("relative pivot"),
        "{e}"
    );
}

/// K = 1 is the single spatial contact: Klarbring's particle in 3D (systems/klarbring_3d.toml,
/// its load F(t), κ = 1e-6) from the quasi-static penetration to t = 14 — stick breaks, curved
/// slips, 3D stops, lift-offs and compliant impacts, 12 events — on this formulation and on
/// compliant::spatial (its stored slip direction and Taylor-chosen modes at rest): the same
/// events within 1e-8 (measured 4e-10) and the same end state within 1e-8 (measured 3e-11).
#[test]
fn one_contact_runs_as_the_single_spatial_contact() {
    use rigid_limit::models::described::mechanics::DescribedMechanics;
    let kappa = 1e-6;
    let t_end = 14.0;
    let d = description_of("systems/klarbring_3d.toml", kappa);
    let settings = RunSettings {
        t_end: Some(t_end),
        ..RunSettings::new(IntegratorKind::Dop853, 1e-10, 1e-12)
    };
    let single = Described::run(&d, Method::Compliant { kappa }, &settings)
        .unwrap()
        .0;
    let compiled = d.compile().unwrap();
    let mechanics = DescribedMechanics::<3>::new(&compiled);
    let law = ConeLaw {
        compliance: NormalCompliance::spring_dashpot(kappa, compiled.contacts[0].damping),
        mu: compiled.contacts[0].mu,
    };
    let problem = SpatialMultiProblem::new(&mechanics, vec![law]).unwrap();
    let (q0, qdot0) = d.initial_state(kappa).unwrap();
    let control = to_time(t_end);
    let run = simulate_spatial_multi(
        &problem,
        &[q0[0], q0[1], q0[2]],
        &[qdot0[0], qdot0[1], qdot0[2]],
        IntegratorKind::Dop853,
        tolerances(),
        &control,
    )
    .unwrap();
    assert_eq!(run.trace.events.len(), 12);
    let kinds: Vec<&str> = run
        .trace
        .events
        .iter()
        .map(|e| e.event.event.name())
        .collect();
    assert_eq!(single.event_kinds, kinds.join(" "));
    for (a, b) in single.event_times.iter().zip(&run.event_times) {
        assert!((a - b).abs() < 1e-8, "{a} against {b}");
    }
    for i in 0..3 {
        assert!((single.q_end[i] - run.trace.y_end[i]).abs() < 1e-8, "q{i}");
        assert!(
            (single.q_dot_end[i] - run.trace.y_end[3 + i]).abs() < 1e-8,
            "q̇{i}"
        );
    }
}
