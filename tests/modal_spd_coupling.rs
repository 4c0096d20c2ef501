//! Contact between SPD cells and modal level-set bodies, both ways (issue 7, phase 2;
//! `src/coupled/`, docs/modal.md "Coupling with SPD cells").
//!
//! 1. Momentum: a free SPD cell hits a free modal disk obliquely (no gravity, no walls, friction
//!    on). Total linear momentum (SPD nodes + modal bodies) before and after the contact agrees to
//!    a rounding-level relative tolerance, and both bodies changed velocity; for each contact
//!    direction alone and for both.
//! 2. Statics: under gravity, damped to rest, (a) an SPD cell on a modal disk on a modal wall and
//!    (b) a modal disk on an SPD cell on an SPD wall: wall reaction = total weight within 1 %, the
//!    force between the two bodies = weight of the upper one within 1 %, with each direction alone
//!    and with both (then each direction carries a share of the load).
//! 3. GPU: a prefix of the collision on the GPU against the CPU twin, and two GPU runs bit for bit.

use softdem::coupled::stepper::{CoupledBackend, CoupledRun, CoupledScene};
use softdem::coupled::{DIR_BOTH, DIR_MODAL_NODES, DIR_SPD_NODES};
use softdem::modal::body::{disk, ModalBody};
use softdem::modal::stepper::{line_wall, ContactParams, ModalScene};
use softdem::modal::stiffness::ModalStiffness;
use softdem::model::*;

const N_CELL: usize = 32;
const R: f64 = 1.0;
const R_SHELL: f32 = 0.05;
const NODE_MASS: f32 = 1.0;

fn material() -> Material {
    Material {
        k_s: 1000.0,
        f_s_yield: f32::INFINITY,
        c_s: 0.0,
        k_b: 10.0,
        m_b_yield: f32::INFINITY,
        c_b: 0.0,
        k_core: 1000.0,
        depth: 1.0,
    }
}

fn cell_options(mat: u32) -> BodyOptions {
    BodyOptions {
        material: mat,
        radius: R_SHELL,
        node_mass: NODE_MASS,
        frozen: false,
        self_contact: false,
        core: Core::Undrained { p0: 0.0 },
    }
}

/// A disk of radius 1 with the compaction mode Φ = −((x/R)³, (y/R)³) (∫Φ = 0), linear modal
/// stiffness, 64 surface nodes, level-set spacing 0.05, density 10 (mass 10π).
fn modal_disk(center: [f64; 2]) -> ModalBody {
    let mut b = disk(
        center,
        R,
        0.05,
        64,
        10.0,
        |p| [-(p[0] / R).powi(3), -(p[1] / R).powi(3)],
        ModalStiffness::Linear(vec![2.0e4]),
        200.0,
    );
    b.rigid_damping = 0.0;
    b
}

fn modal_scene(bodies: Vec<ModalBody>, walls: Vec<softdem::modal::layout::ModalWallRec>, c_n: f32) -> ModalScene {
    ModalScene {
        bodies,
        walls,
        contact: ContactParams {
            k_n: 1000.0,
            c_n,
            k_t: 500.0,
            mu: 0.3,
        },
        contact_materials: vec![],
        dt: 0.003,
        rebuild_every: 20,
        skin: 0.2,
    }
}

/// Total linear momentum: SPD nodes (free bodies) + modal bodies M V (their modes keep the centre
/// of mass, ∫ρΦ = 0, so M V is the whole of it).
fn momentum<B: CoupledBackend>(run: &mut CoupledRun<B>, sc: &CoupledScene) -> [f64; 2] {
    let nodes = run.read_nodes().unwrap();
    let mut p = softdem::diagnostics::momentum(&sc.spd, &nodes);
    for (s, b) in run.modal_states().unwrap().iter().zip(&sc.modal.bodies) {
        p[0] += b.mass as f64 * s.v[0] as f64;
        p[1] += b.mass as f64 * s.v[1] as f64;
    }
    p
}

