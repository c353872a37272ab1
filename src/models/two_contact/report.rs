//! summary.md, analysis.json and the figures of a two-contact experiment, from its rows
//! (docs/two_contact.md §4): the outcomes on the circle around S+S+ and where they switch, the
//! bisected crossings next to the stable-manifold prediction, the cycles' periods and open
//! fractions, and the agreement of the integrators.

use super::classification::{class_code, consistent_modes, tabulate, Classification, Shade, MODES};
use super::linear::SlipSlip;
use super::spec::TwoContactStudy;
use super::study::circle_angle;
use super::system::TwoContactSystem;
use crate::experiment::runner::{write_atomically, Plan, RunError, RUNS_CSV};
use crate::experiment::table::Row;
use crate::plot::{self, Figure, Mark, Panel, Series, REFERENCE};
use crate::report::markdown::{fixed, optional, provenance};
use serde::Serialize;
use std::collections::BTreeMap;
use std::f64::consts::PI;
use std::fmt::Write;
use std::path::Path;

/// The report's numbers.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Checks {
    pub states: Vec<StateCheck>,
    pub circles: Vec<CircleCheck>,
    pub crossings: Vec<CrossingCheck>,
    pub cycles: Vec<CycleCheck>,
    /// Largest |θ_bisected − θ_predicted| over every crossing row.
    pub max_crossing_offset: Option<f64>,
    /// Per (state, law, start): the largest difference between integrators of the bisected
    /// angle or of the openings' times.
    pub integrator_agreement: Vec<(String, f64)>,
    /// C–V's Table tab:classification computed from its definition on a grid of
    /// [`CLASSIFICATION_GRID`]³ directions, against the printed Table.
    pub classification: Option<Classification>,
}

/// Directions per angle of the classification's grid.
pub const CLASSIFICATION_GRID: usize = 96;

