//! The oblique impact's report: which rigid impact law the compliant impact selects as κ → 0
//! (per contact and normal law: the largest distance of the compliant (u⁺, v⁺) from each law's
//! over the incidence grid, at every κ, and its rate), the slip reversals, and C–V's Fig.
//! impactmap redrawn (paths in the (u, v) plane with the region boundaries, and the outgoing
//! velocities over the incidence u⁻/|v⁻|). The analysis is a pure function of the rows.

use super::PlanarObliqueImpact;
use crate::analysis::fit::power_law;
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::table::Row;
use crate::plot::{self, Figure, Mark, Panel, Series, REFERENCE};
use crate::report::law_legend;
use crate::report::markdown::provenance;
use crate::rigid::oblique_impact::{ImpactContact, RestitutionLaw};
use crate::study::convergence::Convergence;
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;

/// A rigid law is selected when the compliant outcome lies within this distance of it (per
/// |v⁻|) at the smallest κ over the whole incidence grid.
pub(crate) const SELECTION_TOLERANCE: f64 = 1e-3;

/// One contact under one normal law.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct LawVerdict {
    /// `A = …, B = …, C = …, μ = …`.
    pub contact: String,
    pub law: String,
    pub damping: f64,
    /// The rigid laws' coefficient (the normal law's frictionless restitution), if it has one.
    pub restitution: Option<f64>,
    /// κ of the ladder (decreasing) and, at each, the largest distance over the grid.
    pub kappa: Vec<f64>,
    pub max_d_energetic: Vec<f64>,
    pub max_d_poisson: Vec<f64>,
    /// max d ∝ κ^p over the ladder (None with fewer than three κ or a zero distance).
    pub rate_energetic: Option<f64>,
    pub rate_poisson: Option<f64>,
    /// "energetic", "poisson", "both" or "neither" at the smallest κ.
    pub selected: String,
    /// Runs (at the smallest κ) whose slip reversed, u⁻u⁺ < 0 with |u⁺| above the selection
    /// tolerance (times |v⁻|), compliant and rigid energetic.
    pub reversals: usize,
    pub reversals_energetic: usize,
    pub runs: usize,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct ImpactAnalysis {
    pub verdicts: Vec<LawVerdict>,
    /// The largest distance to the energetic law at the smallest κ over the elastic laws
    /// (restitution 1), and to the Poisson law over the damped ones (where Poisson and
    /// energetic differ most).
    pub elastic_max_d_energetic: Option<f64>,
    pub elastic_max_d_poisson: Option<f64>,
    pub damped_min_of_max_d: Option<f64>,
    /// Compliant reversals at the smallest κ in contacts with k± < 0, and elsewhere.
    pub reversals_with_negative_k: usize,
    pub reversals_without_negative_k: usize,
    pub selection_tolerance: f64,
}

fn contact_key(r: &Row) -> String {
    format!(
        "A = {}, B = {}, C = {}, μ = {}",
        r.text("A"),
        r.text("B"),
        r.text("C"),
        r.text("mu")
    )
}

fn law_key(r: &Row) -> (String, String) {
    (r.text("law").to_string(), r.text("damping").to_string())
}

fn contact_of(r: &Row) -> Option<ImpactContact> {
    Some(ImpactContact {
        tangential_mobility: r.number("A")?,
        cross_mobility: r.number("B")?,
        normal_mobility: r.number("C")?,
        mu: r.number("mu")?,
    })
}

/// A group's key: the contact and the law (name, damping).
type GroupKey = (String, (String, String));

/// The groups (contact, law) in order of first appearance, with their ok rows.
fn groups(rows: &[Row]) -> Vec<(GroupKey, Vec<&Row>)> {
    let mut out: Vec<(GroupKey, Vec<&Row>)> = Vec::new();
    for r in rows.iter().filter(|r| r.text("status") == "ok") {
        let key = (contact_key(r), law_key(r));
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(r),
            None => out.push((key, vec![r])),
        }
    }
    out
}

fn kappas(rows: &[&Row]) -> Vec<f64> {
    let mut k: Vec<f64> = rows.iter().filter_map(|r| r.number("kappa")).collect();
    k.sort_by(|a, b| b.total_cmp(a));
    k.dedup();
    k
}

