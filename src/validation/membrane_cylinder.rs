//! Row `membrane_cylinder` (issue 25, validation 4): an open membrane cylinder of Table 2's
//! membrane (R = 25 mm, patches of side ≈ 4 mm, 13 rings) under internal pressure p = 30 Pa
//! expands radially by p r²/(E h) (thin shell, no axial stress) within 2 %, off the two free rims
//! (which carry half the pressure area on full hoop springs and expand by half, also checked).
//! CPU stepper (`membrane::cases::cylinder_under_pressure`); the GPU force passes are compared
//! with the CPU's in tests/gpu_membrane.rs.

use super::{CaseReport, Check};
use crate::membrane::cases::cylinder_under_pressure;

pub fn run() -> anyhow::Result<CaseReport> {
    let t0 = std::time::Instant::now();
    let c = cylinder_under_pressure(0.025, 4e-3, 30.0, 0.0, 5e-6, 6000);
    let rims = 0.5 * (c.rings[0] + c.rings[c.rings.len() - 1]) / c.expected;
    Ok(CaseReport {
        case: "membrane_cylinder".into(),
        setup: format!(
            "Open cylinder R = 25 mm, {} vertices, Table 2 membrane (E = 1.25 MPa, h = 0.3 mm), \
             k = (√3/2) E h per edge, internal pressure 30 Pa (σ = −30 Pa, eq 18–19), global damping \
             at the breathing frequency, 6000 steps of 5 µs (CPU).",
            c.n_vertices
        ),
        checks: vec![
            Check::relative("membrane_cylinder_radial_expansion", c.mean, c.expected, 0.02),
            Check::at_most("membrane_cylinder_nonuniformity", c.spread / c.expected, 0.0, 0.02),
            Check::relative("membrane_cylinder_rim_expansion_ratio", rims, 0.5, 0.02),
        ],
        seconds: t0.elapsed().as_secs_f64(),
        backend: "cpu".into(),
        ..Default::default()
    })
}
