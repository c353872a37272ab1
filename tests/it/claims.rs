//! The claims ledger (docs/claims.toml → results/claims.md, claims.csv): every row points to an
//! experiment and a quantity the committed results hold, every verdict is recomputed from the
//! numbers, a changed number changes a verdict, and a malformed row is refused in one line naming
//! the claim and the field.

use rigid_limit::analysis::claims::Verdict;
use rigid_limit::report::claims::{csv, judge, markdown, parse_inventory, Inventory};
use std::path::{Path, PathBuf};

const INVENTORY: &str = "docs/claims.toml";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn inventory() -> Inventory {
    let text = std::fs::read_to_string(root().join(INVENTORY)).unwrap();
    parse_inventory(&text, INVENTORY).unwrap()
}

#[test]
fn every_claim_points_to_an_existing_experiment_and_quantity() {
    let inventory = inventory();
    let judged = judge(&inventory, &root().join("results")).unwrap();
    assert_eq!(judged.len(), inventory.claims.len());
    for j in &judged {
        let c = j.claim;
        match j.verdict {
            Verdict::Absent | Verdict::NotComputable if c.status.is_some() => {
                assert!(c.experiment.is_none() || c.checks.is_empty(), "{}", c.id)
            }
            _ => {
                let e = c.experiment.as_deref().unwrap();
                // The committed results hold every experiment the inventory reads.
                assert_ne!(j.verdict, Verdict::NotRun, "{}: {:?}", c.id, j.missing);
                assert!(
                    root()
                        .join("experiments")
                        .join(format!("{e}.toml"))
                        .is_file(),
                    "{}: no experiments/{e}.toml",
                    c.id
                );
                // A checked claim that ends 'not computable' read a null or a text where a number
                // was wanted: an inventory row pointing at nothing.
                assert_ne!(
                    j.verdict,
                    Verdict::NotComputable,
                    "{}: {:?}",
                    c.id,
                    j.checks
                );
            }
        }
    }
}

#[test]
fn the_committed_ledger_is_what_the_numbers_say() {
    let inventory = inventory();
    let judged = judge(&inventory, &root().join("results")).unwrap();
    let committed = |f: &str| std::fs::read_to_string(root().join("results").join(f)).unwrap();
    assert_eq!(committed("claims.csv"), csv(&judged), "rigid-limit claims");
    assert_eq!(
        committed("claims.md"),
        markdown(&inventory, &judged, INVENTORY),
        "rigid-limit claims"
    );
}

/// Copy results/`experiment`/analysis.json into a scratch results directory with the number at
/// the JSON `pointer` replaced by `f(number)`; returns the directory.
fn perturbed(experiment: &str, pointer: &str, f: impl Fn(f64) -> f64) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rigid-limit-claims-{}", std::process::id()));
    let target = dir.join(experiment);
    std::fs::create_dir_all(&target).unwrap();
    let source = root()
        .join("results")
        .join(experiment)
        .join("analysis.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(source).unwrap()).unwrap();
    let slot = json.pointer_mut(pointer).expect(pointer);
    *slot = serde_json::json!(f(slot.as_f64().unwrap()));
    std::fs::write(target.join("analysis.json"), json.to_string()).unwrap();
    dir
}

fn verdict_of(inventory: &Inventory, id: &str, results: &Path) -> Verdict {
    let judged = judge(inventory, results).unwrap();
    judged.iter().find(|j| j.claim.id == id).unwrap().verdict
}

#[test]
fn a_changed_number_changes_the_verdict() {
    let mut inventory = inventory();
    // The normal impulse's κ → 0 limit against the closed form: reproduced as committed, refuted
    // when the extrapolated limit moves by 1e-4 relative.
    let id = "ZL-§5 item 2";
    inventory.claims.retain(|c| c.id == id);
    assert_eq!(inventory.claims.len(), 1, "{id} is in the inventory");
    assert_eq!(inventory.claims[0].experiment.as_deref(), Some("zhao_liu"));
    let pointer = "/integrators/3/convergence/4/extrapolation/limit";
    let results = root().join("results");
    assert_eq!(verdict_of(&inventory, id, &results), Verdict::Reproduced);
    let same = perturbed("zhao_liu", pointer, |v| v);
    assert_eq!(verdict_of(&inventory, id, &same), Verdict::Reproduced);
    let moved = perturbed("zhao_liu", pointer, |v| v * (1.0 + 1e-4));
    assert_eq!(verdict_of(&inventory, id, &moved), Verdict::Refuted);
    let _ = std::fs::remove_dir_all(moved);
}

