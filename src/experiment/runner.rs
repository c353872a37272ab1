//! The sweep runner: points in parallel (rayon), deterministic output order, failed points kept
//! as rows with their error, resume after interruption, shards for job arrays, atomic writes.

use super::store::{
    compact, discard_report, discard_rows, fresh_staging, io_err, stored_row_count, temporary_path,
    DirLock, MergedLines, Provenance, TableLines, TableWriter, PROVENANCE_JSON,
};
pub use super::store::{write_atomically, RunError};
use super::table::Row;
use std::collections::BTreeMap;
use std::fs;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

pub const RUNS_CSV: &str = "runs.csv";
/// Rows appended (and flushed) as points finish; what an interrupted run resumes from.
pub const JOURNAL_CSV: &str = "runs.journal.csv";
pub(crate) const META_JSON: &str = "meta.json";
/// One impact's sampled time history (the κ of the grid nearest 1e-6, first integrator).
pub(crate) const HISTORY_CSV: &str = "history.csv";

/// What the runner needs of an experiment: its points, the columns of its table, the cells a
/// point fixes before it runs (which stored row is its result), and how to run it into a row.
/// The points of a plan in output order, made as they are taken: a grid of a million points is
/// never held.
pub type Points<'a, Pt> = Box<dyn Iterator<Item = Pt> + Send + 'a>;

pub trait Plan: Sync {
    type Point: Send + Sync;
    fn name(&self) -> &str;
    /// Columns of runs.csv; the first is `point_id`.
    fn columns(&self) -> Vec<&'static str>;
    /// Every point, in output order; `point_id` is the position.
    fn points(&self) -> Points<'_, Self::Point>;
    fn point_id(&self, point: &Self::Point) -> usize;
    /// The cells of `point` known before it runs: every input that shapes its row. A stored
    /// row is the result of `point` when it holds each of them (numbers compared as numbers),
    /// and a failed point's row keeps them.
    fn input_row(&self, point: &Self::Point) -> Row;
    /// Run one point; a failure is a row with `status = error`, never a panic.
    fn run_point(&self, point: &Self::Point) -> Row;
    /// A short description for the progress bar.
    fn describe(&self, point: &Self::Point) -> String;
    /// The experiment as JSON, for meta.json.
    fn spec_json(&self) -> serde_json::Value;
    /// Side tables besides runs.csv (a sampled trajectory, paths), computed at the end of a full
    /// run or a merge and written into `dir`, the report's staging directory: the report stage
    /// reads them and never runs a solver.
    fn after_run(&self, _dir: &Path) -> Result<(), RunError> {
        Ok(())
    }
}

/// Whether `row` is the result of the point whose known cells are `inputs`.
pub(crate) fn row_matches(row: &Row, inputs: &Row) -> bool {
    row.point_id == inputs.point_id && inputs.fields.iter().all(|(k, v)| row.cell_is(k, v))
}

