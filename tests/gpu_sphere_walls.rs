//! GPU twins of the walls beyond planes against the CPU stepper (needs a wgpu adapter; lavapipe
//! is enough: `gpu_for_tests` panics without one):
//! - spheres falling in a cylinder (axis z) onto a floor under tilted gravity;
//! - a simple cubic packing in a box pressed by a servo lid, the servo decided on the device
//!   (no read-back): lid position, velocity and stress against the CPU's.

mod sphere_cases;
use softdem::gpu::context::gpu_for_tests;
use softdem::spheres::cpu_stepper::CpuSpheres;
use softdem::spheres::gpu_stepper::GpuSpheres;
use softdem::spheres::pair_law::{LawTable, SphereMaterial};
use softdem::spheres::{box_walls, PlaneWall, SphereParams, SphereState};
use sphere_cases::largest_position_gap;

const R: f64 = 0.01;

fn table() -> LawTable {
    let m = SphereMaterial::RUBBER;
    LawTable::hertz_mindlin(&[
        m,
        SphereMaterial {
            young: f64::INFINITY,
            ..m
        },
    ])
}

fn params(gravity: [f32; 3], damping: f32) -> SphereParams {
    SphereParams {
        gravity,
        dt: 2e-5,
        skin: 1e-3,
        global_damping: damping,
        ..Default::default()
    }
}

/// Runs both steppers `steps` steps; returns the largest position difference (m) and both.
fn run(
    p: SphereParams,
    states: Vec<SphereState>,
    walls: Vec<PlaneWall>,
    steps: usize,
) -> (f64, CpuSpheres, Vec<PlaneWall>) {
    let ctx = gpu_for_tests();
    let mut cpu = CpuSpheres::new(p, states.clone(), table(), walls.clone());
    let mut gpu = GpuSpheres::new(&ctx, p, &states, &table(), &walls).unwrap();
    for _ in 0..steps {
        cpu.step();
        gpu.step(&ctx).unwrap();
    }
    let g = gpu.states(&ctx);
    let worst = largest_position_gap(&cpu.states, &g);
    (worst, cpu, gpu.walls(&ctx))
}

#[test]
fn gpu_cylinder_wall_follows_the_cpu() {
    let m = SphereMaterial::RUBBER;
    let mut states = Vec::new();
    for (k, &(x, y)) in [(0.0, 0.0), (0.022, 0.0), (-0.011, 0.019), (-0.011, -0.019)]
        .iter()
        .enumerate()
    {
        for level in 0..2 {
            let z = R + 0.001 + level as f64 * (2.0 * R + 0.002) + k as f64 * 1e-3;
            states.push(SphereState::solid([x, y, z], R, m.density, 0));
        }
    }
    let walls = vec![
        PlaneWall::cylinder([0.0; 3], [0.0, 0.0, 1.0], 0.0319, 1),
        PlaneWall::new([0.0; 3], [0.0, 0.0, 1.0], [0.0; 3], 1),
    ];
    let p = params([-3.0, -2.0, -9.81], 5.0);
    let (worst, cpu, gw) = run(p, states, walls, 1500);
    let on_shell = cpu.wall_out.iter().step_by(2).filter(|o| o.f_n > 0.0).count();
    println!(
        "cylinder: {on_shell} spheres on the shell, max |Δx| = {worst:.2e} m ({:.2e} r)",
        worst / R
    );
    println!("shell force gpu {:?} cpu {:?}", gw[0].force, cpu.walls[0].force);
    assert!(on_shell >= 2, "the case presses spheres on the shell");
    // Stated tolerance: positions within 1e-6 r, wall forces within 1e-3 of their size.
    assert!(worst < 1e-6 * R, "positions differ by {worst}");
    for (w, (g, c)) in gw.iter().zip(&cpu.walls).enumerate().take(2) {
        let scale = c.force.iter().map(|f| f.abs()).fold(0.0, f32::max);
        for k in 0..3 {
            assert!((g.force[k] - c.force[k]).abs() <= 1e-3 * scale, "wall {w} force");
            assert!(
                (g.torque[k] - c.torque[k]).abs() <= 1e-3 * scale * 0.05,
                "wall {w} torque"
            );
        }
    }
}

