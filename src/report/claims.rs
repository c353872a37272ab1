//! The claims ledger: the papers' claims (the inventory, docs/claims.toml) judged from the numbers
//! the experiments wrote (results/NAME/analysis.json and their tables), as results/claims.md and
//! results/claims.csv. Nothing here is typed by hand but the inventory: a verdict is recomputed
//! by `analysis::claims` from the measured numbers and the rule stated beside the paper's number.

use crate::analysis::claims::{passes, verdict, Measured, Rule, Verdict};
use crate::analysis::fit::power_law;
use crate::error::number_text;
use crate::report::markdown::{significant, Markdown, MarkdownTable};
use crate::report::rates::{in_range, FIT_RANGE};
use crate::report::table::{read_text, Cell, Table, TextTable};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The inventory: the papers in the ledger's order, and the claims.
#[derive(Debug)]
pub struct Inventory {
    pub papers: Vec<Paper>,
    pub claims: Vec<Claim>,
}

/// A paper: the prefix of its claims' IDs and how it is cited.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Paper {
    /// `ZL`.
    pub id: String,
    /// `Zhao, Liu, Chen, Brogliato (2015)`.
    pub cite: String,
}

/// One claim of a paper.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// The paper's prefix and its own numbering: `ZL-(31)`, `CV-Table 3`, `BB-Thm. 1`.
    pub id: String,
    /// The paper's statement in one line.
    pub statement: String,
    /// Where it stands in the paper (section, equation, page).
    #[serde(rename = "where")]
    pub location: String,
    /// The paper's number(s) as the paper states them.
    #[serde(default)]
    pub stated: String,
    /// `absent` (not computed yet) or `not computable`; empty for a claim judged by its checks.
    #[serde(default)]
    pub status: Option<String>,
    /// Why a claim is absent or not computable.
    #[serde(default)]
    pub reason: Option<String>,
    /// The experiment whose results judge it (`results/NAME/`).
    #[serde(default)]
    pub experiment: Option<String>,
    /// What was measured: the parameters and range the verdict holds for.
    #[serde(default)]
    pub scope: Option<String>,
    #[serde(default, rename = "check")]
    pub checks: Vec<Check>,
}

/// One measured quantity and the rule it must satisfy for the claim to hold.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// What is measured, in a few words.
    pub what: String,
    /// A table of the experiment's results (`runs.csv`); absent: `analysis.json`.
    #[serde(default)]
    pub table: Option<String>,
    /// In analysis.json a path (`integrators[integrator=tsit45].stick_exponent.slope`), in a
    /// table a column.
    pub quantity: String,
    /// Path of the 95 % half-width of an analysis.json quantity.
    #[serde(default)]
    pub ci: Option<String>,
    /// A table's rows reduced to one number: min, max, mean, count, same (the one value every
    /// row has), rate (the column ∝ κ^p fitted over report::rates::FIT_RANGE, with its interval).
    #[serde(default)]
    pub aggregate: Option<String>,
    /// The table's rows taken: `column=value`, `column!=value`, `column<number`,
    /// `column>number`, comma-separated.
    #[serde(default)]
    pub filter: Option<String>,
    /// The κ range of a rate, [smallest, largest] (default report::rates::FIT_RANGE).
    #[serde(default)]
    pub kappa_range: Option<[f64; 2]>,
    /// relative, absolute, within_ci, excludes_ci, range or equals.
    pub rule: String,
    /// The number the measurement is held against: the paper's.
    #[serde(default)]
    pub paper: Option<f64>,
    /// Instead of `paper`, a path in analysis.json to a number the measurement is held against
    /// (the count it must equal, a closed form the experiment computed).
    #[serde(default)]
    pub reference: Option<String>,
    #[serde(default)]
    pub tol: Option<f64>,
    #[serde(default)]
    pub min: Option<f64>,
    #[serde(default)]
    pub max: Option<f64>,
    #[serde(default)]
    pub equals: Option<toml::Value>,
}

const STATUSES: [(&str, Verdict); 2] = [
    ("absent", Verdict::Absent),
    ("not computable", Verdict::NotComputable),
];
const AGGREGATES: [&str; 6] = ["min", "max", "mean", "count", "same", "rate"];