fn max_at(rows: &[&Row], kappa: f64, column: &str) -> f64 {
    rows.iter()
        .filter(|r| r.number("kappa") == Some(kappa))
        .filter_map(|r| r.number(column))
        .fold(0.0, f64::max)
}

/// The analysis of the rows.
pub(crate) fn analyse(rows: &[Row]) -> ImpactAnalysis {
    let mut verdicts = Vec::new();
    for ((contact, (law, damping)), group) in groups(rows) {
        let ladder = kappas(&group);
        let Some(&smallest) = ladder.last() else {
            continue;
        };
        let series =
            |col: &str| -> Vec<f64> { ladder.iter().map(|&k| max_at(&group, k, col)).collect() };
        let (de, dp) = (series("d_energetic"), series("d_poisson"));
        let rate = |d: &[f64]| {
            (ladder.len() >= 3 && d.iter().all(|&x| x > 0.0))
                .then(|| power_law(&ladder, d).map(|f| f.slope))
                .flatten()
        };
        let last = |d: &[f64]| d.last().copied().unwrap_or(f64::INFINITY);
        let has_rigid = group.iter().any(|r| r.number("d_energetic").is_some());
        let (e_ok, p_ok) = (
            has_rigid && last(&de) < SELECTION_TOLERANCE,
            has_rigid && last(&dp) < SELECTION_TOLERANCE,
        );
        let selected = match (e_ok, p_ok) {
            (true, true) => "both",
            (true, false) => "energetic",
            (false, true) => "poisson",
            (false, false) if has_rigid => "neither",
            _ => "no rigid law (restitution depends on the speed)",
        };
        let at_smallest: Vec<&&Row> = group
            .iter()
            .filter(|r| r.number("kappa") == Some(smallest))
            .collect();
        let reversed = |col: &str| {
            at_smallest
                .iter()
                .filter(|r| {
                    // A stick's u⁺ is zero to the integrator's error: a reversal must exceed it.
                    let (m, p, v) = (r.number("u_minus"), r.number(col), r.number("v_minus"));
                    matches!((m, p, v), (Some(m), Some(p), Some(v))
                        if m * p < 0.0 && p.abs() > SELECTION_TOLERANCE * v.abs())
                })
                .count()
        };
        verdicts.push(LawVerdict {
            contact,
            law,
            damping: damping.parse().unwrap_or(f64::NAN),
            restitution: group[0].number("restitution"),
            kappa: ladder.clone(),
            rate_energetic: rate(&de),
            rate_poisson: rate(&dp),
            max_d_energetic: de,
            max_d_poisson: dp,
            selected: selected.to_string(),
            reversals: reversed("u_plus"),
            reversals_energetic: reversed("u_plus_energetic"),
            runs: at_smallest.len(),
        });
    }
    let last = |v: &[f64]| v.last().copied();
    let fold = |it: &mut dyn Iterator<Item = f64>| {
        it.fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))))
    };
    let elastic: Vec<&LawVerdict> = verdicts
        .iter()
        .filter(|v| v.restitution == Some(1.0))
        .collect();
    let damped: Vec<&LawVerdict> = verdicts
        .iter()
        .filter(|v| v.restitution.is_some_and(|r| r < 1.0))
        .collect();
    let negative_k = |v: &LawVerdict| {
        rows.iter()
            .find(|r| contact_key(r) == v.contact)
            .is_some_and(|r| {
                r.number("k_plus").is_some_and(|k| k < 0.0)
                    || r.number("k_minus").is_some_and(|k| k < 0.0)
            })
    };
    ImpactAnalysis {
        elastic_max_d_energetic: fold(&mut elastic.iter().filter_map(|v| last(&v.max_d_energetic))),
        elastic_max_d_poisson: fold(&mut elastic.iter().filter_map(|v| last(&v.max_d_poisson))),
        damped_min_of_max_d: damped
            .iter()
            .filter_map(|v| Some(last(&v.max_d_energetic)?.min(last(&v.max_d_poisson)?)))
            .reduce(f64::min),
        reversals_with_negative_k: verdicts
            .iter()
            .filter(|v| negative_k(v))
            .map(|v| v.reversals)
            .sum(),
        reversals_without_negative_k: verdicts
            .iter()
            .filter(|v| !negative_k(v))
            .map(|v| v.reversals)
            .sum(),
        selection_tolerance: SELECTION_TOLERANCE,
        verdicts,
    }
}

