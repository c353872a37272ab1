//! Several contacts at once (docs/multi_contact.md): the compliant formulation of K planar
//! contacts against the single-contact formulation (K = 1, the Painlevé rod) and against the
//! closed forms of a rectangular box sliding on its two bottom corners: the deceleration μg, the
//! stop at v₀/(μg), the split of the normal forces by the friction moment, N_front − N_rear =
//! μgh/w, and the tipping threshold μh/w = 1; energy balance and impulse–momentum throughout.

use crate::common::{described, run_and_report, system_experiment};
use rigid_limit::compliant::coulomb::{Coulomb, Mode};
use rigid_limit::compliant::multi::{
    is_separation, simulate_multi, ContactLaw, Modes, MultiContactProblem, MultiRun, OneContact,
    PlanarContacts,
};
use rigid_limit::compliant::normal::NormalCompliance;
use rigid_limit::compliant::record::RunRecord;
use rigid_limit::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use rigid_limit::hybrid::{Named, RunControl, Trace, Until};
use rigid_limit::integrate::{IntegratorKind, Tolerances};
use rigid_limit::model::{ContactKinematics, Mechanics, Real};
use rigid_limit::models::rod::mechanics::PainleveRod;

/// A uniform rectangular box of unit mass, half-width w and half-height h, under gravity g on
/// the floor, q = (x, z, θ): its centre at (x, h + z), so that z is O(κ) while the box rests
/// on its corners. Contacts at its bottom corners (s w, −h) in the body frame, s = −1 (rear) and
/// +1 (front); corner s is at (x + s w cos θ + h sin θ, z + h(1 − cos θ) + s w sin θ). The gap
/// is written without cancellation (1 − cos θ = 2 sin²(θ/2), and no O(1) height minus O(1)
/// height): its rounding is relative to the penetration, not to h (docs/multi_contact.md).
struct Box2 {
    w: f64,
    h: f64,
    g: f64,
    /// A horizontal force on the centre.
    push: f64,
}

impl Mechanics<3> for Box2 {
    fn coordinate_names(&self) -> [&'static str; 3] {
        ["x", "y", "theta"]
    }
    fn mass_matrix<S: Real>(&self, _q: &[S; 3]) -> [[S; 3]; 3] {
        let (o, z) = (S::cst(1.0), S::zero());
        let inertia = S::cst((self.w * self.w + self.h * self.h) / 3.0);
        [[o, z, z], [z, o, z], [z, z, inertia]]
    }
    fn generalized_force<S: Real>(&self, _q: &[S; 3], _qdot: &[S; 3]) -> [S; 3] {
        [S::cst(self.push), S::cst(-self.g), S::zero()]
    }
    /// Gravity's and the constant push's: g z − P x.
    fn potential_energy<S: Real>(&self, q: &[S; 3]) -> S {
        q[1].scale(self.g) - q[0].scale(self.push)
    }
}

impl PlanarContacts<3> for Box2 {
    fn contact_count(&self) -> usize {
        2
    }
    fn contact<S: Real>(&self, k: usize, q: &[S; 3], qdot: &[S; 3]) -> ContactKinematics<S, 3> {
        let s = if k == 0 { -1.0 } else { 1.0 };
        let (sin, cos) = q[2].sin_cos();
        let (o, z) = (S::cst(1.0), S::zero());
        // ∂(corner y)/∂θ and ∂(corner x)/∂θ.
        let lever_normal = cos.scale(s * self.w) + sin.scale(self.h);
        let lever_tangent = cos.scale(self.h) - sin.scale(s * self.w);
        let omega2 = qdot[2] * qdot[2];
        let half = q[2].scale(0.5).sin();
        ContactKinematics {
            gap: q[1] + (half * half).scale(2.0 * self.h) + sin.scale(s * self.w),
            normal: [z, o, lever_normal],
            tangential: [o, z, lever_tangent],
            normal_drift: lever_tangent * omega2,
            tangential_drift: -(lever_normal * omega2),
        }
    }
    fn contact_name(&self, k: usize) -> String {
        ["rear corner", "front corner"][k].to_string()
    }
}

impl Box2 {
    /// The corners' normal forces δ/κ at (z, θ).
    fn normal_forces(&self, kappa: f64, y: f64, theta: f64) -> [f64; 2] {
        [0, 1].map(|k| {
            let kin = self.contact::<f64>(k, &[0.0, y, theta], &[0.0; 3]);
            -kin.gap / kappa
        })
    }

    /// The state (z, θ) in which the box slides to the right on both corners with every force
    /// balanced but the friction's along x: N_rear + N_front = g, and the moment of the normal
    /// forces balances that of friction −μN_k at each corner (Newton on the two residuals).
    fn sliding_equilibrium(&self, kappa: f64, mu: f64) -> (f64, f64) {
        let residual = |y: f64, theta: f64| {
            let n = self.normal_forces(kappa, y, theta);
            let mut moment = 0.0;
            for (k, nk) in n.iter().enumerate() {
                let kin = self.contact::<f64>(k, &[0.0, y, theta], &[0.0; 3]);
                moment += nk * (kin.normal[2] - mu * kin.tangential[2]);
            }
            [n[0] + n[1] - self.g, moment]
        };
        let (mut y, mut theta) = (-kappa * self.g / 2.0, 0.0);
        for _ in 0..50 {
            let r = residual(y, theta);
            let e = 1e-3 * kappa;
            let ry = residual(y + e, theta);
            let rt = residual(y, theta + e);
            let j = [
                [(ry[0] - r[0]) / e, (rt[0] - r[0]) / e],
                [(ry[1] - r[1]) / e, (rt[1] - r[1]) / e],
            ];
            let det = j[0][0] * j[1][1] - j[0][1] * j[1][0];
            y -= (j[1][1] * r[0] - j[0][1] * r[1]) / det;
            theta -= (-j[1][0] * r[0] + j[0][0] * r[1]) / det;
        }
        (y, theta)
    }
}

