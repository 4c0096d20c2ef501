//! The modal kernels on the GPU (lavapipe in CI) against their CPU twins, on the validation cases:
//! the stated prefixes (`Extent::Prefix`, see `src/modal/validation.rs`): bending to δ̂ = 0.5, the
//! disk for the first eighth of its loading, the 3×3 packing for 1000 steps; and two GPU runs are bit-identical (gathers in a
//! fixed order, no atomics). A missing adapter fails these tests (`gpu_for_tests`).
//!
//! Tolerance: the kernels do the same f32 operations in the same order (sin/cos of Θ and of the
//! bending mode by the polynomial `sin_cos_det`, products that feed sums there kept unfused); sqrt
//! may still differ by an ulp, so the recorded series must agree to 1e-4 of their largest
//! magnitude (the test prints the observed figure).

use softdem::backend::BackendKind;
use softdem::modal::cpu::CpuModal;
use softdem::modal::gpu::GpuModal;
use softdem::modal::stepper::{ModalBackend, ModalRun};
use softdem::modal::validation::*;
use softdem::validation::{CaseReport, Extent};

fn gpu_env() {
    let dir = format!("/tmp/xdg-{}", std::process::id());
    let _ = std::fs::create_dir_all(&dir);
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", dir);
    }
    // Fails (never skips) without an adapter.
    drop(softdem::gpu::context::gpu_for_tests());
}

fn compare(cpu: &CaseReport, gpu: &CaseReport, trace: &str, rel: f64) {
    let a = &cpu.trace(trace).values;
    let b = &gpu.trace(trace).values;
    assert_eq!(a.len(), b.len(), "{}: {trace} lengths", cpu.case);
    let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-30);
    let (at, gap) = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .enumerate()
        .fold((0, 0.0f64), |m, (i, d)| if d > m.1 { (i, d) } else { m });
    let worst = gap / scale;
    eprintln!(
        "{} {trace}: max |cpu − gpu| / max|cpu| = {worst:.3e} at sample {at} of {} (cpu {:.6e}, gpu {:.6e}; cpu {:.1} s, gpu {:.1} s)",
        cpu.case,
        a.len(),
        a.get(at).copied().unwrap_or(0.0),
        b.get(at).copied().unwrap_or(0.0),
        cpu.seconds,
        gpu.seconds
    );
    assert!(
        worst <= rel,
        "{}: {trace} differs by {worst:.3e} of its scale (tolerance {rel})",
        cpu.case
    );
}

#[test]
fn modal_gpu_bending_matches_cpu() {
    gpu_env();
    let g = run_bending(BackendKind::Gpu, Extent::Prefix).unwrap();
    let c = run_bending(BackendKind::Cpu, Extent::Prefix).unwrap();
    // The indenter force of a stiff node contact (k_n = 1e7 against circle walls, normal and
    // friction cap through sqrt) turns a 1-ulp difference of a node position (~1e-7) into ~2e-4
    // of the force; observed 9e-4 at worst over the run.
    compare(&c, &g, "force", 2e-3);
    compare(&c, &g, "eps", 1e-4);
    g.assert_all_pass();
}

#[test]
fn modal_gpu_disk_prefix_matches_cpu() {
    gpu_env();
    let g = run_compaction(BackendKind::Gpu, Extent::Prefix, 1).unwrap();
    let c = run_compaction(BackendKind::Cpu, Extent::Prefix, 1).unwrap();
    compare(&c, &g, "force", 1e-4);
    compare(&c, &g, "eps", 1e-4);
}

#[test]
fn modal_gpu_packing_prefix_matches_cpu() {
    gpu_env();
    let g = run_compaction(BackendKind::Gpu, Extent::Prefix, 3).unwrap();
    let c = run_compaction(BackendKind::Cpu, Extent::Prefix, 3).unwrap();
    compare(&c, &g, "force", 1e-4);
    compare(&c, &g, "eps", 1e-4);
}

#[test]
fn modal_gpu_runs_are_bit_identical() {
    gpu_env();
    let c = compaction_case(3, COMPACTION_DURATION).unwrap();
    let run = || {
        let packed = c.scene.pack().unwrap();
        let state = c.scene.bodies.iter().map(|b| b.initial_state()).collect();
        let ctx = softdem::gpu::context::gpu_for_tests();
        let mut r = ModalRun::new(
            GpuModal::new(ctx, packed, state).unwrap(),
            c.scene.rebuild_every,
            c.scene.skin,
        );
        r.run(500).unwrap();
        (
            r.backend.states().unwrap(),
            r.backend.pool().unwrap(),
            r.backend.wall_forces().unwrap(),
        )
    };
    let (s1, l1, w1) = run();
    let (s2, l2, w2) = run();
    assert!(
        bytemuck::cast_slice::<_, u8>(&s1) == bytemuck::cast_slice::<_, u8>(&s2),
        "states differ"
    );
    assert_eq!(l1.start, l2.start, "slot pool layouts differ");
    assert!(
        bytemuck::cast_slice::<_, u8>(&l1.slots) == bytemuck::cast_slice::<_, u8>(&l2.slots),
        "contact slots differ"
    );
    assert_eq!(w1, w2, "wall forces differ");
    // And the CPU twin after the same steps: same active contacts, forces close.
    let packed = c.scene.pack().unwrap();
    let state = c.scene.bodies.iter().map(|b| b.initial_state()).collect();
    let mut r = ModalRun::new(CpuModal::new(packed, state), c.scene.rebuild_every, c.scene.skin);
    r.run(500).unwrap();
    let sc = r.backend.pool().unwrap();
    assert_eq!(sc.start, l1.start, "CPU and GPU slot pools laid out alike");
    let active_gpu = l1.slots.iter().filter(|s| s.active != 0).count();
    let active_cpu = sc.slots.iter().filter(|s| s.active != 0).count();
    assert!(
        active_gpu > 0 && active_gpu == active_cpu,
        "active contacts gpu {active_gpu} cpu {active_cpu}"
    );
}

/// Case 5 prefix (the 2×2 packing, 1000 steps with each level-set query) on the GPU against the
/// CPU twin: the precomputed query (`ls_precomputed`, `pre_interval`, `ls_query` in
/// modal_lib.wgsl) as well as the pullback. Same tolerance as the other compaction prefixes (1e-4
/// of the largest magnitude; the test prints the observed figure). The option must reach the GPU
/// kernels: the two query methods give different series there.
#[test]
fn modal_gpu_precomputed_query_matches_cpu() {
    gpu_env();
    let g = run_query(BackendKind::Gpu, Extent::Prefix).unwrap();
    let c = run_query(BackendKind::Cpu, Extent::Prefix).unwrap();
    compare(&c, &g, "force_precomputed", 1e-4);
    compare(&c, &g, "eps_precomputed", 1e-4);
    compare(&c, &g, "force_pullback", 1e-4);
    assert!(
        g.trace("force_precomputed").values != g.trace("force_pullback").values,
        "the precomputed option did not change the GPU run"
    );
}
