//! A compiled description as mechanics of the engine: every model function evaluates the
//! description's expression trees over the engine's number type.

use super::description::Compiled;
use crate::compliant::multi::{PlanarContacts, MAX_CONTACTS};
use crate::compliant::spatial_multi::SpatialContacts;
use crate::model::{
    ContactFrame, ContactKinematics, ContactSystem, Mechanics, PlanarContactSystem,
    ProjectedDynamics, Real, ValidityMargin,
};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The mechanics of a compiled description with N coordinates: one planar contact, several
/// ([`PlanarContacts`]), one spatial contact ([`ContactSystem`] with two tangents) or several
/// ([`SpatialContacts`]).
#[derive(Debug)]
pub struct DescribedMechanics<'a, const N: usize> {
    pub compiled: &'a Compiled,
    names: [&'static str; N],
    margins: Vec<ValidityMargin>,
    /// The first value of the vector field's program that came out NaN or infinite
    /// (`usize::MAX`: none yet), for the error of a run that fails on it.
    first_non_finite: AtomicUsize,
    /// The key and text of the first expression that came out NaN or infinite in the functions
    /// the formulations of several contacts and of a spatial contact call (M, f, F(t), the
    /// contacts' frames).
    first_non_finite_expression: OnceLock<(String, String)>,
}

impl<'a, const N: usize> DescribedMechanics<'a, N> {
    /// `compiled` must have N coordinates and one contact (its compilation checks the shape).
    pub fn new(compiled: &'a Compiled) -> Self {
        let name = crate::experiment::table::column_name;
        DescribedMechanics {
            compiled,
            names: std::array::from_fn(|i| name(&compiled.coordinates[i])),
            margins: compiled
                .validity
                .iter()
                .map(|(_, margin, meaning)| ValidityMargin {
                    quantity: name(margin),
                    meaning: name(meaning),
                })
                .collect(),
            first_non_finite: AtomicUsize::new(usize::MAX),
            first_non_finite_expression: OnceLock::new(),
        }
    }

    /// The key and text of the first expression that evaluated to a non-finite number.
    pub(crate) fn non_finite_source(&self) -> Option<&(String, String)> {
        let i = self.first_non_finite.load(Ordering::Relaxed);
        self.compiled
            .dynamics_sources
            .get(i)
            .or_else(|| self.first_non_finite_expression.get())
    }

    /// Note the first of `values` that is NaN or infinite, `source(i)` naming value i's
    /// expression. One sum tells whether any is (both propagate through it); the search for
    /// which runs only then.
    fn note_non_finite<S: Real>(
        &self,
        values: &[S],
        source: impl Fn(usize) -> Option<(String, String)>,
    ) {
        let any = values.iter().fold(0.0, |s, x| s + x.value());
        if any.is_finite() || self.first_non_finite_expression.get().is_some() {
            return;
        }
        if let Some(named) = values
            .iter()
            .position(|x| !x.value().is_finite())
            .and_then(source)
        {
            let _ = self.first_non_finite_expression.set(named);
        }
    }

    /// The key and text of `M[i][j]` (M's upper triangle leads the dynamics program's sources).
    fn mass_source(&self, i: usize, j: usize) -> Option<(String, String)> {
        let (i, j) = (i.min(j), i.max(j));
        let at = (0..i).map(|r| N - r).sum::<usize>() + (j - i);
        self.compiled.dynamics_sources.get(at).cloned()
    }

    /// The key and text of `f[i]` (and of the load's F_i(t), written in the same expression).
    fn force_source(&self, i: usize) -> Option<(String, String)> {
        self.compiled
            .dynamics_sources
            .get(N * (N + 1) / 2 + i)
            .cloned()
    }

    /// The key and text of value `i` of the kinematics program.
    fn kinematics_source(&self, i: usize) -> Option<(String, String)> {
        self.compiled.kinematics_sources.get(i).cloned()
    }
}

/// The components of `exprs` at (q, q̇, t).
fn eval<S: Real, const N: usize>(
    exprs: &[crate::expression::Expr],
    q: &[S],
    qdot: &[S],
    t: S,
) -> [S; N] {
    std::array::from_fn(|i| exprs[i].eval(q, qdot, t))
}

