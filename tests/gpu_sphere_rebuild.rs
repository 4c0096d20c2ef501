//! The GPU sphere list build with no host round trip (`spheres::gpu_rebuild`): a batch with
//! builds inside reads back once (its flags), the device-fitted grid equals the host's
//! `fit_grid` bit for bit, the device's sphere–wall candidates and list equal the CPU's, and a
//! build that overflows a capacity is redone with grown buffers, bit for bit.

use softdem::gpu::context::gpu_for_tests;
use softdem::spheres::bench_scene::{compressed_lattice, shake};
use softdem::spheres::cell_list::fit_grid;
use softdem::spheres::cpu_stepper::CpuSpheres;
use softdem::spheres::gpu_rebuild::{bounds_key, bounds_reduce, bounds_value, DeviceGrid, RebuildSchedule};
use softdem::spheres::gpu_stepper::GpuSpheres;
use softdem::spheres::pair_law::LawTable;
use softdem::spheres::{PlaneWall, SphereMaterial, SphereParams, SphereState};

mod sphere_gap;
use sphere_gap::position_gap;

fn bytes<T: bytemuck::Pod>(v: &[T]) -> &[u8] {
    bytemuck::cast_slice(v)
}

/// The bounding-box keys order floats as their values (negative, ±0, subnormal, large), and the
/// reduction of the keys gives the min and max that `fit_grid` takes.
#[test]
fn bounds_keys_order_floats_and_reduce_to_the_bounding_box() {
    let xs = [-3.0e38f32, -1.5, -1e-40, -0.0, 0.0, 1e-45, 1e-40, 2.5e-3, 1.0, 7.0e37];
    for w in xs.windows(2) {
        assert!(bounds_key(w[0]) <= bounds_key(w[1]), "{} {}", w[0], w[1]);
        assert_eq!(bounds_value(bounds_key(w[0])).to_bits(), w[0].to_bits());
    }
    let (p, states, _, _) = compressed_lattice(3);
    let b = bounds_reduce(&states);
    let mut fitted = p;
    fit_grid(&mut fitted, &states);
    let r_max = f32::from_bits(b[6]);
    let cell = 2.0 * r_max + p.skin;
    for k in 0..3 {
        let lo = bounds_value(b[k]);
        assert_eq!((lo - cell).to_bits(), fitted.grid_origin[k].to_bits());
        let hi = bounds_value(b[3 + k]);
        assert_eq!(((hi - lo) / cell).floor() as u32 + 3, fitted.grid_dims[k]);
    }
}

/// The 4³ bench packing shaken (contacts open and close) with a skin a tenth of the bench's,
/// so the list is rebuilt every few steps.
fn shaken_small_skin() -> (SphereParams, Vec<SphereState>, LawTable, Vec<PlaneWall>) {
    let (mut p, mut states, laws, walls) = compressed_lattice(4);
    p.skin *= 0.1;
    shake(&mut p, &mut states, 0x9e37_79b9_7f4a_7c15, 2.0, 100.0);
    (p, states, laws, walls)
}

/// Batches of 64 steps with several list builds inside each: one read-back per batch (the
/// flags) unless a build overflowed a capacity (then the redo's read and the rest of the
/// batch's; the first builds size the capacities exactly, so the moving packing overflows
/// once or twice), the CPU twin's positions within 1e-7 r (the tolerance of gpu_sphere_batch.rs), the
/// device's list and sphere–wall candidates equal to the CPU's, the device grid equal to the
/// host's fit_grid bit for bit.
#[test]
fn a_batch_with_builds_inside_reads_back_once_and_follows_the_cpu() {
    let ctx = gpu_for_tests();
    let (p, states, laws, walls) = shaken_small_skin();
    let mut gpu = GpuSpheres::new(&ctx, p, &states, &laws, &walls).unwrap();
    let mut cpu = CpuSpheres::new(p, states.clone(), laws.clone(), walls.clone());
    gpu.batch = 64;
    // The builds recorded in every step, sized on the device (the host-decided schedule halts
    // at each: tests/gpu_sphere_schedule.rs).
    gpu.schedule = RebuildSchedule::Device;
    let batches = 8;
    let mut builds_in_batches = Vec::new();
    for _ in 0..batches {
        let (reads, builds, redone) = (gpu.stepping_reads, gpu.rebuilds, gpu.redone);
        gpu.steps_batched(&ctx, 64).unwrap();
        for _ in 0..64 {
            cpu.step();
        }
        let (redone, reads) = (gpu.redone - redone, gpu.stepping_reads - reads);
        // A halt costs the redo's read and, if steps are left, one more batch's.
        if redone == 0 {
            assert_eq!(reads, 1, "one read-back for a batch of 64 steps");
            builds_in_batches.push(gpu.rebuilds - builds);
        } else {
            assert!(reads <= 1 + 2 * redone, "{reads} read-backs, {redone} redone");
        }
    }
    println!(
        "builds per batch of 64 steps: {builds_in_batches:?}; redone {}; CPU builds {}",
        gpu.redone, cpu.rebuilds
    );
    assert!(
        builds_in_batches.len() >= batches - 2 && builds_in_batches.iter().all(|&b| b >= 2),
        "several builds inside batches read back once: {builds_in_batches:?}"
    );
    assert_eq!(gpu.rebuilds, cpu.rebuilds, "the builds fall on the CPU's steps");
    let r = states[0].radius as f64;
    let gap = position_gap(&gpu.states(&ctx), &cpu.states);
    println!("largest GPU–CPU position gap {:.3e} r", gap / r);
    assert!(gap < 1e-7 * r, "GPU–CPU position gap {gap:e} m");
    // Lists of the same build step on both: equal (the grid, the candidates, the row order).
    assert_eq!(gpu.list(&ctx), cpu.list, "the device-built list equals the CPU's");
    assert_eq!(gpu.wall_slots(&ctx), cpu.wall_slots, "the device's wall candidates");
    // The device grid of a build equals fit_grid of the same states, bit for bit.
    gpu.rebuild(&ctx).unwrap();
    let mut host = p;
    fit_grid(&mut host, &gpu.states(&ctx));
    let grid = gpu.grid(&ctx);
    assert_eq!(
        bytemuck::bytes_of(&grid),
        bytemuck::bytes_of(&DeviceGrid::of(&host)),
        "device grid {grid:?}"
    );
}

