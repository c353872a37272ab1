//! The `[system]` table of a described system, and its compilation into expression trees: every
//! expression parsed with the system's names, the contact frame differentiated symbolically, the
//! load split from the body force, and each mistake named by its key, its text and the position.

use crate::error::SimError;
use crate::expression::{parse, Expr, Symbol, Tape, Var, MAX_TAPE};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A number, or the name of a parameter.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum NumberOrName {
    Number(f64),
    Name(String),
}

impl Default for NumberOrName {
    fn default() -> Self {
        NumberOrName::Number(0.0)
    }
}

/// One contact of `[[system.contacts]]`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ContactDescription {
    /// Its name in the columns of runs.csv (`impulse_normal_<name>`).
    pub name: String,
    /// The normal gap g(q): > 0 when apart.
    pub gap: String,
    /// The tangential positions s_j(q): one (planar contact) or two (spatial).
    pub tangents: Vec<String>,
    /// Kinetic friction coefficient μ.
    pub mu: NumberOrName,
    /// Static friction coefficient μ_s ≥ μ (default μ).
    #[serde(default)]
    pub mu_s: Option<NumberOrName>,
    /// c_d of the spring–dashpot δ/κ + c_d δ̇/√κ (default 0).
    #[serde(default)]
    pub damping: NumberOrName,
    /// Newton's restitution coefficient e ∈ [0, 1] of the rigid reference's impacts (default:
    /// the compliant contact's own, e(c_d √C) of a frictionless impact at the impact's normal
    /// mobility C, 1 for an undamped spring: [`crate::rigid::multi::Restitution`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restitution: Option<NumberOrName>,
}

/// `[[system.validity]]`: a margin that must stay positive.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MarginDescription {
    pub margin: String,
    pub meaning: String,
}

/// `[system.initial]`: the start, in the parameters and `kappa`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InitialDescription {
    pub q: Vec<String>,
    pub q_dot: Vec<String>,
}

/// The `[system]` table.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Description {
    pub coordinates: Vec<String>,
    #[serde(default)]
    pub parameters: BTreeMap<String, f64>,
    /// M(q), rows of expressions; symmetric positive definite.
    pub mass_matrix: Vec<Vec<String>>,
    /// f(q, q̇, t): body forces, velocity terms included; terms in t alone are the load F(t).
    pub force: Vec<String>,
    /// V(q) of the conservative part of the force, for the energy balance (optional: without
    /// it the balance is not computed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub potential: Option<String>,
    #[serde(default)]
    pub validity: Vec<MarginDescription>,
    pub contacts: Vec<ContactDescription>,
    pub initial: InitialDescription,
}

/// One contact, compiled.
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledContact {
    pub name: String,
    pub gap: Expr,
    /// d = ∂g/∂q.
    pub normal: Vec<Expr>,
    /// c = ∂s/∂q.
    pub tangential: Vec<Expr>,
    /// ḋᵀq̇ = q̇ᵀ (∂²g/∂q²) q̇ and ċᵀq̇.
    pub normal_drift: Expr,
    pub tangential_drift: Expr,
    /// A spatial contact's second tangent (`None`: a planar contact).
    pub second_tangent: Option<SecondTangent>,
    /// Whether c and d are constant (a flat surface in coordinates that contain the contact
    /// point): then their values.
    pub constant_directions: Option<(Vec<f64>, Vec<f64>)>,
    pub mu: f64,
    pub mu_s: f64,
    pub damping: f64,
    /// Newton's restitution of the rigid reference: given, or `None` for the compliant
    /// contact's own ([`crate::rigid::multi::Restitution::SpringDashpot`]).
    pub restitution: Option<f64>,
}

/// The second tangent of a spatial contact: c₂ = ∂s₂/∂q and ċ₂ᵀq̇.
#[derive(Clone, Debug, PartialEq)]
pub struct SecondTangent {
    pub direction: Vec<Expr>,
    pub drift: Expr,
}

