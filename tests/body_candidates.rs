//! The body contacts over candidate primitives (`broad_phase::primitives`).
//!
//! Modal–modal (`modal::broad_phase::ModalLists`): the 3 × 3 packing of the modal validation
//! compressed by four walls, CPU, lists every 100 steps: every 25 steps, each surface node
//! touching the level set of a body of its body's list has that body among its candidates
//! (contacts occur: at least 200 among the samples), and a node lists fewer bodies than its body
//! does (the far side of a disk lists none).
//!
//! Coupled (`coupled::broad_phase::couple_candidates`): a modal disk dropped onto the floor of an
//! SPD box whose walls are cut into short segments (0.02, cell radius ≈ 1), beside a free SPD
//! cell it is thrown against, CPU.
//!
//! - Every contact of the whole search is among the candidates: every 20 steps for 3000 steps
//!   (lists built every 100, so up to 100 steps after a build), each modal surface node against every segment of each listed cell
//!   gives the same slot as against its candidate segments (bit for bit, same history in), and
//!   each free SPD node touching a listed body's level set has that body among its candidates.
//!   Contacts do occur: the disk, thrown at the cell 0.3 beside it, hits it and lands on the
//!   floor (at least 40 node–segment and 20 node–level-set contacts among the samples).
//! - The candidates stay local: a modal node's candidates on a straight wall are the segments
//!   within r + skin of it, at most 2 (r + skin) / ℓ + 2 of them (ℓ the segment length), where
//!   the whole search walks all of the wall's segments.
//! - A body spinning past half the skin between two builds stops the run with a message naming
//!   the modal surface node (the reach of its candidates is measured from where it was).

use softdem::coupled::contact::modal_node_vs_cell;
use softdem::coupled::cpu::CpuCoupled;
use softdem::coupled::stepper::{cpu, gpu, CoupledBackend, CoupledRun, CoupledScene};
use softdem::coupled::{CELL_FROZEN, CELL_OPEN, MAX_CELLS, MAX_MB};
use softdem::modal::contact::point_vs_body;
use softdem::modal::cpu::{surface_point, CpuModal};
use softdem::modal::layout::NONE;
use softdem::modal::stepper::{ModalBackend, ModalRun};
use softdem::modal::validation::{compaction_case, COMPACTION_DURATION};
use softdem::modal::MAX_NB;
use softdem::scenario::Scenario;
use std::path::Path;

const SEGMENT: f64 = 0.02;

/// The scene, lists rebuilt every `every` steps.
fn scene(every: u32) -> CoupledScene {
    let text = format!(
        r#"
[simulation]
dt_fraction = 0.2
gravity = [0.0, -2.0]
viscous_damping = 1.0

[contact]
k_n = 1.0e4
c_n = 5.0
k_t = 5.0e3
mu = 0.3

[materials.shell]
k_s = 1.0e4
xi = 0.025
eta = 0.4
radius = 1.0
nodes = 24
cell_mass = 1.0

[[bodies]]
kind = "ring"
material = "shell"
center = [3.6, 0.9]
radius = 0.8
nodes = 24

[[bodies]]
kind = "box"
name = "box"
min = [0.0, 0.0]
max = [8.0, 6.0]
segment = {SEGMENT}

[[stages]]
kind = "deposit"
ke_below = 1.0e-6
max_steps = 100000

[modal]
rebuild_every = {every}
skin = 0.3

[[modal.bodies]]
name = "disk"
shape = "disk"
radius = 1.4
nodes = 64
grid_spacing = 0.1
density = 0.3248
center = [6.0, 1.5]
rigid_damping = 1.0

[[modal.bodies.modes]]
shape = "compaction"
stiffness = "value"
k = 1000.0
damping_ratio = 0.5
"#
    );
    let sc = Scenario::from_text(&text, "<candidates>", Path::new("."), "candidates", &[]).unwrap();
    sc.build_coupled().unwrap().scene
}

/// The disk given the velocity and angular velocity `disk` after the first build (coupled
/// scenario files start bodies at rest).
fn throw<B: CoupledBackend>(mut run: CoupledRun<B>, disk: ([f32; 2], f32)) -> CoupledRun<B> {
    let mut dy = run.backend.modal_dynamic().unwrap();
    (dy.state[0].v, dy.state[0].omega) = disk;
    run.backend.set_modal_dynamic(&dy).unwrap();
    run
}

/// A CPU run of the scene with the disk thrown.
fn run_with(every: u32, disk: ([f32; 2], f32)) -> CoupledRun<CpuCoupled> {
    throw(cpu(&scene(every)).unwrap(), disk)
}

