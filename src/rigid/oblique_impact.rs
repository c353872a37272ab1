//! The rigid oblique impact of a planar single contact with Coulomb friction (C–V §3.2,
//! (uimpulse), (vimpulse), (impactmap), Fig. impactmap; docs/oblique_impact.md): pure functions
//! of the contact's mobilities A, B, C, the friction coefficient μ and the incoming relative
//! velocities (u⁻, v⁻), v⁻ ≤ 0.
//!
//! During the impact the configuration is frozen and the forces are impulsive; with the normal
//! impulse I_N as the clock (Stronge) the contact-point velocities move on straight lines:
//!
//! ```text
//!   slip S_σ (σ = sign u):  u' = −σ k_σ,  v' = p_σ,   dI_T = −σ μ dI_N,
//!   stick T (u = 0, |B| ≤ μA):  u' = 0,  v' = K = C − B²/A,   dI_T = −(B/A) dI_N,
//! ```
//!
//! with p_σ = C − σμB, k_σ = μA − σB (C–V (pain_par±), (pain_pars2)). At u = 0 with |B| > μA
//! stick cannot hold: the slip σ = sign B starts, for which k_σ < 0 (slip reversal). Compression
//! lasts while v < 0 (impulse I_c, normal work W_c = ∫v dI_N < 0); restitution ends at
//! I_N = (1 + r) I_c (Poisson) or where the normal work reaches (1 − r²) W_c (energetic,
//! Stronge: the restitution phase gives back r² of the compression's normal work).

use crate::compliant::coulomb::Mode;
use crate::error::SimError;

/// The contact's mobilities and friction during an impact (C–V §3.2: A, B, C frozen).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpactContact {
    /// A = cᵀM⁻¹c > 0.
    pub tangential_mobility: f64,
    /// B = cᵀM⁻¹d.
    pub cross_mobility: f64,
    /// C = dᵀM⁻¹d > 0, AC − B² > 0.
    pub normal_mobility: f64,
    /// Coulomb μ > 0 (the same in the impact as outside it).
    pub mu: f64,
}

/// When the restitution phase ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RestitutionLaw {
    /// Stronge's energetic coefficient r: restitution's normal work is −r² times compression's.
    Energetic(f64),
    /// Poisson's coefficient r: restitution's normal impulse is r times compression's.
    Poisson(f64),
}

impl RestitutionLaw {
    pub fn name(&self) -> &'static str {
        match self {
            RestitutionLaw::Energetic(_) => "energetic",
            RestitutionLaw::Poisson(_) => "poisson",
        }
    }

    fn coefficient(&self) -> f64 {
        match *self {
            RestitutionLaw::Energetic(r) | RestitutionLaw::Poisson(r) => r,
        }
    }
}

/// One straight piece of the impact's path in the (u, v) plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpactPhase {
    /// Slide right (S+), stick (T) or slide left (S−).
    pub mode: Mode,
    /// The normal impulse at its start and end.
    pub impulse_start: f64,
    pub impulse_end: f64,
}

/// The outgoing state of a rigid impact and the path to it.
#[derive(Clone, Debug, PartialEq)]
pub struct ImpactOutcome {
    pub u_plus: f64,
    pub v_plus: f64,
    /// Total normal and tangential impulse.
    pub normal_impulse: f64,
    pub tangential_impulse: f64,
    /// The normal impulse at the end of compression (v = 0).
    pub compression_impulse: f64,
    /// ∫ v dI_N over compression (≤ 0) and over the whole impact.
    pub compression_work: f64,
    pub normal_work: f64,
    pub phases: Vec<ImpactPhase>,
}

impl ImpactOutcome {
    /// The modes of the phases joined by `>` (the compliant runs' `mode_sequence` names).
    pub fn mode_sequence(&self) -> String {
        let names: Vec<_> = self.phases.iter().map(|p| p.mode.name()).collect();
        names.join(">")
    }

    /// Whether the slip direction reversed (u⁺u⁻ < 0, C–V §3.2).
    pub fn reverses_slip(&self, u_minus: f64) -> bool {
        self.u_plus * u_minus < 0.0
    }
}

impl ImpactContact {
    /// p_σ = C − σμB: the normal velocity gained per unit normal impulse in slip σ.
    pub fn painleve_parameter(&self, slip_sign: f64) -> f64 {
        self.normal_mobility - slip_sign * self.mu * self.cross_mobility
    }

