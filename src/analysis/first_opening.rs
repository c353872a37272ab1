//! Which contact opens first, run by run, against the scale-free fast system. A body slipping on
//! two contacts in C–V's class 261 (§6.2, Fig. unstableslip (A)) leaves its unstable S+S+ state
//! in one of two ways: one contact opens while the other's force grows without bound (an
//! impact without collision as κ → 0), IF or FI (C–V §6.3's labels: a letter per contact, I
//! for the one whose force grows, F for the free one). From each compliant run's events
//! (runs.csv's `event_times`, `event_kinds`, `event_contacts`): its first opening, at s = t/√κ
//! in C–V's scaled time, against the first opening of the scale-free fast system projected at
//! the same start; per κ, the starts whose first opening agrees, the starts that differ and how
//! far they lie from a switch of the scale-free outcome, and the largest |s(κ) − s| over the
//! starts that agree, whose rate in κ is fitted.

use super::cycles::run_events;
use super::fit::{power_law, LinearFit};
use super::RowCells;
use serde::Serialize;

/// The event of a compliant contact opening: its normal force falls to 0.
const OPENING: &str = "contact_opens";

/// The first opening of a run from its space-separated event columns: (t, contact), `None`
/// when no contact opens.
pub fn first_opening<'a>(
    times: &str,
    kinds: &'a str,
    contacts: &'a str,
) -> Result<Option<(f64, &'a str)>, String> {
    Ok(run_events(times, kinds, contacts)?
        .into_iter()
        .find(|e| e.kind == OPENING)
        .map(|e| (e.t, e.contact)))
}

/// C–V's label of the outcome that starts with contact `opening` opening, the contacts in
/// their order: F for it, I for each other contact (whose force then grows).
pub(crate) fn outcome_label(contacts: &[String], opening: &str) -> String {
    contacts
        .iter()
        .map(|c| if c == opening { 'F' } else { 'I' })
        .collect()
}

/// The scale-free fast system's first opening from one start (the run stage's side table).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScaleFreeOpening {
    /// The value of the swept parameter that places the start.
    pub start: f64,
    /// The contact that opens first, `None` when none opens in the window or the run failed.
    pub contact: Option<String>,
    /// Its opening's scaled time s.
    pub s: Option<f64>,
    /// The scale-free system's outcome at the end of its window (IF, FI, …).
    pub outcome: String,
    /// The projected data: P by rows and b.
    #[serde(rename = "P")]
    pub response: [[f64; 2]; 2],
    pub b: [f64; 2],
    /// C–V's class s₁s₂s₃ of P's columns and b (§6.1), empty on a boundary.
    pub class: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One compliant run's first opening against the scale-free system's from its start.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct StartOpening {
    pub start: f64,
    pub contact: Option<String>,
    /// s = t/√κ of the first opening.
    pub s: Option<f64>,
    /// Whether the same contact opens first as in the scale-free system.
    pub agrees: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The runs of one integrator at one κ.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Level {
    pub kappa: f64,
    pub starts: usize,
    /// Starts whose first opening is the scale-free system's.
    pub agree: usize,
    /// Runs that failed or in which no contact opened.
    pub without_opening: usize,
    /// The starts whose first opening differs.
    pub differ: Vec<f64>,
    /// The largest distance, in the start parameter, from a start that differs to the nearest
    /// switch of the scale-free first opening (none when every start agrees).
    pub largest_distance_to_switch: Option<f64>,
    /// The largest |s(κ) − s(scale-free)| over the starts that agree.
    pub largest_s_difference: Option<f64>,
    pub runs: Vec<StartOpening>,
}

/// One integrator's levels, from large κ to small.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct IntegratorOpenings {
    pub integrator: String,
    pub levels: Vec<Level>,
    pub smallest_kappa: f64,
    pub starts_at_smallest_kappa: usize,
    pub agree_at_smallest_kappa: usize,
    /// largest |s(κ) − s(scale-free)| ∝ κ^p over the levels that have it.
    pub s_difference_rate: Option<LinearFit>,
}

/// Everything the report of first openings holds (analysis.json).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct FirstOpenings {
    /// The swept parameter that places each start.
    pub start: String,
    pub contacts: Vec<String>,
    pub reference: Vec<ScaleFreeOpening>,
    /// The scale-free outcomes and how many starts end in each.
    pub reference_outcomes: Vec<(String, usize)>,
    /// Midpoints between neighbouring starts (in increasing order) whose scale-free first
    /// openings differ.
    pub switches: Vec<f64>,
    pub integrators: Vec<IntegratorOpenings>,
}