impl<const N: usize> Mechanics<N> for DescribedMechanics<'_, N> {
    fn coordinate_names(&self) -> [&'static str; N] {
        self.names
    }
    fn mass_matrix<S: Real>(&self, q: &[S; N]) -> [[S; N]; N] {
        let m: [[S; N]; N] =
            std::array::from_fn(|i| eval(&self.compiled.mass_matrix[i], q, q, S::zero()));
        self.note_non_finite(m.as_flattened(), |k| self.mass_source(k / N, k % N));
        m
    }
    fn generalized_force<S: Real>(&self, q: &[S; N], qdot: &[S; N]) -> [S; N] {
        let f = eval(&self.compiled.force, q, qdot, S::zero());
        self.note_non_finite(&f, |i| self.force_source(i));
        f
    }
    fn potential_energy<S: Real>(&self, q: &[S; N]) -> S {
        self.compiled
            .potential
            .as_ref()
            .map_or(S::zero(), |v| v.eval(q, q, S::zero()))
    }
    fn is_autonomous(&self) -> bool {
        self.compiled.load.is_none()
    }
    fn external_load<S: Real>(&self, t: S) -> [S; N] {
        match &self.compiled.load {
            Some(load) => {
                let f = eval(load, &[], &[], t);
                self.note_non_finite(&f, |i| self.force_source(i));
                f
            }
            None => [S::zero(); N],
        }
    }
    fn validity_margins(&self) -> &[ValidityMargin] {
        &self.margins
    }
    fn validity_margin(&self, index: usize, q: &[f64; N], qdot: &[f64; N]) -> f64 {
        self.compiled.validity[index].0.eval(q, qdot, 0.0)
    }
}

/// The longest output of a tape of a described system: M's upper triangle, f and the contact's
/// 2N + 3 values and the load F(t) with N ≤ 4 coordinates.
const MAX_OUTPUTS: usize = 32;

/// The longest output of the kinematics tape: 2N + 3 values per contact.
const MAX_KINEMATICS: usize = MAX_CONTACTS * (2 * super::MAX_COORDINATES + 3);

/// The contact's values `[gap, c, d, ḋᵀq̇, ċᵀq̇]` (the order of the compiled tapes) as kinematics.
fn kinematics<S: Real, const N: usize>(v: &[S]) -> ContactKinematics<S, N> {
    ContactKinematics {
        gap: v[0],
        tangential: std::array::from_fn(|i| v[1 + i]),
        normal: std::array::from_fn(|i| v[1 + N + i]),
        normal_drift: v[1 + 2 * N],
        tangential_drift: v[2 + 2 * N],
    }
}

impl<const N: usize> PlanarContactSystem<N> for DescribedMechanics<'_, N> {
    fn contact_kinematics<S: Real>(&self, q: &[S; N], qdot: &[S; N]) -> ContactKinematics<S, N> {
        PlanarContacts::contact(self, 0, q, qdot)
    }

    /// The whole state's values from one program (shared subexpressions once), then the
    /// projection by M = L D Lᵀ.
    fn projected_dynamics<S: Real>(
        &self,
        t: S,
        q: &[S; N],
        qdot: &[S; N],
    ) -> ProjectedDynamics<S, N> {
        let mut v = [S::zero(); MAX_OUTPUTS];
        self.compiled.dynamics.eval(q, qdot, t, &mut v);
        let outputs = &v[..self.compiled.dynamics.outputs()];
        // One sum tells whether any value is NaN or infinite (both propagate through it); the
        // search for which runs only then.
        let any = outputs.iter().fold(0.0, |s, x| s + x.value());
        if let Some(i) = (!any.is_finite())
            .then(|| outputs.iter().position(|x| !x.value().is_finite()))
            .flatten()
        {
            let _ = self.first_non_finite.compare_exchange(
                usize::MAX,
                i,
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
        }
        let mut m = [[S::zero(); N]; N];
        let mut at = 0;
        for (i, j) in (0..N).flat_map(|i| (i..N).map(move |j| (i, j))) {
            m[i][j] = v[at];
            m[j][i] = v[at];
            at += 1;
        }
        let mut f: [S; N] = std::array::from_fn(|i| v[at + i]);
        at += N;
        let contact = kinematics(&v[at..]);
        if !self.is_autonomous() {
            // F(t) follows the contact's 2N + 3 values in the program.
            let load = &v[at + 2 * N + 3..];
            for (fi, li) in f.iter_mut().zip(load) {
                *fi = *fi + *li;
            }
        }
        ProjectedDynamics::from_parts_ldl(&m, &f, &contact, qdot)
    }

    fn constant_contact_directions(&self) -> Option<([f64; N], [f64; N])> {
        let (c, d) = self.compiled.contacts[0].constant_directions.as_ref()?;
        Some((std::array::from_fn(|i| c[i]), std::array::from_fn(|i| d[i])))
    }
}

