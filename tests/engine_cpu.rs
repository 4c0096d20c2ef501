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
    let t = std::time::Instant::now();
    let sc = large::scene();
    let mut be = cpu_backend(&sc);
    let steps = 3;
    let m = large::run(&mut *be, steps);
    large::check(&m, steps);
    // An all-pairs stage over 320,000 nodes (5·10^10 pairs) would take minutes; the whole test
    // (scene, list build, 3 steps) must take well under that.
    let total = t.elapsed().as_secs_f64();
    println!("large scene total {total:.2} s");
    assert!(total < 60.0, "large scene took {total:.1} s");
}

/// A free segment stretched to 3× its initial length (0.25 → 0.75) and held; a probe (vertical
/// 2-node line, x held, y free) is pressed by a constant force onto its interior at x = 0.6, far
/// from the segment's start node. Returns the largest geometric overlap reached and whether any
/// contact became active.
fn stretched_segment_contact(skin: Option<f32>) -> (f64, bool) {
    use softdem::model::*;
    let mut sc = Scene::default();
    let mat = sc.add_material(elastic(100.0, 0.0, 0.0));
    sc.add_line([0.0, 0.0], [0.25, 0.0], 2, free_body(mat, 0.05, Core::None));
    sc.impose_velocity(&NodeSet::Indices(vec![0]), Some(0.0), Some(0.0));
    sc.impose_velocity(&NodeSet::Indices(vec![1]), Some(1.0), Some(0.0));
    // Probe: vertical 2-node line above x = 0.6 (gap 0.02 at the start), pushed down by 0.1.
    sc.add_line([0.6, 0.12], [0.6, 0.32], 2, free_body(mat, 0.05, Core::None));
    sc.impose_velocity(&NodeSet::Body(1), Some(0.0), None);
    sc.add_force(&NodeSet::Indices(vec![2]), [0.0, -0.1]);
    sc.contact = ContactLaw {
        k_n: 100.0,
        k_t: 0.0,
        mu: 0.0,
        c_n: 5.0,
    };
    sc.time_step = TimeStep::Fixed(0.001);
    sc.skin = skin;
    let mut be = cpu_backend(&sc);
    be.step(500).unwrap(); // stretch to 0.75
    let mut nodes = sc.nodes.clone();
    nodes[1].bc_velocity = [0.0, 0.0];
    be.set_boundary_conditions(&nodes).unwrap();
    let (mut max_overlap, mut touched) = (0.0f64, false);
    for _ in 0..60 {
        be.step(100).unwrap();
        let n = be.read_nodes().unwrap();
        max_overlap = max_overlap.max(0.1 - (n[2].pos()[1] - n[0].pos()[1]));
        touched |= be.read_contacts().unwrap().active_count() > 0;
    }
    (max_overlap, touched)
}

#[test]
fn stretched_segment_contact_with_large_skin_cpu() {
    // Work-around for the issue below: a skin large enough for the stretched length.
    let (overlap, touched) = stretched_segment_contact(Some(0.5));
    assert!(touched, "no contact although the probe reached overlap {overlap}");
    // Static overlap F/k_n = 0.001, plus the landing at ~0.07 speed.
    assert!(overlap < 0.01, "the probe went into the segment: overlap {overlap}");
}

#[test]
#[ignore = "src bug: the neighbour cut-off is fixed from the initial longest segment (Scene::sim_params); \
            a segment stretched beyond ℓ0_max + skin loses node–segment contacts near its far end"]
fn stretched_segment_keeps_contact_cpu() {
    let (overlap, touched) = stretched_segment_contact(None);
    assert!(
        touched,
        "node pressed onto a stretched segment got no contact (overlap reached {overlap:.3}, r_i + r_j = 0.1)"
    );
}
