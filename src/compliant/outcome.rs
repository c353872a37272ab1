//! What a compliant run did on the fast time scale, in Champneys–Várkonyi's terms (F, S±, T,
//! IWC): the outcome rule of the mode table (docs/champneys_varkonyi.md, "The outcome rule").
//!
//! A run from the fast start (Y0, V0) to the end of its window s = t/√κ = s_end:
//!
//! - IWC if it slips (u0 ≠ 0), starts in contact, and the slip stops (u reaches 0) before the
//!   contact first opens — only an unbounded normal force stops a slip within O(√κ) time;
//! - else F if the contact is open at the end of the window;
//! - else the mode at the end: stick T, or slip S+ / S−.
//!
//! A bounce that re-closes is therefore not a lift-off.

use super::coulomb::Mode;
use super::record::RunRecord;
use super::Event;
use crate::model::consistency::Outcome;

/// The outcome of `record`, a run started with slip velocity `u0`.
pub fn fast_outcome(record: &RunRecord, u0: f64) -> Outcome {
    if u0 != 0.0 && slip_stop_before_opening(record).is_some() {
        return Outcome::Iwc;
    }
    let end = record.modes.last().map_or(Mode::Free, |m| m.mode);
    match end {
        Mode::Free => Outcome::LiftOff,
        Mode::Stick => Outcome::Stick,
        Mode::SlideRight => Outcome::SlipPositive,
        Mode::SlideLeft => Outcome::SlipNegative,
    }
}

/// Which way a slipping contact leaves first: IWC if the slip stops before the contact first
/// opens, F if the contact opens first (or the run starts open), `None` if neither happens in
/// the run. This is the F/IWC side of a start (the basin), independent of what the body does
/// after its first opening.
pub fn first_exit(record: &RunRecord) -> Option<Outcome> {
    if slip_stop_before_opening(record).is_some() {
        Some(Outcome::Iwc)
    } else if record.modes.first().is_some_and(|m| m.mode == Mode::Free) || record.separated {
        Some(Outcome::LiftOff)
    } else {
        None
    }
}

/// Whether the run starts in contact and its first slip stop comes before its first opening:
/// the index of the slip-stop event, if so.
pub fn slip_stop_before_opening(record: &RunRecord) -> Option<usize> {
    if !record.modes.first().is_some_and(|m| m.mode.is_contact()) {
        return None;
    }
    for (i, e) in record.events.iter().enumerate() {
        match e.event {
            Event::SlipStops => return Some(i),
            Event::ContactOpens => return None,
            _ => {}
        }
    }
    None
}