impl Check {
    /// The rule, from `rule` and the fields it needs, with `reference` (the number read at the
    /// path `reference`, if given) for `paper`; an error names the field.
    pub fn rule(&self, reference: Option<f64>) -> Result<Rule, String> {
        let need = |field: &str, v: Option<f64>| {
            v.ok_or_else(|| format!("field `{field}`: rule \"{}\" needs it", self.rule))
        };
        let unused = |fields: &[(&str, bool)]| match fields.iter().find(|(_, given)| *given) {
            Some((field, _)) => Err(format!(
                "field `{field}`: rule \"{}\" does not use it",
                self.rule
            )),
            None => Ok(()),
        };
        let finite = |field: &str, v: f64| {
            if v.is_finite() {
                Ok(v)
            } else {
                Err(format!("field `{field}`: {v} is not a finite number"))
            }
        };
        if self.reference.is_some() && self.paper.is_some() {
            return Err("field `reference`: give `paper` or `reference`, not both".into());
        }
        let (paper, tol) = (self.paper.or(reference), self.tol);
        let paper_given = self.paper.is_some() || self.reference.is_some();
        match self.rule.as_str() {
            "relative" | "absolute" | "within_ci" | "excludes_ci" => {
                unused(&[
                    ("min", self.min.is_some()),
                    ("max", self.max.is_some()),
                    ("equals", self.equals.is_some()),
                ])?;
                if !paper_given {
                    return Err(format!("field `paper`: rule \"{}\" needs it (or `reference`)", self.rule));
                }
                // A reference not read yet (the inventory is checked before the results).
                let paper = finite("paper", paper.unwrap_or(0.0))?;
                let tol = match (self.rule.as_str(), tol) {
                    ("within_ci" | "excludes_ci", None) => 0.0,
                    (_, t) => finite("tol", need("tol", t)?)?,
                };
                if tol < 0.0 {
                    return Err(format!("field `tol`: {tol} is negative"));
                }
                Ok(match self.rule.as_str() {
                    "relative" => Rule::Relative { paper, tol },
                    "absolute" => Rule::Absolute { paper, tol },
                    "within_ci" => Rule::WithinInterval { paper, slack: tol },
                    _ => Rule::ExcludesInterval { paper, slack: tol },
                })
            }
            "range" => {
                unused(&[
                    ("paper", paper_given),
                    ("tol", tol.is_some()),
                    ("equals", self.equals.is_some()),
                ])?;
                if self.min.is_none() && self.max.is_none() {
                    return Err("field `min`: rule \"range\" needs min, max or both".into());
                }
                let min = self.min.map(|v| finite("min", v)).transpose()?;
                let max = self.max.map(|v| finite("max", v)).transpose()?;
                Ok(Rule::Range { min, max })
            }
            "equals" => {
                unused(&[
                    ("paper", paper_given),
                    ("tol", tol.is_some()),
                    ("min", self.min.is_some()),
                    ("max", self.max.is_some()),
                ])?;
                match &self.equals {
                    Some(toml::Value::String(s)) => Ok(Rule::Equals(s.clone())),
                    Some(toml::Value::Boolean(b)) => Ok(Rule::Equals(b.to_string())),
                    Some(toml::Value::Integer(n)) => Ok(Rule::Equals(n.to_string())),
                    Some(toml::Value::Float(f)) => Ok(Rule::Equals(number_text(*f))),
                    Some(_) => Err("field `equals`: a text, a number or a flag".into()),
                    None => Err("field `equals`: rule \"equals\" needs it".into()),
                }
            }
            other => Err(format!(
                "field `rule`: \"{other}\" is none of relative, absolute, within_ci, excludes_ci, range, equals"
            )),
        }
    }

    /// The shape of the quantity: an aggregate for a table, none for analysis.json.
    fn check_source(&self) -> Result<(), String> {
        match (&self.table, &self.aggregate) {
            (Some(_), None) => Err(format!(
                "field `aggregate`: a table's column needs one of {}",
                AGGREGATES.join(", ")
            )),
            (Some(_), Some(a)) if !AGGREGATES.contains(&a.as_str()) => Err(format!(
                "field `aggregate`: \"{a}\" is none of {}",
                AGGREGATES.join(", ")
            )),
            (Some(_), Some(_)) if self.ci.is_some() => {
                Err("field `ci`: only for analysis.json (a table's rate has its own)".into())
            }
            (None, Some(_)) => Err("field `aggregate`: only for a table (give `table`)".into()),
            (_, a) if self.kappa_range.is_some() && a.as_deref() != Some("rate") => {
                Err("field `kappa_range`: only for aggregate = \"rate\"".into())
            }
            (Some(_), _) if self.reference.is_some() => {
                Err("field `reference`: only for analysis.json".into())
            }
            (None, None) if self.filter.is_some() => {
                Err("field `filter`: only for a table (give `table`)".into())
            }
            _ => Ok(()),
        }
    }
}

