//! GPU twins of the sphere kind against the CPU reference. Needs a wgpu adapter (lavapipe is
//! enough): `gpu_for_tests` panics without one.
//! - `sphere_cell_list.wgsl`: the candidate list and the carried history equal the CPU's exactly.
//! - `sphere_contact.wgsl` `pair_force_batch`: forces, normal force, rolling torque, energy and
//!   new history of random contacts of both laws agree with `contact::pair_force` within
//!   4e-6 relative to the largest component of each vector (a few f32 ulp: the driver may fuse
//!   a product into an FMA and sqrt may differ by 1 ulp).

mod sphere_cases;
use softdem::gpu::context::gpu_for_tests;
use softdem::laws::vec3::norm;
use softdem::spheres::cell_list::{build_neighbor_list, carry_history, fit_grid};
use softdem::spheres::contact::pair_force;
use softdem::spheres::gpu_cell_list::GpuCellList;
use softdem::spheres::gpu_contact::GpuPairForce;
use softdem::spheres::pair_law::{PairLaw, SphereMaterial};
use softdem::spheres::{ContactGeometry, ContactHistory, SphereParams, SphereState};
use sphere_cases::largest_position_gap;

/// Deterministic pseudo-random numbers in [0, 1) (splitmix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn sym(&mut self) -> f32 {
        (2.0 * self.next() - 1.0) as f32
    }
}

fn random_spheres(seed: u64, n: usize, side: f64) -> Vec<SphereState> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let p = [rng.next() * side, rng.next() * side, rng.next() * side];
            SphereState::solid(p, 0.005 + 0.01 * rng.next(), 1000.0, 0)
        })
        .collect()
}

#[test]
fn gpu_cell_list_equals_cpu_and_carries_the_same_history() {
    let ctx = gpu_for_tests();
    let gpu = GpuCellList::new(&ctx).unwrap();
    for (seed, n, side) in [(11u64, 1500usize, 0.2), (12, 3000, 0.3)] {
        let mut s = random_spheres(seed, n, side);
        let mut p = SphereParams {
            skin: 0.002,
            ..Default::default()
        };
        fit_grid(&mut p, &s);
        let cpu = build_neighbor_list(&p, &s);
        let (got, hist) = gpu.build(&ctx, &p, &s, &Default::default(), &[]).unwrap();
        assert_eq!(got, cpu, "seed {seed}: first build");
        assert!(hist.iter().all(|h| *h == ContactHistory::default()));
        // Second build after a move, with tagged history to carry.
        let tagged: Vec<ContactHistory> = cpu
            .pairs()
            .iter()
            .map(|&(i, j)| ContactHistory {
                tangential: [i as f32, j as f32, 0.5],
                rolling: [1.0, 2.0, 3.0],
                ..Default::default()
            })
            .collect();
        let mut rng = Rng(seed + 100);
        for x in &mut s {
            for k in 0..3 {
                x.pos_hi[k] += (0.006 * (rng.next() - 0.5)) as f32;
            }
        }
        fit_grid(&mut p, &s);
        let cpu2 = build_neighbor_list(&p, &s);
        let cpu_hist = carry_history(&cpu, &tagged, &cpu2);
        let (got2, gpu_hist) = gpu.build(&ctx, &p, &s, &cpu, &tagged).unwrap();
        assert_eq!(got2, cpu2, "seed {seed}: rebuild");
        assert_eq!(gpu_hist, cpu_hist, "seed {seed}: carried history");
        assert!(cpu_hist.iter().filter(|h| h.tangential[2] == 0.5).count() > 100);
    }
}

fn close(what: &str, k: usize, a: [f32; 3], b: [f32; 3], tol: f32) {
    close_from(what, k, a, b, [0.0; 3], tol);
}

/// `close` on the scale of the larger of a, b and `from` (what a was computed from).
fn close_from(what: &str, k: usize, a: [f32; 3], b: [f32; 3], from: [f32; 3], tol: f32) {
    let scale = norm(a).max(norm(b)).max(norm(from)).max(1e-30);
    for c in 0..3 {
        assert!(
            (a[c] - b[c]).abs() <= tol * scale,
            "contact {k}: {what}[{c}]: gpu {:?} cpu {:?}",
            a,
            b
        );
    }
}

