//! Criterion benches of one sphere step on the CPU stepper (`spheres::cpu_stepper`), Hertz–Mindlin,
//! on `spheres::bench_scene::compressed_lattice` (a dense packing under slow compression).
//! Throughput in sphere-steps.
//! Run: `cargo bench --bench spheres` (the 10⁵-sphere case is n = 47).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use softdem::spheres::bench_scene::compressed_lattice;
use softdem::spheres::cpu_stepper::CpuSpheres;

fn packing(n: usize) -> CpuSpheres {
    let (p, states, laws, walls) = compressed_lattice(n);
    CpuSpheres::new(p, states, laws, walls)
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