fn laws(kappa: f64, mu: f64) -> Vec<ContactLaw> {
    vec![
        ContactLaw {
            compliance: NormalCompliance::linear_spring(kappa),
            friction: Coulomb::equal(mu),
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

/// The first transition in which a contact stops sliding ends the run.
fn slip_ends(from: Modes, to: Modes) -> bool {
    from.iter()
        .zip(to.iter())
        .any(|(a, b)| a.slip_sign() != 0 && b != a)
}

/// A run to the fixed time `t_end`.
fn to_time(t_end: f64) -> RunControl<Modes> {
    RunControl {
        until: Until::Time(t_end),
        ..until(|_, _| false, t_end)
    }
}

fn until(stop: fn(Modes, Modes) -> bool, t_max: f64) -> RunControl<Modes> {
    RunControl {
        until: Until::Transition { t_max, stop },
        output_times: Vec::new(),
        max_events: 100,
        max_steps: 1_000_000,
        absolute_tolerances: None,
    }
}

/// The modes of each phase of a run.
fn phase_names<E>(trace: &Trace<Modes, E>) -> Vec<&'static str> {
    trace.phases.iter().map(|p| p.mode.name()).collect()
}

/// Zhao–Liu's impact of the rod (θ0 = 1.3, u0 = −1, μ = 2, κ = 1e-8) by `integrator` to
/// separation: on the single-contact formulation ([`ContactProblem`]), and on the multi-contact
/// one of `system`, whose `contacts` contacts all have the rod's law (contact 0 is the rod's).
fn zhao_liu_single_and_multi<Sys: PlanarContacts<3>>(
    system: &Sys,
    contacts: usize,
    integrator: IntegratorKind,
) -> (RunRecord, MultiRun) {
    let rod = PainleveRod::UNIFORM;
    let law = ContactLaw {
        compliance: NormalCompliance::linear_spring(1e-8),
        friction: Coulomb::equal(2.0),
    };
    let single = ContactProblem {
        system: &rod,
        compliance: law.compliance,
        friction: law.friction,
    };
    let multi = MultiContactProblem::new(system, vec![law; contacts]).unwrap();
    let (q0, qdot0) = ([0.0, 0.0, 1.3], [-1.0, 0.0, 0.0]);
    let mut options = SimulationOptions::new(integrator, 1e-12, 1e-14);
    options.end = EndCondition::Separation;
    let hand = simulate(&single, &q0, &qdot0, &options).unwrap();
    let run = simulate_multi(
        &multi,
        &q0,
        &qdot0,
        integrator,
        options.tolerances,
        &until(is_separation, options.t_max),
    )
    .unwrap();
    (hand, run)
}

/// Started in its sliding equilibrium at v₀ = 1, the box slides on both corners, decelerating
/// at exactly μg (N_rear + N_front = g while z and θ stay put), so both corners stop together
/// at t = v₀/(μg); the normal forces split as N_front − N_rear = μgh/w + O(κ) (the moment of
/// friction about the centre, h μ g, balanced by the normal forces' w (N_front − N_rear)).
#[test]
fn a_box_sliding_on_two_corners_decelerates_at_mu_g_and_splits_its_weight_by_the_friction_moment() {
    let (w, h, g, mu, kappa, v0) = (0.5, 0.3, 1.0, 0.4, 1e-6, 1.0);
    let body = Box2 { w, h, g, push: 0.0 };
    let (y, theta) = body.sliding_equilibrium(kappa, mu);
    let problem = MultiContactProblem::new(&body, laws(kappa, mu)).unwrap();
    let t_stop = v0 / (mu * g);
    for integrator in [
        IntegratorKind::Dop853,
        IntegratorKind::Radau5,
        IntegratorKind::Tsit45,
    ] {
        let run = simulate_multi(
            &problem,
            &[0.0, y, theta],
            &[v0, 0.0, 0.0],
            integrator,
            tolerances(),
            &until(slip_ends, 10.0),
        )
        .unwrap();
        let first = run.trace.events.first().expect("the slip stops");
        assert_eq!(run.trace.phases[0].mode.name(), "slide_right,slide_right");
        assert!(
            (first.t - t_stop).abs() < 1e-8,
            "{integrator}: stop at {} against {t_stop}",
            first.t
        );
        // Impulse–momentum along x (unit mass): Δẋ = Σ ∫F_τ dt.
        let qdot_x = run.trace.y_end[3];
        let tangential: f64 = run.impulse_tangential.iter().sum();
        assert!((qdot_x - v0 - tangential).abs() < 1e-9, "{integrator}");
        // The weight carried: Σ ∫F_n dt = g t (ÿ = 0 throughout).
        let normal: f64 = run.impulse_normal.iter().sum();
        assert!(
            (normal - g * first.t).abs() < 1e-8,
            "{integrator}: {normal}"
        );
        // The split, averaged over the slide, against the rigid closed form.
        let split = (run.impulse_normal[1] - run.impulse_normal[0]) / first.t;
        assert!(
            (split - mu * g * h / w).abs() < 1e-4,
            "{integrator}: N_front − N_rear = {split} against {}",
            mu * g * h / w
        );
        assert!(
            run.energy_balance_error.abs() < 1e-9,
            "{integrator}: {}",
            run.energy_balance_error
        );
        // Stationary in z and θ: the penetrations stay at their start.
        assert!((run.trace.y_end[1] - y).abs() < 1e-12, "{integrator}");
        assert!((run.trace.y_end[2] - theta).abs() < 1e-12, "{integrator}");
    }
}

/// The tipping threshold μh/w = 1: started in the sliding equilibrium of μh/w = 0.95, the box
/// slides on both corners to the stop with μh/w = 0.9 (the rear force oscillates about its new
/// level g(1 − 0.9)/2 > 0 by the step it was given, g·0.05/2), and tips forward at once
/// (the rear corner lifts off) with μh/w = 1.05, where no sliding state with both corners
/// down exists (the rear's force would be g(1 − 1.05)/2 < 0).
#[test]
fn the_box_tips_forward_beyond_the_threshold_mu_h_over_w_equal_to_one() {
    let (w, h, g, kappa) = (0.5, 0.5, 1.0, 1e-6);
    let body = Box2 { w, h, g, push: 0.0 };
    let (y, theta) = body.sliding_equilibrium(kappa, 0.95 * w / h);
    let stops = |from: Modes, to: Modes| {
        slip_ends(from, to) || (from.get(0).is_contact() && to.get(0) == Mode::Free)
    };
    for (ratio, lifts) in [(0.9, false), (1.05, true)] {
        let mu = ratio * w / h;
        let problem = MultiContactProblem::new(&body, laws(kappa, mu)).unwrap();
        let run = simulate_multi(
            &problem,
            &[0.0, y, theta],
            &[1.0, 0.0, 0.0],
            IntegratorKind::Dop853,
            tolerances(),
            &until(stops, 10.0),
        )
        .unwrap();
        let end = run.trace.events.last().expect("an event ends the run");
        assert_eq!(
            end.to.get(0) == Mode::Free,
            lifts,
            "μh/w = {ratio}: {} at t = {}",
            end.to.name(),
            end.t
        );
        if lifts {
            // Within a few normal periods 2π√κ of the start.
            assert!(end.t < 20.0 * kappa.sqrt(), "{}", end.t);
        } else {
            // The stop of the rigid slide, shifted by the box's rocking on its springs (excited
            // by the start in another equilibrium: a velocity O(ΔN √κ) ≈ 2.5e-5 in the slip).
            assert!((end.t - 1.0 / (mu * g)).abs() < 1e-4, "{}", end.t);
            assert!(slip_ends(end.from, end.to), "{}", end.to.name());
        }
        assert!(run.energy_balance_error.abs() < 1e-9, "{ratio}");
    }
}

/// With one contact the formulation is the single-contact one: Zhao–Liu's impact of the rod
/// (θ0 = 1.3, u0 = −1, μ = 2, κ = 1e-8) gives the same modes, event times, end state and
/// normal impulse as [`ContactProblem`].
#[test]
fn one_contact_runs_as_the_single_contact_formulation() {
    let rod = PainleveRod::UNIFORM;
    let one = OneContact(&rod);
    for integrator in [IntegratorKind::Dop853, IntegratorKind::Radau5] {
        let (hand, run) = zhao_liu_single_and_multi(&one, 1, integrator);
        let modes = phase_names(&run.trace);
        assert_eq!(modes.join(">"), hand.modes_joined(">"), "{integrator}");
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-6);
        let times: Vec<f64> = run.trace.events.iter().map(|e| e.t).collect();
        let hand_times: Vec<f64> = hand.events.iter().map(|e| e.t).collect();
        assert_eq!(times.len(), hand_times.len(), "{integrator}");
        for (a, b) in times.iter().zip(&hand_times) {
            assert!(close(*a, *b), "{integrator}: event at {a} against {b}");
        }
        for i in 0..3 {
            assert!(
                close(run.trace.y_end[i], hand.final_q[i]),
                "{integrator}: q{i}"
            );
            assert!(
                close(run.trace.y_end[3 + i], hand.final_qdot[i]),
                "{integrator}: q̇{i}"
            );
        }
        assert!(
            close(run.impulse_normal[0], hand.impulse_normal),
            "{integrator}"
        );
        assert!(run.energy_balance_error.abs() < 1e-9, "{integrator}");
    }
}

/// A box at rest flat on its two corners, pushed at its centre by P: their tangential rows
/// coincide (ẋ + hθ̇ at each), so only the sum of the friction forces is determined; the split
/// loads both corners to the same fraction of their cones, λ_k = −P N_k/(N_rear + N_front).
/// Below μg the box stays at rest on both corners (up to O(κ)); above, it slides off at once,
/// accelerating at P − μg.
#[test]
fn a_pushed_box_sticks_on_both_corners_below_mu_g_and_slides_above() {
    let (w, h, g, mu, kappa) = (0.5, 0.3, 1.0, 0.5, 1e-6);
    for push in [0.3, 0.7] {
        let body = Box2 { w, h, g, push };
        let problem = MultiContactProblem::new(&body, laws(kappa, mu)).unwrap();
        let control = to_time(1.0);
        // At rest on both corners, pressed in by g/2 each.
        let run = simulate_multi(
            &problem,
            &[0.0, -kappa * g / 2.0, 0.0],
            &[0.0; 3],
            IntegratorKind::Dop853,
            tolerances(),
            &control,
        )
        .unwrap_or_else(|e| panic!("push {push}: {e}"));
        let y = &run.trace.y_end;
        if push < mu * g {
            assert_eq!(
                run.trace.phases[0].mode.name(),
                "stick,stick",
                "push {push}"
            );
            assert!(
                run.trace.events.is_empty(),
                "push {push}: {:?}",
                run.trace.events
            );
            // At rest up to O(κ): the push's moment rocks the box on its springs, the corners'
            // mean slip ẋ + hθ̇ held at zero.
            assert!(
                y[0].abs() < kappa && (y[3] + h * y[5]).abs() < 1e-9,
                "push {push}: {y:?}"
            );
            // Each corner's share in proportion to its normal force, at the end state: λ_k/N_k
            // the same at both (the box rocks, so N_k and the shares change in time).
            let f = problem.forces(run.trace.mode_end, y);
            let share = |k: usize| f.tangential[k] / f.normal[k];
            assert!(
                (share(0) - share(1)).abs() < 1e-6 * share(0).abs(),
                "push {push}: {} {}",
                share(0),
                share(1)
            );
            assert!(share(0).abs() < mu, "push {push}: inside the cone");
        } else {
            let modes = phase_names(&run.trace);
            assert_eq!(modes.last(), Some(&"slide_right,slide_right"), "{modes:?}");
            // ẋ(1) = (P − μg)·1 up to the O(√κ) start of the slide.
            assert!(
                (y[3] - (push - mu * g)).abs() < 1e-3,
                "push {push}: ẋ {}",
                y[3]
            );
        }
        assert!(run.energy_balance_error.abs() < 1e-9, "push {push}");
    }
}

/// Past the stop both corners stick (their rows parallel up to the tilt O(κ) of the box on its
/// springs, the force split as above): the box rests at x = v₀²/(2μg) + O(κ) to t = 3.
#[test]
fn the_sliding_box_comes_to_rest_on_both_corners_at_its_stop() {
    let (w, h, g, mu, v0) = (0.5, 0.3, 1.0, 0.4, 1.0);
    let body = Box2 { w, h, g, push: 0.0 };
    for kappa in [1e-2, 1e-4, 1e-6, 1e-8] {
        let (z, theta) = body.sliding_equilibrium(kappa, mu);
        let problem = MultiContactProblem::new(&body, laws(kappa, mu)).unwrap();
        let control = to_time(3.0);
        let run = simulate_multi(
            &problem,
            &[0.0, z, theta],
            &[v0, 0.0, 0.0],
            IntegratorKind::Dop853,
            tolerances(),
            &control,
        )
        .unwrap_or_else(|e| panic!("κ {kappa}: {e}"));
        let modes = phase_names(&run.trace);
        assert_eq!(
            modes,
            ["slide_right,slide_right", "stick,stick"],
            "κ {kappa}"
        );
        assert!(
            (run.trace.events[0].t - v0 / (mu * g)).abs() < 1e-8,
            "κ {kappa}"
        );
        let y = &run.trace.y_end;
        let rest = v0 * v0 / (2.0 * mu * g);
        // At rest up to O(κ): the stop left the box rocking on its springs, the corners' mean
        // slip ẋ + hθ̇ held at zero (each corner slips by ±w θ θ̇, second order).
        assert!(
            (y[0] - rest).abs() < kappa && (y[3] + h * y[5]).abs() < kappa,
            "κ {kappa}: x − rest {:e}, ẋ + hθ̇ {:e}",
            y[0] - rest,
            y[3] + h * y[5]
        );
        assert!(run.energy_balance_error.abs() < 1e-9, "κ {kappa}");
    }
}

/// Zhao–Liu's impact of the rod with both ends as contacts: B stays up (its closing is watched
/// and never reached), so the run is the single-contact rod's.
#[test]
fn the_two_ended_rod_runs_as_the_single_contact_rod_while_its_far_end_stays_up() {
    use rigid_limit::models::rod::two_ends::TwoEndedRod;
    let two = TwoEndedRod(PainleveRod::UNIFORM);
    let (hand, run) = zhao_liu_single_and_multi(&two, 2, IntegratorKind::Dop853);
    let modes = phase_names(&run.trace);
    assert_eq!(modes, ["slide_left,free", "stick,free", "slide_right,free"]);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-6);
    for (e, h) in run.trace.events.iter().zip(&hand.events) {
        assert!(close(e.t, h.t), "event at {} against {}", e.t, h.t);
        assert_eq!(e.event.contact, 0);
    }
    for i in 0..3 {
        assert!(close(run.trace.y_end[3 + i], hand.final_qdot[i]), "q̇{i}");
    }
    assert!(close(run.impulse_normal[0], hand.impulse_normal));
    assert_eq!((run.impulse_normal[1], run.max_penetration[1]), (0.0, 0.0));
}