/// A claim whose experiment has not run (no directory), or whose run has no report yet (no
/// analysis.json), is not run, and the other claims are judged as before.
#[test]
fn a_claim_without_results_is_not_run_and_the_others_are_judged() {
    let inventory = inventory();
    let results = root().join("results");
    let committed = judge(&inventory, &results).unwrap();
    let dir =
        std::env::temp_dir().join(format!("rigid-limit-claims-not-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Every experiment but zhao_liu, and painleve_atlas without its analysis.json.
    for entry in std::fs::read_dir(&results).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if !entry.path().is_dir() || name == "zhao_liu" {
            continue;
        }
        std::fs::create_dir_all(dir.join(&name)).unwrap();
        for file in std::fs::read_dir(entry.path()).unwrap() {
            let file = file.unwrap();
            let skip = name == "painleve_atlas" && file.file_name() == "analysis.json";
            if file.path().is_file() && !skip {
                std::fs::copy(file.path(), dir.join(&name).join(file.file_name())).unwrap();
            }
        }
    }
    let judged = judge(&inventory, &dir).unwrap();
    let mut not_run = 0;
    for (now, before) in judged.iter().zip(&committed) {
        let experiment = now.claim.experiment.as_deref();
        let reads_atlas_analysis = experiment == Some("painleve_atlas")
            && now
                .claim
                .checks
                .iter()
                .any(|c| c.table.is_none() || c.reference.is_some());
        if experiment == Some("zhao_liu") || reads_atlas_analysis {
            assert_eq!(now.verdict, Verdict::NotRun, "{}", now.claim.id);
            not_run += 1;
        } else {
            assert_eq!(now.verdict, before.verdict, "{}", now.claim.id);
        }
    }
    assert!(not_run >= 2, "{not_run}");
    let md = markdown(&inventory, &judged, INVENTORY);
    assert!(
        md.contains("**not run**") && md.contains("zhao_liu yet"),
        "{md}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

const PAPERS: &str = "[[paper]]\nid = \"ZL\"\ncite = \"Zhao et al. (2015)\"\n";

fn refusal(rows: &str) -> String {
    let text = format!("{PAPERS}{rows}");
    let error = match parse_inventory(&text, "inventory.toml") {
        Err(e) => e,
        Ok(inventory) => judge(&inventory, &root().join("results")).unwrap_err(),
    };
    assert!(!error.contains('\n'), "one line: {error}");
    error
}

#[test]
fn a_malformed_row_is_refused_naming_the_claim_and_the_field() {
    let checked = |check: &str| {
        format!(
            "[[claim]]\nid = \"ZL-(9)\"\nstatement = \"s\"\nwhere = \"§2\"\nexperiment = \"zhao_liu\"\n\
             [[claim.check]]\nwhat = \"w\"\n{check}\n"
        )
    };
    let good = "quantity = \"limit.v_out\"\nrule = \"relative\"\npaper = 0.1\ntol = 0.01";
    assert!(parse_inventory(&format!("{PAPERS}{}", checked(good)), "x").is_ok());
    for (rows, field) in [
        (checked(&format!("{good}\ntols = 1")), "`tols`"),
        (checked("quantity = \"limit.v_out\"\nrule = \"relative\"\npaper = 0.1"), "field `tol`"),
        (checked("quantity = \"limit.v_out\"\nrule = \"near\"\npaper = 0.1"), "field `rule`"),
        (checked(&format!("{good}\nmin = 0")), "field `min`"),
        (checked(&format!("{good}\naggregate = \"max\"")), "field `aggregate`"),
        (checked(&format!("table = \"runs.csv\"\n{good}")), "field `aggregate`"),
        (checked("quantity = \"limit.no_such_key\"\nrule = \"range\"\nmin = 0"), "field `quantity`"),
        (
            checked("table = \"runs.csv\"\naggregate = \"max\"\nquantity = \"nope\"\nrule = \"range\"\nmin = 0"),
            "field `quantity`",
        ),
        (checked(good).replace("ZL-(9)", "XX-(9)"), "field `id`"),
        (format!("{}{}", checked(good), checked(good)), "field `id`"),
        (checked(good).replace("zhao_liu", "no_such_experiment"), "field `experiment`"),
        (
            "[[claim]]\nid = \"ZL-(9)\"\nstatement = \"s\"\nwhere = \"§2\"\nstatus = \"absent\"\n".into(),
            "field `reason`",
        ),
        (
            "[[claim]]\nid = \"ZL-(9)\"\nstatement = \"s\"\nwhere = \"§2\"\nstatus = \"gone\"\nreason = \"r\"\n".into(),
            "field `status`",
        ),
        (
            "[[claim]]\nid = \"ZL-(9)\"\nstatement = \"s\"\nwhere = \"§2\"\n".into(),
            "field `check`",
        ),
        ("[[claim]]\nid = \"ZL-(9)\"\nwhere = \"§2\"\nstatus = \"absent\"\nreason = \"r\"\n".into(), "`statement`"),
    ] {
        let error = refusal(&rows);
        assert!(error.contains("claim ZL-(9)") || error.contains("claim XX-(9)"), "{error}");
        assert!(error.contains(field), "{field}: {error}");
    }
}