fn cell_velocity(sc: &Scene, nodes: &[NodeState], body: u32) -> [f64; 2] {
    let b = sc.bodies[body as usize];
    let mut v = [0.0; 2];
    for s in &nodes[b.first as usize..(b.first + b.count) as usize] {
        v[0] += s.vel[0] as f64 / b.count as f64;
        v[1] += s.vel[1] as f64 / b.count as f64;
    }
    v
}

/// Force on the SPD side from the modal side, split by direction: (SPD-node slots, modal-node
/// slot reactions).
fn coupling_force<B: CoupledBackend>(run: &mut CoupledRun<B>) -> ([f64; 2], [f64; 2], usize, usize) {
    let (_, s, k) = run.backend.slots().unwrap();
    let (mut a, mut b, mut na, mut nb) = ([0.0f64; 2], [0.0f64; 2], 0, 0);
    for o in s.slots.iter().filter(|o| o.active != 0) {
        a[0] += o.force[0] as f64;
        a[1] += o.force[1] as f64;
        na += 1;
    }
    for o in k.slots.iter().filter(|o| o.active != 0) {
        b[0] -= o.force[0] as f64;
        b[1] -= o.force[1] as f64;
        nb += 1;
    }
    (a, b, na, nb)
}

mod collision {
    use super::*;

    pub const STEPS: u64 = 1500;
    pub const V_CELL: f32 = 0.5;

    /// The cell (centre (−1.1, 0.35)) moves right at 0.5 towards the disk at rest (centre
    /// (1.1, 0)): an oblique impact, so friction acts too.
    pub fn scene(directions: u32) -> CoupledScene {
        let mut spd = Scene::default();
        let mat = spd.add_material(material());
        let c = spd.add_ring([-1.1, 0.35], R, N_CELL, cell_options(mat));
        spd.set_initial_velocity(&NodeSet::Body(c), [V_CELL, 0.0]);
        spd.contact = ContactLaw {
            k_n: 1000.0,
            k_t: 0.0,
            mu: 0.0,
            c_n: 0.0,
        };
        let mut d = modal_disk([1.1, 0.0]);
        d.position = [1.1, 0.0];
        let mut modal = modal_scene(vec![d], vec![], 0.0);
        modal.bodies[0].rigid_damping = 0.0;
        CoupledScene { spd, modal, directions }
    }

    pub struct Measured {
        pub p0: [f64; 2],
        pub p1: [f64; 2],
        pub v_cell: ([f64; 2], [f64; 2]),
        pub v_disk: ([f32; 2], [f32; 2]),
        pub max_active: (usize, usize),
        pub active_at_end: usize,
    }

    pub fn run<B: CoupledBackend>(run: &mut CoupledRun<B>, sc: &CoupledScene, steps: u64) -> Measured {
        let nodes = run.read_nodes().unwrap();
        let v_cell0 = cell_velocity(&sc.spd, &nodes, 0);
        let v_disk0 = run.modal_states().unwrap()[0].v;
        let p0 = momentum(run, sc);
        let mut max_active = (0, 0);
        let mut done = 0;
        while done < steps {
            run.run(10).unwrap();
            done += 10;
            let (_, _, na, nb) = coupling_force(run);
            max_active = (max_active.0.max(na), max_active.1.max(nb));
        }
        let (_, _, na, nb) = coupling_force(run);
        let nodes = run.read_nodes().unwrap();
        let p1 = momentum(run, sc);
        Measured {
            p0,
            p1,
            v_cell: (v_cell0, cell_velocity(&sc.spd, &nodes, 0)),
            v_disk: (v_disk0, run.modal_states().unwrap()[0].v),
            max_active,
            active_at_end: na + nb,
        }
    }