/// The rod dropped flat from height 0.1 while sliding at ẋ = 1 lands on both ends at once
/// (t₁ = √0.2, speed v = √0.2): the two closings are one instant (taken in the contacts'
/// order), the symmetric impact leaves θ at 0, both ends open together (in the order rounding
/// decides) after t_c = √(κ/2)(π + 2 atan(g√(κ/2)/v)) (two springs of
/// stiffness 1/κ on the unit mass), the rod leaves at +v and, sliding throughout,
/// ẋ = 1 − μ(2v + g t_c).
#[test]
fn a_rod_dropped_flat_lands_on_both_ends_at_once_and_leaves_as_the_closed_form() {
    use rigid_limit::models::rod::two_ends::TwoEndedRod;
    let (kappa, mu, g, height) = (1e-6, 0.3, 1.0, 0.1);
    let two = TwoEndedRod(PainleveRod::UNIFORM);
    let multi = MultiContactProblem::new(&two, laws(kappa, mu)).unwrap();
    let v = (2.0 * g * height).sqrt();
    let t1 = v / g;
    let sk = (kappa / 2.0).sqrt();
    let t_contact = sk * (std::f64::consts::PI + 2.0 * (g * sk / v).atan());
    for integrator in [IntegratorKind::Dop853, IntegratorKind::Radau5] {
        let run = simulate_multi(
            &multi,
            &[0.0, height, 0.0],
            &[1.0, 0.0, 0.0],
            integrator,
            tolerances(),
            &until(is_separation, 2.0),
        )
        .unwrap();
        let events: Vec<(usize, &str)> = run
            .trace
            .events
            .iter()
            .map(|e| (e.event.contact, e.event.name()))
            .collect();
        assert_eq!(
            &events[..2],
            &[(0, "contact_closes"), (1, "contact_closes")],
            "{integrator}"
        );
        assert_eq!(events.len(), 4, "{integrator}: {events:?}");
        assert!(
            events[2..].iter().all(|e| e.1 == "contact_opens") && events[2].0 != events[3].0,
            "{integrator}: {events:?}"
        );
        let t: Vec<f64> = run.trace.events.iter().map(|e| e.t).collect();
        assert!(
            (t[0] - t1).abs() < 1e-9 && t[1] == t[0],
            "{integrator}: {t:?}"
        );
        assert!(
            (t[2] - t[0] - t_contact).abs() < 1e-9 * t_contact.max(1e-3) && t[3] == t[2],
            "{integrator}: contact {} against {t_contact}",
            t[2] - t[0]
        );
        let y = &run.trace.y_end;
        assert!(
            y[2].abs() < 1e-12 && y[5].abs() < 1e-9,
            "{integrator}: θ {} θ̇ {}",
            y[2],
            y[5]
        );
        assert!((y[4] - v).abs() < 1e-8, "{integrator}: ẏ {}", y[4]);
        let dx = 1.0 - mu * (2.0 * v + g * t_contact);
        assert!(
            (y[3] - dx).abs() < 1e-8,
            "{integrator}: ẋ {} against {dx}",
            y[3]
        );
        assert!(run.energy_balance_error.abs() < 1e-9, "{integrator}");
    }
}

/// The rod dropped nearly flat (θ0 = 0.1, A 0.05 above the floor, falling at 1) lands on A, then
/// on B; over the run to t = 1 the impulses account for the centre's momentum, Δẋ_c = ΣP_τ and
/// Δẏ_c = ΣP_n − g t, and the energy for the friction's work.
#[test]
fn a_rod_dropped_nearly_flat_lands_on_a_then_b_with_momentum_and_energy_accounted() {
    use rigid_limit::models::rod::two_ends::TwoEndedRod;
    let (kappa, mu) = (1e-6, 0.3);
    let two = TwoEndedRod(PainleveRod::UNIFORM);
    let multi = MultiContactProblem::new(&two, laws(kappa, mu)).unwrap();
    let (q0, qdot0) = ([0.0, 0.05, 0.1], [0.5, -1.0, 0.0]);
    let t_end = 1.0;
    let control = to_time(t_end);
    let centre = |y: &[f64]| (y[3] - y[2].sin() * y[5], y[4] + y[2].cos() * y[5]);
    for integrator in [IntegratorKind::Dop853, IntegratorKind::Radau5] {
        let run = simulate_multi(&multi, &q0, &qdot0, integrator, tolerances(), &control).unwrap();
        let closes: Vec<usize> = run
            .trace
            .events
            .iter()
            .filter(|e| e.event.name() == "contact_closes")
            .map(|e| e.event.contact)
            .collect();
        assert_eq!(&closes[..2], &[0, 1], "{integrator}: {closes:?}");
        let start = centre(&[q0[0], q0[1], q0[2], qdot0[0], qdot0[1], qdot0[2]]);
        let end = centre(&run.trace.y_end);
        let pt: f64 = run.impulse_tangential.iter().sum();
        let pn: f64 = run.impulse_normal.iter().sum();
        assert!(
            (end.0 - start.0 - pt).abs() < 1e-8,
            "{integrator}: x momentum"
        );
        assert!(
            (end.1 - start.1 - (pn - t_end)).abs() < 1e-8,
            "{integrator}: y momentum"
        );
        assert!(
            run.energy_balance_error.abs() < 1e-8,
            "{integrator}: {}",
            run.energy_balance_error
        );
    }
}

/// A description of systems/ as the experiment's parameters, at compliance `kappa`.
fn description(file: &str, kappa: f64) -> rigid_limit::models::described::description::Description {
    let solver = "integrators = [\"dop853\"]\nrtol = 1e-10\natol = 1e-12\nt_end = 1.0";
    described(&system_experiment(file, kappa, solver)).params
}

/// The described system (several contacts) and the hand-coded one from the same start to
/// `t_end`: the same events and end state within 1e-9, and per contact the same impulse.
fn assert_described_as_hand_coded<Sys: PlanarContacts<3>>(
    file: &str,
    hand: &Sys,
    kappa: f64,
    mu: f64,
    start: ([f64; 3], [f64; 3]),
    t_end: f64,
) {
    use rigid_limit::experiment::system::{Method, RunSettings, System};
    use rigid_limit::models::described::Described;
    let d = description(file, kappa);
    let problem = MultiContactProblem::new(hand, laws(kappa, mu)).unwrap();
    let control = to_time(t_end);
    for integrator in [IntegratorKind::Dop853, IntegratorKind::Radau5] {
        let settings = RunSettings {
            t_end: Some(t_end),
            ..RunSettings::new(integrator, 1e-10, 1e-12)
        };
        let (record, _) = Described::run(&d, Method::Compliant { kappa }, &settings).unwrap();
        let run = simulate_multi(
            &problem,
            &start.0,
            &start.1,
            integrator,
            tolerances(),
            &control,
        )
        .unwrap_or_else(|e| panic!("{file} {integrator}: {e}"));
        let what = format!("{file}, {integrator}");
        assert_record_as_run(&record, &run.trace, &run.impulse_normal, &what);
        assert!(record.energy_balance_error.unwrap().abs() < 1e-8, "{what}");
    }
}

/// A described system's record (three coordinates) against a hand-coded run's trace and
/// per-contact normal impulses: the same modes, events, end state and impulses within 1e-9.
fn assert_record_as_run<E>(
    record: &rigid_limit::models::described::Record,
    trace: &Trace<Modes, E>,
    impulse_normal: &[f64],
    what: &str,
) {
    assert_eq!(record.mode_sequence, phase_names(trace).join(">"), "{what}");
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-3);
    assert_eq!(record.event_times.len(), trace.events.len(), "{what}");
    for (a, e) in record.event_times.iter().zip(&trace.events) {
        assert!(close(*a, e.t), "{what}: event at {a} against {}", e.t);
    }
    for i in 0..3 {
        assert!(close(record.q_end[i], trace.y_end[i]), "{what}: q{i}");
        assert!(
            close(record.q_dot_end[i], trace.y_end[3 + i]),
            "{what}: q̇{i}"
        );
    }
    for (a, b) in record.impulse_normal.iter().zip(impulse_normal) {
        assert!(close(*a, *b), "{what}: impulse {a} against {b}");
    }
}

/// systems/two_ended_rod.toml runs as `TwoEndedRod` (dropped nearly flat, lands on A then B).
#[test]
fn the_described_two_ended_rod_runs_as_the_hand_coded_one() {
    use rigid_limit::models::rod::two_ends::TwoEndedRod;
    let kappa = 1e-6;
    let start = ([0.0, 0.05, 0.1], [0.5, -1.0, 0.0]);
    let rod = TwoEndedRod(PainleveRod::UNIFORM);
    assert_described_as_hand_coded("systems/two_ended_rod.toml", &rod, kappa, 0.3, start, 1.0);
}

/// systems/box.toml runs as `Box2` (sliding on both corners from the statical penetrations).
#[test]
fn the_described_box_runs_as_the_hand_coded_one() {
    let kappa = 1e-6;
    let body = Box2 {
        w: 0.5,
        h: 0.3,
        g: 1.0,
        push: 0.0,
    };
    let start = ([0.0, -kappa / 2.0, 0.0], [1.0, 0.0, 0.0]);
    assert_described_as_hand_coded("systems/box.toml", &body, kappa, 0.4, start, 1.0);
}

/// A unit mass on the floor y = 0 touching it at two points whose slip velocities are both ẋ but
/// whose tangential drifts differ (0 and 1): sticking at both asks ẍ = 0 and ẍ = −1 at once.
struct ContradictingTwins;

impl Mechanics<2> for ContradictingTwins {
    fn coordinate_names(&self) -> [&'static str; 2] {
        ["x", "y"]
    }
    fn mass_matrix<S: Real>(&self, _q: &[S; 2]) -> [[S; 2]; 2] {
        [[S::cst(1.0), S::zero()], [S::zero(), S::cst(1.0)]]
    }
    fn generalized_force<S: Real>(&self, _q: &[S; 2], _qdot: &[S; 2]) -> [S; 2] {
        [S::zero(), S::cst(-1.0)]
    }
    fn potential_energy<S: Real>(&self, q: &[S; 2]) -> S {
        q[1]
    }
}

impl PlanarContacts<2> for ContradictingTwins {
    fn contact_count(&self) -> usize {
        2
    }
    fn contact<S: Real>(&self, k: usize, q: &[S; 2], _qdot: &[S; 2]) -> ContactKinematics<S, 2> {
        ContactKinematics {
            gap: q[1],
            tangential: [S::cst(1.0), S::zero()],
            normal: [S::zero(), S::cst(1.0)],
            normal_drift: S::zero(),
            tangential_drift: S::cst(k as f64),
        }
    }
}

/// Dependent stick rows whose constraints contradict each other end the run at once with an
/// error naming both contacts, instead of a guessed split.
#[test]
fn contradicting_stick_constraints_are_refused_naming_the_contacts() {
    let kappa = 1e-6;
    let problem = MultiContactProblem::new(&ContradictingTwins, laws(kappa, 0.5)).unwrap();
    let e = simulate_multi(
        &problem,
        &[0.0, -kappa / 2.0],
        &[0.0; 2],
        IntegratorKind::Dop853,
        tolerances(),
        &until(is_separation, 1.0),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("contact 0 and contact 1 cannot all stick") && e.contains("contradict"),
        "{e}"
    );
}

