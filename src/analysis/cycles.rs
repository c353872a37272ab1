//! The cycles of a motion that rocks from one contact to another: a body on two legs lands on
//! one, then on the other, then on the first again. From one run's events (runs.csv's
//! `event_times`, `event_kinds`, `event_contacts`): the landings — a contact closing (`impact`
//! of the rigid reference, `contact_closes` of the compliant model) after another contact was
//! the last to close, so that the bounces of a compliant contact count once — and the cycles
//! between successive landings of one contact. A body on one contact (bouncing, or the reverse
//! chatter of C–V §3.3) has no other contact to alternate with: there every closing is a landing.
//!
//! Near an equilibrium held by forces that are constant to first order, the rigid motion is
//! homogeneous: scaling every velocity by ε scales every phase's duration by ε (the
//! accelerations are fixed, the velocities ∝ ε), so the ratio of successive cycle durations is
//! the factor by which the velocities grow per cycle (docs/champneys_varkonyi.md, "Stability of
//! equilibria with two contacts").

/// One landing: its time and the contact that closed.
#[derive(Clone, Debug, PartialEq)]
pub struct Landing {
    pub t: f64,
    pub contact: String,
}

/// The event kinds that close a contact: the rigid impact and the compliant closing.
const CLOSING: [&str; 2] = ["impact", "contact_closes"];

/// One event of a run as runs.csv's event columns hold it: its time, kind and contact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunEvent<'a> {
    pub t: f64,
    pub kind: &'a str,
    pub contact: &'a str,
}

/// A run's events from its space-separated event columns (times, kinds, contacts, one entry per
/// event in time order). An error names the column that does not parse or whose length differs
/// from the times'.
pub fn run_events<'a>(
    times: &str,
    kinds: &'a str,
    contacts: &'a str,
) -> Result<Vec<RunEvent<'a>>, String> {
    let times: Vec<f64> = times
        .split_whitespace()
        .map(|t| {
            t.parse::<f64>()
                .map_err(|_| format!("event_times: `{t}` is not a number"))
        })
        .collect::<Result<_, _>>()?;
    let kinds: Vec<&str> = kinds.split_whitespace().collect();
    let contacts: Vec<&str> = contacts.split_whitespace().collect();
    for (name, n) in [
        ("event_kinds", kinds.len()),
        ("event_contacts", contacts.len()),
    ] {
        if n != times.len() {
            return Err(format!(
                "{name} has {n} entries and event_times {}: the columns of one run's events have one entry per event",
                times.len()
            ));
        }
    }
    Ok(times
        .into_iter()
        .zip(kinds)
        .zip(contacts)
        .map(|((t, kind), contact)| RunEvent { t, kind, contact })
        .collect())
}

/// The landings of a run from its space-separated event columns ([`run_events`]): every
/// closing with `every`, else a closing after another contact was the last to close.
pub fn landings(
    times: &str,
    kinds: &str,
    contacts: &str,
    every: bool,
) -> Result<Vec<Landing>, String> {
    let mut out: Vec<Landing> = Vec::new();
    for e in run_events(times, kinds, contacts)? {
        if !CLOSING.contains(&e.kind) {
            continue;
        }
        if !every && out.last().is_some_and(|l| l.contact == e.contact) {
            continue;
        }
        out.push(Landing {
            t: e.t,
            contact: e.contact.to_string(),
        });
    }
    Ok(out)
}

/// The cycles between successive landings of one contact.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cycles {
    /// The landing times of the contact that starts a cycle.
    pub starts: Vec<f64>,
    /// Each cycle's duration, `starts[k + 1] − starts[k]`.
    pub durations: Vec<f64>,
    /// Successive durations' ratios, `durations[k + 1]/durations[k]`: the velocities' growth per
    /// cycle of a homogeneous motion.
    pub growth: Vec<f64>,
}

/// The cycles of `landings` that start at each landing of `contact`.
pub fn cycles(landings: &[Landing], contact: &str) -> Cycles {
    let starts: Vec<f64> = landings
        .iter()
        .filter(|l| l.contact == contact)
        .map(|l| l.t)
        .collect();
    let durations: Vec<f64> = starts.windows(2).map(|w| w[1] - w[0]).collect();
    let growth = durations.windows(2).map(|w| w[1] / w[0]).collect();
    Cycles {
        starts,
        durations,
        growth,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounces_count_once_and_the_ratios_are_the_durations() {
        let (times, kinds, contacts) = (
            "0.5 1 1.1 1.2 2 3 3.5 5 6",
            "impact contact_opens contact_closes contact_opens contact_closes contact_closes stop contact_closes contact_closes",
            "a a a a b a b b a",
        );
        let l = landings(times, kinds, contacts, false).unwrap();
        let t: Vec<f64> = l.iter().map(|l| l.t).collect();
        assert_eq!(t, vec![0.5, 2.0, 3.0, 5.0, 6.0]);
        let c = cycles(&l, "a");
        assert_eq!(c.starts, vec![0.5, 3.0, 6.0]);
        assert_eq!(c.durations, vec![2.5, 3.0]);
        assert_eq!(c.growth, vec![1.2]);
        assert!(landings("1 2", "impact", "a b", false)
            .unwrap_err()
            .starts_with("event_kinds has 1"));
        assert!(landings("x", "impact", "a", false).is_err());
        // Every closing: a's bounce at 1.1 and its landing at 1.2 count, b's second landing too.
        let every = landings(times, kinds, contacts, true).unwrap();
        let t: Vec<f64> = every.iter().map(|l| l.t).collect();
        assert_eq!(t, vec![0.5, 1.1, 2.0, 3.0, 5.0, 6.0]);
        assert_eq!(cycles(&every, "a").starts, vec![0.5, 1.1, 3.0, 6.0]);
    }
}
