//! The CPU sphere stepper (`softdem::spheres::cpu_stepper`) against analytic results: a head-on
//! collision (Hertz contact duration, restitution, momentum), a sphere resting on a plane
//! (Hertz overlap under mg), a sphere on an incline (stick below atan μ without rotation; the
//! rolling and sliding accelerations with rotation; rolling resistance holds it below atan μ_r),
//! the wall force and torque, and bit-identical reruns.

use softdem::laws::hertz::hertz_contact_duration;
use softdem::laws::mixing::{effective_young, restitution_damping_ratio};
use softdem::spheres::cpu_stepper::CpuSpheres;
use softdem::spheres::pair_law::{LawTable, SphereMaterial};
use softdem::spheres::{PlaneWall, SphereParams, SphereState};

const G: f64 = 9.81;

fn params(dt: f64, gravity: [f64; 3]) -> SphereParams {
    SphereParams {
        gravity: [gravity[0] as f32, gravity[1] as f32, gravity[2] as f32],
        dt: dt as f32,
        skin: 1e-3,
        ..Default::default()
    }
}

/// Materials 0 (the spheres) and 1 (a rigid wall with the same surface properties).
fn table(m: SphereMaterial) -> LawTable {
    let wall = SphereMaterial {
        young: f64::INFINITY,
        ..m
    };
    LawTable::hertz_mindlin(&[m, wall])
}

#[test]
fn head_on_collision_through_the_stepper() {
    let m = SphereMaterial::RUBBER;
    let r = 0.01;
    let v = 1.0;
    let mut a = SphereState::solid([-0.0101, 0.0, 0.0], r, m.density, 0);
    let mut b = SphereState::solid([0.0101, 0.0, 0.0], r, m.density, 0);
    a.vel = [v as f32, 0.0, 0.0];
    b.vel = [-v as f32, 0.0, 0.0];
    let e_star = effective_young(m.young, m.poisson, m.young, m.poisson);
    let m_star = a.mass as f64 / 2.0;
    let t_c = hertz_contact_duration(e_star, r / 2.0, m_star, 2.0 * v);
    let dt = t_c / 2000.0;
    let mut sys = CpuSpheres::new(params(dt, [0.0; 3]), vec![a, b], table(m), vec![]);
    let (mut t_in, mut t_out) = (None, None);
    for step in 0..20000 {
        sys.step();
        let touching = sys.pair_out.iter().any(|o| o.f_n > 0.0);
        let t = (step + 1) as f64 * dt;
        if touching && t_in.is_none() {
            t_in = Some(t);
        }
        if !touching && t_in.is_some() {
            t_out = Some(t);
            break;
        }
    }
    let duration = t_out.unwrap() - t_in.unwrap();
    let v_after = (sys.states[1].vel[0] - sys.states[0].vel[0]) as f64 / 2.0;
    // Realised restitution of the Hertz damping: that of the clipped linear spring–dashpot
    // (tests/sphere_laws.rs); for e = 0.7, 0.7182.
    let _ = restitution_damping_ratio(m.restitution);
    println!("duration {duration:.4e} (undamped t_c {t_c:.4e}), e = {v_after:.5}");
    assert!((v_after / v - 0.7182).abs() < 0.003, "restitution {}", v_after / v);
    // Damping shortens the contact; the undamped one is checked with e = 1 below.
    assert!(duration < t_c && duration > 0.85 * t_c);
    let p = sys.states[0].vel[0] * sys.states[0].mass + sys.states[1].vel[0] * sys.states[1].mass;
    assert!(p.abs() < 1e-9, "momentum {p}");

    let elastic = SphereMaterial { restitution: 1.0, ..m };
    let mut sys = CpuSpheres::new(params(dt, [0.0; 3]), vec![a, b], table(elastic), vec![]);
    let (mut t_in, mut n_contact) = (None, 0);
    for step in 0..20000 {
        sys.step();
        if sys.pair_out.iter().any(|o| o.f_n > 0.0) {
            t_in.get_or_insert(step);
            n_contact += 1;
        } else if t_in.is_some() {
            break;
        }
    }
    let duration = n_contact as f64 * dt;
    println!("undamped duration {duration:.4e} vs t_c {t_c:.4e}");
    assert!((duration / t_c - 1.0).abs() < 0.02);
    assert!(((sys.states[1].vel[0] as f64) / v - 1.0).abs() < 1e-3);
}

/// A sphere settled on the plane z = 0 under gravity `g` (a vector); returns the system.
fn settled(m: SphereMaterial, g: [f64; 3], inertia_factor: f32, dt: f64, steps: usize) -> CpuSpheres {
    let r = 0.01;
    let mut s = SphereState::solid([0.0, 0.0, r - 4e-5], r, m.density, 0);
    s.inertia *= inertia_factor;
    let wall = PlaneWall::new([0.0; 3], [0.0, 0.0, 1.0], [0.0; 3], 1);
    let mut p = params(dt, g);
    p.global_damping = 30.0;
    let mut sys = CpuSpheres::new(p, vec![s], table(m), vec![wall]);
    for _ in 0..steps {
        sys.step();
    }
    sys.params.global_damping = 0.0;
    sys
}

