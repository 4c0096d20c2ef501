//! Walls beyond planes on the CPU stepper, against analytic results: a sphere resting inside a
//! cylinder (Hertz overlap under m g, wall force and torque), a sphere resting in a corner of a
//! box (three walls, each carrying its component of m g), and a servo wall pressing a simple
//! cubic packing until it carries the target stress (settled lid position against the Hertz
//! overlaps of the columns).

use softdem::laws::mixing::effective_young;
use softdem::spheres::cpu_stepper::CpuSpheres;
use softdem::spheres::pair_law::{LawTable, SphereMaterial};
use softdem::spheres::{box_walls, PlaneWall, SphereParams, SphereState};

const G: f64 = 9.81;

fn params(dt: f64, gravity: [f64; 3]) -> SphereParams {
    SphereParams {
        gravity: [gravity[0] as f32, gravity[1] as f32, gravity[2] as f32],
        dt: dt as f32,
        skin: 1e-3,
        global_damping: 20.0,
        ..Default::default()
    }
}

/// Materials 0 (rubber spheres) and 1 (a rigid wall with the same surface properties).
fn table() -> LawTable {
    table_of(SphereMaterial::RUBBER)
}

fn table_of(m: SphereMaterial) -> LawTable {
    LawTable::hertz_mindlin(&[
        m,
        SphereMaterial {
            young: f64::INFINITY,
            ..m
        },
    ])
}

/// Hertz overlap carrying f: δ = (3 f/(4 E* sqrt r_ij))^{2/3} (eq 3, static).
fn hertz_overlap(f: f64, e_star: f64, r_ij: f64) -> f64 {
    (3.0 * f / (4.0 * e_star * r_ij.sqrt())).powf(2.0 / 3.0)
}

#[test]
fn sphere_rests_inside_a_cylinder_with_the_hertz_overlap() {
    let m = SphereMaterial::RUBBER;
    let (r, big_r, z0) = (0.01, 0.05, 0.02);
    // Gravity at 225° in the x–y plane: the sphere rests on the shell at (−R, −R, 0)/√2.
    let gdir = [-std::f64::consts::FRAC_1_SQRT_2, -std::f64::consts::FRAC_1_SQRT_2, 0.0];
    let c = big_r - r - 1e-4;
    let s = SphereState::solid([gdir[0] * c, gdir[1] * c, z0], r, m.density, 0);
    let wall = PlaneWall::cylinder([0.0; 3], [0.0, 0.0, 1.0], big_r, 1);
    let mut sys = CpuSpheres::new(params(2e-5, gdir.map(|g| g * G)), vec![s], table(), vec![wall]);
    for _ in 0..40_000 {
        sys.step();
    }
    let mass = s.mass as f64;
    let p = sys.states[0].position();
    let rho = (p[0] * p[0] + p[1] * p[1]).sqrt();
    let delta = r + rho - big_r;
    let e_star = effective_young(m.young, m.poisson, f64::INFINITY, m.poisson);
    let want = hertz_overlap(mass * G, e_star, r);
    println!(
        "cylinder: overlap {delta:.6e} m, Hertz {want:.6e} m; angle {:.6}",
        p[1].atan2(p[0])
    );
    assert!((delta / want - 1.0).abs() < 2e-3, "overlap {delta} vs {want}");
    assert!(
        (p[1].atan2(p[0]) + 0.75 * std::f64::consts::PI).abs() < 1e-4,
        "rests on the line of g"
    );
    assert!((p[2] - z0).abs() < 1e-9, "no axial motion");
    // The sphere pushes the shell along g with m g; torque about the wall point (origin) = c × F
    // with the contact point c = (ρ + r − δ/2) ĝ + z0 ẑ.
    let w = &sys.walls[0];
    let f_want = gdir.map(|g| g * mass * G);
    for (k, want) in f_want.iter().enumerate() {
        assert!(
            (w.force[k] as f64 - want).abs() < 1e-4 * mass * G,
            "force {:?}",
            w.force
        );
    }
    let arm = rho + r - delta / 2.0;
    let cpt = [gdir[0] * arm, gdir[1] * arm, z0];
    let t_want = [
        cpt[1] * f_want[2] - cpt[2] * f_want[1],
        cpt[2] * f_want[0] - cpt[0] * f_want[2],
        cpt[0] * f_want[1] - cpt[1] * f_want[0],
    ];
    for k in 0..3 {
        assert!(
            (w.torque[k] as f64 - t_want[k]).abs() < 1e-3 * mass * G * big_r,
            "torque {:?} vs {t_want:?}",
            w.torque
        );
    }
}

