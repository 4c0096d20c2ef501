//! MC-stress (paper eq 9–10, Appendix) through the CPU stepper: the correction of a sphere
//! squeezed between two plates against eq 9–10 evaluated by hand, each option of
//! docs/spheres.md (prefactor, self-exclusion, walls, friction cap), two-sphere collisions equal
//! to classical DEM (as the paper states), and the paper's three-particle case (§3.4, Fig. 7):
//! MC-stress reaches a lower maximum overlap of the central sphere than classical Hertz.

mod sphere_cases;
use softdem::laws::hertz::hertz_elastic_force;
use softdem::laws::mc_stress::{
    MC_BRANCH_DIAMETER, MC_CAP_HERTZ, MC_EQ11, MC_EXCLUDE_WALLS, MC_INCLUDE_SELF, MC_PRESSURE_EQ10, MC_PRESSURE_EQ11,
};
use softdem::spheres::contact::pair_force;
use softdem::spheres::cpu_stepper::CpuSpheres;
use softdem::spheres::pair_law::{LawTable, SphereMaterial};
use softdem::spheres::{ContactGeometry, ContactHistory, PlaneWall, SphereParams, SphereState};
use sphere_cases::hydrogel_line;

fn params() -> SphereParams {
    SphereParams {
        dt: 1e-6,
        skin: 1e-3,
        ..Default::default()
    }
}

fn rubber_and_wall() -> [SphereMaterial; 2] {
    let m = SphereMaterial::RUBBER;
    [
        m,
        SphereMaterial {
            young: f64::INFINITY,
            ..m
        },
    ]
}

/// A rubber sphere (r = 1 cm) at rest between plates z = ±(r − δ): the force on the lower plate.
fn squeezed(laws: LawTable, delta: f64) -> f64 {
    let r = 0.01;
    let s = SphereState::solid([0.0; 3], r, 2000.0, 0);
    let walls = vec![
        PlaneWall::new([0.0, 0.0, -(r - delta)], [0.0, 0.0, 1.0], [0.0; 3], 1),
        PlaneWall::new([0.0, 0.0, r - delta], [0.0, 0.0, -1.0], [0.0; 3], 1),
    ];
    let sys = CpuSpheres::new(params(), vec![s], laws, walls);
    -sys.walls[0].force[2] as f64
}

#[test]
fn squeezed_sphere_follows_eq_9_10_with_each_option() {
    let mats = rubber_and_wall();
    let (r, delta, beta) = (0.01f64, 1e-3f64, 1.71f64);
    let classical = LawTable::hertz_mindlin(&mats);
    let law = *classical.get(0, 1);
    let f_h = hertz_elastic_force(&law.hertz, r as f32, delta as f32) as f64;
    assert!((squeezed(classical.clone(), delta) / f_h - 1.0).abs() < 1e-6);

    // By hand: V tr σ = −2 (r − δ/2) f_H (two plates); the plate contact itself left out leaves
    // one; the plate has no stress. f = f_H + β ν π r δ k (r − δ/2) f_H / V.
    let v = 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
    let nu = 0.46;
    let one = (r - delta / 2.0) * f_h / v;
    let by_hand = |k: f64, contacts: f64| f_h + beta * nu * std::f64::consts::PI * r * delta * k * contacts * one;
    let cases = [
        ("Appendix 1/6, self excluded", 0, 1.0 / 6.0, 1.0),
        ("eq 10 1/3, self excluded", 0, 1.0 / 3.0, 1.0),
        ("Appendix 1/6, self included", MC_INCLUDE_SELF, 1.0 / 6.0, 2.0),
    ];
    for (what, options, k, contacts) in cases {
        let mut t = classical.clone().with_mc_stress(beta, options);
        if k > 0.2 {
            t.laws.iter_mut().for_each(|l| l.mc.pressure_factor = MC_PRESSURE_EQ10);
        }
        let got = squeezed(t, delta);
        let expect = by_hand(k, contacts);
        println!("{what}: {got:.6} N (Hertz {f_h:.6} N, by hand {expect:.6} N)");
        assert!((got / expect - 1.0).abs() < 1e-5, "{what}: {got} vs {expect}");
        assert!(got > f_h, "{what}: the correction must stiffen");
    }
    // Walls excluded: no plate contact enters the stress or is corrected, the force is Hertz.
    let t = classical.clone().with_mc_stress(beta, MC_EXCLUDE_WALLS);
    assert!((squeezed(t, delta) / f_h - 1.0).abs() < 1e-6);
}

