//! Writes the outcome of the validation cases: `validation.csv` (one row per asserted figure,
//! columns `check,measured,expected,tolerance,pass`), one PNG per figure and `report.md`, which
//! lists each case's set-up, its checks and its plots.

use super::CaseReport;
use crate::plot::line_plot;
use anyhow::Context as _;
use std::fmt::Write as _;
use std::path::Path;

/// The CSV text of all checks.
pub fn csv(reports: &[CaseReport]) -> String {
    let mut s = String::from("check,measured,expected,tolerance,pass\n");
    for c in reports.iter().flat_map(|r| &r.checks) {
        let _ = writeln!(
            s,
            "{},{:.6e},{:.6e},{},{}",
            c.name, c.measured, c.expected, c.tolerance, c.pass
        );
    }
    s
}

/// The Markdown report (figures referenced by file name, next to it).
pub fn markdown(reports: &[CaseReport]) -> String {
    let total = reports.iter().map(|r| r.checks.len()).sum::<usize>();
    let passed = reports.iter().flat_map(|r| &r.checks).filter(|c| c.pass).count();
    let mut s = String::new();
    let _ = writeln!(s, "# softdem validation report\n");
    let _ = writeln!(
        s,
        "Cases of issue 4 against the SPD paper (Trivino et al. 2026, §4–5). {passed} of {total} checks pass. \
         How the quantities are measured: `src/validation/measure.rs`; discussion: `docs/validation.md`.\n"
    );
    let _ = writeln!(s, "| check | measured | expected | tolerance | rule | pass |");
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for c in reports.iter().flat_map(|r| &r.checks) {
        let _ = writeln!(
            s,
            "| `{}` | {:.5} | {:.5} | {} | {} | {} |",
            c.name,
            c.measured,
            c.expected,
            c.tolerance,
            c.rule,
            if c.pass { "yes" } else { "**no**" }
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