    /// Rounding-level tolerance on |P1 − P0| / |P0| (f32 velocities of 32 + 1 bodies summed over
    /// 1500 steps; observed ~1e-7, see the printed figure).
    pub const MOMENTUM_TOL: f64 = 2e-6;

    pub fn check(m: &Measured, directions: u32) {
        let dp = ((m.p1[0] - m.p0[0]).powi(2) + (m.p1[1] - m.p0[1]).powi(2)).sqrt();
        let rel = dp / (m.p0[0].powi(2) + m.p0[1].powi(2)).sqrt();
        eprintln!(
            "directions {directions}: P0 = {:?}, P1 = {:?}, |ΔP|/|P0| = {rel:.2e}; cell v {:?} → {:?}, disk v {:?} → {:?}; \
             max active slots (SPD nodes, modal nodes) = {:?}",
            m.p0, m.p1, m.v_cell.0, m.v_cell.1, m.v_disk.0, m.v_disk.1, m.max_active
        );
        assert_eq!(
            m.active_at_end, 0,
            "the bodies must have separated by the end of the run"
        );
        assert!(
            rel <= MOMENTUM_TOL,
            "momentum changed by {rel:.2e} of |P0| (tolerance {MOMENTUM_TOL})"
        );
        // The contact happened: both bodies' x velocities changed by more than 20 % of their start.
        assert!(
            (m.v_cell.1[0] - m.v_cell.0[0]).abs() > 0.2 * V_CELL as f64,
            "cell velocity unchanged"
        );
        assert!(
            ((m.v_disk.1[0] - m.v_disk.0[0]) as f64).abs() > 0.2 * V_CELL as f64,
            "disk velocity unchanged"
        );
        // Oblique impact: the y momentum exchanged is not zero either.
        assert!(
            m.v_cell.1[1].abs() > 1e-3 && m.v_disk.1[1].abs() > 1e-3,
            "no y exchange"
        );
        if directions & DIR_SPD_NODES != 0 {
            assert!(m.max_active.0 > 0, "no SPD-node contact");
        } else {
            assert_eq!(m.max_active.0, 0);
        }
        if directions & DIR_MODAL_NODES != 0 {
            assert!(m.max_active.1 > 0, "no modal-node contact");
        } else {
            assert_eq!(m.max_active.1, 0);
        }
    }
}

#[test]
fn collision_conserves_momentum_cpu() {
    for dir in [DIR_BOTH, DIR_SPD_NODES, DIR_MODAL_NODES] {
        let sc = collision::scene(dir);
        let mut run = softdem::coupled::stepper::cpu(&sc).unwrap();
        let m = collision::run(&mut run, &sc, collision::STEPS);
        collision::check(&m, dir);
    }
}

mod statics {
    use super::*;

    pub const STEPS: u64 = 5000;
    pub const G: f32 = -0.2;
    pub const DAMPING: f32 = 2.0;

