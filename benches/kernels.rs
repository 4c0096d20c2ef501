//! Criterion benches of one SPD step (all kernels: integrate, core_area, broad phase when due,
//! shell_forces, contact_pairs, node_forces) on both backends, for small cases of the scene of
//! `softdem bench` (`scenes::compaction_bench`: a dense packing of 32-node cells compressed by a wall).
//! Figures in node-steps/s come from `softdem bench`; these track regressions. `broad_phase`: one
//! CPU list build (`cpu::broad_phase::GridBuild` and every node's `neighbor_candidates`) of the
//! deposit bench scene (`scenes::deposit_bench`, 100 cells) with the box walls as one segment per
//! side and subdivided at the cells' segment length: the two should cost the same.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use softdem::backend::BackendKind;
use softdem::engine::spd::create;
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

fn broad_phase(c: &mut Criterion) {
    use softdem::cpu::broad_phase::{neighbor_candidates, GridBuild};
    use softdem::model::device_nodes;
    let mut group = c.benchmark_group("broad_phase");
    group.sample_size(20);
    for (walls, segment) in [("one_segment_walls", None), ("subdivided_walls", Some(0.0))] {
        let scene = softdem::scenes::deposit_bench(100, segment);
        let (nodes, _) = device_nodes(&scene.nodes);
        let p = scene.sim_params();
        group.throughput(Throughput::Elements(nodes.len() as u64));
        group.bench_function(walls, |b| {
            b.iter(|| {
                let build = GridBuild::new(&p, &nodes, &scene.bodies, &scene.init);
                let mut found = Vec::new();
                for x in 0..nodes.len() {
                    neighbor_candidates(
                        x,
                        &build.params,
                        &nodes,
                        &scene.bodies,
                        &scene.init,
                        &build.grid(),
                        &mut found,
                    );
                }
                found.len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, step, broad_phase);
criterion_main!(benches);