#[derive(Clone, Debug, Serialize)]
pub struct StateCheck {
    pub state: String,
    pub gamma1_over_pi: f64,
    pub gamma2_over_pi: f64,
    pub beta_over_pi: f64,
    pub forces: Option<[f64; 2]>,
    pub eigenvalues: Option<[(f64, f64); 4]>,
    /// C–V's class s₁s₂s₃ of (P, b) and its consistent modes (§6.1).
    pub class_code: Option<u16>,
    pub consistent_modes: Vec<&'static str>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CircleCheck {
    pub state: String,
    pub law: String,
    pub integrator: String,
    /// (outcome, count).
    pub outcomes: Vec<(String, usize)>,
    /// Scan intervals (θ_i, θ_{i+1}) where the outcome changes, with the two outcomes.
    pub switches: Vec<(f64, f64, String, String)>,
    /// Starts whose outcome is the one the linear side wᵀ(x − x*) predicts (the side → outcome
    /// map read from the majority).
    pub linear_side_agrees: usize,
    pub points: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct CrossingCheck {
    pub state: String,
    pub law: String,
    pub integrator: String,
    pub predicted: f64,
    pub bisected: f64,
    pub offset: f64,
    pub width: f64,
    pub below: String,
    pub above: String,
    pub min_force_on_manifold: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CycleCheck {
    pub state: String,
    pub law: String,
    pub integrator: String,
    pub p22: f64,
    pub gamma2_over_pi: f64,
    pub outcome: String,
    pub mode_end: String,
    pub cycle_contact: Option<f64>,
    pub period: Option<f64>,
    pub period_spread: Option<f64>,
    pub open_fraction_2: Option<f64>,
    pub openings_2: Option<f64>,
    pub first_open_s: Option<f64>,
    /// (s at the later opening, interval) for every pair of successive openings.
    #[serde(skip)]
    pub intervals: Vec<(f64, f64)>,
}

fn system_of(r: &Row) -> Option<TwoContactSystem> {
    let n = |c: &str| r.number(c);
    Some(TwoContactSystem {
        free_accel: [n("b1")?, n("b2")?],
        response: [[n("P11")?, n("P12")?], [n("P21")?, n("P22")?]],
        stiffness: [n("k1")?, n("k2")?],
        damping: [n("q1")?, n("q2")?],
    })
}

/// The columns p₁, p₂ of P.
fn columns(s: &TwoContactSystem) -> [[f64; 2]; 2] {
    let p = s.response;
    [[p[0][0], p[1][0]], [p[0][1], p[1][1]]]
}

fn openings(r: &Row) -> Vec<f64> {
    r.text("s_openings_cycle")
        .split(';')
        .filter_map(|t| t.parse().ok())
        .collect()
}

pub fn checks(rows: &[Row]) -> Checks {
    let ok: Vec<&Row> = rows.iter().filter(|r| r.text("status") == "ok").collect();
    let mut c = Checks::default();
    let mut seen = Vec::new();
    for r in rows {
        let state = r.text("state").to_string();
        if seen.contains(&state) {
            continue;
        }
        seen.push(state.clone());
        let system = system_of(r);
        let e = system.as_ref().and_then(SlipSlip::of);
        c.states.push(StateCheck {
            state,
            gamma1_over_pi: r.number("gamma1_over_pi").unwrap_or(f64::NAN),
            gamma2_over_pi: r.number("gamma2_over_pi").unwrap_or(f64::NAN),
            beta_over_pi: r.number("beta_over_pi").unwrap_or(f64::NAN),
            forces: e.map(|e| e.forces),
            eigenvalues: e.map(|e| e.eigenvalues),
            class_code: system.as_ref().and_then(|s| {
                let [p1, p2] = columns(s);
                class_code(p1, p2, s.free_accel)
                    .map(|c| 100 * u16::from(c[0]) + 10 * u16::from(c[1]) + u16::from(c[2]))
            }),
            consistent_modes: system.as_ref().map_or(Vec::new(), |s| {
                let [p1, p2] = columns(s);
                let modes = consistent_modes(p1, p2, s.free_accel);
                (0..4).filter(|&m| modes[m]).map(|m| MODES[m]).collect()
            }),
        });
    }
    // The circle scans, per (state, law, integrator), in angle order.
    let mut circles: BTreeMap<(String, String, String), Vec<&Row>> = BTreeMap::new();
    for r in ok.iter().filter(|r| r.text("start") == "circle") {
        circles.entry(key(r)).or_default().push(r);
    }
    for ((state, law, integrator), mut rs) in circles {
        rs.sort_by(|a, b| {
            let t = |r: &Row| r.number("theta").unwrap_or(f64::NAN);
            t(a).total_cmp(&t(b))
        });
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for r in &rs {
            *counts.entry(r.text("outcome").to_string()).or_default() += 1;
        }
        let n = rs.len();
        let mut switches = Vec::new();
        for i in 0..n {
            let (a, b) = (rs[i], rs[(i + 1) % n]);
            if a.text("outcome") != b.text("outcome") {
                let t0 = a.number("theta").unwrap_or(f64::NAN);
                let t1 = if i + 1 == n {
                    circle_angle(n, n)
                } else {
                    b.number("theta").unwrap_or(f64::NAN)
                };
                switches.push((t0, t1, a.text("outcome").into(), b.text("outcome").into()));
            }
        }
        // The outcome most often seen on the positive side: the side → outcome map.
        let mut by_side: BTreeMap<(String, String), usize> = BTreeMap::new();
        for r in &rs {
            *by_side
                .entry((
                    r.text("linear_side").to_string(),
                    r.text("outcome").to_string(),
                ))
                .or_default() += 1;
        }
        let best = |side: &str| {
            by_side
                .iter()
                .filter(|((s, _), _)| s == side)
                .max_by_key(|(_, &k)| k)
                .map(|((_, o), _)| o.clone())
        };
        let (pos, neg) = (best("1"), best("-1"));
        let linear_side_agrees = rs
            .iter()
            .filter(|r| {
                let expected = if r.text("linear_side") == "1" {
                    &pos
                } else {
                    &neg
                };
                expected.as_deref() == Some(r.text("outcome"))
            })
            .count();
        c.circles.push(CircleCheck {
            state,
            law,
            integrator,
            outcomes: counts.into_iter().collect(),
            switches,
            linear_side_agrees: if pos != neg { linear_side_agrees } else { 0 },
            points: n,
        });
    }
    for r in ok.iter().filter(|r| r.text("start") == "crossing") {
        let (state, law, integrator) = key(r);
        c.crossings.push(CrossingCheck {
            state,
            law,
            integrator,
            predicted: r.number("theta_predicted").unwrap_or(f64::NAN),
            bisected: r.number("theta_bisected").unwrap_or(f64::NAN),
            offset: r.number("theta_offset").unwrap_or(f64::NAN),
            width: r.number("bracket_width").unwrap_or(f64::NAN),
            below: r.text("side_below").into(),
            above: r.text("side_above").into(),
            min_force_on_manifold: r.number("min_force_on_manifold"),
        });
    }
    c.max_crossing_offset = c.crossings.iter().map(|x| x.offset.abs()).reduce(f64::max);
    for r in ok.iter().filter(|r| r.text("start") == "given") {
        let (state, law, integrator) = key(r);
        let t = openings(r);
        c.cycles.push(CycleCheck {
            state,
            law,
            integrator,
            p22: r.number("P22").unwrap_or(f64::NAN),
            gamma2_over_pi: r.number("gamma2_over_pi").unwrap_or(f64::NAN),
            outcome: r.text("outcome").into(),
            mode_end: r.text("mode_end").into(),
            cycle_contact: r.number("cycle_contact"),
            period: r.number("period"),
            period_spread: r.number("period_spread"),
            open_fraction_2: r.number("open_fraction_2"),
            openings_2: r.number("openings_2"),
            first_open_s: r.number("first_open_s"),
            intervals: t.windows(2).map(|w| (w[1], w[1] - w[0])).collect(),
        });
    }
    // Integrator agreement: the same row under different integrators.
    let mut groups: BTreeMap<String, Vec<&Row>> = BTreeMap::new();
    for r in &ok {
        let id = format!(
            "{} · {} · {} {}{}",
            r.text("state"),
            r.text("law"),
            r.text("start"),
            r.text("theta"),
            r.text("theta_predicted")
        );
        groups.entry(id).or_default().push(r);
    }
    for (id, rs) in groups.into_iter().filter(|(_, rs)| rs.len() > 1) {
        let mut worst = 0.0f64;
        for pair in rs.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            for col in ["theta_bisected", "first_open_s", "period"] {
                if let (Some(x), Some(y)) = (a.number(col), b.number(col)) {
                    worst = worst.max((x - y).abs());
                }
            }
            let (ta, tb) = (openings(a), openings(b));
            if ta.len() == tb.len() {
                for (x, y) in ta.iter().zip(&tb) {
                    worst = worst.max((x - y).abs());
                }
            } else {
                worst = f64::INFINITY;
            }
        }
        c.integrator_agreement.push((id, worst));
    }
    c.classification = Some(tabulate(CLASSIFICATION_GRID));
    c
}

fn key(r: &Row) -> (String, String, String) {
    (
        r.text("state").into(),
        r.text("law").into(),
        r.text("integrator").into(),
    )
}

/// summary.md, analysis.json and the figures of the run in `dir`, from its runs.csv.
pub fn write_report(spec: &TwoContactStudy, dir: &Path) -> Result<(), RunError> {
    let rows = &crate::experiment::store::read_rows(&dir.join(RUNS_CSV), &spec.columns())?;
    let c = checks(rows);
    crate::report::write_analysis(dir, &c)?;
    // The runs behind the circle and the cycle figures, after what each shows.
    let runs = format!(
        "the two-contact fast dynamics (Champneys–Várkonyi §4), integrators {}, rtol {}, atol {}, \
         to s = {}",
        spec.solver
            .integrators
            .iter()
            .map(|k| k.name())
            .collect::<Vec<_>>()
            .join(", "),
        plot::style::format_small_parameter(spec.solver.rtol),
        plot::style::format_small_parameter(spec.solver.atol),
        spec.solver.window_scaled.unwrap_or(f64::NAN)
    );
    let mut figures = Vec::new();
    if !c.circles.is_empty() {
        let caption = format!(
            "The outcome of each start on a circle around S+S+ and its first opening against the \
             start angle: {runs}"
        );
        plot::save_captioned(&circle_figure(rows), &caption, dir, "circle")
            .map_err(crate::report::figure_error(dir))?;
        figures.push("circle.png");
    }
    if c.cycles.iter().any(|x| x.intervals.len() > 1) {
        let caption = format!(
            "The interval between successive openings of contact 2 and its convergence: {runs}"
        );
        plot::save_captioned(&cycle_figure(&c), &caption, dir, "cycle")
            .map_err(crate::report::figure_error(dir))?;
        figures.push("cycle.png");
    }
    if let Some(k) = &c.classification {
        plot::save_captioned(
            &classification_figure(k),
            "One member of each dual pair of classes s₁s₂, at a representative pair of \
             directions; the −b directions are the middles of the subclasses s₃ = 1, 2, … \
             counter-clockwise from the positive first axis",
            dir,
            "classification",
        )
        .map_err(crate::report::figure_error(dir))?;
        figures.push("classification.png");
    }
    write_atomically(
        &dir.join(crate::report::markdown::SUMMARY_MD),
        &render(&spec.name, &c, &figures),
    )
}

/// C–V's Fig. classification, computed: per printed class, p₁ and p₂ at the class's
/// representative directions, and −b at the middle of each subclass s₃, its line style
/// saying how many modes are consistent there.
fn classification_figure(k: &Classification) -> Figure {
    let ray = |angle: f64, length: f64| (length * angle.cos(), length * angle.sin());
    let rays = |angles: &mut dyn Iterator<Item = f64>| -> Vec<(f64, f64)> {
        angles.flat_map(|a| [(0.0, 0.0), ray(a, 0.75)]).collect()
    };
    let panels = k
        .class_properties
        .iter()
        .map(|c| {
            let dual = super::classification::PAPER_TABLE
                .iter()
                .find(|row| row.0 == c.class)
                .map_or(c.class, |row| row.1);
            let (g1, g2) = c.representative;
            let with = |n: &dyn Fn(usize) -> bool| {
                rays(
                    &mut c
                        .subclass_directions
                        .iter()
                        .filter(|(_, modes)| n(*modes))
                        .map(|(beta, _)| *beta),
                )
            };
            let series = vec![
                Series::new(
                    "coordinate axes",
                    vec![(-1.0, 0.0), (1.0, 0.0), (0.0, 0.0), (0.0, 1.0), (0.0, -1.0)],
                    Mark::Dotted,
                    REFERENCE,
                ),
                Series::new("p₁", vec![(0.0, 0.0), ray(g1, 1.0)], Mark::Line, 0),
                Series::new("p₂", vec![(0.0, 0.0), ray(g2, 1.0)], Mark::Line, 1),
                Series::new(String::new(), vec![ray(g1, 1.0)], Mark::Markers, 0),
                Series::new(String::new(), vec![ray(g2, 1.0)], Mark::Markers, 1),
                Series::new(
                    "−b: one mode consistent",
                    with(&|m| m == 1),
                    Mark::Dashed,
                    2,
                ),
                Series::new(
                    "−b: several (indeterminate)",
                    with(&|m| m >= 2),
                    Mark::Dashed,
                    3,
                ),
                Series::new(
                    "−b: none (inconsistent)",
                    with(&|m| m == 0),
                    Mark::Dotted,
                    5,
                ),
            ];
            Panel {
                title: if dual == c.class {
                    format!("class {} (self-dual)", c.class)
                } else {
                    format!("class {} (dual {dual})", c.class)
                },
                x_label: String::new(),
                y_label: String::new(),
                log_x: false,
                log_y: false,
                legend_lower: false,
                series,
                bands: Vec::new(),
            }
        })
        .collect();
    Figure {
        panels,
        columns: 4,
        size: (1600, 1750),
    }
}

/// A contact law as a figure names it: what it does, not the spec's key (`literal`,
/// `harness`; docs/two_contact.md).
fn law_text(law: &str) -> String {
    match law {
        "literal" => "C–V's law at any gap".into(),
        "harness" => "the law only while closed".into(),
        other => format!("{other} law"),
    }
}

/// Left: the first state's starts on its circle in (Y1 − Y1*, Y2 − Y2*) by outcome, with the
/// stable manifold's trace in the plane V = 0 and the bisected crossings. Right: the first
/// opening's time against θ, which grows without bound at the crossings, per state and law.
fn circle_figure(rows: &[Row]) -> Figure {
    let ok: Vec<&Row> = rows.iter().filter(|r| r.text("status") == "ok").collect();
    let first_integrator = ok.first().map(|r| r.text("integrator").to_string());
    let first_law = ok.first().map(|r| r.text("law").to_string());
    let first_state = ok.first().map(|r| r.text("state").to_string());
    let mine = |r: &&&Row| Some(r.text("integrator").to_string()) == first_integrator;
    let every_circle: Vec<&&Row> = ok
        .iter()
        .filter(|r| r.text("start") == "circle")
        .filter(mine)
        .collect();
    // Each state has its own equilibrium and manifold: the left panel draws the first one's.
    let circle: Vec<&&Row> = every_circle
        .iter()
        .copied()
        .filter(|r| Some(r.text("state").to_string()) == first_state)
        .collect();
    let mut outcomes: Vec<String> = circle
        .iter()
        .map(|r| r.text("outcome").to_string())
        .collect();
    outcomes.sort();
    outcomes.dedup();
    let star = circle.first().and_then(|r| {
        let s = system_of(r)?;
        SlipSlip::of(&s)
    });
    let radius = circle
        .iter()
        .find_map(|r| {
            Some((r.number("Y1_0")? - star?.depth[0]).hypot(r.number("Y2_0")? - star?.depth[1]))
        })
        .unwrap_or(1.0);
    let mut left = Vec::new();
    for (i, o) in outcomes.iter().enumerate() {
        let points = circle
            .iter()
            .filter(|r| r.text("outcome") == o && Some(r.text("law").to_string()) == first_law)
            .filter_map(|r| {
                let e = star?;
                Some((
                    r.number("Y1_0")? - e.depth[0],
                    r.number("Y2_0")? - e.depth[1],
                ))
            })
            .collect();
        left.push(Series {
            label: o.clone(),
            points,
            mark: Mark::Markers,
            color: i,
        });
    }
    if let Some(w) = star.and_then(|e| e.left_eigenvector) {
        // The trace of wᵀ(x − x*) = 0 in V = 0: the line orthogonal to w_Y.
        let d = (-w[1], w[0]);
        let norm = d.0.hypot(d.1);
        let l = radius / norm;
        left.push(Series::new(
            "S+S+ stable manifold",
            vec![(-l * d.0, -l * d.1), (l * d.0, l * d.1)],
            Mark::Dashed,
            REFERENCE,
        ));
    }
    let bisected: Vec<(f64, f64)> = ok
        .iter()
        .filter(|r| r.text("start") == "crossing")
        .filter(mine)
        .filter(|r| Some(r.text("state").to_string()) == first_state)
        .filter_map(|r| {
            let t = r.number("theta_bisected")?;
            Some((radius * t.cos(), radius * t.sin()))
        })
        .collect();
    left.push(Series::new(
        "outcome boundary (by bisection)",
        bisected,
        Mark::Markers,
        outcomes.len(),
    ));
    let mut laws: Vec<String> = every_circle
        .iter()
        .map(|r| r.text("law").to_string())
        .collect();
    laws.sort();
    laws.dedup();
    // States in their order in the rows: one colour each, one line style per law.
    let mut states: Vec<String> = Vec::new();
    for r in &every_circle {
        if !states.iter().any(|s| s == r.text("state")) {
            states.push(r.text("state").to_string());
        }
    }
    let mut right: Vec<Series> = Vec::new();
    for (k, state) in states.iter().enumerate() {
        for (i, law) in laws.iter().enumerate() {
            let points: Vec<(f64, f64)> = every_circle
                .iter()
                .filter(|r| r.text("state") == state && r.text("law") == law)
                .filter_map(|r| Some((r.number("theta")? / PI, r.number("first_open_s")?)))
                .collect();
            if points.is_empty() {
                continue;
            }
            right.push(Series {
                label: if states.len() > 1 {
                    format!("{}, {}", plot::style::plot_text(state), law_text(law))
                } else {
                    law_text(law)
                },
                points,
                mark: if i == 0 {
                    Mark::LineMarkers
                } else {
                    Mark::Dashed
                },
                color: if states.len() > 1 { k } else { i },
            });
        }
    }
    if let Some(angles) = star.and_then(|e| e.manifold_angles()) {
        let top = every_circle
            .iter()
            .filter_map(|r| r.number("first_open_s"))
            .fold(0.0f64, f64::max);
        for (i, a) in angles.iter().enumerate() {
            right.push(Series {
                label: if i > 0 {
                    String::new()
                } else if states.len() > 1 {
                    format!(
                        "predicted crossing θ ({})",
                        plot::style::plot_text(&first_state.clone().unwrap_or_default())
                    )
                } else {
                    "predicted crossing θ".into()
                },
                points: vec![(a / PI, 0.0), (a / PI, top)],
                mark: Mark::Dotted,
                color: REFERENCE,
            });
        }
    }
    Figure {
        panels: vec![
            Panel {
                title: format!(
                    "outcome of the starts on |Y − Y*| = R, V = 0 ({}{})",
                    if states.len() > 1 {
                        format!(
                            "{}, ",
                            plot::style::plot_text(&first_state.clone().unwrap_or_default())
                        )
                    } else {
                        String::new()
                    },
                    law_text(&first_law.clone().unwrap_or_default())
                ),
                x_label: "Y₁ − Y₁*".into(),
                y_label: "Y₂ − Y₂*".into(),
                log_x: false,
                log_y: false,
                legend_lower: false,
                series: left,
                bands: Vec::new(),
            },
            Panel {
                title: "first opening of either contact".into(),
                x_label: "start angle θ/π".into(),
                y_label: "s of the first opening".into(),
                log_x: false,
                log_y: false,
                legend_lower: false,
                series: right,
                bands: Vec::new(),
            },
        ],
        columns: 2,
        size: (1500, 650),
    }
}

/// The interval between successive openings of the cycling contact against s, per run.
fn cycle_figure(c: &Checks) -> Figure {
    let series = c
        .cycles
        .iter()
        .filter(|x| x.intervals.len() > 1)
        .enumerate()
        .map(|(i, x)| {
            Series::new(
                format!(
                    "{} · {} · {}",
                    plot::style::plot_text(&x.state),
                    law_text(&x.law),
                    x.integrator
                ),
                x.intervals.clone(),
                if i % 2 == 0 { Mark::Line } else { Mark::Dashed },
                i,
            )
        })
        .collect::<Vec<_>>();
    // The distance of each interval from the run's last one: the contraction onto the cycle.
    let convergence = series
        .iter()
        .map(|x| {
            let last = x.points.last().map_or(f64::NAN, |p| p.1);
            Series {
                points: x
                    .points
                    .iter()
                    .map(|&(t, d)| (t, (d - last).abs()))
                    .filter(|&(_, d)| d > 0.0)
                    .collect(),
                ..x.clone()
            }
        })
        .collect();
    Figure {
        panels: vec![
            Panel {
                title: "sprag–slip cycle: interval between successive openings of contact 2".into(),
                x_label: "s at the opening".into(),
                y_label: "Δs between openings".into(),
                log_x: false,
                log_y: false,
                legend_lower: true,
                series,
                bands: Vec::new(),
            },
            Panel {
                title: "convergence of the interval".into(),
                x_label: "s at the opening".into(),
                y_label: "|Δs − Δs of the last interval|".into(),
                log_x: false,
                log_y: true,
                legend_lower: true,
                series: convergence,
                bands: Vec::new(),
            },
        ],
        columns: 2,
        size: (1600, 650),
    }
}

/// C–V's Table tab:classification, computed, against the printed one.
fn render_classification(s: &mut String, k: &Classification) {
    let _ = writeln!(
        s,
        "\n## C–V's classification of two slipping contacts (§6.1, Table tab:classification)\n\n\
         Computed from the definition (src/models/two_contact/classification.rs) on a grid of \
         {}³ directions of p₁, p₂ and −b: {} classes s₁s₂ and {} subclasses s₁s₂s₃ occur; in \
         {} of them do the sampled configurations disagree on the consistent modes (C–V: the \
         code decides them). The printed Table's duals: {} mismatches; its {} cells (16 classes \
         × 4 modes): {} differ from the computed.\n",
        k.grid,
        k.classes,
        k.subclasses,
        k.undecided_subclasses,
        k.dual_mismatches.len(),
        k.table_cells,
        k.table_mismatches.len()
    );
    for m in k.dual_mismatches.iter().chain(&k.table_mismatches) {
        let _ = writeln!(s, "- {m}");
    }
    render_last_columns(s, k);
    let _ = writeln!(
        s,
        "\nIndeterminate subclasses (≥ 2 consistent modes, {}): {}.\n\n\
         Inconsistent subclasses (none consistent, {}): {}.",
        k.indeterminate.len(),
        k.indeterminate
            .iter()
            .map(u16::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        k.inconsistent.len(),
        k.inconsistent
            .iter()
            .map(u16::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
}

/// The Table's last columns, computed: the shading (normal stability, §6.2) and the IWCs
/// (§6.3), against the printed ones.
fn render_last_columns(s: &mut String, k: &Classification) {
    let _ = writeln!(
        s,
        "\nThe last columns (§6.2–6.3), computed per class from its pairs of directions of p₁, \
         p₂ ({} samples of magnitudes |p_j| ∈ [0.1, 10] and linear laws −k_j ∈ [0.1, 10], \
         −q_j ∈ [0.01, 10], log-uniform): the normal stability of S+S+ (Hurwitz on the 4 × 4 \
         Jacobian of (TC2)), S+F (p₁₁ > 0) and FS+ (p₂₂ > 0) — stable in every sample, unstable \
         in every sample, or either (the Table's no, dark and light shading); and the IWCs: IF \
         (p₁₁ < 0, p₂₁ > 0), FI (p₂₂ < 0, p₁₂ > 0), II's necessary condition (the cone of p₁, \
         p₂ meets the third quadrant: impulses at both contacts drive both into the ground). \
         Shading: {} of {} printed cells differ; IWC: {} of {} differ; classes whose directions \
         disagree on the IWCs: {}. The text's reading of II, \"the cone … should intersect the \
         fourth quadrant\", contradicts {} of the Table's 16 II entries. Each sampled P (4 per \
         pair of directions) meets 8 laws: where its S+S+ verdict differs between them, the \
         rigid data do not decide normal stability (C–V: \"undecidable within rigid-body \
         theory\"); classes with such P: {}.\n",
        k.stability_samples,
        k.shading_mismatch_count,
        k.shading_cells,
        k.impact_mismatch_count,
        k.impact_cells,
        k.undecided_impact_classes,
        k.ii_fourth_quadrant_mismatch_count,
        k.law_decided_classes
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        s,
        "| class | S+S+ | stable share of S+S+ samples | share of P whose S+S+ verdict depends on the law | S+F | FS+ | IF | FI | II |\n|---|---|---|---|---|---|---|---|---|"
    );
    let shade = |x: Shade| match x {
        Shade::Stable => "stable",
        Shade::Either => "either",
        Shade::Unstable => "unstable",
    };
    let mark = |x: bool, necessary: bool| match (x, necessary) {
        (true, false) => "x",
        (true, true) => "(x)",
        (false, _) => "",
    };
    for c in &k.class_properties {
        let _ = writeln!(
            s,
            "| {} | {} | {:.3} | {:.3} | {} | {} | {} | {} | {} |",
            c.class,
            shade(c.shading[0]),
            c.slip_slip_stable_fraction,
            c.slip_slip_law_decided_fraction,
            shade(c.shading[1]),
            shade(c.shading[2]),
            mark(c.impacts[0], false),
            mark(c.impacts[1], false),
            mark(c.impacts[2], true)
        );
    }
    for m in k.shading_mismatches.iter().chain(&k.impact_mismatches) {
        let _ = writeln!(s, "- {m}");
    }
}

fn render(name: &str, c: &Checks, figures: &[&str]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {name}: C–V's fast dynamics of two slipping contacts\n"
    );
    let _ = writeln!(
        s,
        "{}. Y_i'' = b_i + Σ_j P_ij f_j with f_j = max(k_j Y_j + q_j V_j, 0) (literal law) or the \
         same only while contact j is closed (harness law); the kinks are located events. \
         Outcome at the end of the window: IF/FI/II when a force exceeds 1e6 (the other contact \
         open), `cycle` when a contact opens ≥ 6 times in the window's second half, else the \
         final mode. docs/two_contact.md.\n",
        provenance(name)
    );
    let _ = writeln!(s, "## States\n");
    let _ = writeln!(
        s,
        "| state | γ1/π | γ2/π | β/π | class s₁s₂s₃ | consistent modes | f* = −P⁻¹b | eigenvalues of S+S+ |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    for st in &c.states {
        let ev = st.eigenvalues.map_or("—".into(), |ev| {
            ev.iter()
                .map(|(re, im)| {
                    if *im == 0.0 {
                        format!("{re:.6}")
                    } else {
                        format!(
                            "{re:.6} {} {:.6}i",
                            if *im < 0.0 { "−" } else { "+" },
                            im.abs()
                        )
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        });
        let f = st
            .forces
            .map_or("—".into(), |f| format!("({:.6}, {:.6})", f[0], f[1]));
        let _ = writeln!(
            s,
            "| {} | {:.6} | {:.6} | {:.6} | {} | {} | {f} | {ev} |",
            st.state,
            st.gamma1_over_pi,
            st.gamma2_over_pi,
            st.beta_over_pi,
            st.class_code.map_or("—".into(), |c| c.to_string()),
            if st.consistent_modes.is_empty() {
                "none".to_string()
            } else {
                st.consistent_modes.join(", ")
            }
        );
    }
    if let Some(k) = &c.classification {
        render_classification(&mut s, k);
    }
    if !c.circles.is_empty() {
        let _ = writeln!(s, "\n## Starts on the circle around S+S+\n");
        let _ = writeln!(s, "| state | law | integrator | outcomes | switches between scan angles θ/π | outcome = linear side |");
        let _ = writeln!(s, "|---|---|---|---|---|---|");
        for x in &c.circles {
            let outcomes: Vec<String> = x
                .outcomes
                .iter()
                .map(|(o, k)| format!("{o}: {k}"))
                .collect();
            let switches: Vec<String> = x
                .switches
                .iter()
                .map(|(a, b, o1, o2)| format!("{o1}→{o2} in [{:.4}, {:.4}]", a / PI, b / PI))
                .collect();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} of {} |",
                x.state,
                x.law,
                x.integrator,
                outcomes.join(", "),
                switches.join("; "),
                x.linear_side_agrees,
                x.points
            );
        }
    }
    if !c.crossings.is_empty() {
        let _ = writeln!(
            s,
            "\n## Crossings: bisected outcome switch vs the stable manifold\n"
        );
        let _ = writeln!(
            s,
            "θ in radians; the prediction is where wᵀ(x − x*) = 0 (w the left eigenvector of \
             the unstable eigenvalue) meets the circle; the bisection runs inside the scan \
             interval that holds it, to a bracket of 1e-10. min f on manifold: the smallest \
             force along the linear flow from the predicted start over s ∈ [0, 200] (> 0: the \
             crossing trajectory stays where both contacts carry force, so the linear \
             manifold is the exact boundary).\n"
        );
        let _ = writeln!(s, "| state | law | integrator | θ predicted | θ bisected | bisected − predicted | below / above | min f on manifold |");
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
        for x in &c.crossings {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {:.12} | {:.12} | {:.2e} | {} / {} | {} |",
                x.state,
                x.law,
                x.integrator,
                x.predicted,
                x.bisected,
                x.offset,
                x.below,
                x.above,
                optional(x.min_force_on_manifold, |v| fixed(v, 4))
            );
        }
        if let Some(m) = c.max_crossing_offset {
            let _ = writeln!(s, "\nLargest |bisected − predicted|: {m:.2e} rad.");
        }
    }
    if !c.cycles.is_empty() {
        let _ = writeln!(
            s,
            "\n## Runs from given starts: periods and open fractions\n"
        );
        let _ = writeln!(
            s,
            "period: the last interval between successive openings of the cycling contact; \
             spread: max − min of its last five intervals; open fraction: of s in the window's \
             second half with contact 2 open.\n"
        );
        let _ = writeln!(s, "| state | P22 | γ2/π | law | integrator | outcome | final mode | first opening s | openings of 2 | period | spread (last 5) | open fraction 2 |");
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|");
        for x in &c.cycles {
            let _ = writeln!(
                s,
                "| {} | {} | {:.4} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                x.state,
                x.p22,
                x.gamma2_over_pi,
                x.law,
                x.integrator,
                x.outcome,
                x.mode_end,
                optional(x.first_open_s, |v| fixed(v, 6)),
                optional(x.openings_2, |v| fixed(v, 0)),
                optional(x.period, |v| fixed(v, 9)),
                x.period_spread.map_or("—".into(), |v| format!("{v:.2e}")),
                optional(x.open_fraction_2, |v| fixed(v, 6))
            );
        }
        let _ = writeln!(
            s,
            "\n— : no period (a run that ends in a steady mode, not a cycle, has none)."
        );
    }
    if !c.integrator_agreement.is_empty() {
        let worst = c
            .integrator_agreement
            .iter()
            .map(|(_, w)| *w)
            .fold(0.0f64, f64::max);
        let _ = writeln!(
            s,
            "\n## Integrators\n\nLargest difference between integrators over {} rows run by \
             more than one (bisected θ, first opening, period, every opening of a cycle): \
             {worst:.2e}.",
            c.integrator_agreement.len()
        );
    }
    if !figures.is_empty() {
        let _ = writeln!(
            s,
            "\nFigures: {}.",
            figures
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    s
}
