//! Validation against the SPD paper's analytic results (§4–5; issue 4): beams under point forces,
//! a ring under isotropic pressure and the diametral compression of elastic, plastic and
//! stiff-core rings between two walls.
//!
//! Every case is built programmatically (one file per case) from its parameter file in
//! `scenarios/validation/` (`case_file.rs`, `ring_compression::Params::parse`) and driven through the `Backend`
//! trait only, so the same code runs on the CPU reference and on the GPU. A case returns a
//! [`CaseReport`]: one [`Check`] per reported figure (measured, expected, tolerance, pass, kind:
//! `asserted` rows are exact references of the model and decide the exit code, `reference` rows
//! are the paper's approximate formulas, reported with their deviation; issue 19), the plots
//! (simulation vs analytic curve) and the series that the GPU tests compare with the CPU's.
//! [`run_all`] runs every case and writes `validation.csv` and `report.md` (`report.rs`).
//! How L_c, a, b, V, F and the pressure profile are measured is documented in `measure.rs`.

pub mod beads_core_shell;
pub mod beads_disordered;
pub mod beads_kv;
pub mod beads_lattice;
pub mod beads_relaxation;
pub mod beads_sphere;
pub mod cantilever;
pub mod case_file;
pub mod checks;
pub mod elastica;
pub mod measure;
pub mod membrane_cylinder;
pub mod membrane_hydrostatic;
pub mod membrane_sliding;
pub mod membrane_triaxial;
pub mod ode;
pub mod plastic_limit;
pub mod pressure_ring;
pub mod report;
pub mod ring_compression;
pub mod ring_run;
pub mod simply_supported;
pub mod sphere_sim;
pub mod spheres_collisions;
pub mod spheres_eq11;
pub mod spheres_hertz;
pub mod spheres_mindlin;
pub mod spheres_oedometer;
pub mod spheres_oedometer_glass;
pub mod spheres_oedometer_rubber;
pub mod spheres_plates;

pub use checks::{CaseReport, Check, CheckKind, Extent, Figure, Trace};

use crate::backend::BackendKind;
use std::path::Path;

/// The families of validation cases, one per engine (`softdem validate --only`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Family {
    /// SPD beams and rings (rows cantilever, simply_supported, pressure_ring, ring_*).
    Spd,
    /// Modal level-set bodies (rows modal_*).
    Modal,
    /// 3D spheres (rows spheres_*).
    Spheres,
    /// Membranes (rows membrane_*; the triaxial case takes ~11 min on 2 cores).
    Membrane,
    /// Bonded beads (rows beads_*).
    Beads,
}

/// Runs every case of the `only` families (all when empty) on `kind`, writes
/// `out/validation.csv`, `out/report.md` and the PNG plots, and returns true when every asserted
/// check passes (`reference` rows never fail the run).
pub fn run_all(kind: BackendKind, out: &Path, only: &[Family]) -> anyhow::Result<bool> {
    let wants = |f: Family| only.is_empty() || only.contains(&f);
    let mut reports = Vec::new();
    let log = |r: &CaseReport| {
        eprintln!(
            "validate: {:<18} {:>6.1} s  {} / {} asserted checks pass, {} reference rows",
            r.case,
            r.seconds,
            r.checks.iter().filter(|c| c.asserted() && c.pass).count(),
            r.checks.iter().filter(|c| c.asserted()).count(),
            r.checks.iter().filter(|c| !c.asserted()).count()
        );
    };
    for case in [
        cantilever::run as fn(BackendKind, Extent) -> anyhow::Result<CaseReport>,
        simply_supported::run,
        pressure_ring::run,
    ]
    .into_iter()
    .filter(|_| wants(Family::Spd))
    {
        let r = case(kind, Extent::Full)?;
        log(&r);
        reports.push(r);
    }
    let rings = match wants(Family::Spd) {
        true => ring_compression::run_all_variants(kind, Extent::Full)?,
        false => Vec::new(),
    };
    for r in rings {
        log(&r);
        reports.push(r);
    }
    // Modal deformable bodies (issue 7): rows modal_* (src/modal/validation.rs).
    let modal = match wants(Family::Modal) {
        true => crate::modal::validation::run_all(kind)?,
        false => Vec::new(),
    };
    for r in modal {
        log(&r);
        reports.push(r);
    }
    // 3D spheres (issue 23): rows spheres_* (src/validation/spheres_*.rs, docs/spheres.md).
    for case in [
        spheres_hertz::run as fn(BackendKind, Extent) -> anyhow::Result<CaseReport>,
        spheres_mindlin::run,
        spheres_eq11::run,
        spheres_collisions::run,
        spheres_plates::run,
        spheres_oedometer::run,
        spheres_oedometer_rubber::run,
        spheres_oedometer_glass::run,
    ]
    .into_iter()
    .filter(|_| wants(Family::Spheres))
    {
        let r = case(kind, Extent::Full)?;
        log(&r);
        reports.push(r);
    }
    // Membranes with patch contacts (issue 25): rows membrane_* (CPU stepper on either backend).
    for case in [
        membrane_cylinder::run as fn() -> anyhow::Result<CaseReport>,
        membrane_sliding::run,
        membrane_hydrostatic::run,
        membrane_triaxial::run,
    ]
    .into_iter()
    .filter(|_| wants(Family::Membrane))
    {
        let r = case()?;
        log(&r);
        reports.push(r);
    }
    // Bonded beads (issue 24): rows beads_* (src/validation/beads_*.rs, docs/beads.md).
    for case in [
        beads_kv::run as fn(BackendKind) -> anyhow::Result<CaseReport>,
        beads_lattice::run,
        beads_sphere::run,
        beads_disordered::run,
        beads_relaxation::run,
        beads_core_shell::run,
    ]
    .into_iter()
    .filter(|_| wants(Family::Beads))
    {
        let r = case(kind)?;
        log(&r);
        reports.push(r);
    }
    report::write(out, &reports)?;
    Ok(reports.iter().all(|r| r.all_pass()))
}