impl Claim {
    /// The verdict a claim has without checks (absent, not computable), if it has a status.
    fn status(&self) -> Result<Option<Verdict>, String> {
        let Some(status) = &self.status else {
            if self.checks.is_empty() {
                return Err("field `check`: a claim without a status needs a check".into());
            }
            if self.experiment.is_none() {
                return Err("field `experiment`: a checked claim needs one".into());
            }
            return Ok(None);
        };
        let verdict = STATUSES
            .iter()
            .find(|(name, _)| name == status)
            .map(|(_, v)| *v)
            .ok_or_else(|| {
                format!("field `status`: \"{status}\" is none of absent, not computable")
            })?;
        if self.reason.as_deref().is_none_or(str::is_empty) {
            return Err(format!("field `reason`: a claim that is {status} says why"));
        }
        if !self.checks.is_empty() {
            return Err(format!(
                "field `check`: a claim that is {status} has no checks"
            ));
        }
        Ok(Some(verdict))
    }
}

/// The inventory from its text; `name` (the file) opens every error, which is one line naming
/// the claim and the field.
pub fn parse_inventory(text: &str, name: &str) -> Result<Inventory, String> {
    let one_line = |e: &dyn std::fmt::Display| {
        let text = e.to_string();
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let table: toml::Table =
        toml::from_str(text).map_err(|e| format!("{name}: {}", one_line(&e)))?;
    for key in table.keys() {
        if key != "paper" && key != "claim" {
            return Err(format!("{name}: unknown key `{key}` (paper, claim)"));
        }
    }
    let papers: Vec<Paper> = match table.get("paper") {
        Some(p) => p
            .clone()
            .try_into()
            .map_err(|e| format!("{name}: [[paper]]: {}", one_line(&e)))?,
        None => return Err(format!("{name}: no [[paper]] tables")),
    };
    let rows = match table.get("claim") {
        Some(toml::Value::Array(rows)) => rows.as_slice(),
        Some(_) => {
            return Err(format!(
                "{name}: `claim` is not an array of [[claim]] tables"
            ))
        }
        None => &[],
    };
    let mut claims: Vec<Claim> = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let id = row
            .get("id")
            .and_then(toml::Value::as_str)
            .map_or_else(|| format!("number {} (no id)", i + 1), str::to_string);
        let fail = |e: String| format!("{name}: claim {id}: {e}");
        let claim: Claim = row.clone().try_into().map_err(|e| fail(one_line(&e)))?;
        let prefix = claim.id.split('-').next().unwrap_or_default();
        if !papers.iter().any(|p| p.id == prefix) || !claim.id.contains('-') {
            return Err(fail(format!(
                "field `id`: its prefix names none of the papers ({}), as in ZL-(31)",
                papers
                    .iter()
                    .map(|p| p.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        if claims.iter().any(|c| c.id == claim.id) {
            return Err(fail("field `id`: given twice".into()));
        }
        claim.status().map_err(fail)?;
        for (k, check) in claim.checks.iter().enumerate() {
            check
                .check_source()
                .and_then(|()| check.rule(None).map(|_| ()))
                .map_err(|e| fail(format!("check {}: {e}", k + 1)))?;
        }
        claims.push(claim);
    }
    Ok(Inventory { papers, claims })
}

/// A path into analysis.json: keys separated by dots; `key[3]` is an array's element,
/// `key[field=value]` the one element whose `field` reads `value` (`a=x&b=y`: both), and a
/// number after a dot indexes a list.
fn lookup<'a>(root: &'a Value, path: &str) -> Result<&'a Value, String> {
    let mut segments = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in path.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '.' if depth == 0 => {
                segments.push(&path[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    segments.push(&path[start..]);
    let mut at = root;
    let mut walked = String::new();
    for segment in segments {
        let (key, selector) = match segment.find('[') {
            Some(i) if segment.ends_with(']') => {
                (&segment[..i], Some(&segment[i + 1..segment.len() - 1]))
            }
            Some(_) => return Err(format!("`{segment}`: a selector ends with ]")),
            None => (segment, None),
        };
        let here = if walked.is_empty() {
            "the top level".to_string()
        } else {
            format!("`{walked}`")
        };
        // A number indexes a list (`eigenvalues[0].1`, a pair's second number).
        let element = match (at, key.parse::<usize>()) {
            (Value::Array(items), Ok(i)) => items.get(i),
            _ => at.get(key),
        };
        at = element.ok_or_else(|| format!("no key `{key}` at {here}"))?;
        if let Some(selector) = selector {
            let items = at
                .as_array()
                .ok_or_else(|| format!("`{key}` is not an array, [{selector}] selects nothing"))?;
            at = if selector.contains('=') {
                let mut conditions = Vec::new();
                for condition in selector.split('&') {
                    let (field, value) = condition
                        .split_once('=')
                        .ok_or_else(|| format!("[{selector}]: field=value joined by &"))?;
                    conditions.push((field, value));
                }
                let found: Vec<&Value> = items
                    .iter()
                    .filter(|item| {
                        conditions
                            .iter()
                            .all(|(field, value)| item.get(field).is_some_and(|v| reads(v, value)))
                    })
                    .collect();
                match found.as_slice() {
                    [one] => one,
                    _ => {
                        return Err(format!(
                            "{} elements of `{key}` have {selector} (one needed)",
                            found.len()
                        ))
                    }
                }
            } else {
                let i: usize = selector
                    .parse()
                    .map_err(|_| format!("[{selector}]: an index or field=value"))?;
                items
                    .get(i)
                    .ok_or_else(|| format!("`{key}` has {} elements, not [{i}]", items.len()))?
            };
        }
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(segment);
    }
    Ok(at)
}

/// Whether a JSON value reads `text` (numbers compared by value).
fn reads(v: &Value, text: &str) -> bool {
    match v {
        Value::String(s) => s == text,
        Value::Number(n) => n.as_f64().is_some_and(|x| text.parse::<f64>() == Ok(x)),
        Value::Bool(b) => b.to_string() == text,
        _ => false,
    }
}

fn measured_json(v: &Value) -> Result<Measured, String> {
    Ok(match v {
        Value::Null => Measured::Missing,
        Value::Number(n) => Measured::Number {
            value: n.as_f64().unwrap_or(f64::NAN),
            ci95: None,
        },
        Value::String(s) => Measured::Text(s.clone()),
        Value::Bool(b) => Measured::Text(b.to_string()),
        Value::Array(_) | Value::Object(_) => {
            return Err("is a list or an object, not a number".into())
        }
    })
}

/// A filter's comparison of a cell with a value.
#[derive(Clone, Copy, PartialEq)]
enum Compare {
    Equal,
    NotEqual,
    Below,
    Above,
}

/// The rows of `table` that `filter` takes: `column=value`, `column!=value` (text, or numbers by
/// value), `column<number`, `column>number`, comma-separated.
fn filtered<'t>(table: &'t TextTable, filter: Option<&str>) -> Result<Vec<&'t [String]>, String> {
    let mut conditions = Vec::new();
    for term in filter
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        let (column, value, compare) = [
            ("!=", Compare::NotEqual),
            ("=", Compare::Equal),
            ("<", Compare::Below),
            (">", Compare::Above),
        ]
        .iter()
        .find_map(|(op, c)| term.split_once(op).map(|(a, b)| (a.trim(), b.trim(), *c)))
        .ok_or_else(|| format!("field `filter`: `{term}` is not column=value (or !=, <, >)"))?;
        let i = table
            .column(column)
            .ok_or_else(|| format!("field `filter`: the table has no column {column}"))?;
        let number = value.parse::<f64>().ok();
        if matches!(compare, Compare::Below | Compare::Above) && number.is_none() {
            return Err(format!("field `filter`: `{term}` compares with a number"));
        }
        conditions.push((i, value, number, compare));
    }
    Ok(table
        .rows
        .iter()
        .filter(|row| {
            conditions.iter().all(|(i, value, number, compare)| {
                let cell = row.get(*i).map_or("", String::as_str);
                let x = cell.parse::<f64>().ok();
                let same = cell == *value || (x.is_some() && x == *number);
                match compare {
                    Compare::Equal => same,
                    Compare::NotEqual => !same,
                    Compare::Below => x.zip(*number).is_some_and(|(x, n)| x < n),
                    Compare::Above => x.zip(*number).is_some_and(|(x, n)| x > n),
                }
            })
        })
        .map(Vec::as_slice)
        .collect())
}

fn measured_table(table: &TextTable, check: &Check) -> Result<Measured, String> {
    let column = table.column(&check.quantity).ok_or_else(|| {
        format!(
            "field `quantity`: the table has no column {}",
            check.quantity
        )
    })?;
    let rows = filtered(table, check.filter.as_deref())?;
    let numbers: Vec<f64> = rows
        .iter()
        .filter_map(|r| r.get(column)?.parse::<f64>().ok())
        .collect();
    let number = |value: f64| Measured::Number { value, ci95: None };
    let aggregate = check.aggregate.as_deref().unwrap_or_default();
    Ok(match aggregate {
        "count" => number(rows.len() as f64),
        "same" => {
            let mut values: Vec<&str> = rows
                .iter()
                .map(|r| r.get(column).map_or("", String::as_str))
                .collect();
            values.dedup();
            match values.as_slice() {
                [one] => match one.parse::<f64>() {
                    Ok(v) => number(v),
                    Err(_) => Measured::Text(one.to_string()),
                },
                [] => Measured::Missing,
                _ => Measured::Text(format!("{} different values", values.len())),
            }
        }
        _ if numbers.is_empty() => Measured::Missing,
        "min" => number(numbers.iter().copied().fold(f64::INFINITY, f64::min)),
        "max" => number(numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        "mean" => number(numbers.iter().sum::<f64>() / numbers.len() as f64),
        "rate" => {
            let kappa = table
                .column("kappa")
                .ok_or("field `aggregate`: a rate needs the table's kappa column")?;
            let (k, v): (Vec<f64>, Vec<f64>) = rows
                .iter()
                .filter_map(|r| {
                    Some((
                        r.get(kappa)?.parse::<f64>().ok()?,
                        r.get(column)?.parse::<f64>().ok()?,
                    ))
                })
                .filter(|(k, v)| {
                    let range = check.kappa_range.map_or(FIT_RANGE, |[lo, hi]| (lo, hi));
                    in_range(*k, range) && *v > 0.0
                })
                .unzip();
            power_law(&k, &v).map_or(Measured::Missing, |f| Measured::Number {
                value: f.slope,
                ci95: Some(f.slope_ci95),
            })
        }
        other => return Err(format!("field `aggregate`: \"{other}\" unknown")),
    })
}

/// A claim with its verdict and what each check measured.
#[derive(Debug)]
pub struct Judged<'a> {
    pub claim: &'a Claim,
    pub verdict: Verdict,
    pub checks: Vec<Checked>,
    /// What a claim that is not run misses (its experiment's directory or a file it reads).
    pub missing: Option<PathBuf>,
}

/// One check of a judged claim: what was measured, the rule, and whether it holds (`None`: it
/// cannot be decided).
#[derive(Debug)]
pub struct Checked {
    pub measured: Measured,
    pub rule: Rule,
    pub holds: Option<bool>,
}

/// The results of one experiment, read once.
#[derive(Default)]
struct Results {
    analysis: HashMap<String, Value>,
    tables: HashMap<(String, String), TextTable>,
}

impl Results {
    fn analysis(&mut self, dir: &Path, experiment: &str) -> Result<&Value, String> {
        if !self.analysis.contains_key(experiment) {
            let path = dir.join(experiment).join("analysis.json");
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let value =
                serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            self.analysis.insert(experiment.to_string(), value);
        }
        Ok(&self.analysis[experiment])
    }

    fn table(&mut self, dir: &Path, experiment: &str, name: &str) -> Result<&TextTable, String> {
        let key = (experiment.to_string(), name.to_string());
        if !self.tables.contains_key(&key) {
            let path = dir.join(experiment).join(name);
            let table = read_text(&path)
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("field `table`: there is no {}", path.display()))?;
            self.tables.insert(key.clone(), table);
        }
        Ok(&self.tables[&key])
    }
}

/// Every claim of `inventory` judged from the results under `results` (one directory per
/// experiment); an error names the claim, the check and the field.
pub fn judge<'a>(inventory: &'a Inventory, results: &Path) -> Result<Vec<Judged<'a>>, String> {
    let mut read = Results::default();
    let mut judged = Vec::with_capacity(inventory.claims.len());
    for claim in &inventory.claims {
        let fail = |e: String| format!("claim {}: {e}", claim.id);
        if let Some(verdict) = claim.status().map_err(fail)? {
            judged.push(Judged {
                claim,
                verdict,
                checks: Vec::new(),
                missing: None,
            });
            continue;
        }
        let experiment = claim.experiment.as_deref().unwrap_or_default();
        // An experiment not run yet (or interrupted before its report) leaves its claims
        // unjudged, not the ledger: the files its checks read are all there, or it is not run.
        let dir = results.join(experiment);
        // A name with neither results nor an experiment file (the ledger's command runs
        // experiments/NAME.toml from the working directory) is a misspelt row, not a run to do.
        let file = Path::new("experiments").join(format!("{experiment}.toml"));
        if !dir.is_dir() && !file.is_file() {
            return Err(fail(format!(
                "field `experiment`: there is no {} and no {}",
                dir.display(),
                file.display()
            )));
        }
        let needed = claim.checks.iter().flat_map(|check| {
            let analysis = (check.table.is_none() || check.reference.is_some())
                .then(|| dir.join("analysis.json"));
            analysis
                .into_iter()
                .chain(check.table.as_ref().map(|t| dir.join(t)))
        });
        if let Some(missing) = std::iter::once(dir.clone())
            .chain(needed)
            .find(|path| !path.exists())
        {
            judged.push(Judged {
                claim,
                verdict: Verdict::NotRun,
                checks: Vec::new(),
                missing: Some(missing),
            });
            continue;
        }
        let mut checks = Vec::with_capacity(claim.checks.len());
        for (k, check) in claim.checks.iter().enumerate() {
            let fail = |e: String| fail(format!("check {}: {e}", k + 1));
            let value = match &check.table {
                Some(name) => {
                    let table = read.table(results, experiment, name).map_err(fail)?;
                    measured_table(table, check).map_err(fail)?
                }
                None => {
                    let root = read.analysis(results, experiment).map_err(fail)?;
                    let at = |field: &str, path: &str| {
                        lookup(root, path)
                            .and_then(measured_json)
                            .map_err(|e| fail(format!("field `{field}` ({path}): {e}")))
                    };
                    let mut value = at("quantity", &check.quantity)?;
                    if let (Some(path), Measured::Number { ci95, .. }) = (&check.ci, &mut value) {
                        *ci95 = match at("ci", path)? {
                            Measured::Number { value, .. } => Some(value),
                            _ => None,
                        };
                    }
                    value
                }
            };
            let reference = match &check.reference {
                Some(path) => {
                    let root = read.analysis(results, experiment).map_err(fail)?;
                    let value = lookup(root, path)
                        .and_then(measured_json)
                        .map_err(|e| fail(format!("field `reference` ({path}): {e}")))?;
                    match value {
                        Measured::Number { value, .. } => Some(value),
                        _ => return Err(fail(format!("field `reference` ({path}): not a number"))),
                    }
                }
                None => None,
            };
            let rule = check.rule(reference).map_err(fail)?;
            let holds = passes(&rule, &value);
            checks.push(Checked {
                measured: value,
                rule,
                holds,
            });
        }
        let outcomes: Vec<Option<bool>> = checks.iter().map(|c| c.holds).collect();
        judged.push(Judged {
            claim,
            verdict: verdict(&outcomes),
            checks,
            missing: None,
        });
    }
    Ok(judged)
}

