//! The triaxial cell on the GPU stepper (`membrane::gpu_triaxial`) against the CPU cell
//! (`membrane::triaxial`), and the rim kernel (`shaders/membrane_rims.wgsl`) against its CPU twin
//! (`membrane::rims`), on lavapipe. Needs a wgpu adapter: `gpu_for_tests` panics without one.

use softdem::gpu::context::{gpu_for_tests, GpuContext};
use softdem::membrane::cases::TABLE2_GRAIN;
use softdem::membrane::gpu_rims::GpuRims;
use softdem::membrane::gpu_source::GpuMembraneSource;
use softdem::membrane::gpu_triaxial::GpuTriaxialCell;
use softdem::membrane::rims::{hold_rims, rim_servo_area, Rims, ServoArea};
use softdem::membrane::system::no_contact_law;
use softdem::membrane::triaxial::{
    grow_packing, paper_cell, rim_area_of, servo_gain, CellSpec, Packing, TriaxialCell, TriaxialSample,
};
use softdem::membrane::MembraneContact;
use softdem::spheres::extra_force::SharedGpuSource;
use softdem::spheres::gpu_rebuild::RebuildSchedule;
use softdem::spheres::gpu_stepper::GpuSpheres;
use softdem::spheres::pair_law::LawTable;
use softdem::spheres::{PlaneWall, SphereParams, SphereState};

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

fn gpu_run(
    ctx: &GpuContext,
    spec: &CellSpec,
    packing: &Packing,
    batch: u32,
    schedule: RebuildSchedule,
) -> (Vec<TriaxialSample>, Vec<SphereState>, Vec<PlaneWall>, GpuTriaxialCell) {
    let mut cell = GpuTriaxialCell::from_host(ctx, cpu_cell(spec, packing)).unwrap();
    cell.spheres.batch = batch;
    cell.spheres.schedule = schedule;
    cell.confine(ctx, RAMP, HOLD, servo_gain(spec), 0.05).unwrap();
    cell.start_shear(ctx, V_P);
    let curve = cell.shear(ctx, SHEAR, EVERY).unwrap();
    let (states, walls) = (cell.spheres.states(ctx), cell.spheres.walls(ctx));
    (curve, states, walls, cell)
}

/// The GPU cell follows the CPU cell (28 grains, 84 vertices, 400 steps): every sphere's
/// position within 1e-8 m (seen 3.5e-9 m), σ_d within 1e-3 σ_c (seen 6.1 Pa of σ_d = 94 kPa), ε
/// within 1e-7 (seen 3e-12) and ε_v within 1e-6 (seen 5.4e-8, of ε_v = −3.2 %) at every sample;
/// no grain escapes on either. Two GPU runs are bit-identical (states, walls, samples, the
/// membrane's candidate list and history, the sphere-list and patch-list builds): host-decided
/// batches of 32 steps with the membrane and rims attached, and one step per submission pair
/// (the `Device` schedule's path with sources); the batched run reads back a third as often
/// or less (seen 119 against 464 read-backs, 29 builds). The rims: each sliding rim vertex has its platen's z
/// (hi, lo) and v_z bit for bit, and the top platen's area is `rim_area_of` its rim within 1e-5
/// (relative; seen 1.2e-9). About 20 s on lavapipe on the loaded 2-core machine (6 s CPU time).
#[test]
fn gpu_triaxial_cell_follows_the_cpu() {
    let ctx = gpu_for_tests();
    let (spec, packing) = small_cell();
    let mut cpu = cpu_cell(&spec, &packing);
    cpu.confine(RAMP, HOLD, servo_gain(&spec), 0.05);
    cpu.start_shear(V_P);
    let cpu_curve = cpu.shear(SHEAR, EVERY);
    let (curve, states, walls, cell) = gpu_run(&ctx, &spec, &packing, 32, RebuildSchedule::Host);
    let (curve_b, states_b, walls_b, cell_b) = gpu_run(&ctx, &spec, &packing, 32, RebuildSchedule::Device);

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
    let (mut d_sd, mut d_eps, mut d_ev) = (0.0f64, 0.0f64, 0.0f64);
    for (g, c) in curve.iter().zip(&cpu_curve) {
        d_sd = d_sd.max((g.sigma_d - c.sigma_d).abs());
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

/// The rim kernel's two rules against the twin on a moving pair of walls (no contact): pinned
/// vertices within 1e-14 m of x₀ + (w − w₀) evaluated in f64 (double-f32 on the device) with the
/// wall's velocity and no spin, bit for bit in every other field; sliding vertices bit for bit;
/// the servo area of a sliding particle rim within 1e-5 (relative). 300 steps, 32 a submission.
/// (Seen: pinned 0 m, area 0: bit for bit on lavapipe.)
#[test]
fn gpu_rims_follow_their_twin() {
    let ctx = gpu_for_tests();
    let n = 12;
    let states: Vec<SphereState> = (0..n)
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
    let rims = Rims {
        rims: [pinned.rims, sliding.rims].concat(),
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
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
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
}
