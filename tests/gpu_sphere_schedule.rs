//! The two schedules of the GPU sphere stepper's list builds (`gpu_rebuild::RebuildSchedule`) on
//! a scene with frequent builds (the shaken 4³ packing with a tenth of the bench's skin: a build
//! every ~10 steps): host-decided batches record no build dispatch in a normal step and read
//! nothing back but their flags, one read per submission (a submission ends at the end of a
//! call or at a due build); host-decided, device-decided, `Auto` and one step per submission
//! give the same builds at the same steps and the same bits. Needs a wgpu adapter:
//! `gpu_for_tests` panics without one.

use softdem::gpu::context::gpu_for_tests;
use softdem::spheres::bench_scene::{compressed_lattice, shake};
use softdem::spheres::gpu_rebuild::RebuildSchedule;
use softdem::spheres::gpu_stepper::GpuSpheres;

mod gpu_sphere_same;
use gpu_sphere_same::assert_same;

#[test]
fn host_decided_batches_read_only_their_flags_and_equal_device_decided_ones_bit_for_bit() {
    let ctx = gpu_for_tests();
    let (mut p, mut states, laws, walls) = compressed_lattice(4);
    p.skin *= 0.1;
    shake(&mut p, &mut states, 0x9e37_79b9_7f4a_7c15, 2.0, 100.0);
    let new = |schedule, batch| {
        let mut g = GpuSpheres::new(&ctx, p, &states, &laws, &walls).unwrap();
        g.schedule = schedule;
        g.batch = batch;
        g
    };
    let (calls, call) = (8, 64u32);

    // Host-decided, calls of 64 steps: one read per submission (its flags), no other; a
    // submission ends at a due build (or earlier: its length follows the pace of the builds,
    // `BuildPace::host_batch`), so at least one per build; a build recorded only where one runs.
    let mut host = new(RebuildSchedule::Host, call);
    for _ in 0..calls {
        let (reads, builds, redone, recorded, subs) = (
            host.stepping_reads,
            host.rebuilds,
            host.redone,
            host.builds_recorded,
            host.step_submissions,
        );
        host.steps_batched(&ctx, call).unwrap();
        let (reads, builds) = (host.stepping_reads - reads, host.rebuilds - builds);
        let (redone, recorded) = (host.redone - redone, host.builds_recorded - recorded);
        let subs = host.step_submissions - subs;
        assert_eq!(reads, subs, "read-backs other than the flags of each submission");
        assert!(
            subs > builds + redone,
            "{subs} submissions for {builds} builds, {redone} redone"
        );
        assert!(
            subs <= 2 * (builds + redone) + call as u64 / 4,
            "{subs} submissions for {builds} builds"
        );
        assert_eq!(
            recorded,
            builds + redone,
            "build dispatches recorded outside the builds"
        );
    }
    println!(
        "host-decided: {} steps, {} builds, {} redone, {} read-backs, {} builds recorded",
        host.steps, host.rebuilds, host.redone, host.stepping_reads, host.builds_recorded
    );
    assert!(host.rebuilds >= 30, "frequent builds ({})", host.rebuilds);

    // Device-decided, the same calls: a build recorded in every step, one read per call
    // unless a build overflowed.
    let mut device = new(RebuildSchedule::Device, call);
    let (reads, redone) = (device.stepping_reads, device.redone);
    for _ in 0..calls {
        device.steps_batched(&ctx, call).unwrap();
    }
    let (reads, redone) = (device.stepping_reads - reads, device.redone - redone);
    assert!(device.builds_recorded >= (calls * call) as u64);
    // One read per call, two more per overflow (the redo's, the rest of the batch's).
    assert_eq!(
        reads,
        calls as u64 + 2 * redone,
        "device-decided read-backs ({redone} redone)"
    );
    assert_same(&ctx, &host, &device, "host- against device-decided");

    // Uneven calls and batches, `Auto` (either schedule, switching on the pace), and one step per
    // submission: the same bits.
    let mut auto = new(RebuildSchedule::Auto, 48);
    let mut host_uneven = new(RebuildSchedule::Host, 37);
    for k in [1u32, 150, 77, 200, 84] {
        auto.steps_batched(&ctx, k).unwrap();
        host_uneven.steps_batched(&ctx, k).unwrap();
    }
    assert_same(&ctx, &host, &auto, "auto");
    assert_same(&ctx, &host, &host_uneven, "host-decided, uneven calls");
    let mut single = new(RebuildSchedule::Host, 1);
    for _ in 0..calls * call {
        single.step(&ctx).unwrap();
    }
    assert_same(&ctx, &host, &single, "host-decided, one step per call");
}
