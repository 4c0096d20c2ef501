//! Engine acceptance tests on the CPU reference backend: every case of `common` run in full and
//! asserted against the paper / analytic results (tolerances stated in `common`).
//! The GPU twins of these tests live in `engine_gpu.rs`.

mod common;

use common::*;

#[test]
fn ring_at_rest_cpu() {
    let sc = ring_rest::scene();
    let m = ring_rest::run(&mut *cpu_backend(&sc), &sc, ring_rest::STEPS);
    ring_rest::check(&m);
}

#[test]
fn ring_inflation_eq25_cpu() {
    let sc = ring_inflation::scene();
    let m = ring_inflation::run(&mut *cpu_backend(&sc), &sc, ring_inflation::STEPS);
    ring_inflation::check(&m);
}

#[test]
fn undamped_collision_conserves_cpu() {
    let sc = collision::scene();
    let m = collision::run(&mut *cpu_backend(&sc), &sc, collision::STEPS);
    collision::check(&m);
}

#[test]
fn friction_stick_below_atan_mu_cpu() {
    let a = friction_slope::STICK_DEG;
    let sc = friction_slope::scene(a);
    let m = friction_slope::run(&mut *cpu_backend(&sc), &sc, a, friction_slope::STEPS);
    friction_slope::check(&m);
}

#[test]
fn friction_slide_above_atan_mu_cpu() {
    let a = friction_slope::SLIDE_DEG;
    let sc = friction_slope::scene(a);
    let m = friction_slope::run(&mut *cpu_backend(&sc), &sc, a, friction_slope::STEPS);
    friction_slope::check(&m);
}

#[test]
fn joint_drag_collinear_cpu() {
    use joint_drag::Joint;
    let sc = joint_drag::scene(Joint::Collinear);
    let m = joint_drag::run(&mut *cpu_backend(&sc), &sc, Joint::Collinear, joint_drag::STEPS);
    joint_drag::check(&m);
}

#[test]
fn joint_drag_convex_cpu() {
    use joint_drag::Joint;
    let sc = joint_drag::scene(Joint::Convex);
    let m = joint_drag::run(&mut *cpu_backend(&sc), &sc, Joint::Convex, joint_drag::STEPS);
    joint_drag::check(&m);
}

#[test]
fn plastic_segment_cpu() {
    let sc = plastic_segment::scene();
    let m = plastic_segment::run(&mut *cpu_backend(&sc), &sc);
    plastic_segment::check(&m);
}

#[test]
fn plastic_bending_cpu() {
    let sc = plastic_bending::scene();
    let m = plastic_bending::run(&mut *cpu_backend(&sc), &sc);
    plastic_bending::check(&m);
}

#[test]
fn packing_cpu() {
    let sc = packing::scene();
    sc.validate().unwrap();
    let m = packing::run(&mut *cpu_backend(&sc), &sc, packing::STEPS);
    packing::check(&sc, &m);
    // The CPU reference is deterministic: a second run is bit-identical.
    let m2 = packing::run(&mut *cpu_backend(&sc), &sc, packing::STEPS);
    assert!(
        m.final_nodes == m2.final_nodes,
        "two CPU runs differ by {:e}",
        max_position_diff(&m.final_nodes, &m2.final_nodes)
    );
}

#[test]
fn far_from_origin_precision_cpu() {
    let sc = precision::scene();
    let m = precision::run(&mut *cpu_backend(&sc), &sc, precision::STEPS_CPU);
    precision::check(&m);
}

#[test]
fn large_scene_no_quadratic_stage_cpu() {
    let sc = large::scene();
    let mut be = cpu_backend(&sc);
    let steps = 3;
    let m = large::run(&mut *be, steps);
    // No quadratic stage: `check` bounds the neighbour entries per node (speed itself is measured
    // by `softdem bench` and benches/, not asserted in tests).
    large::check(&m, steps);
}

#[test]
fn stretched_segment_contact_with_large_skin_cpu() {
    // A skin larger than the stretch (the case that worked before the cut-off followed ℓ).
    let (overlap, touched) = stretched_segment::run(&mut *cpu_backend(&stretched_segment::scene(Some(0.5))));
    assert!(touched, "no contact although the probe reached overlap {overlap}");
    // Static overlap F/k_n = 0.001, plus the landing at ~0.07 speed.
    assert!(overlap < 0.01, "the probe went into the segment: overlap {overlap}");
}

#[test]
fn stretched_segment_keeps_contact_cpu() {
    let (overlap, touched) = stretched_segment::run(&mut *cpu_backend(&stretched_segment::scene(None)));
    assert!(
        touched,
        "node pressed onto a stretched segment got no contact (overlap reached {overlap:.3}, r_i + r_j = 0.1)"
    );
    assert!(overlap < 0.01, "the probe went into the segment: overlap {overlap}");
}

