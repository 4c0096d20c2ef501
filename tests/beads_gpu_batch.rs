//! The bonded-bead GPU source batched: many steps per submission (`GpuSpheres::steps_batched`,
//! host-decided builds) against one step per submission pair (`step_with_sources`, which the
//! `Device` schedule takes with sources), and both against the CPU twin. Needs a wgpu adapter
//! (lavapipe is enough): `gpu_for_tests` panics without one.
//! - one Kelvin–Voigt bond under a sine load F sin(ωt) (a load that differs at every
//!   evaluation) that breaks at stretch 0.05, with a skin small enough that list builds halt
//!   the batches every ~25 steps: states, forces, bonds with their break record, bond forces and
//!   the bead clock bit-identical at every call's end, calls of uneven length, batches of 32 and 7;
//!   the break at the analytic time of m ẍ + b ẋ + k x = F sin ωt within two steps; the CPU within
//!   1e-6 m and the same break (bond, evaluation within one, stretch within 1e-5);
//! - a lattice sphere (R = 3 l) compressed by two moving eq-6 planes (plane records that differ
//!   at every evaluation) with builds halting the batches: the same bit-identity and the plane
//!   forces (the series) bit-identical at every sample; the CPU within 1e-4 l and 1e-3 of the
//!   largest plate force (the tolerances of `beads_gpu.rs`).

use softdem::beads::bonds::{BondList, BreakEvent};
use softdem::beads::scenes::{compression_scene, paper_compression_spec, single_bond_scene, BeadRun, BeadScene};
use softdem::beads::{BodyShape, LoadProfile};
use softdem::gpu::context::{gpu_for_tests, GpuContext};
use softdem::spheres::gpu_rebuild::RebuildSchedule;

mod sphere_gap;
use sphere_gap::position_gap;

/// How the GPU run is stepped.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// One step per submission pair (the path a non-batchable source took).
    Single,
    /// Host-decided batches of at most this many steps.
    Batched(u32),
}

/// What a run ends with (all compared bit for bit between GPU runs).
#[derive(Debug, PartialEq)]
struct End {
    states: Vec<u8>,
    forces: Vec<u8>,
    bonds: Vec<u8>,
    bond_force: Vec<u8>,
    evaluations: u32,
    /// At every call's end: the bead clock, the plane forces and the bonds' break records.
    series: Vec<(u32, Vec<[u32; 3]>, Vec<BreakEvent>)>,
}

fn bits(f: &[[f32; 3]]) -> Vec<[u32; 3]> {
    f.iter().map(|v| v.map(f32::to_bits)).collect()
}

/// Runs `scene` in `calls` (step counts), returning its end and the run (for the CPU comparison).
fn run(ctx: Option<&GpuContext>, scene: BeadScene, mode: Mode, calls: &[u32]) -> (End, BeadRun, u64) {
    let mut r = match ctx {
        Some(c) => BeadRun::gpu(c, scene).unwrap(),
        None => BeadRun::cpu(scene),
    };
    if let BeadRun::Gpu(s) = &mut r {
        match mode {
            Mode::Single => s.schedule = RebuildSchedule::Device,
            Mode::Batched(b) => {
                s.schedule = RebuildSchedule::Host;
                s.batch = b;
            }
        }
    }
    let mut series = Vec::new();
    for &k in calls {
        r.steps(ctx, k).unwrap();
        let (bonds, _) = r.bonds(ctx);
        series.push((r.host().evaluations, bits(&r.plane_force(ctx)), bonds.break_log()));
    }
    let (bonds, bond_force): (BondList, _) = r.bonds(ctx);
    let (forces, submissions) = match (&r, ctx) {
        (BeadRun::Gpu(s), Some(c)) => (bytemuck::cast_slice(&s.forces(c)).to_vec(), s.step_submissions),
        _ => (Vec::new(), 0),
    };
    let end = End {
        states: bytemuck::cast_slice(&r.states(ctx)).to_vec(),
        forces,
        bonds: bytemuck::cast_slice(&bonds.bonds).to_vec(),
        bond_force: bytemuck::cast_slice(&bond_force).to_vec(),
        evaluations: r.host().evaluations,
        series,
    };
    (end, r, submissions)
}

/// Batched runs (batches of 32 and 7) equal to the one-step run bit for bit, with far fewer
/// submissions; returns the batched run.
fn batched_equals_single(ctx: &GpuContext, scene: &BeadScene, calls: &[u32]) -> BeadRun {
    let steps: u32 = calls.iter().sum();
    let (single, _, subs_single) = run(Some(ctx), scene.clone(), Mode::Single, calls);
    assert_eq!(subs_single, 2 * steps as u64, "one step per submission pair");
    assert_eq!(
        single.evaluations,
        steps + 1,
        "one evaluation at attachment, one per step"
    );
    let mut kept = None;
    for batch in [32, 7] {
        let (end, r, subs) = run(Some(ctx), scene.clone(), Mode::Batched(batch), calls);
        println!("batch {batch}: {subs} submissions for {steps} steps");
        assert!(
            subs * 3 < steps as u64,
            "batch {batch}: {subs} submissions for {steps} steps"
        );
        assert!(
            end == single,
            "batch {batch}: the batched run differs from one step per submission"
        );
        kept.get_or_insert(r);
    }
    kept.unwrap()
}

