//! Case 3c: contact on a stretched segment. A free segment is stretched to 3× its initial length
//! (0.25 → 0.75) and held; a probe (vertical 2-node line, x held, y free) is pressed by a
//! constant force onto its interior at x = 0.6, far from the segment's start node. The
//! neighbour cut-off follows the longest segment at each list build, so the contact must hold.

use super::*;

pub fn scene(skin: Option<f32>) -> Scene {
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
    sc
}

/// Largest geometric overlap reached and whether any contact was seen, sampled every 100 steps.
pub fn run(be: &mut dyn Backend) -> (f64, bool) {
    let sc = scene(None);
    be.step(500).unwrap(); // stretch to 0.75
    let mut nodes = sc.nodes.clone();
    nodes[1].bc_velocity = [0.0, 0.0];
    nodes[1].bc_mode = BC_VX | BC_VY;
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
