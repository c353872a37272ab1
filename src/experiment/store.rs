//! The files of an output directory: atomic writes, the rows already there (runs.csv and the
//! journal of an interrupted run), the provenance that says which settings and which build
//! produced them, and the lock that keeps a second run out.
//!
//! Rows are reused (resume) or joined (merge) only under the same provenance: the experiment's
//! settings, all of them, and the same build of the program. A row computed with another
//! `t_max`, another tolerance or by another build is never mixed into a table.

use super::table::{header_line, Row};
use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::sync::OnceLock;

/// Which settings and which build produced the rows of a directory (`provenance.json`).
pub const PROVENANCE_JSON: &str = "provenance.json";
/// The advisory lock of an output directory (held while a run or a merge writes into it).
pub(crate) const LOCK_FILE: &str = ".rigid-limit.lock";

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Write `contents` to `path` through a temporary file and a rename: never left truncated, and
/// no temporary file is left behind when the write fails.
pub fn write_atomically(path: &Path, contents: &str) -> Result<(), RunError> {
    write_bytes_atomically(path, contents.as_bytes())
}

/// [`write_atomically`] for bytes.
pub(crate) fn write_bytes_atomically(path: &Path, contents: &[u8]) -> Result<(), RunError> {
    write_atomically_with(path, |w| w.write_all(contents))
}

/// [`write_atomically`] for contents written a piece at a time by `write` (a table too large to
/// hold as one text).
pub(crate) fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), RunError> {
    let tmp = temporary_path(path);
    let written = fs::File::create(&tmp).and_then(|file| {
        let mut out = std::io::BufWriter::new(file);
        write(&mut out)?;
        std::io::Write::flush(&mut out)
    });
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(io_err(&tmp)(e));
    }
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io_err(path)(e)
    })
}

/// `dir/.name.tmp` beside `path` (hidden, and never mistaken for an output).
pub(crate) fn temporary_path(path: &Path) -> std::path::PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp"))
}

/// The report files of the run in a directory (`outputs.json`): what [`discard_report`] removes
/// when a new run starts, so that a directory never holds the report of one run beside the
/// rows of another.
pub const OUTPUTS_JSON: &str = "outputs.json";
/// Where a report is written before its files replace the previous ones together.
const STAGING_DIR: &str = ".report.tmp";
/// The files of a run that its report reads; linked into the staging directory, never moved.
const REPORT_INPUTS: [&str; 2] = ["runs.csv", "meta.json"];

#[derive(Serialize, Deserialize, Default)]
struct Outputs {
    files: Vec<String>,
    /// Those of `files` the run stage wrote (side tables: they need a solver), which a report
    /// of the same rows keeps ([`stage_side_tables`]). Absent in a manifest of an older build.
    #[serde(default)]
    side_tables: Vec<String>,
}

fn remove_if_present(path: &Path) -> Result<(), RunError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_err(path)(e)),
        _ => Ok(()),
    }
}

/// Remove the report of the run that wrote `dir` before: every file its `outputs.json` lists,
/// the manifest, its meta.json and a staging directory left by an interrupted run or report.
/// Files the manifest does not list (a user's own, or written by an older build) are left alone.
pub fn discard_report(dir: &Path) -> Result<(), RunError> {
    discard_outputs(dir)?;
    remove_if_present(&dir.join("meta.json"))?;
    let staging = dir.join(STAGING_DIR);
    if staging.exists() {
        fs::remove_dir_all(&staging).map_err(io_err(&staging))?;
    }
    Ok(())
}

/// The report's staging directory, made empty: the run stage writes its side tables there
/// ([`super::runner::Plan::after_run`]), the report stage the rest ([`replace_report`]).
pub(crate) fn fresh_staging(dir: &Path) -> Result<std::path::PathBuf, RunError> {
    let staging = dir.join(STAGING_DIR);
    if staging.exists() {
        fs::remove_dir_all(&staging).map_err(io_err(&staging))?;
    }
    fs::create_dir_all(&staging).map_err(io_err(&staging))?;
    Ok(staging)
}

