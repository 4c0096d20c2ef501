//! Issue 4, case 2: ring under isotropic internal and external pressure (paper §5.1, eq 21–25).
//!
//! Both backends run the full case (six relaxed pressures, ~2.5 k steps) and assert the fitted
//! K_∂Ω within 2 % of eq 25; the GPU's ΔV/V0 values are compared with the CPU's within 10⁻⁶
//! (absolute; the values are ±10⁻³ … 4×10⁻³).

use softdem::backend::BackendKind;
use softdem::validation::{pressure_ring, Extent};

#[test]
fn pressure_ring_cpu() {
    let r = pressure_ring::run(BackendKind::Cpu, Extent::Full).unwrap();
    assert_eq!(r.checks.len(), 2);
    r.assert_all_pass();
}

#[test]
fn pressure_ring_gpu_matches_cpu() {
    let gpu = pressure_ring::run(BackendKind::Gpu, Extent::Full).unwrap();
    gpu.assert_all_pass();
    let cpu = pressure_ring::run(BackendKind::Cpu, Extent::Full).unwrap();
    let (a, b) = (&cpu.trace("dv_v0").values, &gpu.trace("dv_v0").values);
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= 1e-6, "ΔV/V0: CPU {x:e} vs GPU {y:e}");
    }
}

/// The beams' and the pressure ring's case files parse, and the embedded copies are the files on
/// disk; a malformed file is reported with its file and line.
#[test]
fn beams_case_file() {
    use softdem::validation::case_file::*;
    let b = beams();
    assert_eq!(b.profile_nodes, 21);
    assert_eq!(std::fs::read_to_string(BEAMS_PATH).unwrap(), BEAMS_TEXT);
    assert!(!pressure_ring().strains.is_empty());
    assert_eq!(std::fs::read_to_string(PRESSURE_RING_PATH).unwrap(), PRESSURE_RING_TEXT);
    let e = parse::<Beams>(
        BEAMS_PATH,
        &BEAMS_TEXT.replace("profile_nodes = 21", "profile_nodes = \"x\""),
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("scenarios/validation/beams.toml:7:"), "{e}");
}
