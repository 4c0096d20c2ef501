//! Row `membrane_triaxial` (issue 25, validation 3; the paper's §3.1, Tables 2–4, Fig. 5): case 1
//! (cylinder R = 25 mm, 1750 grains grown 100 mm high and compacted, Table 2 radii and friction, E
//! softened to 4.6 GPa with Δt = 2 µs: docs/membrane.md), wrapped once in MSS_patch (4.0 mm
//! patches) and once in MSS_particle (vertex particles 1.33 mm apart, r = 0.67 mm), confined to
//! σ_c = 100 kPa (5 ms ramp, 10 ms hold), sheared at v_p = 0.05 m/s to ε = `STRAIN`; the rims on
//! the rim stop at the membrane's initial radius (`TriaxialCell::rim_stop`, `rims.rs`), σ_p the
//! cap's force as a load cell reads it (the grains' platen force plus the membrane's axial force
//! on the cap, `TriaxialCell::load_cell`, the servo on the same measure) over the cap's
//! cross-section. Asserted: σ_p = σ_c before shearing (2 %), and the
//! two σ_d(ε) curves agree: their mean absolute difference over ε ∈ [0.1 %, STRAIN] ≤ 10 % of the
//! particle curve's peak σ_d (the paper: "no significant difference"), and no grain left the
//! cell through either membrane (`TriaxialCell::escaped` at every sample). Reported, not
//! asserted: the same agreement on the grains' platen force alone. Results: docs/membrane.md.
//! Reported: the membrane particle counts (paper 1131 and
//! 10440, ratio 9.2), the wall time per 20 ms of shearing (paper ≈ 5 and 32 min) and its ratio.
//! Minutes of CPU: a validate row and an ignored test, not CI.

use super::{CaseReport, Check, Figure};
use crate::membrane::triaxial::{grow_packing, sigma_d_at, triaxial_run, CellSpec, TriaxialRun, TriaxialSample};
use crate::membrane::MembraneContact;
use crate::plot::{PlotSpec, Series, Style};

/// Axial strain reached by the shearing.
pub const STRAIN: f64 = 0.03;

/// Mean |σ_d,patch − σ_d,particle| over ε ∈ [0.1 %, ε_max] (100 points) and the particle
/// curve's peak σ_d.
pub fn curve_difference(patch: &TriaxialRun, part: &TriaxialRun, eps_max: f64) -> (f64, f64) {
    curve_difference_of(patch, part, eps_max, |s| s.sigma_d)
}

/// As `curve_difference` for the σ_d that `sigma_d` reads from a sample (the row's, or the
/// grains' platen force alone: `grain_sigma_d`).
pub fn curve_difference_of(
    patch: &TriaxialRun,
    part: &TriaxialRun,
    eps_max: f64,
    sigma_d: fn(&TriaxialSample) -> f64,
) -> (f64, f64) {
    let with = |c: &[TriaxialSample]| -> Vec<TriaxialSample> {
        c.iter()
            .map(|s| TriaxialSample {
                sigma_d: sigma_d(s),
                ..*s
            })
            .collect()
    };
    let (a, b) = (with(&patch.curve), with(&part.curve));
    let k = 100;
    let diff = (0..=k)
        .map(|i| {
            let e = 1e-3 + (eps_max - 1e-3) * i as f64 / k as f64;
            (sigma_d_at(&a, e) - sigma_d_at(&b, e)).abs()
        })
        .sum::<f64>()
        / (k + 1) as f64;
    let peak = b.iter().map(|s| s.sigma_d).fold(0.0, f64::max);
    (diff, peak)
}

/// σ_d from the grains' platen force alone (without the caps' axial force on the membrane).
pub fn grain_sigma_d(s: &TriaxialSample) -> f64 {
    0.5 * (s.grain_platen_stress[0] + s.grain_platen_stress[1]) - (s.sigma_p - s.sigma_d)
}

/// The most grains outside the cell at any sample of a run (confinement end and shearing).
fn escaped(r: &TriaxialRun) -> usize {
    r.curve.iter().map(|s| s.escaped).fold(r.confined.escaped, usize::max)
}

/// Both runs of case 1 (shared packing).
pub fn case1(strain: f64) -> (TriaxialRun, TriaxialRun) {
    let spec = CellSpec::table3(1, 4.6e9, 2e-6);
    let packing = grow_packing(&spec, 5e-5, 0.05 * spec.sigma_c, 2000, 20_000);
    let patch = triaxial_run(&spec, &packing, MembraneContact::Patches, strain);
    let part = triaxial_run(&spec, &packing, MembraneContact::Particles, strain);
    (patch, part)
}

