//! Physics end to end: closed forms, invariants, the doc's asymptotic limits, agreement between
//! integrators. Run in release (`cargo test --release`): the debug build is ~70× slower.

use rigid_limit::compliant::coulomb::{Coulomb, Mode};
use rigid_limit::compliant::normal::NormalCompliance;
use rigid_limit::compliant::record::RunRecord;
use rigid_limit::compliant::{simulate, ContactProblem, EndCondition, Event, SimulationOptions};
use rigid_limit::error::SimError;
use rigid_limit::integrate::IntegratorKind;
use rigid_limit::models::rod::columns::PhaseDurations;
use rigid_limit::models::rod::limit::RigidLimit;
use rigid_limit::models::rod::mechanics::PainleveRod;
use rigid_limit::models::rod::scenario::RodImpact;

/// A point mass on a plane with gravity g, written as data outside the crate (the toy system
/// of tests/it/toy_system.rs): a new system needs no new engine.
use crate::toy_system::Landing as Particle;

/// The accuracy each integrator reaches at rtol 1e-12 on the closed-form problems. TR-BDF2's
/// error estimate underestimates its global error by ~10³ (measured here: 2e-9 at rtol 1e-12;
/// docs/tolerances.md trap 6 measured 5e-8 at rtol 1e-10), so it gets 1e-8.
fn accuracy_at_rtol_1e12(kind: IntegratorKind) -> f64 {
    if kind == IntegratorKind::TrBdf2 {
        1e-8
    } else {
        1e-10
    }
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

fn run_particle(
    gravity: f64,
    kappa: f64,
    mu: f64,
    u0: f64,
    v0: f64,
    kind: IntegratorKind,
) -> RunRecord {
    let particle = Particle { g: gravity };
    let problem = ContactProblem {
        system: &particle,
        compliance: NormalCompliance::linear_spring(kappa),
        friction: Coulomb { mu, mu_s: mu },
    };
    let opts = SimulationOptions::new(kind, 1e-12, 1e-12);
    simulate(&problem, &[0.0, 0.0], &[u0, -v0], &opts).expect("particle impact")
}

fn event_time(r: &RunRecord, event: Event) -> f64 {
    r.events
        .iter()
        .find(|e| e.event == event)
        .expect("event present")
        .t
}

/// A particle hitting the spring at speed v0 with gravity g leaves when δ = 0 again:
/// δ = gκ − R cos(ωt + φ), ω = 1/√κ, R cos φ = gκ, R sin φ = v0/ω ⇒ t* = (2π − 2φ)/ω.
/// Without gravity that is the half period π√κ. Friction does not couple (B = 0).
#[test]
fn contact_duration_matches_the_linear_oscillator() {
    for kind in IntegratorKind::ALL {
        for &(g, kappa) in &[(0.0, 1e-6), (1.0, 1e-4)] {
            let r = run_particle(g, kappa, 0.5, -1.0, 1.0, kind);
            let omega = 1.0 / kappa.sqrt();
            let phi = (1.0 / omega).atan2(g * kappa);
            let expected = (2.0 * std::f64::consts::PI - 2.0 * phi) / omega;
            let got = event_time(&r, Event::ContactOpens);
            assert!(
                rel(got, expected) < accuracy_at_rtol_1e12(kind),
                "{kind}: g={g} {got} vs {expected}: {}",
                rel(got, expected)
            );
        }
    }
}

/// Without gravity the normal impulse is v0(1 − cos ωt); slip stops when μ times it reaches |u0|.
#[test]
fn slip_stop_time_matches_the_closed_form() {
    let (kappa, mu, u0, v0) = (1e-6, 0.5, -0.3, 1.0);
    for kind in IntegratorKind::ALL {
        let r = run_particle(0.0, kappa, mu, u0, v0, kind);
        let expected = (1.0 - u0.abs() / (mu * v0)).acos() * kappa.sqrt();
        let got = event_time(&r, Event::SlipStops);
        assert!(
            rel(got, expected) < accuracy_at_rtol_1e12(kind),
            "{kind}: {got} vs {expected}"
        );
        assert_eq!(r.modes[1].mode, Mode::Stick);
        // The particle leaves with the speed it came with (linear spring, no damping).
        let p = r.post_impact.as_ref().unwrap();
        assert!((p.v - v0).abs() < 10.0 * accuracy_at_rtol_1e12(kind) && p.u.abs() < 1e-12);
    }
}

/// Free flight: the centre of mass follows a parabola and θ turns uniformly.
#[test]
fn free_flight_matches_the_closed_form() {
    let rod = PainleveRod::UNIFORM;
    let problem = ContactProblem {
        system: &rod,
        compliance: NormalCompliance::linear_spring(1e-6),
        friction: Coulomb { mu: 0.5, mu_s: 0.5 },
    };
    let (theta0, omega0, t_end) = (1.0, 0.7, 0.4);
    let q0 = [0.2, 1.5, theta0];
    let qdot0 = [0.3, 0.8, omega0];
    let mut opts = SimulationOptions::new(IntegratorKind::Bdf, 1e-12, 1e-12);
    opts.end = EndCondition::Time(t_end);
    for kind in IntegratorKind::ALL {
        opts.integrator = kind;
        let r = simulate(&problem, &q0, &qdot0, &opts).unwrap();
        assert!(r.events.is_empty() && r.modes.iter().all(|m| m.mode == Mode::Free));
        // Centre of mass c = A + (cos θ, sin θ).
        let (xc0, yc0) = (q0[0] + theta0.cos(), q0[1] + theta0.sin());
        let (uc0, vc0) = (
            qdot0[0] - theta0.sin() * omega0,
            qdot0[1] + theta0.cos() * omega0,
        );
        let theta = theta0 + omega0 * t_end;
        let xa = xc0 + uc0 * t_end - theta.cos();
        let ya = yc0 + vc0 * t_end - 0.5 * t_end * t_end - theta.sin();
        assert!((r.final_time - t_end).abs() < 1e-15);
        for (got, want) in [
            (r.final_q[0], xa),
            (r.final_q[1], ya),
            (r.final_q[2], theta),
        ] {
            assert!(
                (got - want).abs() < 10.0 * accuracy_at_rtol_1e12(kind),
                "{kind}: {got} vs {want}"
            );
        }
    }
}

/// Zhao–Liu's frozen-coefficient slide start (eq. (23) with A, B at t = 0):
/// δ(t) = (|B|κ/|A|)(cosh(√(|A|/κ) t) − 1), valid while θ and θ̇ have not moved.
#[test]
fn slide_start_follows_the_frozen_coefficient_solution() {
    let imp = RodImpact::zhao_liu(1e-8);
    let mut opts = SimulationOptions::new(IntegratorKind::Bdf, 1e-12, 1e-14);
    opts.record_trajectory = true;
    let r = imp.simulate(&opts).unwrap();
    let k = imp.slide_coefficients();
    let sk = imp.kappa.sqrt();
    let mut checked = 0;
    for s in r.trajectory.unwrap() {
        if s.mode != Mode::SlideLeft || s.t < 0.2 * sk || s.t > 2.0 * sk {
            continue;
        }
        let frozen = (k.b.abs() * imp.kappa / k.a.abs())
            * (((k.a.abs() / imp.kappa).sqrt() * s.t).cosh() - 1.0);
        let delta = -s.q[1];
        assert!(
            rel(delta, frozen) < 1e-5,
            "t={} δ={delta} frozen={frozen}",
            s.t
        );
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} samples in the early slide");
}

/// The energy account closes: ΔE = friction work + damping work − separation loss.
#[test]
fn energy_account_closes() {
    for damping in [0.0, 0.2] {
        for kind in IntegratorKind::ALL {
            let imp = RodImpact {
                damping,
                ..RodImpact::zhao_liu(1e-6)
            };
            let r = imp
                .simulate(&SimulationOptions::new(kind, 1e-10, 1e-12))
                .unwrap();
            let e = r.energy;
            assert!(e.friction_work < 0.0);
            if damping > 0.0 {
                assert!(e.damping_work < 0.0 && e.separation_loss > 0.0);
            } else {
                assert_eq!(e.damping_work, 0.0);
            }
            assert!(
                e.balance_error.abs() < 1e-7 * e.initial_total,
                "{kind} c_d={damping}: {e:?}"
            );
        }
    }
}

/// Impulse–momentum. Centre of mass: Δẋ_c = ∫F_τ dt, Δẏ_c = ∫F_n dt − T (exact, from the
/// quadratures); rotation: Δθ̇ = ∫3(−cos θ F_n + sin θ F_τ) dt (trapezoid on the samples).
#[test]
fn impulse_momentum_holds() {
    let imp = RodImpact::zhao_liu(1e-6);
    let mut opts = SimulationOptions::new(IntegratorKind::Tsit45, 1e-10, 1e-12);
    opts.record_trajectory = true;
    let r = imp.simulate(&opts).unwrap();
    let p = r.post_impact.as_ref().unwrap();
    let centre_velocity =
        |qd: &[f64], th: f64| (qd[0] - th.sin() * qd[2], qd[1] + th.cos() * qd[2]);
    let (uc0, vc0) = centre_velocity(&[imp.u0, 0.0, imp.omega0], imp.theta0);
    let (uc1, vc1) = centre_velocity(&p.qdot, p.q[2]);
    assert!((uc1 - uc0 - r.impulse_tangential).abs() < 1e-9);
    assert!((vc1 - vc0 - (r.impulse_normal - p.t)).abs() < 1e-9);
    let traj = r.trajectory.unwrap();
    let torque = |s: &rigid_limit::compliant::record::Sample| {
        3.0 * (-s.q[2].cos() * s.normal_force + s.q[2].sin() * s.tangential_force)
    };
    let mut angular_impulse = 0.0;
    for w in traj.windows(2) {
        if w[0].mode == w[1].mode {
            angular_impulse += 0.5 * (torque(&w[0]) + torque(&w[1])) * (w[1].t - w[0].t);
        }
    }
    let change = p.qdot[2] - imp.omega0;
    assert!(
        rel(angular_impulse, change) < 1e-3,
        "{angular_impulse} vs {change}"
    );
}

/// All four integrators agree on the phase durations to 1e-6 at rtol 1e-10.
#[test]
fn integrators_agree_on_phase_durations() {
    for kappa in [1e-4, 1e-8] {
        let imp = RodImpact::zhao_liu(kappa);
        let runs: Vec<RunRecord> = IntegratorKind::ALL
            .iter()
            .map(|&k| {
                imp.simulate(&SimulationOptions::new(k, 1e-10, 1e-12))
                    .unwrap()
            })
            .collect();
        let reference = &runs[0];
        for r in &runs {
            assert_eq!(r.mode_sequence(), "slide_left → stick → slide_right");
            let (a, b) = (
                PhaseDurations::of(&r.modes),
                PhaseDurations::of(&reference.modes),
            );
            for (x, y) in [
                (a.slide, b.slide),
                (a.stick, b.stick),
                (a.reverse_slip, b.reverse_slip),
            ] {
                assert!(rel(x, y) < 1e-6, "κ={kappa} {}: {x} vs {y}", r.integrator);
            }
        }
    }
}

/// Event errors are set by the tolerance: at rtol 1e-12 the durations (the reverse slip is 10⁸
/// times shorter than the slide at κ = 1e-12) agree with a reference to ~1e-9. The reference is
/// the explicit Tsit45 at rtol 1e-13, accepted only because the multistep BDF at rtol 1e-13
/// agrees with it to 1e-10.
#[test]
fn durations_converge_under_tolerance_refinement() {
    let imp = RodImpact::zhao_liu(1e-12);
    let reference = imp
        .simulate(&SimulationOptions::new(
            IntegratorKind::Tsit45,
            1e-13,
            1e-14,
        ))
        .unwrap();
    let check = imp
        .simulate(&SimulationOptions::new(IntegratorKind::Bdf, 1e-13, 1e-14))
        .unwrap();
    let d = |r: &RunRecord| {
        [
            PhaseDurations::of(&r.modes).slide,
            PhaseDurations::of(&r.modes).stick,
            PhaseDurations::of(&r.modes).reverse_slip,
        ]
    };
    for (x, y) in d(&check).into_iter().zip(d(&reference)) {
        assert!(rel(x, y) < 1e-10, "reference not confirmed: {x} vs {y}");
    }
    assert!(
        PhaseDurations::of(&reference.modes).slide
            / PhaseDurations::of(&reference.modes).reverse_slip
            > 1e7
    );
    for kind in [
        IntegratorKind::Bdf,
        IntegratorKind::Esdirk34,
        IntegratorKind::Tsit45,
    ] {
        let r = imp
            .simulate(&SimulationOptions::new(kind, 1e-12, 1e-14))
            .unwrap();
        for (x, y) in d(&r).into_iter().zip(d(&reference)) {
            assert!(rel(x, y) < 2e-9, "{kind}: {x} vs {y}: {:e}", rel(x, y));
        }
    }
}

/// The rigid limits of docs/model.md at κ = 1e-10 (μ = μ_s = 2, θ0 = 1.3,
/// θ̇0 = 0, u0 = −1, c_d = 0): T_stick/√κ within 0.1 %, v_out within 0.5 %.
#[test]
fn approaches_the_rigid_limit() {
    let imp = RodImpact::zhao_liu(1e-10);
    let limit = RigidLimit::of(&imp).unwrap();
    let r = imp
        .simulate(&SimulationOptions::new(IntegratorKind::Bdf, 1e-10, 1e-12))
        .unwrap();
    let stick = PhaseDurations::of(&r.modes).stick / imp.kappa.sqrt();
    assert!(
        rel(stick, limit.stick_duration_scaled) < 1e-3,
        "{stick} vs {}",
        limit.stick_duration_scaled
    );
    let v_out = r.post_impact.unwrap().v;
    assert!(rel(v_out, limit.v_out) < 5e-3, "{v_out} vs {}", limit.v_out);
}

/// The event guard turns too many events into an error naming time, mode and the last events;
/// the step guard does the same for too many steps.
#[test]
fn guards_turn_runaway_runs_into_errors() {
    let imp = RodImpact::zhao_liu(1e-6);
    let mut opts = SimulationOptions::new(IntegratorKind::Bdf, 1e-10, 1e-12);
    opts.max_events = 1;
    match imp.simulate(&opts) {
        Err(SimError::EventStorm { count, last, .. }) => {
            assert_eq!(count, 2);
            assert!(last.contains("slip_stops"), "{last}");
        }
        other => panic!("expected an event storm, got {other:?}"),
    }
    opts.max_events = 1000;
    opts.max_steps = 20;
    match imp.simulate(&opts) {
        Err(SimError::StepLimit { mode, .. }) => assert_eq!(mode, "slide_left"),
        other => panic!("expected a step limit, got {other:?}"),
    }
    opts.max_steps = 2_000_000;
    opts.t_max = 1e-6;
    assert!(matches!(
        imp.simulate(&opts),
        Err(SimError::NoSeparation { .. })
    ));
}

/// The scan's shortcuts give the formulation's own numbers: the normal force and penetration
/// from the kinematics alone are the contact state's, the batched domain margins are the
/// single ones, and with a linear spring (c_d = 0) the peak-force function κ dF_n/dt =
/// δ̇ + c_d √κ δ̈ is δ̇ without a projection; with a dashpot it is not δ̇ alone.
#[test]
fn the_scan_shortcuts_give_the_formulation_s_numbers() {
    use rigid_limit::hybrid::HybridSystem;
    let rod = PainleveRod::UNIFORM;
    let kappa = 1e-6;
    let states = [
        [0.1, -2e-6, 1.3, -0.8, -0.3, 0.4],
        [0.0, -1e-7, 0.6, 0.0, 0.05, -1.2],
        [0.2, 3e-6, 2.4, 0.5, 0.2, 0.0],
    ];
    for damping in [0.0, 0.3] {
        let problem = ContactProblem {
            system: &rod,
            compliance: NormalCompliance::spring_dashpot(kappa, damping),
            friction: Coulomb { mu: 2.0, mu_s: 2.0 },
        };
        for s in states {
            let mut y = vec![0.0; problem.state_len()];
            y[..6].copy_from_slice(&s);
            let mut margins = vec![0.0; problem.domain().len()];
            problem.domain_margins(&y, &mut margins);
            for (i, &m) in margins.iter().enumerate() {
                assert_eq!(m, problem.domain_margin(i, &y));
            }
            for mode in [Mode::SlideLeft, Mode::Stick, Mode::SlideRight, Mode::Free] {
                let cs = problem.contact_state(mode, &y);
                let (force, penetration) = problem.normal_force_and_penetration(mode, &y);
                assert_eq!((force, penetration), (cs.normal_force, cs.penetration));
                if mode == Mode::Free {
                    continue;
                }
                let accel = cs
                    .projected
                    .normal_accel(cs.normal_force, cs.tangential_force);
                let general = cs.penetration_rate - accel * (damping * kappa.sqrt());
                let peak = problem.event_value(mode, Event::PeakNormalForce, &y);
                assert_eq!(peak, general, "c_d {damping}, {mode:?}");
                assert_eq!(peak == cs.penetration_rate, damping == 0.0);
            }
        }
    }
}

/// Zhao–Liu eqs. (53), (54): the stick breaks into reverse slip where the normal force falls to
/// F_n(ε₃) = θ̇²c/(ksc + μ_s(1 + ks²)), O(1) while the peak force is O(κ^−½). The closed form
/// (derived from the stick constraint by hand) at the stick's own end state against the force
/// the simulation records there (its friction from the generic constraint solve and cone test),
/// for the uniform rod, a rod with ρ = 0.1 and a damped contact; and, as κ → 0, against F* at θ0
/// and the rigid limit's θ̇_out.
#[test]
fn the_stick_ends_at_the_normal_force_of_zhao_liu_eq_53() {
    use rigid_limit::models::rod::columns::RodMeasures;
    use rigid_limit::models::rod::mechanics::THETA;
    let states = [
        RodImpact::zhao_liu(1e-8),
        RodImpact {
            damping: 0.2,
            ..RodImpact::zhao_liu(1e-8)
        },
        RodImpact {
            mu: 3.0,
            mu_s: 3.0,
            theta0: 1.2,
            gyration_sq: 0.1,
            ..RodImpact::zhao_liu(1e-8)
        },
    ];
    for imp0 in states {
        let mut last = f64::NAN;
        for kappa in [1e-6, 1e-8, 1e-10] {
            let imp = RodImpact { kappa, ..imp0 };
            let r = imp
                .simulate(&SimulationOptions::new(
                    IntegratorKind::Tsit45,
                    1e-11,
                    1e-15,
                ))
                .unwrap();
            assert_eq!(
                r.modes_joined(">"),
                "slide_left>stick>slide_right",
                "{imp:?}"
            );
            let stick = &r.modes[1];
            let closed = imp.body().stick_end_normal_force(
                imp.mu_s,
                stick.q_end[THETA],
                stick.qdot_end[THETA],
            );
            let measured = RodMeasures::from(&r).normal_force_stick_end.unwrap();
            assert!(
                rel(measured, closed) < 1e-6,
                "κ {kappa}: {measured} vs eq. (53) {closed}"
            );
            // O(1) against the O(κ^−½) peak.
            assert!(
                measured < 1e-2 * r.peak_normal_force,
                "κ {kappa}: F_n(ε₃) {measured}, peak {}",
                r.peak_normal_force
            );
            last = measured;
        }
        let f_star = RigidLimit::of(&RodImpact {
            kappa: 1e-10,
            ..imp0
        })
        .unwrap()
        .stick_end_force;
        assert!(rel(last, f_star) < 1e-3, "{last} vs F* {f_star}");
    }
}
