//! Writes the outcome of the validation cases: `validation.csv` (one row per reported figure,
//! columns `check,measured,expected,tolerance,pass,kind`; `kind` is `asserted`, counted for the
//! exit code, or `reference`, one of the paper's approximate formulas reported with its
//! deviation), one PNG per figure and `report.md`, which lists each case's set-up, its checks
//! and its plots.

use super::CaseReport;
use crate::plot::line_plot;
use anyhow::Context as _;
use std::fmt::Write as _;
use std::path::Path;

/// The CSV text of all checks.
pub fn csv(reports: &[CaseReport]) -> String {
    let mut s = String::from("check,measured,expected,tolerance,pass,kind\n");
    for c in reports.iter().flat_map(|r| &r.checks) {
        let _ = writeln!(
            s,
            "{},{:.6e},{:.6e},{},{},{}",
            c.name,
            c.measured,
            c.expected,
            c.tolerance,
            c.pass,
            c.kind.as_str()
        );
    }
    s
}

/// The Markdown report (figures referenced by file name, next to it).
pub fn markdown(reports: &[CaseReport]) -> String {
    let all = || reports.iter().flat_map(|r| &r.checks);
    let total = all().filter(|c| c.asserted()).count();
    let passed = all().filter(|c| c.asserted() && c.pass).count();
    let refs = all().filter(|c| !c.asserted()).count();
    let mut s = String::new();
    let _ = writeln!(s, "# softdem validation report\n");
    let _ = writeln!(
        s,
        "Cases of issue 4 against the SPD paper (Trivino et al. 2026, §4–5) and rows `spheres_*` of issue 23 against \
         the multi-contact stress DEM paper (docs/spheres.md). {passed} of {total} asserted checks pass; \
         {refs} `reference` rows report the papers' approximate formulas and claims (eq 30, 33, 36, 37, the slope 2.1; \
         eq 11, Tatara, Table 2's timings) with their deviation and never fail the run. How the quantities are \
         measured: `src/validation/measure.rs`; discussion: `docs/validation.md`.\n"
    );
    let _ = writeln!(s, "| check | measured | expected | tolerance | rule | pass | kind |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for c in reports.iter().flat_map(|r| &r.checks) {
        let _ = writeln!(
            s,
            "| `{}` | {:.5} | {:.5} | {} | {} | {} | {} |",
            c.name,
            c.measured,
            c.expected,
            c.tolerance,
            c.rule,
            match (c.pass, c.asserted()) {
                (true, _) => "yes",
                (false, true) => "**no**",
                (false, false) => "no",
            },
            c.kind.as_str()
        );
    }
    for r in reports {
        let _ = writeln!(s, "\n## {}\n", r.case);
        let _ = writeln!(s, "{}\n", r.setup);
        let _ = writeln!(s, "Backend: {}; {:.1} s.\n", r.backend, r.seconds);
        for f in &r.figures {
            let _ = writeln!(s, "![{}]({})\n\n*{}*\n", f.spec.title, f.file, f.caption);
        }
    }
    s
}

/// Writes `validation.csv`, `report.md` and the PNGs into `out` (created if needed).
pub fn write(out: &Path, reports: &[CaseReport]) -> anyhow::Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    for f in reports.iter().flat_map(|r| &r.figures) {
        line_plot(&out.join(&f.file), &f.spec)?;
    }
    let csv_path = out.join("validation.csv");
    std::fs::write(&csv_path, csv(reports)).with_context(|| format!("writing {}", csv_path.display()))?;
    let md = out.join("report.md");
    std::fs::write(&md, markdown(reports)).with_context(|| format!("writing {}", md.display()))?;
    Ok(())
}