/// A description compiled at fixed parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Compiled {
    pub coordinates: Vec<String>,
    pub mass_matrix: Vec<Vec<Expr>>,
    /// f(q, q̇): the terms of `force` not in t.
    pub force: Vec<Expr>,
    /// F(t): the terms of `force` in t alone; `None` when there are none.
    pub load: Option<Vec<Expr>>,
    pub potential: Option<Expr>,
    pub validity: Vec<(Expr, String, String)>,
    pub contacts: Vec<CompiledContact>,
    /// Everything the vector field needs at one state, in one program (src/expression/tape.rs):
    /// M's upper triangle row by row, f, then the first contact's gap, c, d, ḋᵀq̇, ċᵀq̇, then
    /// F(t) when there is a load (the single-contact formulation's right-hand side).
    pub dynamics: Tape,
    /// The key and the text of the expression behind each value of `dynamics` (an error names
    /// the one that gave a non-finite number).
    pub dynamics_sources: Vec<(String, String)>,
    /// Each contact's gap, c, d, ḋᵀq̇, ċᵀq̇ (and a spatial contact's c₂, ċ₂ᵀq̇), contact after
    /// contact (the event functions, the several-contact and the spatial formulations).
    pub kinematics: Tape,
    /// The key and the text of the expression behind each value of `kinematics`.
    pub kinematics_sources: Vec<(String, String)>,
}

impl Compiled {
    /// Whether the system's contacts are spatial (two tangents each; the compilation makes
    /// them all planar or all spatial).
    pub(crate) fn is_spatial(&self) -> bool {
        self.contacts.iter().any(|c| c.second_tangent.is_some())
    }
}

fn invalid(field: &str, value: impl std::fmt::Display, requirement: &str) -> SimError {
    SimError::invalid(field, value.to_string(), requirement)
}

impl Description {
    /// The value of a number or a parameter's name.
    fn value(&self, field: &str, v: &NumberOrName) -> Result<f64, SimError> {
        match v {
            NumberOrName::Number(x) => Ok(*x),
            NumberOrName::Name(name) => self.parameters.get(name).copied().ok_or_else(|| {
                invalid(
                    field,
                    name,
                    &format!(
                        "is neither a number nor a parameter (parameters: {})",
                        self.parameter_list()
                    ),
                )
            }),
        }
    }

    fn parameter_list(&self) -> String {
        if self.parameters.is_empty() {
            "none".into()
        } else {
            self.parameters
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        }
    }

    /// What a name stands for in an expression of the system.
    fn symbol(&self, name: &str) -> Option<Symbol> {
        if let Some(i) = self.coordinates.iter().position(|c| c == name) {
            return Some(Symbol::Var(Var::Q(i)));
        }
        if let Some(base) = name.strip_suffix("_dot") {
            if let Some(i) = self.coordinates.iter().position(|c| c == base) {
                return Some(Symbol::Var(Var::Qdot(i)));
            }
        }
        if name == "t" {
            return Some(Symbol::Var(Var::T));
        }
        self.parameters.get(name).map(|&x| Symbol::Value(x))
    }

    /// Parse the expression at `field`, naming the variables it may use in an error.
    fn expr(&self, field: &str, text: &str, allowed: Allowed) -> Result<Expr, SimError> {
        let scope = |name: &str| self.symbol(name);
        let e = parse(text, &scope).map_err(|e| {
            invalid(
                field,
                format!("\"{text}\""),
                &format!("{e}; {}", self.names_hint()),
            )
        })?;
        let refused = match allowed {
            Allowed::Coordinates => e.depends_on(|v| !matches!(v, Var::Q(_))),
            Allowed::State => e.depends_on(|v| v == Var::T),
            Allowed::All => false,
        };
        if refused {
            let what = match allowed {
                Allowed::Coordinates => {
                    "may depend on the coordinates only (not on velocities or t)"
                }
                _ => "may not depend on t",
            };
            return Err(invalid(field, format!("\"{text}\""), what));
        }
        Ok(e)
    }

    fn names_hint(&self) -> String {
        format!(
            "names: the coordinates {}, their velocities {}, t, the parameters ({}), pi; functions sin cos tan exp ln sqrt abs",
            self.coordinates.join(" "),
            self.coordinates
                .iter()
                .map(|c| format!("{c}_dot"))
                .collect::<Vec<_>>()
                .join(" "),
            self.parameter_list()
        )
    }

