//! Nothing stale is ever reused: a rerun under new settings that is interrupted, a merge of a
//! shard whose rerun was interrupted or is still running, a journal beside merged rows, rows
//! matched as numbers, a report that fails half-way. Each case ends in the rows of an
//! uninterrupted run of the final file, or in a clear refusal.

use crate::common::{run_options, scratch};
use rigid_limit::experiment::runner::{JOURNAL_CSV, RUNS_CSV};
use rigid_limit::experiment::store::{replace_report, DirLock, OUTPUTS_JSON, PROVENANCE_JSON};
use rigid_limit::experiment::table::{parse_rows, Row};
use rigid_limit::experiment::{RunOptions, RunSummary, Shard};
use rigid_limit::models::Experiment;
use std::path::Path;

fn options(dir: &Path, shard: Option<Shard>, stop_after_rows: Option<usize>) -> RunOptions {
    RunOptions {
        shard,
        stop_after_rows,
        ..run_options(dir)
    }
}

fn experiment_text(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("experiments")
        .join(file);
    std::fs::read_to_string(path).unwrap()
}

/// The same file with a setting that changes the rows but no input column: the tightest step
/// guard of 20, 200 or 2000 that the file's validation accepts (most points fail) where the
/// model has `[solver]`, else a looser tolerance or another load rate.
fn other_settings(text: &str) -> String {
    let guarded = |steps: usize| {
        let at = text.find("[solver]")? + "[solver]".len();
        let guarded = format!("{}\nmax_steps = {steps}{}", &text[..at], &text[at..]);
        Experiment::parse(&guarded).is_ok().then_some(guarded)
    };
    match [20, 200, 2000].into_iter().find_map(guarded) {
        Some(guarded) => guarded,
        None if text.contains("rtol = ") => looser(text),
        None => text.replace("load_rate = 1.0", "load_rate = 2.0"),
    }
}

/// The same file with its (first) relative tolerance ten times looser.
fn looser(text: &str) -> String {
    let at = text.find("rtol = ").expect("every experiment sets rtol") + "rtol = ".len();
    let end = at + text[at..].find(['\n', ' ']).unwrap();
    let rtol: f64 = text[at..end].parse().unwrap();
    format!("{}{}{}", &text[..at], rtol * 10.0, &text[end..])
}

/// The rows of `dir/runs.csv` without the timing columns.
fn rows_without_timing(dir: &Path) -> Vec<Vec<String>> {
    crate::common::rows_without_timing(dir, &["wall_time_s", "wall_time_min_s", "repeats"])
}

fn run(experiment: &Experiment, opts: &RunOptions) -> RunSummary {
    let s = experiment.run(opts).unwrap();
    if opts.shard.is_none() {
        experiment.report(&s.out_dir).unwrap();
    }
    s
}

/// A small deterministic generator (SplitMix64) for the interruption points.
struct Draws(u64);

impl Draws {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n.max(1) as u64) as usize
    }
}

/// The integrator study (its own plan) in small: one scenario, two integrators, three
/// tolerances.
const SMALL_STUDY: &str = r#"
name = "integrators_small"
kind = "integrator_study"
integrators = ["tsit5", "dop853"]
rtol = { min = 1e-8, max = 1e-6, per_decade = 1 }
atol_per_rtol = 1.0
repeats = 1
reference = { integrators = ["dop853", "tsit5"], rtol = 1e-12 }
time_per_work_ns = { tsit5 = 139, dop853 = 98 }

[[scenario]]
name = "impact"
kind = "impact"
kappa = [1e-6]
damping = [0.0]
mu = 2.0
theta0 = 1.3
u0 = -1.0
"#;