/// The switches of `reference`'s first opening along the start parameter: the midpoint of each
/// pair of neighbouring starts that open different contacts.
fn switches(reference: &[ScaleFreeOpening]) -> Vec<f64> {
    let mut sorted: Vec<&ScaleFreeOpening> = reference.iter().collect();
    sorted.sort_by(|a, b| a.start.total_cmp(&b.start));
    sorted
        .windows(2)
        .filter(|w| w[0].contact != w[1].contact)
        .map(|w| 0.5 * (w[0].start + w[1].start))
        .collect()
}

/// The first opening of one row against the reference from its start.
fn start_opening<R: RowCells>(
    start: &str,
    row: &R,
    reference: &[ScaleFreeOpening],
) -> StartOpening {
    let value = row.number(start).unwrap_or(f64::NAN);
    let kappa = row.number("kappa").unwrap_or(f64::NAN);
    let own = reference.iter().find(|r| r.start == value);
    let opening = if row.text("status") == "ok" {
        first_opening(
            row.text("event_times"),
            row.text("event_kinds"),
            row.text("event_contacts"),
        )
    } else {
        Err(row.text("error").to_string())
    };
    let (contact, s, error) = match opening {
        Ok(Some((t, c))) => (Some(c.to_string()), Some(t / kappa.sqrt()), None),
        Ok(None) => (None, None, None),
        Err(e) => (None, None, Some(e)),
    };
    StartOpening {
        start: value,
        agrees: contact.is_some() && own.is_some_and(|r| r.contact == contact),
        contact,
        s,
        error,
    }
}

/// The level of the runs `rows` (one integrator, one κ).
fn level<R: RowCells>(
    start: &str,
    kappa: f64,
    rows: &[&R],
    reference: &[ScaleFreeOpening],
    switches: &[f64],
) -> Level {
    let runs: Vec<StartOpening> = rows
        .iter()
        .map(|r| start_opening(start, *r, reference))
        .collect();
    let differ: Vec<f64> = runs
        .iter()
        .filter(|r| r.contact.is_some() && !r.agrees)
        .map(|r| r.start)
        .collect();
    let distance = |x: f64| {
        switches
            .iter()
            .map(|w| (x - w).abs())
            .fold(f64::INFINITY, f64::min)
    };
    let s_difference = |r: &StartOpening| {
        let own = reference.iter().find(|f| f.start == r.start)?;
        Some((r.s? - own.s?).abs())
    };
    Level {
        kappa,
        starts: runs.len(),
        agree: runs.iter().filter(|r| r.agrees).count(),
        without_opening: runs.iter().filter(|r| r.contact.is_none()).count(),
        largest_distance_to_switch: differ
            .iter()
            .map(|&x| distance(x))
            .reduce(f64::max)
            .filter(|d| d.is_finite()),
        differ,
        largest_s_difference: runs
            .iter()
            .filter(|r| r.agrees)
            .filter_map(s_difference)
            .reduce(f64::max),
        runs,
    }
}