impl<const N: usize> PlanarContacts<N> for DescribedMechanics<'_, N> {
    fn contact_count(&self) -> usize {
        self.compiled.contacts.len()
    }

    /// Contact `k`'s values from the program of every contact's (shared subexpressions once).
    fn contact<S: Real>(&self, k: usize, q: &[S; N], qdot: &[S; N]) -> ContactKinematics<S, N> {
        let tape = &self.compiled.kinematics;
        // The short buffer when it holds them all: the event functions of one contact ask at
        // every sample, and a buffer is zeroed per call.
        // With one contact the vector field's program names a non-finite value
        // (projected_dynamics); with several, the kinematics program does.
        let several = self.compiled.contacts.len() > 1;
        let n = tape.outputs();
        if n <= MAX_OUTPUTS {
            let mut v = [S::zero(); MAX_OUTPUTS];
            tape.eval(q, qdot, S::zero(), &mut v);
            if several {
                self.note_non_finite(&v[..n], |i| self.kinematics_source(i));
            }
            kinematics(&v[k * (2 * N + 3)..])
        } else {
            let mut v = [S::zero(); MAX_KINEMATICS];
            tape.eval(q, qdot, S::zero(), &mut v);
            self.note_non_finite(&v[..n], |i| self.kinematics_source(i));
            kinematics(&v[k * (2 * N + 3)..])
        }
    }

    fn contact_name(&self, k: usize) -> String {
        self.compiled.contacts[k].name.clone()
    }
}

/// The longest output of the kinematics tape of spatial contacts: 3N + 4 values per contact.
const MAX_SPATIAL_KINEMATICS: usize = MAX_CONTACTS * (3 * super::MAX_COORDINATES + 4);

/// A spatial contact's frame from its values `[gap, c₁, d, ḋᵀq̇, ċ₁ᵀq̇, c₂, ċ₂ᵀq̇]` (the
/// order of the compiled kinematics program).
fn spatial_frame<S: Real, const N: usize>(v: &[S]) -> ContactFrame<S, N, 2> {
    let first = kinematics::<S, N>(v);
    let second = &v[2 * N + 3..];
    ContactFrame {
        gap: first.gap,
        normal: first.normal,
        tangents: [first.tangential, std::array::from_fn(|i| second[i])],
        normal_drift: first.normal_drift,
        tangent_drift: [first.tangential_drift, second[N]],
    }
}

/// Spatial contacts (the compilation makes a system's contacts all planar or all spatial):
/// contact `k`'s frame from the kinematics program of every contact's.
impl<const N: usize> SpatialContacts<N> for DescribedMechanics<'_, N> {
    fn contact_count(&self) -> usize {
        self.compiled.contacts.len()
    }

    fn frame<S: Real>(&self, k: usize, q: &[S; N], qdot: &[S; N]) -> ContactFrame<S, N, 2> {
        let tape = &self.compiled.kinematics;
        let n = tape.outputs();
        let at = k * (3 * N + 4);
        if n <= MAX_OUTPUTS {
            let mut v = [S::zero(); MAX_OUTPUTS];
            tape.eval(q, qdot, S::zero(), &mut v);
            self.note_non_finite(&v[..n], |i| self.kinematics_source(i));
            spatial_frame(&v[at..])
        } else {
            let mut v = [S::zero(); MAX_SPATIAL_KINEMATICS];
            tape.eval(q, qdot, S::zero(), &mut v);
            self.note_non_finite(&v[..n], |i| self.kinematics_source(i));
            spatial_frame(&v[at..])
        }
    }

    fn contact_name(&self, k: usize) -> String {
        self.compiled.contacts[k].name.clone()
    }
}

/// A system of one spatial contact: its frame.
impl<const N: usize> ContactSystem<N, 2, 1> for DescribedMechanics<'_, N> {
    fn contact_frames<S: Real>(&self, q: &[S; N], qdot: &[S; N]) -> [ContactFrame<S, N, 2>; 1] {
        [SpatialContacts::frame(self, 0, q, qdot)]
    }
}
