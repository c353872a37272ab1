//! Champneys–Várkonyi's consistency analysis of a planar single contact (§3.1) and its update by
//! normal regularisation (§4.3, Table 3 = `tab:summary2`): the Painlevé parameters p±, the slip
//! couplings k±, the stick forces and the friction cone, the cell of Table 3 that a state lies
//! in, and the outcomes the table predicts there (docs/champneys_varkonyi.md, "Table 3").
//!
//! Conventions are C–V's: `y ≥ 0` is the gap, `u` the slip velocity, `λ_T` the tangential force
//! (λ_T = −μλ_N in positive slip S+), and `a, b, A, B, C` the projected scalars of
//! [`ProjectedDynamics`] with `u̇ = a + Aλ_T + Bλ_N`, `v̇ = b + Bλ_T + Cλ_N`.

use super::ProjectedDynamics;
use serde::Serialize;

/// What a contact does on the fast (contact) time scale: C–V's modes and the impact without
/// collision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Outcome {
    /// Lift-off into free motion (`F`).
    LiftOff,
    /// Positive slip, u > 0 (`S+`).
    SlipPositive,
    /// Negative slip, u < 0 (`S-`).
    SlipNegative,
    /// Stick, u = 0 (`T`).
    Stick,
    /// Impact without collision: the normal force grows without bound until the slip stops.
    Iwc,
}

impl Outcome {
    pub const ALL: [Outcome; 5] = [
        Outcome::LiftOff,
        Outcome::SlipPositive,
        Outcome::SlipNegative,
        Outcome::Stick,
        Outcome::Iwc,
    ];

    /// C–V's symbol: `F`, `S+`, `S-`, `T` or `IWC`.
    pub fn symbol(self) -> &'static str {
        match self {
            Outcome::LiftOff => "F",
            Outcome::SlipPositive => "S+",
            Outcome::SlipNegative => "S-",
            Outcome::Stick => "T",
            Outcome::Iwc => "IWC",
        }
    }

    pub fn from_symbol(s: &str) -> Option<Self> {
        Outcome::ALL.into_iter().find(|o| o.symbol() == s)
    }
}

/// A set of outcomes as C–V write it: symbols in a fixed order joined by " and " (e.g.
/// `F and IWC`); empty for none.
pub fn outcome_set_text(set: &[Outcome]) -> String {
    let mut v = set.to_vec();
    v.sort();
    v.dedup();
    let names: Vec<_> = v.iter().map(|o| o.symbol()).collect();
    names.join(" and ")
}

/// The slip sign σ ∈ {+1, −1} of positive and negative slip.
pub const POSITIVE: f64 = 1.0;
pub const NEGATIVE: f64 = -1.0;

impl<const N: usize> ProjectedDynamics<f64, N> {
    /// C–V eqs. (pain_par+), (pain_par−): the Painlevé parameter of slip in direction σ,
    /// `p± = C ∓ μB` — the normal acceleration per unit normal force in that slip.
    pub fn painleve_parameter(&self, mu: f64, slip_sign: f64) -> f64 {
        self.normal_mobility - slip_sign * mu * self.cross_mobility
    }

    /// C–V eq. (pain_pars2): `k± = μA ∓ B`, the rate at which slip in direction σ decelerates
    /// per unit normal force: in that slip `u̇ = a − σ k_σ λ_N`.
    pub fn slip_coupling(&self, mu: f64, slip_sign: f64) -> f64 {
        mu * self.tangential_mobility - slip_sign * self.cross_mobility
    }

    /// C–V eq. (stickforces): the contact forces `(λ_T, λ_N)` that hold `u̇ = v̇ = 0`.
    pub fn stick_forces(&self) -> (f64, f64) {
        let (a, b) = (self.free_tangential_accel, self.free_normal_accel);
        let (aa, bb, cc) = (
            self.tangential_mobility,
            self.cross_mobility,
            self.normal_mobility,
        );
        let det = aa * cc - bb * bb;
        ((b * bb - a * cc) / det, (a * bb - aa * b) / det)
    }