#[test]
fn sphere_rests_in_a_box_corner_on_three_walls() {
    // Frictionless: with friction a sphere on three walls is statically indeterminate.
    let m = SphereMaterial {
        friction: 0.0,
        ..SphereMaterial::RUBBER
    };
    let r = 0.01;
    let walls = box_walls([0.0; 3], [0.05, 0.06, 0.07], 1);
    assert_eq!(walls.len(), 6);
    let gdir = [-1.0 / 3f64.sqrt(); 3];
    let s = SphereState::solid([0.0102, 0.0103, 0.0101], r, m.density, 0);
    let mut sys = CpuSpheres::new(params(2e-5, gdir.map(|g| g * G)), vec![s], table_of(m), walls);
    for _ in 0..30_000 {
        sys.step();
    }
    let mass = s.mass as f64;
    let comp = mass * G / 3f64.sqrt();
    let e_star = effective_young(m.young, m.poisson, f64::INFINITY, m.poisson);
    let want = hertz_overlap(comp, e_star, r);
    let p = sys.states[0].position();
    for (k, pk) in p.iter().enumerate() {
        let delta = r - pk;
        println!(
            "box wall {}: overlap {delta:.6e} (Hertz {want:.6e}), force {:?}",
            2 * k,
            sys.walls[2 * k].force
        );
        assert!((delta / want - 1.0).abs() < 3e-3, "overlap {k}: {delta} vs {want}");
        // The wall at lo_k carries −comp along e_k; the far walls nothing.
        assert!((sys.walls[2 * k].force[k] as f64 + comp).abs() < 1e-3 * comp);
        assert_eq!(sys.walls[2 * k + 1].force, [0.0; 3]);
    }
}

/// 27 rubber spheres (r = 1 cm) on a simple cubic lattice in a box whose lid (+z) is a servo wall
/// with target stress σ_t over the lid area A = (6r)², no gravity (tests/gpu_sphere_walls.rs
/// builds the same case).
fn servo_case(target: f64) -> (SphereParams, Vec<SphereState>, LawTable, Vec<PlaneWall>) {
    let m = SphereMaterial::RUBBER;
    let r = 0.01;
    let mut states = Vec::new();
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                let c = |n: usize| r + 2.0 * r * n as f64;
                states.push(SphereState::solid([c(i), c(j), c(k)], r, m.density, 0));
            }
        }
    }
    let side = 6.0 * r;
    let mut walls = box_walls([0.0; 3], [side, side, side + 2e-4], 1);
    let area = side * side;
    walls[5] = PlaneWall::servo([0.0, 0.0, side + 2e-4], [0.0, 0.0, -1.0], area, target, 3e-5, 0.02, 1);
    let mut p = params(2e-5, [0.0; 3]);
    p.global_damping = 40.0;
    (p, states, table(), walls)
}

#[test]
fn servo_wall_settles_at_the_target_stress() {
    let m = SphereMaterial::RUBBER;
    let (r, target) = (0.01, 1000.0);
    let (p, states, laws, walls) = servo_case(target);
    let mut sys = CpuSpheres::new(p, states, laws, walls);
    for _ in 0..25_000 {
        sys.step();
    }
    let lid = &sys.walls[5];
    let area = 36.0 * r * r;
    let stress = lid.stress() as f64;
    // Each of the 9 columns carries f = σ_t A/9 through two wall and two sphere contacts.
    let f = target * area / 9.0;
    let e_w = effective_young(m.young, m.poisson, f64::INFINITY, m.poisson);
    let e_s = effective_young(m.young, m.poisson, m.young, m.poisson);
    let squeeze = 2.0 * hertz_overlap(f, e_w, r) + 2.0 * hertz_overlap(f, e_s, r / 2.0);
    let z = lid.point_hi[2] as f64 + lid.point_lo[2] as f64;
    let got = 6.0 * r - z;
    let floor = -sys.walls[4].force[2] as f64 / area;
    println!(
        "servo: lid stress {stress:.3} Pa (target {target}), floor {floor:.3} Pa, lid speed {:.2e} m/s, \
         squeeze {got:.6e} m (Hertz columns {squeeze:.6e} m)",
        lid.velocity[2]
    );
    assert!((stress / target - 1.0).abs() < 2e-3, "lid stress {stress}");
    assert!((floor / target - 1.0).abs() < 2e-3, "floor stress {floor}");
    assert!((got / squeeze - 1.0).abs() < 5e-3, "squeeze {got} vs {squeeze}");
    assert!(lid.velocity[2].abs() < 1e-5, "lid at rest: {:?}", lid.velocity);
    // Twice the target: the servo follows (a second, stiffer equilibrium).
    sys.walls[5].target_stress = 2.0 * target as f32;
    for _ in 0..15_000 {
        sys.step();
    }
    let stress2 = sys.walls[5].stress() as f64;
    println!("servo: after doubling the target, lid stress {stress2:.3} Pa");
    assert!((stress2 / (2.0 * target) - 1.0).abs() < 2e-3, "lid stress {stress2}");
}