#[test]
fn gpu_pair_force_batch_matches_the_cpu_laws() {
    let ctx = gpu_for_tests();
    let mut rubber = SphereMaterial::RUBBER;
    rubber.rolling_friction = 0.05;
    let laws = vec![
        PairLaw::hertz_mindlin(&SphereMaterial::HYDROGEL, &SphereMaterial::HYDROGEL),
        PairLaw::hertz_mindlin(&rubber, &rubber),
        PairLaw::linear(2e3, 1e3, 0.8, 0.3),
    ];
    let mut rng = Rng(77);
    let n = 4096;
    let mut geometry = Vec::with_capacity(n);
    let mut law_index = Vec::with_capacity(n);
    let mut history = Vec::with_capacity(n);
    for k in 0..n {
        let nv = [rng.sym(), rng.sym(), rng.sym()];
        let l = norm(nv);
        let r_star = 0.002 + 0.01 * rng.next() as f32;
        geometry.push(ContactGeometry {
            normal: [nv[0] / l, nv[1] / l, nv[2] / l],
            // Some contacts open (δ ≤ 0), most closed.
            delta: (rng.next() as f32 - 0.1) * 0.05 * r_star,
            v_rel: [rng.sym(), rng.sym(), rng.sym()],
            r_star,
            w_rel: [50.0 * rng.sym(), 50.0 * rng.sym(), 50.0 * rng.sym()],
            m_star: 1e-3 * (0.1 + rng.next() as f32),
        });
        law_index.push((k % 3) as u32);
        // Histories from zero to beyond the Coulomb cap (sliding).
        let s = if k % 4 == 0 {
            0.0
        } else {
            10f32.powf(rng.sym() * 2.0 - 1.0)
        };
        history.push(ContactHistory {
            tangential: [s * rng.sym(), s * rng.sym(), s * rng.sym()],
            rolling: [1e-3 * s * rng.sym(), 1e-3 * s * rng.sym(), 1e-3 * s * rng.sym()],
            ..Default::default()
        });
    }
    let dt = 1e-5;
    let gpu = GpuPairForce::new(&ctx).unwrap();
    let (forces, new_history) = gpu.run(&ctx, dt, &laws, &geometry, &law_index, &history).unwrap();
    let (mut sliding, mut open) = (0, 0);
    for k in 0..n {
        let (f, h) = pair_force(&laws[law_index[k] as usize], &geometry[k], dt, &history[k], 0.0);
        let g = forces[k];
        // Lavapipe holds 4e-6; an NVIDIA H200 contracts products into fused multiply-adds
        // (`softdem info`: "contracted … plain yes"), so forces and torques compare at 2e-5 (it
        // passes there; its largest gap was not printed).
        let tol = 2e-5;
        assert!(
            (g.f_n - f.f_n).abs() <= tol * f.f_n.abs().max(1e-30),
            "contact {k}: f_n {} vs {}",
            g.f_n,
            f.f_n
        );
        assert!(
            (g.energy - f.energy).abs() <= tol * f.energy.abs().max(1e-30),
            "contact {k}: energy"
        );
        close("force", k, g.force, f.force, tol);
        close("rolling torque", k, g.rolling_torque, f.rolling_torque, tol);
        // A new history is the old one rotated plus the increment (then capped): its rounding is
        // relative to those terms, so the scale includes the old history, and the fused
        // multiply-adds of an NVIDIA device move it further than the force: an H200 gave 4.3e-5
        // of the new history's norm (contact 388; lavapipe: within 4e-6), hence 1e-4.
        let old_t = [norm(history[k].tangential), 0.0, 0.0];
        let old_r = [norm(history[k].rolling), 0.0, 0.0];
        let tol_h = 1e-4;
        close_from(
            "tangential history",
            k,
            new_history[k].tangential,
            h.tangential,
            old_t,
            tol_h,
        );
        close_from("rolling history", k, new_history[k].rolling, h.rolling, old_r, tol_h);
        if geometry[k].delta <= 0.0 {
            open += 1;
        } else {
            let law = &laws[law_index[k] as usize];
            let mu = if law.kind == 0 { law.mindlin.mu } else { law.linear.mu };
            let n_vec = geometry[k].normal;
            let t = [0, 1, 2].map(|c| f.force[c] - n_vec[c] * f.f_n);
            if f.f_n > 0.0 && (norm(t) - mu * f.f_n).abs() < 1e-4 * mu * f.f_n {
                sliding += 1;
            }
        }
    }
    println!("{n} contacts, {open} open, {sliding} at the Coulomb cap");
    assert!(
        open > 100 && sliding > 100,
        "the batch covers open and sliding contacts"
    );
}