/// The first openings of the compliant `rows` (each with `kappa`, `integrator`, the start
/// parameter `start`, `status` and the event columns) against the scale-free `reference`, the
/// system's `contacts` in their order. Levels are grouped by integrator and κ in the rows'
/// order.
pub(crate) fn first_openings<R: RowCells>(
    start: &str,
    contacts: &[String],
    reference: Vec<ScaleFreeOpening>,
    rows: &[R],
) -> FirstOpenings {
    let switches = switches(&reference);
    let mut reference_outcomes: Vec<(String, usize)> = Vec::new();
    for r in &reference {
        match reference_outcomes.iter_mut().find(|(o, _)| *o == r.outcome) {
            Some((_, n)) => *n += 1,
            None => reference_outcomes.push((r.outcome.clone(), 1)),
        }
    }
    let mut integrators: Vec<String> = Vec::new();
    for r in rows {
        let name = r.text("integrator");
        if !integrators.iter().any(|i| i == name) {
            integrators.push(name.to_string());
        }
    }
    let integrators = integrators
        .into_iter()
        .map(|integrator| {
            let own: Vec<&R> = rows
                .iter()
                .filter(|r| r.text("integrator") == integrator)
                .collect();
            let mut ladder: Vec<f64> = Vec::new();
            for r in &own {
                let k = r.number("kappa").unwrap_or(f64::NAN);
                if !ladder.contains(&k) {
                    ladder.push(k);
                }
            }
            let levels: Vec<Level> = ladder
                .iter()
                .map(|&kappa| {
                    let at: Vec<&R> = own
                        .iter()
                        .copied()
                        .filter(|r| r.number("kappa") == Some(kappa))
                        .collect();
                    level(start, kappa, &at, &reference, &switches)
                })
                .collect();
            let (kappa, worst): (Vec<f64>, Vec<f64>) = levels
                .iter()
                .filter_map(|l| Some((l.kappa, l.largest_s_difference?)))
                .filter(|(_, d)| *d > 0.0)
                .unzip();
            let smallest = levels.iter().min_by(|a, b| a.kappa.total_cmp(&b.kappa));
            IntegratorOpenings {
                smallest_kappa: smallest.map_or(f64::NAN, |l| l.kappa),
                starts_at_smallest_kappa: smallest.map_or(0, |l| l.starts),
                agree_at_smallest_kappa: smallest.map_or(0, |l| l.agree),
                s_difference_rate: power_law(&kappa, &worst),
                integrator,
                levels,
            }
        })
        .collect();
    FirstOpenings {
        start: start.to_string(),
        contacts: contacts.to_vec(),
        reference,
        reference_outcomes,
        switches,
        integrators,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Cells(Vec<(&'static str, String)>);
    impl RowCells for Cells {
        fn text(&self, column: &str) -> &str {
            self.0
                .iter()
                .find(|(c, _)| *c == column)
                .map_or("", |(_, v)| v.as_str())
        }
    }

    fn row(kappa: f64, angle: f64, t: f64, contact: &str) -> Cells {
        Cells(vec![
            ("kappa", kappa.to_string()),
            ("integrator", "dop853".into()),
            ("angle", angle.to_string()),
            ("status", "ok".into()),
            ("event_times", format!("{t} {}", 2.0 * t)),
            ("event_kinds", "contact_opens slip_stops".into()),
            ("event_contacts", format!("{contact} A")),
        ])
    }

    fn reference(start: f64, contact: &str, s: f64) -> ScaleFreeOpening {
        ScaleFreeOpening {
            start,
            contact: Some(contact.into()),
            s: Some(s),
            outcome: if contact == "A" { "FI" } else { "IF" }.into(),
            response: [[-0.055, 0.088], [0.055, -0.036]],
            b: [-1.0, -1.0],
            class: "261".into(),
            error: None,
        }
    }

    #[test]
    fn a_start_next_to_the_switch_that_opens_the_other_contact_is_counted_with_its_distance() {
        let contacts = ["A".to_string(), "B".to_string()];
        assert_eq!(outcome_label(&contacts, "B"), "IF");
        assert_eq!(outcome_label(&contacts, "A"), "FI");
        let reference = vec![
            reference(0.0, "B", 10.0),
            reference(1.0, "B", 12.0),
            reference(2.0, "A", 14.0),
        ];
        // κ = 1e-4: the start at 1 opens A (differs), the others agree, s off by 0.5 and 0.25;
        // κ = 1e-6: all agree, s off by 0.005 and 0.0025 and 0.001.
        let rows = [
            row(1e-4, 0.0, 10.5e-2, "B"),
            row(1e-4, 1.0, 11.0e-2, "A"),
            row(1e-4, 2.0, 14.25e-2, "A"),
            row(1e-6, 0.0, 10.005e-3, "B"),
            row(1e-6, 1.0, 12.0025e-3, "B"),
            row(1e-6, 2.0, 14.001e-3, "A"),
        ];
        let f = first_openings("angle", &contacts, reference, &rows);
        assert_eq!(f.switches, vec![1.5]);
        assert_eq!(
            f.reference_outcomes,
            vec![("IF".into(), 2), ("FI".into(), 1)]
        );
        let i = &f.integrators[0];
        assert_eq!(
            (i.levels[0].agree, i.levels[0].differ.clone()),
            (2, vec![1.0])
        );
        assert!((i.levels[0].largest_distance_to_switch.unwrap() - 0.5).abs() < 1e-15);
        assert!((i.levels[0].largest_s_difference.unwrap() - 0.5).abs() < 1e-9);
        assert_eq!(
            (i.agree_at_smallest_kappa, i.starts_at_smallest_kappa),
            (3, 3)
        );
        assert!((i.levels[1].largest_s_difference.unwrap() - 0.005).abs() < 1e-9);
        assert_eq!(i.levels[1].largest_distance_to_switch, None);
    }
}