/// Remove the files `outputs.json` lists, and the manifest.
fn discard_outputs(dir: &Path) -> Result<(), RunError> {
    let manifest = dir.join(OUTPUTS_JSON);
    if let Ok(text) = fs::read_to_string(&manifest) {
        let listed: Outputs = serde_json::from_str(&text).unwrap_or_default();
        for name in listed.files {
            // Only plain names are ever listed; anything else is not ours to remove.
            if !name.contains(['/', '\\']) && !name.starts_with('.') {
                remove_if_present(&dir.join(name))?;
            }
        }
    }
    remove_if_present(&manifest)
}

/// Write the report of the run in `dir` so that it replaces the previous report as a whole.
///
/// `write` receives the staging directory, holding the run's side tables (written there by the
/// run stage) and its runs.csv and meta.json (linked, not copied), and writes every other file
/// of the report there: the report stage reads rows and side tables and never runs a solver. On success the manifest `outputs.json`
/// is written first, listing the new files, and then each file is moved into `dir`: a run
/// interrupted while moving leaves only files of this run, all listed, which the next run
/// removes. On failure nothing of the new report is kept and the previous one is gone too (it
/// described other rows).
pub fn replace_report(
    dir: &Path,
    write: impl FnOnce(&Path) -> Result<(), RunError>,
) -> Result<(), RunError> {
    discard_outputs(dir)?;
    let staging = dir.join(STAGING_DIR);
    fs::create_dir_all(&staging).map_err(io_err(&staging))?;
    // What the staging directory holds before the report writes are the run stage's tables.
    let side_tables = staged_files(&staging)?;
    for name in REPORT_INPUTS {
        let (from, to) = (dir.join(name), staging.join(name));
        if from.exists() && fs::hard_link(&from, &to).is_err() {
            fs::copy(&from, &to).map_err(io_err(&to))?;
        }
    }
    let result = write(&staging).and_then(|()| {
        let files = staged_files(&staging)?;
        let manifest = serde_json::to_string_pretty(&Outputs {
            files: files.clone(),
            side_tables,
        })
        .unwrap_or_default();
        write_atomically(&dir.join(OUTPUTS_JSON), &(manifest + "\n"))?;
        for name in &files {
            let (from, to) = (staging.join(name), dir.join(name));
            fs::rename(&from, &to).map_err(io_err(&to))?;
        }
        Ok(())
    });
    let cleaned = fs::remove_dir_all(&staging).map_err(io_err(&staging));
    if result.is_err() {
        // Whatever was moved belongs to a report that did not finish.
        discard_outputs(dir)?;
    }
    result.and(cleaned)
}

/// The report files in the staging directory, sorted: every plain file but the report's
/// inputs and hidden files.
fn staged_files(staging: &Path) -> Result<Vec<String>, RunError> {
    let mut files: Vec<String> = fs::read_dir(staging)
        .map_err(io_err(staging))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !REPORT_INPUTS.contains(&name.as_str()) && !name.starts_with('.'))
        .collect();
    files.sort();
    Ok(files)
}

/// Put the run stage's side tables of the report in `dir` (its manifest's `side_tables`) into
/// a fresh staging directory, linked: a report written again from the same rows
/// (`rigid-limit report`) keeps them, as it cannot make them without a solver.
pub fn stage_side_tables(dir: &Path) -> Result<(), RunError> {
    let staging = fresh_staging(dir)?;
    let listed: Outputs = fs::read_to_string(dir.join(OUTPUTS_JSON))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    for name in listed.side_tables {
        if name.contains(['/', '\\']) || name.starts_with('.') {
            continue;
        }
        let (from, to) = (dir.join(&name), staging.join(&name));
        if from.exists() && fs::hard_link(&from, &to).is_err() {
            fs::copy(&from, &to).map_err(io_err(&to))?;
        }
    }
    Ok(())
}

