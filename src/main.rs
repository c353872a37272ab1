//! `rigid-limit`: command-line interface. Parses, calls the library, prints.

use clap::{Parser, Subcommand};
use rigid_limit::experiment::{RunOptions, RunSummary, Shard};
use rigid_limit::models::Experiment;
use rigid_limit::output::write_stdout;
use rigid_limit::report::markdown::regenerating_command;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "rigid-limit",
    version,
    about = "Compliant-contact mechanics: does the penalty model converge to the rigid limit, how fast, and which integrator gets there cheapest?"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate one tangential impact of the Painlevé rod (Zhao–Liu) on a compliant contact, or
    /// one run of another system (SYSTEM, --set KEY=VALUE).
    Simulate(Box<rigid_limit::simulate::SimulateArgs>),
    /// Run (or resume) one experiment file; writes runs.csv and meta.json.
    Run {
        /// The experiment, e.g. experiments/zhao_liu.toml.
        experiment: PathBuf,
        /// Output directory (default: results/NAME).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Run every n-th point starting at i (i/n, 0 <= i < n), into OUT/shard-i-of-n.
        #[arg(long)]
        shard: Option<Shard>,
        /// Start afresh: rerun every point even where the directory holds reusable rows.
        #[arg(long)]
        fresh: bool,
    },
    /// Join the shards of an experiment run with --shard into OUT/runs.csv.
    Merge {
        /// The experiment file the shards were run from.
        experiment: PathBuf,
        /// Directory holding the shard-I-of-N directories (default: results/NAME).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Write the report (summary.md, figures) of a finished run again from its runs.csv, running
    /// nothing; refused unless the directory holds every point's row under the file's settings.
    Report {
        /// The experiment file the run was made from.
        experiment: PathBuf,
        /// The run's directory (default: results/NAME).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// List the experiment files, the mechanical systems (`model = …`) and the integrators.
    List {
        /// Directory of the experiment files (*.toml); default experiments/, where a missing
        /// one still lists the models and integrators.
        #[arg(long)]
        experiments: Option<PathBuf>,
    },
    /// Run every experiment in experiments/ from scratch and regenerate results/.
    Reproduce {
        /// Directory of the experiment files (*.toml); all are validated before any runs.
        #[arg(long, default_value = "experiments")]
        experiments: PathBuf,
        /// Directory of the results, one subdirectory per experiment name.
        #[arg(long, default_value = "results")]
        results: PathBuf,
        /// The inventory of the papers' claims, judged into RESULTS/claims.md and claims.csv.
        #[arg(long, default_value = "docs/claims.toml")]
        claims: PathBuf,
    },
    /// Judge the papers' claims from the results already there: RESULTS/claims.md and claims.csv.
    Claims {
        /// The inventory of the papers' claims.
        #[arg(long, default_value = "docs/claims.toml")]
        claims: PathBuf,
        /// Directory of the results, one subdirectory per experiment name.
        #[arg(long, default_value = "results")]
        results: PathBuf,
    },
}

fn main() -> ExitCode {
    // Bad flags are one line and exit 1, like every other error (README, "Command-line reference"); help and
    // version print as clap writes them.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return ExitCode::FAILURE;
        }
        Err(e) => {
            let line = rigid_limit::output::one_line_error(&e.to_string());
            eprintln!("{line} (see --help)");
            return ExitCode::FAILURE;
        }
    };
    let result = match cli.command {
        Command::Simulate(args) => {
            rigid_limit::simulate::simulate_output(&args).and_then(|text| write_stdout(&text))
        }
        Command::Run {
            experiment,
            out,
            shard,
            fresh,
        } => run(&experiment, out, shard, fresh),
        Command::Merge { experiment, out } => merge(&experiment, out),
        Command::Report { experiment, out } => report_again(&experiment, out),
        Command::Reproduce {
            experiments,
            results,
            claims: inventory,
        } => reproduce(&experiments, &results).and_then(|()| claims(&inventory, &results)),
        Command::Claims {
            claims: inventory,
            results,
        } => claims(&inventory, &results),
        Command::List { experiments } => list(experiments.as_deref()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn command_line() -> String {
    std::env::args().collect::<Vec<_>>().join(" ")
}

fn report(name: &str, s: &RunSummary) {
    if let Some(n) = &s.not_reused {
        if n.reason != "--fresh" {
            eprintln!(
                "{name}: {} stored rows not reused: {}; their points were run again",
                n.rows, n.reason
            );
        }
    }
    // A closed standard output does not stop a run that has already written its results.
    let _ = write_stdout(&format!(
        "{name}: {} points ({} resumed, {} run, {} failed) in {:.2} s -> {}\n",
        s.points,
        s.resumed,
        s.ran,
        s.failed,
        s.wall_time_s,
        s.out_dir.display()
    ));
}

/// Run (or resume) the experiment of `file`, then write its report unless it is a shard.
fn run_and_report(
    experiment: &Experiment,
    file: &Path,
    opts: &RunOptions,
) -> Result<RunSummary, String> {
    let summary = experiment.run(opts).map_err(|e| e.to_string())?;
    if opts.shard.is_none() {
        write_report(experiment, file, &summary.out_dir)?;
    }
    Ok(summary)
}

/// The report of the experiment of `file` run in `dir`, its summary naming the command that
/// regenerates it.
fn write_report(experiment: &Experiment, file: &Path, dir: &Path) -> Result<(), String> {
    let command = regenerating_command(file, experiment.name());
    experiment
        .report_regenerated_by(dir, command.as_deref())
        .map_err(|e| e.to_string())
}

fn run(path: &Path, out: Option<PathBuf>, shard: Option<Shard>, fresh: bool) -> Result<(), String> {
    let experiment = Experiment::load(path).map_err(|e| e.to_string())?;
    let out_dir = out.unwrap_or_else(|| Path::new("results").join(experiment.name()));
    let opts = RunOptions {
        shard,
        progress: true,
        fresh,
        command_line: command_line(),
        cancel: Some(stop_on_ctrl_c()),
        ..RunOptions::new(out_dir)
    };
    let summary = run_and_report(&experiment, path, &opts)?;
    report(experiment.name(), &summary);
    Ok(())
}

/// Set by the first Ctrl-C of a run ([`stop_on_ctrl_c`]).
#[cfg(unix)]
static CTRL_C: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_ctrl_c(_: libc::c_int) {
    CTRL_C.store(true, std::sync::atomic::Ordering::SeqCst);
    // A second Ctrl-C ends the process at once (signal() is async-signal-safe).
    // SAFETY: restores the default disposition of SIGINT; no memory is touched.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

/// The cancel flag of a run that the first Ctrl-C sets: the sweep stops as an interruption does
/// (the points in flight finish and are journalled, none starts) and says how to resume, instead
/// of the process dying mid-write; a second Ctrl-C ends it at once. A thread carries the
/// handler's flag to the runner's (a signal handler may only touch an atomic).
fn stop_on_ctrl_c() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let cancel = std::sync::Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    {
        // SAFETY: installs a handler that only stores to an atomic and calls signal().
        unsafe {
            libc::signal(libc::SIGINT, on_ctrl_c as *const () as libc::sighandler_t);
        }
        let flag = std::sync::Arc::clone(&cancel);
        std::thread::spawn(move || loop {
            if CTRL_C.load(Ordering::SeqCst) {
                flag.store(true, Ordering::SeqCst);
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        });
    }
    cancel
}

fn merge(path: &Path, out: Option<PathBuf>) -> Result<(), String> {
    let experiment = Experiment::load(path).map_err(|e| e.to_string())?;
    let out_dir = out.unwrap_or_else(|| Path::new("results").join(experiment.name()));
    let summary = experiment
        .merge(&out_dir, &command_line())
        .map_err(|e| e.to_string())?;
    write_report(&experiment, path, &out_dir)?;
    report(experiment.name(), &summary);
    Ok(())
}

fn report_again(path: &Path, out: Option<PathBuf>) -> Result<(), String> {
    let experiment = Experiment::load(path).map_err(|e| e.to_string())?;
    let out_dir = out.unwrap_or_else(|| Path::new("results").join(experiment.name()));
    let command = regenerating_command(path, experiment.name());
    let rows = experiment
        .report_finished(&out_dir, command.as_deref())
        .map_err(|e| e.to_string())?;
    write_stdout(&format!(
        "{}: report of {rows} rows written -> {}\n",
        experiment.name(),
        out_dir.display()
    ))
}

/// The `*.toml` files of `dir`, sorted.
fn experiment_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no *.toml experiments in {}", dir.display()));
    }
    Ok(files)
}

/// The first sentence of a file's leading comment block (what the experiment is for), cut to
/// about 120 characters.
fn first_comment_sentence(text: &str) -> String {
    let comment: Vec<&str> = text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim())
        .collect();
    let joined = comment.join(" ");
    // A sentence ends at ". " or "? " after a word longer than an abbreviation ("eq.", "Def.")
    // and outside parentheses ("(Fig. 3Drod)" does not end one).
    let end = joined
        .match_indices(['.', '?'])
        .map(|(i, _)| i)
        .find(|&i| {
            let before = &joined[..i];
            let word = before.rsplit(' ').next().unwrap_or("");
            let open = before.matches('(').count() > before.matches(')').count();
            joined[i + 1..].starts_with(' ') && word.chars().count() > 3 && !open
        })
        .map_or(joined.len(), |i| i + 1);
    let sentence = &joined[..end];
    if sentence.chars().count() <= 120 {
        return sentence.to_string();
    }
    let cut: String = sentence.chars().take(117).collect();
    format!(
        "{}…",
        cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head)
    )
}

