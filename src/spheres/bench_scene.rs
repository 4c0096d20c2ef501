//! The sphere benchmark scene, shared by `benches/spheres.rs` and `softdem bench --gpu-report`:
//! a dense Hertz–Mindlin packing under slow compression. n³ rubber spheres (r = 1 cm, radii
//! ±5 %) on a simple cubic lattice overlapping their neighbours by ~0.5 % of r, between a floor
//! and a lid moving down at 1 mm/s, local damping 0.1 (the 10⁵-sphere case is n = 47).

use super::pair_law::{LawTable, SphereMaterial};
use super::{PlaneWall, SphereParams, SphereState};

/// A scene shaken for tests of rebuilds and sliding contacts: gravity along −z and
/// deterministic pseudo-random velocities in ±speed/2 and spins in ±spin/2 per component
/// (xorshift64 from `seed`, the same sequence on every platform).
pub fn shake(p: &mut SphereParams, states: &mut [SphereState], seed: u64, speed: f32, spin: f32) {
    p.gravity = [0.0, 0.0, -9.81];
    let mut seed = seed;
    let mut rand = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    for s in states {
        s.vel = [speed * rand(), speed * rand(), speed * rand()];
        s.omega = [spin * rand(), spin * rand(), spin * rand()];
    }
}

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
    between_plates(states, 0.0, top, m, wall)
}

/// The bench scenes' walls and parameters around `states`: a floor at z = `floor`, a lid at
/// z = `top` coming down at 1 mm/s, Hertz–Mindlin between `m` and the rigid `wall` material,
/// Δt = 2 µs, skin 0.5 mm, local damping 0.1.
fn between_plates(
    states: Vec<SphereState>,
    floor: f64,
    top: f64,
    m: SphereMaterial,
    wall: SphereMaterial,
) -> (SphereParams, Vec<SphereState>, LawTable, Vec<PlaneWall>) {
    let walls = vec![
        PlaneWall::new([0.0, 0.0, floor], [0.0, 0.0, 1.0], [0.0; 3], 1),
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

/// A dense polydisperse packing of about `count` spheres in random order: the memory and
/// locality case of the bench (the lattice above is cell-coherent, 2.7 candidate pairs per
/// sphere). Centres on a face-centred cubic lattice (nearest-neighbour distance a = 2 cm, 12
/// neighbours) jittered by up to ±0.4 % of a per component; radii (1.003 − 0.02 u) a/2 with u
/// uniform in [0, 1] (overlaps below ~3 % of r, gaps mostly within the skin: ≈ 6 candidate
/// pairs per sphere, the upper end of a dense random packing's 4–6, packing fraction ≈ 0.72).
/// Sphere order: a random permutation, so contact partners are far apart in memory (as in a
/// poured or generated packing). Walls, law, Δt, skin and damping as `compressed_lattice`.
pub fn random_dense(count: usize) -> (SphereParams, Vec<SphereState>, LawTable, Vec<PlaneWall>) {
    use crate::scenes::SplitMix;
    let m = SphereMaterial::RUBBER;
    let wall = SphereMaterial {
        young: f64::INFINITY,
        ..m
    };
    let a = 0.02;
    let c = a * std::f64::consts::SQRT_2; // conventional cubic cell
    let side = ((count as f64 / 4.0).cbrt().round() as usize).max(2);
    let basis = [[0.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.5, 0.0, 0.5], [0.0, 0.5, 0.5]];
    let mut rng = SplitMix(0x5eed_d3a5);
    let mut spheres = Vec::with_capacity(4 * side * side * side);
    for k in 0..side * side * side {
        let cell = [k % side, (k / side) % side, k / (side * side)];
        for b in &basis {
            let p: [f64; 3] =
                std::array::from_fn(|d| (cell[d] as f64 + b[d]) * c + 0.004 * a * (2.0 * rng.next_f64() - 1.0));
            spheres.push((p, (1.003 - 0.02 * rng.next_f64()) * 0.5 * a));
        }
    }
    // Random order (Fisher–Yates).
    for i in (1..spheres.len()).rev() {
        let j = ((rng.next_f64() * (i + 1) as f64) as usize).min(i);
        spheres.swap(i, j);
    }
    let states: Vec<SphereState> = spheres
        .iter()
        .map(|&(p, r)| SphereState::solid(p, r, m.density, 0))
        .collect();
    let floor = spheres.iter().map(|(p, r)| p[2] - r).fold(f64::INFINITY, f64::min);
    let top = spheres.iter().map(|(p, r)| p[2] + r).fold(f64::NEG_INFINITY, f64::max);
    between_plates(states, floor, top, m, wall)
}
