//! Stepping `GpuSpheres` holds its host memory constant. On lavapipe (Mesa 22.3) a kernel whose
//! loop bound is a bare uniform gets the uniform values inlined and a new shader compiled at
//! every bind of its pipeline, never freed: `gather`'s wall loop grew the resident set by
//! ~175 KB per step (GBs over a 60,000-step run). The kernels now bound such loops by
//! `min(count, arrayLength(..))` (`shaders/sphere_step.wgsl`).

use softdem::gpu::context::gpu_for_tests;
use softdem::spheres::bench_scene::compressed_lattice;
use softdem::spheres::gpu_stepper::GpuSpheres;

/// Resident set of this process in bytes (`/proc/self/statm`, field 2, in pages of 4 KiB).
fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

/// 600 steps after a warm-up of 100: with the leak the resident set grew by ~100 MiB (175 KB a
/// step, with one step per submission as with 50); without it, by the allocator's noise. The
/// bound, 16 MiB, is 27 KB per step: a sixth of the leak found.
#[test]
fn gpu_sphere_steps_hold_host_memory_constant() {
    let ctx = gpu_for_tests();
    let (p, states, laws, walls) = compressed_lattice(4);
    assert!(!walls.is_empty(), "the scene has walls (gather's wall loop runs)");
    let mut sys = GpuSpheres::new(&ctx, p, &states, &laws, &walls).unwrap();
    sys.batch = 50;
    sys.steps_batched(&ctx, 100).unwrap();
    let before = resident_bytes();
    sys.steps_batched(&ctx, 600).unwrap();
    let after = resident_bytes();
    let growth = after.saturating_sub(before);
    println!(
        "resident set {:.1} → {:.1} MiB over 600 steps ({} B/step, {} rebuilds)",
        before as f64 / 1048576.0,
        after as f64 / 1048576.0,
        growth / 600,
        sys.rebuilds
    );
    assert_eq!(sys.steps, 700);
    assert!(
        growth < 16 << 20,
        "host memory grew by {growth} B over 600 GPU sphere steps ({} B/step)",
        growth / 600
    );
}

/// The structural side: no `for` loop of `sphere_step.wgsl` is bounded by a bare uniform
/// (`x < sp.field;`), the pattern lavapipe recompiles at every bind.
#[test]
fn sphere_step_loops_are_not_bounded_by_a_bare_uniform() {
    let src = include_str!("../shaders/sphere_step.wgsl");
    let bare: Vec<(usize, &str)> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.trim_start();
            l.starts_with("for (") && l.split(';').nth(1).is_some_and(|cond| cond.contains("sp."))
        })
        .map(|(k, l)| (k + 1, l.trim()))
        .collect();
    assert!(
        bare.is_empty(),
        "shaders/sphere_step.wgsl: loops bounded by a uniform (bound them by min(count, \
         arrayLength(..)), see the comment under STEP_WG): {bare:?}"
    );
}
