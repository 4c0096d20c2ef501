//! The triaxial cell on the GPU stepper (`membrane::gpu_triaxial`) against the CPU cell
//! (`membrane::triaxial`), and the rim kernel (`shaders/membrane_rims.wgsl`) against its CPU twin
//! (`membrane::rims`), on lavapipe. Needs a wgpu adapter: `gpu_for_tests` panics without one.

use softdem::gpu::context::{gpu_for_tests, GpuContext};
use softdem::membrane::cases::TABLE2_GRAIN;
use softdem::membrane::gpu_rims::GpuRims;
use softdem::membrane::gpu_source::GpuMembraneSource;
use softdem::membrane::gpu_triaxial::GpuTriaxialCell;
use softdem::membrane::rims::{cap_axial_force, hold_rims, load_cell_servo, rim_servo_area, LoadCell, Rims, ServoArea};
use softdem::membrane::system::no_contact_law;
use softdem::membrane::triaxial::{
    grow_packing, paper_cell, rim_area_of, servo_gain, CellSpec, Packing, TriaxialCell, TriaxialSample,
};
use softdem::membrane::MembraneContact;
use softdem::spheres::extra_force::SharedGpuSource;
use softdem::spheres::gpu_rebuild::RebuildSchedule;
use softdem::spheres::gpu_stepper::GpuSpheres;
use softdem::spheres::pair_law::LawTable;
use softdem::spheres::{PlaneWall, SphereForce, SphereParams, SphereState};

/// A small cell of Table 2's materials: R = 7.5 mm, H = 20 mm, 28 grains (r 2.3–2.7 mm before
/// growth), the patch membrane of side 4 mm (12 vertices a ring).
fn small_cell() -> (CellSpec, Packing) {
    let spec = CellSpec {
        radius: 7.5e-3,
        height: 20e-3,
        n_grains: 28,
        ..CellSpec::table3(1, 4.6e9, 2e-6)
    };
    let packing = grow_packing(&spec, 2e-4, 0.05 * spec.sigma_c, 500, 3000);
    (spec, packing)
}

/// Confinement (σ_c ramped over 50 steps, held 100) and 250 steps of shear at 0.5 m/s (ε ≈ 1 %),
/// sampled every 50 steps.
const RAMP: usize = 50;
const HOLD: usize = 100;
const SHEAR: usize = 250;
const EVERY: usize = 50;
const V_P: f64 = 0.5;

/// The CPU cell with a Verlet skin of 1 mm (the cell's 0.23 mm rebuilds the lists every ~4 steps
/// while the fast ramp presses the membrane on the grains; each GPU build costs ~0.1 s on
/// lavapipe), its lists rebuilt with it.
fn cpu_cell(spec: &CellSpec, packing: &Packing) -> TriaxialCell {
    let mut cell = paper_cell(spec, packing, MembraneContact::Patches);
    cell.sys.spheres.params.skin = 1e-3;
    cell.sys.spheres.rebuild();
    cell
}

/// The GPU cell at the end of its confinement: the load cell's output (R_z, the target it set)
/// and the device's state then (synced into a CPU cell's view).
struct Confined {
    load_cell: (f32, f32),
    states: Vec<SphereState>,
    forces: Vec<SphereForce>,
    walls: Vec<PlaneWall>,
}

fn gpu_run(
    ctx: &GpuContext,
    spec: &CellSpec,
    packing: &Packing,
    batch: u32,
    schedule: RebuildSchedule,
) -> (
    Vec<TriaxialSample>,
    Vec<SphereState>,
    Vec<PlaneWall>,
    GpuTriaxialCell,
    Confined,
) {
    let mut cell = GpuTriaxialCell::from_host(ctx, cpu_cell(spec, packing)).unwrap();
    cell.spheres.batch = batch;
    cell.spheres.schedule = schedule;
    cell.confine(ctx, RAMP, HOLD, servo_gain(spec), 0.05).unwrap();
    cell.sync(ctx);
    let sp = &cell.host.sys.spheres;
    let confined = Confined {
        load_cell: cell.rims().unwrap().load_cell_out(ctx).expect("the cell's load cell"),
        states: sp.states.clone(),
        forces: sp.forces.clone(),
        walls: sp.walls.clone(),
    };
    cell.start_shear(ctx, V_P);
    let curve = cell.shear(ctx, SHEAR, EVERY).unwrap();
    let (states, walls) = (cell.spheres.states(ctx), cell.spheres.walls(ctx));
    (curve, states, walls, cell, confined)
}