/// 27 rubber spheres (3 × 3 × 3, some overlapping, random velocities) dropped on a floor, with
/// a side wall moving in: the state of both steppers after `steps` steps.
fn drop_case() -> (
    SphereParams,
    Vec<SphereState>,
    softdem::spheres::pair_law::LawTable,
    Vec<softdem::spheres::PlaneWall>,
) {
    use softdem::spheres::pair_law::LawTable;
    use softdem::spheres::PlaneWall;
    let mut m = SphereMaterial::RUBBER;
    m.rolling_friction = 0.02;
    let wall = SphereMaterial {
        young: f64::INFINITY,
        ..m
    };
    let mut rng = Rng(3);
    let mut states = Vec::new();
    for k in 0..27 {
        let (i, j, l) = (k % 3, (k / 3) % 3, k / 9);
        let p = [i as f64 * 0.0195, j as f64 * 0.0195, 0.0102 + l as f64 * 0.0199];
        let mut s = SphereState::solid(p, 0.0095 + 0.001 * rng.next(), m.density, 0);
        s.vel = [0.1 * rng.sym(), 0.1 * rng.sym(), 0.1 * rng.sym()];
        s.omega = [5.0 * rng.sym(), 5.0 * rng.sym(), 5.0 * rng.sym()];
        states.push(s);
    }
    let walls = vec![
        PlaneWall::new([0.0; 3], [0.0, 0.0, 1.0], [0.0; 3], 1),
        PlaneWall::new([-0.0105, 0.0, 0.0], [1.0, 0.0, 0.0], [0.05, 0.0, 0.0], 1),
    ];
    let p = SphereParams {
        gravity: [0.0, 0.0, -9.81],
        dt: 2e-6,
        skin: 5e-4,
        local_damping: 0.1,
        global_damping: 1.0,
        ..Default::default()
    };
    (p, states, LawTable::hertz_mindlin(&[m, wall]), walls)
}

