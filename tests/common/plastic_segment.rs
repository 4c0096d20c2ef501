//! Case 4a: a single segment (2-node open line) with node A held and node B driven along the
//! segment with an imposed velocity: elastic loading, tension plateau at F_s^Y, unloading to zero
//! force, release (permanent set), then compression to the compressive plateau +F_s^Y.

use super::*;

pub const K_S: f32 = 100.0;
pub const F_Y: f32 = 1.0;
pub const L0: f64 = 1.0;
pub const V: f32 = 0.01;
/// Pull: 400 steps · V · dt = 0.04 (yield at 0.01).
pub const PULL_STEPS: u32 = 400;
pub const MAX_UNLOAD_STEPS: u32 = 400;
pub const RELEASE_STEPS: u32 = 300;
pub const PUSH_STEPS: u32 = 500;

pub fn scene() -> Scene {
    let mut sc = Scene::default();
    let mut m = elastic(K_S, 0.0, 0.0);
    m.f_s_yield = F_Y;
    let mat = sc.add_material(m);
    sc.add_line([10.0, 5.0], [10.0 + L0, 5.0], 2, free_body(mat, 0.01, Core::None));
    // A held, B driven along x (y free).
    sc.impose_velocity(&NodeSet::Indices(vec![0]), Some(0.0), Some(0.0));
    sc.impose_velocity(&NodeSet::Indices(vec![1]), Some(V), None);
    sc.time_step = TimeStep::Fixed(0.01);
    sc
}

#[derive(Default)]
pub struct Measurements {
    /// Per step: segment length, axial force (compression positive, from the force on the held
    /// node A), plastic rest length; and the stage (0 pull, 1 unload, 2 release, 3 push).
    pub l: Vec<f64>,
    pub n: Vec<f64>,
    pub rest: Vec<f64>,
    pub stage: Vec<u8>,
    pub final_nodes: Vec<NodeState>,
}

fn set_b(be: &mut dyn Backend, scene: &Scene, vx: Option<f32>) {
    let mut nodes = scene.nodes.clone();
    match vx {
        Some(v) => {
            nodes[1].bc_mode = BC_VX;
            nodes[1].bc_velocity = [v, 0.0];
        }
        None => nodes[1].bc_mode = 0,
    }
    be.set_boundary_conditions(&nodes).unwrap();
}

pub fn run(be: &mut dyn Backend, scene: &Scene) -> Measurements {
    let mut m = Measurements::default();
    let record = |be: &mut dyn Backend, m: &mut Measurements, stage: u8| {
        be.step(1).unwrap();
        let nodes = be.read_nodes().unwrap();
        let d = sub(nodes[1].pos(), nodes[0].pos());
        let l = norm(d);
        let f_a = [nodes[0].force[0] as f64, nodes[0].force[1] as f64];
        // Tension pulls A towards B: compression-positive axial force is −f_A · u.
        let n = -(f_a[0] * d[0] + f_a[1] * d[1]) / l;
        m.l.push(l);
        m.n.push(n);
        m.rest.push(nodes[0].seg_rest as f64);
        m.stage.push(stage);
        m.final_nodes = nodes;
        n
    };
    for _ in 0..PULL_STEPS {
        record(be, &mut m, 0);
    }
    set_b(be, scene, Some(-V));
    for _ in 0..MAX_UNLOAD_STEPS {
        if record(be, &mut m, 1) >= 0.0 {
            break;
        }
    }
    // Stop B for one step (its velocity becomes 0), then release it.
    set_b(be, scene, Some(0.0));
    record(be, &mut m, 1);
    set_b(be, scene, None);
    for _ in 0..RELEASE_STEPS {
        record(be, &mut m, 2);
    }
    set_b(be, scene, Some(-V));
    for _ in 0..PUSH_STEPS {
        record(be, &mut m, 3);
    }
    m
}

pub fn check(m: &Measurements) {
    assert!(all_finite(&m.final_nodes));
    let (ks, fy) = (K_S as f64, F_Y as f64);
    let dl_y = fy / ks;
    let idx = |s: u8| (0..m.l.len()).filter(move |&i| m.stage[i] == s);
    // Elastic branch before yield: N = −k_s (ℓ − ℓ0), within 1 % of F_Y.
    for i in idx(0).filter(|&i| m.l[i] - L0 < 0.8 * dl_y) {
        let expect = -ks * (m.l[i] - L0);
        assert!(
            (m.n[i] - expect).abs() < 0.01 * fy,
            "elastic branch: N = {} vs {}",
            m.n[i],
            expect
        );
    }
    // Tension plateau: |N + F_Y| < 1 % F_Y once ℓ − ℓ0 > 1.2 ΔℓY (held over ≥ 200 steps).
    let plateau: Vec<usize> = idx(0).filter(|&i| m.l[i] - L0 > 1.2 * dl_y).collect();
    assert!(plateau.len() >= 200, "tension plateau too short: {}", plateau.len());
    let worst = plateau.iter().map(|&i| (m.n[i] + fy).abs()).fold(0.0, f64::max);
    println!("plastic segment: tension plateau worst |N + F_Y| = {worst:e}");
    assert!(worst < 0.01 * fy, "tension plateau off by {worst} (limit 1 % F_Y)");
    // Permanent set after unloading: ℓ_p − ℓ0 = (ℓ_max − ℓ0) − F_Y/k_s, within 1 %. Checked on
    // the stored rest length and on the mean length of the released segment.
    let l_max = m.l.iter().cloned().fold(f64::MIN, f64::max);
    let set_expected = l_max - L0 - dl_y;
    let rel: Vec<usize> = idx(2).collect();
    let rest_after = m.rest[rel[0]] - L0;
    let mean_len = rel.iter().map(|&i| m.l[i]).sum::<f64>() / rel.len() as f64 - L0;
    let drift = rel
        .iter()
        .map(|&i| (m.l[i] - L0 - set_expected).abs())
        .fold(0.0, f64::max);
    println!(
        "plastic segment: permanent set expected {set_expected:.6}, rest {rest_after:.6}, released mean {mean_len:.6}, max drift {drift:e}"
    );
    assert!(
        (rest_after / set_expected - 1.0).abs() < 0.01,
        "plastic rest length change {rest_after} vs {set_expected}"
    );
    assert!(
        (mean_len / set_expected - 1.0).abs() < 0.01,
        "released length change {mean_len} vs {set_expected}"
    );
    // The released segment holds its length (oscillation from the ≤ 1-step residual force).
    assert!(drift < 0.02 * set_expected, "released segment drifts by {drift}");
    // Compression plateau at +F_Y once compressed by > 1.2 ΔℓY below the new rest length.
    let l_rel = L0 + rest_after;
    let comp: Vec<usize> = idx(3).filter(|&i| l_rel - m.l[i] > 1.2 * dl_y).collect();
    assert!(comp.len() >= 200, "compression plateau too short: {}", comp.len());
    let worst = comp.iter().map(|&i| (m.n[i] - fy).abs()).fold(0.0, f64::max);
    println!("plastic segment: compression plateau worst |N − F_Y| = {worst:e}");
    assert!(worst < 0.01 * fy, "compression plateau off by {worst} (limit 1 % F_Y)");
}