    /// C–V eq. (frictioncone): whether the stick forces lie strictly inside the friction cone,
    /// `|λ_T| < μ λ_N` (which implies λ_N > 0).
    pub fn in_friction_cone(&self, mu: f64) -> bool {
        let (a, b) = (self.free_tangential_accel, self.free_normal_accel);
        let (p_plus, p_minus) = (
            self.painleve_parameter(mu, POSITIVE),
            self.painleve_parameter(mu, NEGATIVE),
        );
        let (k_plus, k_minus) = (
            self.slip_coupling(mu, POSITIVE),
            self.slip_coupling(mu, NEGATIVE),
        );
        a * p_plus + b * k_plus < 0.0 && -a * p_minus + b * k_minus < 0.0
    }

    /// Whether rigid slip in direction σ is consistent at u = 0 (C–V eqs. (udotslip±),
    /// (udotslip+>0), (udotslip−<0)): λ_N = −b/p_σ > 0 and the slip accelerates away from
    /// u = 0, σ u̇ = σ a − k_σ λ_N > 0.
    pub fn slip_consistent_at_rest(&self, mu: f64, slip_sign: f64) -> bool {
        let p = self.painleve_parameter(mu, slip_sign);
        let normal_force = -self.free_normal_accel / p;
        normal_force > 0.0
            && slip_sign * self.free_tangential_accel
                - self.slip_coupling(mu, slip_sign) * normal_force
                > 0.0
    }

    /// The cell of Table 3 this state lies in, with slip velocity `u0` (`None` on a boundary:
    /// b = 0 or p± = 0).
    pub fn table3_cell(&self, mu: f64, u0: f64) -> Option<Cell> {
        let b = self.free_normal_accel;
        let (p_plus, p_minus) = (
            self.painleve_parameter(mu, POSITIVE),
            self.painleve_parameter(mu, NEGATIVE),
        );
        let row = match (b > 0.0, b < 0.0, p_plus > 0.0, p_plus < 0.0, p_minus > 0.0) {
            _ if b == 0.0 || p_plus == 0.0 || p_minus == 0.0 => return None,
            (true, _, true, _, true) => Row::I,
            (true, _, true, _, false) => Row::II,
            (true, _, _, true, _) => Row::III,
            (_, true, true, _, true) => Row::IV,
            (_, true, true, _, false) => Row::V,
            (_, true, _, true, _) => Row::VI,
            _ => return None,
        };
        let column = if u0 > 0.0 {
            Column::I
        } else if u0 < 0.0 {
            Column::III
        } else {
            Column::II
        };
        Some(Cell { column, row })
    }

    /// The outcomes Table 3 predicts for this state with slip velocity `u0` (μ_s = μ): the
    /// table's entry, with its exclusive "or" resolved by the friction cone and the slip
    /// consistency at rest. Two outcomes mean an indeterminacy that the fast initial state
    /// decides. Empty on a boundary of the cells.
    pub fn table3_outcomes(&self, mu: f64, u0: f64) -> Vec<Outcome> {
        use Outcome::*;
        let Some(cell) = self.table3_cell(mu, u0) else {
            return Vec::new();
        };
        let cone = self.in_friction_cone(mu);
        let at_rest = || {
            let mut v = Vec::new();
            if cone {
                v.push(Stick);
            }
            if self.slip_consistent_at_rest(mu, POSITIVE) {
                v.push(SlipPositive);
            }
            if self.slip_consistent_at_rest(mu, NEGATIVE) {
                v.push(SlipNegative);
            }
            v
        };
        match (cell.column, cell.row) {
            (Column::I, Row::I | Row::II) | (Column::III, Row::I | Row::III) => vec![LiftOff],
            (Column::I, Row::III) | (Column::III, Row::II) => vec![LiftOff, Iwc],
            (Column::I, Row::IV | Row::V) => vec![SlipPositive],
            (Column::III, Row::IV | Row::VI) => vec![SlipNegative],
            (Column::I, Row::VI) | (Column::III, Row::V) => vec![Iwc],
            (Column::II, Row::I) => vec![LiftOff],
            // "F or (F and T)": the unstable rigid slip of Table 2 is dropped (§4.2).
            (Column::II, Row::II | Row::III) if cone => vec![LiftOff, Stick],
            (Column::II, Row::II | Row::III) => vec![LiftOff],
            // "T or S+ or S−", "S+ or T", "S− or T".
            (Column::II, Row::IV | Row::V | Row::VI) => at_rest(),
        }
    }
}

