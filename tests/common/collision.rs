//! Case 2: two elastic rings collide head-on with no dissipation at all (c_n = 0, no dashpots,
//! no damping, μ = 0). Momentum is conserved to round-off, the total energy (diagnostics) to
//! the O(dt²) fluctuation of velocity Verlet.

use super::*;

pub const N: usize = 32;
pub const R: f64 = 1.0;
pub const V_A: f32 = 0.08;
pub const V_B: f32 = -0.03;
/// CPU run; the GPU runs the same number of steps.
pub const STEPS: u32 = 3000;
pub const SAMPLE: u32 = 1;

pub fn scene() -> Scene {
    let mut sc = Scene::default();
    let mat = sc.add_material(elastic(1000.0, 10.0, 0.0));
    let r = 0.05;
    // Gap between the shells' outer surfaces: 2·1.1 − 2R − 2r = 0.1.
    let a = sc.add_ring([-1.1, 0.0], R, N, free_body(mat, r, Core::None));
    let b = sc.add_ring([1.1, 0.0], R, N, free_body(mat, r, Core::None));
    sc.set_initial_velocity(&NodeSet::Body(a), [V_A, 0.0]);
    sc.set_initial_velocity(&NodeSet::Body(b), [V_B, 0.0]);
    sc.contact = ContactLaw {
        k_n: 1000.0,
        k_t: 0.0,
        mu: 0.0,
        c_n: 0.0,
    };
    sc
}

pub struct Measurements {
    pub p0: [f64; 2],
    pub e0: f64,
    /// max |p(t) − p0| / |p0| over the samples.
    pub max_momentum_dev: f64,
    /// max |E(t) − E0| / E0 over the samples.
    pub max_energy_dev: f64,
    pub max_contact_energy: f64,
    /// Velocities of the two rings relative to the centre of mass, initial and final (x).
    pub rel_v_initial: [f64; 2],
    pub rel_v_final: [f64; 2],
    pub final_contact_energy: f64,
    pub final_nodes: Vec<NodeState>,
    /// Total energy series (for the GPU/CPU comparison).
    pub energy_series: Vec<f64>,
}

pub fn run(be: &mut dyn Backend, scene: &Scene, steps: u32) -> Measurements {
    let sample = |be: &mut dyn Backend| {
        let nodes = be.read_nodes().unwrap();
        let bodies = be.read_bodies().unwrap();
        let contacts = be.read_contacts().unwrap();
        let e = diagnostics::energies(scene, &nodes, &bodies, &contacts);
        let p = diagnostics::momentum(scene, &nodes);
        (nodes, e, p)
    };
    let rel = |nodes: &[NodeState]| {
        let (va, vb) = (body_velocity(scene, nodes, 0), body_velocity(scene, nodes, 1));
        let vcm = 0.5 * (va[0] + vb[0]);
        [va[0] - vcm, vb[0] - vcm]
    };
    let (nodes, e, p0) = sample(be);
    let e0 = e.total();
    let rel_v_initial = rel(&nodes);
    let (mut max_momentum_dev, mut max_energy_dev, mut max_contact_energy) = (0.0f64, 0.0f64, 0.0f64);
    let mut energy_series = vec![e0];
    let mut last = (nodes, e);
    let mut done = 0;
    while done < steps {
        let k = SAMPLE.min(steps - done);
        be.step(k).unwrap();
        done += k;
        let (nodes, e, p) = sample(be);
        max_momentum_dev = max_momentum_dev.max(norm(sub(p, p0)) / norm(p0));
        max_energy_dev = max_energy_dev.max((e.total() - e0).abs() / e0);
        max_contact_energy = max_contact_energy.max(e.contact);
        energy_series.push(e.total());
        last = (nodes, e);
    }
    Measurements {
        p0,
        e0,
        max_momentum_dev,
        max_energy_dev,
        max_contact_energy,
        rel_v_initial,
        rel_v_final: rel(&last.0),
        final_contact_energy: last.1.contact,
        final_nodes: last.0,
        energy_series,
    }
}

pub fn check(m: &Measurements) {
    println!(
        "collision: |p0| = {:.4}, max |Δp|/|p0| = {:e}, E0 = {:.5}, max |ΔE|/E0 = {:e}, max contact E = {:e}, \
         rel. velocities {:?} -> {:?}",
        norm(m.p0),
        m.max_momentum_dev,
        m.e0,
        m.max_energy_dev,
        m.max_contact_energy,
        m.rel_v_initial,
        m.rel_v_final
    );
    assert!(all_finite(&m.final_nodes));
    // Momentum: internal and contact forces are pairwise opposite up to f32 rounding
    // (lever weights (1 − w) + w, bending couples); bound 1e-5 |p0|.
    assert!(
        m.max_momentum_dev < 1e-5,
        "momentum drift {:e} |p0| (limit 1e-5)",
        m.max_momentum_dev
    );
    // Energy: conservative laws + velocity Verlet at dt = 0.1 dt_c; bound 1 % of E0 at every
    // sample during the whole collision.
    assert!(
        m.max_energy_dev < 0.01,
        "energy deviation {:e} E0 (limit 1 %)",
        m.max_energy_dev
    );
    // They collided: contact energy became > 0 (and a sizeable part of E0, > 1 %) ...
    assert!(
        m.max_contact_energy > 0.01 * m.e0,
        "no collision: max contact energy {:e}",
        m.max_contact_energy
    );
    // ... they separated again ...
    assert_eq!(m.final_contact_energy, 0.0, "rings still in contact at the end");
    // ... and their velocities in the centre-of-mass frame reversed.
    assert!(m.rel_v_initial[0] > 0.0 && m.rel_v_initial[1] < 0.0);
    assert!(
        m.rel_v_final[0] < 0.0 && m.rel_v_final[1] > 0.0,
        "velocities not reversed: {:?} -> {:?}",
        m.rel_v_initial,
        m.rel_v_final
    );
}
