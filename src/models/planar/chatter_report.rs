//! The chatter report: per state (a) and normal law, the outcome at every κ, the measured ratio
//! e of successive impact speeds beside the rigid bounce map's, whether the outcome depends on
//! the law, and for a forward chatter the accumulated bouncing time beside the rigid Zeno time
//! (C–V §3.3, §5.3). Figure: the impact speeds over the bounce index at the smallest κ. The
//! analysis is a pure function of the rows.

use super::PlanarChatter;
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::table::Row;
use crate::plot::style::format_small_parameter;
use crate::plot::{self, Figure, Mark, Panel, Series, REFERENCE};
use crate::report::law_legend;
use crate::report::markdown::provenance;
use crate::study::convergence::Convergence;
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;

/// One state under one law.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct ChatterRun {
    pub a: f64,
    pub law: String,
    pub damping: f64,
    /// The law's frictionless restitution r, if speed-independent.
    pub restitution: Option<f64>,
    /// κ of the ladder, decreasing, and at each: the outcome, e of the last two impacts, the
    /// largest impact speed, the number of lift-offs.
    pub kappa: Vec<f64>,
    pub outcomes: Vec<String>,
    pub e_last: Vec<Option<f64>>,
    pub max_impact_speed: Vec<Option<f64>>,
    pub lift_offs: Vec<Option<f64>>,
    /// The rigid bounce map's e: energetic at r = 1 (an elastic law's limit), and both laws at
    /// the law's r.
    pub e_elastic: Option<f64>,
    pub e_energetic: Option<f64>,
    pub e_poisson: Option<f64>,
    /// |e_last/e_elastic − 1| at the smallest κ, for an elastic law in reverse chatter.
    pub e_elastic_error: Option<f64>,
    /// The forward chatter: the first ratio of impact speeds, the time the bouncing lasted
    /// (from the first impact at t = 0 to the end of the last flight) and the rigid Zeno time,
    /// at the smallest κ.
    pub e_first: Option<f64>,
    pub zeno_time: Option<f64>,
    pub zeno_time_rigid: Option<f64>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct ChatterAnalysis {
    pub runs: Vec<ChatterRun>,
    /// States (a) whose outcome at the smallest κ differs between laws, and the count of states.
    pub law_dependent_states: Vec<f64>,
    pub law_dependent_count: usize,
    pub states: usize,
    /// The largest |e/e_elastic − 1| over the elastic laws in reverse chatter (smallest κ).
    pub elastic_e_max_error: Option<f64>,
    /// Runs with a damped law (r < 1) in reverse chatter (e > 1 at the smallest κ), and the
    /// smallest r among them.
    pub damped_reverse_chatter: usize,
    pub damped_reverse_chatter_min_restitution: Option<f64>,
    /// Runs in reverse chatter at the smallest κ, of all runs.
    pub reverse_chatter_runs: usize,
    pub runs_total: usize,
    /// Forward chatter: the largest |e_first/r − 1| and |zeno/zeno_rigid − 1| (smallest κ).
    pub forward_e_max_error: Option<f64>,
    pub zeno_time_max_error: Option<f64>,
}

/// A run's key across κ: (a, law, damping).
type RunKey = (String, String, String);

fn key(r: &Row) -> RunKey {
    (
        r.text("a").to_string(),
        r.text("law").to_string(),
        r.text("damping").to_string(),
    )
}

fn max_opt(it: impl Iterator<Item = f64>) -> Option<f64> {
    it.fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))))
}