    /// Which body is on top.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Stack {
        /// SPD cell on a modal disk on a modal wall (y = 0).
        CellOnDisk,
        /// Modal disk on an SPD cell on an SPD wall (frozen line at y = 0).
        DiskOnCell,
    }

    pub fn scene(stack: Stack, directions: u32) -> CoupledScene {
        let mut spd = Scene::default();
        let mat = spd.add_material(material());
        spd.gravity = [0.0, G];
        spd.viscous_damping = DAMPING;
        spd.contact = ContactLaw {
            k_n: 1000.0,
            k_t: 500.0,
            mu: 0.3,
            c_n: 10.0,
        };
        let (disk_y, walls) = match stack {
            Stack::CellOnDisk => {
                // Disk nodes straddle the bottom point at 0.9988 R: 1.2e-3 above the wall.
                spd.add_ring([0.0, 2.0 + R_SHELL as f64 + R + 0.01], R, N_CELL, cell_options(mat));
                (1.0, vec![line_wall([0.0, 0.0], [0.0, 1.0], [0.0, 0.0])])
            }
            Stack::DiskOnCell => {
                let c = 2.0 * R_SHELL as f64 + R + 0.005;
                spd.add_ring([0.0, c], R, N_CELL, cell_options(mat));
                let wall = BodyOptions {
                    frozen: true,
                    core: Core::None,
                    ..cell_options(mat)
                };
                spd.add_line([-3.0, 0.0], [3.0, 0.0], 61, wall);
                (c + R + R_SHELL as f64 + R + 0.005, vec![])
            }
        };
        let mut d = modal_disk([0.0, disk_y]);
        d.rigid_damping = DAMPING;
        let modal = modal_scene(vec![d], walls, 10.0);
        CoupledScene { spd, modal, directions }
    }

    pub struct Measured {
        pub weight_cell: f64,
        pub weight_disk: f64,
        pub wall: f64,
        /// y force on the cell from the disk: (SPD-node slots, modal-node slots).
        pub between: (f64, f64),
    }

    pub fn run<B: CoupledBackend>(run: &mut CoupledRun<B>, sc: &CoupledScene, stack: Stack, steps: u64) -> Measured {
        run.run(steps).unwrap();
        let nodes = run.read_nodes().unwrap();
        let (a, b, _, _) = coupling_force(run);
        let wall = match stack {
            Stack::CellOnDisk => run.modal_wall_forces().unwrap()[0][1] as f64,
            Stack::DiskOnCell => softdem::diagnostics::body_force(&sc.spd, &nodes, 1)[1],
        };
        let m_disk: f64 = sc.modal.bodies[0].mass as f64;
        Measured {
            weight_cell: -(N_CELL as f64) * NODE_MASS as f64 * G as f64,
            weight_disk: -m_disk * G as f64,
            wall: -wall,
            between: (a[1], b[1]),
        }
    }

    pub const TOL: f64 = 0.01;

    pub fn check(m: &Measured, stack: Stack, directions: u32) {
        let total = m.weight_cell + m.weight_disk;
        let between = m.between.0 + m.between.1;
        // The force on the cell from the disk: + upper weight (cell on top), − disk weight.
        let expect = match stack {
            Stack::CellOnDisk => m.weight_cell,
            Stack::DiskOnCell => -m.weight_disk,
        };
        eprintln!(
            "{stack:?}, directions {directions}: wall {:.5} vs weight {total:.5} ({:+.2e}); between {between:.5} \
             (SPD nodes {:.5}, modal nodes {:.5}) vs {expect:.5} ({:+.2e})",
            m.wall,
            m.wall / total - 1.0,
            m.between.0,
            m.between.1,
            between / expect - 1.0
        );
        assert!(
            (m.wall / total - 1.0).abs() <= TOL,
            "wall reaction off by more than 1 %"
        );
        assert!(
            (between / expect - 1.0).abs() <= TOL,
            "contact force off by more than 1 %"
        );
        if directions == DIR_BOTH {
            for (what, part) in [("SPD nodes", m.between.0), ("modal nodes", m.between.1)] {
                assert!(
                    part / expect > 0.1,
                    "{what} carry {part} of {expect}: both directions must carry load"
                );
            }
        } else if directions == DIR_SPD_NODES {
            assert_eq!(m.between.1, 0.0);
        } else {
            assert_eq!(m.between.0, 0.0);
        }
    }
}

#[test]
fn statics_cell_on_disk_cpu() {
    use statics::*;
    for dir in [DIR_BOTH, DIR_SPD_NODES, DIR_MODAL_NODES] {
        let sc = scene(Stack::CellOnDisk, dir);
        let mut r = softdem::coupled::stepper::cpu(&sc).unwrap();
        let m = run(&mut r, &sc, Stack::CellOnDisk, STEPS);
        check(&m, Stack::CellOnDisk, dir);
    }
}