fn measured_text(m: &Measured) -> String {
    match m {
        Measured::Number {
            value,
            ci95: Some(ci),
        } => format!("{} ± {}", significant(*value), significant(*ci)),
        Measured::Number { value, ci95: None } => significant(*value),
        Measured::Text(t) => format!("\"{t}\""),
        Measured::Missing => "nothing".into(),
    }
}

/// The rule as the ledger prints it; `against` names what the number held against is (the
/// paper's, or a quantity the experiment computed).
fn rule_text(rule: &Rule, against: &str) -> String {
    match rule {
        Rule::Relative { paper, tol } => {
            format!(
                "{against} {} (rel. tol. {})",
                significant(*paper),
                significant(*tol)
            )
        }
        Rule::Absolute { paper, tol } => {
            format!(
                "{against} {} (tol. {})",
                significant(*paper),
                significant(*tol)
            )
        }
        Rule::WithinInterval { paper, slack } if *slack == 0.0 => {
            format!(
                "{against} {} (within the 95 % interval)",
                significant(*paper)
            )
        }
        Rule::WithinInterval { paper, slack } => format!(
            "{against} {} (within the 95 % interval + {})",
            significant(*paper),
            significant(*slack)
        ),
        Rule::ExcludesInterval { paper, slack } => format!(
            "{against}: not {} (outside the 95 % interval + {})",
            significant(*paper),
            significant(*slack)
        ),
        Rule::Range {
            min: Some(a),
            max: Some(b),
        } => format!("in [{}, {}]", significant(*a), significant(*b)),
        Rule::Range {
            min: Some(a),
            max: None,
        } => format!("≥ {}", significant(*a)),
        Rule::Range {
            min: None,
            max: Some(b),
        } => format!("≤ {}", significant(*b)),
        Rule::Range { .. } => "any".into(),
        Rule::Equals(t) => format!("= \"{t}\""),
    }
}