fn list(given: Option<&Path>) -> Result<(), String> {
    use std::fmt::Write;
    let experiments = given.unwrap_or(Path::new("experiments"));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Experiments ({}; run one with `rigid-limit run FILE`):",
        experiments.display()
    );
    let files = match (given, experiment_files(experiments)) {
        (_, Ok(files)) => files,
        // A directory asked for by name that holds no experiments is a mistake to report.
        (Some(_), Err(e)) => return Err(format!("--experiments: {e}")),
        // Outside the repository there are no experiment files; the models and integrators
        // are still listed.
        (None, Err(e)) => {
            let _ = writeln!(out, "  (none: {e})");
            Vec::new()
        }
    };
    for path in files {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = match Experiment::parse(&text) {
            Ok(e) => e.name().to_string(),
            Err(e) => format!("(invalid: {e})"),
        };
        let _ = writeln!(
            out,
            "  {:<26} {}\n  {:<26} {}",
            name,
            path.display(),
            "",
            first_comment_sentence(&text)
        );
    }
    let _ = writeln!(out, "\nModels (model = \"...\" in an experiment file):");
    let models = rigid_limit::models::models();
    let width = models.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    for (name, what) in models {
        let _ = writeln!(out, "  {name:<width$} {what}");
    }
    let _ = writeln!(out, "\nIntegrators (integrator = \"...\", --integrator):");
    for kind in rigid_limit::integrate::IntegratorKind::ALL {
        let _ = writeln!(out, "  {:<10} {}", kind.name(), kind.describe());
    }
    write_stdout(&out)
}

