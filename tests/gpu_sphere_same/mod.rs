//! Two GPU sphere steppers holding the same bits (everything a later step reads, and the build
//! counters), shared by the tests that compare two ways of stepping one scene (gpu_sphere_fused,
//! gpu_sphere_schedule).

use softdem::gpu::context::GpuContext;
use softdem::spheres::gpu_stepper::GpuSpheres;

pub fn bytes<T: bytemuck::Pod>(v: &[T]) -> &[u8] {
    bytemuck::cast_slice(v)
}

/// Everything the stepper holds that a later step reads, and the counters, equal bit for bit.
pub fn assert_same(ctx: &GpuContext, a: &GpuSpheres, b: &GpuSpheres, what: &str) {
    assert_eq!((a.steps, a.rebuilds), (b.steps, b.rebuilds), "{what}: steps, builds");
    assert!(bytes(&a.states(ctx)) == bytes(&b.states(ctx)), "{what}: states differ");
    assert!(bytes(&a.forces(ctx)) == bytes(&b.forces(ctx)), "{what}: forces differ");
    assert!(
        bytes(&a.history(ctx)) == bytes(&b.history(ctx)),
        "{what}: histories differ"
    );
    assert!(bytes(&a.walls(ctx)) == bytes(&b.walls(ctx)), "{what}: walls differ");
    assert!(
        bytes(&a.wall_history(ctx)) == bytes(&b.wall_history(ctx)),
        "{what}: wall histories differ"
    );
    assert!(
        bytes(&a.pair_out(ctx)) == bytes(&b.pair_out(ctx)),
        "{what}: pair results differ"
    );
    assert_eq!(a.list(ctx), b.list(ctx), "{what}: lists differ");
    assert_eq!(a.wall_slots(ctx), b.wall_slots(ctx), "{what}: wall candidates differ");
}