#[test]
fn gpu_stepper_follows_the_cpu_stepper_and_reruns_bit_identically() {
    use softdem::spheres::cpu_stepper::CpuSpheres;
    use softdem::spheres::gpu_stepper::GpuSpheres;
    let ctx = gpu_for_tests();
    let (p, states, laws, walls) = drop_case();
    let steps = 600;
    let mut cpu = CpuSpheres::new(p, states.clone(), laws.clone(), walls.clone());
    let mut gpu = GpuSpheres::new(&ctx, p, &states, &laws, &walls).unwrap();
    for _ in 0..steps {
        cpu.step();
        gpu.step(&ctx).unwrap();
    }
    let g = gpu.states(&ctx);
    let r_min = 0.0095f64;
    let mut worst_x: f64 = 0.0;
    let mut worst_v: f64 = 0.0;
    let v_scale = cpu.states.iter().map(|s| norm(s.vel) as f64).fold(0.0, f64::max);
    for (a, b) in cpu.states.iter().zip(&g) {
        let (pa, pb) = (a.position(), b.position());
        for k in 0..3 {
            worst_x = worst_x.max((pa[k] - pb[k]).abs());
            worst_v = worst_v.max((a.vel[k] - b.vel[k]).abs() as f64);
        }
    }
    let contacts = cpu.pair_out.iter().filter(|o| o.f_n > 0.0).count();
    let wall_contacts = cpu.wall_out.iter().filter(|o| o.f_n > 0.0).count();
    println!(
        "{steps} steps, {contacts} sphere contacts + {wall_contacts} wall contacts, rebuilds cpu {} gpu {}: \
         max |Δx| = {worst_x:.2e} m ({:.2e} r), max |Δv| = {worst_v:.2e} m/s (v_max {v_scale:.2e})",
        cpu.rebuilds,
        gpu.rebuilds,
        worst_x / r_min
    );
    assert!(contacts > 10 && wall_contacts > 5, "the case has contacts");
    // Reported, not asserted: 27 spheres with 2 walls and ~2 candidate pairs per sphere.
    println!(
        "GPU memory: {:.0} B per sphere with {:.1} candidate pairs per sphere",
        gpu.bytes_per_sphere(),
        gpu.pair_count() as f64 / 27.0
    );
    assert!(gpu.rebuilds > 1, "the GPU list was rebuilt during the run");
    // Stated tolerance: positions within 1e-7 r, velocities within 1e-4 of the largest speed
    // (seen on lavapipe: 2e-9 r and 1.2e-7).
    assert!(worst_x < 1e-7 * r_min, "positions differ by {worst_x}");
    assert!(worst_v < 1e-4 * v_scale, "velocities differ by {worst_v}");
    let (wc, wg) = (&cpu.walls, gpu.walls(&ctx));
    for w in 0..2 {
        close("wall force", w, wg[w].force, wc[w].force, 1e-3);
    }

    // Two GPU runs are bit-identical.
    let mut again = GpuSpheres::new(&ctx, p, &states, &laws, &walls).unwrap();
    for _ in 0..steps {
        again.step(&ctx).unwrap();
    }
    let h = again.states(&ctx);
    assert_eq!(bytemuck::cast_slice::<_, u32>(&g), bytemuck::cast_slice::<_, u32>(&h));
    assert_eq!(gpu.history(&ctx), again.history(&ctx));

    // The packed history pool (tangential 3 f32 per pair, rolling in its own array since this
    // case has μ_r = 0.02) carries the same histories as the CPU's records: same pairs, within
    // 1e-3 of the largest component (seen: a few ulp), rolling torques present.
    assert_eq!(gpu.list(&ctx).partner, cpu.list.partner, "same candidate list");
    let gh = gpu.history(&ctx);
    let scale =
        |f: &dyn Fn(&ContactHistory) -> [f32; 3]| cpu.history.iter().flat_map(f).map(f32::abs).fold(0.0, f32::max);
    let (t_scale, r_scale) = (scale(&|c| c.tangential), scale(&|c| c.rolling));
    assert!(
        t_scale > 0.0 && r_scale > 0.0,
        "tangential and rolling histories in use"
    );
    for (k, (a, b)) in cpu.history.iter().zip(&gh).enumerate() {
        for c in 0..3 {
            let (dt, dr) = (
                (a.tangential[c] - b.tangential[c]).abs(),
                (a.rolling[c] - b.rolling[c]).abs(),
            );
            assert!(
                dt <= 1e-3 * t_scale && dr <= 1e-3 * r_scale,
                "pair {k}: {a:?} cpu, {b:?} gpu"
            );
        }
    }
}