/// Remove a table's rows from `dir` (runs.csv and the journal): rows that may not be reused
/// must not survive an interruption of the run that replaces them.
pub(crate) fn discard_rows(dir: &Path, files: &[&str]) -> Result<(), RunError> {
    files
        .iter()
        .try_for_each(|name| remove_if_present(&dir.join(name)))
}

/// The rows of a table file in file order, as (point id, line), read as a stream: whole lines
/// only, so a torn last line (a run killed while writing) or a damaged byte costs that line; a
/// file with another header (another table, or a damaged header) yields nothing.
pub(crate) struct TableLines {
    reader: BufReader<File>,
    buf: Vec<u8>,
}

impl TableLines {
    /// `None` when `path` is absent or is not a table with `columns`.
    pub fn open(path: &Path, columns: &[&str]) -> Option<Self> {
        let mut lines = TableLines {
            reader: BufReader::new(File::open(path).ok()?),
            buf: Vec::new(),
        };
        (lines.next_line()?.as_deref() == Some(header_line(columns).as_str())).then_some(lines)
    }

    /// The next whole line: `Some(None)` for a damaged one, `None` at the end.
    fn next_line(&mut self) -> Option<Option<String>> {
        self.buf.clear();
        match self.reader.read_until(b'\n', &mut self.buf) {
            Ok(n) if n > 0 && self.buf.ends_with(b"\n") => {
                self.buf.pop();
                if self.buf.ends_with(b"\r") {
                    self.buf.pop();
                }
                Some(String::from_utf8(std::mem::take(&mut self.buf)).ok())
            }
            _ => None,
        }
    }
}

impl Iterator for TableLines {
    type Item = (usize, String);
    fn next(&mut self) -> Option<(usize, String)> {
        loop {
            let line = self.next_line()?;
            let id = line
                .as_deref()
                .and_then(crate::experiment::table::leading_point_id);
            if let (Some(id), Some(line)) = (id, line) {
                return Some((id, line));
            }
        }
    }
}

