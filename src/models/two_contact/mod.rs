//! C–V's fast dynamics of two slipping contacts (`model = "two_contact"`, C–V §6.2–6.3, Fig.
//! unstableslip; docs/two_contact.md): Y_i'' = b_i + Σ_j P_ij f_j in the scaled variables
//! ([`system`]), run on the generic mode machine with the kinks f_j = 0 as located events, under
//! C–V's literal contact law and the harness's ([`system::ContactLaw`]). The system is
//! scale-free: there is no κ (the `kappa` column holds the placeholder 1).
//!
//! The physics: [`system`] (TC1 as a hybrid system), [`linear`] (S+S+ as a linear system, its
//! stable manifold), [`classification`] (C–V's classes of two slipping contacts) and [`runs`]
//! (one fast run and its measures). The study, a plan of the runner of its own: [`spec`] (the
//! experiment file) and [`study`] (its grid, columns and the run of one point); its report:
//! [`report`].
//!
//! ```toml
//! model = "two_contact"
//! [params]              # any key here or per entry of sweep.states
//! b = [-1.0, -1.0]
//! P = [[-0.055, 0.088], [0.055, -0.036]]   # rows: P_11 P_12; P_21 P_22
//! k = [-1.0, -1.0]      # f_j = max(k_j Y_j + q_j V_j, 0), k, q < 0
//! q = [-1.0, -1.0]
//! [sweep]
//! law = ["literal", "harness"]
//! circle = { radius = 5.0, n = 72 }      # starts around S+S+ (V = 0) and the bisected crossings
//! # or: starts = [{ Y = [0.0, 0.0], V = [0.0, 0.0] }]
//! # states = [{ label = "…", P = … }, …]  # variants of the system, each merged over [params]
//! [solver]
//! integrators = ["dop853"]
//! rtol = 1e-12
//! atol = 1e-12
//! window_scaled = 200
//! ```

pub mod classification;
pub mod linear;
pub mod report;
pub mod runs;
pub mod spec;
pub mod study;
pub mod system;

pub use spec::TwoContactStudy;
pub use study::circle_angle;