/// Self-contact: the squeezed ring's flat sides stay apart (no crossing segments) at the
/// distance the three contact layers in series predict, 1.6 r (`self_contact::SEPARATION`),
/// within 0.1 r (measured 0.0800 = 1.6 r to four digits, unchanged when the last bits of a
/// coordinate are perturbed); the control without self-contact interpenetrates (distance
/// < r/2; its sides coincide), proving the check can fail.
#[test]
fn self_contact_keeps_flattened_sides_apart_cpu() {
    let nodes = self_contact::run(&mut *cpu_backend(&self_contact::scene(true)));
    let (dmin, crossings, thickness) = self_contact::measure(&nodes);
    let r = self_contact::RADIUS as f64;
    println!("self-contact on: min distance {dmin:.4}, crossings {crossings}, thickness {thickness:.4}");
    assert_eq!(crossings, 0, "segments of the shell cross");
    assert!(
        (dmin - self_contact::SEPARATION).abs() <= 0.1 * r,
        "opposite sides are {dmin:.4} apart; series contacts predict {:.4} (tolerance 0.1 r, r = {r})",
        self_contact::SEPARATION
    );
    assert!(thickness < 0.2, "the ring was not squeezed flat: thickness {thickness}");

    let mut off = cpu_backend(&self_contact::scene(false));
    let nodes = self_contact::run(&mut *off);
    let (dmin_off, _, _) = self_contact::measure(&nodes);
    println!("self-contact off: min distance {dmin_off:.4}");
    assert!(
        dmin_off < 0.5 * r,
        "without self-contact the sides should interpenetrate ({dmin_off:.4})"
    );
}

/// The critical time step counts the core's breathing mode (K_Ω s² ℓ² N/V0 per node): a stiff
/// core (η = K_Ω/K_∂Ω = 10⁵, N = 64) stepped at half the critical dt stays bounded. With the
/// core counted per node only (without N), dt was 8× too large and this run blew up within
/// 10 steps.
#[test]
fn stiff_core_is_stable_at_half_the_critical_dt_cpu() {
    use softdem::model::*;
    let n = 64;
    let mut sc = Scene::default();
    let k_s = 1.0f32;
    let k_shell = k_s * (std::f32::consts::PI / n as f32).tan(); // K_∂Ω of eq 25 (s = 1)
    let mat = sc.add_material(elastic(k_s, 0.01, 1e5 * k_shell));
    sc.add_ring([0.0, 0.0], 1.0, n, free_body(mat, 0.02, Core::Undrained { p0: 0.0 }));
    sc.init[0].vel = [1e-2, 0.0];
    sc.time_step = TimeStep::FractionOfCritical(0.5);
    let mut be = cpu_backend(&sc);
    be.step(2000).unwrap();
    let nodes = be.read_nodes().unwrap();
    let e = softdem::diagnostics::energies(&sc, &nodes, &be.read_bodies().unwrap(), &be.read_contacts().unwrap());
    // Initial energy ½ m v² = 5e-5, no dissipation: conserved within 5 % when stable (an unstable
    // step grows it without bound).
    let e0 = 5e-5;
    assert!(
        (e.total() - e0).abs() < 0.05 * e0,
        "energy {:e} after 2000 steps (initial {e0:e})",
        e.total()
    );
}

/// The Verlet skin is a cost knob only: the early out of contact_pairs is exact and each list is
/// ordered by neighbour index, so the gather adds the same forces in the same order whatever the
/// list holds. A pressed packing of 36 cells with friction (μ = 0.3, k_t = k_n/2) under a moving
/// wall must give byte-identical node states after 2,000 steps with skins ℓ̄/2 and ℓ̄/5.
#[test]
fn results_do_not_depend_on_the_skin_cpu() {
    use softdem::backend::BackendKind;
    use softdem::engine::spd::create;
    let (mut scene, _) = softdem::scenes::compaction_bench(36);
    scene.contact.mu = 0.3;
    scene.contact.k_t = 0.5 * scene.contact.k_n;
    let ell = scene.mean_segment();
    let mut run = |skin: f32| {
        scene.skin = Some(skin);
        let mut be = create(BackendKind::Cpu, &scene).unwrap();
        be.step(2000).unwrap();
        let contacts = be.read_contacts().unwrap();
        let active = contacts.slots.iter().filter(|s| s.flags != 0).count();
        (be.read_nodes().unwrap(), contacts.entries.len(), active)
    };
    let (thick, entries_thick, active_thick) = run(0.5 * ell);
    let (thin, entries_thin, active_thin) = run(0.2 * ell);
    // The comparison means something only if contacts act and the lists differ.
    assert!(active_thick > 10, "only {active_thick} active contacts");
    assert_eq!(active_thick, active_thin);
    assert!(
        entries_thin < entries_thick,
        "{entries_thin} vs {entries_thick} entries"
    );
    assert!(
        bytemuck::cast_slice::<_, u8>(&thick) == bytemuck::cast_slice::<_, u8>(&thin),
        "node states differ between skins ℓ̄/2 and ℓ̄/5"
    );
}