/// 27 rubber spheres thrown together (gpu_sphere.rs's growth case: no pair at the start, ~50 at
/// the most): the pair buffers overflow inside batches, the build halts, the host grows them and
/// redoes it, under both schedules (device-decided: inside a batch; host-decided: the build at
/// the start of a batch). The batched runs equal the single-step run bit for bit (states,
/// histories).
#[test]
fn an_overflowing_build_is_redone_with_grown_buffers_bit_for_bit() {
    let ctx = gpu_for_tests();
    let m = SphereMaterial::RUBBER;
    let mut seed = 11u64;
    let mut states = Vec::new();
    for k in 0..27 {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let jitter = (seed >> 40) as f64 / (1u64 << 24) as f64;
        let c = [k % 3, (k / 3) % 3, k / 9].map(|q| (q as f64 - 1.0) * 0.022);
        let mut s = SphereState::solid(c, 0.0095 + 0.001 * jitter, m.density, 0);
        let d = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt().max(1e-9);
        s.vel = c.map(|x| (-x / d) as f32);
        states.push(s);
    }
    let p = SphereParams {
        dt: 1e-5,
        skin: 5e-4,
        local_damping: 0.1,
        ..Default::default()
    };
    let laws = LawTable::hertz_mindlin(&[m]);
    let steps = 800;
    let mut single = GpuSpheres::new(&ctx, p, &states, &laws, &[]).unwrap();
    single.batch = 1;
    single.schedule = RebuildSchedule::Device;
    single.steps_batched(&ctx, steps).unwrap();
    let mut host = GpuSpheres::new(&ctx, p, &states, &laws, &[]).unwrap();
    host.batch = 100;
    host.schedule = RebuildSchedule::Host;
    host.steps_batched(&ctx, steps).unwrap();
    println!("host-decided: redone {}, rebuilds {}", host.redone, host.rebuilds);
    assert!(host.redone >= 1, "a host-decided build overflowed and was redone");
    assert_eq!(single.rebuilds, host.rebuilds);
    assert!(
        bytes(&single.states(&ctx)) == bytes(&host.states(&ctx)),
        "host-decided: states differ"
    );
    assert!(
        bytes(&single.history(&ctx)) == bytes(&host.history(&ctx)),
        "host-decided: histories differ"
    );
    assert_eq!(single.list(&ctx), host.list(&ctx));
    let mut batched = GpuSpheres::new(&ctx, p, &states, &laws, &[]).unwrap();
    batched.batch = 100;
    batched.schedule = RebuildSchedule::Device;
    let (reads, redone) = (batched.stepping_reads, batched.redone);
    batched.steps_batched(&ctx, steps).unwrap();
    let redone = batched.redone - redone;
    println!(
        "pairs {}, capacity {}, growths {}, redone {redone}, rebuilds {}",
        batched.pair_count(),
        batched.pair_capacity(),
        batched.growths,
        batched.rebuilds
    );
    assert!(batched.growths >= 1 && redone >= 1, "a build overflowed and was redone");
    // Per halt: the redo's read, and the read of the batch of the steps left after it.
    let reads = batched.stepping_reads - reads;
    assert!(
        reads > steps as u64 / 100 && reads <= steps as u64 / 100 + 2 * redone,
        "{reads} read-backs"
    );
    assert_eq!(single.rebuilds, batched.rebuilds);
    assert!(
        bytes(&single.states(&ctx)) == bytes(&batched.states(&ctx)),
        "states differ"
    );
    assert!(
        bytes(&single.history(&ctx)) == bytes(&batched.history(&ctx)),
        "histories differ"
    );
    assert_eq!(single.list(&ctx), batched.list(&ctx));
}
