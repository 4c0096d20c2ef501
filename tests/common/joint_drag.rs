//! Case 3b: a probe (2-node vertical open line, node P at the bottom) is pressed with a constant
//! force F = 1 onto a frozen polyline with a joint J at x = 0 and dragged along x with an imposed
//! velocity, frictionless. Its y motion is free. The contact force must stay continuous and single
//! while P passes over J (node–segment → node–segment for collinear segments; node–segment →
//! cap → node–segment for a convex vertex): exactly one active contact at every step.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Joint {
    /// Two collinear segments.
    Collinear,
    /// A convex vertex (a roof of half-angle slope BETA_DEG).
    Convex,
}

pub const F: f64 = 1.0;
pub const BETA_DEG: f64 = 10.0;
pub const K_N: f32 = 100.0;
pub const V_DRAG: f32 = 0.02;
pub const X_START: f64 = -0.15;
/// 0.3 / (V_DRAG · dt) with dt = 0.01: from x = −0.15 to x = +0.15 (same on CPU and GPU).
pub const STEPS: u32 = 1500;
const R_PROBE: f64 = 0.05;
const R_WALL: f64 = 0.2;
const PROBE_LEN: f64 = 0.2;

pub fn scene(joint: Joint) -> Scene {
    let mut sc = Scene::default();
    let wall_mat = sc.add_material(elastic(100.0, 0.0, 0.0));
    let probe_mat = sc.add_material(elastic(100.0, 0.0, 0.0));
    let beta = match joint {
        Joint::Collinear => 0.0,
        Joint::Convex => BETA_DEG.to_radians(),
    };
    let t = beta.tan();
    // Polyline A (−1, −tan β) → J (0, 0) → B (1, −tan β), body 0.
    sc.add_body(
        &[[-1.0, -t], [0.0, 0.0], [1.0, -t]],
        false,
        wall_body(wall_mat, R_WALL as f32),
    );
    // P on the left segment at its static overlap: f_n = F / cos β (vertical equilibrium).
    let fn_static = F / beta.cos();
    let d = R_PROBE + R_WALL - fn_static / K_N as f64;
    let foot = [X_START, X_START * t];
    let normal = [-beta.sin(), beta.cos()];
    let p = [foot[0] + d * normal[0], foot[1] + d * normal[1]];
    let probe = sc.add_body(
        &[p, [p[0], p[1] + PROBE_LEN]],
        false,
        free_body(probe_mat, R_PROBE as f32, Core::None),
    );
    let first = sc.bodies[probe as usize].first;
    sc.add_force(&NodeSet::Indices(vec![first]), [0.0, -F as f32]);
    sc.impose_velocity(&NodeSet::Body(probe), Some(V_DRAG), None);
    sc.set_initial_velocity(&NodeSet::Body(probe), [V_DRAG, V_DRAG * t as f32]);
    sc.contact = ContactLaw {
        k_n: K_N,
        k_t: 0.0,
        mu: 0.0,
        // Normal dashpot ≈ critical for the probe (2 sqrt(k_n · 2m) ≈ 28): damps the normal
        // oscillation, exerts no force at steady sliding (zero normal approach velocity).
        c_n: 20.0,
    };
    sc.time_step = TimeStep::Fixed(0.01);
    sc
}

pub struct Measurements {
    pub joint: Joint,
    /// Per step: contact force on the probe (minus the wall's reaction), x and y.
    pub fx: Vec<f64>,
    pub fy: Vec<f64>,
    /// Per step: sum of the active normal forces.
    pub f_n: Vec<f64>,
    /// Per step: number of active contacts, whether one of them is a cap contact.
    pub active: Vec<usize>,
    pub cap: Vec<bool>,
    /// Per step: probe node x.
    pub x: Vec<f64>,
    pub final_nodes: Vec<NodeState>,
}

pub fn run(be: &mut dyn Backend, scene: &Scene, joint: Joint, steps: u32) -> Measurements {
    let mut m = Measurements {
        joint,
        fx: vec![],
        fy: vec![],
        f_n: vec![],
        active: vec![],
        cap: vec![],
        x: vec![],
        final_nodes: vec![],
    };
    let p_node = scene.bodies[1].first as usize;
    for _ in 0..steps {
        be.step(1).unwrap();
        let nodes = be.read_nodes().unwrap();
        let c = be.read_contacts().unwrap();
        let reaction = diagnostics::body_force(scene, &nodes, 0);
        m.fx.push(-reaction[0]);
        m.fy.push(-reaction[1]);
        m.f_n.push(total_normal_force(&c));
        m.active.push(c.active_count());
        m.cap.push(c.slots.iter().any(|s| s.flags & SLOT_CAP != 0));
        m.x.push(nodes[p_node].pos()[0]);
        m.final_nodes = nodes;
    }
    m
}

pub fn check(m: &Measurements) {
    assert!(all_finite(&m.final_nodes));
    // The probe really crossed the joint.
    assert!(
        m.x[0] < -0.1 && *m.x.last().unwrap() > 0.1,
        "probe did not cross the joint"
    );
    // Exactly one contact at every step: never none (no gap), never two (no double count).
    let bad: Vec<(usize, usize)> = m.active.iter().cloned().enumerate().filter(|(_, a)| *a != 1).collect();
    assert!(
        bad.is_empty(),
        "{:?}: active contacts != 1 at (step, count) {:?}",
        m.joint,
        &bad[..bad.len().min(10)]
    );
    let beta = match m.joint {
        Joint::Collinear => 0.0,
        Joint::Convex => BETA_DEG.to_radians(),
    };
    match m.joint {
        // Collinear: the cap of J is never used (the node passes from one interior to the next).
        Joint::Collinear => assert!(m.cap.iter().all(|c| !c), "cap contact at a collinear joint"),
        // Convex: the node goes round the cap of J.
        Joint::Convex => assert!(m.cap.iter().any(|c| *c), "the convex vertex cap was never used"),
    }
    let fy_max = m.fy.iter().cloned().fold(f64::MIN, f64::max);
    let fy_min = m.fy.iter().cloned().fold(f64::MAX, f64::min);
    let fn_max = m.f_n.iter().cloned().fold(f64::MIN, f64::max);
    let (jump_fy, jump_fn) = (max_jump(&m.fy), max_jump(&m.f_n));
    println!(
        "joint drag {:?}: F_y in [{fy_min:.5}, {fy_max:.5}], max f_n {fn_max:.5}, max step jump F_y {jump_fy:e} f_n {jump_fn:e}, cap steps {}",
        m.joint,
        m.cap.iter().filter(|c| **c).count()
    );
    // The load-direction component equals F to 3 % (inertia of going over the vertex at the
    // drag speed: m v²/(r_P + r_J) ≈ 0.3 % of F), in particular never ≈ 2F.
    assert!(fy_max < 1.03 * F && fy_min > 0.97 * F, "F_y left [0.97, 1.03] F");
    // The normal force never exceeds its static value F / cos β by more than 3 %.
    assert!(
        fn_max < 1.03 * F / beta.cos(),
        "max f_n = {fn_max} (F / cos β = {})",
        F / beta.cos()
    );
    // Continuity: no step-to-step jump above 1 % of F.
    assert!(jump_fy < 0.01 * F, "F_y jumps by {jump_fy} in one step");
    assert!(jump_fn < 0.01 * F, "f_n jumps by {jump_fn} in one step");
    let _ = &m.fx;
}
