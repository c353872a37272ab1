//! README.md's command-line reference agrees with the program: every flag documented for a
//! subcommand exists in its `--help` and every flag of `--help` is documented; every `--json`
//! field documented exists in the output and every output field is documented; the `--csv`
//! columns are the documented ones.

use std::collections::BTreeSet;
use std::process::Command;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

fn stdout(args: &[&str]) -> String {
    let (ok, out, err) = crate::common::cli(args);
    assert!(ok, "{args:?}: {err}");
    out
}

/// The section of `text` from the heading line `heading` to the next heading of any level.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("README has no heading {heading}"))
        + heading.len()
        + 2;
    let end = text[start..].find("\n#").map_or(text.len(), |i| start + i);
    &text[start..end]
}

/// `--flag` tokens in the first column of the section's table rows.
fn documented_flags(section: &str) -> BTreeSet<String> {
    section
        .lines()
        .filter(|l| l.starts_with("| `--"))
        .flat_map(|l| {
            let first = l.split('|').nth(1).unwrap_or("");
            first
                .split('`')
                .filter(|t| t.starts_with("--"))
                .map(|t| t.split(' ').next().unwrap().to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Long flags of `rigid-limit SUB --help`, without --help.
fn help_flags(sub: &str) -> BTreeSet<String> {
    stdout(&[sub, "--help"])
        .lines()
        .filter_map(|l| {
            let t = l.trim_start().trim_start_matches("-h, ");
            t.starts_with("--")
                .then(|| t.split([' ', ',']).next().unwrap().to_string())
        })
        .filter(|f| f != "--help")
        .collect()
}

#[test]
fn every_subcommand_flag_is_documented_and_every_documented_flag_exists() {
    let text = readme();
    for sub in ["simulate", "run", "merge", "reproduce", "claims", "list"] {
        let heading = text
            .lines()
            .find(|l| l.starts_with(&format!("### `rigid-limit {sub}")))
            .unwrap_or_else(|| panic!("README documents no `rigid-limit {sub}`"));
        let documented = documented_flags(section(&text, heading));
        let actual = help_flags(sub);
        assert_eq!(documented, actual, "README vs `rigid-limit {sub} --help`");
    }
    // The --integrator row names every integrator the program accepts.
    let row = text
        .lines()
        .find(|l| l.starts_with("| `--integrator` |"))
        .expect("README documents --integrator");
    for kind in rigid_limit::integrate::IntegratorKind::ALL {
        assert!(
            row.contains(&format!("`{}`", kind.name())),
            "README's --integrator row lacks {}",
            kind.name()
        );
    }
    // And every subcommand of --help has its section.
    let top = stdout(&["--help"]);
    let commands: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    for c in commands {
        assert!(
            text.contains(&format!("### `rigid-limit {c}")),
            "README documents no `rigid-limit {c}`"
        );
    }
}

#[test]
fn json_fields_and_csv_columns_are_the_documented_ones() {
    let text = readme();
    let json_table: BTreeSet<String> = text
        .lines()
        .skip_while(|l| !l.starts_with("| field | meaning |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .flat_map(|l| {
            l.split('|')
                .nth(1)
                .unwrap_or("")
                .split('`')
                .enumerate()
                .filter(|(i, _)| i % 2 == 1)
                .map(|(_, t)| t.to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    let json: serde_json::Value = serde_json::from_str(&stdout(&[
        "simulate",
        "--kappa",
        "1e-6",
        "--json",
        "--trajectory",
    ]))
    .unwrap();
    let actual: BTreeSet<String> = json.as_object().unwrap().keys().cloned().collect();
    assert_eq!(json_table, actual, "README's --json table vs the output");

    let csv = stdout(&["simulate", "--kappa", "1e-6", "--csv"]);
    let header = csv.lines().next().unwrap();
    let columns = section(&text, "### `rigid-limit simulate`");
    let documented = columns
        .split("`--csv` columns: `")
        .nth(1)
        .and_then(|s| s.split('`').next())
        .expect("README lists the --csv columns")
        .replace('\n', " ");
    let documented: Vec<&str> = documented.split(',').map(str::trim).collect();
    assert_eq!(documented, header.split(',').collect::<Vec<_>>());
    // Every line has as many cells as the header.
    assert!(csv
        .lines()
        .all(|l| l.split(',').count() == documented.len()));
}

/// "Your own system" runs verbatim: its file, then each command of its `sh` block, in an empty
/// directory; the summary extrapolates ẋ to the rigid impact law's 1.4, and ẏ leaves at 1.
#[test]
fn your_own_system_runs_verbatim() {
    let text = readme();
    let part = section(&text, "## Your own system");
    let block = |fence: &str| -> String {
        let start = part
            .find(fence)
            .unwrap_or_else(|| panic!("no {fence} block"))
            + fence.len()
            + 1;
        let end = start + part[start..].find("```").unwrap();
        part[start..end].to_string()
    };
    let dir = std::env::temp_dir().join(format!("rigid-limit-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("landing.toml"), block("```toml")).unwrap();
    for line in block("```sh").lines().filter(|l| !l.trim().is_empty()) {
        let mut words = line.split_whitespace();
        assert_eq!(words.next(), Some("rigid-limit"), "{line}");
        let out = Command::new(env!("CARGO_BIN_EXE_rigid-limit"))
            .args(words)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{line}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let summary = std::fs::read_to_string(dir.join("landing/summary.md")).unwrap();
    let limit = |symbol: &str| -> f64 {
        let line = summary
            .lines()
            .find(|l| l.contains(&format!("{symbol} extrapolated to κ → 0: ")))
            .unwrap_or_else(|| panic!("no extrapolation of {symbol}:\n{summary}"));
        line.split("κ → 0: ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!((limit("x_dot(t_end)") - 1.4).abs() < 1e-6, "{summary}");
    let runs = std::fs::read_to_string(dir.join("landing/runs.csv")).unwrap();
    let header: Vec<&str> = runs.lines().next().unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "q_dot_end").unwrap();
    for row in runs.lines().skip(1) {
        let qdot = row.split(',').nth(column).unwrap();
        let ydot: f64 = qdot.split(' ').nth(1).unwrap().parse().unwrap();
        assert!((ydot - 1.0).abs() < 1e-9, "{row}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