/// Panels per contact: the rigid paths in the (u, v) plane with the region boundaries (the
/// first law's restitution), then u⁺ and v⁺ over the incidence at the smallest κ.
fn figure(rows: &[Row]) -> Option<Figure> {
    let groups = groups(rows);
    let mut contacts: Vec<String> = Vec::new();
    for ((c, _), _) in &groups {
        if !contacts.contains(c) {
            contacts.push(c.clone());
        }
    }
    let mut laws: Vec<(String, String)> = Vec::new();
    for ((_, l), _) in &groups {
        if !laws.contains(l) {
            laws.push(l.clone());
        }
    }
    let mut panels = Vec::new();
    for c in &contacts {
        let in_contact: Vec<&(GroupKey, Vec<&Row>)> =
            groups.iter().filter(|((k, _), _)| k == c).collect();
        let first = in_contact.first()?.1.first()?;
        let contact = contact_of(first)?;
        // The paths at the first law's restitution, energetic, from v⁻ = −1 (C–V Fig. impactmap).
        let r = first.number("restitution").unwrap_or(1.0);
        let mut paths = Vec::new();
        let mut labelled = false;
        for i in 0..7 {
            let u = -3.0 + f64::from(i);
            if let Ok(o) = contact.impact(u, -1.0, RestitutionLaw::Energetic(r)) {
                paths.push(Series {
                    label: if labelled {
                        String::new()
                    } else {
                        format!("energetic path, r = {r:.3}")
                    },
                    points: contact.path_points(u, -1.0, &o),
                    mark: Mark::LineMarkers,
                    color: 0,
                });
                labelled = true;
            }
        }
        for (k, (w, what)) in contact.incidence_boundaries(r).into_iter().enumerate() {
            paths.push(Series {
                label: if k < 2 {
                    format!("boundary: {what}")
                } else {
                    String::new()
                },
                points: vec![(0.0, 0.0), (1.2 * w, -1.2)],
                mark: if what.contains("compression") {
                    Mark::Dashed
                } else {
                    Mark::Dotted
                },
                color: REFERENCE,
            });
        }
        panels.push(Panel {
            title: format!("{c}: rigid paths (u, v) from v⁻ = −1"),
            x_label: "tangential velocity u".into(),
            y_label: "normal velocity v".into(),
            log_x: false,
            log_y: false,
            legend_lower: false,
            series: paths,
            bands: Vec::new(),
        });
        for (column, symbol) in [("u_plus", "u⁺"), ("v_plus", "v⁺")] {
            let mut series = Vec::new();
            let mut drawn_r: Vec<String> = Vec::new();
            for ((_, law), group) in &in_contact {
                let colour = laws.iter().position(|l| l == law).unwrap_or(0) + 1;
                let smallest = kappas(group).last().copied();
                let at: Vec<&&Row> = group
                    .iter()
                    .filter(|r| r.number("kappa") == smallest)
                    .collect();
                let points = |col: &str| -> Vec<(f64, f64)> {
                    at.iter()
                        .filter_map(|r| {
                            Some((
                                r.number("u_minus")? / -r.number("v_minus")?,
                                r.number(col)? / -r.number("v_minus")?,
                            ))
                        })
                        .collect()
                };
                let rest = at
                    .first()
                    .map(|r| r.text("restitution").to_string())
                    .unwrap_or_default();
                if !rest.is_empty() && !drawn_r.contains(&rest) {
                    drawn_r.push(rest.clone());
                    let r: f64 = rest.parse().unwrap_or(f64::NAN);
                    series.push(Series::new(
                        format!("energetic, r = {r:.3}"),
                        points(&format!("{column}_energetic")),
                        Mark::Line,
                        colour,
                    ));
                    series.push(Series::new(
                        format!("Poisson, r = {r:.3}"),
                        points(&format!("{column}_poisson")),
                        Mark::Dashed,
                        colour,
                    ));
                }
                series.push(Series::new(
                    format!("compliant {}", law_legend(&law.0, &law.1)),
                    points(column),
                    Mark::Markers,
                    colour,
                ));
            }
            series.retain(|s| !s.points.is_empty());
            panels.push(Panel {
                title: format!("{c}: {symbol}/|v⁻|, smallest κ"),
                x_label: "incidence u⁻/|v⁻|".into(),
                y_label: format!("{symbol}/|v⁻|"),
                log_x: false,
                log_y: false,
                legend_lower: column == "u_plus",
                series,
                bands: Vec::new(),
            });
        }
    }
    let n = contacts.len() as u32;
    Some(Figure {
        panels,
        columns: 3,
        size: (1800, 560 * n.max(1)),
    })
}