/// What a judged claim measured against the paper, one part per check.
fn measured_against_paper(j: &Judged) -> String {
    if let Some(missing) = &j.missing {
        return format!("no {} yet", missing.display());
    }
    if j.checks.is_empty() {
        return j.claim.reason.clone().unwrap_or_default();
    }
    j.claim
        .checks
        .iter()
        .zip(&j.checks)
        .map(
            |(
                check,
                Checked {
                    measured: m,
                    rule,
                    holds,
                },
            )| {
                let mark = match holds {
                    Some(true) => "✓",
                    Some(false) => "✗",
                    None => "?",
                };
                let against = check
                    .reference
                    .as_ref()
                    .map_or("paper".to_string(), |r| format!("{r} ="));
                let rule = rule_text(rule, &against);
                format!("{mark} {}: {} vs {rule}", check.what, measured_text(m))
            },
        )
        .collect::<Vec<_>>()
        .join("; ")
}

fn command(claim: &Claim) -> String {
    claim.experiment.as_ref().map_or_else(String::new, |e| {
        format!("`rigid-limit run experiments/{e}.toml` → results/{e}/summary.md")
    })
}

/// The number of claims per verdict of each paper, in the inventory's order.
pub(crate) type Counts = Vec<(String, BTreeMap<Verdict, usize>)>;