#[test]
fn statics_disk_on_cell_cpu() {
    use statics::*;
    for dir in [DIR_BOTH, DIR_SPD_NODES, DIR_MODAL_NODES] {
        let sc = scene(Stack::DiskOnCell, dir);
        let mut r = softdem::coupled::stepper::cpu(&sc).unwrap();
        let m = run(&mut r, &sc, Stack::DiskOnCell, STEPS);
        check(&m, Stack::DiskOnCell, dir);
    }
}

fn gpu_ctx() -> std::sync::Arc<softdem::gpu::context::GpuContext> {
    // Fails (never skips) without an adapter. No `set_var` here (other test threads may be in
    // a driver): `GpuContext::new` sets XDG_RUNTIME_DIR once, before the first wgpu instance.
    std::sync::Arc::new(softdem::gpu::context::gpu_for_tests())
}

/// Largest |a − b| over the SPD node positions and velocities and the modal states, relative to
/// the largest |a| of each quantity.
fn deviation<A: CoupledBackend, B: CoupledBackend>(a: &mut CoupledRun<A>, b: &mut CoupledRun<B>) -> (f64, f64) {
    let (na, nb) = (a.read_nodes().unwrap(), b.read_nodes().unwrap());
    let rel = |x: Vec<f64>, y: Vec<f64>| {
        let scale = x.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-30);
        x.iter().zip(&y).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max) / scale
    };
    let pos = |n: &[NodeState]| n.iter().flat_map(|s| s.pos()).collect::<Vec<f64>>();
    let vel = |n: &[NodeState]| n.iter().flat_map(|s| s.vel.map(|v| v as f64)).collect::<Vec<f64>>();
    let (ma, mb) = (a.modal_states().unwrap(), b.modal_states().unwrap());
    let mpos = |m: &[softdem::modal::layout::ModalState]| {
        m.iter()
            .flat_map(|s| [s.x_hi[0] as f64 + s.x_lo[0] as f64, s.x_hi[1] as f64 + s.x_lo[1] as f64])
            .collect::<Vec<f64>>()
    };
    let mvel = |m: &[softdem::modal::layout::ModalState]| {
        m.iter()
            .flat_map(|s| [s.v[0] as f64, s.v[1] as f64, s.omega as f64, s.eps[0] as f64])
            .collect::<Vec<f64>>()
    };
    let p = rel(pos(&na), pos(&nb)).max(rel(mpos(&ma), mpos(&mb)));
    let v = rel(vel(&na), vel(&nb)).max(rel(mvel(&ma), mvel(&mb)));
    (p, v)
}

/// The whole collision (both directions) on the GPU: physics checks as on the CPU, and the state
/// against the CPU twin every 100 steps. Tolerance: the kernels do the same f32 operations in the
/// same order (products feeding sums kept unfused by `opaque`, sin/cos by the polynomial of
/// modal_lib); what the driver may still contract (FMA) differs by an ulp, which the impact
/// amplifies: 1e-4 of the scale for positions and velocities (printed: observed figure).
#[test]
fn collision_gpu_matches_cpu() {
    let ctx = gpu_ctx();
    let sc = collision::scene(DIR_BOTH);
    let mut g = softdem::coupled::stepper::gpu(ctx, &sc).unwrap();
    let mut c = softdem::coupled::stepper::cpu(&sc).unwrap();
    let (mut wp, mut wv) = (0.0f64, 0.0f64);
    for _ in 0..collision::STEPS / 100 {
        g.run(100).unwrap();
        c.run(100).unwrap();
        let (p, v) = deviation(&mut c, &mut g);
        wp = wp.max(p);
        wv = wv.max(v);
    }
    eprintln!("collision: max |cpu − gpu| / scale: positions {wp:.2e}, velocities {wv:.2e}");
    assert!(
        wp <= 1e-4 && wv <= 1e-4,
        "GPU and CPU differ: positions {wp:.2e}, velocities {wv:.2e}"
    );
    let mut g = softdem::coupled::stepper::gpu(gpu_ctx(), &sc).unwrap();
    let m = collision::run(&mut g, &sc, collision::STEPS);
    collision::check(&m, DIR_BOTH);
}