/// Across experiment kinds: a complete run under other settings, then the final file run and
/// interrupted at random points (twice), then resumed: the rows equal an uninterrupted run of
/// the final file, and provenance.json names the final settings.
#[test]
fn interrupted_reruns_under_new_settings_end_in_the_rows_of_the_final_file() {
    let files = [
        "integrators (small)",
        "zhao_liu.toml",
        "klarbring_2d.toml",
        "klarbring_impacts.toml",
        "spring_particle.toml",
        "sm_dynamic.toml",
        "sm_ip.toml",
        "mode_table_rod.toml",
        "mode_table_planar.toml",
        "liftoff_iwc_basin_rod.toml",
        "fast_phase_portraits.toml",
        "two_contact_iwc.toml",
        "two_contact_sprag_slip.toml",
        "two_contact_sprag_slip_long.toml",
        "liftoff_iwc_basin_planar.toml",
        "stick_liftoff_basin.toml",
    ];
    let mut draws = Draws(20261126);
    for file in files {
        let (final_text, before_text) = match file {
            "integrators (small)" => (
                SMALL_STUDY.to_string(),
                SMALL_STUDY.replace("atol_per_rtol = 1.0", "atol_per_rtol = 10.0"),
            ),
            _ => {
                let text = experiment_text(file);
                let before = other_settings(&text);
                (text, before)
            }
        };
        let before = Experiment::parse(&before_text).unwrap();
        let after = Experiment::parse(&final_text).unwrap();
        let reference = scratch(&format!("reference-{file}"));
        let n = run(&after, &options(&reference, None, None)).points;
        let dir = scratch(&format!("rerun-{file}"));
        run(&before, &options(&dir, None, None));
        for _ in 0..2 {
            let k = draws.below(n);
            match after.run(&options(&dir, None, Some(k))) {
                Err(e) => assert!(e.to_string().contains("stopped after"), "{file}: {e}"),
                // Fewer than k points were left to run.
                Ok(s) => assert!(s.ran <= k, "{file}: ran {} past {k}", s.ran),
            }
        }
        let resumed = run(&after, &options(&dir, None, None));
        assert_eq!(resumed.points, n, "{file}");
        let (got, want) = (rows_without_timing(&dir), rows_without_timing(&reference));
        assert_eq!(got.len(), want.len(), "{file}: rows");
        if let Some((g, w)) = got.iter().zip(&want).find(|(g, w)| g != w) {
            panic!(
                "{file}: the resumed rows differ from an uninterrupted run: {g:?} against {w:?}"
            );
        }
        let provenance = std::fs::read_to_string(dir.join(PROVENANCE_JSON)).unwrap();
        assert_eq!(
            provenance,
            std::fs::read_to_string(reference.join(PROVENANCE_JSON)).unwrap(),
            "{file}"
        );
        // The report is the final run's, listed whole in its manifest, beside its meta.json.
        assert!(dir.join(OUTPUTS_JSON).exists() && dir.join("summary.md").exists());
        assert!(dir.join("meta.json").exists(), "{file}: no meta.json");
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&reference);
    }
}