/// The number of claims per paper and verdict.
pub fn counts(inventory: &Inventory, judged: &[Judged]) -> Counts {
    inventory
        .papers
        .iter()
        .map(|p| {
            let mut per = BTreeMap::new();
            for j in judged.iter().filter(|j| paper_of(j.claim) == p.id) {
                *per.entry(j.verdict).or_default() += 1;
            }
            (p.id.clone(), per)
        })
        .collect()
}

fn paper_of(claim: &Claim) -> &str {
    claim.id.split('-').next().unwrap_or_default()
}

/// results/claims.md.
pub fn markdown(inventory: &Inventory, judged: &[Judged], inventory_name: &str) -> String {
    let mut md = Markdown::new();
    md.heading(1, "What we found in the papers: the claims ledger");
    md.paragraph(format!(
        "Generated by `rigid-limit claims` (and at the end of `rigid-limit reproduce`) from the \
         inventory {inventory_name} and the experiments' results (analysis.json, runs.csv). Each \
         verdict is recomputed from the measured numbers by the rule beside the paper's number: \
         reproduced when every check holds (✓), refuted when none does (✗), partly otherwise; \
         absent claims are not computed yet, with the reason; a claim whose experiment has no \
         results in this directory yet is not run. The scope says what was measured."
    ));
    let counts = counts(inventory, judged);
    let mut header = vec!["paper".to_string()];
    header.extend(Verdict::ALL.iter().map(|v| v.name().to_string()));
    header.push("claims".into());
    let mut table = MarkdownTable::new(header);
    let mut totals = [0usize; Verdict::ALL.len()];
    for (prefix, per) in &counts {
        let cite = inventory
            .papers
            .iter()
            .find(|p| &p.id == prefix)
            .map_or("", |p| p.cite.as_str());
        let mut row = vec![format!("{cite} ({prefix})")];
        for (i, v) in Verdict::ALL.iter().enumerate() {
            let n = per.get(v).copied().unwrap_or(0);
            totals[i] += n;
            row.push(n.to_string());
        }
        row.push(per.values().sum::<usize>().to_string());
        table.row(row);
    }
    let mut row = vec!["all".to_string()];
    row.extend(totals.iter().map(usize::to_string));
    row.push(totals.iter().sum::<usize>().to_string());
    table.row(row);
    md.table(&table);
    for paper in &inventory.papers {
        let prefix = paper.id.as_str();
        md.heading(2, format!("{} ({prefix})", paper.cite));
        let mut table = MarkdownTable::new([
            "claim",
            "where",
            "statement",
            "verdict",
            "measured vs paper",
            "scope",
            "shown by",
        ]);
        for j in judged.iter().filter(|j| paper_of(j.claim) == prefix) {
            let c = j.claim;
            let stated = if c.stated.is_empty() {
                String::new()
            } else {
                format!(" Paper: {}.", c.stated)
            };
            table.row(
                [
                    c.id.clone(),
                    c.location.clone(),
                    format!("{}{stated}", c.statement),
                    format!("**{}**", j.verdict),
                    measured_against_paper(j),
                    c.scope.clone().unwrap_or_default(),
                    command(c),
                ]
                .map(|cell| cell.replace('|', "\\|")),
            );
        }
        md.table(&table);
    }
    md.finish()
}

