//! Every experiment file, mutated the ways a new user gets a file wrong (a key deleted, a number
//! replaced by nan / inf / -1 / 0 / 1e308 / 1e-320 / 4294967296 / a string, an array emptied, an
//! unknown key), is either refused with one line that names a key or accepted by parse and
//! validation (which never run a point: this battery stays fast); nan, inf and 1e308 (beyond
//! `rigid_limit::error::LARGEST_INPUT`, where the energy overflows) are always refused.

use rigid_limit::models::Experiment;
use std::path::Path;
use std::time::{Duration, Instant};

/// The replacements of a number.
const REPLACEMENTS: [&str; 8] = [
    "nan",
    "inf",
    "-1",
    "0",
    "1e308",
    "1e-320",
    "4294967296",
    "\"x\"",
];

/// Numbers mutated per file (the first ones; a long list of states repeats its keys).
const NUMBERS_PER_FILE: usize = 48;

/// A number token of `text`: (start, end, the key it belongs to).
type Token = (usize, usize, String);

/// The key a value at `pos` belongs to: the nearest `name =` before it on its line, else on an
/// earlier line (a list spanning lines).
fn key_before(text: &str, pos: usize) -> String {
    let before = &text[..pos];
    for line in before.rsplit('\n') {
        let code = line.split('#').next().unwrap_or("");
        if let Some(eq) = code.rfind('=') {
            let name = identifier_before(&code[..eq]);
            if !name.is_empty() {
                return name;
            }
        }
    }
    String::new()
}

/// The number tokens in value position (outside comments, strings and key names).
fn number_tokens(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut in_string = false;
    let mut in_comment = false;
    let mut after_eq_on_line = false;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if in_comment {
            if c == '\n' {
                in_comment = false;
                after_eq_on_line = false;
            }
            i += 1;
            continue;
        }
        if in_string {
            if c == '"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match c {
            '#' => in_comment = true,
            '"' => in_string = true,
            '\n' => after_eq_on_line = false,
            '=' => after_eq_on_line = true,
            _ => {}
        }
        let prev = if i == 0 { ' ' } else { bytes[i - 1] as char };
        let starts_number = c.is_ascii_digit()
            || (c == '-' && bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit()));
        let in_value =
            after_eq_on_line || text[..i].matches('[').count() > text[..i].matches(']').count();
        if starts_number && in_value && !(prev.is_alphanumeric() || prev == '_' || prev == '.') {
            let mut j = i + 1;
            while j < bytes.len() {
                let d = bytes[j] as char;
                let sign_after_e = (d == '-' || d == '+') && matches!(bytes[j - 1], b'e' | b'E');
                if d.is_ascii_digit()
                    || d == '.'
                    || d == 'e'
                    || d == 'E'
                    || d == '_'
                    || sign_after_e
                {
                    j += 1;
                } else {
                    break;
                }
            }
            // A key like `x1 =` is no value: the next non-space character is not '='.
            let rest = text[j..].trim_start();
            if !rest.starts_with('=') {
                out.push((i, j, key_before(text, i)));
            }
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// Every mutation of `text`: (what was done, the key it touched, the mutated text).
fn mutations(text: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    // A key deleted: a single-line `key = value` (a list spanning lines is deleted whole).
    let mut i = 0;
    while i < lines.len() {
        let code = lines[i].split('#').next().unwrap_or("");
        let key = code.split('=').next().unwrap_or("").trim();
        let is_entry = code.contains('=')
            && !key.is_empty()
            && key.chars().all(|c| c.is_alphanumeric() || c == '_');
        if is_entry {
            let mut end = i;
            let mut depth: i64 = 0;
            loop {
                let c = lines[end].split('#').next().unwrap_or("");
                depth += c.matches('[').count() as i64 - c.matches(']').count() as i64;
                if depth <= 0 || end + 1 == lines.len() {
                    break;
                }
                end += 1;
            }
            let kept: Vec<&str> = lines[..i]
                .iter()
                .chain(&lines[end + 1..])
                .copied()
                .collect();
            out.push((format!("{key} deleted"), key.to_string(), kept.join("\n")));
            // An array on one line emptied.
            let value = code.split_once('=').map(|x| x.1.trim()).unwrap_or("");
            if end == i && value.starts_with('[') && value.ends_with(']') && value != "[]" {
                let mut emptied: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                emptied[i] = format!("{key} = []");
                out.push((
                    format!("{key} emptied"),
                    key.to_string(),
                    emptied.join("\n"),
                ));
            }
            i = end + 1;
        } else {
            i += 1;
        }
    }
    // An unknown key at the top and in every table.
    let mut with_unknown: Vec<String> = vec!["bogus_key = 1".into()];
    with_unknown.extend(lines.iter().map(|l| l.to_string()));
    out.push((
        "unknown key at the top".into(),
        "bogus_key".into(),
        with_unknown.join("\n"),
    ));
    for (n, line) in lines.iter().enumerate() {
        if line.starts_with('[') {
            let mut t: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            t.insert(n + 1, "bogus_key = 1".into());
            out.push((
                format!("unknown key in {line}"),
                "bogus_key".into(),
                t.join("\n"),
            ));
        }
    }
    // A number replaced.
    for (start, end, key) in number_tokens(text).into_iter().take(NUMBERS_PER_FILE) {
        for r in REPLACEMENTS {
            let mutated = format!("{}{r}{}", &text[..start], &text[end..]);
            out.push((
                format!("{key}: {} -> {r}", &text[start..end]),
                key.clone(),
                mutated,
            ));
        }
    }
    out
}

/// The identifier that ends `text` (before an `=`), or an empty string.
fn identifier_before(text: &str) -> String {
    let text = text.trim_end();
    let start = text
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| {
            i + text[i..].chars().next().map_or(1, char::len_utf8)
        });
    text[start..].to_string()
}

