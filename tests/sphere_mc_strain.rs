//! MC-strain (Brodu et al., the paper's eq 7–8) on the CPU stepper: a sphere squeezed between two
//! plates (each wall contact displaced by the other by the Boussinesq value of eq 7, the wall
//! force the Hertz force of the summed overlap, eq 8), two spheres = classical DEM bit for bit,
//! and three and five aligned hydrogel spheres (§3.4): the central overlap peaks HIGHER than
//! classical DEM, as the paper states (Figs 7, 9).

mod sphere_cases;
use softdem::laws::mc_strain::MC_STRAIN;
use softdem::spheres::cpu_stepper::CpuSpheres;
use softdem::spheres::pair_law::{LawTable, SphereMaterial};
use softdem::spheres::{PlaneWall, SphereParams, SphereState};
use sphere_cases::hydrogel_line;

fn params() -> SphereParams {
    SphereParams {
        dt: 1e-5,
        skin: 1e-3,
        ..Default::default()
    }
}

#[test]
fn sphere_between_plates_follows_eq_7_and_8() {
    let m = SphereMaterial::RUBBER;
    let wall_m = SphereMaterial {
        young: f64::INFINITY,
        ..m
    };
    let gamma = 0.55;
    let laws = LawTable::hertz_mindlin(&[m, wall_m]).with_mc_strain(gamma, 0);
    assert!(laws.get(0, 1).mc.options & MC_STRAIN != 0);
    let (r, d) = (0.01f64, 1e-3f64);
    let s = SphereState::solid([0.0, 0.0, r - d], r, m.density, 0);
    let walls = vec![
        PlaneWall::new([0.0; 3], [0.0, 0.0, 1.0], [0.0; 3], 1),
        PlaneWall::new([0.0, 0.0, 2.0 * (r - d)], [0.0, 0.0, -1.0], [0.0; 3], 1),
    ];
    let sys = CpuSpheres::new(params(), vec![s], laws.clone(), walls);
    let e_star_w = laws.get(0, 1).hertz.e_star as f64;
    let hertz = |delta: f64| 4.0 / 3.0 * e_star_w * (r * delta).sqrt() * delta;
    let f = hertz(d);
    let nu = m.poisson;
    // Eq 7 for two opposed contacts d_kc = 2 (r − δ/2) apart: γ (1+ν)(3−2ν) f/(2π E d_kc).
    let shift =
        gamma * (1.0 + nu) * (3.0 - 2.0 * nu) * f / (2.0 * std::f64::consts::PI * m.young * 2.0 * (r - d / 2.0));
    let f_mc = hertz(d + shift);
    println!(
        "plates: Hertz {f:.5} N, δ_(k→c) {shift:.4e} m (got {:.4e}), MC-strain force {f_mc:.5} N (got {:.5})",
        sys.wall_strain[0], sys.walls[0].force[2]
    );
    for w in 0..2 {
        assert!((sys.wall_strain[w] as f64 / shift - 1.0).abs() < 1e-4, "wall {w} shift");
        assert!(
            (-(sys.walls[w].force[2] as f64) * [1.0, -1.0][w] / f_mc - 1.0).abs() < 1e-4,
            "wall {w} force"
        );
    }
    assert!(f_mc > f);
}

