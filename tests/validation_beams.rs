//! Issue 4, case 1: cantilever and simply supported beams (paper §4, eq 15–18, Figs 8–9).
//!
//! CPU: the full case (21-node profiles and the N = 9 … 81 convergence study) with every check of
//! `src/validation/{cantilever,simply_supported}.rs` asserted: profile within 0.02 δmax of the
//! analytic curve, fitted intercept of δmax/δmax^th in 1/N within 1 % of 1.
//! GPU: the stated prefix (`Extent::Prefix`: the 21-node profiles only; the convergence study
//! would take ~3 min on lavapipe), the same profile checks, and the deflections compared with
//! the CPU's: within 10⁻³ of δmax^th (both relax to the same static solution; the difference is
//! f32 rounding of forces that are ~10⁻⁸ at equilibrium).

use softdem::backend::BackendKind;
use softdem::validation::{cantilever, simply_supported, CaseReport, Extent};

fn max_dev(a: &CaseReport, b: &CaseReport, trace: &str) -> f64 {
    let (x, y) = (&a.trace(trace).values, &b.trace(trace).values);
    assert_eq!(x.len(), y.len());
    x.iter().zip(y).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max)
}

#[test]
fn cantilever_cpu() {
    let r = cantilever::run(BackendKind::Cpu, Extent::Full).unwrap();
    assert_eq!(r.checks.len(), 3);
    r.assert_all_pass();
}

#[test]
fn simply_supported_cpu() {
    let r = simply_supported::run(BackendKind::Cpu, Extent::Full).unwrap();
    assert_eq!(r.checks.len(), 5);
    r.assert_all_pass();
}

#[test]
fn cantilever_gpu_matches_cpu() {
    let gpu = cantilever::run(BackendKind::Gpu, Extent::Prefix).unwrap();
    gpu.assert_all_pass();
    let cpu = cantilever::run(BackendKind::Cpu, Extent::Prefix).unwrap();
    let d = max_dev(&cpu, &gpu, "profile_n21");
    assert!(d <= 1e-3, "cantilever profile: GPU vs CPU differ by {d:e} δmax^th");
}

#[test]
fn simply_supported_gpu_matches_cpu() {
    let gpu = simply_supported::run(BackendKind::Gpu, Extent::Prefix).unwrap();
    gpu.assert_all_pass();
    let cpu = simply_supported::run(BackendKind::Cpu, Extent::Prefix).unwrap();
    for t in ["profile_point_n21", "profile_uniform_n21"] {
        let d = max_dev(&cpu, &gpu, t);
        assert!(d <= 1e-3, "{t}: GPU vs CPU differ by {d:e} δmax^th");
    }
}
