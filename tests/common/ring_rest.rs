//! Case 1a: a stress-free ring (N = 32, R = 1, no core, no gravity, no damping) must not move:
//! its rest lengths and reference angles are those of its initial shape, so every internal
//! force is zero.

use super::*;

pub const N: usize = 32;
pub const R: f64 = 1.0;
pub const STEPS: u32 = 2000;

pub fn scene() -> Scene {
    let mut sc = Scene::default();
    let mat = sc.add_material(elastic(1000.0, 1.0, 0.0));
    // Off the origin on purpose (the double-f32 positions must not drift either).
    sc.add_ring([3.7, -2.1], R, N, free_body(mat, 0.02, Core::None));
    sc
}

pub struct Measurements {
    /// Largest node displacement from the initial position over the run.
    pub max_displacement: f64,
    pub final_nodes: Vec<NodeState>,
}

/// Steps `steps` one at a time, recording the largest displacement seen after every step.
pub fn run(be: &mut dyn Backend, scene: &Scene, steps: u32) -> Measurements {
    let mut max_displacement: f64 = 0.0;
    let chunk = 100;
    let mut done = 0;
    let mut nodes = be.read_nodes().unwrap();
    while done < steps {
        let k = chunk.min(steps - done);
        be.step(k).unwrap();
        done += k;
        nodes = be.read_nodes().unwrap();
        max_displacement = max_displacement.max(max_position_diff(&nodes, &scene.init));
    }
    Measurements {
        max_displacement,
        final_nodes: nodes,
    }
}

pub fn check(m: &Measurements) {
    // Tolerance: 1e-6 R (the forces are exactly zero in exact arithmetic; any drift would be
    // a rounding or a force-law defect).
    assert!(all_finite(&m.final_nodes));
    assert!(
        m.max_displacement < 1e-6 * R,
        "relaxed ring moved by {:e} R (limit 1e-6 R)",
        m.max_displacement / R
    );
}
