//! Ring under isotropic internal or external pressure (§5.1, eq 21–25, Fig. 10): the effective
//! shell stiffness K_∂Ω.
//!
//! **Ring.** The particle of the compression cases (`ring_compression.rs`: R = 1, N = 64,
//! k_s = 1, ξ = 0.25, s = 1, node mass 1) with a drained core (constant pressure p, `Core::Drained`,
//! K_Ω = 0), so the only stiffness against a volume change is the shell's. The pressure acts as
//! s ℓ p on each segment, half on each end node (eq 22).
//!
//! **Loads.** p = K_∂Ω · ΔV/V0 target with ΔV/V0 ∈ {±1, ±2, ±4}×10⁻³ (negative p = external
//! pressure). The external pressures stay below 0.3 of the ring's buckling pressure 3 E I/R³
//! (E I = k_b ℓ), so the ring stays circular. Each load relaxes from rest with critical damping
//! of the breathing mode (ω = 2 sin(π/N) √(2 k_s/m)·…, see `breathing_omega`) for 20/ω.
//!
//! **Check.** The slope of p against ΔV/V0 (least squares through the six points and the origin),
//! with V measured as the shoelace area of the nodes in f64, equals K_∂Ω = (k_s/s) tan(π/N)
//! (eq 25, initial state) within 2 %. The plot also shows eq 24 with ℓ evaluated at each point.

use super::case_file;
use super::measure;
use super::ring_compression::{Params, Variant};
use super::{CaseReport, Check, Extent, Figure, Trace};
use crate::backend::BackendKind;
use crate::engine::spd::create;
use crate::model::*;
use crate::plot::{PlotSpec, Series, Style};
use std::f64::consts::PI;

// The target volumetric strains ΔV/V0 are in scenarios/validation/pressure_ring.toml
// (`case_file::pressure_ring`).

/// Angular frequency of the breathing mode of the N-gon (k_s springs, mass m = 1):
/// ω² = 4 k_s sin²(π/N).
pub fn breathing_omega(p: &Params) -> f64 {
    2.0 * (p.k_s()).sqrt() * (PI / p.n as f64).sin()
}

/// Relaxed (ΔV/V0, ℓ/ℓ0) under pressure `pressure`.
pub fn inflate(kind: BackendKind, p: &Params, pressure: f64) -> anyhow::Result<(f64, f64, u64, String)> {
    let mut sc = Scene::default();
    let mat = sc.add_material(Material {
        k_s: p.k_s() as f32,
        f_s_yield: f32::INFINITY,
        c_s: 0.0,
        k_b: p.k_b() as f32,
        m_b_yield: f32::INFINITY,
        c_b: 0.0,
        k_core: 0.0,
        depth: 1.0,
    });
    sc.add_ring(
        [0.0, 0.0],
        1.0,
        p.n,
        BodyOptions {
            material: mat,
            radius: (0.5 * p.h()) as f32,
            node_mass: 1.0,
            frozen: false,
            self_contact: false,
            core: Core::Drained { p0: pressure as f32 },
        },
    );
    sc.contact.k_n = p.k_s() as f32;
    let omega = breathing_omega(p);
    sc.viscous_damping = (2.0 * omega) as f32;
    let dt = p.dt();
    sc.time_step = TimeStep::Fixed(dt as f32);
    let steps = (20.0 / (omega * dt)).ceil() as u64;
    let mut be = create(kind, &sc)?;
    be.step(steps as u32)?;
    let nodes = be.read_nodes()?;
    let v0 = measure::polygon_area(&measure::positions(&sc, &sc.init, 0));
    let pos = measure::positions(&sc, &nodes, 0);
    let v = measure::polygon_area(&pos);
    let ell: f64 = (0..pos.len())
        .map(|k| {
            let (a, b) = (pos[k], pos[(k + 1) % pos.len()]);
            (b[0] - a[0]).hypot(b[1] - a[1])
        })
        .sum::<f64>()
        / pos.len() as f64;
    Ok(((v - v0) / v0, ell / p.ell(), steps, be.name()))
}

/// Runs the case (the same on both extents: it is short).
pub fn run(kind: BackendKind, _extent: Extent) -> anyhow::Result<CaseReport> {
    let t0 = std::time::Instant::now();
    let p = Params::new(Variant::Elastic);
    let k_th = p.k_shell();
    let mut pts = Vec::new();
    let mut exact = Vec::new();
    let mut steps = 0;
    let mut backend = String::new();
    for &e in &case_file::pressure_ring().strains {
        let pressure = k_th * e;
        let (dv, l_ratio, s, name) = inflate(kind, &p, pressure)?;
        steps += s;
        backend = name;
        pts.push((dv, pressure));
        // Eq 24 with the relaxed ℓ: p = (2k_s/s)(ℓ0/(ℓ + ℓ0)) tan(π/N) ΔV/V0.
        exact.push((dv, 2.0 * p.k_s() / (l_ratio + 1.0) * (PI / p.n as f64).tan() * dv));
    }
    // Least squares through the origin: K = Σ p ΔV / Σ ΔV².
    let k_fit = pts.iter().map(|q| q.0 * q.1).sum::<f64>() / pts.iter().map(|q| q.0 * q.0).sum::<f64>();
    let mut rep = CaseReport {
        case: "pressure_ring".into(),
        backend: backend.clone(),
        ..Default::default()
    };
    rep.checks
        .push(Check::relative("pressure_ring_k_shell_eq25", k_fit, k_th, 0.02));
    let worst = pts
        .iter()
        .map(|q| ((q.1 / q.0) - k_th).abs() / k_th)
        .fold(0.0, f64::max);
    rep.checks
        .push(Check::at_most("pressure_ring_secant_max_rel_dev", worst, 0.0, 0.02));
    rep.traces.push(Trace {
        name: "dv_v0".into(),
        values: pts.iter().map(|q| q.0).collect(),
    });
    let xmax = pts.iter().map(|q| q.0.abs()).fold(0.0, f64::max);
    rep.figures.push(Figure {
        file: "pressure_ring_k_shell.png".into(),
        caption: format!(
            "Eq 24–25: pressure p against ΔV/V0 of a ring (N = {}) under internal (p > 0) and external (p < 0) pressure; \
             fitted K = {:.5}, eq 25 K_∂Ω = {:.5}",
            p.n, k_fit, k_th
        ),
        spec: PlotSpec {
            title: format!("Ring under isotropic pressure, N = {} (eq 25)", p.n),
            x_label: "ΔV/V0".into(),
            y_label: "p s / k_s".into(),
            series: vec![
                Series {
                    name: "simulation".into(),
                    points: pts.clone(),
                    style: Style::Markers,
                },
                Series {
                    name: "K_∂Ω = (k_s/s) tan(π/N) (eq 25)".into(),
                    points: vec![(-xmax, -k_th * xmax), (xmax, k_th * xmax)],
                    style: Style::Dashed,
                },
                Series {
                    name: "eq 24 with the relaxed ℓ".into(),
                    points: exact,
                    style: Style::Line,
                },
            ],
        },
    });
    rep.setup = format!(
        "N = {}, R = 1, k_s = 1, ξ = {}, drained core at p = K_∂Ω·ΔV/V0 for ΔV/V0 ∈ ±{{1,2,4}}×10⁻³; {steps} steps in all on {backend}",
        p.n, p.xi
    );
    rep.seconds = t0.elapsed().as_secs_f64();
    Ok(rep)
}
