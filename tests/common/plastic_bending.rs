//! Case 4b: a 3-node open line A–V–C (ℓ = 1) with A and V held; C is driven across the line with
//! an imposed velocity (its axial coordinate free), bending vertex V beyond M_b^Y, then driven
//! back until the moment vanishes and released. The moment is measured from the reaction on A:
//! the couple of vertex V puts −M ∂θ/∂x_A on A, so M = −f_A · perp(e1) with e1 = x_V − x_A.

use super::*;

pub const K_B: f32 = 1.0;
pub const M_Y: f32 = 0.1;
pub const W: f32 = 0.03;
/// Load: 1000 steps · W · dt = 0.3 across (θ ≈ 0.3 rad = 3 θ_Y).
pub const LOAD_STEPS: u32 = 1000;
pub const MAX_UNLOAD_STEPS: u32 = 1000;
pub const RELEASE_STEPS: u32 = 500;

pub fn scene() -> Scene {
    let mut sc = Scene::default();
    let mut m = elastic(100.0, K_B, 0.0);
    m.m_b_yield = M_Y;
    // Axial dashpot on the segments (damps C's free axial motion; A–V does not deform).
    m.c_s = 5.0;
    let mat = sc.add_material(m);
    sc.add_line([-3.0, 2.0], [-1.0, 2.0], 3, free_body(mat, 0.01, Core::None));
    sc.impose_velocity(&NodeSet::Indices(vec![0, 1]), Some(0.0), Some(0.0));
    sc.impose_velocity(&NodeSet::Indices(vec![2]), None, Some(W));
    sc.time_step = TimeStep::Fixed(0.01);
    sc
}

#[derive(Default)]
pub struct Measurements {
    /// Per step: turning angle θ at V, moment M from the reaction on A, θ_p of V, stage
    /// (0 load, 1 unload, 2 release).
    pub theta: Vec<f64>,
    pub moment: Vec<f64>,
    pub theta_p: Vec<f64>,
    pub stage: Vec<u8>,
    pub final_nodes: Vec<NodeState>,
}

fn set_c(be: &mut dyn Backend, scene: &Scene, mode: u32, v: [f32; 2]) {
    let mut nodes = scene.nodes.clone();
    nodes[2].bc_mode = mode;
    nodes[2].bc_velocity = v;
    be.set_boundary_conditions(&nodes).unwrap();
}

pub fn run(be: &mut dyn Backend, scene: &Scene) -> Measurements {
    let mut m = Measurements::default();
    let record = |be: &mut dyn Backend, m: &mut Measurements, stage: u8| {
        be.step(1).unwrap();
        let nodes = be.read_nodes().unwrap();
        let e1 = sub(nodes[1].pos(), nodes[0].pos());
        let e2 = sub(nodes[2].pos(), nodes[1].pos());
        let theta = (e1[0] * e2[1] - e1[1] * e2[0]).atan2(e1[0] * e2[0] + e1[1] * e2[1]);
        let f_a = [nodes[0].force[0] as f64, nodes[0].force[1] as f64];
        let moment = -(f_a[0] * -e1[1] + f_a[1] * e1[0]);
        m.theta.push(theta);
        m.moment.push(moment);
        m.theta_p.push(nodes[1].theta_p as f64);
        m.stage.push(stage);
        m.final_nodes = nodes;
        moment
    };
    for _ in 0..LOAD_STEPS {
        record(be, &mut m, 0);
    }
    set_c(be, scene, BC_VY, [0.0, -W]);
    for _ in 0..MAX_UNLOAD_STEPS {
        if record(be, &mut m, 1) <= 0.0 {
            break;
        }
    }
    // Stop C for one step (velocity 0), then release it.
    set_c(be, scene, BC_VX | BC_VY, [0.0, 0.0]);
    record(be, &mut m, 1);
    set_c(be, scene, 0, [0.0, 0.0]);
    for _ in 0..RELEASE_STEPS {
        record(be, &mut m, 2);
    }
    m
}

pub fn check(m: &Measurements) {
    assert!(all_finite(&m.final_nodes));
    let (kb, my) = (K_B as f64, M_Y as f64);
    let th_y = my / kb;
    let idx = |s: u8| (0..m.theta.len()).filter(move |&i| m.stage[i] == s);
    // Elastic branch: M = k_b θ within 1 % of M_Y.
    for i in idx(0).filter(|&i| m.theta[i] < 0.8 * th_y) {
        assert!(
            (m.moment[i] - kb * m.theta[i]).abs() < 0.01 * my,
            "elastic: M = {} at θ = {}",
            m.moment[i],
            m.theta[i]
        );
    }
    // Plateau: |M − M_Y| < 1 % M_Y once θ > 1.2 θ_Y (over ≥ 300 steps).
    let plateau: Vec<usize> = idx(0).filter(|&i| m.theta[i] > 1.2 * th_y).collect();
    assert!(plateau.len() >= 300, "bending plateau too short: {}", plateau.len());
    let worst = plateau.iter().map(|&i| (m.moment[i] - my).abs()).fold(0.0, f64::max);
    println!("plastic bending: plateau worst |M − M_Y| = {worst:e}");
    assert!(worst < 0.01 * my, "moment plateau off by {worst} (limit 1 % M_Y)");
    // Permanent angle: θ_max − M_Y/k_b, within 1 %, on θ_p and on the released line.
    let th_max = m.theta.iter().cloned().fold(f64::MIN, f64::max);
    let expected = th_max - th_y;
    let rel: Vec<usize> = idx(2).collect();
    let th_p = m.theta_p[rel[0]];
    let mean = rel.iter().map(|&i| m.theta[i]).sum::<f64>() / rel.len() as f64;
    let drift = rel.iter().map(|&i| (m.theta[i] - expected).abs()).fold(0.0, f64::max);
    println!("plastic bending: θ_max {th_max:.5}, permanent angle expected {expected:.5}, θ_p {th_p:.5}, released mean {mean:.5}, drift {drift:e}");
    assert!((th_p / expected - 1.0).abs() < 0.01, "θ_p = {th_p} vs {expected}");
    assert!(
        (mean / expected - 1.0).abs() < 0.01,
        "released angle {mean} vs {expected}"
    );
    assert!(drift < 0.02 * expected, "released angle drifts by {drift}");
}
