//! MC-stress (paper eq 9–10, Appendix) through the CPU stepper: the correction of a sphere
//! squeezed between two plates against eq 9–10 evaluated by hand, each option of
//! docs/spheres.md (prefactor, self-exclusion, walls, friction cap), two-sphere collisions equal
//! to classical DEM (as the paper states), and the paper's three-particle case (§3.4, Fig. 7):
//! MC-stress reaches a lower maximum overlap of the central sphere than classical Hertz.

use softdem::laws::hertz::hertz_elastic_force;
use softdem::laws::mc_stress::{MC_CAP_HERTZ, MC_EXCLUDE_WALLS, MC_INCLUDE_SELF, MC_PRESSURE_EQ10};
use softdem::spheres::contact::pair_force;
use softdem::spheres::cpu_stepper::CpuSpheres;
use softdem::spheres::pair_law::{LawTable, SphereMaterial};
use softdem::spheres::{ContactGeometry, ContactHistory, PlaneWall, SphereParams, SphereState};

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
    let m = SphereMaterial::HYDROGEL;
    let states: Vec<SphereState> = xs
        .iter()
        .zip(vs)
        .map(|(&x, &v)| {
            let mut s = SphereState::solid([x, 0.0, 0.0], 0.01, m.density, 0);
            s.vel = [v, 0.0, 0.0];
            s
        })
        .collect();
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
