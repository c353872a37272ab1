//! The compliant model's section of summary.md, its part of analysis.json and its figures
//! (docs/schmid_mielke.md, "The compliant model"). Reads rows; the frozen-load jump is a closed
//! form ([`super::jump`]).

use super::dynamic_figures::{convergence_figure, jump_figure};
use super::dynamic_rows::{
    compliant, ladder, num, CompliantFits, JumpComparison, FIT_MAX_EPSILON, KAPPA_CHECK_EPSILON,
};
use super::examples::{Example, Regime};
use super::jump::frozen_load_landing;
use super::report_kit::{path_figure, CaseRows, FigureTarget};
use super::spec::CompliantSetting;
use crate::analysis::fit::power_law;
use crate::experiment::table::Row;
use crate::report::markdown::{fixed, optional, slope};
use serde::Serialize;
use std::fmt::Write;

fn distinct(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = Vec::new();
    for x in values {
        if !v.contains(&x) {
            v.push(x);
        }
    }
    v
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct CompliantAnalysis {
    /// max |energy balance error| / |load work| over all compliant runs.
    pub max_relative_balance_error: f64,
    pub fits: Vec<CompliantFits>,
    pub jumps: Vec<JumpComparison>,
}

fn fits_of(c: &CaseRows, rows: &[(CompliantSetting, &Row)]) -> Option<CompliantFits> {
    let kappa = rows.iter().map(|(s, _)| s.kappa).reduce(f64::min)?;
    let zeta = rows[0].0.zeta;
    let lad = ladder(rows, kappa, zeta);
    let (eps, err): (Vec<f64>, Vec<f64>) = lad
        .iter()
        .filter(|(e, _)| *e <= FIT_MAX_EPSILON * (1.0 + 1e-9))
        .map(|(e, r)| (*e, num(r, "sup_error")))
        .filter(|(_, v)| *v > 0.0)
        .unzip();
    let at = |k: f64| {
        rows.iter()
            .find(|(s, _)| s.kappa == k && s.zeta == zeta && s.epsilon == KAPPA_CHECK_EPSILON)
            .map(|(_, r)| num(r, "sup_error"))
    };
    Some(CompliantFits {
        case: c.label.clone(),
        regime: c.example.regime().name(),
        kappa,
        zeta,
        // With a jump the error is the delay's until ε ln(1/ε)/λ is inside the window.
        epsilon_order: (!c.example.regime().jumps())
            .then(|| power_law(&eps, &err))
            .flatten(),
        kappa_relative_change: at(1e-4).zip(at(kappa)).map(|(a, b)| (a - b) / b),
    })
}

fn jumps_of(c: &CaseRows, rows: &[(CompliantSetting, &Row)]) -> Vec<JumpComparison> {
    let Example::VaryingFriction(p) = c.example else {
        return Vec::new();
    };
    let Some(kappa) = rows.iter().map(|(s, _)| s.kappa).reduce(f64::min) else {
        return Vec::new();
    };
    let Some(jump) = c.example.closed_form().jump else {
        return Vec::new();
    };
    distinct(rows.iter().map(|(s, _)| s.zeta))
        .into_iter()
        .filter_map(|zeta| {
            let frozen = frozen_load_landing(&p, zeta)?;
            let runs = ladder(rows, kappa, zeta)
                .iter()
                .map(|(e, r)| {
                    (
                        *e,
                        num(r, "crossing_time"),
                        num(r, "excursion"),
                        num(r, "viscous_work"),
                    )
                })
                .collect();
            Some(JumpComparison {
                case: c.label.clone(),
                t_jump: jump.time,
                zeta,
                frozen,
                runs,
            })
        })
        .collect()
}

/// The per-case table: sup error per (ε, κ), and at the smallest κ the crossing, the
/// excursion and the re-contacts.
fn case_table(s: &mut String, c: &CaseRows, rows: &[(CompliantSetting, &Row)], f: &CompliantFits) {
    let kappas = {
        let mut k = distinct(rows.iter().map(|(s, _)| s.kappa));
        k.sort_by(|a, b| b.total_cmp(a));
        k
    };
    let exact = c
        .example
        .closed_form()
        .crossing_time(super::examples::crossing_level(&c.example));
    let _ = writeln!(
        s,
        "#### {} ({}, ζ = {})\n",
        c.label,
        c.example.regime().name(),
        f.zeta
    );
    let mut head = String::from("| ε |");
    let mut rule = String::from("|---|");
    for k in &kappas {
        let _ = write!(head, " sup error, κ = {k:e} |");
        rule.push_str("---|");
    }
    let level = super::examples::crossing_level(&c.example);
    let _ = writeln!(
        s,
        "{head} crossing of z₁ = {level:.4} (exact {}) | excursion | re-contacts | balance error / load work |",
        optional(exact, |v| fixed(v, 4))
    );
    let _ = writeln!(s, "{rule}---|---|---|---|");
    for (eps, row) in ladder(rows, f.kappa, f.zeta) {
        let _ = write!(s, "| {eps:e} |");
        for k in &kappas {
            let cell = rows
                .iter()
                .find(|(st, _)| st.kappa == *k && st.zeta == f.zeta && st.epsilon == eps)
                .map_or("—".into(), |(_, r)| {
                    format!("{:.3e}", num(r, "sup_error"))
                });
            let _ = write!(s, " {cell} |");
        }
        let _ = writeln!(
            s,
            " {} | {} | {} | {:.1e} |",
            optional(row.number("crossing_time"), |v| fixed(v, 4)),
            optional(row.number("excursion"), |v| fixed(v, 4)),
            row.text("recontacts"),
            (num(row, "energy_balance_error") / num(row, "load_work")).abs()
        );
    }
    let _ = writeln!(
        s,
        "\n— : no value (no run at that κ and ε; no excursion in §4.2's example, which has no μ₁ branch, or in a case without t₂)."
    );
    let order = if c.example.regime().jumps() {
        "not fitted (a jump: the error is the delay's until it is inside the window)".to_string()
    } else {
        format!("p = {}", slope(&f.epsilon_order, 3))
    };
    let _ = writeln!(
        s,
        "\nsup error ∝ ε^p at κ = {:e}, ε ≤ {FIT_MAX_EPSILON}: {order}. κ = 1e-4 against κ = {:e} \
         at ε = {KAPPA_CHECK_EPSILON}: the sup error changes by {}.\n",
        f.kappa,
        f.kappa,
        f.kappa_relative_change
            .map_or("—".into(), |r| format!("{:+.1} %", 100.0 * r))
    );
}

fn jump_section(s: &mut String, jumps: &[JumpComparison]) {
    let Some(first) = jumps.first() else {
        return;
    };
    let _ = writeln!(
        s,
        "### The jump of §4.1 against the frozen-load jump ({})\n",
        first.case
    );
    let _ = writeln!(
        s,
        "The frozen-load jump (docs/schmid_mielke.md, \"The frozen-load jump\"): the load held at \
         f₁(t₂), the particle leaves z₁ = 2 with a vanishing forward speed, crosses the ramp on \
         its unstable manifold and stops where ż₁ first vanishes.\n"
    );
    let _ = writeln!(
        s,
        "| ζ | λ (= speed at z₁ = 3) | landing | excursion above z₁* | sticks | released E | Coulomb | viscous |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    for j in jumps {
        let f = &j.frozen;
        let _ = writeln!(
            s,
            "| {} | {:.4} | {:.4} | {:.4} | {} | {:.4} | {:.4} | {:.4} |",
            j.zeta,
            f.ramp_rate,
            f.landing,
            f.excursion,
            if f.sticks { "yes" } else { "no" },
            f.released,
            f.friction,
            f.viscous
        );
    }
    let _ = writeln!(
        s,
        "\nThe compliant runs (smallest κ): the crossing of z₁ = 3 and its delay d after t₂ — \
         the unstable equilibrium z₁ = 2 is left from a seed of size ε at the rate λ, so \
         d = (ε/λ)(ln(1/ε) + C) and λd/ε − ln(1/ε) tends to a constant C; the excursion above \
         the μ₁ branch against the frozen-load one; the viscous dissipation of the whole run \
         (O(ε) outside the jump, so → the frozen-load viscous dissipation as ε → 0).\n"
    );
    let _ = writeln!(
        s,
        "| ζ | ε | crossing | delay d | λd/ε − ln(1/ε) | excursion | / frozen | viscous dissipation | frozen viscous |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
    for j in jumps {
        for &(eps, crossing, excursion, viscous) in &j.runs {
            let d = crossing - j.t_jump;
            let ratio = if j.frozen.excursion > 0.0 {
                format!("{:.3}", excursion / j.frozen.excursion)
            } else {
                "—".into()
            };
            let _ = writeln!(
                s,
                "| {} | {eps:e} | {crossing:.5} | {d:.3e} | {:.3} | {excursion:.4} | {ratio} | {:.4} | {:.4} |",
                j.zeta,
                j.frozen.ramp_rate * d / eps - (1.0 / eps).ln(),
                -viscous,
                j.frozen.viscous
            );
        }
    }
    let _ = writeln!(s);
}

/// "What the dynamic model does at the jump", in numbers of this run.
fn jump_story(
    s: &mut String,
    per_case: &[(&CaseRows, Vec<(CompliantSetting, &Row)>)],
    jumps: &[JumpComparison],
) {
    let _ = writeln!(
        s,
        "### What the dynamic model does at the jump
"
    );
    for j in jumps {
        let Some(&(eps, crossing, excursion, viscous)) = j.runs.last() else {
            continue;
        };
        let f = &j.frozen;
        let _ = writeln!(
            s,
            "- {} (ζ = {}): at ε = {eps:e} z₁ crosses 3 at s = {crossing:.5} (t₂ = {:.4}). The \
             particle waits at the unstable equilibrium z₁ = 2 for a time of order \
             (ε/λ) ln(1/ε), then crosses the ramp in a fast time O(1) (slow time O(ε)); the \
             frozen-load jump lands {:.4} above z₁* and dissipates {:.4} by friction and \
             {:.4} by viscosity of the {:.4} it releases; the run's excursion is {excursion:.4} \
             ({}) and its viscous dissipation {:.4}.",
            j.case,
            j.zeta,
            j.t_jump,
            f.excursion,
            f.friction,
            f.viscous,
            f.released,
            if f.excursion > 0.0 {
                format!(
                    "{:.1} % above the frozen-load one",
                    100.0 * (excursion / f.excursion - 1.0)
                )
            } else {
                "the frozen-load jump creeps up to z₁* without overshoot".to_string()
            },
            -viscous
        );
    }
    for (c, rows) in per_case {
        let Some(jump) = c.example.closed_form().jump else {
            continue;
        };
        if !matches!(c.example, Example::VaryingNormalForce(_)) {
            continue;
        }
        let Some(kappa) = rows.iter().map(|(s, _)| s.kappa).reduce(f64::min) else {
            continue;
        };
        let lad = ladder(rows, kappa, rows[0].0.zeta);
        let Some(&(eps, row)) = lad.last() else {
            continue;
        };
        let recontacts: usize = rows
            .iter()
            .filter_map(|(_, r)| r.text("recontacts").parse::<usize>().ok())
            .sum();
        let _ = writeln!(
            s,
            "- {}: at ε = {eps:e}, κ = {kappa:e} z₁ crosses 1/3 at s = {:.5} (t₁ = {:.4}); \
             then z follows H⁻¹f(s) with sup error {:.2e} away \
             from the jump (z(T) = ({:.5}, {:.5})). Re-contacts after the jump, over all {} runs \
             of the case: {recontacts}.",
            c.label,
            num(row, "crossing_time"),
            jump.time,
            num(row, "sup_error"),
            num(row, "z1_end"),
            num(row, "z2_end"),
            rows.len()
        );
    }
    let _ = writeln!(s);
}

/// Append the compliant section; `None` when the run has no compliant rows.
pub(crate) fn write_section(
    s: &mut String,
    cases: &[CaseRows],
    paths: &[(String, String, f64, f64)],
    out: &FigureTarget,
) -> Result<Option<CompliantAnalysis>, String> {
    let per_case: Vec<(&CaseRows, Vec<(CompliantSetting, &Row)>)> = cases
        .iter()
        .map(|c| (c, compliant(c)))
        .filter(|(_, r)| !r.is_empty())
        .collect();
    if per_case.is_empty() {
        return Ok(None);
    }
    let balance = per_case
        .iter()
        .flat_map(|(_, rows)| rows.iter())
        .map(|(_, r)| (num(r, "energy_balance_error") / num(r, "load_work")).abs())
        .fold(0.0, f64::max);
    let fits: Vec<CompliantFits> = per_case
        .iter()
        .filter_map(|(c, rows)| fits_of(c, rows))
        .collect();
    let jumps: Vec<JumpComparison> = per_case
        .iter()
        .filter(|(c, _)| c.example.regime() == Regime::Supercritical)
        .flat_map(|(c, rows)| jumps_of(c, rows))
        .collect();
    let _ = writeln!(s, "\n## The compliant model\n");
    let _ = writeln!(
        s,
        "Unit mass, viscous drag ν = 2ζ√H₁₁, penalty law F_n = δ/κ + c_d δ̇/√κ with c_d = {}, \
         exact Coulomb friction with μ(z₁), load f(εt), started at rest in the quasistatic \
         penetration; all times are slow times s = εt. The sup error leaves out \
         |s − t_jump| ≤ {} when the closed form jumps. Energy: the largest |balance error| \
         over the {} runs is {balance:.1e} of the load work (kinetic + ½⟨Hz, z⟩ + spring, \
         against the work of the load, Coulomb friction, the dashpot and the drag).\n",
        super::dynamic::CONTACT_DAMPING,
        super::analysis::JUMP_WINDOW,
        per_case.iter().map(|(_, r)| r.len()).sum::<usize>()
    );
    for (c, rows) in &per_case {
        if let Some(f) = fits.iter().find(|f| f.case == c.label) {
            case_table(s, c, rows, f);
        }
    }
    jump_section(s, &jumps);
    jump_story(s, &per_case, &jumps);
    let all: Vec<&CaseRows> = per_case.iter().map(|(c, _)| *c).collect();
    if path_figure(
        &all,
        paths,
        &["IP", "compliant ε="],
        "s",
        (0.6, 0.6),
        out,
        "dyn_paths",
    )? {
        let _ = writeln!(
            s,
            "![z₁(s) around the transition: closed form, (IP) at N = 256 and the compliant model \
             at the smallest κ](dyn_paths.png)\n"
        );
    }
    if jump_figure(&all, paths, &jumps, out)? {
        let _ = writeln!(
            s,
            "![the jumps close up in fast time (s − t_jump)/ε: every drawn ε at the first ζ, and \
             for §4.1 the height above the μ₁ branch for every ζ at its smallest ε, aligned at \
             the crossing of z₁ = 3, with the frozen-load excursions dashed](dyn_jump.png)\n"
        );
    }
    convergence_figure(cases, &fits, &jumps, out)?;
    let _ = writeln!(
        s,
        "![sup error against ε and κ, the crossing delay, the excursion against the frozen-load \
         jump (dashed)](dyn_convergence.png)\n"
    );
    Ok(Some(CompliantAnalysis {
        max_relative_balance_error: balance,
        fits,
        jumps,
    }))
}