#[test]
fn gpu_servo_wall_follows_the_cpu() {
    let m = SphereMaterial::RUBBER;
    let mut states = Vec::new();
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                let c = |n: usize| R + 2.0 * R * n as f64;
                states.push(SphereState::solid([c(i), c(j), c(k)], R, m.density, 0));
            }
        }
    }
    let side = 6.0 * R;
    let mut walls = box_walls([0.0; 3], [side, side, side + 2e-4], 1);
    walls[5] = PlaneWall::servo(
        [0.0, 0.0, side + 1e-4],
        [0.0, 0.0, -1.0],
        side * side,
        1000.0,
        3e-5,
        0.02,
        1,
    );
    let (worst, cpu, gw) = run(params([0.0; 3], 40.0), states, walls, 1200);
    let (lc, lg) = (&cpu.walls[5], &gw[5]);
    let z = |w: &PlaneWall| w.point_hi[2] as f64 + w.point_lo[2] as f64;
    println!(
        "servo: lid z cpu {:.9} gpu {:.9}, v cpu {:.4e} gpu {:.4e}, stress cpu {:.3} gpu {:.3} Pa; max |Δx| {worst:.2e} m",
        z(lc),
        z(lg),
        lc.velocity[2],
        lg.velocity[2],
        lc.stress(),
        lg.stress()
    );
    assert!(lc.stress() > 100.0, "the lid is pressing");
    assert!(
        lc.velocity[2] != 0.0 && (lc.velocity[2] as f64).abs() < 0.02,
        "the servo is acting, below v_max"
    );
    // Stated tolerance: lid position and spheres within 1e-6 r, lid speed within 1e-3 of v_max,
    // stress within 1e-3 of the target.
    assert!((z(lc) - z(lg)).abs() < 1e-6 * R);
    assert!(worst < 1e-6 * R, "positions differ by {worst}");
    assert!((lc.velocity[2] - lg.velocity[2]).abs() < 2e-5);
    assert!((lc.stress() - lg.stress()).abs() < 1.0);
}

/// The wall gather as a fixed-order reduction (one workgroup of 256 lanes per wall; twin
/// src/spheres/wall_reduce.rs) on the 23³ lattice between plates (529 spheres on each plate: 3
/// per lane, a partial lane, idle lanes, then the tree): the device's wall force and torque equal
/// bit for bit `wall_reduce` over the device's own contact records in sphere order, and follow
/// the CPU stepper's walls within 1e-5 of the wall's load (the contacts themselves may differ by
/// an ulp between lavapipe and Rust).
#[test]
fn gpu_wall_gather_reduction_is_the_cpu_twin_bit_for_bit() {
    use softdem::spheres::wall_reduce::wall_reduce;
    let ctx = gpu_for_tests();
    let (p, states, laws, walls) = softdem::spheres::bench_scene::compressed_lattice(23);
    let mut cpu = CpuSpheres::new(p, states.clone(), laws.clone(), walls.clone());
    let mut gpu = GpuSpheres::new(&ctx, p, &states, &laws, &walls).unwrap();
    let nw = walls.len();
    for _ in 0..3 {
        cpu.step();
        gpu.step(&ctx).unwrap();
    }
    let (slots, out, gw) = (gpu.wall_slots(&ctx), gpu.wall_out(&ctx), gpu.walls(&ctx));
    for (w, (g, c)) in gw.iter().zip(&cpu.walls).enumerate() {
        // `wall_out` is dense (index = slot s · n_walls + w); the wall's slots in sphere order.
        let mine: Vec<usize> = slots.iter().map(|&k| k as usize).filter(|k| k % nw == w).collect();
        assert!(
            mine.len() > 256,
            "wall {w}: {} candidates, the tree needs > 256",
            mine.len()
        );
        let (f, t) = wall_reduce(mine.len(), |r| (out[mine[r]].force, out[mine[r]].torque_j));
        println!(
            "wall {w}: {} candidates; GPU {:?}, twin {:?}, CPU {:?}",
            mine.len(),
            g.force,
            f,
            c.force
        );
        assert_eq!(f.map(f32::to_bits), g.force.map(f32::to_bits), "wall {w} force");
        assert_eq!(t.map(f32::to_bits), g.torque.map(f32::to_bits), "wall {w} torque");
        let load = c.force[2].abs();
        assert!(load > 1.0, "wall {w} carries {load} N");
        for k in 0..3 {
            let d = (g.force[k] - c.force[k]).abs();
            assert!(
                d <= 1e-5 * load,
                "wall {w} force {k}: GPU {:?} CPU {:?}",
                g.force,
                c.force
            );
        }
    }
}