    /// Check the shape of the description and compile its expressions.
    pub fn compile(&self) -> Result<Compiled, SimError> {
        let n = self.coordinates.len();
        if n == 0 {
            return Err(invalid(
                "system.coordinates",
                "[]",
                "name at least one coordinate",
            ));
        }
        let is_name = |c: &str| {
            c.chars()
                .next()
                .is_some_and(|ch| ch.is_alphabetic() || ch == '_')
                && c.chars().all(|ch| ch.is_alphanumeric() || ch == '_')
        };
        // A velocity's name, x_dot for coordinate x, is taken by the velocity: a coordinate or a
        // parameter of that name would be shadowed in the expressions without a word.
        let velocities: Vec<String> = self
            .coordinates
            .iter()
            .map(|c| format!("{c}_dot"))
            .collect();
        for (i, c) in self.coordinates.iter().enumerate() {
            if !is_name(c) || function_names().contains(&c.as_str()) || c == "t" || c == "pi" {
                return Err(invalid(
                    &format!("system.coordinates[{i}]"),
                    c,
                    "must be a name (letters, digits, '_'), not t, pi or a function",
                ));
            }
            if self.coordinates[..i].contains(c)
                || self.parameters.contains_key(c)
                || velocities.contains(c)
            {
                return Err(invalid(
                    &format!("system.coordinates[{i}]"),
                    c,
                    "is named twice (as a coordinate, a coordinate's velocity <coordinate>_dot or a parameter); give it one name",
                ));
            }
        }
        for (k, v) in &self.parameters {
            // t, pi and a velocity would win over the parameter in the expressions, kappa in
            // [initial] (the compliance) but not in the others.
            let reserved = function_names().contains(&k.as_str())
                || ["t", "pi", "kappa"].contains(&k.as_str())
                || velocities.contains(k);
            if !is_name(k) || reserved {
                return Err(invalid(
                    &format!("system.parameters.{k}"),
                    k,
                    "must be a name (letters, digits, '_'), not t, pi, kappa, a function or a coordinate's velocity (<coordinate>_dot); rename it",
                ));
            }
            crate::error::require_finite(&format!("system.parameters.{k}"), *v)?;
        }
        if self.mass_matrix.len() != n || self.mass_matrix.iter().any(|r| r.len() != n) {
            return Err(invalid(
                "system.mass_matrix",
                format!("{} rows", self.mass_matrix.len()),
                &format!("must be {n}×{n} (one row and one column per coordinate)"),
            ));
        }
        let mut mass = Vec::with_capacity(n);
        for (i, row) in self.mass_matrix.iter().enumerate() {
            let mut r = Vec::with_capacity(n);
            for (j, text) in row.iter().enumerate() {
                r.push(self.expr(
                    &format!("system.mass_matrix[{i}][{j}]"),
                    text,
                    Allowed::Coordinates,
                )?);
            }
            mass.push(r);
        }
        let mut pairs = (0..n).flat_map(|i| (0..i).map(move |j| (i, j)));
        if let Some((i, j)) = pairs.find(|&(i, j)| mass[i][j] != mass[j][i]) {
            return Err(invalid(
                &format!("system.mass_matrix[{i}][{j}]"),
                format!("\"{}\"", self.mass_matrix[i][j]),
                &format!(
                    "must equal system.mass_matrix[{j}][{i}] = \"{}\" (M is symmetric)",
                    self.mass_matrix[j][i]
                ),
            ));
        }
        if self.force.len() != n {
            return Err(invalid(
                "system.force",
                format!("{} components", self.force.len()),
                &format!("must have {n} components, one per coordinate"),
            ));
        }
        let mut force = Vec::with_capacity(n);
        let mut load = Vec::with_capacity(n);
        for (i, text) in self.force.iter().enumerate() {
            let field = format!("system.force[{i}]");
            let e = self.expr(&field, text, Allowed::All)?;
            // A load F(t) enters the formulation apart from f(q, q̇) (its work is accounted
            // apart): split the sum into its terms in t alone and the rest.
            let (in_t, rest): (Vec<Expr>, Vec<Expr>) = e
                .terms()
                .into_iter()
                .partition(|t| t.depends_on(|v| v == Var::T));
            if in_t
                .iter()
                .any(|t| t.depends_on(|v| matches!(v, Var::Q(_) | Var::Qdot(_))))
            {
                return Err(invalid(
                    &field,
                    format!("\"{text}\""),
                    "has a term that multiplies t with a coordinate or a velocity; write the time-dependent load as a sum of terms in t alone",
                ));
            }
            force.push(Expr::sum(rest));
            load.push(Expr::sum(in_t));
        }
        let load = load.iter().any(|l| *l != Expr::Num(0.0)).then_some(load);
        let potential = self
            .potential
            .as_deref()
            .map(|p| self.expr("system.potential", p, Allowed::Coordinates))
            .transpose()?;
        let mut validity = Vec::new();
        for (i, m) in self.validity.iter().enumerate() {
            let e = self.expr(
                &format!("system.validity[{i}].margin"),
                &m.margin,
                Allowed::State,
            )?;
            validity.push((e, m.margin.clone(), m.meaning.clone()));
        }
        if self.contacts.is_empty() {
            return Err(invalid(
                "system.contacts",
                "[]",
                "describe at least one contact",
            ));
        }
        if self.contacts.len() > crate::compliant::multi::MAX_CONTACTS {
            return Err(invalid(
                "system.contacts",
                format!("{} contacts", self.contacts.len()),
                &format!(
                    "a described system has at most {} contacts",
                    crate::compliant::multi::MAX_CONTACTS
                ),
            ));
        }
        let mut contacts = Vec::new();
        for (k, c) in self.contacts.iter().enumerate() {
            contacts.push(self.contact(k, c)?);
        }
        // The formulations of several contacts are planar (one tangent each) or spatial (two
        // each): a contact that differs from the first is refused.
        let spatial = contacts[0].second_tangent.is_some();
        if let Some(k) = contacts
            .iter()
            .position(|c| c.second_tangent.is_some() != spatial)
        {
            let (given, first) = if spatial { (1, 2) } else { (2, 1) };
            return Err(invalid(
                &format!("system.contacts[{k}].tangents"),
                format!("{given} tangents"),
                &format!("a system's contacts are all planar or all spatial, and system.contacts[0] has {first}: give every contact {first} tangential position{}", if first == 2 { "s" } else { "" }),
            ));
        }
        if self.initial.q.len() != n || self.initial.q_dot.len() != n {
            return Err(invalid(
                "system.initial",
                format!(
                    "{} positions, {} velocities",
                    self.initial.q.len(),
                    self.initial.q_dot.len()
                ),
                &format!("give q and q_dot with {n} components each"),
            ));
        }
        let c = &contacts[0];
        let kinematic: Vec<&Expr> = std::iter::once(&c.gap)
            .chain(&c.tangential)
            .chain(&c.normal)
            .chain([&c.normal_drift, &c.tangential_drift])
            .collect();
        let upper = (0..n).flat_map(|i| mass[i][i..].iter());
        // The load F(t) last, when there is one: the vector field adds it to f.
        let dynamic: Vec<&Expr> = upper
            .chain(&force)
            .chain(kinematic.iter().copied())
            .chain(load.iter().flatten())
            .collect();
        let too_long = || {
            invalid(
                "system",
                format!("more than {MAX_TAPE} distinct terms"),
                "the expressions are too long to evaluate on the stack; simplify them",
            )
        };
        let dynamics = Tape::new(&dynamic).ok_or_else(too_long)?;
        let key = "system.contacts[0]";
        let (gap, tangent) = (&self.contacts[0].gap, &self.contacts[0].tangents[0]);
        let sources = (0..n)
            .flat_map(|i| (i..n).map(move |j| (i, j)))
            .map(|(i, j)| {
                (
                    format!("system.mass_matrix[{i}][{j}]"),
                    self.mass_matrix[i][j].clone(),
                )
            })
            .chain(
                self.force
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (format!("system.force[{i}]"), t.clone())),
            )
            .chain(std::iter::once((format!("{key}.gap"), gap.clone())))
            .chain((0..n).map(|_| (format!("{key}.tangents[0]"), tangent.clone())))
            .chain((0..n).map(|_| (format!("{key}.gap"), gap.clone())))
            .chain([
                (format!("{key}.gap"), gap.clone()),
                (format!("{key}.tangents[0]"), tangent.clone()),
            ])
            .collect();
        // Every contact's values, contact after contact (the first's are `kinematic`).
        let all_contacts: Vec<&Expr> = contacts
            .iter()
            .flat_map(|c| {
                std::iter::once(&c.gap)
                    .chain(&c.tangential)
                    .chain(&c.normal)
                    .chain([&c.normal_drift, &c.tangential_drift])
                    .chain(
                        c.second_tangent
                            .iter()
                            .flat_map(|s| s.direction.iter().chain([&s.drift])),
                    )
            })
            .collect();
        let kinematics = Tape::new(&all_contacts).ok_or_else(too_long)?;
        // The sources of each contact's values, in the order of `all_contacts`.
        let kinematics_sources = self
            .contacts
            .iter()
            .enumerate()
            .flat_map(|(k, c)| {
                let key = format!("system.contacts[{k}]");
                let gap = (format!("{key}.gap"), c.gap.clone());
                let tangent = |j: usize| (format!("{key}.tangents[{j}]"), c.tangents[j].clone());
                let mut v = vec![gap.clone()];
                v.extend((0..n).map(|_| tangent(0)));
                v.extend((0..=n).map(|_| gap.clone()));
                v.push(tangent(0));
                if c.tangents.len() == 2 {
                    v.extend((0..=n).map(|_| tangent(1)));
                }
                v
            })
            .collect();
        Ok(Compiled {
            kinematics_sources,
            dynamics,
            dynamics_sources: sources,
            kinematics,
            coordinates: self.coordinates.clone(),
            mass_matrix: mass,
            force,
            load,
            potential,
            validity,
            contacts,
        })
    }

    fn contact(&self, k: usize, c: &ContactDescription) -> Result<CompiledContact, SimError> {
        let n = self.coordinates.len();
        let key = format!("system.contacts[{k}]");
        let named =
            !c.name.is_empty() && c.name.chars().all(|ch| ch.is_alphanumeric() || ch == '_');
        if !named {
            return Err(invalid(
                &format!("{key}.name"),
                &c.name,
                "must be a name (letters, digits, '_'): it names columns of runs.csv",
            ));
        }
        if let Some(first) = self.contacts[..k].iter().position(|d| d.name == c.name) {
            return Err(invalid(
                &format!("{key}.name"),
                &c.name,
                &format!(
                    "system.contacts[{first}] has this name: give each contact its own (it names columns of runs.csv)"
                ),
            ));
        }
        let gap = self.expr(&format!("{key}.gap"), &c.gap, Allowed::Coordinates)?;
        if !(1..=2).contains(&c.tangents.len()) {
            return Err(invalid(
                &format!("{key}.tangents"),
                format!("{} tangents", c.tangents.len()),
                "give one tangential position (a planar contact) or two (a spatial contact)",
            ));
        }
        if c.tangents.len() == 2 && n < 3 {
            return Err(invalid(
                &format!("{key}.tangents"),
                format!("2 tangents with {n} coordinates"),
                "a spatial contact's normal and two tangents need at least 3 coordinates; give one tangential position (a planar contact)",
            ));
        }
        let s = self.expr(
            &format!("{key}.tangents[0]"),
            &c.tangents[0],
            Allowed::Coordinates,
        )?;
        let gradient =
            |e: &Expr| -> Vec<Expr> { (0..n).map(|i| e.derivative(Var::Q(i))).collect() };
        let normal = gradient(&gap);
        let tangential = gradient(&s);
        // ḋᵀq̇ = Σ_i (Σ_j ∂d_i/∂q_j q̇_j) q̇_i, and the same for c.
        let drift = |direction: &[Expr]| -> Expr {
            Expr::sum(direction.iter().enumerate().flat_map(|(i, d_i)| {
                (0..n).map(move |j| {
                    d_i.derivative(Var::Q(j))
                        .times(Expr::Var(Var::Qdot(j)))
                        .times(Expr::Var(Var::Qdot(i)))
                })
            }))
        };
        let second_tangent = match c.tangents.get(1) {
            Some(text) => {
                let s2 = self.expr(&format!("{key}.tangents[1]"), text, Allowed::Coordinates)?;
                let direction = gradient(&s2);
                Some(SecondTangent {
                    drift: drift(&direction),
                    direction,
                })
            }
            None => None,
        };
        let constant = |v: &[Expr]| v.iter().map(Expr::constant).collect::<Option<Vec<f64>>>();
        let constant_directions = constant(&tangential).zip(constant(&normal));
        // A coefficient given by a parameter's name is refused naming the parameter too: its
        // value may come from [params] or [sweep], not from the contact's line.
        let field = |name: &str, v: &NumberOrName| match v {
            NumberOrName::Number(_) => format!("{key}.{name}"),
            NumberOrName::Name(parameter) => format!("{key}.{name} (the parameter {parameter})"),
        };
        let mu = self.value(&format!("{key}.mu"), &c.mu)?;
        let mu_s = match &c.mu_s {
            Some(v) => self.value(&format!("{key}.mu_s"), v)?,
            None => mu,
        };
        let damping = self.value(&format!("{key}.damping"), &c.damping)?;
        crate::error::require_non_negative(&field("mu", &c.mu), mu)?;
        let mu_s_field = c
            .mu_s
            .as_ref()
            .map_or_else(|| format!("{key}.mu_s"), |v| field("mu_s", v));
        if second_tangent.is_some() && mu_s != mu {
            return Err(invalid(
                &mu_s_field,
                mu_s,
                &format!("a spatial contact has one friction coefficient (its circular cone): drop mu_s or set it to mu = {mu}"),
            ));
        }
        if mu_s < mu {
            return Err(invalid(&mu_s_field, mu_s, &format!("must be ≥ mu = {mu}")));
        }
        crate::compliant::normal::require_resolvable_damping(
            &field("damping", &c.damping),
            damping,
        )?;
        let restitution = match &c.restitution {
            Some(v) => {
                let e = self.value(&format!("{key}.restitution"), v)?;
                if !(0.0..=1.0).contains(&e) {
                    return Err(invalid(
                        &field("restitution", v),
                        e,
                        "must lie in [0, 1] (Newton's coefficient of the rigid reference)",
                    ));
                }
                Some(e)
            }
            None => None,
        };
        Ok(CompiledContact {
            name: c.name.clone(),
            normal_drift: drift(&normal),
            tangential_drift: drift(&tangential),
            second_tangent,
            gap,
            normal,
            tangential,
            constant_directions,
            mu,
            mu_s,
            damping,
            restitution,
        })
    }

    /// The initial state at compliance `kappa`.
    pub fn initial_state(&self, kappa: f64) -> Result<(Vec<f64>, Vec<f64>), SimError> {
        let scope = |name: &str| match name {
            "kappa" => Some(Symbol::Value(kappa)),
            _ => self.parameters.get(name).map(|&x| Symbol::Value(x)),
        };
        let eval = |field: String, text: &str| -> Result<f64, SimError> {
            let e = parse(text, &scope).map_err(|e| {
                invalid(
                    &field,
                    format!("\"{text}\""),
                    &format!(
                        "{e}; names: the parameters ({}), kappa, pi",
                        self.parameter_list()
                    ),
                )
            })?;
            let x = e.eval::<f64>(&[], &[], 0.0);
            if !x.is_finite() {
                return Err(invalid(
                    &field,
                    format!("\"{text}\""),
                    "evaluates to a non-finite number",
                ));
            }
            Ok(x)
        };
        let q = self
            .initial
            .q
            .iter()
            .enumerate()
            .map(|(i, t)| eval(format!("system.initial.q[{i}]"), t));
        let qdot = self
            .initial
            .q_dot
            .iter()
            .enumerate()
            .map(|(i, t)| eval(format!("system.initial.q_dot[{i}]"), t));
        Ok((
            q.collect::<Result<_, _>>()?,
            qdot.collect::<Result<_, _>>()?,
        ))
    }
}

/// The function names, which a coordinate may not take.
fn function_names() -> Vec<&'static str> {
    crate::expression::Func::NAMES
        .iter()
        .map(|(n, _)| *n)
        .collect()
}

/// Which variables an expression may use.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Allowed {
    Coordinates,
    State,
    All,
}
