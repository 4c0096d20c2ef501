//! Criterion benches of one sphere step on the CPU stepper (`spheres::cpu_stepper`), Hertz–Mindlin,
//! on `spheres::bench_scene::compressed_lattice` (a dense packing under slow compression).
//! Throughput in sphere-steps (`CpuSpheres::steps`, as `softdem bench`). `sphere_pass_cpu` times
//! each pass of a step alone at 10⁵ spheres (where the time of a step goes).
//! `sphere_step_random_cpu` steps the dense random packing (`bench_scene::random_dense`, spheres
//! in random order) in calls of 50 steps, with the cell order (`spheres::cell_order`, the
//! default) and without it (`user_order`), at 10⁴ and 10⁵ spheres.
//! Run: `cargo bench --bench spheres -- --noplot` (the 10⁵-sphere case is n = 47);
//! threads with RAYON_NUM_THREADS.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use softdem::spheres::bench_scene::{compressed_lattice, random_dense};
use softdem::spheres::cpu_stepper::{self as cs, CpuSpheres};

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
                sys.steps(s);
            })
        });
    }
    group.finish();
}

fn random_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("sphere_step_random_cpu");
    group.sample_size(10);
    let steps = 50u64;
    for (count, sorted) in [(1e4, true), (1e5, true), (1e5, false)] {
        let (p, states, laws, walls) = random_dense(count as usize);
        let mut sys = CpuSpheres::new(p, states, laws, walls);
        if !sorted {
            sys.cell_order_min = usize::MAX;
        }
        let what = if sorted { "cell_order" } else { "user_order" };
        group.throughput(Throughput::Elements(sys.states.len() as u64 * steps));
        group.bench_with_input(BenchmarkId::new(what, sys.states.len()), &steps, |b, &s| {
            b.iter(|| {
                sys.steps(s);
            })
        });
    }
    group.finish();
}

fn passes(c: &mut Criterion) {
    let mut group = c.benchmark_group("sphere_pass_cpu");
    group.sample_size(10);
    let mut sys = packing(47);
    for _ in 0..20 {
        sys.step();
    }
    group.throughput(Throughput::Elements(sys.states.len() as u64));
    let dt = sys.params.dt;
    group.bench_function("kick", |b| b.iter(|| cs::kick(&mut sys.states, &sys.forces, 0.0)));
    group.bench_function("drift", |b| b.iter(|| cs::drift(&mut sys.states, 0.0 * dt)));
    group.bench_function("needs_rebuild", |b| b.iter(|| sys.needs_rebuild()));
    group.bench_function("pair_pass", |b| b.iter(|| cs::pair_pass(&mut sys)));
    group.bench_function("wall_pass", |b| b.iter(|| cs::wall_pass(&mut sys)));
    group.bench_function("gather", |b| b.iter(|| cs::gather(&mut sys)));
    // As a step runs them: the pair pass and the gather as one sweep, and the closing kick with
    // the next kick + drift (Δt = 0 here, so the state does not move).
    group.bench_function("pair_gather", |b| b.iter(|| cs::pair_gather(&mut sys)));
    let next = cs::Drift {
        h: 0.0,
        dt: 0.0,
        lim: 0.5 * sys.params.skin,
    };
    group.bench_function("kick_pass", |b| {
        b.iter(|| cs::kick_pass(&mut sys.states, &sys.forces, 0.0, Some(next), &sys.x_ref))
    });
    group.bench_function("wall_gather", |b| b.iter(|| cs::wall_gather(&mut sys)));
    let pairs = sys.list.len();
    let touching = sys.pair_out.iter().filter(|o| o.f_n > 0.0).count();
    let walls = sys.wall_out.iter().filter(|o| o.f_n > 0.0).count();
    println!(
        "{} spheres, {pairs} candidate pairs, {touching} touching, {walls} wall contacts",
        sys.states.len()
    );
    group.bench_function("rebuild", |b| b.iter(|| sys.rebuild()));
    group.finish();
}

criterion_group!(benches, step, random_step, passes);
criterion_main!(benches);
