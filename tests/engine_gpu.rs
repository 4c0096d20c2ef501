//! Engine acceptance tests on the GPU backend: every case of `common` run on `GpuBackend`
//! (lavapipe in CI), asserted against the same physics checks as the CPU tests AND compared with
//! the CPU reference run of the same scene for the same number of steps, with the tolerance stated
//! in each test. GPU runs are kept short (≤ 3000 steps, small scenes); where the GPU runs a prefix
//! of the CPU case it says so.
//!
//! These tests fail (never skip) when no GPU adapter exists (`gpu_for_tests` panics with a hint).
//!
//! Precision contract: nothing here asserts CPU == GPU bit for bit (lavapipe gives that, a device
//! that fuses multiply-adds does not). Continuous quantities are compared within the stated
//! tolerances; discrete decisions (a stage ends on the first step whose force changes sign, a
//! contact is active) may differ only where the CPU's deciding value lies within the tolerance of
//! its threshold (`samples_before_fork`: the series are compared up to there) or on a stated share
//! of steps (`steps_differing`).

mod common;

use common::*;
use softdem::model::NodeState;

/// Largest node-position difference between the GPU and CPU final states, with a message.
fn assert_close(what: &str, gpu: &[NodeState], cpu: &[NodeState], tol: f64) {
    let d = max_position_diff(gpu, cpu);
    println!("{what}: max |x_gpu − x_cpu| = {d:e} (tolerance {tol:e})");
    assert!(
        d <= tol,
        "{what}: GPU deviates from CPU by {d:e} R (tolerance {tol:e} R)"
    );
}

/// Samples of two runs to compare: all when the stage sequences are equal. Otherwise the runs
/// took different branches at the sign decision that ends the unloading (it stops on the first
/// sample whose `decider` reaches zero, e.g. exactly 0 where the force returns to zero), which is
/// allowed only where the CPU's deciding value lies within `tol` of zero (a rounding fork); the
/// samples before the fork are compared, and each run has passed the physics `check` on its own.
fn samples_before_fork(what: &str, g: &[u8], c: &[u8], decider: &[f64], tol: f64) -> usize {
    let Some(i) = (0..g.len().min(c.len())).find(|&i| g[i] != c[i]) else {
        assert_eq!(g.len(), c.len(), "{what}: stage sequences of different lengths");
        return g.len();
    };
    let fork = i.saturating_sub(3)..i;
    assert!(
        fork.clone().any(|j| decider[j].abs() <= tol),
        "{what}: stages differ from sample {i}, where the CPU's decision is clear: {:?}",
        &decider[fork.clone()]
    );
    println!("{what}: the runs fork at sample {i} (decided within {tol:e} of zero)");
    fork.start
}

/// Steps on which two per-step records differ (contact counts, cap flags): a contact that opens
/// or closes within rounding of its threshold can do so one step apart on two devices.
fn steps_differing<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    assert_eq!(a.len(), b.len(), "records of different lengths");
    a.iter().zip(b).filter(|(x, y)| x != y).count()
}

/// Largest element-wise difference of two series of the same length.
fn series_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "series of different lengths");
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

#[test]
fn ring_at_rest_gpu_matches_cpu() {
    let sc = ring_rest::scene();
    let g = ring_rest::run(&mut *gpu_backend(&sc), &sc, ring_rest::STEPS);
    ring_rest::check(&g);
    let c = ring_rest::run(&mut *cpu_backend(&sc), &sc, ring_rest::STEPS);
    // Both must be at the initial state; GPU vs CPU within 1e-7 R.
    assert_close("ring at rest", &g.final_nodes, &c.final_nodes, 1e-7);
}

#[test]
fn ring_inflation_eq25_gpu_matches_cpu() {
    let sc = ring_inflation::scene();
    let g = ring_inflation::run(&mut *gpu_backend(&sc), &sc, ring_inflation::STEPS);
    ring_inflation::check(&g);
    let c = ring_inflation::run(&mut *cpu_backend(&sc), &sc, ring_inflation::STEPS);
    // Static state: positions within 1e-5 R, ΔV/V0 within 1e-4 relative.
    assert_close("ring inflation", &g.final_nodes, &c.final_nodes, 1e-5);
    let rel = (g.dv_over_v0 / c.dv_over_v0 - 1.0).abs();
    assert!(rel < 1e-4, "ΔV/V0 GPU {} vs CPU {}", g.dv_over_v0, c.dv_over_v0);
}

