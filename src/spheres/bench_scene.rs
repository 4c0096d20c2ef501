//! The sphere benchmark scene, shared by `benches/spheres.rs` and `softdem bench --gpu-report`:
//! a dense Hertz–Mindlin packing under slow compression. n³ rubber spheres (r = 1 cm, radii
//! ±5 %) on a simple cubic lattice overlapping their neighbours by ~0.5 % of r, between a floor
//! and a lid moving down at 1 mm/s, local damping 0.1 (the 10⁵-sphere case is n = 47).

use super::pair_law::{LawTable, SphereMaterial};
use super::{PlaneWall, SphereParams, SphereState};

/// Parameters, states, law table and walls of the n³ scene.
pub fn compressed_lattice(n: usize) -> (SphereParams, Vec<SphereState>, LawTable, Vec<PlaneWall>) {
    let m = SphereMaterial::RUBBER;
    let wall = SphereMaterial {
        young: f64::INFINITY,
        ..m
    };
    let a = 0.0199;
    let mut states = Vec::with_capacity(n * n * n);
    for k in 0..n * n * n {
        let (i, j, l) = (k % n, (k / n) % n, k / (n * n));
        // Deterministic radius jitter of ±5 % (polydisperse contacts of unequal overlap).
        let r = 0.01 * (1.0 + 0.05 * (((k * 7919) % 101) as f64 / 50.0 - 1.0)) * 0.999;
        states.push(SphereState::solid(
            [i as f64 * a, j as f64 * a, 0.0101 + l as f64 * a],
            r,
            m.density,
            0,
        ));
    }
    let top = 0.0101 + (n - 1) as f64 * a + 0.0101;
    let walls = vec![
        PlaneWall::new([0.0; 3], [0.0, 0.0, 1.0], [0.0; 3], 1),
        PlaneWall::new([0.0, 0.0, top], [0.0, 0.0, -1.0], [0.0, 0.0, -1e-3], 1),
    ];
    let p = SphereParams {
        dt: 2e-6,
        skin: 5e-4,
        local_damping: 0.1,
        ..Default::default()
    };
    (p, states, LawTable::hertz_mindlin(&[m, wall]), walls)
}