/// The claims ledger from `inventory` and the results under `results`; prints the counts.
fn claims(inventory: &Path, results: &Path) -> Result<(), String> {
    let counts = rigid_limit::report::claims::write_ledger(inventory, results)?;
    let mut out = format!("claims: {}\n", results.join("claims.md").display());
    for (paper, per) in counts {
        let verdicts: Vec<String> = per.iter().map(|(v, n)| format!("{n} {v}")).collect();
        out.push_str(&format!("  {paper}: {}\n", verdicts.join(", ")));
    }
    write_stdout(&out)
}

fn reproduce(experiments: &Path, results: &Path) -> Result<(), String> {
    let files = experiment_files(experiments)?;
    let start = std::time::Instant::now();
    // Every file is read and validated before anything runs; two experiments may not share a
    // name (they would write into one directory).
    let mut experiments = Vec::with_capacity(files.len());
    let mut names: std::collections::BTreeMap<String, &PathBuf> = Default::default();
    for path in &files {
        let experiment = Experiment::load(path).map_err(|e| e.to_string())?;
        if let Some(other) = names.insert(experiment.name().to_string(), path) {
            return Err(format!(
                "{} and {} both have name = \"{}\" (one results directory); rename one",
                other.display(),
                path.display(),
                experiment.name()
            ));
        }
        experiments.push((experiment, path));
    }
    for (experiment, path) in &experiments {
        let opts = RunOptions {
            progress: true,
            fresh: true,
            command_line: command_line(),
            ..RunOptions::new(results.join(experiment.name()))
        };
        let summary = run_and_report(experiment, path, &opts)?;
        report(experiment.name(), &summary);
    }
    let _ = write_stdout(&format!(
        "reproduce: {} experiments in {:.2} s\n",
        files.len(),
        start.elapsed().as_secs_f64()
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::first_comment_sentence;

    #[test]
    fn a_sentence_ends_outside_parentheses_and_after_a_word() {
        let text =
            "# C–V §7 (Fig. 3Drod): a rod, eq. (5) here. More.\n# Still more.\nname = \"x\"\n";
        assert_eq!(
            first_comment_sentence(text),
            "C–V §7 (Fig. 3Drod): a rod, eq. (5) here."
        );
    }
}