/// GPU memory per sphere with contact history on a dense polydisperse packing in random order
/// (`bench_scene::random_dense`, ≈ 5 candidate pairs per sphere at this size, 5.8 at 10⁵): the
/// issue's ≤ 512 B/sphere. Per candidate pair 64 B (partner 4, tangential history 12, result 44,
/// j-side incident 4; before the packing 92 B: 656 B/sphere at 10⁵).
#[test]
fn gpu_memory_per_sphere_of_a_dense_random_packing_is_at_most_512_bytes() {
    use softdem::spheres::bench_scene::random_dense;
    use softdem::spheres::gpu_stepper::GpuSpheres;
    let ctx = gpu_for_tests();
    let (p, states, laws, walls) = random_dense(4000);
    let n = states.len();
    let gpu = GpuSpheres::new(&ctx, p, &states, &laws, &walls).unwrap();
    let pairs = gpu.pair_count() as f64 / n as f64;
    let bytes = gpu.bytes_per_sphere();
    println!("random dense, {n} spheres: {pairs:.2} candidate pairs and {bytes:.1} B per sphere");
    assert!(pairs > 4.5, "a dense packing ({pairs} candidate pairs per sphere)");
    assert!(bytes <= 512.0, "{bytes} B per sphere");
    // Fixed per sphere: state 64, force 32, reference position 12, pair start 4, incident
    // start 4, wall index start 4, and the device build's own buffers (cell starts and cursors
    // with an eighth of headroom, cells' spheres: ~13 B here); then 64 B per
    // candidate pair (no rolling resistance here) plus the floor's and lid's candidate records
    // (84 B each, ~2 B per pair here).
    let per_pair = (bytes - 133.0) / pairs;
    assert!(per_pair < 70.0, "{per_pair} B per candidate pair");
}

/// The drop case run `steps` steps with `laws` on the CPU and the GPU, and with the classical
/// laws on the CPU (to show that the multi-contact law changed the run).
fn multi_contact_runs(
    ctx: &softdem::gpu::context::GpuContext,
    laws: softdem::spheres::pair_law::LawTable,
    steps: usize,
) -> (
    softdem::spheres::cpu_stepper::CpuSpheres,
    softdem::spheres::gpu_stepper::GpuSpheres,
    softdem::spheres::cpu_stepper::CpuSpheres,
) {
    use softdem::spheres::cpu_stepper::CpuSpheres;
    use softdem::spheres::gpu_stepper::GpuSpheres;
    let (p, states, classical_laws, walls) = drop_case();
    let mut cpu = CpuSpheres::new(p, states.clone(), laws.clone(), walls.clone());
    let mut gpu = GpuSpheres::new(ctx, p, &states, &laws, &walls).unwrap();
    let mut classical = CpuSpheres::new(p, states, classical_laws, walls);
    for _ in 0..steps {
        cpu.step();
        gpu.step(ctx).unwrap();
        classical.step();
    }
    (cpu, gpu, classical)
}

/// MC-stress's two passes on the GPU: the same 27-sphere case with β = 1.71 (walls counted,
/// self excluded) against the CPU stepper, with the particle stress traces compared too.
#[test]
fn gpu_mc_stress_passes_follow_the_cpu() {
    let ctx = gpu_for_tests();
    let steps = 400;
    let (cpu, gpu, classical) = multi_contact_runs(&ctx, drop_case().2.with_mc_stress(1.71, 0), steps);
    let g = gpu.states(&ctx);
    let r_min = 0.0095f64;
    let worst_x = largest_position_gap(&cpu.states, &g);
    let tr_gpu = gpu.stress_trace(&ctx);
    let tr_scale = cpu.stress_trace.iter().map(|t| t.abs()).fold(0.0, f32::max);
    let worst_tr = cpu
        .stress_trace
        .iter()
        .zip(&tr_gpu)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    // The correction changed the run (else this test would not test the passes).
    let moved = cpu
        .states
        .iter()
        .zip(&classical.states)
        .map(|(a, b)| (a.position()[2] - b.position()[2]).abs())
        .fold(0.0, f64::max);
    println!(
        "MC-stress, {steps} steps: max |Δx| = {:.2e} r, max |Δ tr σ| = {worst_tr:.2e} of {tr_scale:.2e} Pa, \
         MC vs classical differ by {:.2e} r",
        worst_x / r_min,
        moved / r_min
    );
    assert!(
        tr_scale > 0.0 && moved > 1e-5 * r_min,
        "MC-stress is active in this case"
    );
    assert!(worst_x < 1e-7 * r_min, "positions differ by {worst_x}");
    assert!(worst_tr <= 1e-4 * tr_scale, "stress traces differ by {worst_tr}");
}