/// results/claims.csv: one row per claim.
pub fn csv(judged: &[Judged]) -> String {
    let mut table = Table::new([
        "id",
        "paper",
        "where",
        "statement",
        "stated",
        "verdict",
        "measured",
        "scope",
        "experiment",
        "quantities",
        "command",
    ]);
    for j in judged {
        let c = j.claim;
        let quantities: Vec<String> = c
            .checks
            .iter()
            .map(|k| match (&k.table, &k.aggregate) {
                (Some(t), Some(a)) => format!("{t}:{a}({})", k.quantity),
                _ => format!("analysis.json:{}", k.quantity),
            })
            .collect();
        table.push([
            Cell::from(c.id.as_str()),
            Cell::from(paper_of(c)),
            Cell::from(c.location.as_str()),
            Cell::from(c.statement.as_str()),
            Cell::from(c.stated.as_str()),
            Cell::from(j.verdict.name()),
            Cell::from(measured_against_paper(j)),
            Cell::from(c.scope.as_deref().unwrap_or_default()),
            Cell::from(c.experiment.as_deref().unwrap_or_default()),
            Cell::from(quantities.join("; ")),
            Cell::from(command(c).replace('`', "")),
        ]);
    }
    table.to_csv()
}

/// Judge the inventory at `inventory` against `results` and write results/claims.md and
/// results/claims.csv; returns the counts per paper and verdict.
pub fn write_ledger(inventory: &Path, results: &Path) -> Result<Counts, String> {
    let name = inventory.display().to_string();
    let text = std::fs::read_to_string(inventory).map_err(|e| format!("{name}: {e}"))?;
    let parsed = parse_inventory(&text, &name)?;
    let judged = judge(&parsed, results).map_err(|e| format!("{name}: {e}"))?;
    let write = |file: &str, text: String| -> Result<PathBuf, String> {
        let path = results.join(file);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    };
    write("claims.md", markdown(&parsed, &judged, &name))?;
    write("claims.csv", csv(&judged))?;
    Ok(counts(&parsed, &judged))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_select_keys_indices_and_elements() {
        let v: Value = serde_json::from_str(
            r#"{"a": [{"k": "x.1", "n": 2, "f": {"s": 0.5}}, {"k": "y", "n": 3}], "b": null}"#,
        )
        .unwrap();
        assert_eq!(lookup(&v, "a[k=x.1].f.s").unwrap(), &serde_json::json!(0.5));
        assert_eq!(lookup(&v, "a[n=3].k").unwrap(), &serde_json::json!("y"));
        assert_eq!(lookup(&v, "a[1].n").unwrap(), &serde_json::json!(3));
        assert_eq!(lookup(&v, "a[k=y&n=3].n").unwrap(), &serde_json::json!(3));
        assert!(lookup(&v, "a[k=z].n")
            .unwrap_err()
            .contains("0 elements of `a` have k=z"));
        assert!(lookup(&v, "a[0].g")
            .unwrap_err()
            .contains("no key `g` at `a[0]`"));
        assert_eq!(
            measured_json(lookup(&v, "b").unwrap()),
            Ok(Measured::Missing)
        );
    }
}