#[test]
fn undamped_collision_conserves_gpu_matches_cpu() {
    let sc = collision::scene();
    let g = collision::run(&mut *gpu_backend(&sc), &sc, collision::STEPS);
    collision::check(&g);
    let c = collision::run(&mut *cpu_backend(&sc), &sc, collision::STEPS);
    // A smooth (non-chaotic) two-body collision: positions within 1e-4 R, energy series within
    // 1e-4 E0 at every sample.
    assert_close("collision", &g.final_nodes, &c.final_nodes, 1e-4);
    let de = series_diff(&g.energy_series, &c.energy_series) / c.e0;
    println!("collision: max |E_gpu − E_cpu| = {de:e} E0");
    assert!(de < 1e-4, "energy series differ by {de:e} E0");
}

fn friction_case(alpha: f64) {
    let sc = friction_slope::scene(alpha);
    let g = friction_slope::run(&mut *gpu_backend(&sc), &sc, alpha, friction_slope::STEPS);
    friction_slope::check(&g);
    let c = friction_slope::run(&mut *cpu_backend(&sc), &sc, alpha, friction_slope::STEPS);
    // Centroid trajectories within 1e-4 R at every sample, final nodes within 1e-4 R.
    let dx = series_diff(&g.x, &c.x);
    println!("friction α = {alpha}°: max |x_gpu − x_cpu| (centroid) = {dx:e}");
    assert!(dx < 1e-4, "centroid trajectories differ by {dx:e} R");
    assert_close("friction", &g.final_nodes, &c.final_nodes, 1e-4);
}

#[test]
fn friction_stick_below_atan_mu_gpu_matches_cpu() {
    friction_case(friction_slope::STICK_DEG);
}

#[test]
fn friction_slide_above_atan_mu_gpu_matches_cpu() {
    friction_case(friction_slope::SLIDE_DEG);
}

fn joint_case(joint: joint_drag::Joint) {
    let sc = joint_drag::scene(joint);
    let g = joint_drag::run(&mut *gpu_backend(&sc), &sc, joint, joint_drag::STEPS);
    joint_drag::check(&g);
    let c = joint_drag::run(&mut *cpu_backend(&sc), &sc, joint, joint_drag::STEPS);
    // Same contact topology at all but 1 % of the steps (contact onsets within rounding); force
    // series within 1e-4 F.
    let allowed = g.active.len() / 100;
    let (da, dc) = (steps_differing(&g.active, &c.active), steps_differing(&g.cap, &c.cap));
    println!("joint drag {joint:?}: active counts differ on {da} steps, cap on {dc} (allowed {allowed})");
    assert!(da <= allowed, "active contact counts differ on {da} steps");
    assert!(dc <= allowed, "cap contact steps differ on {dc} steps");
    let (dfy, dfn) = (series_diff(&g.fy, &c.fy), series_diff(&g.f_n, &c.f_n));
    println!("joint drag {joint:?}: max |ΔF_y| = {dfy:e}, max |Δf_n| = {dfn:e}");
    assert!(dfy < 1e-4 * joint_drag::F && dfn < 1e-4 * joint_drag::F);
    assert_close("joint drag", &g.final_nodes, &c.final_nodes, 1e-5);
}

#[test]
fn joint_drag_collinear_gpu_matches_cpu() {
    joint_case(joint_drag::Joint::Collinear);
}

#[test]
fn joint_drag_convex_gpu_matches_cpu() {
    joint_case(joint_drag::Joint::Convex);
}

#[test]
fn plastic_segment_gpu_matches_cpu() {
    let sc = plastic_segment::scene();
    let g = plastic_segment::run(&mut *gpu_backend(&sc), &sc);
    plastic_segment::check(&g);
    let c = plastic_segment::run(&mut *cpu_backend(&sc), &sc);
    // Same stage lengths (the unloading stops on the first step with N ≥ 0; it reaches exactly 0
    // here, so a device that rounds differently may stop a step apart: `samples_before_fork`),
    // axial force series within 1e-4 F_Y, rest lengths within 1e-6 ℓ0.
    let tol_n = 1e-4 * plastic_segment::F_Y as f64;
    let k = samples_before_fork("plastic segment", &g.stage, &c.stage, &c.n, tol_n);
    let dn = series_diff(&g.n[..k], &c.n[..k]);
    let dr = series_diff(&g.rest[..k], &c.rest[..k]);
    println!("plastic segment: max |ΔN| = {dn:e}, max |Δℓ_p| = {dr:e}");
    assert!(dn < tol_n);
    assert!(dr < 1e-6 * plastic_segment::L0);
}

#[test]
fn plastic_bending_gpu_matches_cpu() {
    let sc = plastic_bending::scene();
    let g = plastic_bending::run(&mut *gpu_backend(&sc), &sc);
    plastic_bending::check(&g);
    let c = plastic_bending::run(&mut *cpu_backend(&sc), &sc);
    // Same stage lengths (decided by the moment's sign; `samples_before_fork`), moment series
    // within 1e-4 M_Y, θ_p within 1e-6 rad.
    let tol_m = 1e-4 * plastic_bending::M_Y as f64;
    let k = samples_before_fork("plastic bending", &g.stage, &c.stage, &c.moment, tol_m);
    let dm = series_diff(&g.moment[..k], &c.moment[..k]);
    let dt = series_diff(&g.theta_p[..k], &c.theta_p[..k]);
    println!("plastic bending: max |ΔM| = {dm:e}, max |Δθ_p| = {dt:e}");
    assert!(dm < tol_m);
    assert!(dt < 1e-6);
}