/// The analysis of the rows.
pub(crate) fn analyse(rows: &[Row]) -> ChatterAnalysis {
    let mut groups: Vec<(RunKey, Vec<&Row>)> = Vec::new();
    for r in rows.iter().filter(|r| r.text("status") == "ok") {
        match groups.iter_mut().find(|(k, _)| *k == key(r)) {
            Some((_, v)) => v.push(r),
            None => groups.push((key(r), vec![r])),
        }
    }
    let mut runs = Vec::new();
    for ((a, law, damping), mut g) in groups {
        g.sort_by(|x, y| {
            y.number("kappa")
                .unwrap_or(0.0)
                .total_cmp(&x.number("kappa").unwrap_or(0.0))
        });
        let last = g[g.len() - 1];
        let outcomes: Vec<String> = g.iter().map(|r| r.text("outcome").to_string()).collect();
        let e_last: Vec<Option<f64>> = g.iter().map(|r| r.number("e_last")).collect();
        let e_elastic = last.number("e_elastic");
        let restitution = last.number("restitution");
        let reverse = last.text("outcome") == "reverse_chatter";
        let e_elastic_error = match (restitution, e_elastic, last.number("e_last")) {
            (Some(r), Some(want), Some(got)) if r == 1.0 && reverse => {
                Some((got / want - 1.0).abs())
            }
            _ => None,
        };
        runs.push(ChatterRun {
            a: a.parse().unwrap_or(f64::NAN),
            law,
            damping: damping.parse().unwrap_or(f64::NAN),
            restitution,
            kappa: g.iter().filter_map(|r| r.number("kappa")).collect(),
            outcomes,
            e_last,
            max_impact_speed: g.iter().map(|r| r.number("max_impact_speed")).collect(),
            lift_offs: g.iter().map(|r| r.number("lift_offs")).collect(),
            e_elastic,
            e_energetic: last.number("e_energetic"),
            e_poisson: last.number("e_poisson"),
            e_elastic_error,
            e_first: last.number("e_first"),
            // A forward chatter's run starts at its first impact (t = 0).
            zeno_time: last
                .number("zeno_time_rigid")
                .and(last.number("last_contact_end")),
            zeno_time_rigid: last.number("zeno_time_rigid"),
        });
    }
    let mut states: Vec<f64> = Vec::new();
    for r in &runs {
        if !states.contains(&r.a) {
            states.push(r.a);
        }
    }
    let final_outcome = |r: &ChatterRun| r.outcomes.last().cloned().unwrap_or_default();
    let law_dependent_states: Vec<f64> = states
        .iter()
        .copied()
        .filter(|&a| {
            let mut outs: Vec<String> = runs
                .iter()
                .filter(|r| r.a == a)
                .map(final_outcome)
                .collect();
            outs.dedup();
            outs.len() > 1
        })
        .collect();
    let reverse = |r: &&ChatterRun| final_outcome(r) == "reverse_chatter";
    let damped: Vec<&ChatterRun> = runs
        .iter()
        .filter(reverse)
        .filter(|r| r.restitution.is_some_and(|x| x < 1.0))
        .collect();
    ChatterAnalysis {
        law_dependent_count: law_dependent_states.len(),
        law_dependent_states,
        states: states.len(),
        elastic_e_max_error: max_opt(runs.iter().filter_map(|r| r.e_elastic_error)),
        damped_reverse_chatter: damped.len(),
        damped_reverse_chatter_min_restitution: damped
            .iter()
            .filter_map(|r| r.restitution)
            .reduce(f64::min),
        reverse_chatter_runs: runs.iter().filter(reverse).count(),
        runs_total: runs.len(),
        forward_e_max_error: max_opt(runs.iter().filter_map(|r| {
            r.zeno_time_rigid?;
            Some((r.e_first? / r.restitution? - 1.0).abs())
        })),
        zeno_time_max_error: max_opt(
            runs.iter()
                .filter_map(|r| Some((r.zeno_time? / r.zeno_time_rigid? - 1.0).abs())),
        ),
        runs,
    }
}

/// One panel per state: log |v⁻ₙ| over the bounce index n at the smallest κ, a series per law,
/// and the elastic law's rigid growth eⁿ through its first impact.
fn figure(rows: &[Row]) -> Option<Figure> {
    let smallest = rows
        .iter()
        .filter(|r| r.text("status") == "ok")
        .filter_map(|r| r.number("kappa"))
        .reduce(f64::min)?;
    let at: Vec<&Row> = rows
        .iter()
        .filter(|r| r.text("status") == "ok" && r.number("kappa") == Some(smallest))
        .collect();
    let mut states: Vec<&str> = Vec::new();
    let mut laws: Vec<(&str, &str)> = Vec::new();
    for r in &at {
        if !states.contains(&r.text("a")) {
            states.push(r.text("a"));
        }
        if !laws.contains(&(r.text("law"), r.text("damping"))) {
            laws.push((r.text("law"), r.text("damping")));
        }
    }
    let speeds = |r: &Row| -> Vec<f64> {
        r.text("impact_speeds")
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect()
    };
    let mut panels = Vec::new();
    for a in &states {
        let mut series = Vec::new();
        let mut reference: Option<(f64, f64, usize)> = None;
        for r in at.iter().filter(|r| r.text("a") == *a) {
            let v = speeds(r);
            let colour = laws
                .iter()
                .position(|l| *l == (r.text("law"), r.text("damping")))
                .unwrap_or(0);
            if reference.is_none() && r.number("restitution") == Some(1.0) && v.len() > 1 {
                if let Some(e) = r.number("e_elastic") {
                    reference = Some((v[v.len() - 1], e, v.len() - 1));
                }
            }
            series.push(Series {
                label: format!(
                    "{}: {}",
                    law_legend(r.text("law"), r.text("damping")),
                    r.text("outcome").replace('_', " ")
                ),
                points: v
                    .iter()
                    .enumerate()
                    .map(|(n, &s)| ((n + 1) as f64, s))
                    .collect(),
                mark: Mark::LineMarkers,
                color: colour,
            });
        }
        if let Some((v_last, e, n_last)) = reference {
            // eⁿ through the elastic run's last impact (its grown regime).
            series.push(Series {
                label: format!("rigid bounce map, energetic r = 1: e = {e:.4}"),
                points: (1..=n_last + 1)
                    .map(|n| (n as f64, v_last * e.powi(n as i32 - n_last as i32 - 1)))
                    .collect(),
                mark: Mark::Dashed,
                color: REFERENCE,
            });
        }
        series.retain(|s| !s.points.is_empty());
        panels.push(Panel {
            title: format!("a = {a}, κ = {}", format_small_parameter(smallest)),
            x_label: "impact n".into(),
            y_label: "impact speed |v⁻ₙ|".into(),
            log_x: false,
            log_y: true,
            legend_lower: false,
            series,
            bands: Vec::new(),
        });
    }
    let n = panels.len() as u32;
    Some(Figure {
        panels,
        columns: n.min(3) as usize,
        size: (620 * n.min(3), 520 * n.div_ceil(3)),
    })
}

