//! Validation row 2 of issue 23 (rows `spheres_mindlin_*`): the Mindlin/Tsuji tangential spring
//! (eq 4–6) through the stepper of the chosen backend, rubber (Table 1), r = 1 cm, on a rigid
//! plane z = 0 of the same surface.
//!
//! - **Constant normal force, growing tangential displacement.** The sphere rests at the Hertz
//!   overlap of a normal force F = m g; it is given a mass and inertia 10⁶ and 10¹² times its own
//!   (with the body force kept at m g), so that it does not follow the plane, and no damping
//!   (e = 1). The plane slides along x at 2 mm/s: the tangential force on it follows
//!   k_t u with k_t = 8 G* sqrt(r δ), u the plane's displacement, until it reaches μ f_n, then
//!   stays there. Rows: the secant f_t/u in the stick phase against k_t (0.5 %), the plateau
//!   against μ f_n (0.1 %), the displacement at which f_t first reaches μ f_n against
//!   μ f_n/k_t (2 %).
//! - **Incline** (gravity tilted by θ, the sphere at rest at the Hertz overlap under m g cos θ,
//!   Δt = 5·10⁻⁵ s, 0.2 s; accelerations by least squares over 0.05–0.2 s):
//!   rotation locked (inertia × 10¹²), θ = 20° < atan μ = 26.6°: sticks (|x| below the spring's
//!   overshoot 2 m g sin θ/k_t, drift over the last 0.1 s below 5 % of it); θ = 35°: slides with
//!   a = g (sin θ − μ cos θ) (1 %); free rotation, θ = 20° (tan θ < 7/2 μ): rolls with
//!   a = 5/7 g sin θ and ω̇ r = a (1 %); μ = 0.1, θ = 30° (tan θ > 7/2 μ): slides with
//!   a = g (sin θ − μ cos θ) and spins up at ω̇ = 5 μ g cos θ/(2 r) (1 %).

use super::sphere_sim::{params, with_rigid_wall, SimFactory};
use super::{CaseReport, Check, Extent, Trace};
use crate::backend::BackendKind;
use crate::laws::mixing::{effective_shear, effective_young};
use crate::spheres::pair_law::{LawTable, SphereMaterial};
use crate::spheres::{PlaneWall, SphereState};

const G: f64 = 9.81;

/// (t, x, v_x, ω_y) samples of one sphere.
type Samples = Vec<(f64, f64, f64, f64)>;

/// Hertz overlap of a sphere of radius r pressed on a rigid plane by force F.
fn hertz_overlap(m: &SphereMaterial, r: f64, force: f64) -> f64 {
    let e_star = effective_young(m.young, m.poisson, f64::INFINITY, 0.0);
    (3.0 * force / (4.0 * e_star * r.sqrt())).powf(2.0 / 3.0)
}

/// k_t = 8 G* sqrt(r δ) of a sphere on a rigid plane.
fn k_t(m: &SphereMaterial, r: f64, delta: f64) -> f64 {
    8.0 * effective_shear(m.young, m.poisson, f64::INFINITY, m.poisson) * (r * delta).sqrt()
}