/// Every row of the table at `path`, read a line at a time (the rows share one column list).
pub fn read_rows(path: &Path, columns: &[&'static str]) -> Result<Vec<Row>, RunError> {
    Ok(stream_rows(path, columns)?.collect())
}

/// The rows of the table at `path` in file order, one at a time: a report that keeps only
/// aggregates holds one row, not the run.
pub(crate) fn stream_rows(
    path: &Path,
    columns: &[&'static str],
) -> Result<impl Iterator<Item = Row>, RunError> {
    File::open(path).map_err(io_err(path))?;
    let shared: std::sync::Arc<[&'static str]> = std::sync::Arc::from(columns);
    Ok(TableLines::open(path, columns)
        .into_iter()
        .flatten()
        .filter_map(move |(_, line)| Row::from_line_of(&line, &shared)))
}

/// The rows of several tables sorted by point id, merged in id order; where several hold an id,
/// the row of the last table wins (the newest: a journal over the rows it resumed).
pub(crate) struct MergedLines {
    sources: Vec<std::iter::Peekable<TableLines>>,
}

/// The rows the tables `paths` hold: by point (a point in two of them once) where they have
/// `columns`, else their lines below the header (another layout's rows, about to be replaced,
/// are counted too).
pub(crate) fn stored_row_count(paths: &[std::path::PathBuf], columns: &[&str]) -> usize {
    let merged = MergedLines::open(paths, columns).count();
    if merged > 0 {
        return merged;
    }
    paths
        .iter()
        .filter_map(|p| File::open(p).ok())
        .map(|file| {
            BufReader::new(file)
                .lines()
                .skip(1)
                .map_while(Result::ok)
                .filter(|l| !l.trim().is_empty())
                .count()
        })
        .sum()
}

impl MergedLines {
    pub fn open(paths: &[std::path::PathBuf], columns: &[&str]) -> Self {
        MergedLines {
            sources: paths
                .iter()
                .filter_map(|p| TableLines::open(p, columns))
                .map(Iterator::peekable)
                .collect(),
        }
    }

    /// The row of point `id`, skipping rows of smaller ids (points no longer in the grid);
    /// `None` when no table holds it.
    pub(crate) fn row_of(&mut self, id: usize) -> Option<String> {
        let mut found = None;
        for source in &mut self.sources {
            while source.peek().is_some_and(|(i, _)| *i < id) {
                source.next();
            }
            if source.peek().is_some_and(|(i, _)| *i == id) {
                found = source.next().map(|(_, line)| line);
            }
        }
        found
    }
}

impl Iterator for MergedLines {
    type Item = (usize, String);
    fn next(&mut self) -> Option<(usize, String)> {
        let id = self
            .sources
            .iter_mut()
            .filter_map(|s| s.peek().map(|(i, _)| *i))
            .min()?;
        self.row_of(id).map(|line| (id, line))
    }
}

/// Writes a table line by line: the header at once, each row as it comes.
pub(crate) struct TableWriter {
    path: std::path::PathBuf,
    file: BufWriter<File>,
}

impl TableWriter {
    pub fn create(path: &Path, columns: &[&str]) -> Result<Self, RunError> {
        let file = File::create(path).map_err(io_err(path))?;
        let mut w = TableWriter {
            path: path.to_path_buf(),
            file: BufWriter::new(file),
        };
        w.line(&header_line(columns))?;
        Ok(w)
    }

    pub fn line(&mut self, line: &str) -> Result<(), RunError> {
        writeln!(self.file, "{line}").map_err(io_err(&self.path))
    }

    /// Flush what is buffered to the file (so that an interruption loses no written row).
    pub(crate) fn flush(&mut self) -> Result<(), RunError> {
        self.file.flush().map_err(io_err(&self.path))
    }
}

/// Merge the sorted tables `from` into `to` (through a temporary file and a rename), then remove
/// `from`: the rows a run resumes, in one file. Returns the number of rows.
pub(crate) fn compact(from: &[&Path], to: &Path, columns: &[&str]) -> Result<usize, RunError> {
    let paths: Vec<std::path::PathBuf> = from.iter().map(|p| p.to_path_buf()).collect();
    let tmp = temporary_path(to);
    let mut out = TableWriter::create(&tmp, columns)?;
    let mut rows = 0;
    for (_, line) in MergedLines::open(&paths, columns) {
        out.line(&line)?;
        rows += 1;
    }
    out.flush()?;
    drop(out);
    fs::rename(&tmp, to).map_err(io_err(to))?;
    for path in from.iter().filter(|p| *p != &to) {
        remove_if_present(path)?;
    }
    Ok(rows)
}

/// Errors of a run, a merge or a report.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Merge(String),
    /// The output directory is locked by another run.
    #[error("{0}")]
    Busy(String),
    /// The sweep stopped before its end (see `RunOptions::stop_after_rows`).
    #[error("{0}")]
    Interrupted(String),
    /// A directory holds no finished run whose report can be written (`rigid-limit report`).
    #[error("{0}")]
    NotFinished(String),
    /// The output directory holds the rows of another model or study, which a run would
    /// replace (`--fresh` replaces them).
    #[error("{0}")]
    OtherExperiment(String),
}

impl RunError {
    /// The underlying I/O error (a message for the others).
    pub(crate) fn into_io(self) -> std::io::Error {
        match self {
            RunError::Io { source, .. } => source,
            other => std::io::Error::other(other.to_string()),
        }
    }
}

/// What determines the rows of a directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Provenance {
    /// Every setting of the experiment file except its name (which only names the directory).
    pub settings: serde_json::Value,
    /// The build that computed the rows: the crate version and a hash of the executable.
    pub build: String,
    /// `i/n` for a shard directory.
    pub shard: Option<String>,
}

impl Provenance {
    /// The provenance of rows computed now by this build from an experiment given as JSON.
    pub(crate) fn current(spec_json: &serde_json::Value, shard: Option<String>) -> Self {
        let mut settings = spec_json.clone();
        if let Some(map) = settings.as_object_mut() {
            map.remove("name");
        }
        Provenance {
            settings,
            build: build_id().to_string(),
            shard,
        }
    }

    /// Read `dir/provenance.json`; `None` when absent or unreadable.
    pub fn read(dir: &Path) -> Option<Self> {
        let text = fs::read_to_string(dir.join(PROVENANCE_JSON)).ok()?;
        serde_json::from_str(&text).ok()
    }

    pub fn write(&self, dir: &Path) -> Result<(), RunError> {
        let text = serde_json::to_string_pretty(self).unwrap_or_default() + "\n";
        write_atomically(&dir.join(PROVENANCE_JSON), &text)
    }

    /// The model or study of `stored` where it is not this one's, as "model: stored X, now
    /// Y": its rows are another experiment's, not an earlier setting of this one.
    pub(crate) fn other_experiment(&self, stored: &Provenance) -> Option<String> {
        ["model", "analysis", "study"].iter().find_map(|key| {
            let (was, now) = (stored.settings.get(key), self.settings.get(key));
            (show(was) != show(now))
                .then(|| format!("{key}: stored {}, now {}", show(was), show(now)))
        })
    }

    /// Why rows of `stored` may not be used as rows of `self`, or `None` when they may:
    /// the first differing setting (its key and both values), another build, another shard.
    pub fn mismatch(&self, stored: &Provenance) -> Option<String> {
        if let Some(d) = first_difference(&stored.settings, &self.settings, "") {
            return Some(d);
        }
        if stored.build != self.build {
            return Some(format!(
                "computed by another build of rigid-limit ({}; this one is {})",
                stored.build, self.build
            ));
        }
        if stored.shard != self.shard {
            return Some(format!(
                "computed as shard {} (this run is {})",
                stored.shard.as_deref().unwrap_or("none"),
                self.shard.as_deref().unwrap_or("the whole experiment")
            ));
        }
        None
    }
}

/// The first key whose value differs, as "key: stored X, now Y" (keys joined by '.').
pub(crate) fn first_difference(
    stored: &serde_json::Value,
    now: &serde_json::Value,
    prefix: &str,
) -> Option<String> {
    use serde_json::Value;
    let key = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match (stored, now) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            keys.into_iter().find_map(|k| match (a.get(k), b.get(k)) {
                (Some(x), Some(y)) => first_difference(x, y, &key(k)),
                (x, y) => Some(format!("{}: stored {}, now {}", key(k), show(x), show(y))),
            })
        }
        (a, b) if a == b => None,
        (a, b) => Some(format!(
            "{}: stored {}, now {}",
            if prefix.is_empty() {
                "settings"
            } else {
                prefix
            },
            show(Some(a)),
            show(Some(b))
        )),
    }
}

