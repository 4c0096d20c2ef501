//! GPU twin of the bead force source (`shaders/beads.wgsl`, `kelvin_voigt.wgsl`,
//! `plane_repulsion.wgsl` through `GpuSpheres::add_extra`) against the CPU reference. Needs a
//! wgpu adapter (lavapipe is enough): `gpu_for_tests` panics without one.
//! - one KV bond under a step load with breakage (b = 0.1, break stretch 0.2): positions within
//!   1e-6 m of the CPU's (X ≈ 2 m, so ~5e-7 relative), the same break log (evaluation, bond,
//!   stretch within 1e-5), reruns bit-identical;
//! - a lattice sphere (R = 4 l, 257 beads, k = 200 N/m, b = 10⁻⁵ N s/m) compressed by two eq-6
//!   planes for 600 steps: positions within 1e-4 l of the CPU's, plane forces within 1e-3 of the
//!   CPU's, bit-identical reruns;
//! - validation 5's single KV bond behind a plate and light-bead KV sphere (n = 4) compressed
//!   and held: the CPU's figures and plate forces (tolerances at the test).

use softdem::beads::scenes::{compression_scene, paper_compression_spec, run_compression, single_bond_scene, BeadRun};
use softdem::beads::{BodyShape, LoadProfile};
use softdem::gpu::context::gpu_for_tests;

mod sphere_gap;
use sphere_gap::position_gap;

#[test]
fn gpu_bond_with_breakage_follows_the_cpu() {
    let ctx = gpu_for_tests();
    let dt = 2e-5;
    let scene = || {
        let mut s = single_bond_scene(
            0.2,
            0.1,
            1e-5,
            1.0,
            LoadProfile::Step {
                on: 0.0,
                off: f64::INFINITY,
            },
            dt,
        );
        s.forces.break_stretch = 0.2;
        s
    };
    let steps = 14000; // 0.28 s: the bond breaks at 0.2554 s
    let mut cpu = BeadRun::cpu(scene());
    let mut gpu = BeadRun::gpu(&ctx, scene()).unwrap();
    let mut gpu2 = BeadRun::gpu(&ctx, scene()).unwrap();
    for _ in 0..steps {
        cpu.step(None).unwrap();
        gpu.step(Some(&ctx)).unwrap();
        gpu2.step(Some(&ctx)).unwrap();
    }
    let (c, g) = (cpu.states(None), gpu.states(Some(&ctx)));
    let d = position_gap(&c, &g);
    println!("position gap {d:.3e} m, x = {:.6}", g[1].position()[0]);
    assert!(d < 1e-6, "gap {d}");
    assert_eq!(g, gpu2.states(Some(&ctx)), "GPU reruns differ");
    let (cl, gl) = (cpu.bonds(None).0.break_log(), gpu.bonds(Some(&ctx)).0.break_log());
    assert_eq!(cl.len(), 1);
    assert_eq!(gl.len(), 1);
    // The same bond, at the same evaluation within one (a device that fuses multiply-adds may
    // cross the threshold one evaluation apart; lavapipe: the same evaluation).
    assert_eq!(cl[0].bond, gl[0].bond);
    assert!(
        cl[0].evaluation.abs_diff(gl[0].evaluation) <= 1,
        "break at evaluation {} (CPU) vs {} (GPU)",
        cl[0].evaluation,
        gl[0].evaluation
    );
    assert!((cl[0].stretch - gl[0].stretch).abs() < 1e-5);
}

#[test]
fn gpu_sphere_compression_follows_the_cpu() {
    let ctx = gpu_for_tests();
    // The paper's compression (Table 1 beads and bonds), a smaller sphere.
    let l = 12.5e-6;
    let mut spec = paper_compression_spec(1.0);
    spec.body.shape = BodyShape::CubicSphere { radius: 4.0 * l };
    let (scene, body) = compression_scene(&spec);
    assert_eq!(scene.states.len(), 257);
    let steps = 600;
    let mut cpu = BeadRun::cpu(scene.clone());
    let mut gpu = BeadRun::gpu(&ctx, scene.clone()).unwrap();
    let mut gpu2 = BeadRun::gpu(&ctx, scene).unwrap();
    let sc = run_compression(&mut cpu, None, steps, 100).unwrap();
    let sg = run_compression(&mut gpu, Some(&ctx), steps, 100).unwrap();
    run_compression(&mut gpu2, Some(&ctx), steps, 100).unwrap();
    let (c, g) = (cpu.states(None), gpu.states(Some(&ctx)));
    let d = position_gap(&c, &g) / l;
    let fmax = sc.iter().map(|s| s.force().abs()).fold(0.0, f64::max);
    let df = sc
        .iter()
        .zip(&sg)
        .map(|(a, b)| (a.f_top - b.f_top).abs().max((a.f_bottom - b.f_bottom).abs()))
        .fold(0.0, f64::max);
    println!(
        "{} beads, R_o = {:.3e}: position gap {d:.3e} l, plane force gap {:.3e} of {fmax:.3e} N",
        c.len(),
        body.outer_radius,
        df / fmax
    );
    assert!(fmax > 0.0);
    assert!(d < 1e-4, "gap {d} l");
    assert!(df < 1e-3 * fmax, "plane forces {df}");
    assert_eq!(g, gpu2.states(Some(&ctx)), "GPU reruns differ");
}

/// Validation 5's scenes on the GPU twin: the single KV bond behind an eq-6 plate (Δt = 10⁻⁴ s,
/// 11,000 steps) gives the CPU's figures (F∞, history, τ within 1e-4 relative), and the light-bead
/// KV sphere (n = 4, 251 beads, b = 10⁻⁶ N s/m, Δt = 5 × 10⁻¹¹ s) compressed at 200 m/s and
/// held 40 ns gives the CPU's plate forces within 1e-3 of the largest.
#[test]
fn gpu_relaxation_scenes_follow_the_cpu() {
    use softdem::beads::scenes::compress_and_hold;
    use softdem::validation::beads_relaxation::{bond_relaxation, sphere_spec};
    let ctx = gpu_for_tests();
    let (c, g) = (
        bond_relaxation(None, 1e-4, 8.0).unwrap(),
        bond_relaxation(Some(&ctx), 1e-4, 8.0).unwrap(),
    );
    println!("CPU {c:?}\nGPU {g:?}");
    assert!((c.tau / g.tau - 1.0).abs() < 1e-4 && (c.overshoot / g.overshoot - 1.0).abs() < 1e-4);
    assert!((c.f_inf_error - g.f_inf_error).abs() < 1e-4 && (c.history_error - g.history_error).abs() < 1e-4);
    let sp = sphere_spec(4.0);
    let hold = (40e-9 / sp.dt) as usize;
    let rc = compress_and_hold(None, &sp, 50, hold, 20).unwrap();
    let rg = compress_and_hold(Some(&ctx), &sp, 50, hold, 20).unwrap();
    assert_eq!(rc.beads, 251);
    assert_eq!(rc.samples.len(), rg.samples.len());
    let fmax = rc.samples.iter().map(|s| s.force()).fold(0.0, f64::max);
    let worst = rc
        .samples
        .iter()
        .zip(&rg.samples)
        .map(|(a, b)| (a.f_top - b.f_top).abs().max((a.f_bottom - b.f_bottom).abs()))
        .fold(0.0, f64::max);
    println!("sphere: largest plate force {fmax:.4e} N, largest CPU–GPU difference {worst:.3e} N");
    assert!(worst <= 1e-3 * fmax, "{worst} vs {fmax}");
}