/// m ẍ + b ẋ + k x = F sin ωt from rest (RK4, f64, Δt/100): the first time x reaches `x_break`.
fn sine_creep_crossing(m: f64, b: f64, k: f64, f: f64, omega: f64, dt: f64, x_break: f64) -> f64 {
    let acc = |t: f64, x: f64, v: f64| (f * (omega * t).sin() - b * v - k * x) / m;
    let h = dt / 100.0;
    let (mut t, mut x, mut v) = (0.0f64, 0.0f64, 0.0f64);
    while x < x_break {
        (x, v) = softdem::validation::ode::rk4_step(acc, t, x, v, h);
        t += h;
        assert!(t < 1.0, "no crossing");
    }
    t
}

#[test]
fn a_breaking_bond_under_a_sine_load_batches_bit_for_bit() {
    let ctx = gpu_for_tests();
    let (k, b, m, f, omega, dt) = (0.2, 0.1, 1e-3, 1.0, 20.0, 1e-4);
    let mut scene = single_bond_scene(k, b, m, f, LoadProfile::Sine { omega }, dt);
    scene.forces.break_stretch = 0.05;
    // Bead 1 moves up to 1 mm per step: a build every ~25 steps halts the batches.
    scene.params.skin = 0.05;
    let calls = [1, 63, 300, 17, 419, 400]; // 1200 steps, 0.12 s: the bond breaks near 0.08 s
    let gpu = batched_equals_single(&ctx, &scene, &calls);
    if let BeadRun::Gpu(s) = &gpu {
        println!("{} builds", s.rebuilds);
        assert!(s.rebuilds > 20, "{} builds: the batches were not halted", s.rebuilds);
    }
    let (_, cpu, _) = run(None, scene, Mode::Single, &calls);
    let (gl, cl) = (gpu.bonds(Some(&ctx)).0.break_log(), cpu.bonds(None).0.break_log());
    assert_eq!((gl.len(), cl.len()), (1, 1), "one break on each backend");
    // Evaluation e sees the positions at (e − 1) Δt.
    let t_break = (gl[0].evaluation - 1) as f64 * dt;
    let t_exact = sine_creep_crossing(m, b, k, f, omega, dt, 0.05 * 10.0);
    println!(
        "break at evaluation {} (t = {t_break:.5} s; CPU {}), exact crossing {t_exact:.5} s",
        gl[0].evaluation, cl[0].evaluation
    );
    assert!(
        (t_break - t_exact).abs() <= 2.0 * dt,
        "break at {t_break}, exact {t_exact}"
    );
    assert_eq!(gl[0].bond, cl[0].bond);
    assert!(gl[0].evaluation.abs_diff(cl[0].evaluation) <= 1);
    assert!((gl[0].stretch - cl[0].stretch).abs() < 1e-5);
    let d = position_gap(&cpu.states(None), &gpu.states(Some(&ctx)));
    println!("CPU–GPU position gap {d:.3e} m");
    assert!(d < 1e-6, "gap {d} m");
}

#[test]
fn a_compression_by_moving_planes_batches_bit_for_bit() {
    let ctx = gpu_for_tests();
    // The paper's compression (Table 1 beads and bonds), a smaller sphere.
    let l = 12.5e-6;
    let mut spec = paper_compression_spec(1.0);
    spec.body.shape = BodyShape::CubicSphere { radius: 3.0 * l };
    let (mut scene, _) = compression_scene(&spec);
    // The beads under the plates move ~0.1 l in 600 steps: builds halt the batches.
    scene.params.skin = (0.01 * l) as f32;
    let calls = [1, 99, 37, 163, 300]; // 600 steps
    let gpu = batched_equals_single(&ctx, &scene, &calls);
    if let BeadRun::Gpu(s) = &gpu {
        println!("{} beads, {} builds", scene.states.len(), s.rebuilds);
        assert!(s.rebuilds > 3, "{} builds: the batches were not halted", s.rebuilds);
    }
    let (cpu_end, cpu, _) = run(None, scene, Mode::Single, &calls);
    let d = position_gap(&cpu.states(None), &gpu.states(Some(&ctx))) / l;
    let (fc, fg) = (cpu.plane_force(None), gpu.plane_force(Some(&ctx)));
    let fmax = fc.iter().map(|f| f[2].abs() as f64).fold(0.0, f64::max);
    let df = fc
        .iter()
        .zip(&fg)
        .map(|(a, b)| (a[2] - b[2]).abs() as f64)
        .fold(0.0, f64::max);
    println!("CPU–GPU: position gap {d:.3e} l, plate force gap {df:.3e} of {fmax:.3e} N");
    assert_eq!(cpu_end.evaluations, 601);
    assert!(fmax > 0.0);
    assert!(d < 1e-4, "gap {d} l");
    assert!(df <= 1e-3 * fmax, "plate forces {df} vs {fmax}");
}
