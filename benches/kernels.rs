//! Criterion benches of one SPD step (all kernels: integrate, core_area, broad phase when due,
//! contact_pairs, node_forces) on both backends, for small packings of 32-node cells.
//! Figures in node-steps/s come from `softdem bench`; these track regressions.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use softdem::backend::{create, BackendKind};
use softdem::scenes::{packing_in_box, PackingSpec};

fn step(c: &mut Criterion) {
    let mut group = c.benchmark_group("spd_step");
    group.sample_size(10);
    for &(cols, rows) in &[(5usize, 5usize), (10, 10)] {
        let spec = PackingSpec {
            columns: cols,
            rows,
            radius: 1.0,
            spread: 0.15,
            nodes_per_cell: 32,
            seed: 1,
        };
        let (scene, _) = packing_in_box(spec, 1.0);
        let steps = 20u32;
        group.throughput(Throughput::Elements(scene.nodes.len() as u64 * steps as u64));
        for kind in [BackendKind::Cpu, BackendKind::Gpu] {
            let mut be = match create(kind, &scene) {
                Ok(b) => b,
                Err(e) => panic!("{kind:?} backend unavailable: {e:#}"),
            };
            group.bench_with_input(BenchmarkId::new(format!("{kind:?}"), cols * rows), &steps, |b, &s| {
                b.iter(|| {
                    be.step(s).unwrap();
                    // Read back so that GPU time is included.
                    be.read_bodies().unwrap()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, step);
criterion_main!(benches);