#[test]
fn candidates_hold_every_contact_and_stay_local() {
    // Thrown at the cell beside it (0.3 away), falling 0.1 onto the floor meanwhile.
    let mut run = run_with(100, ([-1.0, 0.0], 0.0));
    let skin = run.skin as f64;
    let (mut mnode_contacts, mut spd_contacts, mut wall_slots) = (0usize, 0usize, 0usize);
    for _sample in 0..150 {
        run.run(20).unwrap();
        let lists = run.lists().clone();
        let spd = run.backend.spd().read_nodes().unwrap();
        let be = &run.backend;
        let (sc, cs, states) = (&be.host.sc, &be.host.cs, &be.dy.state);
        let seg_at = cs.params.seg_at as usize;
        // Modal surface nodes against the segments of each listed cell.
        for k in 0..sc.nodes.len() {
            let pt = surface_point(sc, states, k);
            let b = pt.body;
            for (t, slot) in be.mnode_slots.of(k).iter().enumerate() {
                let c = lists.mb_cells[b * MAX_CELLS + t];
                let cell = &cs.cells[c as usize];
                let n_seg = if cell.coupled & CELL_OPEN != 0 {
                    cell.count - 1
                } else {
                    cell.count
                };
                let all: Vec<u32> = (cell.first..cell.first + n_seg).collect();
                let s = be.mnode_slots.start[k] as usize + t;
                let cand = &lists.cand[lists.cand[seg_at + s] as usize..lists.cand[seg_at + s + 1] as usize];
                let law = sc.pair_law(sc.bodies[b].contact_material, cell.contact_material);
                let eval = |segs: &[u32]| {
                    modal_node_vs_cell(
                        &sc.params, &law, cell, c, segs, &spd, pt.x_hi, pt.x_lo, pt.vel, slot.hist,
                    )
                };
                let whole = eval(&all);
                assert_eq!(eval(cand), whole, "modal node {k}, cell {c}");
                mnode_contacts += whole.active as usize;
                if cell.coupled & CELL_FROZEN != 0 && !cand.is_empty() {
                    // A straight wall: the segments within r + skin of the node.
                    let bound = 2.0 * (cell.radius as f64 + skin) / SEGMENT + 2.0;
                    assert!(
                        (cand.len() as f64) <= bound && cand.len() * 10 < n_seg as usize,
                        "modal node {k}: {} candidates of {n_seg} segments (bound {bound})",
                        cand.len()
                    );
                    wall_slots += 1;
                }
            }
        }
        // Free SPD nodes against the level sets of their cell's bodies.
        for (x, node) in spd.iter().enumerate() {
            let ci = cs.node_cell[x] as usize;
            let cell = &cs.cells[ci];
            if cell.coupled & CELL_FROZEN != 0 {
                continue;
            }
            let mine = &lists.cand[lists.cand[x] as usize..lists.cand[x + 1] as usize];
            for u in 0..MAX_MB {
                let b = lists.cell_mb[ci * MAX_MB + u];
                if b == NONE {
                    break;
                }
                let sb = &states[b as usize];
                let d = [
                    (node.pos_hi[0] - sb.x_hi[0]) + (node.pos_lo[0] - sb.x_lo[0]),
                    (node.pos_hi[1] - sb.x_hi[1]) + (node.pos_lo[1] - sb.x_lo[1]),
                ];
                let o = point_vs_body(
                    sc,
                    b as usize,
                    sb,
                    d,
                    node.vel,
                    [0.0; 2],
                    cell.radius,
                    cell.contact_material,
                );
                if o.0.active != 0 {
                    spd_contacts += 1;
                    assert!(mine.contains(&b), "SPD node {x} touches body {b}, not a candidate");
                }
            }
        }
    }
    // 63, 41 and 1945 when written.
    assert!(
        mnode_contacts >= 40,
        "modal nodes touched segments {mnode_contacts} times"
    );
    assert!(spd_contacts >= 20, "SPD nodes touched the disk {spd_contacts} times");
    assert!(wall_slots > 1000, "{wall_slots} modal-node slots with wall candidates");
}

#[test]
fn a_surface_node_past_half_the_skin_stops_the_run() {
    // Spinning about its centre: the surface moves ω R = 28 per unit time (skin/2 = 0.15 in
    // about 27 steps of dt ≈ 2e-4), the centre falls 2e-3 in the 300 steps between builds.
    let mut run = run_with(300, ([0.0, 0.0], 20.0));
    let e = run.run(600).unwrap_err().to_string();
    assert!(e.contains("modal surface node") && e.contains("skin/2"), "{e}");
}

