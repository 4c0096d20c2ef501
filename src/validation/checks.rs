//! What a validation case reports (`CaseReport`: its checks, figures and series) and how much of
//! it runs (`Extent`): below `validation` and every case, wherever it lives (the modal cases of
//! `modal::validation` included), so the cases do not import the module that runs them.

use crate::plot::PlotSpec;

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