/// MC-strain's pass (eq 7) on the GPU: the same 27-sphere case with γ = 1.12 (walls counted)
/// against the CPU stepper, the per-contact displacement sums Σ δ_{k→c} compared too.
#[test]
fn gpu_mc_strain_pass_follows_the_cpu() {
    let ctx = gpu_for_tests();
    let steps = 400;
    let (cpu, gpu, classical) = multi_contact_runs(&ctx, drop_case().2.with_mc_strain(1.12, 0), steps);
    let g = gpu.states(&ctx);
    let r_min = 0.0095f64;
    let worst_x = largest_position_gap(&cpu.states, &g);
    let s_gpu = gpu.pair_strain(&ctx);
    let s_cpu: Vec<f32> = cpu.pair_strain.iter().flatten().copied().collect();
    let s_scale = s_cpu.iter().map(|t| t.abs()).fold(0.0, f32::max);
    let worst_s = s_cpu.iter().zip(&s_gpu).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
    let moved = cpu
        .states
        .iter()
        .zip(&classical.states)
        .map(|(a, b)| (a.position()[2] - b.position()[2]).abs())
        .fold(0.0, f64::max);
    println!(
        "MC-strain, {steps} steps: max |Δx| = {:.2e} r, max |Δ Σδ| = {worst_s:.2e} of {s_scale:.2e} m, \
         MC-strain vs classical differ by {:.2e} r",
        worst_x / r_min,
        moved / r_min
    );
    assert!(
        s_scale > 0.0 && moved > 1e-5 * r_min,
        "MC-strain is active in this case"
    );
    // Stated tolerance: positions within 1e-7 r, displacement sums within 1e-4 of the largest.
    assert!(worst_x < 1e-7 * r_min, "positions differ by {worst_x}");
    assert!(worst_s <= 1e-4 * s_scale, "strain sums differ by {worst_s}");
}

/// Double-f32 drift on the GPU (TwoSum behind `sphere_opaque`): increments of 1e-8 of the
/// coordinate, which plain f32 drops, accumulate bit for bit as on the CPU.
#[test]
fn gpu_double_f32_drift_keeps_sub_ulp_increments() {
    use softdem::spheres::cpu_stepper::CpuSpheres;
    use softdem::spheres::gpu_stepper::GpuSpheres;
    use softdem::spheres::pair_law::LawTable;
    let ctx = gpu_for_tests();
    let (dt, x0) = (1e-5f32, 0.1f64);
    let v = (1e-8 * x0 / dt as f64) as f32;
    let mut s = SphereState::solid([x0, -x0, x0], 0.01, 1000.0, 0);
    s.vel = [v, -v, 0.5 * v];
    let p = SphereParams {
        dt,
        skin: 1e-3,
        ..Default::default()
    };
    let laws = LawTable::hertz_mindlin(&[SphereMaterial::RUBBER]);
    let mut cpu = CpuSpheres::new(p, vec![s], laws.clone(), vec![]);
    let mut gpu = GpuSpheres::new(&ctx, p, &[s], &laws, &[]).unwrap();
    let n = 1500;
    for _ in 0..n {
        cpu.step();
        gpu.step(&ctx).unwrap();
    }
    let g = gpu.states(&ctx)[0];
    let travelled = g.position()[0] - x0;
    let expect = n as f64 * v as f64 * dt as f64;
    println!("GPU drift {travelled:.6e} m, expected {expect:.6e} m");
    assert!((travelled / expect - 1.0).abs() < 1e-3, "{travelled} vs {expect}");
    assert_eq!(
        bytemuck::bytes_of(&g),
        bytemuck::bytes_of(&cpu.states[0]),
        "GPU and CPU drift differ"
    );
}

