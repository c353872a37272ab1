//! Chatter and reverse chatter of C–V's planar contact (§3.3, §5.3; docs/oblique_impact.md):
//! after a sustained slip stops, an elastic law lifts off into impacts whose speeds grow by the
//! rigid bounce map's e (energetic, r = 1) > 1, while a strongly damped spring–dashpot sticks;
//! a non-oblique contact dropped at v0 < 0 chatters forward with e = r and comes to rest at
//! the rigid Zeno time 2r|v0|/(|b|(1 − r)).

use crate::common::{number, rows_of};
use rigid_limit::experiment::table::Row;
use rigid_limit::models::Experiment;

fn rows(text: &str) -> Vec<Row> {
    rows_of!(text, Experiment::PlanarChatter)
}

const REVERSE: &str = r#"
name = "t"
model = "planar"
analysis = "chatter"
[params]
b = -1.0
A = 1.0
B = 0.5
C = 1.0
mu = 1.6
u0 = 0.45
v0 = 0.0
t_end = 2.0
[sweep]
kappa = { min = 1e-10, max = 1e-9, per_decade = 1 }
a = [1.0]
laws = [
  { law = "spring_dashpot", damping = 0.0 },
  { law = "hunt_crossley", damping = 0.0 },
  { law = "spring_dashpot", damping = 1.0 },
]
[solver]
integrators = ["tsit45"]
rtol = 1e-10
atol = 1e-12
max_events = 5000
"#;

#[test]
fn elastic_laws_reverse_chatter_at_the_rigid_rate_and_damping_sticks() {
    for r in rows(REVERSE)
        .iter()
        .filter(|r| r.number("kappa") == Some(1e-10))
    {
        assert_eq!(r.text("status"), "ok", "{:?}", r.fields);
        // The slip stops where the rigid deceleration says: u0/(k+λ_N − a).
        let stop = number(r, "slip_stop_time");
        assert!(
            (stop / number(r, "slip_stop_time_rigid") - 1.0).abs() < 1e-4,
            "{stop}"
        );
        if number(r, "damping") == 0.0 {
            assert_eq!(r.text("outcome"), "reverse_chatter");
            let (e, want) = (number(r, "e_last"), number(r, "e_elastic"));
            assert!(want > 1.0 && (e / want - 1.0).abs() < 1e-3, "{e} {want}");
        } else {
            assert_eq!(r.text("outcome"), "stick", "{:?}", r.fields);
        }
    }
}

#[test]
fn forward_chatter_accumulates_at_the_rigid_zeno_time() {
    let text = REVERSE
        .replace("B = 0.5", "B = 0.0")
        .replace("v0 = 0.0", "v0 = -0.3")
        .replace("u0 = 0.45", "u0 = 0.0")
        .replace(
            "{ law = \"spring_dashpot\", damping = 0.0 },\n  { law = \"hunt_crossley\", damping = 0.0 },",
            "{ law = \"spring_dashpot\", damping = 0.3 },",
        );
    let rows = rows(&text);
    assert_eq!(rows.len(), 4);
    for r in rows.iter().filter(|r| r.number("kappa") == Some(1e-10)) {
        assert_eq!(r.text("outcome"), "chatter_to_stick", "{:?}", r.fields);
        let (e, restitution) = (number(r, "e_first"), number(r, "restitution"));
        assert!((e / restitution - 1.0).abs() < 1e-3, "{e} {restitution}");
        let (t, zeno) = (number(r, "last_contact_end"), number(r, "zeno_time_rigid"));
        assert!((t / zeno - 1.0).abs() < 1e-3, "{t} {zeno}");
    }
}

/// Through the system's entry point (`PlanarChatter::run`): a non-oblique contact (B = 0, a = 0)
/// dropped at v0 < 0 leaves its first compliant impact at r|v0| (r of the spring–dashpot at unit
/// normal mobility) and flies ballistically under b: it lands again at |v⁻| = r|v0| after the
/// flight 2r|v0|/|b| (plus the O(√κ) contact).
#[test]
fn a_dropped_contact_flies_ballistically_between_its_first_two_impacts() {
    use rigid_limit::compliant::normal::{restitution_unit_normal_mass, NormalLaw};
    use rigid_limit::experiment::system::{Method, RunSettings, System};
    use rigid_limit::integrate::IntegratorKind;
    use rigid_limit::models::planar::chatter::{ChatterConfig, PlanarChatter};
    let (b, v0, damping, kappa) = (-1.0, -0.3, 0.3, 1e-10);
    let config = ChatterConfig {
        a: 0.0,
        b,
        tangential_mobility: 1.0,
        cross_mobility: 0.0,
        normal_mobility: 1.0,
        mu: 0.5,
        u0: 0.0,
        v0,
        t_end: 0.5,
        law: NormalLaw::SpringDashpot,
        damping,
    };
    PlanarChatter::validate(&config, None).unwrap();
    let mut settings = RunSettings::new(IntegratorKind::Tsit45, 1e-10, 1e-12);
    settings.max_events = Some(5000);
    let (record, _) = PlanarChatter::run(&config, Method::Compliant { kappa }, &settings).unwrap();
    let r = restitution_unit_normal_mass(damping).unwrap();
    let first = |list: &str| -> f64 { list.split(' ').next().unwrap().parse().unwrap() };
    let (t1, speed1) = (first(&record.impact_times), first(&record.impact_speeds));
    let flight = 2.0 * r * -v0 / -b;
    assert!(
        (t1 - flight).abs() < 1e-4,
        "first landing at {t1}, flight {flight}"
    );
    assert!(
        (speed1 / (r * -v0) - 1.0).abs() < 1e-4,
        "landing speed {speed1}, r|v0| = {}",
        r * -v0
    );
}
