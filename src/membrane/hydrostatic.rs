//! Validation 2 of issue 25, the hydrostatic check, as a case built from plain parameters
//! (`softdem validate` row `membrane_hydrostatic`, tests/membrane_hydrostatic.rs and
//! tests/membrane_escape.rs): a small triaxial cell confined at σ_c with the platens held.

use super::cases::max_patch_overlap;
use super::model::MembraneContact;
use super::triaxial::{grow_packing, CellSpec, Packing, TriaxialCell};

/// Result of `hydrostatic`.
#[derive(Clone, Debug)]
pub struct Hydrostatic {
    /// Mean stress of the granulate −(1/3V) Σ_grains Σ_contacts l·f (Love–Weber, V the volume
    /// enclosed by the membrane and the platens), and the confining stress σ_c.
    pub mean_stress: f64,
    pub sigma_c: f64,
    /// Axial stress on the bottom and top platens (force over the cross-section V/h).
    pub platen_stress: [f64; 2],
    pub volume: f64,
    pub n_grains: usize,
    pub n_vertices: usize,
    /// Largest grain speed at the end (m/s).
    pub max_speed: f64,
    /// Grains that left the cell through the membrane (`TriaxialCell::escaped`).
    pub escaped: usize,
    /// Largest overlap of a selected patch contact over the grain's radius at the end
    /// (`max_patch_overlap`; the zero-thickness patch is passed at 1).
    pub max_overlap_ratio: f64,
    /// The packing: growth factor λ of the radii, solid fraction, mean stress when grown.
    pub packing: Packing,
}

/// Case 2 of the issue (the hydrostatic check), scaled down: a random packing of 110 grains
/// (Table 2 radii 2.3–2.7 mm and friction 0.25, E softened to 4.6 GPa so Δt = 2 µs) grown in a
/// rigid cylinder R = 12.5 mm × 25 mm (`triaxial::grow_packing`), wrapped in a Table 2 membrane
/// of patches of side ≈ 4 mm with friction `membrane_friction` (Table 2: 1.2), rims sliding on
/// the platens (no rim stop: `hydrostatic_cell`); σ_c ramped on the membrane and on the top platen (servo on the rim's area) over
/// 5 ms, held `hold_ms` ms.
pub fn hydrostatic(sigma_c: f64, membrane_friction: f64, hold_ms: f64) -> Hydrostatic {
    let (cell, packing) = hydrostatic_cell(sigma_c, membrane_friction, hold_ms);
    let s = cell.sample();
    let n = cell.n_grains;
    let max_speed = cell.sys.spheres.states[..n]
        .iter()
        .map(|s| (s.vel[0] as f64).hypot(s.vel[1] as f64).hypot(s.vel[2] as f64))
        .fold(0.0, f64::max);
    Hydrostatic {
        mean_stress: s.mean_stress,
        sigma_c,
        platen_stress: s.platen_stress,
        volume: s.volume,
        n_grains: n,
        n_vertices: cell.n_vertices(),
        max_speed,
        escaped: s.escaped,
        max_overlap_ratio: max_patch_overlap(&cell.sys, n),
        packing,
    }
}

/// The cell of `hydrostatic` after the ramp and `hold_ms` ms of hold, and its packing.
pub fn hydrostatic_cell(
    sigma_c: f64,
    membrane_friction: f64,
    hold_ms: f64,
) -> (super::triaxial::TriaxialCell, Packing) {
    let spec = CellSpec {
        radius: 12.5e-3,
        height: 25e-3,
        n_grains: 110,
        sigma_c,
        membrane_friction,
        ..CellSpec::table3(1, 4.6e9, 2e-6)
    };
    let packing = grow_packing(&spec, 5e-5, 0.05 * sigma_c, 2000, 20_000);
    let mut cell = TriaxialCell::new(&spec, &packing, MembraneContact::Patches, 4e-3, 0.15e-3);
    // Rims sliding freely, no rim stop: the check is that the membrane carries σ_c to the grains,
    // and a cap held at the membrane's initial radius carries part of it on the end bands of
    // this 5-grain-wide cell (with the stop: mean grain stress 96.3 kPa, docs/membrane.md).
    cell.set_rim_stop(None);
    let ms = (1e-3 / spec.dt).round() as usize;
    cell.confine(5 * ms, (hold_ms * ms as f64) as usize, spec.height / (1e8 * 1e-3), 0.05);
    (cell, packing)
}