/// Device-side list sizing (`spheres::gpu_rebuild`: a build whose pair total exceeds the
/// capacity halts, the stepper grows its pair buffers and redoes it): 27 rubber spheres
/// 2 mm apart (no candidate pair at the start) thrown towards their centre at 1 m/s: the pair
/// count rises from 0 through several builds (to ~50 at 4–5 ms), then the spheres rebound.
/// The buffers grow, and the list and the device-built j-side incident lists (every 100 steps),
/// the final histories and positions equal the CPU's.
#[test]
fn gpu_pair_buffers_grow_as_a_compressed_packing_gains_pairs() {
    use softdem::spheres::cpu_stepper::CpuSpheres;
    use softdem::spheres::gpu_stepper::{j_incident, GpuSpheres};
    use softdem::spheres::pair_law::LawTable;
    use softdem::spheres::PlaneWall;
    let ctx = gpu_for_tests();
    let m = SphereMaterial::RUBBER;
    let mut rng = Rng(11);
    let mut states = Vec::new();
    for k in 0..27 {
        let c = [k % 3, (k / 3) % 3, k / 9].map(|q| (q as f64 - 1.0) * 0.022);
        let mut s = SphereState::solid(c, 0.0095 + 0.001 * rng.next(), m.density, 0);
        let d = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt().max(1e-9);
        s.vel = c.map(|x| (-x / d) as f32);
        states.push(s);
    }
    let walls: Vec<PlaneWall> = Vec::new();
    let p = SphereParams {
        dt: 1e-5,
        skin: 5e-4,
        local_damping: 0.1,
        ..Default::default()
    };
    let laws = LawTable::hertz_mindlin(&[m]);
    let mut cpu = CpuSpheres::new(p, states.clone(), laws.clone(), walls.clone());
    let mut gpu = GpuSpheres::new(&ctx, p, &states, &laws, &walls).unwrap();
    let first = (gpu.pair_count(), gpu.pair_capacity());
    // Every 100 steps: the device-built list and incident lists equal the CPU's.
    let mut most = (0, 0);
    for block in 1..=12 {
        for _ in 0..100 {
            cpu.step();
            gpu.step(&ctx).unwrap();
        }
        assert_eq!(gpu.list(&ctx), cpu.list, "the device-built list equals the CPU's");
        assert_eq!(
            gpu.incident(&ctx),
            j_incident(&cpu.list),
            "the device-built incident lists"
        );
        assert!(gpu.pair_capacity() >= gpu.pair_count());
        if gpu.pair_count() > most.0 {
            most = (gpu.pair_count(), 100 * block);
        }
    }
    println!(
        "pairs {} at the start, {} at most (step {}), {} at the end; capacity {} → {}, {} growths, {} rebuilds",
        first.0,
        most.0,
        most.1,
        gpu.pair_count(),
        first.1,
        gpu.pair_capacity(),
        gpu.growths,
        gpu.rebuilds
    );
    assert_eq!(first.0, 0, "no candidate pair at the start");
    assert!(most.0 > 20, "the packing gained pairs");
    assert!(gpu.growths >= 1 && gpu.pair_capacity() >= most.0, "the buffers grew");
    let t_scale = cpu
        .history
        .iter()
        .flat_map(|c| c.tangential)
        .map(f32::abs)
        .fold(0.0, f32::max);
    for (a, b) in cpu.history.iter().zip(&gpu.history(&ctx)) {
        for c in 0..3 {
            assert!(
                (a.tangential[c] - b.tangential[c]).abs() <= 1e-3 * t_scale,
                "{a:?} cpu, {b:?} gpu"
            );
        }
    }
    // Stated tolerance: positions within 1e-6 r, i.e. ~1e-6 of the 12 mm each sphere travels
    // through a 27-body collision (f32 rounding of the two backends, sqrt to 1 ulp, amplified by
    // the collision; seen 2e-7 r; the stepper test's gentler case holds 1e-7 r).
    let worst_x = largest_position_gap(&cpu.states, &gpu.states(&ctx));
    println!("max |Δx| = {:.2e} r", worst_x / 0.0095);
    assert!(worst_x < 1e-6 * 0.0095, "positions differ by {worst_x}");
}