#[test]
fn friction_is_capped_by_the_corrected_normal_force_unless_asked_otherwise() {
    let mats = rubber_and_wall();
    let g = ContactGeometry {
        normal: [0.0, 0.0, 1.0],
        delta: 1e-3,
        v_rel: [1.0, 0.0, 0.0],
        r_star: 0.005,
        w_rel: [0.0; 3],
        m_star: 1e-3,
    };
    // A history far beyond the cap: the contact slides.
    let h = ContactHistory {
        tangential: [-100.0, 0.0, 0.0],
        ..Default::default()
    };
    let f_mc = 0.5;
    for (options, uses_corrected) in [(0, true), (MC_CAP_HERTZ, false)] {
        let law = LawTable::hertz_mindlin(&mats).with_mc_stress(1.0, options).laws[0];
        let (f, _) = pair_force(&law, &g, 1e-6, &h, f_mc);
        let (classical, _) = pair_force(&law, &g, 1e-6, &h, 0.0);
        assert!((f.f_n - classical.f_n - f_mc).abs() < 1e-6);
        let cap = law.mindlin.mu * if uses_corrected { f.f_n } else { classical.f_n };
        assert!(
            (f.force[0].abs() / cap - 1.0).abs() < 1e-5,
            "options {options}: |f_t| {} vs {cap}",
            f.force[0]
        );
    }
}

/// Spheres of Table 1's hydrogel (r = 1 cm) on the x axis at `xs`, velocities `vs`; returns the
/// largest overlap of sphere `watch`'s contacts over the run and the final state.
fn line_collision(laws: LawTable, xs: &[f64], vs: &[f32], watch: usize, steps: usize) -> (f64, Vec<SphereState>) {
    let states = hydrogel_line(xs, vs);
    let mut sys = CpuSpheres::new(params(), states, laws, vec![]);
    let mut d_max: f64 = 0.0;
    for _ in 0..steps {
        sys.step();
        let c = sys.states[watch].position()[0];
        for (k, s) in sys.states.iter().enumerate() {
            if k != watch {
                d_max = d_max.max(0.02 - (s.position()[0] - c).abs());
            }
        }
    }
    (d_max, sys.states)
}

#[test]
fn two_sphere_collision_equals_classical_dem_and_three_spheres_overlap_less() {
    let m = SphereMaterial::HYDROGEL;
    let classical = LawTable::hertz_mindlin(&[m]);
    let mc = classical.clone().with_mc_stress(1.0, 0);
    // Two spheres (10 m/s each, head on): identical to classical DEM, bit for bit, because the
    // contact itself is left out of the stresses that correct it.
    let xs = [-0.0101, 0.0101];
    let vs = [10.0, -10.0];
    let (d_c, s_c) = line_collision(classical.clone(), &xs, &vs, 0, 3000);
    let (d_m, s_m) = line_collision(mc.clone(), &xs, &vs, 0, 3000);
    assert_eq!(d_c, d_m);
    assert_eq!(
        bytemuck::cast_slice::<_, u32>(&s_c),
        bytemuck::cast_slice::<_, u32>(&s_m)
    );
    // Keeping the contact in its own stresses would make it stiffer.
    let (d_self, _) = line_collision(
        classical.clone().with_mc_stress(1.0, MC_INCLUDE_SELF),
        &xs,
        &vs,
        0,
        3000,
    );
    assert!(d_self < d_c);

    // §3.4, Fig. 5a/7: a central sphere at rest hit from both sides at 10 m/s.
    let xs = [-0.0201, 0.0, 0.0201];
    let vs = [10.0, 0.0, -10.0];
    let (d_c, _) = line_collision(classical, &xs, &vs, 1, 3000);
    let (d_m, _) = line_collision(mc, &xs, &vs, 1, 3000);
    let (d_m165, _) = line_collision(LawTable::hertz_mindlin(&[m]).with_mc_stress(1.65, 0), &xs, &vs, 1, 3000);
    println!("3 spheres: max central overlap classical {d_c:.4e}, MC-stress β = 1 {d_m:.4e}, β = 1.65 {d_m165:.4e}");
    assert!(
        d_m < d_c && d_m165 < d_m,
        "MC-stress must reach a lower maximum overlap"
    );
}

