//! Case 7: 10,000 cells of 32 nodes (320,000 nodes) on a lattice without overlaps, small gravity.
//! The neighbour list must stay local (bounded entries per node) and steps must complete.

use super::*;

pub const CELLS_X: usize = 100;
pub const CELLS_Y: usize = 100;
pub const N: usize = 32;
pub const SPACING: f64 = 2.12;

pub fn scene() -> Scene {
    let mut sc = Scene::default();
    let mat = sc.add_material(elastic(1000.0, 1.0, 100.0));
    let mut o = free_body(mat, 0.02, Core::Undrained { p0: 0.0 });
    o.self_contact = true;
    for j in 0..CELLS_Y {
        for i in 0..CELLS_X {
            sc.add_ring([SPACING * i as f64, SPACING * j as f64], 1.0, N, o);
        }
    }
    sc.gravity = [0.0, -0.01];
    sc
}

pub struct Measurements {
    pub nodes: usize,
    pub entries: usize,
    pub max_entries_per_node: u32,
    pub finite: bool,
    pub steps_done: u64,
    pub seconds: f64,
}

pub fn run(be: &mut dyn Backend, steps: u32) -> Measurements {
    let t = std::time::Instant::now();
    be.step(steps).unwrap();
    let nodes = be.read_nodes().unwrap();
    let seconds = t.elapsed().as_secs_f64();
    let c = be.read_contacts().unwrap();
    Measurements {
        nodes: nodes.len(),
        entries: c.entries.len(),
        max_entries_per_node: c.start.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0),
        finite: all_finite(&nodes),
        steps_done: be.steps_done(),
        seconds,
    }
}

pub fn check(m: &Measurements, steps: u32) {
    println!(
        "large: {} nodes, {} entries ({:.2} per node, max {}), {} steps in {:.2} s",
        m.nodes,
        m.entries,
        m.entries as f64 / m.nodes as f64,
        m.max_entries_per_node,
        m.steps_done,
        m.seconds
    );
    assert_eq!(m.nodes, CELLS_X * CELLS_Y * N);
    assert_eq!(m.steps_done, steps as u64);
    assert!(m.finite);
    // Local neighbour lists: < 20 entries per node on average, < 64 for any node.
    assert!(
        (m.entries as f64) < 20.0 * m.nodes as f64,
        "{} entries for {} nodes",
        m.entries,
        m.nodes
    );
    assert!(
        m.max_entries_per_node < 64,
        "a node has {} entries",
        m.max_entries_per_node
    );
}