/// Klarbring's restitution is an input of every row: rows of e = 0.5 never come back under a
/// file that says e = 1, even through an interrupted rerun.
#[test]
fn klarbring_rows_of_another_restitution_never_come_back() {
    let text = experiment_text("klarbring_2d.toml").replace("t_end = 13.5", "t_end = 3.0");
    let half = Experiment::parse(&text.replace("restitution = 1.0", "restitution = 0.5")).unwrap();
    let one = Experiment::parse(&text).unwrap();
    let dir = scratch("stale-klarbring-restitution");
    run(&half, &options(&dir, None, None));
    one.run(&options(&dir, None, Some(3))).unwrap_err();
    let s = run(&one, &options(&dir, None, None));
    assert_eq!(s.resumed, 3);
    let rows = parse_rows(
        &std::fs::read_to_string(dir.join(RUNS_CSV)).unwrap(),
        &klarbring_columns(&one),
    );
    assert_eq!(rows.len(), s.points);
    assert!(rows.iter().all(|r| r.number("restitution") == Some(1.0)));
    // Every row that ran records its time.
    assert!(rows
        .iter()
        .filter(|r| r.text("status") == "ok")
        .all(|r| r.number("wall_time_s").is_some_and(|t| t > 0.0)));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A shard whose rerun under new settings was interrupted, or that another run holds, is not
/// merged; a journal of an interrupted full run does not survive a merge.
#[test]
fn merge_refuses_unfinished_or_busy_shards_and_supersedes_a_journal() {
    let text = experiment_text("zhao_liu.toml");
    let before = Experiment::parse(&looser(&text)).unwrap();
    let after = Experiment::parse(&text).unwrap();
    let dir = scratch("stale-merge");
    let shard = |i| Some(Shard { index: i, count: 2 });
    for i in 0..2 {
        run(&before, &options(&dir, shard(i), None));
    }
    // Shard 1 rerun under the final file and interrupted: its old runs.csv is gone.
    after.run(&options(&dir, shard(1), Some(5))).unwrap_err();
    let err = after.merge(&dir, "test").unwrap_err().to_string();
    assert!(
        err.contains("shard-0-of-2") || err.contains("shard-1-of-2"),
        "{err}"
    );
    run(&after, &options(&dir, shard(0), None));
    let err = after.merge(&dir, "test").unwrap_err().to_string();
    assert!(
        err.contains("shard-1-of-2 has not finished") && err.contains("--shard 1/2"),
        "{err}"
    );
    // A shard being written (its lock held) is not read.
    run(&after, &options(&dir, shard(1), None));
    let held = DirLock::acquire(&dir.join("shard-1-of-2")).unwrap();
    let err = after.merge(&dir, "test").unwrap_err().to_string();
    assert!(err.contains("shard-1-of-2 is being run"), "{err}");
    drop(held);
    // An interrupted run of the whole experiment left a journal; the merge supersedes it.
    after.run(&options(&dir, None, Some(4))).unwrap_err();
    assert!(dir.join(JOURNAL_CSV).exists());
    let merged = after.merge(&dir, "test").unwrap();
    after.report(&dir).unwrap();
    assert!(!dir.join(JOURNAL_CSV).exists());
    let reference = scratch("stale-merge-reference");
    run(&after, &options(&reference, None, None));
    assert_eq!(rows_without_timing(&dir), rows_without_timing(&reference));
    // The merged rows are resumed as they are.
    let again = run(&after, &options(&dir, None, None));
    assert_eq!((again.resumed, again.ran), (merged.points, 0));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&reference);
}

/// Rows are matched by the numbers they hold, not by their text: Schmid–Mielke's rows (whose
/// ε is written `1e-4`) resume and merge.
#[test]
fn schmid_mielke_rows_resume_and_merge() {
    let sm = Experiment::parse(&experiment_text("sm_dynamic.toml")).unwrap();
    let dir = scratch("stale-sm");
    let first = run(&sm, &options(&dir, None, None));
    let again = run(&sm, &options(&dir, None, None));
    assert_eq!((again.resumed, again.ran), (first.points, 0));
    let sharded = scratch("stale-sm-shards");
    for i in 0..3 {
        run(
            &sm,
            &options(&sharded, Some(Shard { index: i, count: 3 }), None),
        );
    }
    sm.merge(&sharded, "test").unwrap();
    assert_eq!(rows_without_timing(&sharded), rows_without_timing(&dir));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&sharded);
}