/// The paper's 5-particle case (§3.4.3, eq 11, Fig. 10) in this code's convention: a hydrogel
/// sphere (r = 1 cm) at the origin with four at (±2r, 0, 0), (0, ±2r, 0), squeezed by four
/// plane walls from x, y = ±0.03 m towards ±0.025 m (z walls at ±0.01 m only touch, δ = 0, and
/// are left out). Statics of the chain wall–outer–centre–outer–wall along x, with overlaps δ_w
/// (wall) and δ_s (spheres), 2δ_w + 2δ_s = 0.06 − 2a, the pass-1 Hertz forces f_s, f_w and
/// V tr σ terms (r − δ/2) f (self excluded, k = 1/6, walls counted, ν the pair's):
///   F_s = f_s + β ν π (r/2) δ_s k [3 (r − δ_s/2) f_s + (r − δ_w/2) f_w]/V   (centre–outer)
///   F_w = f_w + β ν π r δ_w k (r − δ_s/2) f_s/V                              (outer–wall)
/// and F_s = F_w (equilibrium of an outer sphere). Solved by bisection for δ_w; the wall force
/// of the stepper after settling must equal F_w within 1 % (the tolerance).
#[test]
fn five_particle_compression_follows_eq_11_in_this_convention() {
    let beta = 1.65;
    five_particle_statics(hydrogel_and_wall().with_mc_stress(beta, 0), beta, true);
}

/// The same case in the convention of eq 11 as printed (`pressure = "eq11"`: k = 1/2, contact
/// ij included, branch |l| = d = 2r): the statics above with V tr σ terms d f and every contact
/// in its own stresses,
///   F_s = f_s + β ν π (r/2) δ_s k d [5 f_s + f_w]/V,   F_w = f_w + β ν π r δ_w k d [f_s + f_w]/V.
/// (The central sphere's pressure is eq 11's P_4 = 4 f_s d/V plus the outer sphere's; the
/// paper's eq 11 gives every particle P_4, true of a lattice, not of five spheres.)
#[test]
fn five_particle_compression_follows_the_eq_11_convention() {
    let beta = 1.65;
    let mut laws = hydrogel_and_wall().with_mc_stress(beta, MC_EQ11);
    laws.laws
        .iter_mut()
        .for_each(|l| l.mc.pressure_factor = MC_PRESSURE_EQ11);
    five_particle_statics(laws, beta, false);
}

fn hydrogel_and_wall() -> LawTable {
    let m = SphereMaterial::HYDROGEL;
    LawTable::hertz_mindlin(&[
        m,
        SphereMaterial {
            young: f64::INFINITY,
            ..m
        },
    ])
}