/// A modal disk on an SPD cell on an SPD wall, both directions, on the GPU: statics within 1 %,
/// and the final state against the CPU twin (tolerance as above).
#[test]
fn statics_disk_on_cell_gpu() {
    use statics::*;
    let sc = scene(Stack::DiskOnCell, DIR_BOTH);
    let mut g = softdem::coupled::stepper::gpu(gpu_ctx(), &sc).unwrap();
    let m = run(&mut g, &sc, Stack::DiskOnCell, STEPS);
    check(&m, Stack::DiskOnCell, DIR_BOTH);
    let mut c = softdem::coupled::stepper::cpu(&sc).unwrap();
    c.run(STEPS).unwrap();
    // Velocities are ~0 at rest, so only the positions are compared.
    let (p, _) = deviation(&mut c, &mut g);
    eprintln!("statics: |cpu − gpu| / scale: positions {p:.2e}");
    assert!(p <= 1e-4, "GPU and CPU positions differ by {p:.2e}");
}

/// Two GPU runs of 600 steps of the collision (through the impact, with two list rebuilds that
/// move friction histories) are bit-identical: SPD nodes, modal states and all slots.
#[test]
fn two_gpu_runs_are_bit_identical() {
    let sc = collision::scene(DIR_BOTH);
    let mut out = vec![];
    for _ in 0..2 {
        let mut g = softdem::coupled::stepper::gpu(gpu_ctx(), &sc).unwrap();
        g.run(600).unwrap();
        let nodes = g.read_nodes().unwrap();
        let states = g.modal_states().unwrap();
        let (m, s, k) = g.backend.slots().unwrap();
        let mut bytes: Vec<u8> = bytemuck::cast_slice(&nodes).to_vec();
        bytes.extend_from_slice(bytemuck::cast_slice(&states));
        bytes.extend_from_slice(bytemuck::cast_slice(&m.start));
        bytes.extend_from_slice(bytemuck::cast_slice(&m.slots));
        for start in [&s.start, &k.start] {
            bytes.extend_from_slice(bytemuck::cast_slice(start));
        }
        bytes.extend_from_slice(bytemuck::cast_slice(&s.slots));
        bytes.extend_from_slice(bytemuck::cast_slice(&k.slots));
        // The prefix covers the impact: the cell has lost a fifth of its speed.
        let v = cell_velocity(&sc.spd, &nodes, 0);
        assert!(
            v[0] < 0.8 * collision::V_CELL as f64,
            "no impact within the prefix: v = {v:?}"
        );
        out.push(bytes);
    }
    assert!(out[0] == out[1], "two GPU runs differ");
}

/// The WGSL mirror `SpdState` of modal_spd_contact.wgsl assumes this layout of NodeState.
#[test]
fn node_state_layout_matches_the_wgsl_mirror() {
    assert_eq!(std::mem::size_of::<NodeState>(), 40);
    assert_eq!(std::mem::offset_of!(NodeState, pos_lo), 8);
    assert_eq!(std::mem::offset_of!(NodeState, force), 24);
    assert_eq!(std::mem::offset_of!(NodeState, theta_p), 36);
}

