//! Criterion benches of one sphere step on the CPU stepper (`spheres::cpu_stepper`), Hertz–Mindlin,
//! for a dense packing under slow compression: n³ rubber spheres (r = 1 cm, radii ±5 %) on a
//! simple cubic lattice overlapping their neighbours by ~0.5 % of r, between a floor and a lid
//! moving down at 1 mm/s, local damping 0.1. Throughput in sphere-steps.
//! Run: `cargo bench --bench spheres` (the 10⁵-sphere case is n = 47).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use softdem::spheres::cpu_stepper::CpuSpheres;
use softdem::spheres::pair_law::{LawTable, SphereMaterial};
use softdem::spheres::{PlaneWall, SphereParams, SphereState};

fn packing(n: usize) -> CpuSpheres {
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
    CpuSpheres::new(p, states, LawTable::hertz_mindlin(&[m, wall]), walls)
}

fn step(c: &mut Criterion) {
    let mut group = c.benchmark_group("sphere_step_cpu");
    group.sample_size(10);
    for n in [10usize, 22, 47] {
        let mut sys = packing(n);
        let steps = 5u64;
        group.throughput(Throughput::Elements(sys.states.len() as u64 * steps));
        group.bench_with_input(BenchmarkId::from_parameter(sys.states.len()), &steps, |b, &s| {
            b.iter(|| {
                for _ in 0..s {
                    sys.step();
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, step);
criterion_main!(benches);
