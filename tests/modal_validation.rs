//! Issue 7 validation cases on the CPU reference (the `modal_*` rows of `softdem validate`):
//! three-point bending with the analytic mode (slope of F̂(δ̂) = 1 within 2 %), a disk with a
//! tabulated compaction mode (wall force = table within 2 %), the 3×3 packing (wall force =
//! 3 F_int(u_w/3) within 2 %), and the pullback / precomputed level sets against the exact
//! distance of the deformed shape (within `PULLBACK_TOL_H` grid spacings).

use softdem::backend::BackendKind;
use softdem::modal::validation::*;
use softdem::validation::Extent;

fn show(r: &softdem::validation::CaseReport) {
    for c in &r.checks {
        eprintln!(
            "{}: measured {:.6} expected {:.6} tol {} pass {}",
            c.name, c.measured, c.expected, c.tolerance, c.pass
        );
    }
    eprintln!("{} took {:.2} s", r.case, r.seconds);
}

#[test]
fn modal_bending_slope_is_one() {
    let r = run_bending(BackendKind::Cpu, Extent::Full).unwrap();
    show(&r);
    r.assert_all_pass();
}

#[test]
fn modal_disk_reproduces_the_table() {
    let r = run_compaction(BackendKind::Cpu, Extent::Full, 1).unwrap();
    show(&r);
    r.assert_all_pass();
}

#[test]
fn modal_packing_matches_the_energy_balance() {
    let r = run_compaction(BackendKind::Cpu, Extent::Full, 3).unwrap();
    show(&r);
    r.assert_all_pass();
}

#[test]
fn modal_pullback_matches_the_recomputed_distance() {
    let r = run_pullback().unwrap();
    eprintln!("{}", r.setup);
    show(&r);
    r.assert_all_pass();
}

/// Writes the figures of docs/modal.md (docs/img/modal_*.png) with src/plot.rs:
/// `cargo test --release --test modal_validation -- --ignored modal_docs_images`.
#[test]
#[ignore]
fn modal_docs_images() {
    let reports = run_all(BackendKind::Cpu).unwrap();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/img");
    for r in &reports {
        show(r);
        for f in &r.figures {
            softdem::plot::line_plot(&dir.join(&f.file), &f.spec).unwrap();
        }
    }
}