/// Friction with history in the SPD-node direction: an SPD node pressed δ = 0.01 into the bottom
/// of a disk at rest, moving sideways at v. Along the level set's normal n (cellwise bilinear, so
/// slightly tilted there), the normal force is k_n (r − φ); the tangential spring grows by
/// k_t |v_t| dt per step (history fed back) until it reaches μ f_n, then stays there, opposing v_t
/// (relative 1e-4).
#[test]
fn friction_history_spd_node_against_level_set() {
    let sc = modal_scene(vec![modal_disk([0.0, 0.0])], vec![], 0.0);
    let packed = sc.pack().unwrap();
    let state = sc.bodies[0].initial_state();
    let (v, delta) = (0.1f32, 0.01f32);
    let d = [0.0, -(1.0 + R_SHELL - delta)];
    let ls = softdem::modal::contact::ls_query(&packed, 0, &state.eps, d);
    let g = (ls[1] * ls[1] + ls[2] * ls[2]).sqrt();
    let n = [ls[1] / g, ls[2] / g];
    let t = [-n[1], n[0]];
    let v_t = v * t[0];
    let p = packed.params;
    // The bilinear φ at the bottom point is within 2 % of δ from the exact distance (h = 0.05).
    let f_n_expect = p.k_n * (R_SHELL - ls[0]);
    assert!((f_n_expect / (p.k_n * delta) - 1.0).abs() < 0.02, "φ = {}", ls[0]);
    let mut hist = [0.0f32; 2];
    for i in 1..=40 {
        let (o, _, _) = softdem::modal::contact::point_vs_body(&packed, 0, &state, d, [v, 0.0], hist, R_SHELL, 0);
        assert_eq!(o.active, 1);
        hist = o.hist;
        let f_n = o.force[0] * n[0] + o.force[1] * n[1];
        let f_t = o.force[0] * t[0] + o.force[1] * t[1];
        assert!((f_n / f_n_expect - 1.0).abs() < 1e-4, "f_n = {f_n} vs {f_n_expect}");
        let expect = (p.k_t * v_t.abs() * p.dt * i as f32).min(p.mu * f_n);
        assert!(
            (-f_t * v_t.signum() / expect - 1.0).abs() < 1e-4,
            "step {i}: f_t = {f_t} vs {expect}"
        );
    }
    // Sliding at the end: the stored spring is at the Coulomb cap.
    let h_t = hist[0] * t[0] + hist[1] * t[1];
    assert!(
        (h_t.abs() * p.k_t / (p.mu * f_n_expect) - 1.0).abs() < 1e-4,
        "not sliding at the end"
    );
}

/// Friction with history in the modal-node direction: a modal node pressed δ into segment 0 → 1
/// of a (large, triangular) cell, moving along it; same law, and the lever parameter t is that
/// of the closest point.
#[test]
fn friction_history_modal_node_against_segment() {
    use softdem::coupled::layout::CellRec;
    let sc = modal_scene(vec![modal_disk([0.0, 0.0])], vec![], 0.0);
    let p = sc.pack().unwrap().params;
    // Exactly representable closest point (t = 1/2), so n is exactly (0, 1).
    let pts = [[-4.0f32, 0.0], [4.0, 0.0], [0.0, -4.0]];
    let spd: Vec<NodeState> = pts
        .iter()
        .map(|q| NodeState {
            pos_hi: *q,
            ..Default::default()
        })
        .collect();
    let cell = CellRec {
        first: 0,
        count: 3,
        radius: R_SHELL,
        coupled: 1,
        contact_material: 0,
    };
    let (v, delta) = (0.1f32, 0.01f32);
    let x = [0.0f32, R_SHELL - delta];
    let mut hist = [0.0f32; 2];
    for i in 1..=40 {
        let s = softdem::coupled::contact::modal_node_vs_cell(
            &p,
            &p.wall_law(),
            &cell,
            0,
            &[0, 1, 2],
            &spd,
            x,
            [0.0; 2],
            [v, 0.0],
            hist,
        );
        assert_eq!((s.active, s.seg), (1, 0));
        assert_eq!(s.t, 0.5);
        hist = s.hist;
        assert!(
            (s.force[1] / (p.k_n * delta) - 1.0).abs() < 1e-4,
            "f_n = {}",
            s.force[1]
        );
        let expect = (p.k_t * v * p.dt * i as f32).min(p.mu * s.force[1]);
        assert!(
            (-s.force[0] / expect - 1.0).abs() < 1e-4,
            "step {i}: f_t = {} vs {expect}",
            s.force[0]
        );
    }
}

