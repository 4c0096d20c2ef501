//! The CPU sphere stepper's speed paths change the speed, not the bits: the SIMD pair pass
//! (`spheres::pair_lanes`) against the scalar pair pass, `CpuSpheres::steps` (kicks and drift
//! fused into the gather, wall records of non-candidates skipped) against `step` one by one,
//! and one rayon thread against two, on a shaken packing (contacts closing, opening and
//! sliding, walls touched), bit for bit.

use softdem::spheres::bench_scene::{compressed_lattice, shake};
use softdem::spheres::cpu_stepper::{kick, kick_drift, CpuSpheres};

/// The 6³ bench packing with deterministic pseudo-random velocities and spins large enough to
/// open and close contacts and make many slide within a few hundred steps.
fn shaken(use_lanes: bool) -> CpuSpheres {
    let (mut p, mut states, laws, walls) = compressed_lattice(6);
    shake(&mut p, &mut states, 0x2545_f491_4f6c_dd1d, 0.4, 60.0);
    let mut sys = CpuSpheres::new(p, states, laws, walls);
    sys.use_lanes = use_lanes;
    sys
}

fn run(mut sys: CpuSpheres, steps: usize) -> CpuSpheres {
    for _ in 0..steps {
        sys.step();
    }
    sys
}

/// A step by the scalar passes alone: `kick_drift`, walls, rebuild, `compute_forces` (the
/// gather damps with the scalar `damp`), `kick` — what `step` did before its kick ran on the
/// lanes tail (`kick_lanes::kick_all`, damping moved out of the gather).
fn scalar_step(sys: &mut CpuSpheres) {
    let (dt, lim) = (sys.params.dt, 0.5 * sys.params.skin);
    let moved = kick_drift(&mut sys.states, &sys.forces, 0.5 * dt, dt, &sys.x_ref, lim);
    for w in &mut sys.walls {
        w.advance(dt);
    }
    if moved || sys.walls_moved() {
        sys.rebuild();
    }
    sys.compute_forces();
    kick(&mut sys.states, &sys.forces, 0.5 * dt);
    sys.steps += 1;
}

fn assert_same(a: &CpuSpheres, b: &CpuSpheres, what: &str) {
    let differing = a.arrays_differing_in_bits(b);
    assert!(differing.is_empty(), "{what}: {differing:?} differ");
}

#[test]
fn lanes_equal_the_scalar_pair_pass_bit_for_bit() {
    let steps = 1500;
    let lanes = run(shaken(true), steps);
    let scalar = run(shaken(false), steps);
    // The case exercises every branch of the lanes: touching and open candidates, sliding
    // (|f_t| at μ f_n) and sticking contacts, walls in contact, list rebuilds.
    let mu = 0.5;
    let touching = lanes.pair_out.iter().filter(|o| o.f_n > 0.0).count();
    let open = lanes.pair_out.len() - touching;
    let sliding = lanes
        .pair_out
        .iter()
        .filter(|o| {
            let f = o.force;
            let t2 = f[0] * f[0] + f[1] * f[1] + f[2] * f[2] - o.f_n * o.f_n;
            o.f_n > 0.0 && t2.max(0.0).sqrt() > 0.999 * mu * o.f_n
        })
        .count();
    let walls = lanes.wall_out.iter().filter(|o| o.f_n > 0.0).count();
    println!(
        "{} pairs: {touching} touching ({sliding} sliding), {open} open; {walls} wall contacts; {} rebuilds",
        lanes.pair_out.len(),
        lanes.rebuilds
    );
    assert!(touching > 50 && open > 50 && sliding > 5 && touching - sliding > 5 && walls > 5);
    assert!(lanes.rebuilds > 1, "the list was rebuilt during the run");
    assert_same(&lanes, &scalar, "lanes vs scalar");
    // The fused steps, in runs of several lengths (each run ends with a plain closing kick).
    let mut fused = shaken(true);
    for k in [1, 7, 492, 1000] {
        fused.steps(k);
    }
    assert_eq!((fused.steps, fused.rebuilds), (lanes.steps, lanes.rebuilds));
    assert_same(&lanes, &fused, "steps(k) vs step() k times");
    // The kick's lanes tail against the scalar passes.
    let mut reference = shaken(true);
    for _ in 0..steps {
        scalar_step(&mut reference);
    }
    assert_eq!((reference.steps, reference.rebuilds), (lanes.steps, lanes.rebuilds));
    assert_same(&lanes, &reference, "step() vs the scalar passes");
}

#[test]
fn one_thread_and_two_threads_give_the_same_bits() {
    let pool = |t| rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap();
    // 3000 spheres: every pass is split into several rayon tasks on two threads.
    let big = || {
        let (p, states, laws, walls) = compressed_lattice(15);
        CpuSpheres::new(p, states, laws, walls)
    };
    let one = pool(1).install(|| run(big(), 30));
    let two = pool(2).install(|| run(big(), 30));
    assert_same(&one, &two, "1 vs 2 threads");
}