#[test]
fn sphere_resting_on_a_plane_has_the_hertz_overlap_and_loads_the_wall() {
    let m = SphereMaterial::RUBBER;
    let sys = settled(m, [0.0, 0.0, -G], 1.0, 1e-5, 30000);
    let s = &sys.states[0];
    let e_star = effective_young(m.young, m.poisson, f64::INFINITY, 0.0);
    let weight = s.mass as f64 * G;
    // 4/3 E* sqrt(r) δ^{3/2} = m g
    let delta = (3.0 * weight / (4.0 * e_star * 0.01f64.sqrt())).powf(2.0 / 3.0);
    let got = 0.01 - s.position()[2];
    println!("overlap {got:.6e}, Hertz {delta:.6e}");
    assert!((got / delta - 1.0).abs() < 2e-3, "overlap {got} vs {delta}");
    let w = &sys.walls[0];
    assert!(
        (w.force[2] as f64 / -weight - 1.0).abs() < 1e-4,
        "wall force {:?}",
        w.force
    );
    assert!(w.force[0].abs() < 1e-6 * weight as f32 && w.torque.iter().all(|t| t.abs() < 1e-6));
}

#[test]
fn wall_torque_is_taken_about_the_wall_point() {
    let m = SphereMaterial::RUBBER;
    let r = 0.01;
    let s = SphereState::solid([0.1, 0.0, r - 4e-5], r, m.density, 0);
    let wall = PlaneWall::new([0.0; 3], [0.0, 0.0, 1.0], [0.0; 3], 1);
    let sys = CpuSpheres::new(params(1e-5, [0.0; 3]), vec![s], table(m), vec![wall]);
    let w = &sys.walls[0];
    // The sphere pushes the wall along −z at (0.1, 0, 0): torque (0.1, 0, 0) × (0, 0, f_z).
    assert!(w.force[2] < 0.0);
    let expect = -0.1 * w.force[2];
    assert!((w.torque[1] / expect - 1.0).abs() < 1e-5, "{:?} vs {expect}", w.torque);
    assert_eq!(w.torque[0], 0.0);
}

/// Slope-parallel velocity of the sphere after `steps` more steps on an incline of angle θ.
fn incline(m: SphereMaterial, theta_deg: f64, inertia_factor: f32) -> (CpuSpheres, Vec<(f64, f64, f64, f64)>) {
    let th = theta_deg.to_radians();
    let g = [G * th.sin(), 0.0, -G * th.cos()];
    let dt = 1e-5;
    // Settle normal to the plane first (no slope), then tilt gravity.
    let mut sys = settled(m, [0.0, 0.0, -G * th.cos()], inertia_factor, dt, 30000);
    sys.params.gravity = [g[0] as f32, g[1] as f32, g[2] as f32];
    let mut trace = Vec::new();
    for step in 1..=20000 {
        sys.step();
        if step % 1000 == 0 {
            let s = &sys.states[0];
            trace.push((step as f64 * dt, s.vel[0] as f64, s.omega[1] as f64, s.position()[0]));
        }
    }
    (sys, trace)
}

/// Slope of v(t) (and ω(t)) between the trace's 5th and last samples.
fn accelerations(trace: &[(f64, f64, f64, f64)]) -> (f64, f64) {
    let (a, b) = (trace[4], trace[trace.len() - 1]);
    ((b.1 - a.1) / (b.0 - a.0), (b.2 - a.2) / (b.0 - a.0))
}

