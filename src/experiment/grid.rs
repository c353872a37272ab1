//! The parameter grid a system's `[params]` and `[sweep]` tables define: every parameter has
//! one [`Source`] (a fixed value, merged from `[params]` and one `[sweep] states` entry, or a
//! swept axis). A system's grid implements [`ParameterGrid`] with its list of sources; the
//! checks and the count shared by every grid are its provided methods.

use super::grammar::{check_sources, grid_size, merged_states, Source};
use crate::error::SimError;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A system's `[params]` with its `[sweep]`: the sources of its parameters and its axes.
pub(crate) trait ParameterGrid<'a> {
    /// The `[params]` table (also the type of a `[sweep] states` entry).
    type Params: Clone + Serialize + DeserializeOwned + 'a;
    /// One swept axis.
    type Axis: 'a;
    /// One entry of the fast `starts` list.
    type Start: 'a;

    fn params(&self) -> &'a Self::Params;
    /// The `[sweep] states` list, if given.
    fn state_entries(&self) -> Option<&'a [Self::Params]>;
    /// The fast `starts` list, if given.
    fn start_entries(&self) -> Option<&'a [Self::Start]>;
    /// Every parameter's source, for `[params]` merged with one state.
    fn sources(&self, p: &Self::Params) -> Vec<Source<'a, Self::Axis>>;
    fn axis_len(axis: &Self::Axis) -> usize;
    /// Validate an axis given under `key` ("sweep.NAME").
    fn validate_axis(axis: &Self::Axis, key: &str) -> Result<(), SimError>;

    /// `[params]` merged with each entry of `[sweep] states`.
    fn merged(&self) -> Result<Vec<Self::Params>, SimError> {
        merged_states(self.params(), self.state_entries())
    }

    /// Each key of every merged state has one source, the required ones are given and the
    /// axes are valid; returns whether Y0 or V0 is given anywhere (fixed or swept), which the
    /// fast `starts` list excludes.
    fn check_sources(&self) -> Result<bool, SimError> {
        let mut y0_v0_given = false;
        for p in self.merged()? {
            let sources = self.sources(&p);
            check_sources(&sources, Self::validate_axis)?;
            y0_v0_given |= sources
                .iter()
                .any(|s| matches!(s.name, "Y0" | "V0") && (s.fixed.is_some() || s.axis.is_some()));
        }
        Ok(y0_v0_given)
    }

    /// The number of states (an upper bound), counted without building them.
    fn size(&self) -> u128 {
        grid_size(
            &self.sources(self.params()),
            Self::axis_len,
            self.state_entries(),
            self.start_entries(),
        )
    }

    /// Whether a parameter is swept (for error messages that name the key).
    fn is_swept(&self, name: &str) -> bool {
        self.sources(self.params())
            .iter()
            .any(|s| s.name == name && s.axis.is_some())
    }
}