/// Runs the five-particle compression with the MC table `laws` (prefactor β) and, with
/// `classical`, the classical table too, against the chain statics in the table's convention
/// (prefactor k, self included or not, branch r − δ/2 or d).
fn five_particle_statics(laws: LawTable, beta: f64, classical: bool) {
    let m = SphereMaterial::HYDROGEL;
    let r = 0.01f64;
    let v_sphere = 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
    let (ss, sw) = (*laws.get(0, 0), *laws.get(0, 1));
    let k = ss.mc.pressure_factor as f64;
    let own = if ss.mc.options & MC_INCLUDE_SELF != 0 { 1.0 } else { 0.0 };
    let branch = |d: f64| {
        if ss.mc.options & MC_BRANCH_DIAMETER != 0 {
            2.0 * r
        } else {
            r - d / 2.0
        }
    };
    let hertz = |e_star: f32, r_star: f64, d: f64| 4.0 / 3.0 * e_star as f64 * (r_star * d).sqrt() * d;
    // Wall force of the analytic statics at half-width a, for prefactor β_used.
    let analytic = |a: f64, beta_used: f64| -> (f64, f64) {
        let total = 6.0 * r - 2.0 * a;
        let forces = |dw: f64| {
            let ds = 0.5 * total - dw;
            let (fs, fw) = (hertz(ss.hertz.e_star, r / 2.0, ds), hertz(sw.hertz.e_star, r, dw));
            // V tr σ (magnitudes) of the centre (four contacts) and of an outer sphere, without
            // the corrected contact unless it is included.
            let (ls, lw) = (branch(ds) * fs, branch(dw) * fw);
            let sum_s = (3.0 + 2.0 * own) * ls + lw;
            let sum_w = ls + own * lw;
            let big_s = fs + beta_used * ss.mc.nu as f64 * std::f64::consts::PI * (r / 2.0) * ds * k * sum_s / v_sphere;
            let big_w = fw + beta_used * sw.mc.nu as f64 * std::f64::consts::PI * r * dw * k * sum_w / v_sphere;
            (big_s, big_w, fw)
        };
        let (mut lo, mut hi) = (0.0, 0.5 * total);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            let (s, w, _) = forces(mid);
            if w < s {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let (_, w, fw) = forces(0.5 * (lo + hi));
        (w, fw)
    };
    let run = |laws: LawTable, beta_used: f64| {
        let pos = [
            [0.0, 0.0, 0.0],
            [2.0 * r, 0.0, 0.0],
            [-2.0 * r, 0.0, 0.0],
            [0.0, 2.0 * r, 0.0],
            [0.0, -2.0 * r, 0.0],
        ];
        let states: Vec<SphereState> = pos.iter().map(|&p| SphereState::solid(p, r, m.density, 0)).collect();
        let a0 = 0.03;
        let walls = vec![
            PlaneWall::new([a0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0; 3], 1),
            PlaneWall::new([-a0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0; 3], 1),
            PlaneWall::new([0.0, a0, 0.0], [0.0, -1.0, 0.0], [0.0; 3], 1),
            PlaneWall::new([0.0, -a0, 0.0], [0.0, 1.0, 0.0], [0.0; 3], 1),
        ];
        let p = SphereParams {
            dt: 2e-5,
            skin: 1e-3,
            global_damping: 100.0,
            ..Default::default()
        };
        let mut sys = CpuSpheres::new(p, states, laws, walls);
        let speed = 0.02f32;
        let mut rows = Vec::new();
        for stage in 1..=5 {
            // Move every wall 1 mm inwards in 0.05 s, then hold for 0.1 s (settled to 1e-5).
            for (w, wall) in sys.walls.iter_mut().enumerate() {
                let s = if w % 2 == 0 { -speed } else { speed };
                wall.velocity = if w < 2 { [s, 0.0, 0.0] } else { [0.0, s, 0.0] };
            }
            for _ in 0..2500 {
                sys.step();
            }
            sys.walls.iter_mut().for_each(|w| w.velocity = [0.0; 3]);
            for _ in 0..5000 {
                sys.step();
            }
            let a = sys.walls[0].point_hi[0] as f64 + sys.walls[0].point_lo[0] as f64;
            let got = sys.walls[0].force[0] as f64;
            let (expect, hertz_only) = analytic(a, beta_used);
            rows.push((stage, a, got, expect, hertz_only));
        }
        rows
    };
    let mut cases = vec![(laws, beta, "MC-stress β = 1.65")];
    if classical {
        cases.insert(0, (hydrogel_and_wall(), 0.0, "classical"));
    }
    for (laws, beta_used, what) in cases {
        for (stage, a, got, expect, f_h) in run(laws, beta_used) {
            println!("{what}: a = {a:.4} m: wall force {got:.5} N, statics {expect:.5} N (Hertz at that δ_w {f_h:.5} N, ratio {:.4})", expect / f_h);
            assert!(
                (got / expect - 1.0).abs() < 0.01,
                "{what}, stage {stage}: {got} vs {expect}"
            );
        }
    }
}