/// The GPU cell follows the CPU cell (28 grains, 84 vertices, 400 steps; `paper_cell`: the rim
/// stop at the membrane's initial radius, the caps' faces, σ_p the load cell's and the servo on
/// it, on the device by `load_cell_servo`): every sphere's position within 1e-8 m (seen
/// 3.1e-9 m), σ_d within 1e-3 σ_c (seen 1.7 Pa of σ_d = 8.64 kPa at ε = 1.27 %), the caps'
/// axial force on the membrane within 1e-3 σ_c over the rim's area (seen 9.5e-3 Pa), ε within
/// 1e-7 (seen 4.3e-12) and ε_v within 1e-6 (seen 5.1e-8, of ε_v = −0.86 %) at every sample; no
/// grain escapes on either. At the end of the confinement the device's load cell equals its
/// twin bit for bit (R_z = −1.7320356 N, the target 90 420.82 Pa = σ_c + R_z/A), R_z is within
/// 1e-5 of the f64 reference and the target within 1e-6 σ_c of the one the CPU cell's next
/// step sets (seen equal). (With the servo on the grains' force, before: positions 2.7e-9 m,
/// σ_d 0.92 Pa of 745 Pa; with the rims sliding freely, before the stop: σ_d = 94.4 kPa,
/// ε_v = −3.2 % at this ε.) Two GPU runs are bit-identical (states, walls, samples, the load
/// cell, the membrane's candidate list and history, the sphere-list and patch-list builds):
/// host-decided batches of 32 steps with the membrane and rims attached, and one step per
/// submission pair (the `Device` schedule's path with sources); the batched run reads back a
/// third as often or less (seen 112 against 449). The rims: each rim vertex has its platen's z
/// (hi, lo) and v_z bit for bit, and the top platen's area is `rim_area_of` its rim within 1e-5
/// (relative; seen 2.0e-8). About 20 s on lavapipe on the loaded 2-core machine (6 s CPU time).
/// The target the CPU cell's next step would set (`TriaxialCell::step`, from the f64
/// reference): the device's kernel ran after the last step, the CPU cell sets it before the next.
fn cpu_cell_target(cpu: &TriaxialCell) -> f32 {
    let sp = &cpu.sys.spheres;
    let r = cap_axial_force(&sp.states, &sp.forces, &sp.walls, &cpu.rims)[1];
    (cpu.servo_stress + r / sp.walls[1].size as f64) as f32
}

/// The top cap's R_z by the load cell's twin (`rims::load_cell_servo`, f32; with the walls it
/// leaves, the servo's target set) and by the f64 reference (`rims::cap_axial_force`).
fn top_cap_twin_and_reference(
    states: &[SphereState],
    forces: &[SphereForce],
    walls: &[PlaneWall],
    rims: &Rims,
    sigma_c: f64,
) -> (f32, Vec<PlaneWall>, f64) {
    let mut twin_walls = walls.to_vec();
    let cell = LoadCell {
        wall: 1,
        sigma: sigma_c as f32,
        ..Default::default()
    };
    let r_twin = load_cell_servo(states, forces, &mut twin_walls, rims, &cell);
    let r_ref = cap_axial_force(states, forces, walls, rims)[1];
    (r_twin, twin_walls, r_ref)
}

