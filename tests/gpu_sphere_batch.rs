//! Batched GPU sphere steps (`GpuSpheres::steps_batched`: many steps per submission, the list
//! rebuild decided on the device) give the bits of one step per submission, with rebuilds
//! falling inside batches; and the CPU twin within the stepper tolerances of `gpu_sphere.rs`.
//! (The host-decided schedule against this one: `gpu_sphere_schedule.rs`.)

use softdem::gpu::context::gpu_for_tests;
use softdem::spheres::bench_scene::{compressed_lattice, shake};
use softdem::spheres::cpu_stepper::CpuSpheres;
use softdem::spheres::gpu_rebuild::RebuildSchedule;
use softdem::spheres::gpu_stepper::GpuSpheres;
use softdem::spheres::SphereState;

/// The 4³ bench packing with pseudo-random velocities (contacts open and close, the list is
/// rebuilt every ~100 steps).
fn shaken() -> (
    softdem::spheres::SphereParams,
    Vec<SphereState>,
    softdem::spheres::pair_law::LawTable,
    Vec<softdem::spheres::PlaneWall>,
) {
    let (mut p, mut states, laws, walls) = compressed_lattice(4);
    shake(&mut p, &mut states, 0x9e37_79b9_7f4a_7c15, 2.0, 100.0);
    (p, states, laws, walls)
}

#[test]
fn batched_steps_equal_single_steps_bit_for_bit() {
    let ctx = gpu_for_tests();
    let (p, states, laws, walls) = shaken();
    let steps = 600;
    let mut single = GpuSpheres::new(&ctx, p, &states, &laws, &walls).unwrap();
    single.schedule = RebuildSchedule::Device;
    for _ in 0..steps {
        single.step(&ctx).unwrap();
    }
    let mut batched = GpuSpheres::new(&ctx, p, &states, &laws, &walls).unwrap();
    batched.batch = 64;
    batched.schedule = RebuildSchedule::Device;
    // Uneven calls: batches end at arbitrary steps and rebuilds fall inside them.
    for k in [1u32, 150, 77, 300, 72] {
        batched.steps_batched(&ctx, k).unwrap();
    }
    assert_eq!(batched.steps, steps as u64);
    println!("rebuilds: single {}, batched {}", single.rebuilds, batched.rebuilds);
    assert!(
        single.rebuilds >= 4,
        "the list was rebuilt several times ({})",
        single.rebuilds
    );
    assert_eq!(single.rebuilds, batched.rebuilds, "the same rebuilds");
    let (a, b) = (single.states(&ctx), batched.states(&ctx));
    assert!(
        bytemuck::cast_slice::<_, u8>(&a) == bytemuck::cast_slice::<_, u8>(&b),
        "states differ"
    );
    let (ha, hb) = (single.history(&ctx), batched.history(&ctx));
    assert!(
        bytemuck::cast_slice::<_, u8>(&ha) == bytemuck::cast_slice::<_, u8>(&hb),
        "histories differ"
    );
    let (wa, wb) = (single.walls(&ctx), batched.walls(&ctx));
    assert!(
        bytemuck::cast_slice::<_, u8>(&wa) == bytemuck::cast_slice::<_, u8>(&wb),
        "walls differ"
    );

    // And the CPU twin, as in gpu_sphere.rs: positions within 1e-7 r.
    let mut cpu = CpuSpheres::new(p, states.clone(), laws.clone(), walls.clone());
    for _ in 0..steps {
        cpu.step();
    }
    let r = states[0].radius as f64;
    let gap = a
        .iter()
        .zip(&cpu.states)
        .map(|(g, c)| {
            (0..3)
                .map(|k| ((g.pos_hi[k] as f64 + g.pos_lo[k] as f64) - (c.pos_hi[k] as f64 + c.pos_lo[k] as f64)).abs())
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    println!("largest GPU–CPU position gap {:.3e} r", gap / r);
    assert!(gap < 1e-7 * r, "GPU–CPU position gap {gap:e} m");
}