pub fn run() -> anyhow::Result<CaseReport> {
    let t0 = std::time::Instant::now();
    let (patch, part) = case1(STRAIN);
    let (diff, peak) = curve_difference(&patch, &part, STRAIN);
    let (diff_g, peak_g) = curve_difference_of(&patch, &part, STRAIN, grain_sigma_d);
    let checks = vec![
        Check::relative(
            "membrane_triaxial_patch_confined_sigma_p_pa",
            patch.confined.sigma_p,
            1e5,
            0.02,
        ),
        Check::relative(
            "membrane_triaxial_particle_confined_sigma_p_pa",
            part.confined.sigma_p,
            1e5,
            0.02,
        ),
        Check::at_most(
            "membrane_triaxial_sigma_d_mean_difference_over_peak",
            diff / peak,
            0.0,
            0.10,
        ),
        Check::at_most(
            "membrane_triaxial_grain_platen_sigma_d_mean_difference_over_peak",
            diff_g / peak_g,
            0.0,
            0.10,
        )
        .reference(),
        Check::at_most(
            "membrane_triaxial_patch_escaped_grains",
            escaped(&patch) as f64,
            0.0,
            0.0,
        ),
        Check::at_most(
            "membrane_triaxial_particle_escaped_grains",
            escaped(&part) as f64,
            0.0,
            0.0,
        ),
        Check::relative(
            "membrane_triaxial_particle_count_ratio",
            part.membrane_particles as f64 / patch.membrane_particles as f64,
            10440.0 / 1131.0,
            0.05,
        )
        .reference(),
        Check::at_least(
            "membrane_triaxial_speedup_per_20ms",
            part.seconds_per_20ms / patch.seconds_per_20ms,
            32.0 / 5.0,
            32.0 / 5.0,
        )
        .reference(),
    ];
    let series = |f: fn(&crate::membrane::triaxial::TriaxialSample) -> f64| {
        [("MSS_patch", &patch), ("MSS_particle", &part)]
            .iter()
            .map(|(name, r)| Series {
                name: name.to_string(),
                points: r.curve.iter().map(|s| (s.axial_strain, f(s))).collect(),
                style: Style::Line,
            })
            .collect::<Vec<_>>()
    };
    let figures = vec![
        Figure {
            file: "membrane_triaxial_sigma_d.png".into(),
            caption: "Fig. 5a: deviatoric stress against axial strain, case 1, MSS_patch and MSS_particle on the same packing".into(),
            spec: PlotSpec {
                title: "Triaxial test, case 1: σ_d(ε)".into(),
                x_label: "axial strain ε".into(),
                y_label: "σ_d (Pa)".into(),
                series: series(|s| s.sigma_d),
            },
        },
        Figure {
            file: "membrane_triaxial_volumetric.png".into(),
            caption: "Volumetric strain (compression > 0) from the volume enclosed by the membrane, case 1".into(),
            spec: PlotSpec {
                title: "Triaxial test, case 1: ε_v(ε)".into(),
                x_label: "axial strain ε".into(),
                y_label: "ε_v".into(),
                series: series(|s| s.volumetric_strain),
            },
        },
    ];
    Ok(CaseReport {
        case: "membrane_triaxial".into(),
        figures,
        setup: format!(
            "Case 1 of Table 3: R = 25 mm, grown 100 mm high and compacted at σ_c to h0 = {:.1} mm, {} grains \
             (Table 2 radii × λ, μ = 0.25, E softened to 4.6 GPa), \
             MSS_patch {} membrane particles (4.0 mm), MSS_particle {} (1.33 mm, r = 0.67 mm), Table 2 membrane; \
             σ_c = 100 kPa, v_p = 0.05 m/s to ε = {STRAIN}, Δt = 2 µs (CPU). Wall time per 20 ms of shearing: \
             patches {:.0} s, particles {:.0} s.",
            patch.confined.height * 1e3,
            patch.grains,
            patch.membrane_particles,
            part.membrane_particles,
            patch.seconds_per_20ms,
            part.seconds_per_20ms
        ),
        checks,
        seconds: t0.elapsed().as_secs_f64(),
        backend: "cpu".into(),
        ..Default::default()
    })
}