/// Klarbring with every point failing (an event guard of 1): the failed points are rows that
/// keep their inputs, the report is written and says why it has no path figure.
#[test]
fn a_failed_point_is_a_row_never_a_failed_experiment() {
    let text = experiment_text("klarbring_2d.toml")
        .replace("rtol = 1e-10", "rtol = 1e-10\nmax_events = 1");
    let k = Experiment::parse(&text).unwrap();
    let dir = scratch("stale-klarbring-failed");
    let s = run(&k, &options(&dir, None, None));
    assert!(s.failed > 0);
    let rows: Vec<Row> = parse_rows(
        &std::fs::read_to_string(dir.join(RUNS_CSV)).unwrap(),
        &klarbring_columns(&k),
    );
    for r in rows.iter().filter(|r| r.text("status") != "ok") {
        assert_eq!(r.number("mu"), Some(0.8), "{:?}", r.fields);
        assert_eq!(r.number("restitution"), Some(1.0));
    }
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    if !dir.join("paths.csv").exists() {
        assert!(summary.contains("No path figure"), "{summary}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A report that fails half-way (a full disk) leaves no file of the previous report beside
/// the new rows, and none of its own; a report that succeeds replaces the previous one whole.
#[test]
fn a_report_replaces_the_previous_one_whole_or_leaves_none() {
    let dir = scratch("stale-report");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(RUNS_CSV), "point_id\n0\n").unwrap();
    std::fs::write(dir.join("notes.txt"), "a user's own file\n").unwrap();
    replace_report(&dir, |staging| {
        assert!(staging.join(RUNS_CSV).exists(), "the report reads the rows");
        std::fs::write(staging.join("summary.md"), "first\n").unwrap();
        std::fs::write(staging.join("old_figure.png"), "png").unwrap();
        Ok(())
    })
    .unwrap();
    assert!(dir.join("old_figure.png").exists() && dir.join(OUTPUTS_JSON).exists());
    // The second report no longer draws old_figure.png.
    replace_report(&dir, |staging| {
        std::fs::write(staging.join("summary.md"), "second\n").unwrap();
        Ok(())
    })
    .unwrap();
    assert!(!dir.join("old_figure.png").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("summary.md")).unwrap(),
        "second\n"
    );
    // The third fails after writing its summary.
    let err = replace_report(&dir, |staging| {
        std::fs::write(staging.join("summary.md"), "third\n").unwrap();
        Err(rigid_limit::experiment::runner::RunError::Merge(
            "No space left on device".into(),
        ))
    })
    .unwrap_err();
    assert!(err.to_string().contains("No space"));
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["notes.txt", RUNS_CSV]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `[solver]` key that a model's runs would ignore is refused, naming the key and the model.
#[test]
fn solver_keys_a_model_ignores_are_refused() {
    let cases = [
        ("klarbring_2d.toml", "t_max = 1e-3"),
        ("spring_particle.toml", "t_max = 1"),
        ("dance_start_slide.toml", "max_steps = 1000"),
        ("dance_start_slide.toml", "max_events = 10"),
        ("mode_table_rod.toml", "t_max = 1"),
        ("two_contact_iwc.toml", "t_max = 1"),
    ];
    for (file, line) in cases {
        let text = experiment_text(file);
        let at = text.find("[solver]").expect("a [solver] table") + "[solver]".len();
        let mutated = format!("{}\n{line}{}", &text[..at], &text[at..]);
        let err = Experiment::parse(&mutated)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        let key = line.split(' ').next().unwrap();
        assert!(
            err.contains(&format!("solver.{key}")) && err.contains("remove the key"),
            "{file} with {line}: {err}"
        );
        assert!(!err.contains('\n'), "{err}");
    }
    // The keys a model uses stay accepted.
    let rod = experiment_text("zhao_liu.toml").replace("[solver]", "[solver]\nt_max = 5");
    Experiment::parse(&rod).unwrap();
}

/// The columns of a Klarbring experiment's runs.csv.
fn klarbring_columns(e: &Experiment) -> Vec<&'static str> {
    let Experiment::Klarbring(spec) = e else {
        panic!("a klarbring experiment")
    };
    spec.columns()
}

/// A run into a directory that holds another experiment's rows (another model) refuses,
/// naming the model, and leaves those rows as they were; `--fresh` replaces them. A changed
/// setting of the same model reruns and says how many rows it did not reuse, whatever their
/// columns.
#[test]
fn a_run_into_another_experiments_directory_refuses_and_keeps_its_rows() {
    let dir = scratch("other-experiment");
    let spring = Experiment::parse(&experiment_text("spring_particle.toml")).unwrap();
    run(&spring, &options(&dir, None, None));
    let stored = std::fs::read(dir.join(RUNS_CSV)).unwrap();
    let klarbring = Experiment::parse(&experiment_text("klarbring_impacts.toml")).unwrap();
    let e = klarbring
        .run(&options(&dir, None, None))
        .expect_err("another model's rows are refused")
        .to_string();
    assert!(
        e.contains("another experiment")
            && e.contains("model: stored spring_particle, now klarbring_impacts")
            && e.contains("--fresh"),
        "{e}"
    );
    assert_eq!(std::fs::read(dir.join(RUNS_CSV)).unwrap(), stored);
    let fresh = RunOptions {
        fresh: true,
        ..options(&dir, None, None)
    };
    let s = klarbring.run(&fresh).unwrap();
    let replaced = s.not_reused.expect("the replaced rows are reported");
    assert_eq!(
        replaced.rows,
        String::from_utf8_lossy(&stored).lines().count() - 1
    );
    assert_eq!(replaced.reason, "--fresh");
    let _ = std::fs::remove_dir_all(&dir);
}