/// Spheres of hydrogel (r = 1 cm) on the x axis; the largest geometric overlap of sphere `watch`
/// with any other, the largest MC-strain overlap δ + Σ δ_{k→c} of its contacts (eq 8; = the
/// geometric one in classical DEM), and the final states.
fn line_collision(laws: LawTable, xs: &[f64], vs: &[f32], watch: usize, steps: usize) -> (f64, f64, Vec<SphereState>) {
    let states = hydrogel_line(xs, vs);
    let mut sys = CpuSpheres::new(params(), states, laws, vec![]);
    let (mut d_max, mut e_max): (f64, f64) = (0.0, 0.0);
    for _ in 0..steps {
        sys.step();
        let c = sys.states[watch].position()[0];
        for (k, s) in sys.states.iter().enumerate() {
            if k != watch {
                d_max = d_max.max(0.02 - (s.position()[0] - c).abs());
            }
        }
        for (k, &(i, j)) in sys.list.pairs().iter().enumerate() {
            if i as usize == watch || j as usize == watch {
                let d = 0.02 - (sys.states[i as usize].position()[0] - sys.states[j as usize].position()[0]).abs();
                if d > 0.0 {
                    let extra = if sys.strain {
                        (sys.pair_strain[k][0] + sys.pair_strain[k][1]) as f64
                    } else {
                        0.0
                    };
                    e_max = e_max.max(d + extra);
                }
            }
        }
    }
    (d_max, e_max, sys.states)
}

#[test]
fn two_spheres_are_classical_and_aligned_chains_overlap_more() {
    let m = SphereMaterial::HYDROGEL;
    let classical = LawTable::hertz_mindlin(&[m]);
    let strain = |g: f64| LawTable::hertz_mindlin(&[m]).with_mc_strain(g, 0);
    // Two spheres: a grain with one contact has no other contact to displace it.
    let (xs, vs) = ([-0.0101, 0.0101], [10.0, -10.0]);
    let (d_c, _, s_c) = line_collision(classical.clone(), &xs, &vs, 0, 3000);
    let (d_m, e_m, s_m) = line_collision(strain(1.12), &xs, &vs, 0, 3000);
    assert_eq!(d_c, d_m);
    assert_eq!(d_m, e_m);
    assert_eq!(
        bytemuck::cast_slice::<_, u32>(&s_c),
        bytemuck::cast_slice::<_, u32>(&s_m)
    );
    // §3.4, Fig. 5a/7: three aligned, the outer ones at 10 m/s towards the resting centre.
    let (xs, vs) = ([-0.0201, 0.0, 0.0201], [10.0, 0.0, -10.0]);
    // The paper's MC-strain overlap is the corrected one, δ + Σ δ_{k→c} ("a correction term of
    // the overlap is added", §3.4.1): it peaks higher than classical. The geometric overlap peaks
    // lower (the summed overlap makes the contact stiffer), reported and asserted too.
    let (d3_c, e3_c, _) = line_collision(classical.clone(), &xs, &vs, 1, 3000);
    let (d3_1, e3_1, _) = line_collision(strain(1.0), &xs, &vs, 1, 3000);
    let (d3_112, e3_112, _) = line_collision(strain(1.12), &xs, &vs, 1, 3000);
    println!(
        "3 aligned: max central overlap classical {d3_c:.4e} (eq 8 overlap {e3_c:.4e}); MC-strain γ = 1: \
         geometric {d3_1:.4e}, eq 8 {e3_1:.4e}; γ = 1.12: geometric {d3_112:.4e}, eq 8 {e3_112:.4e}"
    );
    assert_eq!(d3_c, e3_c);
    assert!(
        e3_1 > d3_c && e3_112 > e3_1,
        "MC-strain overlap higher than classical, growing with γ"
    );
    assert!(
        d3_1 < d3_c && d3_112 < d3_1,
        "geometric overlap lower (stiffer contact)"
    );
    // Five aligned: the two outer ones at 10 m/s.
    let (xs, vs) = ([-0.0401, -0.0200, 0.0, 0.0200, 0.0401], [10.0, 0.0, 0.0, 0.0, -10.0]);
    let (d5_c, _, _) = line_collision(classical, &xs, &vs, 2, 4000);
    let (d5_112, e5_112, _) = line_collision(strain(1.12), &xs, &vs, 2, 4000);
    println!("5 aligned: max central overlap classical {d5_c:.4e}, MC-strain γ = 1.12 geometric {d5_112:.4e}, eq 8 {e5_112:.4e}");
    assert!(e5_112 > d5_c && d5_112 < d5_c);
}