fn opt(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{v:.3e}"))
}

pub fn write_report(
    spec: &Convergence<PlanarObliqueImpact>,
    rows: &[Row],
    dir: &Path,
) -> Result<(), RunError> {
    let a = analyse(rows);
    if let Some(fig) = figure(rows) {
        plot::save_captioned(&fig, "Per contact: the rigid energetic paths in the (u, v) plane, then u⁺ and v⁺ over the incidence u⁻/|v⁻|, compliant against the rigid laws", dir, "impact_map").map_err(crate::report::figure_error(dir))?;
    }
    write_atomically(&dir.join("analysis.json"), &crate::report::json::pretty(&a))?;
    let name = &spec.name;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {name}: the oblique impact, compliant against the rigid impact laws\n"
    );
    let _ = writeln!(
        s,
        "{}; docs/oblique_impact.md. Each run starts touching with (u⁻, v⁻ = {}) and ends when the \
         compliant contact first opens (a = {}, b = {}); the rigid laws (C–V §3.2) use the normal \
         law's frictionless restitution r. d = |(u⁺, v⁺) − rigid|/|v⁻|, its largest value over \
         the incidence grid at each κ. Figure: `impact_map.png` (left: C–V's Fig. impactmap, \
         rigid energetic paths and the region boundaries; middle, right: u⁺ and v⁺).\n",
        provenance(name),
        spec.params.v_minus,
        spec.params.a,
        spec.params.b
    );
    let _ = writeln!(
        s,
        "**C–V's statement** (§3.2): the impact map differs between the energetic and the \
         Poisson law wherever a slip stops inside the impact; slip reverses (u⁺u⁻ < 0) only \
         when k± < 0; which law (if any) a compliant contact realises is the question.\n"
    );
    let _ = writeln!(
        s,
        "| contact | law | c_d | r | max d energetic (largest → smallest κ) | rate p | max d Poisson | rate p | selected | reversals (compliant / rigid) |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|");
    for v in &a.verdicts {
        let list = |d: &[f64]| {
            d.iter()
                .map(|x| format!("{x:.2e}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} of {} |",
            v.contact,
            v.law,
            v.damping,
            v.restitution.map_or("–".into(), |r| format!("{r:.4}")),
            list(&v.max_d_energetic),
            v.rate_energetic.map_or("–".into(), |p| format!("{p:.3}")),
            list(&v.max_d_poisson),
            v.rate_poisson.map_or("–".into(), |p| format!("{p:.3}")),
            v.selected,
            v.reversals,
            v.reversals_energetic,
            v.runs
        );
    }
    let _ = writeln!(
        s,
        "\n**Verdict.** Elastic laws (r = 1): largest distance to the energetic map {} and to \
         Poisson's {} at the smallest κ. Damped laws: the nearer rigid law is still {} away \
         (largest over the grid, the best of the two). Compliant slip reversals: {} in contacts \
         with k± < 0, {} elsewhere. Selection tolerance {:e}.",
        opt(a.elastic_max_d_energetic),
        opt(a.elastic_max_d_poisson),
        opt(a.damped_min_of_max_d),
        a.reversals_with_negative_k,
        a.reversals_without_negative_k,
        SELECTION_TOLERANCE
    );
    write_atomically(&dir.join(crate::report::markdown::SUMMARY_MD), &s)
}
