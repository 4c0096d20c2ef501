//! Criterion benches of one SPD step (all kernels: integrate, core_area, broad phase when due,
//! shell_forces, contact_pairs, node_forces) on both backends, for small cases of the scene of
//! `softdem bench` (`scenes::compaction_bench`: a dense packing of 32-node cells compressed by a wall).
//! Figures in node-steps/s come from `softdem bench`; these track regressions.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use softdem::backend::{create, BackendKind};
use softdem::scenes::compaction_bench;

fn step(c: &mut Criterion) {
    let mut group = c.benchmark_group("spd_step");
    group.sample_size(10);
    for cells in [25usize, 100] {
        let (scene, _) = compaction_bench(cells);
        let steps = 20u32;
        group.throughput(Throughput::Elements(scene.nodes.len() as u64 * steps as u64));
        for kind in [BackendKind::Cpu, BackendKind::Gpu] {
            let mut be = match create(kind, &scene) {
                Ok(b) => b,
                Err(e) => panic!("{kind:?} backend unavailable: {e:#}"),
            };
            group.bench_with_input(BenchmarkId::new(format!("{kind:?}"), cells), &steps, |b, &s| {
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
