//! A job array as a cluster runs it: four shards as four processes at once, then `merge`; the
//! merged table equals one run of the whole experiment (outside the timing column).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn rigid_limit(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rigid-limit"));
    c.args(args).env("RAYON_NUM_THREADS", "1");
    c
}

/// runs.csv without its `wall_time_s` column.
fn rows_without_timing(dir: &Path) -> Vec<Vec<String>> {
    crate::common::rows_without_timing(dir, &["wall_time_s"])
}

#[test]
fn four_shards_run_at_once_merge_into_one_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let experiment = root.join("experiments/zhao_liu.toml");
    let experiment = experiment.to_str().unwrap();
    let base = std::env::temp_dir().join(format!("rigid-limit-cluster-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let (sharded, whole) = (base.join("sharded"), base.join("whole"));
    let shards: Vec<_> = (0..4)
        .map(|i| {
            rigid_limit(&[
                "run",
                experiment,
                "--out",
                sharded.to_str().unwrap(),
                "--shard",
                &format!("{i}/4"),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    for shard in shards {
        let out = shard.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let merge = rigid_limit(&["merge", experiment, "--out", sharded.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        merge.status.success(),
        "{}",
        String::from_utf8_lossy(&merge.stderr)
    );
    let one = rigid_limit(&["run", experiment, "--out", whole.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        one.status.success(),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    assert_eq!(rows_without_timing(&sharded), rows_without_timing(&whole));
    assert!(sharded.join("summary.md").exists());
    let _ = std::fs::remove_dir_all(&base);
}

/// `report` writes a finished run's report again from its rows, byte for byte, running
/// nothing; it refuses a directory whose rows are not those of the file (other settings, a
/// shard, a missing row), naming what differs.
/// The experiment `text` written to a fresh temporary directory (named by `tag`) and run into
/// its `out`: (the directory, the file, `out`).
fn finished_run(tag: &str, text: &str) -> (PathBuf, PathBuf, PathBuf) {
    let base = std::env::temp_dir().join(format!("rigid-limit-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let (file, out) = (base.join("experiment.toml"), base.join("out"));
    std::fs::write(&file, text).unwrap();
    let ran = rigid_limit(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    (base, file, out)
}

#[test]
fn report_rewrites_a_finished_run_and_refuses_other_rows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("experiments/spring_particle.toml")).unwrap();
    let (base, file, out) = finished_run("report", &text);
    let (file, out_arg) = (file.to_str().unwrap(), out.to_str().unwrap());
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    std::fs::remove_file(out.join("summary.md")).unwrap();
    let again = rigid_limit(&["report", file, "--out", out_arg])
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let n_rows = runs.lines().count() - 1;
    assert!(
        String::from_utf8_lossy(&again.stdout).contains(&format!("report of {n_rows} rows")),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(out.join("summary.md")).unwrap(),
        summary
    );
    assert_eq!(std::fs::read_to_string(out.join("runs.csv")).unwrap(), runs);

    let refused = |args: &[&str], needle: &str| {
        let o = rigid_limit(args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(
            !o.status.success() && err.contains(needle),
            "{args:?}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    };
    // Other settings: the key and both values are named.
    let other = base.join("other.toml");
    std::fs::write(&other, text.replace("mu = 0.5", "mu = 0.4")).unwrap();
    refused(
        &["report", other.to_str().unwrap(), "--out", out_arg],
        "params.mu",
    );
    // A row missing from runs.csv.
    let cut: Vec<&str> = runs.lines().collect();
    std::fs::write(out.join("runs.csv"), cut[..cut.len() - 1].join("\n") + "\n").unwrap();
    refused(
        &["report", file, "--out", out_arg],
        "no row with the inputs of point",
    );
    // A shard is merged, not reported.
    let sharded = base.join("sharded");
    let shard = rigid_limit(&[
        "run",
        file,
        "--out",
        sharded.to_str().unwrap(),
        "--shard",
        "0/2",
    ])
    .output()
    .unwrap();
    assert!(shard.status.success());
    let shard_dir = sharded.join("shard-0-of-2");
    refused(
        &["report", file, "--out", shard_dir.to_str().unwrap()],
        "merge the shards",
    );
    // Nothing run there.
    refused(
        &["report", file, "--out", base.join("none").to_str().unwrap()],
        "no provenance.json",
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// `report` keeps the tables the run stage wrote (they need a solver): the rod sweep's
/// history.csv survives, byte for byte, with its figure, and the summary is the run's.
#[test]
fn report_keeps_the_run_stages_side_tables() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("experiments/zhao_liu.toml"))
        .unwrap()
        .replace(
            "kappa = { min = 1e-12, max = 1e-1, per_decade = 4 }",
            "kappa = { min = 1e-6, max = 1e-2, per_decade = 1 }",
        )
        .replace(
            r#"integrators = ["bdf", "tr-bdf2", "esdirk34", "tsit45"]"#,
            r#"integrators = ["tsit45"]"#,
        );
    let (base, file, out) = finished_run("side", &text);
    let (file, out_arg) = (file.to_str().unwrap(), out.to_str().unwrap());
    let history = std::fs::read(out.join("history.csv")).unwrap();
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let report = || {
        let o = rigid_limit(&["report", file, "--out", out_arg])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    report();
    assert_eq!(std::fs::read(out.join("history.csv")).unwrap(), history);
    assert!(out.join("history.png").is_file());
    assert_eq!(
        std::fs::read_to_string(out.join("summary.md")).unwrap(),
        summary
    );
    let manifest = std::fs::read_to_string(out.join("outputs.json")).unwrap();
    assert!(
        manifest.contains("\"side_tables\"") && manifest.contains("history.csv"),
        "{manifest}"
    );
    // Twice: the second report finds the side table through the first report's manifest.
    report();
    assert_eq!(std::fs::read(out.join("history.csv")).unwrap(), history);
    let _ = std::fs::remove_dir_all(&base);
}