/// Every n-th point, starting at i: `--shard i/n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("invalid --shard '{s}': expected i/n with 0 <= i < n, e.g. 0/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    pub(crate) fn dir_name(&self) -> String {
        format!("shard-{}-of-{}", self.index, self.count)
    }

    /// The shard of a directory named `shard-I-of-N`.
    pub(crate) fn from_dir_name(name: &str) -> Option<Shard> {
        let (i, n) = name.strip_prefix("shard-")?.split_once("-of-")?;
        format!("{i}/{n}").parse().ok()
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

pub struct RunOptions {
    pub out_dir: PathBuf,
    pub shard: Option<Shard>,
    /// Print progress to stderr (only when it is a terminal).
    pub progress: bool,
    /// Start afresh: rerun every point, whatever rows the directory holds.
    pub fresh: bool,
    /// The command line, for meta.json.
    pub command_line: String,
    /// Stop the sweep as an interruption would once this many new rows are in the journal:
    /// the directory is left as a kill at that moment leaves it (tests of resume use it).
    pub stop_after_rows: Option<usize>,
    /// Set by another thread to stop the sweep as an interruption does (the Python package's
    /// Ctrl-C): points in flight finish and are journalled, no new point starts, and the run
    /// returns [`RunError::Interrupted`] with the directory ready to resume.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl RunOptions {
    /// A run into `out_dir`, whole (no shard), resuming, without progress bar, interruption or
    /// command line; callers set what differs with struct update syntax.
    pub fn new(out_dir: impl Into<PathBuf>) -> Self {
        RunOptions {
            out_dir: out_dir.into(),
            shard: None,
            progress: false,
            fresh: false,
            command_line: String::new(),
            stop_after_rows: None,
            cancel: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    pub out_dir: PathBuf,
    pub points: usize,
    /// Points found already done (resumed), not run again.
    pub resumed: usize,
    pub ran: usize,
    pub failed: usize,
    /// Rows found in the directory but not reused, and why.
    pub not_reused: Option<NotReused>,
    pub wall_time_s: f64,
}

/// Stored rows a run did not reuse.
#[derive(Debug, Clone, PartialEq)]
pub struct NotReused {
    pub rows: usize,
    /// The first differing setting, another build, or `--fresh`.
    pub reason: String,
}

/// Rows an interrupted run resumes from, in point order: runs.csv and the journal, compacted
/// into one file when a run starts, removed when it ends.
pub(crate) const RESUME_CSV: &str = "runs.resume.csv";
/// Rows held at most while they wait for an earlier point to finish: rows are written in point
/// order as soon as they can be, so the run is never held in memory.
const REORDER_LIMIT: usize = 4096;

/// Run (or resume) an experiment; writes runs.csv and meta.json in the output directory (or its
/// shard subdirectory).
///
/// Rows already in the directory are reused only when they were computed under the same
/// provenance (every setting and the same build; see [`super::store`]) and hold their point's
/// inputs; the summary says how many were rerun and why. Rows that may not be reused and the
/// previous report are removed before the new provenance is written, so an interruption at any
/// moment leaves only rows of the settings that provenance.json names.
///
/// Rows stream: points are handed to the workers in output order, each row is appended to the
/// journal (and flushed) in point order as soon as every earlier point is done, and the journal
/// becomes runs.csv at the end. Memory holds at most `REORDER_LIMIT` rows, whatever the size
/// of the grid.
pub fn run_experiment<P: Plan>(spec: &P, opts: &RunOptions) -> Result<RunSummary, RunError> {
    let start = Instant::now();
    let dir = match opts.shard {
        Some(s) => opts.out_dir.join(s.dir_name()),
        None => opts.out_dir.clone(),
    };
    fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    let _lock = DirLock::acquire(&dir)?;
    let columns = &spec.columns();
    let shard = opts.shard;
    let in_shard = move |p: &P::Point| shard.is_none_or(|s| spec.point_id(p) % s.count == s.index);
    let n_points = spec.points().filter(in_shard).count();
    let provenance = Provenance::current(&spec.spec_json(), opts.shard.map(|s| s.to_string()));
    let (runs, journal_path, resume) = (
        dir.join(RUNS_CSV),
        dir.join(JOURNAL_CSV),
        dir.join(RESUME_CSV),
    );
    let why_not = if opts.fresh {
        Some("--fresh".to_string())
    } else {
        match Provenance::read(&dir) {
            Some(p) => {
                if let Some(other) = provenance.other_experiment(&p) {
                    return Err(RunError::OtherExperiment(format!(
                        "{}: holds the rows of another experiment ({other}); give another \
                         --out, or --fresh to replace them",
                        dir.display()
                    )));
                }
                provenance.mismatch(&p)
            }
            None => Some(format!("no {PROVENANCE_JSON} says how they were computed")),
        }
    };
    discard_report(&dir)?;
    let not_reused = match why_not {
        Some(reason) => {
            let stored = [resume.clone(), runs.clone(), journal_path.clone()];
            let rows = stored_row_count(&stored, columns);
            discard_rows(&dir, &[RESUME_CSV, RUNS_CSV, JOURNAL_CSV])?;
            (rows > 0).then_some(NotReused { rows, reason })
        }
        None => {
            // The rows to resume from, in one file in point order.
            if journal_path.exists() || resume.exists() {
                compact(&[&resume, &runs, &journal_path], &resume, columns)?;
            } else if runs.exists() {
                fs::rename(&runs, &resume).map_err(io_err(&resume))?;
            }
            None
        }
    };
    provenance.write(&dir)?;
    let feed = Mutex::new(Feed {
        spec,
        columns,
        points: Box::new(spec.points().filter(in_shard)),
        stored: MergedLines::open(std::slice::from_ref(&resume), columns),
        seq: 0,
        resumed: 0,
    });
    let mut journal = TableWriter::create(&journal_path, columns)?;
    journal.flush()?;
    let ordered = Mutex::new(Ordered {
        next: 0,
        pending: BTreeMap::new(),
        journal,
        new_rows: 0,
        failed: 0,
        error: None,
        interrupted: false,
    });
    let room = Condvar::new();
    // A progress bar on a terminal, nothing otherwise (logs of batch jobs stay clean).
    let bar = if opts.progress && std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(n_points as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{prefix} [{bar:40}] {pos}/{len} points, {elapsed} elapsed, ETA {eta} {msg}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(spec.name().to_string());
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    // A failed journal write (a full disk) stops the sweep at once: no point is computed whose
    // row could not be kept.
    let stop = AtomicBool::new(false);
    let worker = || loop {
        {
            let mut w = lock_ignoring_poison(&ordered);
            while w.pending.len() >= REORDER_LIMIT && !stop.load(Ordering::Relaxed) {
                w = room.wait(w).unwrap_or_else(|e| e.into_inner());
            }
        }
        if stop.load(Ordering::Relaxed) {
            return;
        }
        if opts
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            lock_ignoring_poison(&ordered).interrupted = true;
            stop.store(true, Ordering::Relaxed);
            room.notify_all();
            return;
        }
        let Some((seq, item)) = lock_ignoring_poison(&feed).next() else {
            return;
        };
        let written = match item {
            Item::Stored { line, ok } => Written {
                line,
                ok,
                new: false,
            },
            Item::Run(p) => {
                let row = spec.run_point(&p);
                bar.set_message(format!("({})", spec.describe(&p)));
                Written {
                    line: row.to_csv_line(columns),
                    ok: row.text("status") == "ok",
                    new: true,
                }
            }
        };
        bar.inc(1);
        let mut w = lock_ignoring_poison(&ordered);
        w.pending.insert(seq, written);
        if let Err(stopped) = w.write_ready(opts.stop_after_rows) {
            if stopped {
                stop.store(true, Ordering::Relaxed);
            }
        }
        room.notify_all();
    };
    rayon::scope(|s| {
        for _ in 0..rayon::current_num_threads() {
            s.spawn(|_| worker());
        }
    });
    bar.finish_and_clear();
    let resumed = lock_ignoring_poison(&feed).resumed;
    let w = ordered.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(e) = w.error {
        return Err(RunError::Io {
            path: journal_path.display().to_string(),
            source: std::io::Error::new(
                e.kind(),
                format!("{e}; the sweep stopped, rows written so far are kept for resume"),
            ),
        });
    }
    if w.interrupted {
        return Err(RunError::Interrupted(format!(
            "the sweep of {} stopped after {} new rows; run it again to resume",
            dir.display(),
            w.new_rows
        )));
    }
    debug_assert_eq!(w.next, n_points);
    let failed = w.failed;
    drop(w);
    fs::rename(&journal_path, &runs).map_err(io_err(&runs))?;
    discard_rows(&dir, &[RESUME_CSV])?;
    let summary = RunSummary {
        out_dir: dir.clone(),
        points: n_points,
        resumed,
        ran: n_points - resumed,
        failed,
        not_reused,
        wall_time_s: start.elapsed().as_secs_f64(),
    };
    write_atomically(&dir.join(META_JSON), &meta_json(spec, opts, &summary))?;
    if opts.shard.is_none() {
        spec.after_run(&fresh_staging(&dir)?)?;
    }
    Ok(summary)
}

fn lock_ignoring_poison<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a worker takes next: a stored row to keep, or a point to run.
enum Item<Pt> {
    Stored { line: String, ok: bool },
    Run(Pt),
}

/// The points in output order, each paired with its stored row when that row may be reused.
struct Feed<'a, P: Plan> {
    spec: &'a P,
    columns: &'a [&'static str],
    points: Points<'a, P::Point>,
    stored: MergedLines,
    seq: usize,
    resumed: usize,
}

impl<'a, P: Plan> Iterator for Feed<'a, P> {
    type Item = (usize, Item<P::Point>);
    fn next(&mut self) -> Option<Self::Item> {
        let p = self.points.next()?;
        let seq = self.seq;
        self.seq += 1;
        let stored = self
            .stored
            .row_of(self.spec.point_id(&p))
            .and_then(|line| Some((Row::from_csv_line(&line, self.columns)?, line)))
            .filter(|(row, _)| row_matches(row, &self.spec.input_row(&p)));
        Some((
            seq,
            match stored {
                Some((row, line)) => {
                    self.resumed += 1;
                    Item::Stored {
                        ok: row.text("status") == "ok",
                        line,
                    }
                }
                None => Item::Run(p),
            },
        ))
    }
}

/// A finished row waiting for its turn.
struct Written {
    line: String,
    ok: bool,
    new: bool,
}

/// The journal written in point order.
struct Ordered {
    /// The position (in output order) of the next row to write.
    next: usize,
    pending: BTreeMap<usize, Written>,
    journal: TableWriter,
    new_rows: usize,
    failed: usize,
    error: Option<std::io::Error>,
    interrupted: bool,
}

impl Ordered {
    /// Write every pending row whose turn has come, and flush; `Err(true)` when the sweep must
    /// stop (a write failed, or the rows of `stop_after_rows` are written).
    fn write_ready(&mut self, stop_after_rows: Option<usize>) -> Result<(), bool> {
        if self.error.is_some() || self.interrupted {
            return Err(true);
        }
        let mut wrote = false;
        while let Some(entry) = self.pending.first_entry() {
            if *entry.key() != self.next {
                break;
            }
            let row = entry.remove();
            if row.new && stop_after_rows.is_some_and(|n| self.new_rows >= n) {
                self.interrupted = true;
                break;
            }
            if let Err(e) = self.journal.line(&row.line) {
                self.error = Some(e.into_io());
                return Err(true);
            }
            wrote = true;
            self.next += 1;
            self.new_rows += usize::from(row.new);
            self.failed += usize::from(!row.ok);
        }
        if wrote {
            if let Err(e) = self.journal.flush() {
                self.error = Some(e.into_io());
                return Err(true);
            }
        }
        if self.interrupted {
            Err(true)
        } else {
            Ok(())
        }
    }
}

/// Check that `dir` holds a finished run of `spec` whose report can be written again without
/// running anything (`rigid-limit report`): its rows were computed under the experiment file's
/// settings (by any build: the report is this build's, the rows are the stored ones), as the
/// whole experiment rather than a shard, no sweep is pending, and runs.csv holds a row with the
/// inputs of every point. Returns the number of rows and the directory's lock, to hold while the
/// report is written; an error says what to run instead.
pub fn check_finished<P: Plan>(spec: &P, dir: &Path) -> Result<(usize, DirLock), RunError> {
    let refuse = |why: String| Err(RunError::NotFinished(format!("{}: {why}", dir.display())));
    let Some(stored) = Provenance::read(dir) else {
        let holds_shards = fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .filter_map(Result::ok)
                .any(|e| Shard::from_dir_name(&e.file_name().to_string_lossy()).is_some())
        });
        if holds_shards {
            return refuse("it holds shards; merge them first (rigid-limit merge)".into());
        }
        return refuse(format!(
            "no {PROVENANCE_JSON} here: no run of {} to report; run it first",
            spec.name()
        ));
    };
    let lock = DirLock::acquire(dir)?;
    let now = Provenance::current(&spec.spec_json(), None);
    if let Some(d) = super::store::first_difference(&stored.settings, &now.settings, "") {
        return refuse(format!(
            "the rows were computed under other settings ({d}); run the experiment to update them"
        ));
    }
    if let Some(s) = &stored.shard {
        return refuse(format!(
            "this is shard {s}; merge the shards (rigid-limit merge) and report the whole"
        ));
    }
    if dir.join(JOURNAL_CSV).exists() || dir.join(RESUME_CSV).exists() {
        return refuse("the run was interrupted; run the experiment again to resume it".into());
    }
    let columns = spec.columns();
    let runs = dir.join(RUNS_CSV);
    if TableLines::open(&runs, &columns).is_none() {
        return refuse(format!(
            "no {RUNS_CSV} with this experiment's columns; run the experiment"
        ));
    }
    let mut rows = MergedLines::open(std::slice::from_ref(&runs), &columns);
    let mut n = 0;
    for p in spec.points() {
        let id = spec.point_id(&p);
        let matches = rows
            .row_of(id)
            .and_then(|line| Row::from_csv_line(&line, &columns))
            .is_some_and(|row| row_matches(&row, &spec.input_row(&p)));
        if !matches {
            return refuse(format!(
                "{RUNS_CSV} holds no row with the inputs of point {id} ({}); run the experiment",
                spec.describe(&p)
            ));
        }
        n += 1;
    }
    Ok((n, lock))
}

