//! A job array as a cluster runs it: four shards as four processes at once, then `merge`; the
//! merged table equals one run of the whole experiment (outside the timing column).

use std::path::Path;
use std::process::{Command, Stdio};

fn rigid_limit(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rigid-limit"));
    c.args(args).env("RAYON_NUM_THREADS", "1");
    c
}

/// runs.csv without its `wall_time_s` column.
fn rows_without_timing(dir: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let timing = header.iter().position(|c| *c == "wall_time_s").unwrap();
    lines
        .map(|l| {
            let mut cells = rigid_limit::experiment::table::split_csv_line(l).unwrap();
            cells.remove(timing);
            cells
        })
        .collect()
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
