//! The fused sphere step (`kick_drift`, `wall_advance` as one workgroup, `gather_kick`) against
//! the unfused kernels (kick, drift, wall_advance, displacement_check, …, gather, wall_gather,
//! kick; `GpuSpheres::fused` false): the same operations in the same order per sphere, so the
//! same bits, on a scene with walls and a build every ~10 steps (the shaken 4³ packing with a
//! tenth of the bench's skin), under both build schedules: the host-decided one halts its batch
//! at a due build (the halt the fused step defers to wall_advance), the device-decided one builds
//! inside the batch. Needs a wgpu adapter: `gpu_for_tests` panics without one.

use softdem::gpu::context::gpu_for_tests;
use softdem::spheres::bench_scene::{compressed_lattice, shake};
use softdem::spheres::gpu_rebuild::RebuildSchedule;
use softdem::spheres::gpu_stepper::GpuSpheres;

mod gpu_sphere_same;
use gpu_sphere_same::assert_same;

#[test]
fn fused_step_equals_the_unfused_kernels_bit_for_bit_under_both_schedules() {
    let ctx = gpu_for_tests();
    let (mut p, mut states, laws, walls) = compressed_lattice(4);
    assert!(!walls.is_empty(), "the scene has walls (wall_advance, wall_gather run)");
    p.skin *= 0.1;
    shake(&mut p, &mut states, 0x9e37_79b9_7f4a_7c15, 2.0, 100.0);
    let new = |schedule, fused| {
        let mut g = GpuSpheres::new(&ctx, p, &states, &laws, &walls).unwrap();
        g.schedule = schedule;
        g.batch = 48;
        g.fused = fused;
        g
    };
    for schedule in [RebuildSchedule::Host, RebuildSchedule::Device] {
        let mut fused = new(schedule, true);
        let mut unfused = new(schedule, false);
        assert!(
            fused.dispatches_per_step() + 3 == unfused.dispatches_per_step(),
            "fused: kick_drift and gather_kick replace five dispatches by two"
        );
        for k in [1u32, 100, 77, 142] {
            fused.steps_batched(&ctx, k).unwrap();
            unfused.steps_batched(&ctx, k).unwrap();
            assert_same(
                &ctx,
                &fused,
                &unfused,
                &format!("{schedule:?}, after {} steps", fused.steps),
            );
        }
        println!("{schedule:?}: {} steps, {} builds", fused.steps, fused.rebuilds);
        assert!(fused.rebuilds >= 15, "frequent builds ({})", fused.rebuilds);
    }
}