#[test]
fn gpu_triaxial_cell_follows_the_cpu() {
    let ctx = gpu_for_tests();
    let (spec, packing) = small_cell();
    let mut cpu = cpu_cell(&spec, &packing);
    assert!(
        cpu.load_cell && cpu.servo_on_load_cell,
        "paper_cell: the load cell's servo"
    );
    cpu.confine(RAMP, HOLD, servo_gain(&spec), 0.05);
    let cpu_target = cpu_cell_target(&cpu);
    let cpu_confined = cpu.sample();
    cpu.start_shear(V_P);
    let cpu_curve = cpu.shear(SHEAR, EVERY);
    let (curve, states, walls, cell, confined) = gpu_run(&ctx, &spec, &packing, 32, RebuildSchedule::Host);
    let (curve_b, states_b, walls_b, cell_b, confined_b) = gpu_run(&ctx, &spec, &packing, 32, RebuildSchedule::Device);

    // The load cell's servo on the device (`load_cell_servo`) at the end of the confinement: its
    // R_z and target bit for bit in the two GPU runs and equal to the twin's on the same state
    // (`rims::load_cell_servo`: the same lanes, order and f32 arithmetic), R_z within 1e-5 of the
    // f64 reference (`rims::cap_axial_force`, the CPU cell's servo and the samples), and the
    // target it set (σ_c + R_z/A, not σ_c: the servo holds the load cell's measure) within
    // 1e-6 of the CPU cell's.
    assert_eq!(
        (confined.load_cell.0.to_bits(), confined.load_cell.1.to_bits()),
        (confined_b.load_cell.0.to_bits(), confined_b.load_cell.1.to_bits()),
        "the load cell differs between two GPU runs"
    );
    let rims = &cell.host.rims;
    let (r_twin, twin_walls, r_ref) =
        top_cap_twin_and_reference(&confined.states, &confined.forces, &confined.walls, rims, spec.sigma_c);
    let (r_dev, target_dev) = confined.load_cell;
    println!(
        "load cell after confinement: R_z device {r_dev:e} N, twin {r_twin:e} N, f64 {r_ref:e} N; target device {target_dev} Pa, twin {}, CPU cell {cpu_target}; σ_p CPU {:.1} Pa (grains' alone {:.1} / {:.1})",
        twin_walls[1].target_stress, cpu_confined.sigma_p, cpu_confined.grain_platen_stress[0], cpu_confined.grain_platen_stress[1]
    );
    assert_load_cell_is_the_twins((r_dev, target_dev), (r_twin, twin_walls[1].target_stress));
    assert_eq!(
        confined.walls[1].target_stress, target_dev,
        "the wall's target is the kernel's"
    );
    assert!(
        r_ref < -1e-2,
        "the top cap carries the membrane ({r_ref:e} N): the check is empty"
    );
    assert!(
        (r_dev as f64 - r_ref).abs() <= 1e-5 * r_ref.abs(),
        "R_z: device {r_dev:e}, f64 reference {r_ref:e}"
    );
    let want = spec.sigma_c + r_ref / confined.walls[1].size as f64;
    assert!(
        (target_dev as f64 - want).abs() <= 1e-6 * spec.sigma_c && (target_dev as f64 - spec.sigma_c).abs() > 1e2,
        "target {target_dev} Pa, σ_c + R_z/A = {want} Pa"
    );
    assert!(
        ((target_dev - cpu_target) as f64).abs() <= 1e-6 * spec.sigma_c,
        "target: device {target_dev}, CPU cell {cpu_target}"
    );

    // Bit for bit across the batched and the one-step-per-submission runs.
    let membrane = |c: &GpuTriaxialCell| {
        let src = c
            .spheres
            .extra()
            .iter()
            .find_map(|s| s.as_any().downcast_ref::<SharedGpuSource<GpuMembraneSource>>())
            .expect("the membrane source");
        let src = src.0.borrow();
        let (list, history) = src.list(&ctx);
        (list, history, src.list_builds, c.spheres.rebuilds, c.spheres.steps)
    };
    let (m, m_b) = (membrane(&cell), membrane(&cell_b));
    assert_eq!(
        (m.2, m.3, m.4),
        (m_b.2, m_b.3, m_b.4),
        "patch-list builds, sphere-list builds, steps"
    );
    assert_eq!(m.0, m_b.0, "the membrane's candidate lists differ");
    assert!(
        bytemuck::cast_slice::<_, u8>(&m.1) == bytemuck::cast_slice::<_, u8>(&m_b.1),
        "patch histories differ"
    );
    println!(
        "read-backs of the stepping: batched {}, one step per submission {}; {} sphere-list builds, {} patch-list builds in {} steps",
        cell.spheres.stepping_reads, cell_b.spheres.stepping_reads, m.3, m.2, m.4
    );
    assert!(m.2 >= 3, "the membrane's list was rebuilt during the run ({})", m.2);
    // Batched: one read per submission (50 ramp steps one call each, then calls of 50–100
    // steps) and per build two (its halt's flags, the states for the membrane's list); seen 119
    // against 464.
    assert!(
        3 * cell.spheres.stepping_reads < cell_b.spheres.stepping_reads,
        "the batched run reads back {} times, the unbatched {}",
        cell.spheres.stepping_reads,
        cell_b.spheres.stepping_reads
    );
    assert!(
        bytemuck::cast_slice::<_, u8>(&states) == bytemuck::cast_slice::<_, u8>(&states_b),
        "two GPU runs differ in the states"
    );
    assert!(
        bytemuck::cast_slice::<_, u8>(&walls) == bytemuck::cast_slice::<_, u8>(&walls_b),
        "two GPU runs differ in the walls"
    );
    for (a, b) in curve.iter().zip(&curve_b) {
        assert_eq!(format!("{a:?}"), format!("{b:?}"), "two GPU runs differ in a sample");
    }

    // CPU against GPU.
    assert_eq!(curve.len(), cpu_curve.len());
    let sigma_c = spec.sigma_c;
    let (mut d_sd, mut d_eps, mut d_ev, mut d_cap) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (g, c) in curve.iter().zip(&cpu_curve) {
        d_sd = d_sd.max((g.sigma_d - c.sigma_d).abs());
        for k in 0..2 {
            d_cap = d_cap.max((g.cap_membrane_force[k] - c.cap_membrane_force[k]).abs() / c.rim_area[k]);
        }
        d_eps = d_eps.max((g.axial_strain - c.axial_strain).abs());
        d_ev = d_ev.max((g.volumetric_strain - c.volumetric_strain).abs());
        assert_eq!((g.escaped, c.escaped), (0, 0), "a grain left the cell");
    }
    let last = cpu_curve.last().unwrap();
    println!(
        "CPU at ε = {:.4}: σ_d = {:.1} Pa, ε_v = {:.3e}; GPU − CPU: σ_d {d_sd:.3e} Pa, ε {d_eps:.3e}, ε_v {d_ev:.3e}",
        last.axial_strain, last.sigma_d, last.volumetric_strain
    );
    assert!(last.axial_strain > 0.005, "the shear reached ε = {}", last.axial_strain);
    assert!(d_sd <= 1e-3 * sigma_c, "σ_d: GPU and CPU differ by {d_sd:e} Pa");
    // σ_p is the load cell's (paper_cell): the caps' axial force on the membrane, from the
    // forces each backend gives back, within 1e-3 σ_c over the rim's area.
    let cap = cpu_curve
        .iter()
        .map(|s| s.cap_membrane_force[0].abs())
        .fold(0.0, f64::max);
    println!("caps' axial force on the membrane: up to {cap:.3e} N; GPU − CPU {d_cap:.3e} Pa");
    assert!(cap > 0.0, "the caps carry none of the membrane: the check is empty");
    assert!(
        d_cap <= 1e-3 * sigma_c,
        "caps' force: GPU and CPU differ by {d_cap:e} Pa"
    );
    assert!(
        d_eps <= 1e-7 && d_ev <= 1e-6,
        "ε, ε_v: GPU and CPU differ by {d_eps:e}, {d_ev:e}"
    );
    let d_x = states
        .iter()
        .zip(&cpu.sys.spheres.states)
        .map(|(g, c)| {
            let (a, b) = (g.position(), c.position());
            (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    println!("positions: GPU − CPU ≤ {d_x:.3e} m");
    assert!(d_x <= 1e-8, "positions: GPU and CPU differ by {d_x:e} m");

    // The rims on the device.
    let h = &cell.host;
    for (w, rim) in [(0usize, &h.bottom_rim), (1, &h.top_rim)] {
        for &v in rim {
            let s = &states[h.sys.vertex_sphere(v)];
            assert_eq!(
                (s.pos_hi[2], s.pos_lo[2], s.vel[2]),
                (walls[w].point_hi[2], walls[w].point_lo[2], walls[w].velocity[2]),
                "rim vertex {v} is not on platen {w}"
            );
        }
    }
    let top: Vec<[f64; 3]> = h
        .top_rim
        .iter()
        .map(|&v| states[h.sys.vertex_sphere(v)].position())
        .collect();
    let want = rim_area_of(&top, MembraneContact::Patches, h.vertex_radius);
    let rel = (walls[1].size as f64 - want).abs() / want;
    println!(
        "servo area: device {:.6e} m², twin {want:.6e} m² (relative {rel:.2e})",
        walls[1].size
    );
    assert!(rel <= 1e-5, "servo area {} vs {want}", walls[1].size);
}

/// The load cell on the particle membrane (MSS_particle, 1.33 mm spacing, r_v = 0.67 mm: its
/// vertex spheres are pressed onto the caps' faces, the kernel's face branch): the small cell's
/// confinement (σ_c ramped over 50 steps, held 100) on CPU and GPU, both `paper_cell` (the servo
/// on the load cell). After it the device's R_z and target equal the twin's bit for bit on the
/// device's state, R_z is within 1e-5 of the f64 reference, some face vertices carry part of it
/// (asserted: the check reaches the face branch), and the GPU cell follows the CPU cell:
/// positions within 1e-8 m, the load cell's σ_p within 1e-3 σ_c, the target within 1e-6 σ_c of
/// the one the CPU cell's next step sets. Seen: 702 vertices, R_z = −3.9487615 N on device and
/// twin (f64 −3.94876134 N), 10 face vertices pressed on the top cap, the target 77 548 Pa on
/// both cells, σ_p 0.05 Pa apart, positions 1.7e-9 m. About 4 s on lavapipe.
#[test]
fn gpu_load_cell_reads_the_particle_membrane_on_the_faces() {
    let ctx = gpu_for_tests();
    let (spec, packing) = small_cell();
    let cell = || {
        let mut c = paper_cell(&spec, &packing, MembraneContact::Particles);
        c.sys.spheres.params.skin = 1e-3;
        c.sys.spheres.rebuild();
        c
    };
    let mut cpu = cell();
    cpu.confine(RAMP, HOLD, servo_gain(&spec), 0.05);
    let mut gpu = GpuTriaxialCell::from_host(&ctx, cell()).unwrap();
    gpu.confine(&ctx, RAMP, HOLD, servo_gain(&spec), 0.05).unwrap();
    let (r_dev, target_dev) = gpu.rims().unwrap().load_cell_out(&ctx).unwrap();
    let g = gpu.sample(&ctx);
    let c = cpu.sample();
    let sp = &gpu.host.sys.spheres;
    let rims = &gpu.host.rims;
    let (r_twin, walls, r_ref) = top_cap_twin_and_reference(&sp.states, &sp.forces, &sp.walls, rims, spec.sigma_c);
    let faces = rims
        .records()
        .iter()
        .filter(|p| p.mode == softdem::membrane::rims::RIM_FACES)
        .filter(|p| softdem::membrane::rims::cap_axial_part(&sp.states, &sp.forces, &sp.walls, p, 1) != 0.0)
        .count();
    let cpu_target = cpu_cell_target(&cpu);
    let d_x = sp
        .states
        .iter()
        .zip(&cpu.sys.spheres.states)
        .map(|(a, b)| {
            let (a, b) = (a.position(), b.position());
            (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    println!(
        "particle membrane ({} vertices): R_z device {r_dev:e} N, twin {r_twin:e} N, f64 {r_ref:e} N, {faces} face vertices pressed on the top cap; target device {target_dev} Pa, CPU cell {cpu_target} Pa; σ_p GPU {:.2} Pa, CPU {:.2} Pa; positions GPU − CPU ≤ {d_x:.3e} m",
        gpu.n_vertices(),
        g.sigma_p,
        c.sigma_p
    );
    assert_load_cell_is_the_twins((r_dev, target_dev), (r_twin, walls[1].target_stress));
    assert!(
        faces > 0,
        "no face vertex on the top cap: the face branch is not reached"
    );
    assert!(r_ref < -1e-2, "the top cap carries the membrane ({r_ref:e} N)");
    assert!(
        (r_dev as f64 - r_ref).abs() <= 1e-5 * r_ref.abs(),
        "R_z: device {r_dev:e}, f64 {r_ref:e}"
    );
    assert!(
        ((target_dev - cpu_target) as f64).abs() <= 1e-6 * spec.sigma_c,
        "target: device {target_dev}, CPU cell {cpu_target}"
    );
    assert!(
        (g.sigma_p - c.sigma_p).abs() <= 1e-3 * spec.sigma_c,
        "σ_p: GPU {}, CPU {}",
        g.sigma_p,
        c.sigma_p
    );
    assert!(d_x <= 1e-8, "positions: GPU and CPU differ by {d_x:e} m");
}

/// The rim kernel's three rules against the twin on a moving pair of walls (no contact): pinned
/// vertices within 1e-14 m of x₀ + (w − w₀) evaluated in f64 (double-f32 on the device) with the
/// wall's velocity and no spin, bit for bit in every other field; sliding vertices bit for bit;
/// the servo area of a sliding particle rim within 1e-5 (relative). 300 steps, 32 a submission.
/// (Seen: pinned 0 m, area 0: bit for bit on lavapipe.)
///
/// The rim stop (`RIM_STOPPED`, R_cap = 12.5 mm about each wall's axis; wall 1's axis moves
/// sideways at 1 mm/s): eight vertices, four on each wall, two starting inside the cap (ρ = 12.0
/// mm, moving in at 2 m/s) and two outside (13.0 mm, moving out at 2 m/s and along the rim at
/// 0.5 m/s). Asserted against the CPU twin stepped alongside (`CpuSpheres` with `hold_rims`
/// after each step): positions within 1e-8 m and in-plane velocities within 1e-6 m/s (f32 on the
/// device, f64 in the twin; seen below), z, v_z and the spin bit for bit; and the law itself:
/// on wall 0 the inside ones (purely radial) end on the cap (ρ = R_cap within 1e-8 m) at rest in
/// the plane (1e-6 m/s); on wall 1 the inside ones, also moving along the rim at 0.5 m/s, were
/// put on the cap and slid off it outward (ρ ≥ R_cap − 1e-8 m, no inward radial velocity, the
/// tangential kept); the outside ones are untouched (their straight path within 1e-9 m). The
/// caps' faces (`RIM_FACES`): a vertex below wall 0 and one above wall 1, moving out of the cell,
/// end on their wall's plane (not beyond it by 1e-12 m, into the cell by ≤ 1e-9 m: their drift
/// and the wall's round apart; seen 3e-11 m) with its v_z (1e-6 m/s, f32 on the device), their in-plane velocity kept, and follow the
/// twin within the same bounds.
#[test]
fn gpu_rims_follow_their_twin() {
    let ctx = gpu_for_tests();
    let n = 12;
    let mut states: Vec<SphereState> = (0..n)
        .map(|i| {
            let a = i as f64 * std::f64::consts::TAU / n as f64;
            let z = if i % 2 == 0 { 0.0 } else { 0.02 };
            let mut s = SphereState::solid([0.0123 * a.cos(), 0.0123 * a.sin(), z], 1e-3, 1000.0, 0);
            s.vel = [0.01, -0.02, 0.03];
            s.omega = [1.0, 2.0, 3.0];
            s
        })
        .collect();
    let walls = vec![
        PlaneWall::new([0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.013], 0),
        PlaneWall::new([0.0, 0.0, 0.02], [0.0, 0.0, -1.0], [0.001, 0.0, -0.37], 0),
    ];
    // The stopped vertices (spheres 12..20): k = 0..4 on wall 0, 4..8 on wall 1; even k start
    // inside the cap (ρ = 12.0 mm) moving in at 2 m/s, odd k outside (13.0 mm) moving out.
    let r_cap = 0.0125;
    let stop_start: Vec<(f64, f64, f64)> = (0..8)
        .map(|k| {
            let a = 0.3 + k as f64 * std::f64::consts::TAU / 8.0;
            let (rho, v_r) = if k % 2 == 0 { (0.0120, -2.0) } else { (0.0130, 2.0) };
            (a, rho, v_r)
        })
        .collect();
    for (k, &(a, rho, v_r)) in stop_start.iter().enumerate() {
        let z = if k < 4 { 0.0 } else { 0.02 };
        let (e, t) = ([a.cos(), a.sin()], [-a.sin(), a.cos()]);
        let mut s = SphereState::solid([rho * e[0], rho * e[1], z], 1e-3, 1000.0, 0);
        let v_t = if k < 4 && k % 2 == 0 { 0.0 } else { 0.5 };
        s.vel = [(v_r * e[0] + v_t * t[0]) as f32, (v_r * e[1] + v_t * t[1]) as f32, 0.03];
        s.omega = [1.0, 2.0, 3.0];
        states.push(s);
    }
    // The caps' faces (spheres 20, 21): one below wall 0 moving down, one above wall 1 moving up.
    for (z, vz) in [(-0.5e-3, -0.2), (0.0205, 0.2)] {
        let mut s = SphereState::solid([0.005, 0.006, z], 1e-3, 1000.0, 0);
        s.vel = [0.1, -0.1, vz];
        states.push(s);
    }
    // No contact forces (the rims are the subject): every law a zero law.
    let mut laws = LawTable::hertz_mindlin(&[TABLE2_GRAIN]);
    for l in &mut laws.laws {
        *l = no_contact_law();
    }
    let params = SphereParams {
        dt: 1.7e-6,
        skin: 1e-4,
        ..Default::default()
    };
    // Even spheres pinned to wall 0, odd ones sliding on wall 1 (area: their ring, particles).
    let pinned = Rims::pinned(
        &(0..n).step_by(2).map(|i| (i as u32, 0)).collect::<Vec<_>>(),
        &states,
        &walls,
    );
    let odd: Vec<u32> = (1..n as u32).step_by(2).collect();
    let sliding = Rims::sliding(
        &[(1, &odd)],
        Some(ServoArea {
            wall: 1,
            rim: odd.clone(),
            contact: MembraneContact::Particles,
            vertex_radius: 6.7e-4,
        }),
    );
    let (stop0, stop1): (Vec<u32>, Vec<u32>) = ((12..16).collect(), (16..20).collect());
    let stopped = Rims::on_platens(&[(0, &stop0), (1, &stop1)], Some(r_cap), None).with_faces(&[20, 21], 0, 1);
    let rims = Rims {
        rims: [pinned.rims, sliding.rims, stopped.rims].concat(),
        area: sliding.area,
    };
    let mut sys = GpuSpheres::new(&ctx, params, &states, &laws, &walls).unwrap();
    sys.add_extra(&ctx, Box::new(GpuRims::new(&ctx, rims.clone()).unwrap()))
        .unwrap();
    sys.steps_batched(&ctx, 299).unwrap();
    sys.steps_batched(&ctx, 1).unwrap();
    // The twin applied to the device's state: the rims overwrite what they set, so the kernel's
    // output is a fixed point of the twin exactly where the two agree.
    let (got, got_walls) = (sys.states(&ctx), sys.walls(&ctx));
    let mut want = got.clone();
    hold_rims(&mut want, &got_walls, &rims);
    let mut want_walls = got_walls.clone();
    rim_servo_area(&want, &mut want_walls, &rims);
    let mut d_pin = 0.0f64;
    for (i, (g, w)) in got.iter().zip(&want).enumerate().take(n) {
        if i % 2 == 0 {
            let (a, b) = (g.position(), w.position());
            d_pin = d_pin.max((0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max));
            assert_eq!(
                (g.vel, g.omega, g.radius, g.mass),
                (w.vel, w.omega, w.radius, w.mass),
                "pinned {i}"
            );
        } else {
            assert_eq!(bytemuck::bytes_of(g), bytemuck::bytes_of(w), "sliding {i}");
        }
    }
    println!("pinned: device − twin ≤ {d_pin:.3e} m");
    assert!(d_pin <= 1e-14, "pinned vertices differ from the twin by {d_pin:e} m");
    // Wall 0 moved 300 Δt · 0.013 m/s ≈ 6.6 µm, the pinned vertices with it.
    let dz = got[0].position()[2] - states[0].position()[2];
    let moved = 300.0 * params.dt as f64 * 0.013;
    assert!(
        (dz - moved).abs() <= 1e-3 * moved,
        "pinned vertex moved {dz:e} m, wall {moved:e} m"
    );
    let rel = (got_walls[1].size as f64 - want_walls[1].size as f64).abs() / want_walls[1].size as f64;
    println!(
        "servo area (particles): device {:e}, twin {:e}, relative {rel:.2e}",
        got_walls[1].size, want_walls[1].size
    );
    assert!(rel <= 1e-5, "servo area differs by {rel:e}");

    // The rim stop against the CPU twin stepped alongside.
    let mut cpu = softdem::spheres::cpu_stepper::CpuSpheres::new(params, states.clone(), laws.clone(), walls.clone());
    for _ in 0..300 {
        cpu.step();
        hold_rims(&mut cpu.states, &cpu.walls, &rims);
        rim_servo_area(&cpu.states, &mut cpu.walls, &rims);
    }
    let t = 300.0 * params.dt as f64;
    let (mut d_x, mut d_v) = (0.0f64, 0.0f64);
    for (k, &(_, rho0, v_r0)) in stop_start.iter().enumerate() {
        let i = 12 + k;
        let (g, c) = (&got[i], &cpu.states[i]);
        let (xg, xc) = (g.position(), c.position());
        d_x = d_x.max((0..2).map(|j| (xg[j] - xc[j]).abs()).fold(0.0, f64::max));
        d_v = d_v.max((0..2).map(|j| (g.vel[j] - c.vel[j]).abs() as f64).fold(0.0, f64::max));
        assert_eq!(
            (g.pos_hi[2], g.pos_lo[2], g.vel[2], g.omega),
            (c.pos_hi[2], c.pos_lo[2], c.vel[2], c.omega),
            "stopped {i}: z, v_z, spin"
        );
        // The law, about the wall's axis now.
        let wall = &got_walls[if k < 4 { 0 } else { 1 }];
        let w = [
            wall.point_hi[0] as f64 + wall.point_lo[0] as f64,
            wall.point_hi[1] as f64 + wall.point_lo[1] as f64,
        ];
        let d = [xg[0] - w[0], xg[1] - w[1]];
        let rho = d[0].hypot(d[1]);
        let e = [d[0] / rho, d[1] / rho];
        let v_r = g.vel[0] as f64 * e[0] + g.vel[1] as f64 * e[1];
        let v_t = -g.vel[0] as f64 * e[1] + g.vel[1] as f64 * e[0];
        if v_r0 < 0.0 && k < 4 {
            assert!((rho - r_cap).abs() <= 1e-8, "stopped {i}: ρ = {rho:e}, R_cap {r_cap:e}");
            assert!(v_r.abs().max(v_t.abs()) <= 1e-6, "stopped {i}: moving in the plane");
        } else if v_r0 < 0.0 {
            assert!(rho >= r_cap - 1e-8, "stopped {i}: inside the cap, ρ = {rho:e}");
            assert!(v_r >= -1e-6, "stopped {i}: inward velocity {v_r:e} left");
            assert!(v_t > 0.45, "stopped {i}: tangential velocity {v_t}");
        } else {
            // Untouched: the straight path (the sideways motion of wall 1 is not the vertex's).
            let x0 = states[i].position();
            let p = [0, 1].map(|j| x0[j] + states[i].vel[j] as f64 * t);
            assert!(
                (xg[0] - p[0]).abs().max((xg[1] - p[1]).abs()) <= 1e-9,
                "free {i}: moved off its path"
            );
            assert!(rho > rho0, "free {i} moved outward");
            assert_eq!(g.vel[..2], states[i].vel[..2], "free {i}: velocity changed");
        }
    }
    // The faces: on their wall's plane, moving with it along the normal, the rest kept.
    for (i, w) in [(20usize, 0usize), (21, 1)] {
        let (g, c) = (&got[i], &cpu.states[i]);
        let (xg, xc) = (g.position(), c.position());
        d_x = d_x.max((0..3).map(|j| (xg[j] - xc[j]).abs()).fold(0.0, f64::max));
        d_v = d_v.max((0..3).map(|j| (g.vel[j] - c.vel[j]).abs() as f64).fold(0.0, f64::max));
        let wz = got_walls[w].point_hi[2] as f64 + got_walls[w].point_lo[2] as f64;
        // On the plane, or off it into the cell by the rounding of 300 drifts beside the wall's.
        let into = if w == 0 { xg[2] - wz } else { wz - xg[2] };
        assert!(
            (-1e-12..=1e-9).contains(&into),
            "face {i}: z {} vs the wall's {wz}",
            xg[2]
        );
        assert!(
            (g.vel[2] - got_walls[w].velocity[2]).abs() <= 1e-6,
            "face {i}: v_z {}",
            g.vel[2]
        );
        assert_eq!(g.vel[..2], states[i].vel[..2], "face {i}: in-plane velocity");
    }
    println!("stopped and faces: device − twin ≤ {d_x:.3e} m, {d_v:.3e} m/s");
    assert!(d_x <= 1e-8, "stopped vertices: device and twin differ by {d_x:e} m");
    assert!(d_v <= 1e-6, "stopped vertices: device and twin differ by {d_v:e} m/s");
}

/// The device's load cell (R_z, the servo wall's target) bit for bit its CPU twin's.
fn assert_load_cell_is_the_twins((r_dev, target_dev): (f32, f32), (r_twin, target_twin): (f32, f32)) {
    assert_eq!(
        r_dev.to_bits(),
        r_twin.to_bits(),
        "R_z: device {r_dev:e}, twin {r_twin:e}"
    );
    assert_eq!(
        target_dev.to_bits(),
        target_twin.to_bits(),
        "target: device {target_dev}, twin {target_twin}"
    );
}