    /// k_σ = μA − σB: the slip speed lost per unit normal impulse in slip σ.
    pub fn slip_coupling(&self, slip_sign: f64) -> f64 {
        self.mu * self.tangential_mobility - slip_sign * self.cross_mobility
    }

    /// K = (AC − B²)/A: the normal velocity gained per unit normal impulse in stick.
    pub fn stick_normal_rate(&self) -> f64 {
        (self.tangential_mobility * self.normal_mobility
            - self.cross_mobility * self.cross_mobility)
            / self.tangential_mobility
    }

    /// Whether stick can hold during an impact: the stick impulse ratio |B|/A inside the cone.
    pub fn stick_holds(&self) -> bool {
        self.cross_mobility.abs() <= self.mu * self.tangential_mobility
    }

    /// Checks the data; errors name the field (`A`, `B`, `C`, `mu`) and what to fix.
    pub fn validate(&self) -> Result<(), SimError> {
        self.validate_keyed(str::to_string)
    }

    /// [`Self::validate`] with each field named by `key` (e.g. `sweep.contacts[1].B`).
    pub fn validate_keyed(&self, key: impl Fn(&str) -> String) -> Result<(), SimError> {
        crate::error::require_positive(&key("A"), self.tangential_mobility)?;
        crate::error::require_finite(&key("B"), self.cross_mobility)?;
        crate::error::require_positive(&key("C"), self.normal_mobility)?;
        crate::error::require_positive(&key("mu"), self.mu)?;
        if self.tangential_mobility * self.normal_mobility
            <= self.cross_mobility * self.cross_mobility
        {
            return Err(SimError::invalid(
                &key("B"),
                self.cross_mobility,
                "needs B² < A·C (a positive-definite mass matrix, C–V (ABCD_inequals))",
            ));
        }
        Ok(())
    }

    /// The mode of the impact at slip velocity `u`, and its rates (u', v', dI_T/dI_N).
    fn phase_at(&self, u: f64) -> (Mode, f64, f64, f64) {
        let sigma = if u > 0.0 {
            1.0
        } else if u < 0.0 {
            -1.0
        } else if self.stick_holds() {
            let (a, b) = (self.tangential_mobility, self.cross_mobility);
            return (Mode::Stick, 0.0, self.stick_normal_rate(), -b / a);
        } else {
            // Stick would need |λ_T| = |B|/A λ_N > μλ_N: the slip with k_σ < 0 starts.
            self.cross_mobility.signum()
        };
        let mode = if sigma > 0.0 {
            Mode::SlideRight
        } else {
            Mode::SlideLeft
        };
        (
            mode,
            -sigma * self.slip_coupling(sigma),
            self.painleve_parameter(sigma),
            -sigma * self.mu,
        )
    }

