//! The slender rod touching a plane with one end in 3D (Champneys–Várkonyi §7): its mechanics
//! (five coordinates, a hand-coded [`crate::model::Mechanics`]: a described system has at most
//! four), the closed forms of its projection and Painlevé conditions, its rigid slip into the
//! dynamic jam away from the G-spot, and the compliant study of that jam as κ → 0.

pub mod jam;
pub mod mechanics;
pub mod painleve;
pub mod report;
pub mod study;