/// The wall gather's fixed-order reduction (src/spheres/wall_reduce.rs: lane blocks of
/// K = ⌈m/256⌉ contacts, then a binary tree) against the exact sum in f64 on the 30³ lattice
/// between plates (900 spheres on each plate, K = 4), after three steps. Bound: a sum of
/// K + 8 f32 additions per path errs by at most (K + 8)·2⁻²⁴·Σ|f_i| per component.
#[test]
fn wall_gather_reduction_is_within_f32_rounding_of_the_f64_sum() {
    let (p, states, laws, walls) = softdem::spheres::bench_scene::compressed_lattice(30);
    let mut sys = CpuSpheres::new(p, states, laws, walls);
    for _ in 0..3 {
        sys.step();
    }
    let nw = sys.walls.len();
    for w in 0..nw {
        let ws = &sys.wall_spheres[w];
        assert!(ws.len() > 256, "wall {w}: {} candidates", ws.len());
        let k = ws.len().div_ceil(256);
        let bound = (k + 8) as f64 * f64::from(f32::EPSILON) / 2.0;
        for c in 0..3 {
            let terms = ws.iter().map(|&s| sys.wall_out[s as usize * nw + w].force[c] as f64);
            let exact: f64 = -terms.clone().sum::<f64>();
            let abs: f64 = terms.map(f64::abs).sum();
            let got = sys.walls[w].force[c] as f64;
            println!("wall {w} force {c}: {got:e} (f64 {exact:e}, Σ|f| {abs:e})");
            assert!(
                (got - exact).abs() <= bound * abs,
                "wall {w} force {c}: {got} vs {exact}"
            );
        }
        assert!(sys.walls[w].force[2].abs() > 1.0, "wall {w} carries load");
    }
}

/// Integer-valued terms (sums below 2²⁴) add exactly in any order: the reduction of
/// wall_reduce.rs covers every rank exactly once, for counts below, at and above the 256 lanes.
#[test]
fn wall_reduce_sums_every_rank_once() {
    use softdem::spheres::wall_reduce::wall_reduce;
    for m in [0usize, 1, 5, 255, 256, 257, 1000, 5000] {
        let (f, t) = wall_reduce(m, |r| ([r as f32, 1.0, -2.0], [1.0, (r % 7) as f32, 0.0]));
        let s: f64 = (0..m).map(|r| r as f64).sum();
        let s7: f64 = (0..m).map(|r| (r % 7) as f64).sum();
        assert_eq!(f, [-(s as f32), -(m as f32), 2.0 * m as f32], "m = {m}");
        assert_eq!(t, [m as f32, s7 as f32, 0.0], "m = {m}");
    }
}

/// Force-free candidates (a list built at another time has other ones, as after a resume) leave
/// the reduction's bits unchanged: they are not ranked into the lanes' blocks (`carries`).
#[test]
fn wall_reduce_ignores_force_free_candidates() {
    use softdem::spheres::wall_reduce::wall_reduce;
    let term = |r: usize| {
        let x = (r as f32 * 0.618_034).fract() - 0.5;
        ([x, 1e-3 * x, 3.0 + x], [0.1 * x, -x, 0.0])
    };
    for m in [3usize, 255, 256, 257, 3000] {
        let plain = wall_reduce(m, term);
        // The same terms with a force-free candidate after every third one (−0 among them).
        let padded: Vec<Option<usize>> = (0..m)
            .flat_map(|r| {
                if r.is_multiple_of(3) {
                    vec![Some(r), None]
                } else {
                    vec![Some(r)]
                }
            })
            .collect();
        let zero = |i: usize| {
            if i.is_multiple_of(2) {
                ([0.0f32; 3], [0.0f32; 3])
            } else {
                ([-0.0f32; 3], [0.0f32; 3])
            }
        };
        let with = wall_reduce(padded.len(), |i| padded[i].map_or(zero(i), term));
        let bits = |(f, t): ([f32; 3], [f32; 3])| (f.map(f32::to_bits), t.map(f32::to_bits));
        assert_eq!(bits(plain), bits(with), "m = {m}");
    }
}