    /// The rigid impact from (u⁻, v⁻) under `law` (C–V (impactmap)): compression to v = 0,
    /// then restitution, each through its slip/stick phases. v⁻ = 0 is an impact only when the
    /// incoming slip drives v negative (p_σ < 0: the impact without collision, C–V §3.2).
    pub fn impact(
        &self,
        u_minus: f64,
        v_minus: f64,
        law: RestitutionLaw,
    ) -> Result<ImpactOutcome, SimError> {
        self.validate()?;
        crate::error::require_finite("u_minus", u_minus)?;
        crate::error::require_finite("v_minus", v_minus)?;
        let r = law.coefficient();
        if !(0.0..=1.0).contains(&r) {
            return Err(SimError::invalid("restitution", r, "must lie in [0, 1]"));
        }
        let (mut u, mut v) = (u_minus, v_minus);
        let (mut impulse, mut tangential, mut work) = (0.0, 0.0, 0.0);
        let starts_compressing = v < 0.0 || (v == 0.0 && self.phase_at(u).2 < 0.0);
        if v > 0.0 || !starts_compressing {
            return Err(SimError::invalid(
                "v_minus",
                v_minus,
                "no impact: the contact point must approach (v⁻ < 0), or at v⁻ = 0 slip with p_σ < 0",
            ));
        }
        let mut compression: Option<(f64, f64)> = None;
        let mut phases: Vec<ImpactPhase> = Vec::new();
        // Each phase ends at a kink (u = 0, v = 0) or at the end of restitution; a path has at
        // most slip, stick or reversed slip in compression and in restitution.
        for _ in 0..8 {
            let (mode, du, dv, ratio) = self.phase_at(u);
            let mut step = f64::INFINITY;
            if du != 0.0 && u != 0.0 && du * u < 0.0 {
                step = step.min(-u / du);
            }
            let mut ends = false;
            match compression {
                None => {
                    if dv > 0.0 && v < 0.0 {
                        step = step.min(-v / dv);
                    }
                }
                Some((ic, wc)) => {
                    let remaining = match law {
                        RestitutionLaw::Poisson(_) => (1.0 + r) * ic - impulse,
                        // W(I + Δ) = W + vΔ + v'Δ²/2 reaches (1 − r²)W_c at the root below,
                        // written without cancellation (the gap to go is ≥ 0).
                        RestitutionLaw::Energetic(_) => {
                            let gap = (1.0 - r * r) * wc - work;
                            let disc = v * v + 2.0 * dv * gap;
                            if gap <= 0.0 {
                                0.0
                            } else if disc >= 0.0 && v + disc.sqrt() > 0.0 {
                                2.0 * gap / (v + disc.sqrt())
                            } else {
                                f64::INFINITY
                            }
                        }
                    };
                    if remaining <= step {
                        step = remaining.max(0.0);
                        ends = true;
                    }
                }
            }
            if !step.is_finite() {
                return Err(SimError::invalid(
                    "v_minus",
                    v_minus,
                    "the impact does not end (the normal velocity never turns); check the data",
                ));
            }
            let start = impulse;
            impulse += step;
            work += v * step + 0.5 * dv * step * step;
            tangential += ratio * step;
            // A kink lands exactly on its line (u = 0 or v = 0), not a rounding off it.
            let u_next = u + du * step;
            u = if du * u < 0.0 && (u_next * u <= 0.0 || step == -u / du) {
                0.0
            } else {
                u_next
            };
            let v_next = v + dv * step;
            let compression_ends = compression.is_none() && dv > 0.0 && v_next >= 0.0;
            v = if compression_ends { 0.0 } else { v_next };
            if step > 0.0 || phases.is_empty() {
                match phases.last_mut() {
                    Some(last) if last.mode == mode => last.impulse_end = impulse,
                    _ => phases.push(ImpactPhase {
                        mode,
                        impulse_start: start,
                        impulse_end: impulse,
                    }),
                }
            }
            if compression_ends {
                compression = Some((impulse, work));
            }
            if ends {
                let (ic, wc) = compression.unwrap_or((impulse, work));
                // Impulse–momentum from the impulses (C–V (uimpulse), (vimpulse)): the same
                // numbers as the marched velocities, without their accumulated rounding.
                let (a, b, c) = (
                    self.tangential_mobility,
                    self.cross_mobility,
                    self.normal_mobility,
                );
                let u_plus = if u == 0.0 {
                    0.0
                } else {
                    u_minus + a * tangential + b * impulse
                };
                return Ok(ImpactOutcome {
                    u_plus,
                    v_plus: v_minus + b * tangential + c * impulse,
                    normal_impulse: impulse,
                    tangential_impulse: tangential,
                    compression_impulse: ic,
                    compression_work: wc,
                    normal_work: work,
                    phases,
                });
            }
        }
        Err(SimError::invalid(
            "v_minus",
            v_minus,
            "the impact path has more than eight phases; check the data",
        ))
    }

    /// The incidence ratios u⁻/|v⁻| at which the path's phase sequence changes (the dashed
    /// rays of C–V's Fig. impactmap, for v⁻ < 0), each with what happens there: for each slip
    /// direction σ that decelerates (k_σ > 0) and compresses (p_σ > 0), the slip stops at the
    /// end of compression at σ k_σ/p_σ and at the end of restitution at σ(1 + r) k_σ/p_σ (both
    /// laws: a slip-through path has I_N = (1 + r)|v⁻|/p_σ under either).
    pub fn incidence_boundaries(&self, r: f64) -> Vec<(f64, &'static str)> {
        let mut out = Vec::new();
        for sigma in [-1.0, 1.0] {
            let (p, k) = (self.painleve_parameter(sigma), self.slip_coupling(sigma));
            if p > 0.0 && k > 0.0 {
                out.push((sigma * k / p, "slip stops at the end of compression"));
                out.push((
                    sigma * (1.0 + r) * k / p,
                    "slip stops at the end of restitution",
                ));
            }
        }
        out.sort_by(|x, y| x.0.total_cmp(&y.0));
        out
    }