/// Rows of Table 3: the signs of b, p+, p−.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Row {
    /// b > 0, p+ > 0, p− > 0.
    I,
    /// b > 0, p+ > 0, p− < 0.
    II,
    /// b > 0, p+ < 0, p− > 0.
    III,
    /// b < 0, p+ > 0, p− > 0.
    IV,
    /// b < 0, p+ > 0, p− < 0.
    V,
    /// b < 0, p+ < 0, p− > 0.
    VI,
}

/// Columns of Table 3: the sign of u.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Column {
    /// u > 0.
    I,
    /// u = 0.
    II,
    /// u < 0.
    III,
}

/// A cell of Table 3, written as C–V do: `I(iii)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Cell {
    pub column: Column,
    pub row: Row,
}

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let column = match self.column {
            Column::I => "I",
            Column::II => "II",
            Column::III => "III",
        };
        let row = match self.row {
            Row::I => "i",
            Row::II => "ii",
            Row::III => "iii",
            Row::IV => "iv",
            Row::V => "v",
            Row::VI => "vi",
        };
        write!(f, "{column}({row})")
    }
}

/// Table 3's entry for a cell as printed (before the "or" is resolved), for reports.
pub fn table3_entry(cell: Cell) -> &'static str {
    match (cell.column, cell.row) {
        (Column::I, Row::I | Row::II) | (Column::III, Row::I | Row::III) => "F",
        (Column::I, Row::III) | (Column::III, Row::II) => "F and IWC",
        (Column::I, Row::IV | Row::V) => "S+",
        (Column::III, Row::IV | Row::VI) => "S-",
        (Column::I, Row::VI) | (Column::III, Row::V) => "IWC",
        (Column::II, Row::I) => "F",
        (Column::II, Row::II | Row::III) => "F or (F and T)",
        (Column::II, Row::IV) => "T or S+ or S-",
        (Column::II, Row::V) => "S+ or T",
        (Column::II, Row::VI) => "S- or T",
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Constant projected data (C–V's symbols), as the planar model has them.
    pub(crate) fn scalars(a: f64, b: f64, aa: f64, bb: f64, cc: f64) -> ProjectedDynamics<f64, 2> {
        ProjectedDynamics {
            gap: 0.0,
            u: 0.0,
            v: 0.0,
            free_accel: [a, b],
            accel_per_tangential: [aa, bb],
            accel_per_normal: [bb, cc],
            free_tangential_accel: a,
            free_normal_accel: b,
            tangential_mobility: aa,
            cross_mobility: bb,
            normal_mobility: cc,
        }
    }

    /// The stick forces solve u̇ = v̇ = 0, and the cone test is |λ_T| < μλ_N on them.
    #[test]
    fn stick_forces_hold_the_contact_and_the_cone_is_their_coulomb_test() {
        for &(a, b, mu) in &[
            (4.0, 1.0, 2.0),
            (-4.0, 1.0, 2.0),
            (0.3, -1.0, 0.2),
            (2.0, -1.0, 1.0),
        ] {
            for bb in [0.8, -0.8, 0.5] {
                let pd = scalars(a, b, 1.0, bb, 1.0);
                let (lt, ln) = pd.stick_forces();
                assert!(pd.tangential_accel(ln, lt).abs() < 1e-12);
                assert!(pd.normal_accel(ln, lt).abs() < 1e-12);
                assert_eq!(pd.in_friction_cone(mu), ln > 0.0 && lt.abs() < mu * ln);
            }
        }
    }

    /// p± and k± are the normal and tangential accelerations per unit normal force in slip.
    #[test]
    fn painleve_parameters_are_the_slip_accelerations() {
        let pd = scalars(0.3, -0.7, 1.1, 0.3, 0.1);
        let mu = 2.0;
        for sigma in [POSITIVE, NEGATIVE] {
            let (ln, lt) = (1.7, -sigma * mu * 1.7);
            let v_dot = pd.normal_accel(ln, lt);
            let u_dot = pd.tangential_accel(ln, lt);
            assert!((v_dot - (-0.7 + pd.painleve_parameter(mu, sigma) * ln)).abs() < 1e-14);
            assert!((u_dot - (0.3 - sigma * pd.slip_coupling(mu, sigma) * ln)).abs() < 1e-14);
        }
    }

    /// The named planar states fall in the cells they are named after, and the extra u0 = 0
    /// states resolve Table 3's "or" as computed by hand from eq. (frictioncone).
    #[test]
    fn named_states_lie_in_their_cells() {
        use Outcome::*;
        let p0 = |a, b| scalars(a, b, 1.0, 0.5, 1.0);
        let pp = |a, b| scalars(a, b, 1.0, 0.8, 1.0);
        let pm = |a, b| scalars(a, b, 1.0, -0.8, 1.0);
        let cell = |pd: ProjectedDynamics<f64, 2>, mu, u0| {
            pd.table3_cell(mu, u0).map(|c| c.to_string()).unwrap()
        };
        assert_eq!(cell(p0(0.0, 1.0), 1.0, 1.0), "I(i)");
        assert_eq!(cell(pm(0.0, 1.0), 2.0, 0.0), "II(ii)");
        assert_eq!(cell(pp(0.0, 1.0), 2.0, -1.0), "III(iii)");
        assert_eq!(cell(p0(0.0, -1.0), 1.0, 1.0), "I(iv)");
        assert_eq!(cell(pm(0.0, -1.0), 2.0, -1.0), "III(v)");
        assert_eq!(cell(pp(0.0, -1.0), 2.0, 1.0), "I(vi)");
        assert_eq!(pp(0.0, 1.0).table3_outcomes(2.0, 1.0), vec![LiftOff, Iwc]);
        assert_eq!(
            pm(-4.0, 1.0).table3_outcomes(2.0, 0.0),
            vec![LiftOff, Stick]
        );
        assert_eq!(pp(4.0, 1.0).table3_outcomes(2.0, 0.0), vec![LiftOff, Stick]);
        assert_eq!(p0(2.0, -1.0).table3_outcomes(1.0, 0.0), vec![SlipPositive]);
        assert_eq!(p0(-2.0, -1.0).table3_outcomes(1.0, 0.0), vec![SlipNegative]);
        assert_eq!(p0(0.0, -1.0).table3_outcomes(1.0, 0.0), vec![Stick]);
        assert_eq!(pm(3.0, -1.0).table3_outcomes(2.0, 0.0), vec![SlipPositive]);
        assert_eq!(pp(-3.0, -1.0).table3_outcomes(2.0, 0.0), vec![SlipNegative]);
        // Outside the cone in II(iii): lift-off only.
        assert_eq!(pp(0.0, 1.0).table3_outcomes(2.0, 0.0), vec![LiftOff]);
    }

    /// C–V eq. (nonpositive): at most one of k±, p± is non-positive, so whenever a slip is
    /// Painlevé-unstable (p_σ < 0) the stick that follows its IWC holds (k± > 0).
    #[test]
    fn at_most_one_of_p_and_k_is_non_positive() {
        let mut n = 0;
        for i in 0..40 {
            for j in 0..40 {
                let bb = -3.0 + 6.0 * f64::from(i) / 39.0;
                let mu = 0.05 + 4.0 * f64::from(j) / 39.0;
                let (aa, cc) = (1.0 + 0.25 * bb * bb, 1.2 + 0.9 * bb * bb); // AC − B² > 0
                let pd = scalars(0.0, 1.0, aa, bb, cc);
                let signs = [
                    pd.painleve_parameter(mu, POSITIVE),
                    pd.painleve_parameter(mu, NEGATIVE),
                    pd.slip_coupling(mu, POSITIVE),
                    pd.slip_coupling(mu, NEGATIVE),
                ];
                let negative = signs.iter().filter(|&&s| s <= 0.0).count();
                assert!(negative <= 1, "B = {bb}, μ = {mu}: {signs:?}");
                n += negative;
            }
        }
        assert!(n > 100, "the scan should reach the Painlevé regions");
    }
}
