//! The modal kernels on the GPU (lavapipe in CI) against their CPU twins, on the validation cases:
//! the stated prefixes (`Extent::Prefix`, see `src/modal/validation.rs`): bending to δ̂ = 0.5, the
//! disk for the first eighth of its loading, the 3×3 packing for 1000 steps; and two GPU runs are
//! bit-identical (gathers in a fixed order, no atomics). A missing adapter fails these tests
//! (`gpu_for_tests`).
//!
//! Precision contract (docs/architecture.md, docs/modal.md "GPU against CPU"): two runs on one
//! device are bit-identical; the GPU against the CPU agrees within a tolerance stated per quantity.
//! The kernels round every product that a contact decision reads as the CPU does (`opaque`), but
//! a device may still fuse the body update's products and round division and sqrt differently
//! (Vulkan allows 2.5 ulp for a division); lavapipe does neither and matches the CPU bit for bit.
//! The compaction prefixes turn such an ulp into a whole stair step of the wall force (see
//! `compare_compaction`); they are compared on the stair step and on the work of the walls.

use softdem::backend::BackendKind;
use softdem::modal::cpu::CpuModal;
use softdem::modal::gpu::GpuModal;
use softdem::modal::stepper::{ModalBackend, ModalRun};
use softdem::modal::validation::*;
use softdem::validation::{CaseReport, Extent};

fn gpu_env() {
    // Fails (never skips) without an adapter. No `set_var` here: the tests run in parallel and
    // setenv while another thread's driver reads the environment (getenv, not under Rust's lock)
    // is undefined behaviour, a candidate for the segfault seen once with 8 threads on an H200.
    // `GpuContext::new` sets XDG_RUNTIME_DIR itself, once, before the first wgpu instance.
    drop(softdem::gpu::context::gpu_for_tests());
}

/// The sample where two series differ most, and by how much.
fn largest_gap(a: &[f64], b: &[f64]) -> (usize, f64) {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .enumerate()
        .fold((0, 0.0f64), |m, (i, d)| if d > m.1 { (i, d) } else { m })
}

fn compare(cpu: &CaseReport, gpu: &CaseReport, trace: &str, rel: f64) {
    let a = &cpu.trace(trace).values;
    let b = &gpu.trace(trace).values;
    assert_eq!(a.len(), b.len(), "{}: {trace} lengths", cpu.case);
    let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-30);
    let (at, gap) = largest_gap(a, b);
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

/// Distance to the next f32 above |x|.
fn ulp(x: f32) -> f64 {
    let a = x.abs();
    (f32::from_bits(a.to_bits() + 1) - a) as f64
}