/// Join the shards in `out_dir/shard-*-of-*` into `out_dir/runs.csv`.
///
/// Refused, naming the shard and the reason, when shards of different counts lie side by side,
/// when a shard was computed under other settings than the experiment file's or by another
/// build than the other shards, when a shard holds rows of points that are not its own, or when
/// shards or points are missing.
pub fn merge_shards<P: Plan>(
    spec: &P,
    out_dir: &Path,
    command_line: &str,
) -> Result<RunSummary, RunError> {
    let start = Instant::now();
    let _lock = DirLock::acquire(out_dir)?;
    let columns = spec.columns();
    let entries = fs::read_dir(out_dir).map_err(io_err(out_dir))?;
    let mut shards: Vec<(Shard, PathBuf)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().into_owned();
            Shard::from_dir_name(&name).map(|s| (s, p))
        })
        .collect();
    shards.sort_by_key(|(s, _)| (s.count, s.index));
    let Some(&(first, _)) = shards.first() else {
        return Err(RunError::Merge(format!(
            "no shard-I-of-N directories in {}; run the shards with --shard I/N first",
            out_dir.display()
        )));
    };
    let counts: std::collections::BTreeSet<usize> = shards.iter().map(|(s, _)| s.count).collect();
    if counts.len() > 1 {
        let names: Vec<String> = shards.iter().map(|(s, _)| s.dir_name()).collect();
        return Err(RunError::Merge(format!(
            "shards of runs split {} ways lie side by side in {} ({}); keep the directories of one run and remove the others",
            counts.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" and "),
            out_dir.display(),
            names.join(", ")
        )));
    }
    let count = first.count;
    let missing_shards: Vec<String> = (0..count)
        .filter(|i| !shards.iter().any(|(s, _)| s.index == *i))
        .map(|i| format!("--shard {i}/{count}"))
        .collect();
    if !missing_shards.is_empty() {
        return Err(RunError::Merge(format!(
            "{} of {count} shards missing in {}: run {} first",
            missing_shards.len(),
            out_dir.display(),
            missing_shards.join(", ")
        )));
    }
    let expected = Provenance::current(&spec.spec_json(), None);
    let mut build: Option<(String, String)> = None;
    let n_points = spec.points().count();
    let mut streams = Vec::with_capacity(shards.len());
    // Every shard stays locked until the merge is written: none is rerun while it is read.
    let mut shard_locks = Vec::with_capacity(shards.len());
    for (shard, d) in &shards {
        let name = shard.dir_name();
        shard_locks.push(DirLock::acquire(d).map_err(|_| {
            RunError::Busy(format!(
                "{name} is being run (its directory is locked); wait for that run to finish, then merge"
            ))
        })?);
        if d.join(JOURNAL_CSV).exists() || !d.join(RUNS_CSV).exists() {
            return Err(RunError::Merge(format!(
                "{name} has not finished (no {RUNS_CSV}, or the {JOURNAL_CSV} of an interrupted run); resume it with --shard {shard}, then merge"
            )));
        }
        let stored = Provenance::read(d).ok_or_else(|| {
            RunError::Merge(format!(
                "{name} has no {PROVENANCE_JSON}: it was not written by this version of rigid-limit; rerun it with --shard {shard}"
            ))
        })?;
        let own = Provenance {
            shard: Some(shard.to_string()),
            build: stored.build.clone(),
            ..expected.clone()
        };
        if let Some(why) = own.mismatch(&stored) {
            return Err(RunError::Merge(format!(
                "{name} was not computed from this experiment file ({why}); rerun it with --shard {shard}, or merge with the file it was run from"
            )));
        }
        match &build {
            Some((b, other)) if *b != stored.build => {
                return Err(RunError::Merge(format!(
                    "{name} was computed by another build of rigid-limit than {other} ({} vs {b}); rerun the shards with one build",
                    stored.build
                )))
            }
            Some(_) => {}
            None => build = Some((stored.build.clone(), name.clone())),
        }
        let path = d.join(RUNS_CSV);
        let lines = TableLines::open(&path, &columns).ok_or_else(|| {
            RunError::Merge(format!(
                "{name}/{RUNS_CSV} is not a table of this experiment (its header differs); rerun it with --shard {shard}"
            ))
        })?;
        streams.push((*shard, name, lines.peekable()));
    }
    // Point i is row i / count of shard i mod count: the shards are read in turn, a row at a
    // time, and the merged table is written as it is read.
    let tmp = temporary_path(&out_dir.join(RUNS_CSV));
    let merged = merge_streams(spec, spec.points(), &columns, &mut streams, &tmp);
    let (failed, missing) = match merged {
        Ok(counts) => counts,
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
    };
    if !missing.is_empty() {
        let _ = fs::remove_file(&tmp);
        let shown: Vec<String> = missing.iter().take(5).map(|id| id.to_string()).collect();
        return Err(RunError::Merge(format!(
            "{} of {} points missing after merging {count} shards (points {}{}); resume the shards that hold them (point i is in shard i mod {count}), then merge again",
            missing.len(),
            n_points,
            shown.join(", "),
            if missing.len() > 5 { ", …" } else { "" }
        )));
    }
    // The merged rows supersede whatever the directory held: the previous report, and the
    // journal of an interrupted run of the whole experiment, which a later run would resume.
    discard_report(out_dir)?;
    discard_rows(out_dir, &[JOURNAL_CSV, RESUME_CSV])?;
    let runs = out_dir.join(RUNS_CSV);
    fs::rename(&tmp, &runs).map_err(io_err(&runs))?;
    Provenance {
        build: build.map(|(b, _)| b).unwrap_or_default(),
        ..expected
    }
    .write(out_dir)?;
    let summary = RunSummary {
        out_dir: out_dir.to_path_buf(),
        points: n_points,
        resumed: n_points,
        ran: 0,
        failed,
        not_reused: None,
        wall_time_s: start.elapsed().as_secs_f64(),
    };
    let opts = RunOptions {
        command_line: command_line.to_string(),
        ..RunOptions::new(out_dir)
    };
    write_atomically(&out_dir.join(META_JSON), &meta_json(spec, &opts, &summary))?;
    spec.after_run(&fresh_staging(out_dir)?)?;
    Ok(summary)
}

