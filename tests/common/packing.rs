//! Case 5: 100 cells (radii R̄(1 ± 15 %), 16–32 nodes each, undrained cores) on a jittered 10 × 10
//! lattice without overlaps, inside a box of four frozen walls, falling under gravity.

use super::*;

pub const CELLS_X: usize = 10;
pub const CELLS_Y: usize = 10;
pub const R_MEAN: f64 = 1.0;
pub const SPACING: f64 = 2.5;
pub const R_SHELL: f32 = 0.05;
pub const WIDTH: f64 = SPACING * CELLS_X as f64;
pub const HEIGHT: f64 = SPACING * CELLS_Y as f64 + 1.0;
pub const STEPS: u32 = 2000;
pub const SEED: u64 = 0x5EED_CE11;

pub fn scene() -> Scene {
    let mut rng = Rng::new(SEED);
    let mut sc = Scene::default();
    let mut cell = elastic(1000.0, 1.0, 200.0);
    cell.c_s = 1.0;
    let cell_mat = sc.add_material(cell);
    let wall_mat = sc.add_material(elastic(1000.0, 0.0, 0.0));
    // Walls: bottom, right, top, left; nodes every 0.25.
    let nw = |len: f64| (len / 0.25).round() as usize + 1;
    let (w, h) = (WIDTH, HEIGHT);
    sc.add_line([0.0, 0.0], [w, 0.0], nw(w), wall_body(wall_mat, R_SHELL));
    sc.add_line([w, 0.0], [w, h], nw(h), wall_body(wall_mat, R_SHELL));
    sc.add_line([w, h], [0.0, h], nw(w), wall_body(wall_mat, R_SHELL));
    sc.add_line([0.0, h], [0.0, 0.0], nw(h), wall_body(wall_mat, R_SHELL));
    let mut opts = free_body(cell_mat, R_SHELL, Core::Undrained { p0: 0.0 });
    opts.self_contact = true;
    for j in 0..CELLS_Y {
        for i in 0..CELLS_X {
            let r = R_MEAN * rng.range(0.85, 1.15);
            let n = 16 + (rng.next_u64() % 17) as usize;
            // Free play around the cell inside its lattice square, keeping a 0.05 gap to the
            // square's border (so ≥ 0.1 between neighbours, walls included) beyond the shells.
            let play = 0.5 * SPACING - r - R_SHELL as f64 - 0.05;
            let c = [
                SPACING * (i as f64 + 0.5) + rng.range(-play, play),
                SPACING * (j as f64 + 0.5) + rng.range(-play, play),
            ];
            let phase = rng.range(0.0, std::f64::consts::TAU);
            let pts: Vec<[f64; 2]> = (0..n)
                .map(|k| {
                    let a = phase + std::f64::consts::TAU * k as f64 / n as f64;
                    [c[0] + r * a.cos(), c[1] + r * a.sin()]
                })
                .collect();
            sc.add_body(&pts, true, opts);
        }
    }
    sc.gravity = [0.0, -0.1];
    sc.contact = ContactLaw {
        k_n: 1000.0,
        k_t: 1000.0,
        mu: 0.3,
        c_n: 5.0,
    };
    sc
}

pub const N_WALLS: u32 = 4;

pub struct Measurements {
    pub final_nodes: Vec<NodeState>,
    pub active_contacts: usize,
    /// Active contacts involving a wall node or a wall segment.
    pub wall_contacts: usize,
    pub cells_moved: f64,
}

pub fn run(be: &mut dyn Backend, scene: &Scene, steps: u32) -> Measurements {
    be.step(steps).unwrap();
    let nodes = be.read_nodes().unwrap();
    let c = be.read_contacts().unwrap();
    let is_wall = |i: u32| scene.nodes[i as usize].body < N_WALLS;
    let mut wall_contacts = 0;
    for x in 0..scene.nodes.len() {
        for e in c.start[x] as usize..c.start[x + 1] as usize {
            let s = c.slots[e];
            if s.flags & (SLOT_SEG | SLOT_CAP) != 0 && (is_wall(x as u32) || is_wall(c.entries[e].neighbor)) {
                wall_contacts += 1;
            }
        }
    }
    Measurements {
        cells_moved: max_position_diff(&nodes, &scene.init),
        active_contacts: c.active_count(),
        wall_contacts,
        final_nodes: nodes,
    }
}

pub fn check(scene: &Scene, m: &Measurements) {
    println!(
        "packing: {} nodes, {} active contacts ({} with walls), max node displacement {:.4}",
        scene.nodes.len(),
        m.active_contacts,
        m.wall_contacts,
        m.cells_moved
    );
    assert!(all_finite(&m.final_nodes), "NaN/inf in the packing state");
    // Every cell node stays strictly inside the box.
    for (i, s) in m.final_nodes.iter().enumerate() {
        if scene.nodes[i].body < N_WALLS {
            continue;
        }
        let p = s.pos();
        assert!(
            p[0] > 0.0 && p[0] < WIDTH && p[1] > 0.0 && p[1] < HEIGHT,
            "node {i} of cell {} left the box: {p:?}",
            scene.nodes[i].body
        );
    }
    // Contacts exist, among cells and with the walls, and the cells did fall.
    assert!(
        m.active_contacts > m.wall_contacts && m.wall_contacts > 0,
        "no contacts"
    );
    assert!(m.cells_moved > 0.1, "cells did not fall");
}