#[test]
fn packing_gpu_matches_cpu() {
    let sc = packing::scene();
    let g = packing::run(&mut *gpu_backend(&sc), &sc, packing::STEPS);
    packing::check(&sc, &g);
    // Two GPU runs are bit-identical (no atomics in the force sums, sorted neighbour lists).
    let g2 = packing::run(&mut *gpu_backend(&sc), &sc, packing::STEPS);
    assert!(
        g.final_nodes == g2.final_nodes,
        "two GPU runs differ by {:e}",
        max_position_diff(&g.final_nodes, &g2.final_nodes)
    );
    // GPU vs CPU after the full 2000 steps: max node deviation < 1e-3 R̄ (a packing with
    // collisions amplifies round-off differences, if any).
    let c = packing::run(&mut *cpu_backend(&sc), &sc, packing::STEPS);
    assert_close("packing", &g.final_nodes, &c.final_nodes, 1e-3 * packing::R_MEAN);
}

#[test]
fn far_from_origin_precision_gpu_matches_cpu() {
    // The GPU runs a 3000-step prefix of the CPU case (10,000 steps): expected displacement
    // 3e-6 R instead of 1e-5 R, same 1 % criterion (one f32 ulp at 100 is 7.6e-6).
    let steps = 3000;
    let sc = precision::scene();
    let g = precision::run(&mut *gpu_backend(&sc), &sc, steps);
    precision::check(&g);
    let c = precision::run(&mut *cpu_backend(&sc), &sc, steps);
    // Displacements within 1e-3 of the expected value of each other (1e-9 R).
    let d = series_diff(&g.displacement, &c.displacement);
    println!("precision: max |Δd| GPU vs CPU = {d:e}");
    assert!(d < 1e-3 * g.expected, "GPU/CPU displacements differ by {d:e}");
}

#[test]
fn large_scene_no_quadratic_stage_gpu_matches_cpu() {
    // The GPU runs 2 steps of the 320,000-node scene (the CPU test runs 3).
    let steps = 2;
    let sc = large::scene();
    let t = std::time::Instant::now();
    let mut be = gpu_backend(&sc);
    let m = large::run(&mut *be, steps);
    large::check(&m, steps);
    println!(
        "large scene on the GPU: {:.2} s including set-up",
        t.elapsed().as_secs_f64()
    );
    let nodes = be.read_nodes().unwrap();
    drop(be);
    let mut cpu = cpu_backend(&sc);
    cpu.step(steps).unwrap();
    // Two steps from rest: positions within 1e-6 R.
    assert_close("large scene", &nodes, &cpu.read_nodes().unwrap(), 1e-6);
}

/// Case 3c on the GPU: the cut-off follows the longest segment at each list build (segment_max
/// kernel); same contact and overlap (within 1e-4 of r_i + r_j) as the CPU twin.
#[test]
fn stretched_segment_keeps_contact_gpu_matches_cpu() {
    let sc = stretched_segment::scene(None);
    let (overlap, touched) = stretched_segment::run(&mut *gpu_backend(&sc));
    assert!(touched, "no contact on the stretched segment (overlap {overlap:.3})");
    assert!(overlap < 0.01, "the probe went into the segment: overlap {overlap}");
    let (cpu_overlap, _) = stretched_segment::run(&mut *cpu_backend(&sc));
    assert!(
        (overlap - cpu_overlap).abs() < 1e-5,
        "GPU overlap {overlap} vs CPU {cpu_overlap}"
    );
}

/// Self-contact on the GPU: same criteria as the CPU test, and positions within 1e-3 R of the
/// CPU run (a quasi-static squeeze through many contacts).
#[test]
fn self_contact_keeps_flattened_sides_apart_gpu_matches_cpu() {
    let sc = self_contact::scene(true);
    let nodes = self_contact::run(&mut *gpu_backend(&sc));
    let (dmin, crossings, _) = self_contact::measure(&nodes);
    assert_eq!(crossings, 0, "segments of the shell cross");
    assert!(
        (dmin - self_contact::SEPARATION).abs() <= 0.1 * self_contact::RADIUS as f64,
        "opposite sides are {dmin:.4} apart; series contacts predict {:.4} (tolerance 0.1 r)",
        self_contact::SEPARATION
    );
    let cpu = self_contact::run(&mut *cpu_backend(&sc));
    assert_close("self contact", &nodes, &cpu, 1e-3);
}