/// Every integrator on one scenario of several contacts: the rod dropped nearly flat (as above)
/// to t = 0.5, through A's landing, B's and the phases that follow, against dop853 at rtol
/// 1e-12: the same 8 events of the same contacts in the same order, and the end state (q, q̇)
/// within 1e-7 (measured: esdirk34 3.6e-8, bdf and tr-bdf2 about 3e-9, the others ≤ 1e-10).
#[test]
fn every_integrator_runs_the_nearly_flat_drop_of_the_two_ended_rod_alike() {
    use rigid_limit::models::rod::two_ends::TwoEndedRod;
    let (kappa, mu) = (1e-6, 0.3);
    let two = TwoEndedRod(PainleveRod::UNIFORM);
    let multi = MultiContactProblem::new(&two, laws(kappa, mu)).unwrap();
    let (q0, qdot0) = ([0.0, 0.05, 0.1], [0.5, -1.0, 0.0]);
    let control = to_time(0.5);
    let reference = simulate_multi(
        &multi,
        &q0,
        &qdot0,
        IntegratorKind::Dop853,
        Tolerances {
            rtol: 1e-12,
            atol: 1e-14,
        },
        &control,
    )
    .unwrap();
    let events = |run: &rigid_limit::compliant::multi::MultiRun| -> Vec<(usize, &'static str)> {
        run.trace
            .events
            .iter()
            .map(|e| (e.event.contact, e.event.name()))
            .collect()
    };
    assert!(events(&reference).len() >= 4, "{:?}", events(&reference));
    for integrator in IntegratorKind::ALL {
        let run = simulate_multi(&multi, &q0, &qdot0, integrator, tolerances(), &control)
            .unwrap_or_else(|e| panic!("{integrator}: {e}"));
        assert_eq!(events(&run), events(&reference), "{integrator}");
        let worst = run
            .trace
            .y_end
            .iter()
            .zip(&reference.trace.y_end)
            .take(6)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-7, "{integrator}: end state off by {worst:e}");
        assert!(
            run.energy_balance_error.abs() < 1e-7,
            "{integrator}: {}",
            run.energy_balance_error
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The rigid reference of several contacts (rigid::multi; docs/multi_contact.md, "The rigid
// reference").

use rigid_limit::rigid::multi::{
    simulate_rigid_multi, Restitution, RigidContactLaw, RigidMultiProblem, RigidMultiRun,
};

fn rigid_laws(mu: f64, restitution: f64) -> Vec<RigidContactLaw> {
    vec![
        RigidContactLaw {
            friction: Coulomb::equal(mu),
            restitution: Restitution::Newton(restitution),
        };
        2
    ]
}

/// A run to `t_end` with the states at `outputs`.
fn rigid_control(t_end: f64, outputs: Vec<f64>) -> RunControl<Modes> {
    RunControl {
        output_times: outputs,
        ..to_time(t_end)
    }
}

/// A rigid run with dop853 at the file's tolerances.
fn rigid_run<Sys: PlanarContacts<N>, const N: usize>(
    problem: &RigidMultiProblem<'_, Sys, N>,
    q0: &[f64; N],
    qdot0: &[f64; N],
    control: &RunControl<Modes>,
) -> Result<RigidMultiRun, rigid_limit::error::SimError> {
    simulate_rigid_multi(
        problem,
        q0,
        qdot0,
        IntegratorKind::Dop853,
        tolerances(),
        control,
    )
}

/// The state `[q, q̇, 0…]` of `problem` (its impulses and work zero).
fn rigid_state<Sys: PlanarContacts<3>>(
    problem: &RigidMultiProblem<'_, Sys, 3>,
    q: [f64; 3],
    qdot: [f64; 3],
) -> Vec<f64> {
    let mut y = vec![0.0; problem.layout().len()];
    y[..3].copy_from_slice(&q);
    y[3..6].copy_from_slice(&qdot);
    y
}

/// The rigid box sliding on its two corners (w = 0.5, h = 0.3, μ = 0.4, v₀ = 1) on the plane and
/// down an incline of α = 0.2 (gravity g cos α into it, g sin α along it, at the centre): it
/// decelerates at a = μ g cos α − g sin α, so both corners stop together at v₀/a and the box
/// rests at x = v₀²/(2a); the normal forces balance the friction moment about the centre,
/// w (N_front − N_rear) = h μ (N_front + N_rear), so N_front,rear = (g cos α/2)(1 ± μh/w).
#[test]
fn the_rigid_box_slides_on_two_corners_with_the_closed_form_forces_and_stop() {
    let (w, h, g, mu, v0) = (0.5, 0.3, 1.0, 0.4, 1.0);
    for alpha in [0.0f64, 0.2] {
        let (normal, along) = (g * alpha.cos(), g * alpha.sin());
        let body = Box2 {
            w,
            h,
            g: normal,
            push: along,
        };
        let problem = RigidMultiProblem::new(&body, rigid_laws(mu, 0.0)).unwrap();
        let decel = mu * normal - along;
        let t_stop = v0 / decel;
        let split = mu * h / w;
        let expected = [normal / 2.0 * (1.0 - split), normal / 2.0 * (1.0 + split)];
        let slide = Modes::free(2)
            .with(0, Mode::SlideRight)
            .with(1, Mode::SlideRight);
        let f = problem.forces(slide, &rigid_state(&problem, [0.0; 3], [v0, 0.0, 0.0]));
        for k in 0..2 {
            assert!(
                (f[2 * k] - expected[k]).abs() < 1e-12
                    && (f[2 * k + 1] + mu * f[2 * k]).abs() < 1e-15,
                "α {alpha}: {f:?} against {expected:?}"
            );
        }
        let half = t_stop / 2.0;
        for integrator in [IntegratorKind::Dop853, IntegratorKind::Radau5] {
            let run = simulate_rigid_multi(
                &problem,
                &[0.0; 3],
                &[v0, 0.0, 0.0],
                integrator,
                tolerances(),
                &rigid_control(t_stop + 0.5, vec![half]),
            )
            .unwrap_or_else(|e| panic!("{integrator} α {alpha}: {e}"));
            assert_eq!(
                phase_names(&run.trace),
                ["slide_right,slide_right", "stick,stick"],
                "{integrator} α {alpha}"
            );
            let stop = &run.trace.events[0];
            assert_eq!((run.trace.events.len(), stop.event.name()), (1, "stop"));
            eprintln!(
                "rigid box α {alpha} {integrator}: stop {:e}, rest {:e}",
                stop.t - t_stop,
                run.trace.y_end[0] - v0 * v0 / (2.0 * decel)
            );
            assert!((stop.t - t_stop).abs() < 1e-9, "{integrator}: {}", stop.t);
            let y = &run.trace.y_end;
            assert!(
                (y[0] - v0 * v0 / (2.0 * decel)).abs() < 1e-9
                    && y[3..6].iter().all(|v| v.abs() < 1e-12)
                    && y[1].abs() < 1e-12
                    && y[2].abs() < 1e-12,
                "{integrator} α {alpha}: {y:?}"
            );
            // Halfway through the slide: x = v₀t − at²/2 and each corner's ∫N dt = N t.
            let (_, modes, mid) = &run.outputs[0];
            assert_eq!(modes.name(), "slide_right,slide_right");
            assert!((mid[0] - (v0 * half - decel * half * half / 2.0)).abs() < 1e-10);
            for k in 0..2 {
                let impulse = mid[problem.layout().impulse_normal(k)];
                assert!(
                    (impulse - expected[k] * half).abs() < 1e-10,
                    "{integrator} α {alpha}: corner {k} ∫N = {impulse}"
                );
            }
            assert!(
                run.energy_balance_error.abs() < 1e-10,
                "{integrator}: {}",
                run.energy_balance_error
            );
        }
    }
}

/// The tipping threshold μh/w = 1 (w = h = 0.5): the two-corner slide's rear force
/// (g/2)(1 − μh/w) changes sign there. Below (μh/w = 0.9) the complementarity problem at the
/// start is the two-corner slide; above (1.1) it has no two-corner solution, and its one
/// solution lifts the rear corner off (rear free, accelerating away from the floor) while the
/// front slides: the box tips forward (θ < 0, the rear corner rising).
#[test]
fn the_rigid_box_tips_forward_where_mu_h_over_w_exceeds_one() {
    let (w, h, g, v0) = (0.5, 0.5, 1.0, 1.0);
    let body = Box2 { w, h, g, push: 0.0 };
    let slide = Modes::free(2)
        .with(0, Mode::SlideRight)
        .with(1, Mode::SlideRight);
    for ratio in [0.9, 1.1] {
        let mu = ratio * w / h;
        let problem = RigidMultiProblem::new(&body, rigid_laws(mu, 0.0)).unwrap();
        let f = problem.forces(slide, &rigid_state(&problem, [0.0; 3], [v0, 0.0, 0.0]));
        assert!((f[0] - g / 2.0 * (1.0 - ratio)).abs() < 1e-12, "{f:?}");
        let run = rigid_run(
            &problem,
            &[0.0; 3],
            &[v0, 0.0, 0.0],
            &rigid_control(0.2, vec![]),
        )
        .unwrap_or_else(|e| panic!("μh/w = {ratio}: {e}"));
        let y = &run.trace.y_end;
        if ratio < 1.0 {
            assert_eq!(phase_names(&run.trace), ["slide_right,slide_right"]);
            assert!(y[2].abs() < 1e-12, "{y:?}");
        } else {
            assert_eq!(phase_names(&run.trace)[0], "free,slide_right");
            let rear = body.contact::<f64>(0, &[y[0], y[1], y[2]], &[0.0; 3]).gap;
            assert!(y[2] < 0.0 && rear > 0.0, "θ {} rear gap {rear}", y[2]);
        }
    }
}

/// The rigid rod dropped flat from height 0.1 while sliding at ẋ = 1 (μ = 0.3) lands on both
/// ends at t₁ = √0.2 with v = √0.2: one impact over both (the impulse complementarity problem
/// over the contacts at the surface). By symmetry each end takes P_N = (1 + e)v/2 and, sliding
/// through the impact (μ(1 + e)v < 1), P_T = −μP_N, with no moment about the centre (the ends
/// lie on the rod's axis): the rod leaves with ẏ = e v, ẋ = 1 − μ(1 + e)v, θ̇ = 0, the
/// momentum changed by the impulses and the kinetic energy by
/// ΔT = ½(ẋ⁺² + (e v)²) − ½(1 + v²) < 0.
#[test]
fn a_rigid_rod_dropped_flat_takes_one_impact_on_both_ends_with_the_closed_form_impulses() {
    use rigid_limit::models::rod::two_ends::TwoEndedRod;
    let (mu, g, height) = (0.3, 1.0, 0.1);
    let two = TwoEndedRod(PainleveRod::UNIFORM);
    let v = (2.0 * g * height).sqrt();
    for (e, next) in [(0.0, "slide_right,slide_right"), (0.5, "free,free")] {
        let problem = RigidMultiProblem::new(&two, rigid_laws(mu, e)).unwrap();
        let run = rigid_run(
            &problem,
            &[0.0, height, 0.0],
            &[1.0, 0.0, 0.0],
            &until(|_, _| true, 2.0),
        )
        .unwrap_or_else(|err| panic!("e {e}: {err}"));
        let impact = &run.trace.events[0];
        assert_eq!(
            (
                run.trace.events.len(),
                impact.event.name(),
                impact.to.name()
            ),
            (1, "impact", next),
            "e {e}"
        );
        assert!((impact.t - v / g).abs() < 1e-12, "e {e}: t {}", impact.t);
        let y = &run.trace.y_end;
        let pn = (1.0 + e) * v / 2.0;
        let dx = 1.0 - mu * (1.0 + e) * v;
        eprintln!(
            "flat drop e {e}: ẋ {:e} ẏ {:e} θ̇ {:e} P_N {:e} {:e}",
            y[3] - dx,
            y[4] - e * v,
            y[5],
            run.impulse_normal[0] - pn,
            run.impulse_normal[1] - pn
        );
        assert!(
            (y[3] - dx).abs() < 1e-12 && (y[4] - e * v).abs() < 1e-12 && y[5].abs() < 1e-12,
            "e {e}: q̇ {:?}",
            &y[3..6]
        );
        for k in 0..2 {
            assert!((run.impulse_normal[k] - pn).abs() < 1e-12, "e {e}: {k}");
            assert!(
                (run.impulse_tangential[k] + mu * pn).abs() < 1e-12,
                "e {e}: {k}"
            );
        }
        let loss = 0.5 * (dx * dx + e * e * v * v) - 0.5 * (1.0 + v * v);
        assert!(
            (run.impact_work - loss).abs() < 1e-12,
            "e {e}: {}",
            run.impact_work
        );
        assert!(run.energy_balance_error.abs() < 1e-12, "e {e}");
    }
}

/// The rigid rod dropped nearly flat (θ0 = 0.1, A 0.05 above the floor, falling at 1, sliding at
/// 0.5; μ = 0.3) lands on A at the free fall's t_A = √1.1 − 1, then on B. For e = 0 and ½ the
/// impacts lose energy (Σ ΔT < 0, and E = T + V never rises between output times), the energy
/// balance closes, and over the run the impulses account for the centre's momentum,
/// Δẋ_c = ΣP_T and Δẏ_c = ΣP_N − g t. Frictionless (μ = 0) with e = 1 the impacts keep T.
/// With μ = 0.3 and e = 1, A's second impact reverses its slip inside the impulse (Coulomb on
/// the post-impact slip), where Newton's law with friction would gain energy: the run ends
/// with that error naming end A rather than a state with more energy than it started with.
#[test]
fn a_rigid_rod_dropped_nearly_flat_lands_on_a_then_b_never_gaining_energy() {
    use rigid_limit::models::rod::two_ends::TwoEndedRod;
    let two = TwoEndedRod(PainleveRod::UNIFORM);
    let (q0, qdot0) = ([0.0, 0.05, 0.1], [0.5, -1.0, 0.0]);
    let t_end = 0.5;
    let outputs: Vec<f64> = (1..50).map(|i| i as f64 * 0.01).collect();
    let centre = |y: &[f64]| (y[3] - y[2].sin() * y[5], y[4] + y[2].cos() * y[5]);
    for (mu, e) in [(0.3, 0.0), (0.3, 0.5), (0.0, 1.0)] {
        let problem = RigidMultiProblem::new(&two, rigid_laws(mu, e)).unwrap();
        let run = rigid_run(
            &problem,
            &q0,
            &qdot0,
            &rigid_control(t_end, outputs.clone()),
        )
        .unwrap_or_else(|err| panic!("e {e}: {err}"));
        let events: Vec<(usize, &str)> = run
            .trace
            .events
            .iter()
            .map(|x| (x.event.contact, x.event.name()))
            .collect();
        eprintln!(
            "nearly flat μ {mu} e {e}: {events:?} {:?}, impacts ΔT {:e}, balance {:e}",
            phase_names(&run.trace),
            run.impact_work,
            run.energy_balance_error
        );
        assert_eq!(events[0], (0, "impact"), "e {e}");
        assert!((run.trace.events[0].t - (1.1f64.sqrt() - 1.0)).abs() < 1e-12);
        assert!(events.contains(&(1, "impact")), "e {e}: {events:?}");
        if mu > 0.0 {
            assert!(run.impact_work < 0.0, "e {e}: {}", run.impact_work);
        } else {
            assert!(run.impact_work.abs() < 1e-12, "e {e}: {}", run.impact_work);
        }
        let mut last = problem.mechanical_energy(&rigid_state(&problem, q0, qdot0));
        for (t, _, y) in &run.outputs {
            let energy = problem.mechanical_energy(y);
            assert!(
                energy <= last + 1e-12,
                "e {e}: E rises at t = {t}: {energy} > {last}"
            );
            last = energy;
        }
        assert!(
            run.energy_balance_error.abs() < 1e-10,
            "e {e}: {}",
            run.energy_balance_error
        );
        let start = centre(&[q0[0], q0[1], q0[2], qdot0[0], qdot0[1], qdot0[2]]);
        let end = centre(&run.trace.y_end);
        let pt: f64 = run.impulse_tangential.iter().sum();
        let pn: f64 = run.impulse_normal.iter().sum();
        assert!((end.0 - start.0 - pt).abs() < 1e-10, "e {e}: x momentum");
        assert!(
            (end.1 - start.1 - (pn - t_end)).abs() < 1e-10,
            "e {e}: y momentum"
        );
    }
    let problem = RigidMultiProblem::new(&two, rigid_laws(0.3, 1.0)).unwrap();
    let err = rigid_run(&problem, &q0, &qdot0, &rigid_control(t_end, vec![]))
        .map(|r| phase_names(&r.trace))
        .unwrap_err()
        .to_string();
    eprintln!("{err}");
    assert!(err.contains("gains energy at end A"), "{err}");
}

/// While B stays up the two-ended rod's rigid run is the rod's with A alone (K = 1 through
/// [`OneContact`]): the same events and the state just before B's first impact within 1e-12.
#[test]
fn the_rigid_two_ended_rod_is_the_one_contact_rod_until_b_lands() {
    use rigid_limit::models::rod::two_ends::TwoEndedRod;
    let rod = PainleveRod::UNIFORM;
    let two = TwoEndedRod(rod);
    let one = OneContact(&rod);
    let law = RigidContactLaw {
        friction: Coulomb::equal(0.3),
        restitution: Restitution::Newton(0.0),
    };
    let (q0, qdot0) = ([0.0, 0.05, 0.1], [0.5, -1.0, 0.0]);
    let both = RigidMultiProblem::new(&two, vec![law; 2]).unwrap();
    let a_only = RigidMultiProblem::new(&one, vec![law]).unwrap();
    let b_lands = |from: Modes, to: Modes| from.get(1) == Mode::Free && to.get(1) != Mode::Free;
    let run = rigid_run(&both, &q0, &qdot0, &until(b_lands, 2.0)).unwrap();
    // Up to just before B's impact, where the one-contact rod leaves its domain (θ = 0).
    let t_b = run.trace.events.last().unwrap().t;
    let before = rigid_run(&both, &q0, &qdot0, &to_time(t_b - 1e-3)).unwrap();
    let alone = rigid_run(&a_only, &q0, &qdot0, &to_time(t_b - 1e-3)).unwrap();
    let kinds = |r: &RigidMultiRun| -> Vec<(f64, &'static str)> {
        r.trace
            .events
            .iter()
            .map(|e| (e.t, e.event.name()))
            .collect()
    };
    eprintln!("K=2 vs K=1: {:?} {:?}", kinds(&before), kinds(&alone));
    assert_eq!(kinds(&before).len(), kinds(&alone).len());
    assert!(!kinds(&alone).is_empty());
    for (a, b) in kinds(&before).iter().zip(&kinds(&alone)) {
        assert!(
            a.1 == b.1 && (a.0 - b.0).abs() < 1e-12,
            "{a:?} against {b:?}"
        );
    }
    let worst = (0..6)
        .map(|i| (before.trace.y_end[i] - alone.trace.y_end[i]).abs())
        .fold(0.0, f64::max);
    eprintln!("K=2 vs K=1 at B's impact: {worst:e}");
    assert!(worst < 1e-12, "{worst:e}");
}

/// K = 1 is the single-contact rigid formulation ([`rigid_limit::rigid::RigidProblem`], an
/// implementation of its own: the stored slip direction, Taylor coefficients at rest, the impact
/// law in closed form): Klarbring's planar particle of experiments/klarbring_2d.toml (μ = 0.8,
/// e = 1, to t = 13.5: stick, slips, a reversal, a stop, a lift-off and three impacts) gives the
/// same events within 1e-9 and the same states at the checkpoints within 1e-9.
#[test]
fn one_contact_rigid_runs_as_the_single_contact_rigid_formulation() {
    use rigid_limit::compliant::spatial::RunSettings;
    use rigid_limit::models::klarbring::mechanics::{KlarbringParticle, LoadComponent};
    use rigid_limit::rigid::{simulate::simulate_rigid, RigidProblem};
    let particle = KlarbringParticle::new(
        [[2.0, 0.8], [0.8, 1.0]],
        [
            LoadComponent {
                constant: 1.0,
                ..Default::default()
            },
            LoadComponent {
                sin: 1.5,
                frequency: 1.0,
                ..Default::default()
            },
        ],
        "K",
    )
    .unwrap();
    let (mu, e, t_end) = (0.8, 1.0, 13.5);
    let checkpoints = vec![2.0, 5.0, 8.0, 11.0];
    let tolerances = Tolerances {
        rtol: 1e-12,
        atol: 1e-14,
    };
    let single = RigidProblem::<_, 2, 1>::new(&particle, mu, e, &[0.0; 2]).unwrap();
    let hand = simulate_rigid(
        &single,
        &[0.0; 2],
        &[0.0; 2],
        &RunSettings {
            integrator: IntegratorKind::Tsit45,
            tolerances,
            t_end,
            output_times: checkpoints.clone(),
            max_steps: 2_000_000,
            max_events: 1000,
        },
    )
    .unwrap();
    let one = OneContact(&particle);
    let law = RigidContactLaw {
        friction: Coulomb::equal(mu),
        restitution: Restitution::Newton(e),
    };
    let multi = RigidMultiProblem::new(&one, vec![law]).unwrap();
    let run = simulate_rigid_multi(
        &multi,
        &[0.0; 2],
        &[0.0; 2],
        IntegratorKind::Tsit45,
        tolerances,
        &RunControl {
            max_steps: 2_000_000,
            ..rigid_control(t_end, checkpoints)
        },
    )
    .unwrap();
    let ours: Vec<(f64, &str)> = run
        .trace
        .events
        .iter()
        .map(|x| (x.t, x.event.name()))
        .collect();
    let theirs: Vec<(f64, &str)> = hand.events.iter().map(|x| (x.t, x.event.name())).collect();
    eprintln!("klarbring K=1: {ours:?}\n single: {theirs:?}");
    assert_eq!(
        ours.iter().map(|x| x.1).collect::<Vec<_>>(),
        theirs.iter().map(|x| x.1).collect::<Vec<_>>()
    );
    let mut worst = 0.0f64;
    for (a, b) in ours.iter().zip(&theirs) {
        worst = worst.max((a.0 - b.0).abs());
    }
    for (a, b) in run.outputs.iter().zip(&hand.outputs) {
        for i in 0..4 {
            worst = worst.max((a.2[i] - b.2[i]).abs());
        }
    }
    eprintln!("klarbring K=1 against the single-contact rigid formulation: {worst:e}");
    assert!(worst < 1e-9, "{worst:e}");
    assert_eq!(run.outputs.len(), hand.outputs.len());
}

/// The Painlevé rod (A on the floor at θ = 1.3, sliding left at 1, μ = 2 above the critical
/// value: the slide's normal coefficient W_NN + μ W_NT < 0). Without spin A's free
/// acceleration points into the floor (b_N = −g) and the slide would need λ_N < 0: no rigid
/// mode (inconsistency). Spun at θ̇ = 1.5, b_N = −g + sin θ θ̇² > 0: both leaving the floor and
/// sliding with λ_N > 0 are solutions, with different accelerations (indeterminacy). Either run
/// ends with the error naming end A, what has no or several solutions and Painlevé's paradox;
/// with μ = 0.3 the same starts run.
#[test]
fn the_painleve_rod_above_the_critical_mu_has_no_rigid_mode_or_several() {
    use rigid_limit::models::rod::two_ends::TwoEndedRod;
    let two = TwoEndedRod(PainleveRod::UNIFORM);
    for (spin, what) in [(0.0, "have no solution"), (1.5, "have several solutions")] {
        let problem = RigidMultiProblem::new(&two, rigid_laws(2.0, 0.0)).unwrap();
        let e = rigid_run(
            &problem,
            &[0.0, 0.0, 1.3],
            &[-1.0, 0.0, spin],
            &to_time(0.5),
        )
        .map(|r| phase_names(&r.trace))
        .unwrap_err()
        .to_string();
        eprintln!("{e}");
        assert!(
            e.contains(what)
                && e.contains("of end A ")
                && !e.contains("end B")
                && e.contains("Painlevé's paradox"),
            "θ̇ {spin}: {e}"
        );
        assert!(!e.contains('\n'), "one line: {e}");
        let below = RigidMultiProblem::new(&two, rigid_laws(0.3, 0.0)).unwrap();
        rigid_run(&below, &[0.0, 0.0, 1.3], &[-1.0, 0.0, spin], &to_time(0.5))
            .unwrap_or_else(|e| panic!("μ = 0.3, θ̇ {spin}: {e}"));
    }
}

/// The compliant rod dropped flat (above) converges to the rigid one with e = 1 (an undamped
/// spring returns the normal velocity): at t = 0.6, in the flight after the impact, the
/// compliant state differs from the rigid one by μ g t_c ∝ √κ in ẋ (the friction acting over
/// the contact time t_c), and the fitted exponent of the largest difference in (q, q̇) over
/// κ = 1e-4, 1e-6, 1e-8 is ½ within 0.02.
#[test]
fn the_compliant_two_ended_rod_converges_to_the_rigid_one_at_rate_one_half() {
    use rigid_limit::models::rod::two_ends::TwoEndedRod;
    let (mu, height, t_end) = (0.3, 0.1, 0.6);
    let two = TwoEndedRod(PainleveRod::UNIFORM);
    let rigid = RigidMultiProblem::new(&two, rigid_laws(mu, 1.0)).unwrap();
    let reference = rigid_run(
        &rigid,
        &[0.0, height, 0.0],
        &[1.0, 0.0, 0.0],
        &to_time(t_end),
    )
    .unwrap();
    let kappas = [1e-4, 1e-6, 1e-8];
    let differences: Vec<f64> = kappas
        .iter()
        .map(|&kappa| {
            let multi = MultiContactProblem::new(&two, laws(kappa, mu)).unwrap();
            let run = simulate_multi(
                &multi,
                &[0.0, height, 0.0],
                &[1.0, 0.0, 0.0],
                IntegratorKind::Dop853,
                tolerances(),
                &to_time(t_end),
            )
            .unwrap();
            (0..6)
                .map(|i| (run.trace.y_end[i] - reference.trace.y_end[i]).abs())
                .fold(0.0, f64::max)
        })
        .collect();
    let rates: Vec<f64> = differences
        .windows(2)
        .zip(kappas.windows(2))
        .map(|(d, k)| (d[0] / d[1]).ln() / (k[0] / k[1]).ln())
        .collect();
    eprintln!("compliant → rigid: {differences:?}, exponents {rates:?}");
    for p in rates {
        assert!((p - 0.5).abs() < 0.02, "{p}");
    }
}

/// The rigid box at rest flat on both corners (μ = 0.5), pushed at its centre by P: the corners'
/// tangential rows coincide, so W is singular in them and only T_rear + T_front = −P is
/// determined; the split loads both to the same fraction of their cones, T_k/N_k = −P/g, and the
/// motion does not depend on it. Below μg (P = 0.3) the box stays at rest on both corners
/// (stick,stick, no event, exactly at rest); above (0.7) the complementarity problem at the start
/// has the two-corner slide as its one motion, accelerating at P − μg.
#[test]
fn the_rigid_box_pushed_on_two_corners_sticks_below_mu_g_with_the_shared_split_and_slides_above() {
    let (w, h, g, mu) = (0.5, 0.3, 1.0, 0.5);
    for push in [0.3, 0.7] {
        let body = Box2 { w, h, g, push };
        let problem = RigidMultiProblem::new(&body, rigid_laws(mu, 0.0)).unwrap();
        let run = rigid_run(&problem, &[0.0; 3], &[0.0; 3], &to_time(1.0))
            .unwrap_or_else(|e| panic!("push {push}: {e}"));
        let y = &run.trace.y_end;
        assert!(
            run.trace.events.is_empty(),
            "push {push}: {:?}",
            run.trace.events
        );
        if push < mu * g {
            assert_eq!(phase_names(&run.trace), ["stick,stick"]);
            assert!(y[..6].iter().all(|v| v.abs() < 1e-15), "push {push}: {y:?}");
            let f = problem.forces(run.trace.mode_end, y);
            for k in 0..2 {
                assert!(
                    (f[2 * k + 1] / f[2 * k] + push / g).abs() < 1e-12,
                    "push {push}: {f:?}"
                );
            }
            assert!((f[1] + f[3] + push).abs() < 1e-12, "push {push}: {f:?}");
        } else {
            assert_eq!(phase_names(&run.trace), ["slide_right,slide_right"]);
            assert!(
                (y[3] - (push - mu * g)).abs() < 1e-12,
                "push {push}: ẋ {}",
                y[3]
            );
        }
        assert!(run.energy_balance_error.abs() < 1e-12, "push {push}");
    }
}

/// Two contacts at one point whose stick constraints contradict each other (ẍ = 0 and ẍ = −1:
/// equal rows, different drifts) and whose normal rows coincide: the rigid problem refuses it
/// with one line naming both contacts.
#[test]
fn the_rigid_problem_of_contradicting_twins_is_refused_naming_both() {
    let problem = RigidMultiProblem::new(&ContradictingTwins, rigid_laws(0.5, 0.0)).unwrap();
    let e = rigid_run(&problem, &[0.0; 2], &[0.0; 2], &to_time(1.0))
        .map(|r| phase_names(&r.trace))
        .unwrap_err()
        .to_string();
    eprintln!("{e}");
    assert!(
        e.contains("contact 0 and contact 1") && !e.contains('\n'),
        "{e}"
    );
}

/// [`Box2`] (no push at the centre) under a horizontal push growing as c t, applied at height H
/// above the centre: the generalized load (c t, 0, −c t H) (the push's moment with its arm H
/// taken at θ = 0, where the box is while both corners are down).
struct PushedHigh {
    body: Box2,
    rate: f64,
    height: f64,
}

impl Mechanics<3> for PushedHigh {
    fn coordinate_names(&self) -> [&'static str; 3] {
        self.body.coordinate_names()
    }
    fn mass_matrix<S: Real>(&self, q: &[S; 3]) -> [[S; 3]; 3] {
        self.body.mass_matrix(q)
    }
    fn generalized_force<S: Real>(&self, q: &[S; 3], qdot: &[S; 3]) -> [S; 3] {
        self.body.generalized_force(q, qdot)
    }
    fn potential_energy<S: Real>(&self, q: &[S; 3]) -> S {
        self.body.potential_energy(q)
    }
    fn is_autonomous(&self) -> bool {
        false
    }
    fn external_load<S: Real>(&self, t: S) -> [S; 3] {
        let push = t.scale(self.rate);
        [push, S::zero(), -push.scale(self.height)]
    }
}

impl PlanarContacts<3> for PushedHigh {
    fn contact_count(&self) -> usize {
        2
    }
    fn contact<S: Real>(&self, k: usize, q: &[S; 3], qdot: &[S; 3]) -> ContactKinematics<S, 3> {
        self.body.contact(k, q, qdot)
    }
}

/// The rigid box sliding right on both corners (v₀ = 1, w = 0.5, h = 0.3, μ = 0.4) under a push
/// F = c t at height H = 0.3 above its centre (c = 0.5): the moments about the centre,
/// w (N_front − N_rear) = hμg + F H, unload the rear corner, N_rear = g/2 − (hμg + F H)/(2w),
/// until its force from the complementarity problem reaches zero at F = g(w − μh)/H, i.e.
/// t* = g(w − μh)/(c H): a lift-off event there (the box still sliding, its ẋ = v₀ − μg t +
/// c t²/2 positive), after which the front slides alone and the box tips forward. With the push at the
/// centre (H = 0) the rear force stays g/2(1 − μh/w) > 0 and no event comes.
#[test]
fn the_rigid_box_pushed_high_lifts_its_rear_corner_off_where_its_force_reaches_zero() {
    let (w, h, g, mu, v0, rate) = (0.5, 0.3, 1.0, 0.4, 1.0, 0.5);
    for height in [0.3, 0.0] {
        let body = PushedHigh {
            body: Box2 { w, h, g, push: 0.0 },
            rate,
            height,
        };
        let problem = RigidMultiProblem::new(&body, rigid_laws(mu, 0.0)).unwrap();
        let t_end = 3.0;
        let half = 1.0;
        let run = rigid_run(
            &problem,
            &[0.0; 3],
            &[v0, 0.0, 0.0],
            &rigid_control(t_end, vec![half]),
        )
        .unwrap_or_else(|e| panic!("H {height}: {e}"));
        // The rear force halfway, N_rear = g/2 − (hμg + c t H)/(2w).
        let (_, modes, y) = &run.outputs[0];
        let f = problem.forces(*modes, y);
        let rear = g / 2.0 - (h * mu * g + rate * half * height) / (2.0 * w);
        assert!(
            (f[0] - rear).abs() < 1e-12,
            "H {height}: {f:?} against {rear}"
        );
        if height > 0.0 {
            let t_star = g * (w - mu * h) / (rate * height);
            let lift = &run.trace.events[0];
            eprintln!(
                "pushed high: lift-off at {} against {t_star}: {:e}",
                lift.t,
                lift.t - t_star
            );
            assert_eq!(
                (lift.event.contact, lift.event.name(), lift.to.name()),
                (0, "liftoff", "free,slide_right")
            );
            assert!(
                (lift.t - t_star).abs() < 1e-9,
                "{} against {t_star}",
                lift.t
            );
            assert!(
                run.trace.y_end[2] < 0.0,
                "tips forward: θ {}",
                run.trace.y_end[2]
            );
        } else {
            assert!(run.trace.events.is_empty(), "{:?}", run.trace.events);
            assert_eq!(phase_names(&run.trace), ["slide_right,slide_right"]);
        }
        assert!(
            run.energy_balance_error.abs() < 1e-10,
            "H {height}: {}",
            run.energy_balance_error
        );
    }
}

/// The rigid method of a described system of several contacts: systems/two_ended_rod.toml
/// (dropped nearly flat, e = 0 by default) and systems/box.toml (sliding on both corners from
/// z = 0, its start at κ = 0) run under `Method::Rigid` as the hand-coded rigid runs: the same
/// modes, events and end state within 1e-9, per contact the same impulse, no penetration.
#[test]
fn the_described_systems_run_rigid_as_the_hand_coded_ones() {
    use rigid_limit::experiment::system::{Method, RunSettings, System};
    use rigid_limit::models::described::description::NumberOrName;
    use rigid_limit::models::described::Described;
    use rigid_limit::models::rod::two_ends::TwoEndedRod;
    let rod = TwoEndedRod(PainleveRod::UNIFORM);
    let body = Box2 {
        w: 0.5,
        h: 0.3,
        g: 1.0,
        push: 0.0,
    };
    let rod_problem = RigidMultiProblem::new(&rod, rigid_laws(0.3, 0.0)).unwrap();
    let box_problem = RigidMultiProblem::new(&body, rigid_laws(0.4, 0.0)).unwrap();
    let control = to_time(1.0);
    let hand_runs = [
        (
            "systems/two_ended_rod.toml",
            rigid_run(&rod_problem, &[0.0, 0.05, 0.1], &[0.5, -1.0, 0.0], &control).unwrap(),
        ),
        (
            "systems/box.toml",
            rigid_run(&box_problem, &[0.0; 3], &[1.0, 0.0, 0.0], &control).unwrap(),
        ),
    ];
    for (file, hand) in &hand_runs {
        let d = description(file, 1e-6);
        let settings = RunSettings {
            t_end: Some(1.0),
            ..RunSettings::new(IntegratorKind::Dop853, 1e-10, 1e-12)
        };
        let (record, _) = Described::run(&d, Method::Rigid, &settings).unwrap();
        assert_record_as_run(&record, &hand.trace, &hand.impulse_normal, file);
        assert_eq!(record.max_penetration, [0.0, 0.0], "{file}");
        assert!(record.energy_balance_error.unwrap().abs() < 1e-9, "{file}");
        // A restitution outside [0, 1] is refused naming its key.
        let mut bad = d.clone();
        bad.contacts[1].restitution = Some(NumberOrName::Number(1.5));
        let e = Described::run(&bad, Method::Rigid, &settings)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(e.contains("contacts[1].restitution = 1.5"), "{e}");
    }
}

/// experiments/rod_two_ends_drop.toml's scenario on every integrator: the two-ended rod dropped
/// nearly flat (A at 0.05, falling at 1, θ0 = 0.1) while sliding at 2 with μ = 0.3 on undamped
/// springs lands on A, B and A again and is in flight at t = 1. Its rigid reference is Newton's
/// e = 1 with Coulomb's slip impulse (the slip neither stops nor reverses in an impact), and the
/// largest difference of (q, q̇) at t = 1 from it falls as the contact time, κ^½: with each of
/// the eight integrators (rtol 1e-10) the exponent from κ = 1e-4 to 1e-6 is ½ within 0.03, and
/// the integrators' differences agree within 1e-3 relative.
#[test]
fn every_integrator_follows_the_two_ended_rod_to_its_rigid_limit_at_rate_one_half() {
    use rigid_limit::models::rod::two_ends::TwoEndedRod;
    let (mu, t_end) = (0.3, 1.0);
    let (q0, qdot0) = ([0.0, 0.05, 0.1], [2.0, -1.0, 0.0]);
    let two = TwoEndedRod(PainleveRod::UNIFORM);
    let rigid = RigidMultiProblem::new(&two, rigid_laws(mu, 1.0)).unwrap();
    let reference = rigid_run(&rigid, &q0, &qdot0, &to_time(t_end)).unwrap();
    let impacts: Vec<usize> = reference
        .trace
        .events
        .iter()
        .map(|e| e.event.contact)
        .collect();
    assert_eq!(impacts, [0, 1, 0], "impacts on A, B, A");
    let kappas = [1e-4, 1e-6];
    let mut first: Option<[f64; 2]> = None;
    for integrator in IntegratorKind::ALL {
        let distances = kappas.map(|kappa| {
            let multi = MultiContactProblem::new(&two, laws(kappa, mu)).unwrap();
            let run = simulate_multi(
                &multi,
                &q0,
                &qdot0,
                integrator,
                tolerances(),
                &to_time(t_end),
            )
            .unwrap_or_else(|e| panic!("{integrator} κ = {kappa:e}: {e}"));
            (0..6)
                .map(|i| (run.trace.y_end[i] - reference.trace.y_end[i]).abs())
                .fold(0.0, f64::max)
        });
        let p = (distances[0] / distances[1]).ln() / (kappas[0] / kappas[1]).ln();
        eprintln!("{integrator}: |Δ(q, q̇)| {distances:?}, exponent {p:.4}");
        assert!((p - 0.5).abs() < 0.03, "{integrator}: exponent {p}");
        match first {
            None => first = Some(distances),
            Some(f) => {
                for (d, f) in distances.iter().zip(f) {
                    assert!((d - f).abs() < 1e-3 * f, "{integrator}: {d} against {f}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// C–V's two slipping contacts (class 261) from a rigid body: systems/cv_two_contact_rod.toml
// (docs/multi_contact.md, "C–V's two contacts from a rigid body").

/// experiments/two_contact_iwc.toml's P and b.
fn class_261() -> ([[f64; 2]; 2], [f64; 2]) {
    let text = std::fs::read_to_string("experiments/two_contact_iwc.toml").unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    let params = &table["params"];
    let number = |v: &toml::Value| v.as_float().unwrap();
    let p = params["P"].as_array().unwrap();
    let row = |i: usize| {
        let r = p[i].as_array().unwrap();
        [number(&r[0]), number(&r[1])]
    };
    let b = params["b"].as_array().unwrap();
    ([row(0), row(1)], [number(&b[0]), number(&b[1])])
}

/// The rod at its reference configuration (q = 0, both gaps 0) sliding left at 1: the slipping
/// contacts' P_ij = d_iᵀM⁻¹(d_j + μ_j c_j) (a left slip rubs with +μ_j F_j along c_j) and
/// b_i = d_iᵀM⁻¹f + ḋ_iᵀq̇, from the description's mass matrix and symbolic contact rows, are
/// experiments/two_contact_iwc.toml's within 1e-14 (the closed form of docs/multi_contact.md
/// gives them exactly).
#[test]
fn the_rod_on_a_floor_and_a_rail_has_the_projected_data_of_cv_class_261() {
    use rigid_limit::models::described::mechanics::DescribedMechanics;
    let compiled = description("systems/cv_two_contact_rod.toml", 1e-8)
        .compile()
        .unwrap();
    let sys = DescribedMechanics::<3>::new(&compiled);
    let (q, qdot) = ([0.0; 3], [-1.0, 0.0, 0.0]);
    let m = sys.mass_matrix::<f64>(&q);
    let inverse = nalgebra::Matrix3::from_fn(|i, j| m[i][j])
        .try_inverse()
        .unwrap();
    let mobility = |v: &[f64; 3]| inverse * nalgebra::Vector3::from_column_slice(v);
    let kin = [0, 1].map(|k| sys.contact::<f64>(k, &q, &qdot));
    let row = |v: &[f64; 3]| nalgebra::Vector3::from_column_slice(v);
    let f = sys.generalized_force::<f64>(&q, &qdot);
    let (p_cv, b_cv) = class_261();
    for (i, ki) in kin.iter().enumerate() {
        assert!(ki.gap.abs() < 1e-15, "gap {i}: {}", ki.gap);
        let b = row(&ki.normal).dot(&mobility(&f)) + ki.normal_drift;
        assert!(
            (b - b_cv[i]).abs() < 1e-14,
            "b_{i} = {b} against {}",
            b_cv[i]
        );
        for (j, kj) in kin.iter().enumerate() {
            let mu = compiled.contacts[j].mu;
            let column: [f64; 3] = std::array::from_fn(|a| kj.normal[a] + mu * kj.tangential[a]);
            let p = row(&ki.normal).dot(&mobility(&column));
            assert!(
                (p - p_cv[i][j]).abs() < 1e-14,
                "P_{i}{j} = {p} against {}",
                p_cv[i][j]
            );
        }
    }
}

/// The first contact to open, (s = t/√κ, contact), of the rod started at circle angle `angle`
/// at compliance `kappa` (its [initial]: the fast start Y = Y* + 5(cos, sin)(angle), V = 0).
fn rod_first_opening(angle: f64, kappa: f64) -> (f64, usize) {
    use rigid_limit::models::described::mechanics::DescribedMechanics;
    let mut d = description("systems/cv_two_contact_rod.toml", kappa);
    *d.parameters.get_mut("angle").unwrap() = angle;
    let compiled = d.compile().unwrap();
    let (q0, qdot0) = d.initial_state(kappa).unwrap();
    let sys = DescribedMechanics::<3>::new(&compiled);
    let laws = compiled
        .contacts
        .iter()
        .map(|c| ContactLaw {
            compliance: NormalCompliance::spring_dashpot(kappa, c.damping),
            friction: Coulomb::equal(c.mu),
        })
        .collect();
    let problem = MultiContactProblem::new(&sys, laws).unwrap();
    let opens = |from: Modes, to: Modes| {
        from.iter()
            .zip(to.iter())
            .any(|(a, b)| a.is_contact() && b == Mode::Free)
    };
    let run = simulate_multi(
        &problem,
        &[q0[0], q0[1], q0[2]],
        &[qdot0[0], qdot0[1], qdot0[2]],
        IntegratorKind::Dop853,
        tolerances(),
        &until(opens, 300.0 * kappa.sqrt()),
    )
    .unwrap_or_else(|e| panic!("angle {angle}: {e}"));
    let phases: Vec<&str> = run.trace.phases.iter().map(|p| p.mode.name()).collect();
    assert_eq!(phases[0], "slide_left,slide_left", "angle {angle}");
    let e = run.trace.events.last().expect("a contact opens");
    assert_eq!(e.event.name(), "contact_opens", "angle {angle}: {phases:?}");
    (e.t / kappa.sqrt(), e.event.contact)
}

/// The first opening (s, contact) of C–V's scale-free fast system with experiments/
/// two_contact_iwc.toml's P and b under the harness law k = q = −1 (c_d = 1), started on its
/// circle R = 5 around the S+S+ equilibrium at `angle` (dop853, rtol 1e-12).
fn scale_free_first_opening(angle: f64) -> (f64, usize) {
    use rigid_limit::hybrid::run_hybrid;
    use rigid_limit::models::two_contact::linear::SlipSlip;
    use rigid_limit::models::two_contact::system::{
        ContactLaw as FastLaw, FastTwoContact, TwoContactSystem,
    };
    let (p, b) = class_261();
    let fast = FastTwoContact {
        system: TwoContactSystem {
            free_accel: b,
            response: p,
            stiffness: [-1.0; 2],
            damping: [-1.0; 2],
        },
        law: FastLaw::Harness,
    };
    let slip = SlipSlip::of(&fast.system).unwrap();
    let control = RunControl {
        until: Until::Transition {
            t_max: 300.0,
            stop: |_, _| true,
        },
        output_times: Vec::new(),
        max_events: 10,
        max_steps: 100_000,
        absolute_tolerances: None,
    };
    let x0 = slip.circle_start(5.0, angle);
    let trace = run_hybrid(
        &fast,
        IntegratorKind::Dop853,
        Tolerances {
            rtol: 1e-12,
            atol: 1e-12,
        },
        &x0,
        &control,
        &mut (),
    )
    .unwrap();
    let e = trace.events.first().expect("a contact opens");
    assert!(e.event.opens(), "angle {angle}: {}", e.event.name());
    (e.t, e.event.contact())
}

/// The 72 starts of experiments/two_contact_iwc.toml's circle (R = 5 around the unstable S+S+
/// equilibrium, every 5°) on the rod: as on C–V's scale-free fast system (harness law, k = q =
/// −1: c_d = 1), one contact opens while the other's force grows — IF where contact B (2) opens
/// first, FI where A (1) does — and at κ = 1e-8 the rod opens the same contact as the fast
/// system at every start. The first opening's scaled time s = t/√κ approaches the fast
/// system's as κ → 0: over the circle its largest difference falls at least fiftyfold from
/// κ = 1e-6 to 1e-8 (first order in κ: over the fast window the configuration moves by O(κ)
/// and θ̇ = O(√κ) enters b squared; the slip speed does not enter P or b).
#[test]
fn the_rod_on_a_floor_and_a_rail_opens_the_contact_the_scale_free_system_opens() {
    let mut worst = [0.0f64; 2];
    let mut counts = [0usize; 2];
    for i in 0..72 {
        let angle = rigid_limit::models::two_contact::circle_angle(i, 72);
        let (s_fast, contact_fast) = scale_free_first_opening(angle);
        counts[contact_fast] += 1;
        for (slot, kappa) in [1e-6, 1e-8].into_iter().enumerate() {
            let (s_rod, contact_rod) = rod_first_opening(angle, kappa);
            if kappa == 1e-8 {
                assert_eq!(
                    contact_rod, contact_fast,
                    "angle {angle}: s {s_rod} vs {s_fast}"
                );
            }
            if contact_rod == contact_fast {
                worst[slot] = worst[slot].max((s_rod - s_fast).abs());
            }
        }
    }
    eprintln!("openings of A, B first: {counts:?}; largest |Δs| at κ = 1e-6, 1e-8: {worst:?}");
    assert_eq!(counts, [36, 36]);
    assert!(worst[1] < worst[0] / 50.0, "{worst:?}");
}

/// experiments/cv_two_contact_rod.toml's study through the harness (run stage, the reference
/// table of the projected scale-free system, the report's analysis.json) on a cheap subset —
/// twelve starts of the circle, every 30°, at κ = 1e-7, 1e-8, 1e-9: at the smallest κ each start
/// opens first the contact that the scale-free system of experiments/two_contact_iwc.toml,
/// run here from its own circle start, opens (both contacts do, at some starts); the study's
/// reference agrees with it at every start, and the largest difference of the opening's s
/// falls at first order in κ.
#[test]
fn the_first_opening_study_of_the_rod_agrees_with_the_scale_free_system() {
    use rigid_limit::models::Experiment;
    let text = std::fs::read_to_string("experiments/cv_two_contact_rod.toml").unwrap();
    let subset = text
        .replace(
            "kappa = { min = 1e-10, max = 1e-6, per_decade = 1 }",
            "kappa = { min = 1e-9, max = 1e-7, per_decade = 1 }",
        )
        .replace(
            "angle = { min = 0.0, max = 6.19591884457987, n = 72 }",
            "angle = { min = 0.0, max = 5.759586531581287, n = 12 }",
        );
    assert_ne!(subset, text);
    let experiment = Experiment::parse(&subset).unwrap();
    let (dir, summary) = run_and_report(&experiment, "first-opening");
    assert_eq!(summary.failed, 0);
    let analysis: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("analysis.json")).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let names = ["A", "B"];
    let reference = analysis["reference"].as_array().unwrap();
    let levels = analysis["integrators"][0]["levels"].as_array().unwrap();
    let smallest = levels.last().unwrap();
    assert_eq!(smallest["kappa"].as_f64(), Some(1e-9));
    let runs = smallest["runs"].as_array().unwrap();
    assert_eq!((runs.len(), reference.len()), (12, 12));
    let mut opened = [0usize; 2];
    for (run, own) in runs.iter().zip(reference) {
        let angle = run["start"].as_f64().unwrap();
        let (_, contact) = scale_free_first_opening(angle);
        opened[contact] += 1;
        assert_eq!(own["start"].as_f64(), Some(angle));
        assert_eq!(
            own["contact"].as_str(),
            Some(names[contact]),
            "angle {angle}"
        );
        assert_eq!(
            run["contact"].as_str(),
            Some(names[contact]),
            "angle {angle}"
        );
    }
    assert!(opened[0] > 0 && opened[1] > 0, "{opened:?}");
    assert_eq!(smallest["agree"].as_u64(), Some(12));
    let rate = analysis["integrators"][0]["s_difference_rate"]["slope"]
        .as_f64()
        .unwrap();
    assert!((rate - 1.0).abs() < 0.1, "largest Δs ∝ κ^{rate}");
}

/// A first-opening study names what it misses: a start that is not swept, the fast window.
#[test]
fn a_first_opening_study_names_the_key_to_fix() {
    use rigid_limit::models::Experiment;
    let text = std::fs::read_to_string("experiments/cv_two_contact_rod.toml").unwrap();
    for (from, to, key) in [
        (
            "start = \"angle\"",
            "start = \"radius\"",
            "first_opening.start",
        ),
        ("window_scaled = 200", "", "solver.window_scaled"),
        (
            "window_scaled = 200",
            "window_scaled = 200\nt_end = 1.0",
            "solver.t_end",
        ),
    ] {
        let e = Experiment::parse(&text.replace(from, to))
            .err()
            .unwrap_or_else(|| panic!("{key}: accepted"))
            .to_string();
        assert!(e.contains(key) && !e.contains('\n'), "{key}: {e}");
    }
}

/// The two-ended rod without the slopes of its contacts (the scan samples every step in full),
/// counting how often B's kinematics are evaluated.
struct RodWithoutSlopes {
    rod: rigid_limit::models::rod::two_ends::TwoEndedRod,
    slopes: bool,
    b_evaluations: std::sync::atomic::AtomicUsize,
}

impl Mechanics<3> for RodWithoutSlopes {
    fn coordinate_names(&self) -> [&'static str; 3] {
        self.rod.coordinate_names()
    }
    fn mass_matrix<S: Real>(&self, q: &[S; 3]) -> [[S; 3]; 3] {
        self.rod.mass_matrix(q)
    }
    fn generalized_force<S: Real>(&self, q: &[S; 3], qdot: &[S; 3]) -> [S; 3] {
        self.rod.generalized_force(q, qdot)
    }
    fn potential_energy<S: Real>(&self, q: &[S; 3]) -> S {
        self.rod.potential_energy(q)
    }
    fn mass_factor_and_force<S: Real>(
        &self,
        q: &[S; 3],
        qdot: &[S; 3],
    ) -> (rigid_limit::model::MassFactor<S, 3>, [S; 3]) {
        self.rod.mass_factor_and_force(q, qdot)
    }
}

impl PlanarContacts<3> for RodWithoutSlopes {
    fn contact_count(&self) -> usize {
        2
    }
    fn contact<S: Real>(&self, k: usize, q: &[S; 3], qdot: &[S; 3]) -> ContactKinematics<S, 3> {
        if k == 1 {
            self.b_evaluations
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        self.rod.contact(k, q, qdot)
    }
    fn constant_contact_directions(&self, k: usize) -> Option<([f64; 3], [f64; 3])> {
        self.rod
            .constant_contact_directions(k)
            .filter(|_| self.slopes)
    }
    fn gap_slopes(&self, k: usize) -> Option<[f64; 3]> {
        self.rod.gap_slopes(k).filter(|_| self.slopes)
    }
}

/// The slopes of the two-ended rod's contacts (A's linear functions, B's gap; docs/multi_contact.md,
/// "A free contact in the event scan") change no run by a bit: Zhao–Liu's impact (B stays up)
/// and the nearly flat drop (B lands, its closing located through the skipped steps), every
/// integrator; the explicit pairs, which bound their dense output, evaluate B fewer times.
#[test]
fn the_slopes_of_the_rods_ends_skip_samples_and_change_nothing() {
    use rigid_limit::models::rod::two_ends::TwoEndedRod;
    use std::sync::atomic::Ordering;
    let zhao_liu = (
        ([0.0, 0.0, 1.3], [-1.0, 0.0, 0.0]),
        NormalCompliance::linear_spring(1e-8),
        2.0,
        until(is_separation, 10.0),
    );
    let drop = (
        ([0.0, 0.05, 0.1], [0.5, -1.0, 0.0]),
        NormalCompliance::linear_spring(1e-6),
        0.3,
        to_time(0.5),
    );
    for ((q0, qdot0), compliance, mu, control) in [zhao_liu, drop] {
        let law = ContactLaw {
            compliance,
            friction: Coulomb::equal(mu),
        };
        for integrator in IntegratorKind::ALL {
            let run = |slopes| {
                let rod = RodWithoutSlopes {
                    rod: TwoEndedRod(PainleveRod::UNIFORM),
                    slopes,
                    b_evaluations: 0.into(),
                };
                let multi = MultiContactProblem::new(&rod, vec![law; 2]).unwrap();
                let run = simulate_multi(&multi, &q0, &qdot0, integrator, tolerances(), &control)
                    .unwrap_or_else(|e| panic!("{integrator}: {e}"));
                (run, rod.b_evaluations.load(Ordering::Relaxed))
            };
            let ((plain, plain_calls), (skipping, skipping_calls)) = (run(false), run(true));
            let events = |r: &rigid_limit::compliant::multi::MultiRun| -> Vec<(f64, usize, &str)> {
                r.trace
                    .events
                    .iter()
                    .map(|e| (e.t, e.event.contact, e.event.name()))
                    .collect()
            };
            assert!(!events(&plain).is_empty(), "{integrator}");
            assert_eq!(events(&skipping), events(&plain), "{integrator}");
            assert_eq!(skipping.trace.y_end, plain.trace.y_end, "{integrator}");
            assert_eq!(
                skipping.trace.stats.steps, plain.trace.stats.steps,
                "{integrator}"
            );
            eprintln!("{integrator} μ = {mu}: B evaluated {plain_calls} times without slopes, {skipping_calls} with");
            if matches!(integrator, IntegratorKind::Tsit5 | IntegratorKind::Dop853) {
                assert!(
                    skipping_calls < plain_calls,
                    "{integrator}: {skipping_calls} with slopes, {plain_calls} without"
                );
            } else {
                assert_eq!(skipping_calls, plain_calls, "{integrator}");
            }
        }
    }
}
