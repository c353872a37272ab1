//! Every committed table is well-formed: each CSV under results/ has as many fields in every row
//! as in its header, and every number in its shortest round-trip form.

use rigid_limit::error::number_text;
use rigid_limit::experiment::table::split_csv_line;
use std::path::{Path, PathBuf};

fn csv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            csv_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "csv") {
            out.push(path);
        }
    }
}

/// A number not in the shortest round-trip form that [`number_text`] writes: `0.00001` for
/// `1e-5`, `1.0`, `1.5e0`, or an integral float written without its point
/// (`18295288525171745000`; a count has at most 15 digits).
fn is_not_shortest(token: &str) -> bool {
    let digits = token.trim_start_matches('-');
    let decimal = token.contains(['.', 'e', 'E']) || digits.len() > 15;
    match token.parse::<f64>() {
        Ok(x) if decimal && x.is_finite() => token != number_text(x),
        _ => false,
    }
}

/// Whether a cell holds numbers: one, or a space-separated list (a state `0.25 -3.1e-18`).
fn is_numeric(cell: &str) -> bool {
    !cell.is_empty() && cell.split(' ').all(|t| t.parse::<f64>().is_ok())
}

/// The faults of one CSV text: rows whose field count differs from the header's, and number
/// cells not in shortest form (each number of a space-separated list of numbers too).
fn faults(text: &str) -> Vec<String> {
    let mut lines = text.lines();
    let Some(header) = lines.next().and_then(split_csv_line) else {
        return vec!["no header".into()];
    };
    let mut out = Vec::new();
    for (i, line) in lines.enumerate() {
        let row = i + 2;
        let Some(cells) = split_csv_line(line) else {
            out.push(format!("line {row}: a quoted cell left open"));
            continue;
        };
        if cells.len() != header.len() {
            out.push(format!(
                "line {row}: {} fields under a header of {}",
                cells.len(),
                header.len()
            ));
        }
        for (column, cell) in header.iter().zip(&cells) {
            if is_numeric(cell) && cell.split(' ').any(is_not_shortest) {
                out.push(format!("line {row}, column {column}: {cell}"));
            }
        }
    }
    out
}

#[test]
fn the_checker_finds_ragged_rows_and_long_numbers() {
    assert!(faults("a,b\n1,2\n").is_empty());
    assert!(faults("a,b\n\"x, y\",9.126047822576006e-25\n").is_empty());
    assert!(faults("a,b\n1e-5,100000000000000\n").is_empty());
    assert_eq!(faults("a,b,c\n1,2\n").len(), 1);
    assert_eq!(faults("a\n0.00001\n").len(), 1);
    assert_eq!(faults("a\n1.0\n").len(), 1);
    assert_eq!(faults("a\n18295288525171745000\n").len(), 1);
    assert_eq!(faults("a\n0.25 -0.0000000000000000031\n").len(), 1);
    assert_eq!(faults("a\n1.5e0\n").len(), 1);
    assert!(faults("a\nthe limit 1.5e0 is off\n").is_empty());
}

#[test]
fn every_table_under_results_is_well_formed_with_shortest_numbers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let mut files = Vec::new();
    csv_files(&root, &mut files);
    files.sort();
    assert!(
        files.len() >= 20,
        "only {} CSV files under results/",
        files.len()
    );
    let mut report = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let found = faults(&text);
        if !found.is_empty() {
            report.push(format!(
                "{}: {} faults, first: {}",
                path.strip_prefix(&root).unwrap().display(),
                found.len(),
                found[0]
            ));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}