fn show(v: Option<&serde_json::Value>) -> String {
    match v {
        None | Some(serde_json::Value::Null) => "(not set)".to_string(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}

/// The build of this program: the crate version and a hash of the executable (FNV-1a's step
/// over its 8-byte words, then its last bytes, each product rotated so that a word's high bytes
/// reach the low bits), so that rows computed by a different build (another commit, another
/// change) are never reused. A word per step, not FNV-1a's byte: the executable is ~29 MB and
/// every run and report hashes it.
pub(crate) fn build_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let step = |h: u64, x: u64| (h ^ x).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(31);
        let hash = std::env::current_exe()
            .and_then(fs::read)
            .map(|bytes| {
                let words = bytes.chunks_exact(8);
                let tail = words.remainder();
                let h = words.fold(0xcbf2_9ce4_8422_2325_u64, |h, w| {
                    step(h, u64::from_le_bytes(w.try_into().expect("8 bytes")))
                });
                tail.iter().fold(h, |h, &b| step(h, u64::from(b)))
            })
            .map(|h| format!("{h:016x}"))
            .unwrap_or_else(|_| "unknown".to_string());
        format!("{} exe {hash}", env!("CARGO_PKG_VERSION"))
    })
}

/// The lock on an output directory, released when dropped (or when the process ends, however
/// it ends: it is the operating system's advisory lock, not the file's existence).
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