    /// The corners of the impact's path in the (u, v) plane, from (u⁻, v⁻) through the end of
    /// each phase of `outcome` (Fig. impactmap's broken lines).
    pub fn path_points(
        &self,
        u_minus: f64,
        v_minus: f64,
        outcome: &ImpactOutcome,
    ) -> Vec<(f64, f64)> {
        let mut points = vec![(u_minus, v_minus)];
        let (mut u, mut v) = (u_minus, v_minus);
        for phase in &outcome.phases {
            let (_, du, dv, _) = self.phase_at(match phase.mode {
                Mode::SlideRight => 1.0,
                Mode::SlideLeft => -1.0,
                _ => 0.0,
            });
            let step = phase.impulse_end - phase.impulse_start;
            u += du * step;
            v += dv * step;
            points.push((u, v));
        }
        points
    }

    /// The kinetic energy in the contact coordinates, ½ (u, v) [[A, B], [B, C]]⁻¹ (u, v)ᵀ.
    pub fn contact_kinetic_energy(&self, u: f64, v: f64) -> f64 {
        let (a, b, c) = (
            self.tangential_mobility,
            self.cross_mobility,
            self.normal_mobility,
        );
        0.5 * (c * u * u - 2.0 * b * u * v + a * v * v) / (a * c - b * b)
    }
}