/// Least-squares slope of y(t) over the samples with t ≥ t_from.
fn slope(samples: &[(f64, f64)], t_from: f64) -> f64 {
    let s: Vec<&(f64, f64)> = samples.iter().filter(|p| p.0 >= t_from).collect();
    let n = s.len() as f64;
    let (mt, my) = (
        s.iter().map(|p| p.0).sum::<f64>() / n,
        s.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let num: f64 = s.iter().map(|p| (p.0 - mt) * (p.1 - my)).sum();
    let den: f64 = s.iter().map(|p| (p.0 - mt).powi(2)).sum();
    num / den
}

/// One incline run: spheres (rotation locked or not) at y = 0.5 k on the plane z = 0, gravity
/// tilted by θ along +x. Returns per sphere the samples (t, x, v_x, ω_y) every 5 ms.
fn incline(
    f: &SimFactory,
    m: SphereMaterial,
    theta_deg: f64,
    locked: &[bool],
    steps: usize,
    dt: f64,
) -> anyhow::Result<Vec<Samples>> {
    let r = 0.01;
    let every = (0.005 / dt).round() as usize;
    let th = theta_deg.to_radians();
    let states: Vec<SphereState> = locked
        .iter()
        .enumerate()
        .map(|(k, &lock)| {
            let mut s = SphereState::solid([0.0, 0.5 * k as f64, 0.0], r, m.density, 0);
            let d = hertz_overlap(&m, r, s.mass as f64 * G * th.cos());
            s = SphereState::solid([0.0, 0.5 * k as f64, r - d], r, m.density, 0);
            if lock {
                s.inertia *= 1e12;
            }
            s
        })
        .collect();
    let floor = PlaneWall::new([0.0; 3], [0.0, 0.0, 1.0], [0.0; 3], 1);
    let mut sim = f.make(
        params(dt, [G * th.sin(), 0.0, -G * th.cos()]),
        states,
        LawTable::hertz_mindlin(&with_rigid_wall(m)),
        vec![floor],
    )?;
    let mut out = vec![Vec::new(); locked.len()];
    for step in 1..=steps {
        sim.step()?;
        if step % every == 0 {
            for (k, s) in sim.states().iter().enumerate() {
                out[k].push((step as f64 * dt, s.position()[0], s.vel[0] as f64, s.omega[1] as f64));
            }
        }
    }
    Ok(out)
}

/// Runs the case; `Prefix` (the GPU tests) doubles Δt of the incline runs (10⁻⁴ s, 2000 steps)
/// and quadruples that of the sliding plane (4·10⁻⁵ s).
pub fn run(kind: BackendKind, extent: Extent) -> anyhow::Result<CaseReport> {
    let t0 = std::time::Instant::now();
    let f = SimFactory::new(kind)?;
    let mut rep = CaseReport {
        case: "spheres_mindlin".into(),
        backend: f.name(),
        setup: "Mindlin/Tsuji (eq 4–6), rubber sphere r = 1 cm on a rigid plane: constant normal force m g and a \
                plane sliding at 2 mm/s under it (f_t = k_t u up to μ f_n); incline stick (20°, rotation locked), \
                slide (35°, locked), roll (20°), slide with spin (30°, μ = 0.1)."
            .into(),
        ..Default::default()
    };
    let r = 0.01;
    let rub = SphereMaterial {
        restitution: 1.0,
        ..SphereMaterial::RUBBER
    };

    // Constant normal force, growing tangential displacement.
    let mut s = SphereState::solid([0.0; 3], r, rub.density, 0);
    let weight = s.mass as f64 * G;
    let delta = hertz_overlap(&rub, r, weight);
    s = SphereState::solid([0.0, 0.0, r - delta], r, rub.density, 0);
    let scale = 1e6f32;
    s.mass *= scale;
    s.inertia *= scale * scale;
    let coarse = extent == Extent::Prefix;
    let (v_w, dt) = (2e-3, if coarse { 4e-5 } else { 1e-5 });
    let floor = PlaneWall::new([0.0; 3], [0.0, 0.0, 1.0], [v_w, 0.0, 0.0], 1);
    let mut sim = f.make(
        params(dt, [0.0, 0.0, -G / scale as f64]),
        vec![s],
        LawTable::hertz_mindlin(&with_rigid_wall(rub)),
        vec![floor],
    )?;
    let kt = k_t(&rub, r, delta);
    let u_star = rub.friction * weight / kt;
    let steps = (2.0 * u_star / (v_w * dt)) as usize;
    let mut curve = Vec::new();
    let (mut secant_worst, mut onset, mut f_n_last, mut f_t_last) = (0f64, None, 0.0, 0.0);
    for step in 1..=steps {
        sim.step()?;
        let w = &sim.walls()[0];
        let u = step as f64 * dt * v_w;
        // The sphere drags the plane back: its force on the plane is along −x.
        let (f_t, f_n) = (-w.force[0] as f64, -w.force[2] as f64);
        if u < 0.8 * u_star {
            secant_worst = secant_worst.max((f_t / u / kt - 1.0).abs());
        }
        if onset.is_none() && f_t >= 0.999 * rub.friction * f_n {
            onset = Some(u);
        }
        (f_n_last, f_t_last) = (f_n, f_t);
        if step % (2e-4 / dt).round() as usize == 0 {
            curve.push(f_t);
        }
    }
    rep.checks.push(Check::at_most(
        "spheres_mindlin_stick_secant_vs_k_t_max_rel_err",
        secant_worst,
        0.0,
        5e-3,
    ));
    rep.checks.push(Check::relative(
        "spheres_mindlin_slip_force_vs_mu_f_n",
        f_t_last,
        rub.friction * f_n_last,
        1e-3,
    ));
    rep.checks.push(Check::relative(
        "spheres_mindlin_slip_onset_displacement",
        onset.unwrap_or(f64::NAN),
        u_star,
        0.02,
    ));
    rep.checks.push(Check::relative(
        "spheres_mindlin_normal_force_vs_m_g",
        f_n_last,
        weight,
        1e-3,
    ));
    rep.traces.push(Trace {
        name: "tangential_force".into(),
        values: curve,
    });

    // Incline, with the damping of Table 1's restitution.
    let rub = SphereMaterial::RUBBER;
    let (steps, dt) = if coarse { (2000, 1e-4) } else { (4000, 5e-5) };
    let t_fit = 0.05;
    let th20 = 20f64.to_radians();
    let runs = incline(&f, rub, 20.0, &[true, false], steps, dt)?;
    let stick = &runs[0];
    let mass = SphereState::solid([0.0; 3], r, rub.density, 0).mass as f64;
    let d20 = hertz_overlap(&rub, r, mass * G * th20.cos());
    let bound = 2.0 * mass * G * th20.sin() / k_t(&rub, r, d20);
    let x_max = stick.iter().map(|p| p.1.abs()).fold(0.0, f64::max);
    let drift = (stick[stick.len() - 1].1 - stick[stick.len() / 2].1).abs();
    rep.checks.push(Check::at_most(
        "spheres_mindlin_incline_stick_20deg_max_displacement",
        x_max,
        bound,
        0.0,
    ));
    rep.checks.push(Check::at_most(
        "spheres_mindlin_incline_stick_20deg_drift",
        drift,
        0.0,
        0.05 * bound,
    ));
    let roll = &runs[1];
    let a = slope(&roll.iter().map(|p| (p.0, p.2)).collect::<Vec<_>>(), t_fit);
    let alpha = slope(&roll.iter().map(|p| (p.0, p.3)).collect::<Vec<_>>(), t_fit);
    rep.checks.push(Check::relative(
        "spheres_mindlin_incline_roll_20deg_acceleration",
        a,
        5.0 / 7.0 * G * th20.sin(),
        0.01,
    ));
    rep.checks.push(Check::relative(
        "spheres_mindlin_incline_roll_20deg_no_slip",
        alpha * r,
        a,
        0.01,
    ));
    rep.traces.push(Trace {
        name: "roll_velocity".into(),
        values: roll.iter().map(|p| p.2).collect(),
    });

    let th35 = 35f64.to_radians();
    let slide = &incline(&f, rub, 35.0, &[true], steps, dt)?[0];
    let a = slope(&slide.iter().map(|p| (p.0, p.2)).collect::<Vec<_>>(), t_fit);
    rep.checks.push(Check::relative(
        "spheres_mindlin_incline_slide_35deg_acceleration",
        a,
        G * (th35.sin() - rub.friction * th35.cos()),
        0.01,
    ));

    let th30 = 30f64.to_radians();
    let slippery = SphereMaterial { friction: 0.1, ..rub };
    let spin = &incline(&f, slippery, 30.0, &[false], steps, dt)?[0];
    let a = slope(&spin.iter().map(|p| (p.0, p.2)).collect::<Vec<_>>(), t_fit);
    let alpha = slope(&spin.iter().map(|p| (p.0, p.3)).collect::<Vec<_>>(), t_fit);
    rep.checks.push(Check::relative(
        "spheres_mindlin_incline_slide_30deg_mu0.1_acceleration",
        a,
        G * (th30.sin() - 0.1 * th30.cos()),
        0.01,
    ));
    rep.checks.push(Check::relative(
        "spheres_mindlin_incline_slide_30deg_mu0.1_spin_up",
        alpha,
        5.0 * 0.1 * G * th30.cos() / (2.0 * r),
        0.01,
    ));
    rep.traces.push(Trace {
        name: "slide_velocity".into(),
        values: slide.iter().map(|p| p.2).collect(),
    });
    rep.seconds = t0.elapsed().as_secs_f64();
    Ok(rep)
}
