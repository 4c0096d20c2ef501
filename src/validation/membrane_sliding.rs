//! Row `membrane_sliding` (issue 25, validation 1; the paper's friction test, §3.2): a grain
//! (r = 2.5 mm, Table 2, rotation suppressed) pressed on a pinned flat membrane of side 1.33 mm by
//! gravity and dragged 4 mm at 2 cm/s. With patches (MSS_patch) the friction force and the height
//! are constant: relative fluctuation of the friction force ≤ 1e-3 and F_t/F_n = the mixed
//! μ = (0.25 + 1.2)/2 within 1 %; with vertex particles of radius 0.67 mm (MSS_particle) both
//! oscillate (reported: fluctuation and height range, asserted > 10× the patches'). CPU stepper.

use super::{CaseReport, Check};
use crate::membrane::cases::{relative_fluctuation, sliding};
use crate::membrane::MembraneContact;

fn range(v: &[f64]) -> f64 {
    v.iter().fold(f64::MIN, |a, &b| a.max(b)) - v.iter().fold(f64::MAX, |a, &b| a.min(b))
}

pub fn run() -> anyhow::Result<CaseReport> {
    let t0 = std::time::Instant::now();
    let (g, v, dist, dt) = (9.81, 0.02, 4e-3, 1e-5);
    let patch = sliding(MembraneContact::Patches, g, v, dist, dt);
    let part = sliding(MembraneContact::Particles, g, v, dist, dt);
    let tail = |s: &[f64]| s[s.len() / 4..].to_vec();
    let fp = relative_fluctuation(&tail(&patch.friction));
    let fq = relative_fluctuation(&tail(&part.friction));
    let mu = -tail(&patch.friction).iter().sum::<f64>() / tail(&patch.normal).iter().sum::<f64>();
    Ok(CaseReport {
        case: "membrane_sliding".into(),
        setup: "Pinned flat sheet 20 × 16 vertices, spacing 1.33 mm; grain r = 2.5 mm (E = 46 GPa, \
                μ = 0.25) on Table 2 membrane (μ = 1.2) under g; dragged 4 mm at 2 cm/s, Δt = 10 µs; \
                the last three quarters of the drag are measured (CPU)."
            .into(),
        checks: vec![
            Check::at_most("membrane_sliding_patch_friction_fluctuation", fp, 0.0, 1e-3),
            Check::relative("membrane_sliding_patch_friction_coefficient", mu, 0.725, 0.01),
            Check::at_most(
                "membrane_sliding_patch_height_range_m",
                range(&tail(&patch.z)),
                0.0,
                1e-8,
            ),
            Check::at_least("membrane_sliding_particle_friction_fluctuation", fq, 10.0 * fp, 0.0),
            Check::at_least(
                "membrane_sliding_particle_height_range_m",
                range(&tail(&part.z)),
                1e-6,
                0.0,
            )
            .reference(),
        ],
        seconds: t0.elapsed().as_secs_f64(),
        backend: "cpu".into(),
        ..Default::default()
    })
}
