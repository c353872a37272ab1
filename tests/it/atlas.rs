//! The atlas of a convergence study (`study = "atlas"`): each configuration's limit κ → 0 against
//! the rigid limit, checked on a system whose compliant limit is known in closed form and differs
//! from the rigid reference's (systems/v_groove.toml), and its refusals.

use crate::common::{parse_error, points_table, run_and_report};
use std::collections::BTreeMap;

/// An atlas of systems/v_groove.toml over `sweep` (the lines of `[sweep]` after κ).
fn v_groove_atlas(sweep: &str) -> String {
    format!(
        "name = \"v_groove_atlas\"\nmodel = \"system\"\nstudy = \"atlas\"\n\
         system = \"systems/v_groove.toml\"\n[sweep]\n\
         kappa = {{ min = 1e-9, max = 1e-4, per_decade = 2 }}\n{sweep}\n\
         [solver]\nintegrators = [\"dop853\"]\nrtol = 1e-10\natol = 1e-12\nt_end = 0.5\n"
    )
}

#[test]
fn a_v_groove_atlas_finds_the_compliant_limit_and_where_it_leaves_the_rigid_one() {
    let experiment =
        rigid_limit::models::Experiment::parse(&v_groove_atlas("mu = [0.0, 0.5, 0.9, 1.2]"))
            .unwrap();
    let (dir, summary) = run_and_report(&experiment, "v-groove-atlas");
    // The rigid runs at μ = 1.2 refuse the wedged impact; everything else runs.
    assert_eq!(summary.failed, 1, "{summary:?}");
    let rows = points_table(&dir);
    assert_eq!(rows.len(), 4);
    let number = |r: &BTreeMap<String, String>, c: &str| -> f64 {
        r[c].parse()
            .unwrap_or_else(|_| panic!("{c} = {:?} in {r:?}", r[c]))
    };
    for r in &rows {
        let mu = number(r, "mu");
        // The compliant particle leaves the vertex (reached at t = 0.1) at √((1 − μ)/(1 + μ)) of
        // its speed 1 and flies for 0.4; wedged (μ ≥ 1) it stays at the vertex. Newton's law
        // with e = 1 returns the whole speed, and has no solution for μ ≥ 1.
        let leaves = if mu < 1.0 {
            ((1.0 - mu) / (1.0 + mu)).sqrt()
        } else {
            0.0
        };
        let y_dot = number(r, "q_dot_end_1_limit");
        let y = number(r, "q_end_1_limit");
        assert!((y_dot - leaves).abs() < 1e-9, "μ = {mu}: ẏ → {y_dot}");
        assert!((y - 0.4 * leaves).abs() < 1e-9, "μ = {mu}: y → {y}");
        let verdict = r["q_dot_end_1_verdict"].as_str();
        match mu {
            0.0 => {
                assert_eq!(verdict, "agrees", "{r:?}");
                assert_eq!(r["q_end_1_verdict"], "agrees", "{r:?}");
                // The frictionless impact's duration shifts y by ∝ √κ.
                assert!((number(r, "q_end_1_rate") - 0.5).abs() < 1e-6, "{r:?}");
            }
            1.2 => {
                assert_eq!(verdict, "no rigid limit", "{r:?}");
                assert_eq!(r["q_dot_end_1_rigid"], "", "{r:?}");
            }
            _ => {
                assert_eq!(verdict, "another limit", "{r:?}");
                assert_eq!(number(r, "q_dot_end_1_rigid"), 1.0, "{r:?}");
            }
        }
        // On the axis of symmetry at every μ, as the rigid particle where it has one.
        assert!(number(r, "q_end_0_limit").abs() < 1e-12, "{r:?}");
        if mu < 1.0 {
            assert_eq!(r["q_end_0_verdict"], "agrees", "{r:?}");
        }
    }
    let text = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(
        text.contains(
            "Another limit than the rigid reference's at 2 of 4 configurations, over mu ∈ [0.5, 0.9]."
        ),
        "{text}"
    );
    assert!(dir.join("atlas.png").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_atlas_without_a_swept_parameter_or_a_readable_ladder_is_refused() {
    let err = parse_error(&v_groove_atlas(""));
    assert!(
        err.contains("sweep") && err.contains("sweep one besides κ"),
        "{err}"
    );
    let short = v_groove_atlas("mu = [0.0, 0.5]").replace(
        "kappa = { min = 1e-9, max = 1e-4, per_decade = 2 }",
        "kappa = { min = 1e-5, max = 1e-4, per_decade = 1 }",
    );
    let err = parse_error(&short);
    assert!(
        err.contains("sweep.kappa") && err.contains("at least"),
        "{err}"
    );
    let err = parse_error(&v_groove_atlas("mu = [0.0, 0.5]").replace("atlas", "atlases"));
    assert!(err.contains("atlas"), "{err}");
    for err in [parse_error(&short), parse_error(&v_groove_atlas(""))] {
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}
