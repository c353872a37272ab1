//! The mechanical systems, one folder each, and the registry: the only place that lists them.
//!
//! An experiment file names its system with `model = "…"` (a `System::NAME`, a study's `MODEL`,
//! or the name of a plan the registry lists: `two_contact`, `schmid_mielke`, `rod_scenario`); an
//! integrator study (`kind = "integrator_study"`) is the work–precision study of the rod's
//! scenarios (`rod::scenario_system`). Adding a system: a folder
//! implementing [`System`](crate::experiment::system::System) and one line in `systems` below (README, "Adding a mechanical
//! system"); the registry macro (`crate::experiment::registry`) makes the rest.

pub mod dance;
pub mod described;
pub mod klarbring;
pub mod planar;
pub mod rod;
pub mod rod3d;
pub mod schmid_mielke;
pub mod spring_particle;
pub mod two_contact;

use crate::experiment::grammar::SpecError;
use crate::study::fast::basin::Basin;
use crate::study::fast::mode_table::ModeTable;
use crate::study::fast::plan::FastPlan;
use crate::study::fast::portraits::Portraits;
use crate::study::fast::stick_basin::StickBasin;
use crate::study::single::simulate_system;
use crate::study::work_precision::WorkPrecision;

crate::registry! {
    simulate = simulate_system(crate::study::single::RunFlags);
    systems {
        /// The rod slipping into its G-spot (`model = "rod_gspot"`).
        RodGspot(rod::gspot_study::RodGspot), report = rod::gspot_report::write_report;
        /// The rod's stick against Zhao–Liu's comparison systems (`model = "rod_stick_envelope"`).
        RodStickEnvelope(rod::stick_envelope::RodStickEnvelope),
            report = rod::stick_envelope_report::write_report;
        /// The 3D rod's dynamic jam (`model = "rod3d_jam"`).
        Rod3dJam(rod3d::study::Rod3dJam), report = rod3d::report::write_report;
        /// Klarbring's particle: the generic report, with its own sections
        /// (`System::report_sections`).
        Klarbring(klarbring::Klarbring);
        /// One impact of Klarbring's particle (`model = "klarbring_impacts"`).
        KlarbringImpacts(klarbring::KlarbringImpacts),
            report = klarbring::impacts_report::write_report;
        /// The planar oblique impact against the rigid impact laws (`model = "planar"`,
        /// `analysis = "oblique_impact"`).
        PlanarObliqueImpact(planar::oblique_impact::PlanarObliqueImpact),
            report = planar::oblique_impact_report::write_report;
        /// Chatter and reverse chatter (`model = "planar"`, `analysis = "chatter"`).
        PlanarChatter(planar::chatter::PlanarChatter), report = planar::chatter_report::write_report;
        /// Dance's particle starting to slide (`model = "dance"`).
        Dance(dance::Dance), table = dance::form::from_file;
        SpringParticle(spring_particle::SpringParticle),
            work_precision = SpringParticleWorkPrecision;
        /// A system described in the file (`model = "system"`).
        Described(described::Described), table = described::with_system_file,
            work_precision = DescribedWorkPrecision;
        /// The Painlevé rod's κ sweep, atlas and extrapolation atlas (`model = "rod"`,
        /// `analysis = "sweep"`, `"atlas"` or `"extrapolation"`) over its own grid.
        Rod(rod::Rod), sweep = rod::sweep::RodSweep, report_run = rod::report::write_run_report;
    }
    studies {
        /// The rod's mode table (`model = "rod"`, `analysis = "mode_table"`): the fast studies
        /// are generic over `FastContact` (`crate::study::fast`), one line per system and study.
        RodModeTable(FastPlan<ModeTable<rod::Rod, 3>, 3>), analysis = "mode_table";
        RodBasin(FastPlan<Basin<rod::Rod, 3>, 3>), analysis = "liftoff_iwc_basin";
        /// The planar mode table: `model = "planar"` without `analysis` too.
        PlanarModeTable(FastPlan<ModeTable<planar::Planar, 2>, 2>),
            example = "experiments/mode_table_planar.toml";
        /// The lift-off/IWC basins (`analysis = "liftoff_iwc_basin"`).
        PlanarBasin(FastPlan<Basin<planar::Planar, 2>, 2>), analysis = "liftoff_iwc_basin";
        /// The planar stick/lift-off basin (`analysis = "stick_liftoff_basin"`).
        PlanarStickBasin(FastPlan<StickBasin<planar::Planar, 2>, 2>),
            analysis = "stick_liftoff_basin";
        /// C–V's phase portraits (`analysis = "phase_portraits"`).
        PlanarPortraits(FastPlan<Portraits<planar::Planar, 2>, 2>), analysis = "phase_portraits";
    }
    plans {
        /// The work–precision study of the rod's scenarios (`model = "rod_scenario"`,
        /// `study = "work_precision"`; an integrator study's `kind = "integrator_study"` file
        /// is read as one).
        RodScenarioWorkPrecision(WorkPrecision<rod::scenario_system::RodScenario>),
            parse = rod::scenario_system::parse,
            report = crate::report::work_precision::write_run_report::<rod::scenario_system::RodScenario>,
            list = rod::scenario_system::NAME => rod::scenario_system::ABOUT,
                example = "experiments/integrators.toml";
        /// C–V's fast dynamics of two slipping contacts (`model = "two_contact"`).
        TwoContact(two_contact::TwoContactStudy), parse = two_contact_plan,
            report = two_contact::report::write_report,
            list = two_contact::spec::NAME => two_contact::spec::ABOUT,
                example = "experiments/two_contact_iwc.toml";
        SchmidMielke(schmid_mielke::spec::SmSpec), parse = schmid_mielke_plan,
            report = schmid_mielke::report::write_report,
            list = schmid_mielke::spec::NAME => schmid_mielke::spec::ABOUT,
                example = "experiments/sm_ip.toml";
    }
}

/// A `model = "two_contact"` file: the two-contact study.
fn two_contact_plan(
    text: &str,
    table: &toml::Table,
) -> Option<Result<two_contact::TwoContactStudy, SpecError>> {
    plan_of_model(
        text,
        table,
        two_contact::spec::NAME,
        two_contact::TwoContactStudy::parse,
    )
}

/// A `model = "schmid_mielke"` file: its own plan (incremental or compliant).
fn schmid_mielke_plan(
    text: &str,
    table: &toml::Table,
) -> Option<Result<schmid_mielke::spec::SmSpec, SpecError>> {
    plan_of_model(
        text,
        table,
        schmid_mielke::spec::NAME,
        schmid_mielke::spec::SmSpec::parse,
    )
}

/// `parse(text)` when the file's `model` is `name`, else `None` (not this plan's file).
fn plan_of_model<P>(
    text: &str,
    table: &toml::Table,
    name: &str,
    parse: fn(&str) -> Result<P, SpecError>,
) -> Option<Result<P, SpecError>> {
    (table.get("model").and_then(|m| m.as_str()) == Some(name)).then(|| parse(text))
}