/// The chatter bounce of C–V §3.3 at free accelerations (a, b), b < 0: every flight of a
/// chattering sequence starts at u⁺ = 0 (the impact ends in stick) and lasts t_n = −2v⁺/b
/// ((tn)), so the next impact arrives with u⁻ = −(2a/b)v⁺ = ρ|v⁻|, ρ = 2a/|b|: the ratio is the
/// same at every bounce and the effective restitution e = v⁻ₙ₊₁/v⁻ₙ ((edef)) is v⁺ of the
/// impact from (ρ, −1). `None` when the impact from there does not end in stick (then u⁺ ≠ 0
/// and the ratio is not invariant).
pub fn chatter_restitution(
    contact: &ImpactContact,
    free_tangential_accel: f64,
    free_normal_accel: f64,
    law: RestitutionLaw,
) -> Result<Option<f64>, SimError> {
    if free_normal_accel.is_nan() || free_normal_accel >= 0.0 {
        return Err(SimError::invalid(
            "b",
            free_normal_accel,
            "chatter needs a free normal acceleration towards the contact, b < 0 (C–V §3.3)",
        ));
    }
    crate::error::require_finite("a", free_tangential_accel)?;
    let ratio = -2.0 * free_tangential_accel / free_normal_accel;
    let out = contact.impact(ratio, -1.0, law)?;
    Ok(
        (out.u_plus == 0.0 && out.phases.last().is_some_and(|p| p.mode == Mode::Stick))
            .then_some(out.v_plus),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contact(aa: f64, bb: f64, cc: f64, mu: f64) -> ImpactContact {
        ImpactContact {
            tangential_mobility: aa,
            cross_mobility: bb,
            normal_mobility: cc,
            mu,
        }
    }

    const LAWS: [fn(f64) -> RestitutionLaw; 2] =
        [RestitutionLaw::Energetic, RestitutionLaw::Poisson];

    /// A frictionless-like normal impact (B = 0, u⁻ = 0): v⁺ = −r v⁻ under both laws, no
    /// tangential velocity.
    #[test]
    fn normal_impact_restitutes_r() {
        let c = contact(1.3, 0.0, 0.7, 0.4);
        for law in LAWS {
            for r in [0.0, 0.35, 1.0] {
                let out = c.impact(0.0, -2.0, law(r)).unwrap();
                assert!((out.v_plus - 2.0 * r).abs() < 1e-14, "{out:?}");
                assert_eq!(out.u_plus, 0.0);
                assert_eq!(out.mode_sequence(), "stick");
            }
        }
    }

    /// Slip through (u never reaches 0): v⁺ = −r v⁻ and u⁺ = u⁻ − k(1 + r)|v⁻|/p under both
    /// laws (hand derivation: v = v⁻ + pI, I_c = |v⁻|/p, W_c = −v⁻²/(2p)).
    #[test]
    fn slip_through_closed_form() {
        let c = contact(1.0, 0.5, 1.0, 0.3);
        let (p, k) = (c.painleve_parameter(1.0), c.slip_coupling(1.0));
        let (u, v, r) = (5.0, -1.0, 0.6);
        for law in LAWS {
            let out = c.impact(u, v, law(r)).unwrap();
            assert_eq!(out.mode_sequence(), "slide_right");
            assert!((out.v_plus - r).abs() < 1e-14);
            assert!((out.u_plus - (u - k * (1.0 + r) / p)).abs() < 1e-14);
        }
    }

    /// Slip that stops in compression, then stick (hand derivation): I₁ = u⁻/k, v₁ = v⁻ + pI₁,
    /// K = C − B²/A; Poisson v⁺ = r(K I₁ − v₁); energetic v⁺ = r √(v₁² + K(v⁻² − v₁²)/p).
    #[test]
    fn slip_then_stick_closed_forms() {
        let c = contact(1.0, 0.5, 1.0, 1.6);
        let (p, k, kk) = (
            c.painleve_parameter(1.0),
            c.slip_coupling(1.0),
            c.stick_normal_rate(),
        );
        let (u, v, r) = (4.0, -1.0, 0.7);
        let i1 = u / k;
        let v1 = v + p * i1;
        assert!(v1 < 0.0);
        let e = c.impact(u, v, RestitutionLaw::Energetic(r)).unwrap();
        let pn = c.impact(u, v, RestitutionLaw::Poisson(r)).unwrap();
        assert_eq!(e.mode_sequence(), "slide_right>stick");
        assert_eq!((e.u_plus, pn.u_plus), (0.0, 0.0));
        let want_e = r * (v1 * v1 + kk * (v * v - v1 * v1) / p).sqrt();
        assert!((e.v_plus - want_e).abs() < 1e-13, "{} {want_e}", e.v_plus);
        assert!((pn.v_plus - r * (kk * i1 - v1)).abs() < 1e-13);
        // K > p here (B > 0, μA > B): the stick phase makes v⁺ > r|v⁻|, above 1 for r = 0.7.
        assert!(e.v_plus > 1.0 && pn.v_plus > e.v_plus);
    }

    /// Invariants over the whole plane: impulse–momentum, energy never increases under the
    /// energetic law, the energetic normal work is (1 − r²)W_c, Poisson's impulse (1 + r)I_c.
    #[test]
    fn invariants_over_the_plane() {
        for c in [
            contact(1.0, 0.5, 1.0, 0.5),
            contact(1.0, -0.5, 1.0, 0.3), // k− < 0: reversal
            contact(1.0, 0.5, 1.0, 2.5),  // p+ < 0: Painlevé
            contact(2.0, 0.9, 0.6, 0.2),
        ] {
            for i in 0..41 {
                let u = -4.0 + 0.2 * f64::from(i);
                for r in [0.0, 0.5, 1.0] {
                    for law in LAWS {
                        let out = c.impact(u, -1.0, law(r)).unwrap();
                        let du = c.tangential_mobility * out.tangential_impulse
                            + c.cross_mobility * out.normal_impulse;
                        assert!((out.u_plus - u - du).abs() < 1e-12, "{c:?} {u} {out:?}");
                        assert!(out.v_plus >= -1e-14);
                        let t0 = c.contact_kinetic_energy(u, -1.0);
                        let t1 = c.contact_kinetic_energy(out.u_plus, out.v_plus);
                        match law(r) {
                            RestitutionLaw::Energetic(_) => {
                                assert!(t1 <= t0 * (1.0 + 1e-12), "{c:?} {u} {r}: {t0} → {t1}");
                                let want = (1.0 - r * r) * out.compression_work;
                                assert!((out.normal_work - want).abs() < 1e-12);
                            }
                            RestitutionLaw::Poisson(_) => {
                                let want = (1.0 + r) * out.compression_impulse;
                                assert!((out.normal_impulse - want).abs() < 1e-12);
                            }
                        }
                        // The tangential impulse obeys Coulomb: |I_T| ≤ μ I_N.
                        assert!(out.tangential_impulse.abs() <= c.mu * out.normal_impulse + 1e-12);
                    }
                }
            }
        }
    }

    /// Slip reversal happens exactly where C–V say: only with a k± < 0, for the incoming slip
    /// of the other sign stopped before the end of restitution.
    #[test]
    fn slip_reversal_needs_a_negative_k() {
        let reversal = contact(1.0, -0.5, 1.0, 0.3); // k− = μA + B = −0.2
        assert!(reversal.slip_coupling(-1.0) < 0.0);
        let out = reversal
            .impact(0.1, -1.0, RestitutionLaw::Energetic(0.5))
            .unwrap();
        assert!(out.reverses_slip(0.1), "{out:?}");
        assert_eq!(out.mode_sequence(), "slide_right>slide_left");
        // Incoming u < 0 keeps accelerating in the same direction.
        let left = reversal
            .impact(-0.1, -1.0, RestitutionLaw::Energetic(0.5))
            .unwrap();
        assert!(left.u_plus < -0.1);
        let typical = contact(1.0, 0.5, 1.0, 0.5);
        for i in 0..81 {
            let u = -4.0 + 0.1 * f64::from(i);
            for law in LAWS {
                assert!(!typical.impact(u, -1.0, law(0.8)).unwrap().reverses_slip(u));
            }
        }
    }

    /// The phase sequence changes at the closed-form boundaries and nowhere else.
    #[test]
    fn boundaries_separate_the_sequences() {
        let c = contact(1.0, 0.5, 1.0, 0.8);
        let r = 0.6;
        let bounds = c.incidence_boundaries(r);
        assert_eq!(bounds.len(), 4);
        for law in LAWS {
            for &(w, _) in &bounds {
                let below = c.impact(w - 1e-6, -1.0, law(r)).unwrap();
                let above = c.impact(w + 1e-6, -1.0, law(r)).unwrap();
                let sign = |o: &ImpactOutcome| {
                    o.phases
                        .iter()
                        .position(|p| p.mode == Mode::Stick)
                        .map(|i| o.phases[i].impulse_start < o.compression_impulse)
                };
                assert_ne!(
                    (below.mode_sequence(), sign(&below)),
                    (above.mode_sequence(), sign(&above)),
                    "{w}"
                );
            }
        }
    }

    /// The impact without collision (v⁻ = 0, p+ < 0, u⁻ > 0, C–V §3.2): the slip drives v
    /// negative, stops at I = u⁻/k+, then stick restitutes. v⁻ = 0 elsewhere is no impact.
    #[test]
    fn impact_without_collision() {
        let c = contact(1.0, 0.5, 1.0, 2.5);
        assert!(c.painleve_parameter(1.0) < 0.0);
        let out = c.impact(1.0, 0.0, RestitutionLaw::Energetic(0.0)).unwrap();
        assert_eq!(out.mode_sequence(), "slide_right>stick");
        assert!((out.phases[0].impulse_end - 1.0 / c.slip_coupling(1.0)).abs() < 1e-14);
        assert!(c.impact(-1.0, 0.0, RestitutionLaw::Energetic(0.0)).is_err());
        assert!(c.impact(1.0, 0.5, RestitutionLaw::Poisson(0.5)).is_err());
    }

    /// C–V §3.3: e = r for non-oblique impacts (B = 0); with B ≠ 0 and a slip → stick inside
    /// the impact e can exceed 1 for r < 1; the energetic e is r√(x² + (K/p)(1 − x²)) with
    /// x = 1 − ρp/k, ρ = 2a/|b| (hand derivation, docs/oblique_impact.md).
    #[test]
    fn chatter_restitution_closed_forms() {
        let flat = contact(1.0, 0.0, 1.0, 1.0);
        for law in LAWS {
            let e = chatter_restitution(&flat, 0.2, -1.0, law(0.7))
                .unwrap()
                .unwrap();
            assert!((e - 0.7).abs() < 1e-14);
        }
        let c = contact(1.0, 0.5, 1.0, 1.6);
        let (p, k, kk) = (
            c.painleve_parameter(1.0),
            c.slip_coupling(1.0),
            c.stick_normal_rate(),
        );
        let (a, b, r) = (1.0, -1.0, 0.7);
        let x: f64 = 1.0 - 2.0 * a / -b * p / k;
        let want = r * (x * x + kk / p * (1.0 - x * x)).sqrt();
        let e = chatter_restitution(&c, a, b, RestitutionLaw::Energetic(r))
            .unwrap()
            .unwrap();
        assert!((e - want).abs() < 1e-13 && e > 1.0, "{e} {want}");
        assert!(chatter_restitution(&c, a, 1.0, RestitutionLaw::Energetic(r)).is_err());
    }

    #[test]
    fn bad_input_names_the_field() {
        let e = contact(1.0, 2.0, 1.0, 0.5).impact(0.0, -1.0, RestitutionLaw::Poisson(0.5));
        assert!(e.unwrap_err().to_string().contains('B'));
        let e = contact(1.0, 0.0, 1.0, 0.5).impact(0.0, -1.0, RestitutionLaw::Poisson(1.5));
        assert!(e.unwrap_err().to_string().contains("restitution"));
        let e = contact(1.0, 0.0, 1.0, 0.5).impact(f64::NAN, -1.0, RestitutionLaw::Poisson(0.5));
        assert!(e.unwrap_err().to_string().contains("u_minus"));
    }
}
