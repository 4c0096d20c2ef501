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
pub mod elastica;
pub mod measure;
pub mod membrane_cylinder;
pub mod membrane_hydrostatic;
pub mod membrane_sliding;
pub mod membrane_triaxial;
pub mod plastic_limit;
pub mod pressure_ring;
pub mod report;
pub mod ring_compression;
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

use crate::backend::BackendKind;
use crate::plot::PlotSpec;
use std::path::Path;

/// Whether a row counts for the exit code of `softdem validate` (issue 19).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckKind {
    /// An exact reference of the model (an analytic solution of its continuum limit, a limit
    /// analysis, a calibration): a failing row fails the run.
    Asserted,
    /// One of the paper's approximate formulas (eq 30, 33, 36, 37, the slope 2.1), reported with
    /// its deviation and plotted; it never fails the run (docs/validation.md says why).
    Reference,
}

impl CheckKind {
    /// The CSV / report spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckKind::Asserted => "asserted",
            CheckKind::Reference => "reference",
        }
    }
}

/// One reported figure: `pass` is decided by the case (the comparison is stated in `rule`);
/// only `Asserted` rows count for the exit code.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// Starts with the case prefix (`cantilever_`, `simply_supported_`, `pressure_ring_`,
    /// `elastic_ring_`, `plastic_ring_`, `stiff_core_`).
    pub name: String,
    pub measured: f64,
    pub expected: f64,
    pub tolerance: f64,
    pub pass: bool,
    /// How measured, expected and tolerance are compared, in words (for the report).
    pub rule: String,
    pub kind: CheckKind,
}

impl Check {
    /// |measured − expected| ≤ tolerance · |expected|.
    pub fn relative(name: &str, measured: f64, expected: f64, tolerance: f64) -> Check {
        Check {
            name: name.into(),
            measured,
            expected,
            tolerance,
            pass: (measured - expected).abs() <= tolerance * expected.abs(),
            rule: "relative error ≤ tolerance".into(),
            kind: CheckKind::Asserted,
        }
    }

    /// |measured − expected| ≤ tolerance.
    pub fn absolute(name: &str, measured: f64, expected: f64, tolerance: f64) -> Check {
        Check {
            name: name.into(),
            measured,
            expected,
            tolerance,
            pass: (measured - expected).abs() <= tolerance,
            rule: "absolute error ≤ tolerance".into(),
            kind: CheckKind::Asserted,
        }
    }

    /// measured ≤ expected + tolerance (an upper bound).
    pub fn at_most(name: &str, measured: f64, expected: f64, tolerance: f64) -> Check {
        Check {
            name: name.into(),
            measured,
            expected,
            tolerance,
            pass: measured <= expected + tolerance,
            rule: "measured ≤ expected + tolerance".into(),
            kind: CheckKind::Asserted,
        }
    }

    /// measured ≥ expected − tolerance (a lower bound).
    pub fn at_least(name: &str, measured: f64, expected: f64, tolerance: f64) -> Check {
        Check {
            name: name.into(),
            measured,
            expected,
            tolerance,
            pass: measured >= expected - tolerance,
            rule: "measured ≥ expected − tolerance".into(),
            kind: CheckKind::Asserted,
        }
    }

    /// The same row as a `reference` row (reported, never fails the run).
    pub fn reference(mut self) -> Check {
        self.kind = CheckKind::Reference;
        self
    }

    /// Counts for the exit code.
    pub fn asserted(&self) -> bool {
        self.kind == CheckKind::Asserted
    }

    /// An asserted row that fails.
    pub fn fails(&self) -> bool {
        self.asserted() && !self.pass
    }
}

/// A figure of the report: written as `file` (a PNG name) next to `report.md`.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub file: String,
    /// One sentence under the plot (which paper figure it reproduces, what is drawn).
    pub caption: String,
    pub spec: PlotSpec,
}

/// A named series of numbers recorded during a run (for CPU/GPU comparisons in the tests).
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub name: String,
    pub values: Vec<f64>,
}

/// What one case produces.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaseReport {
    /// Case name (the check prefix without the trailing underscore).
    pub case: String,
    /// Parameters and set-up in a few lines of Markdown.
    pub setup: String,
    pub checks: Vec<Check>,
    pub figures: Vec<Figure>,
    pub traces: Vec<Trace>,
    /// Wall-clock seconds of the run.
    pub seconds: f64,
    pub backend: String,
}

impl CaseReport {
    /// Every asserted row passes (`reference` rows do not count).
    pub fn all_pass(&self) -> bool {
        self.checks.iter().all(|c| !c.fails())
    }

    /// The check of this name (panics when absent: for tests).
    pub fn check(&self, name: &str) -> &Check {
        self.checks
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no check named {name} in case {}", self.case))
    }

    /// The trace of this name (panics when absent: for tests).
    pub fn trace(&self, name: &str) -> &Trace {
        self.traces
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no trace named {name} in case {}", self.case))
    }

    /// Panics with every failing asserted check listed (for tests).
    pub fn assert_all_pass(&self) {
        let failed: Vec<String> = self
            .checks
            .iter()
            .filter(|c| c.fails())
            .map(|c| {
                format!(
                    "{}: measured {:.6} expected {:.6} tolerance {} ({})",
                    c.name, c.measured, c.expected, c.tolerance, c.rule
                )
            })
            .collect();
        assert!(
            failed.is_empty(),
            "failed checks of {}:\n{}",
            self.case,
            failed.join("\n")
        );
    }
}

/// How much of a case to run: `Full` is what `softdem validate` and the CPU tests run; `Prefix`
/// is the stated prefix the GPU tests run on lavapipe (see each case's `prefix` documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    Full,
    Prefix,
}

/// Runs every case on `kind`, writes `out/validation.csv`, `out/report.md` and the PNG plots, and
/// returns true when every asserted check passes (`reference` rows never fail the run).
pub fn run_all(kind: BackendKind, out: &Path) -> anyhow::Result<bool> {
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
    ] {
        let r = case(kind, Extent::Full)?;
        log(&r);
        reports.push(r);
    }
    for r in ring_compression::run_all_variants(kind, Extent::Full)? {
        log(&r);
        reports.push(r);
    }
    // Modal deformable bodies (issue 7): rows modal_* (src/modal/validation.rs).
    for r in crate::modal::validation::run_all(kind)? {
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
    ] {
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
    ] {
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
    ] {
        let r = case(kind)?;
        log(&r);
        reports.push(r);
    }
    report::write(out, &reports)?;
    Ok(reports.iter().all(|r| r.all_pass()))
}