/// A row of two cells and two disks (cell, disk, cell, disk; the first cell thrown at the row,
/// small y offsets): SPD–SPD, modal–modal and mixed contacts, several partners per list. The
/// total momentum at every sample with no contact of any kind after the first mixed impact equals
/// the initial one to a rounding-level tolerance (1e-5).
fn chain_scene() -> CoupledScene {
    let mut spd = Scene::default();
    let mat = spd.add_material(material());
    let a = spd.add_ring([0.0, 0.0], R, N_CELL, cell_options(mat));
    spd.add_ring([4.5, -0.3], R, N_CELL, cell_options(mat));
    spd.set_initial_velocity(&NodeSet::Body(a), [0.8, 0.0]);
    spd.contact = ContactLaw {
        k_n: 1000.0,
        k_t: 500.0,
        mu: 0.3,
        c_n: 0.0,
    };
    let modal = modal_scene(vec![modal_disk([2.25, 0.25]), modal_disk([6.75, 0.0])], vec![], 0.0);
    CoupledScene {
        spd,
        modal,
        directions: DIR_BOTH,
    }
}

#[test]
fn chain_of_cells_and_disks_conserves_momentum_cpu() {
    let sc = chain_scene();
    let mut run = softdem::coupled::stepper::cpu(&sc).unwrap();
    let p0 = momentum(&mut run, &sc);
    let (mut touched, mut worst, mut samples) = (false, 0.0f64, 0usize);
    for _ in 0..80 {
        run.run(50).unwrap();
        let (_, _, na, nb) = coupling_force(&mut run);
        let spd_contacts = run.read_contacts().unwrap().active_count();
        let (m, _, _) = run.backend.slots().unwrap();
        let modal_contacts = m.slots.iter().filter(|o| o.active != 0).count();
        let active = na + nb + spd_contacts + modal_contacts;
        touched |= na + nb > 0;
        if active == 0 && touched {
            let p = momentum(&mut run, &sc);
            let rel = ((p[0] - p0[0]).powi(2) + (p[1] - p0[1]).powi(2)).sqrt() / p0[0].abs();
            worst = worst.max(rel);
            samples += 1;
        }
    }
    let nodes = run.read_nodes().unwrap();
    let v_last = run.modal_states().unwrap()[1].v;
    eprintln!(
        "chain: {samples} contact-free samples after impacts, max |ΔP|/|P0| = {worst:.2e}; last disk v = {v_last:?}, \
         second cell v = {:?}",
        cell_velocity(&sc.spd, &nodes, 1)
    );
    assert!(samples > 0, "no contact-free sample after the impacts");
    assert!(v_last[0] > 0.05, "the impulse did not reach the last disk");
    // Rounding level for f32 velocities of 66 bodies over 4000 steps (observed 1.3e-6).
    assert!(worst <= 1e-5, "momentum changed by {worst:.2e}");
}

/// The chain on the GPU against the CPU twin every 500 steps (4000 steps, tolerance as in
/// `collision_gpu_matches_cpu`).
#[test]
fn chain_gpu_matches_cpu() {
    let sc = chain_scene();
    let mut g = softdem::coupled::stepper::gpu(gpu_ctx(), &sc).unwrap();
    let mut c = softdem::coupled::stepper::cpu(&sc).unwrap();
    let (mut wp, mut wv) = (0.0f64, 0.0f64);
    for _ in 0..8 {
        g.run(500).unwrap();
        c.run(500).unwrap();
        let (p, v) = deviation(&mut c, &mut g);
        wp = wp.max(p);
        wv = wv.max(v);
    }
    eprintln!("chain: max |cpu − gpu| / scale: positions {wp:.2e}, velocities {wv:.2e}");
    assert!(
        wp <= 1e-4 && wv <= 1e-4,
        "GPU and CPU differ: positions {wp:.2e}, velocities {wv:.2e}"
    );
}