impl DirLock {
    /// Take the lock of `dir`, or fail at once naming the directory.
    pub fn acquire(dir: &Path) -> Result<Self, RunError> {
        if !dir.is_dir() {
            return Err(RunError::Io {
                path: dir.display().to_string(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory"),
            });
        }
        let path = dir.join(LOCK_FILE);
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io_err(&path))?;
        // A lock is also held for an instant by any child process forked (not yet exec'd)
        // while the file was open, e.g. `git` started by another run in this process: retry
        // for a moment before calling the directory busy.
        for attempt in 0.. {
            match file.try_lock() {
                Ok(()) => return Ok(DirLock { _file: file }),
                Err(fs::TryLockError::WouldBlock) if attempt < 20 => {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(fs::TryLockError::WouldBlock) => break,
                Err(fs::TryLockError::Error(e)) => return Err(io_err(&path)(e)),
            }
        }
        Err(RunError::Busy(format!(
            "another rigid-limit run or merge is writing into {}; wait for it to finish or choose another directory with --out",
            dir.display()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_differing_setting_is_named_with_both_values() {
        let a = json!({"solver": {"rtol": 1e-10, "t_max": 0.0001}, "params": {"mu": 2.0}});
        let b = json!({"solver": {"rtol": 1e-10, "t_max": 10.0}, "params": {"mu": 2.0}});
        assert_eq!(
            first_difference(&a, &b, "").as_deref(),
            Some("solver.t_max: stored 0.0001, now 10.0")
        );
        assert_eq!(first_difference(&a, &a, ""), None);
        let c = json!({"solver": {"rtol": 1e-10}, "params": {"mu": 2.0}});
        assert_eq!(
            first_difference(&a, &c, "").as_deref(),
            Some("solver.t_max: stored 0.0001, now (not set)")
        );
    }

    #[test]
    fn a_bad_byte_or_a_torn_line_costs_one_line() {
        let dir = std::env::temp_dir().join(format!("rigid-limit-lines-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let mut bytes = b"point_id,x\n0,1\n1,".to_vec();
        bytes.extend_from_slice(&[0xff, b'\n']);
        bytes.extend_from_slice(b"2,3\n3,4");
        fs::write(dir.join("a.csv"), &bytes).unwrap();
        let lines: Vec<_> = TableLines::open(&dir.join("a.csv"), &["point_id", "x"])
            .unwrap()
            .collect();
        assert_eq!(lines, [(0, "0,1".to_string()), (2, "2,3".to_string())]);
        assert!(TableLines::open(&dir.join("a.csv"), &["point_id", "y"]).is_none());
        // Merged in id order, the later table winning.
        fs::write(dir.join("b.csv"), "point_id,x\n1,5\n2,6\n").unwrap();
        let merged: Vec<_> =
            MergedLines::open(&[dir.join("a.csv"), dir.join("b.csv")], &["point_id", "x"])
                .collect();
        assert_eq!(
            merged,
            [
                (0, "0,1".to_string()),
                (1, "1,5".to_string()),
                (2, "2,6".to_string())
            ]
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_second_lock_on_a_directory_fails_at_once() {
        let dir = std::env::temp_dir().join(format!("rigid-limit-lock-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let first = DirLock::acquire(&dir).unwrap();
        let second = DirLock::acquire(&dir).unwrap_err().to_string();
        assert!(second.contains("another rigid-limit run"), "{second}");
        drop(first);
        DirLock::acquire(&dir).unwrap();
        let _ = fs::remove_dir_all(&dir);
    }
}