/// A compaction prefix on the GPU against the CPU twin (`side` × `side` disks).
///
/// Why not the series sample by sample at 1e-4: the wall force is a staircase. A wall node's gap
/// is its coordinate (|x| ≈ x_max: 10 for the disk, 30 for the packing) minus the wall's, both
/// rounded to ulp(x_max) in f32, while the walls close in by 4.4e-6 a step: the gap, and k_n × gap,
/// move in whole ulps. The eight mirror images of a wall node (the case is symmetric under the
/// square's eight symmetries, and round-to-nearest rounds mirror images alike) step together:
/// one stair step of the total wall force is Q = 8 k_n ulp(x_max) (disk 1.53 N, 2.9e-2 of its
/// largest force; packing 3.05 N). A rounding difference anywhere upstream moves a stair edge by
/// a step or a few, and where a sample falls between the two edges the series differ by Q.
/// Measured on the CPU twin (tests in docs/modal.md, "GPU against CPU"): every a·b + c fused by
/// `f32::mul_add` gave 2.855e-2 at sample 65 of 103 on the disk (CPU 27.646 N, fused 26.120 N)
/// and 5.85e-4 on the packing: the figures the H200 gave (26.12 against 27.65 N; 5.9e-4).
///
/// Checks, each able to fail on a real defect:
/// - force, each sample: |F_gpu − F_cpu| ≤ `steps_q` Q (stair edges moved, not the stairs);
/// - work of the walls W(u) = Σ F Δu, at every sample: within `work_rel` of the CPU's final W
///   (a moved stair edge moves W by Q Δu per sample at most; a force off by 1 % moves it by 1 %);
/// - ε, each sample: within `eps_rel` of the CPU's largest ε.
fn compare_compaction(side: usize, cpu: &CaseReport, gpu: &CaseReport, steps_q: f64, work_rel: f64, eps_rel: f64) {
    let c = compaction_case(side, COMPACTION_DURATION).unwrap();
    let x_max = (side as f64 * DISK_R) as f32;
    let q = 8.0 * c.scene.contact.k_n as f64 * ulp(x_max);
    let a = &cpu.trace("force").values;
    let b = &gpu.trace("force").values;
    assert_eq!(a.len(), b.len(), "{}: force lengths", cpu.case);
    let (at, gap) = largest_gap(a, b);
    eprintln!(
        "{} force: max |cpu − gpu| = {gap:.4e} N = {:.3} Q (Q = 8 k_n ulp({x_max}) = {q:.4e} N) at sample {at} of {} (cpu {:.6e}, gpu {:.6e}; cpu {:.1} s, gpu {:.1} s)",
        cpu.case,
        gap / q,
        a.len(),
        a[at],
        b[at],
        cpu.seconds,
        gpu.seconds
    );
    assert!(
        gap <= steps_q * q,
        "{}: the force departs by {gap:.4e} N = {:.3} stair steps Q (tolerance {steps_q})",
        cpu.case,
        gap / q
    );
    // Samples are equally spaced in u: W_i = Δu Σ_{j ≤ i} F_j; Δu cancels in the ratio.
    let work = |f: &[f64]| -> Vec<f64> {
        let mut acc = 0.0;
        f.iter()
            .map(|x| {
                acc += x;
                acc
            })
            .collect()
    };
    let (wa, wb) = (work(a), work(b));
    let w_end = *wa.last().unwrap();
    let (wat, wgap) = wa
        .iter()
        .zip(&wb)
        .map(|(x, y)| (x - y).abs())
        .enumerate()
        .fold((0, 0.0f64), |m, (i, d)| if d > m.1 { (i, d) } else { m });
    let wrel = wgap / w_end;
    eprintln!(
        "{} work: max |W_cpu − W_gpu| / W_cpu(end) = {wrel:.3e} at sample {wat} (tolerance {work_rel})",
        cpu.case
    );
    assert!(
        wrel <= work_rel,
        "{}: the work of the walls departs by {wrel:.3e} of its final value (tolerance {work_rel})",
        cpu.case
    );
    compare(cpu, gpu, "eps", eps_rel);
}

/// Force, each sample: two stair steps Q. Measured on the CPU twin with every a·b + c of the
/// contact paths fused: one step (disk 1.000 Q at sample 65; packing 0.08 Q).
const STEPS_Q: f64 = 2.0;
/// Work of the walls: 3× the departure measured with every a·b + c fused (disk 1.34e-3, packing
/// 6.4e-5; a 1-ulp shift of the disk's centre, which breaks the mirror symmetry that rounding
/// keeps, gave 4.8e-3 through the start-up transient). A force off by 1 % moves it by 1e-2.
const DISK_WORK_REL: f64 = 4e-3;
const PACKING_WORK_REL: f64 = 2e-4;
/// ε, each sample, of its largest value: measured 1.3e-5 (disk), 2.1e-5 (packing) fused.
const DISK_EPS_REL: f64 = 1e-4;
const PACKING_EPS_REL: f64 = 1e-4;

/// The GPU run twice: the recorded series bit for bit (same device, same kernels, no atomics).
fn assert_reruns_identical(first: &CaseReport, second: &CaseReport) {
    for t in ["force", "eps"] {
        let (a, b) = (&first.trace(t).values, &second.trace(t).values);
        assert!(
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()),
            "{}: two GPU runs differ in {t}",
            first.case
        );
    }
}

#[test]
fn modal_gpu_disk_prefix_matches_cpu() {
    gpu_env();
    let g = run_compaction(BackendKind::Gpu, Extent::Prefix, 1).unwrap();
    let g2 = run_compaction(BackendKind::Gpu, Extent::Prefix, 1).unwrap();
    assert_reruns_identical(&g, &g2);
    let c = run_compaction(BackendKind::Cpu, Extent::Prefix, 1).unwrap();
    compare_compaction(1, &c, &g, STEPS_Q, DISK_WORK_REL, DISK_EPS_REL);
}

#[test]
fn modal_gpu_packing_prefix_matches_cpu() {
    gpu_env();
    let g = run_compaction(BackendKind::Gpu, Extent::Prefix, 3).unwrap();
    let g2 = run_compaction(BackendKind::Gpu, Extent::Prefix, 3).unwrap();
    assert_reruns_identical(&g, &g2);
    let c = run_compaction(BackendKind::Cpu, Extent::Prefix, 3).unwrap();
    compare_compaction(3, &c, &g, STEPS_Q, PACKING_WORK_REL, PACKING_EPS_REL);
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