/// The thrown disk on lavapipe (the candidates, built on the host from the read-back, uploaded
/// as one array that grows as the disk nears the walls) against the CPU after 2000 steps (the
/// disk has hit the cell): SPD node and disk positions within 1e-4 of the scale (the tolerance of
/// `modal_spd_coupling::collision_gpu_matches_cpu`, same reasons), the hit seen on both.
#[test]
fn thrown_disk_gpu_matches_cpu() {
    let ctx = std::sync::Arc::new(softdem::gpu::context::gpu_for_tests());
    let disk = ([-1.0, 0.0], 0.0);
    let mut c = run_with(100, disk);
    let mut g = throw(gpu(ctx, &scene(100)).unwrap(), disk);
    c.run(2000).unwrap();
    g.run(2000).unwrap();
    let (nc, ng) = (c.read_nodes().unwrap(), g.read_nodes().unwrap());
    let scale = 8.0;
    let dx = nc
        .iter()
        .zip(&ng)
        .flat_map(|(a, b)| [(a.pos()[0] - b.pos()[0]).abs(), (a.pos()[1] - b.pos()[1]).abs()])
        .fold(0.0f64, f64::max);
    let (mc, mg) = (c.modal_states().unwrap(), g.modal_states().unwrap());
    let dm = (0..2)
        .map(|i| ((mc[0].x_hi[i] + mc[0].x_lo[i]) as f64 - (mg[0].x_hi[i] + mg[0].x_lo[i]) as f64).abs())
        .fold(0.0f64, f64::max);
    println!(
        "GPU − CPU: SPD nodes {dx:.3e}, disk {dm:.3e} (scale {scale}); disk velocity {:?}",
        mc[0].v
    );
    assert!(dx <= 1e-4 * scale && dm <= 1e-4 * scale, "SPD nodes {dx}, disk {dm}");
    for (who, m) in [("CPU", &mc), ("GPU", &mg)] {
        assert!(
            m[0].v[0] > -0.5,
            "{who}: the disk was not slowed by the cell (v_x = {})",
            m[0].v[0]
        );
    }
}

#[test]
fn modal_candidates_hold_every_contact_of_the_body_lists() {
    let mut c = compaction_case(3, 0.2).unwrap();
    c.scene.rebuild_every = 100;
    let packed = c.scene.pack().unwrap();
    let states = c.scene.bodies.iter().map(|b| b.initial_state()).collect();
    let mut run = ModalRun::new(CpuModal::new(packed, states), c.scene.rebuild_every, c.scene.skin);
    let (mut contacts, mut listed_pairs, mut candidate_pairs) = (0usize, 0usize, 0usize);
    for _sample in 0..60 {
        run.run(25).unwrap();
        let lists = run.lists().clone();
        let (sc, dy) = (&run.backend.sc, &run.backend.dy);
        for k in 0..sc.nodes.len() {
            let pt = surface_point(sc, &dy.state, k);
            let b = pt.body;
            let mine = &lists.node_cand[lists.node_cand[k] as usize..lists.node_cand[k + 1] as usize];
            candidate_pairs += mine.len();
            for t in 0..MAX_NB {
                let j = lists.nb[b * MAX_NB + t];
                if j == NONE {
                    break;
                }
                listed_pairs += 1;
                let sj = &dy.state[j as usize];
                let d = [
                    (pt.x_hi[0] - sj.x_hi[0]) + (pt.x_lo[0] - sj.x_lo[0]),
                    (pt.x_hi[1] - sj.x_hi[1]) + (pt.x_lo[1] - sj.x_lo[1]),
                ];
                let law_material = sc.bodies[b].contact_material;
                let o = point_vs_body(sc, j as usize, sj, d, pt.vel, [0.0; 2], 0.0, law_material);
                if o.0.active != 0 {
                    contacts += 1;
                    assert!(mine.contains(&j), "surface node {k} touches body {j}, not a candidate");
                }
            }
        }
    }
    println!("{contacts} contacts; {candidate_pairs} candidate pairs of {listed_pairs} listed");
    assert!(contacts >= 200, "{contacts} contacts among the samples");
    assert!(
        2 * candidate_pairs < listed_pairs,
        "{candidate_pairs} candidate pairs of {listed_pairs} node–body pairs listed"
    );
}

/// The modal driver's check: a disk of the packing spun about its centre (surface speed ω R =
/// 5, about skin/2 = 0.5 in 0.1 time units) stops the run at the next build with the node named.
#[test]
fn a_spinning_modal_body_stops_a_modal_run() {
    let mut c = compaction_case(3, COMPACTION_DURATION).unwrap();
    c.scene.rebuild_every = 2000;
    let packed = c.scene.pack().unwrap();
    let dt = packed.params.dt;
    let states = c.scene.bodies.iter().map(|b| b.initial_state()).collect();
    let mut run = ModalRun::new(CpuModal::new(packed, states), c.scene.rebuild_every, c.scene.skin);
    run.run(1).unwrap();
    let mut dy = run.backend.dynamic().unwrap();
    dy.state[4].omega = 0.5;
    run.backend.set_dynamic(&dy, 1).unwrap();
    let e = run.run(4000).unwrap_err().to_string();
    assert!(
        e.contains("modal surface node") && e.contains("skin/2"),
        "dt {dt}, 2000 steps: {e}"
    );
}