/// The keys of a file: every `name =` and every table name.
fn file_keys(text: &str) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for line in text.lines() {
        let code = line.split('#').next().unwrap_or("");
        if let Some(table) = code.trim().strip_prefix('[') {
            keys.push(table.trim_matches(['[', ']', ' ']).to_string());
        }
        let mut rest = code;
        while let Some(eq) = rest.find('=') {
            let name = identifier_before(&rest[..eq]);
            if !name.is_empty() {
                keys.push(name);
            }
            rest = &rest[eq + 1..];
        }
    }
    keys.sort();
    keys.dedup();
    keys
}

/// Whether `message` names `key` as a word (`mu` in "params.mu = …", not in "must").
fn names(message: &str, key: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    message.match_indices(key).any(|(i, _)| {
        let before = message[..i].chars().next_back();
        let after = message[i + key.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

#[test]
fn the_number_finder_sees_values_not_keys() {
    let text = "name = \"dop853\"\n[params]\nH11 = 1.5 # 2\nstarts = [{ Y0 = -2, V0 = 0 }]\n";
    let found: Vec<(String, String)> = number_tokens(text)
        .into_iter()
        .map(|(s, e, k)| (text[s..e].to_string(), k))
        .collect();
    assert_eq!(
        found,
        [
            ("1.5".to_string(), "H11".to_string()),
            ("-2".into(), "Y0".into()),
            ("0".into(), "V0".into())
        ]
    );
}

#[test]
fn every_mutated_experiment_file_is_refused_in_one_line_naming_a_key_or_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "only {} experiment files", files.len());
    let started = Instant::now();
    let (mut refused, mut accepted, mut slowest) = (0, 0, (Duration::ZERO, String::new()));
    let mut faults = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        Experiment::parse(&text).unwrap_or_else(|e| panic!("{name} as committed: {e}"));
        let keys = file_keys(&text);
        for (what, key, mutated) in mutations(&text) {
            let t0 = Instant::now();
            let result = std::panic::catch_unwind(|| Experiment::parse(&mutated));
            let took = t0.elapsed();
            if took > slowest.0 {
                slowest = (took, format!("{name}, {what}"));
            }
            match result {
                Err(_) => faults.push(format!("{name}, {what}: panicked")),
                Ok(Ok(_)) if what.ends_with("-> nan") || what.ends_with("-> inf") => {
                    faults.push(format!("{name}, {what}: a non-finite number accepted"));
                }
                Ok(Ok(_)) if what.ends_with("-> 1e308") => {
                    faults.push(format!(
                        "{name}, {what}: a number beyond LARGEST_INPUT (its energy overflows) accepted"
                    ));
                }
                Ok(Ok(_)) => {
                    accepted += 1;
                    if std::env::var_os("FUZZ_LIST_ACCEPTED").is_some() {
                        eprintln!("accepted: {name}, {what}");
                    }
                }
                Ok(Err(e)) => {
                    refused += 1;
                    let message = e.to_string();
                    if message.contains('\n') {
                        faults.push(format!("{name}, {what}: more than one line: {message}"));
                    } else if !keys.iter().chain([&key]).any(|k| names(&message, k)) {
                        faults.push(format!(
                            "{name}, {what}: the message names no key: {message}"
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "{refused} refused, {accepted} accepted in {:.1} s; slowest {:.3} s ({})",
        started.elapsed().as_secs_f64(),
        slowest.0.as_secs_f64(),
        slowest.1
    );
    assert!(refused > 1000, "only {refused} mutations refused");
    assert!(
        slowest.0 < Duration::from_secs(1),
        "parse and validation took {:.2} s for {}",
        slowest.0.as_secs_f64(),
        slowest.1
    );
    assert!(
        faults.is_empty(),
        "{} faults:\n{}",
        faults.len(),
        faults.join("\n")
    );
}

/// The absurd inputs that used to run for minutes (or abort) are refused when the file is read,
/// in one line naming the key.
#[test]
fn absurd_inputs_are_refused_at_once_naming_the_key() {
    let cases: [(&str, &str, &str, &str); 17] = [
        (
            "mode_table_planar",
            "{ Y0 = -2, V0 = 0 }",
            "{ Y0 = -1e308, V0 = 0 }",
            "sweep.starts[1].Y0",
        ),
        (
            "mode_table_planar",
            "damping = 1.0",
            "damping = 4294967296",
            "params.damping",
        ),
        (
            "zhao_liu_damped",
            "damping = 0.2",
            "damping = 4294967296",
            "params.damping",
        ),
        ("mode_table_planar", "C = 1.0", "C = 4294967296", "params.C"),
        (
            "mode_table_planar",
            "window_scaled = 200",
            "window_scaled = 1e20",
            "solver.window_scaled",
        ),
        (
            "spring_particle",
            "load_frequency = 1.0",
            "load_frequency = 1e20",
            "params.load_frequency",
        ),
        (
            "spring_particle",
            "stiffness = 1.0",
            "stiffness = 4294967296",
            "params.stiffness",
        ),
        (
            "klarbring_2d",
            "force_cos = [0.0, 0.0]",
            "force_cos = [1e308, 0.0]",
            "params.force_cos",
        ),
        (
            "klarbring_2d",
            "stiffness = [[2.0, 0.8], [0.8, 1.0]]",
            "stiffness = [[4294967296, 0.8], [0.8, 1.0]]",
            "params.stiffness",
        ),
        ("sm_ip", "steps = [16,", "steps = [1e9, 16,", "steps"),
        // Numbers whose energy overflows, refused for every key of every model, and a
        // compliance at which the body sinks by more than its own size.
        ("zhao_liu", "mu = 2.0", "mu = 1e300", "params.mu"),
        (
            "two_contact_sprag_slip",
            "q = [-1.2, -1.2]",
            "q = [-1.2, -1e200]",
            "params.q[1]",
        ),
        (
            "zhao_liu",
            "max = 1e-1",
            "max = 4294967296",
            "sweep.kappa.max",
        ),
        ("zhao_liu", "atol = ", "atol = 1e20 # ", "solver.atol"),
        (
            "stick_liftoff_basin",
            "n = 601",
            "n = 4294967296",
            "sweep.Y0",
        ),
        // A value listed twice (its points would run twice), and a range of one value that
        // would silently drop its max.
        (
            "painleve_atlas",
            "omega0 = [0.0, 0.5]",
            "omega0 = [0.5, 0.5]",
            "sweep.omega0",
        ),
        (
            "painleve_atlas",
            "max = 10.0, n = 60",
            "max = 10.0, n = 1",
            "sweep.mu.n",
        ),
    ];
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments");
    for (file, from, to, key) in cases {
        let text = std::fs::read_to_string(dir.join(format!("{file}.toml"))).unwrap();
        assert!(text.contains(from), "{file}.toml has no {from}");
        let mutated = text.replacen(from, to, 1);
        let started = Instant::now();
        let message = match Experiment::parse(&mutated) {
            Ok(_) => panic!("{file}.toml with {to} is accepted"),
            Err(e) => e.to_string(),
        };
        assert!(started.elapsed() < Duration::from_secs(1), "{file}: {to}");
        assert!(!message.contains('\n'), "{message}");
        assert!(names(&message, key), "{file}.toml with {to}: {message}");
    }
}