type ShardStream = (Shard, String, std::iter::Peekable<TableLines>);

/// Write the shards' rows in point order into `to`; (failed rows, missing points), or the first
/// row that is not its shard's.
fn merge_streams<P: Plan>(
    spec: &P,
    points: Points<'_, P::Point>,
    columns: &[&'static str],
    streams: &mut [ShardStream],
    to: &Path,
) -> Result<(usize, Vec<usize>), RunError> {
    let foreign = |name: &str, shard: Shard, id: usize| {
        RunError::Merge(format!(
            "{name}/{RUNS_CSV} holds a row for point {id} that is not one of its points in this experiment; rerun it with --shard {shard}"
        ))
    };
    let mut out = TableWriter::create(to, columns)?;
    let (mut failed, mut missing) = (0, Vec::new());
    let count = streams.len();
    for p in points {
        let id = spec.point_id(&p);
        let (shard, name, lines) = &mut streams[id % count];
        match lines.peek() {
            Some(&(i, _)) if i < id => return Err(foreign(name, *shard, i)),
            Some(&(i, _)) if i == id => {
                let (_, line) = lines.next().unwrap_or_default();
                match Row::from_csv_line(&line, columns) {
                    Some(row) if row_matches(&row, &spec.input_row(&p)) => {
                        failed += usize::from(row.text("status") != "ok");
                        out.line(&line)?;
                    }
                    _ => return Err(foreign(name, *shard, id)),
                }
            }
            _ => missing.push(id),
        }
    }
    for (shard, name, lines) in streams.iter_mut() {
        if let Some((i, _)) = lines.next() {
            return Err(foreign(name, *shard, i));
        }
    }
    out.flush()?;
    Ok((failed, missing))
}

fn meta_json<P: Plan>(spec: &P, opts: &RunOptions, s: &RunSummary) -> String {
    let git_commit = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let meta = serde_json::json!({
        "experiment": spec.spec_json(),
        "crate_version": env!("CARGO_PKG_VERSION"),
        "git_commit": git_commit,
        "command_line": opts.command_line,
        "date_utc": utc_now(),
        "machine": {
            "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            "os": std::env::consts::OS,
            "arch": std::env::consts::ARCH,
        },
        "shard": opts.shard.map(|s| s.dir_name()),
        "build": super::store::build_id(),
        "points": s.points,
        "resumed": s.resumed,
        "ran": s.ran,
        "failed": s.failed,
        "wall_time_s": s.wall_time_s,
    });
    serde_json::to_string_pretty(&meta).unwrap_or_default() + "\n"
}

/// The current UTC time as `YYYY-MM-DDThh:mm:ssZ` (civil-from-days, H. Hinnant's algorithm).
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, rem) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}