fn sci(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{v:.4e}"))
}

pub fn write_report(
    spec: &Convergence<PlanarChatter>,
    rows: &[Row],
    dir: &Path,
) -> Result<(), RunError> {
    let an = analyse(rows);
    if let Some(fig) = figure(rows) {
        plot::save_captioned(&fig, "Impact speeds over the impact index per normal law at the smallest κ, one panel per a, with the rigid growth", dir, "chatter").map_err(crate::report::figure_error(dir))?;
    }
    write_atomically(
        &dir.join("analysis.json"),
        &crate::report::json::pretty(&an),
    )?;
    let p = &spec.params;
    let name = &spec.name;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {name}: chatter and reverse chatter under several normal laws\n"
    );
    let _ = writeln!(
        s,
        "{}; docs/oblique_impact.md. Planar contact b = {}, A = {}, B = {}, C = {}, μ = {}, \
         u0 = {}, v0 = {} ({}), to t = {}. e = |v⁻ₙ₊₁|/|v⁻ₙ| of the last two impacts; the \
         rigid e is the bounce map's (C–V (edef)) from the impact map at the law's \
         frictionless r. Figure: `chatter.png`.\n",
        provenance(name),
        p.b,
        p.tangential_mobility,
        p.cross_mobility,
        p.normal_mobility,
        p.mu,
        p.u0,
        p.v0,
        if p.v0 < 0.0 {
            "a start touching, moving in"
        } else {
            "a start in sustained slip S+ at its equilibrium penetration"
        },
        p.t_end
    );
    let _ = writeln!(
        s,
        "**C–V's statements** (§3.3, §5.3): with a slip → stick inside the impact e can exceed 1 \
         even for r < 1 (reverse chatter); reverse chatter can be triggered only at the end of a \
         slip phase, and whether it is, is decided by the compliant law (\"not uniformly \
         resolvable\"); for e < 1 the impacts accumulate in finite time, Σ t_n ∝ (1 − e)⁻¹.\n"
    );
    let _ = writeln!(
        s,
        "| a | law | c_d | r | outcome (largest → smallest κ) | lift-offs | e measured (smallest κ) | e rigid: elastic / energetic(r) / Poisson(r) | largest impact speed | bouncing time / rigid Zeno time |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|");
    for r in &an.runs {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} / {} / {} | {} | {} / {} |",
            r.a,
            r.law,
            r.damping,
            r.restitution.map_or("–".into(), |x| format!("{x:.4}")),
            r.outcomes.join(", "),
            r.lift_offs
                .last()
                .copied()
                .flatten()
                .map_or("–".into(), |x| x.to_string()),
            sci(r.e_last.last().copied().flatten()),
            sci(r.e_elastic),
            sci(r.e_energetic),
            sci(r.e_poisson),
            sci(r.max_impact_speed.last().copied().flatten()),
            sci(r.zeno_time),
            sci(r.zeno_time_rigid),
        );
    }
    let _ = writeln!(
        s,
        "\n**Measured.** Reverse chatter in {} of {} runs at the smallest κ; the outcome depends \
         on the law at a = {:?} ({} of {} states). Elastic laws: e within {} of the rigid \
         energetic r = 1 bounce map. Damped laws (r < 1) in reverse chatter: {} (smallest r {}). \
         Forward chatter: e_first/r − 1 up to {}, bouncing time/Zeno time − 1 up to {}.",
        an.reverse_chatter_runs,
        an.runs_total,
        an.law_dependent_states,
        an.law_dependent_states.len(),
        an.states,
        sci(an.elastic_e_max_error),
        an.damped_reverse_chatter,
        sci(an.damped_reverse_chatter_min_restitution),
        sci(an.forward_e_max_error),
        sci(an.zeno_time_max_error),
    );
    write_atomically(&dir.join(crate::report::markdown::SUMMARY_MD), &s)
}