#[test]
fn incline_stick_roll_and_slide() {
    let r = 0.01;
    // Rotation locked (inertia × 1e12): sticks below atan μ = 26.6°, slides above with
    // a = g (sin θ − μ cos θ).
    let m = SphereMaterial {
        rolling_friction: 0.0,
        ..SphereMaterial::RUBBER
    };
    // Sticking: the sphere only loads its tangential spring, |x| ≤ 2 m g sin θ/k_t (the
    // overshoot of a suddenly applied load), and stops drifting.
    let (sys, tr) = incline(m, 20.0, 1e12);
    let s = &sys.states[0];
    let x = s.position()[0];
    let th = 20f64.to_radians();
    let delta = 0.01 - s.position()[2];
    let law = sys.laws.get(0, 1);
    let k_t = 8.0 * law.mindlin.g_star as f64 * (r * delta).sqrt();
    let bound = 2.0 * s.mass as f64 * G * th.sin() / k_t;
    let drift = tr[tr.len() - 1].3 - tr[tr.len() / 2].3;
    println!("locked, 20°: x = {x:.3e} (spring bound {bound:.3e}), drift over 0.1 s {drift:.2e}");
    assert!(x.abs() < bound, "should stick at 20° < atan 0.5: moved {x}");
    assert!(drift.abs() < 0.05 * bound, "sticking sphere drifts: {drift}");
    let (_, tr) = incline(m, 35.0, 1e12);
    let th = 35f64.to_radians();
    let (a, _) = accelerations(&tr);
    let a_exact = G * (th.sin() - 0.5 * th.cos());
    println!("locked, 35°: a = {a:.5} vs {a_exact:.5}");
    assert!((a / a_exact - 1.0).abs() < 0.01);

    // Free rotation: rolls without slip while tan θ < 7/2 μ, a = 5/7 g sin θ, ω̇ = a/r.
    let (_, tr) = incline(m, 20.0, 1.0);
    let th = 20f64.to_radians();
    let (a, alpha) = accelerations(&tr);
    let a_exact = 5.0 / 7.0 * G * th.sin();
    println!("rolling, 20°: a = {a:.5} vs {a_exact:.5}, ω̇ r = {:.5}", alpha * r);
    assert!((a / a_exact - 1.0).abs() < 0.01);
    assert!(
        (alpha * r / a - 1.0).abs() < 0.01,
        "no slip: ω̇ r = {} vs a = {a}",
        alpha * r
    );

    // Low friction (μ = 0.1, 7/2 μ = 0.35 < tan 30°): slides, a = g (sin θ − μ cos θ),
    // ω̇ = 5 μ g cos θ/(2 r).
    let slippery = SphereMaterial { friction: 0.1, ..m };
    let (_, tr) = incline(slippery, 30.0, 1.0);
    let th = 30f64.to_radians();
    let (a, alpha) = accelerations(&tr);
    let a_exact = G * (th.sin() - 0.1 * th.cos());
    let alpha_exact = 5.0 * 0.1 * G * th.cos() / (2.0 * r);
    println!("sliding, 30°: a = {a:.5} vs {a_exact:.5}, ω̇ = {alpha:.4} vs {alpha_exact:.4}");
    assert!((a / a_exact - 1.0).abs() < 0.01);
    assert!((alpha / alpha_exact - 1.0).abs() < 0.01);

    // Rolling resistance μ_r = 0.2 holds the sphere at 8° (tan 8° = 0.14 < μ_r); at 20° it rolls.
    let resisting = SphereMaterial {
        rolling_friction: 0.2,
        ..m
    };
    let (sys, tr) = incline(resisting, 8.0, 1.0);
    let x = sys.states[0].position()[0];
    let v_max = tr[tr.len() / 2..].iter().map(|t| t.1.abs()).fold(0.0, f64::max);
    println!("rolling resistance, 8°: x = {x:.3e}, |v| ≤ {v_max:.2e} over the last 0.1 s");
    // Held: the rolling spring (undamped, model C without its dashpot) oscillates about
    // x = r m g sin θ r/k_r ≈ 6e-5 m; free rolling would travel 5/14 g sin 8° t² = 0.02 m and
    // reach 0.27 m/s in these 0.2 s.
    assert!(
        x.abs() < 5e-4 && v_max < 5e-3,
        "rolling resistance should hold at 8°: x = {x}, v = {v_max}"
    );
    let (sys, _) = incline(resisting, 20.0, 1.0);
    assert!(sys.states[0].position()[0] > 1e-3);
}

#[test]
fn reruns_are_bit_identical() {
    let m = SphereMaterial::RUBBER;
    let run = || {
        let mut states = Vec::new();
        for k in 0..27 {
            let (i, j, l) = (k % 3, (k / 3) % 3, k / 9);
            let mut s = SphereState::solid(
                [i as f64 * 0.021, j as f64 * 0.021, 0.012 + l as f64 * 0.021],
                0.01,
                m.density,
                0,
            );
            s.vel = [0.01 * (k % 5) as f32, -0.02 * (k % 3) as f32, 0.0];
            states.push(s);
        }
        let floor = PlaneWall::new([0.0; 3], [0.0, 0.0, 1.0], [0.0; 3], 1);
        let mut sys = CpuSpheres::new(params(1e-5, [0.0, 0.0, -G]), states, table(m), vec![floor]);
        for _ in 0..3000 {
            sys.step();
        }
        (sys.states, sys.history, sys.rebuilds)
    };
    let (a, b) = (run(), run());
    assert!(a.2 > 1, "the list was rebuilt during the run");
    assert_eq!(
        bytemuck::cast_slice::<_, u32>(&a.0),
        bytemuck::cast_slice::<_, u32>(&b.0)
    );
    assert_eq!(a.1, b.1);
}
