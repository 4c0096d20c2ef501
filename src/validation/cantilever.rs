//! Cantilever beam under a tip force (§4, eq 11–16, Figs 8–9).
//!
//! **Beam.** Length L = 1 between the clamp and the tip, N nodes on [0, L] (ℓ = L/(N − 1)),
//! shell thickness h = [`H`], E = 1, ν = 0, depth s = 1, so k_s = E h (eq 11) and
//! k_b = E h³/12 (eq 12) for every N, as in the paper; I_c = h³ ℓ/12 (below Fig. 8), so
//! E I_c = k_b ℓ. Node mass m = 1.
//!
//! **Clamp.** One extra node at x = −ℓ; it and the node at x = 0 have both velocity components
//! imposed to zero, so the vertex at x = 0 is the first elastic hinge and the beam has N nodes
//! from the clamp to the tip, as counted in Fig. 9.
//!
//! **Load.** A constant force F at the tip (`Scene::add_force`) with F L³/(3 E I_c) = 0.01 L
//! (eq 16), small enough that the response is linear (geometric corrections ~10⁻⁴). The beam
//! relaxes from rest with viscous damping 2ω1 (critical for the first mode,
//! ω1 = 3.516 √(E I_c/(ρA L⁴)), ρA = m/ℓ) for 14/ω1, after which the transient is < 10⁻⁵ δmax.
//!
//! **Checks.** The normalised deflection δ(x)/δmax with 21 nodes against eq 15 (largest
//! difference ≤ 0.02); δmax/δmax^th (eq 16) for N = 9 … 81, fitted linearly in 1/N: the
//! intercept within 1 % of 1 (Fig. 9). With a discrete beam of hinges at the nodes the ratio is
//! N(2N − 1)/(2(N − 1)²) = 1 + 1.5/N + O(1/N²) exactly, slightly above 1 as in Fig. 9.

use super::case_file::{beams, BEAMS_PATH};
use super::measure::linear_fit;
use super::{CaseReport, Check, Extent, Figure, Trace};
use crate::backend::BackendKind;
use crate::engine::spd::create;
use crate::model::*;
use crate::plot::{PlotSpec, Series, Style};

// The parameters (h, node counts, profile nodes, target deflection) are in
// scenarios/validation/beams.toml (`case_file::beams`).

/// How the beam is supported and loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// Clamped at x = 0, force at the tip x = L (eq 15–16).
    Cantilever,
    /// Pinned at x = 0, roller at x = L, force at mid-span.
    SimplyPointLoad,
    /// Pinned at x = 0, roller at x = L, uniform load (nodal forces q ℓ) — the load case of
    /// eq 17 as printed (see `simply_supported`).
    SimplyUniformLoad,
}

/// Result of one relaxed beam.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BeamResult {
    pub n: usize,
    /// (x/L, deflection) of the N nodes on [0, L], deflection positive along the load.
    pub profile: Vec<(f64, f64)>,
    /// Largest deflection over the span.
    pub delta_max: f64,
    /// Analytic largest deflection (eq 16 / point load FL³/48EI / uniform 5qL⁴/384EI).
    pub delta_th: f64,
    pub steps: u64,
    pub backend: String,
}

/// E I_c = k_b ℓ of the beam with N nodes.
pub fn ei(n: usize) -> f64 {
    let ell = 1.0 / (n - 1) as f64;
    beams().thickness.powi(3) / 12.0 * ell
}

/// Analytic largest deflection per unit force for a support (total force 1).
pub fn delta_th_per_force(support: Support, n: usize) -> f64 {
    match support {
        Support::Cantilever => 1.0 / (3.0 * ei(n)),
        Support::SimplyPointLoad => 1.0 / (48.0 * ei(n)),
        Support::SimplyUniformLoad => 5.0 / (384.0 * ei(n)),
    }
}

/// Builds, loads and relaxes one beam.
pub fn relax_beam(kind: BackendKind, support: Support, n: usize) -> anyhow::Result<BeamResult> {
    let ell = 1.0 / (n - 1) as f64;
    let h = beams().thickness;
    let k_s = h;
    let k_b = h.powi(3) / 12.0;
    let mut sc = Scene::default();
    let mat = sc.add_material(Material {
        k_s: k_s as f32,
        f_s_yield: f32::INFINITY,
        c_s: 0.0,
        k_b: k_b as f32,
        m_b_yield: f32::INFINITY,
        c_b: 0.0,
        k_core: 0.0,
        depth: 1.0,
    });
    let opts = BodyOptions {
        material: mat,
        radius: (0.5 * h) as f32,
        node_mass: 1.0,
        frozen: false,
        self_contact: false,
        core: Core::None,
    };
    let force = beams().deflection / delta_th_per_force(support, n);
    // Nodes on [0, L] are `first..first + n`.
    let first: u32;
    match support {
        Support::Cantilever => {
            sc.add_line([-ell, 0.0], [1.0, 0.0], n + 1, opts);
            first = 1;
            sc.impose_velocity(&NodeSet::Indices(vec![0, 1]), Some(0.0), Some(0.0));
            sc.add_force(&NodeSet::Indices(vec![n as u32]), [0.0, -force as f32]);
        }
        Support::SimplyPointLoad | Support::SimplyUniformLoad => {
            sc.add_line([0.0, 0.0], [1.0, 0.0], n, opts);
            first = 0;
            sc.impose_velocity(&NodeSet::Indices(vec![0]), Some(0.0), Some(0.0));
            sc.impose_velocity(&NodeSet::Indices(vec![n as u32 - 1]), None, Some(0.0));
            if support == Support::SimplyPointLoad {
                assert!(n % 2 == 1, "a mid-span node needs an odd node count");
                sc.add_force(&NodeSet::Indices(vec![(n / 2) as u32]), [0.0, -force as f32]);
            } else {
                // Total load W = q L: q ℓ on each interior node (the ends' halves go to the supports).
                let q = force;
                let interior: Vec<u32> = (1..n as u32 - 1).collect();
                sc.add_force(&NodeSet::Indices(interior), [0.0, -(q * ell) as f32]);
            }
        }
    }
    let k_max = k_s.max(4.0 * k_b / (ell * ell));
    let dt = 0.5 / k_max.sqrt();
    let (beta, span) = match support {
        Support::Cantilever => (3.516, 1.0),
        _ => (std::f64::consts::PI * std::f64::consts::PI, 1.0),
    };
    // ω1 = β √(EI/(ρA L⁴)) with EI = k_b ℓ, ρA = m/ℓ.
    let omega1 = beta * (k_b * ell * ell).sqrt() / (span * span);
    sc.viscous_damping = (2.0 * omega1) as f32;
    // No contacts in a single beam; k_n only enters the scene's critical time step.
    sc.contact.k_n = k_s as f32;
    sc.time_step = TimeStep::Fixed(dt as f32);
    let steps = (14.0 / (omega1 * dt)).ceil() as u64;
    let mut be = create(kind, &sc)?;
    let mut done = 0u64;
    while done < steps {
        let k = (steps - done).min(1 << 20);
        be.step(k as u32)?;
        done += k;
    }
    let nodes = be.read_nodes()?;
    let profile: Vec<(f64, f64)> = (0..n)
        .map(|k| {
            let i = first as usize + k;
            let p = nodes[i].pos();
            let p0 = sc.init[i].pos();
            (p0[0], -(p[1] - p0[1]))
        })
        .collect();
    let delta_max = profile.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    Ok(BeamResult {
        n,
        profile,
        delta_max,
        delta_th: beams().deflection,
        steps,
        backend: be.name(),
    })
}

/// Eq 15: δ(x)/δmax of the cantilever.
pub fn eq15(x: f64) -> f64 {
    0.5 * x * x * (3.0 - x)
}

/// (1/N, δmax/δmax^th) points, the fit (slope, intercept) and the steps run.
pub type Convergence = (Vec<(f64, f64)>, (f64, f64), u64);

/// The convergence study of Fig. 9: (1/N, δmax/δmax^th) for each N, and the linear fit.
pub fn convergence(kind: BackendKind, support: Support, counts: &[usize]) -> anyhow::Result<Convergence> {
    let mut pts = Vec::new();
    let mut steps = 0;
    for &n in counts {
        let r = relax_beam(kind, support, n)?;
        steps += r.steps;
        pts.push((1.0 / n as f64, r.delta_max / r.delta_th));
    }
    let fit = linear_fit(&pts);
    Ok((pts, fit, steps))
}

/// Largest |measured − analytic| of a normalised profile.
pub fn profile_deviation(profile: &[(f64, f64)], delta_max: f64, analytic: impl Fn(f64) -> f64) -> f64 {
    profile
        .iter()
        .map(|&(x, d)| (d / delta_max - analytic(x)).abs())
        .fold(0.0, f64::max)
}

/// Runs the case. `Extent::Prefix` (GPU tests) runs the 21-node profile only.
pub fn run(kind: BackendKind, extent: Extent) -> anyhow::Result<CaseReport> {
    let t0 = std::time::Instant::now();
    let bc = beams();
    let prof = relax_beam(kind, Support::Cantilever, bc.profile_nodes)?;
    let mut rep = CaseReport {
        case: "cantilever".into(),
        backend: prof.backend.clone(),
        ..Default::default()
    };
    let dev = profile_deviation(&prof.profile, prof.delta_max, eq15);
    rep.checks.push(Check::at_most(
        "cantilever_profile_eq15_max_abs_dev_n21",
        dev,
        0.0,
        0.02,
    ));
    rep.traces.push(Trace {
        name: "profile_n21".into(),
        values: prof.profile.iter().map(|p| p.1 / bc.deflection).collect(),
    });
    let mut steps = prof.steps;
    let xs: Vec<f64> = (0..=100).map(|i| i as f64 / 100.0).collect();
    rep.figures.push(Figure {
        file: "cantilever_fig8_profile.png".into(),
        caption: "Fig. 8(c), cantilever: normalised deflection δ/δmax along the beam with 21 nodes, simulation (markers) and eq 15 (line)".into(),
        spec: PlotSpec {
            title: "Cantilever, tip force, 21 nodes (Fig. 8c)".into(),
            x_label: "x/L".into(),
            y_label: "δ/δmax".into(),
            series: vec![
                Series {
                    name: "simulation".into(),
                    points: prof.profile.iter().map(|&(x, d)| (x, d / prof.delta_max)).collect(),
                    style: Style::Markers,
                },
                Series {
                    name: "eq 15".into(),
                    points: xs.iter().map(|&x| (x, eq15(x))).collect(),
                    style: Style::Dashed,
                },
            ],
        },
    });
    if extent == Extent::Full {
        let (pts, (slope, intercept), s) = convergence(kind, Support::Cantilever, &bc.node_counts)?;
        steps += s;
        rep.checks
            .push(Check::relative("cantilever_ratio_fit_intercept", intercept, 1.0, 0.01));
        rep.checks
            .push(Check::at_least("cantilever_ratio_fit_slope_positive", slope, 0.0, 0.0));
        rep.figures
            .push(fig9("cantilever", "Cantilever", &pts, (slope, intercept)));
    }
    rep.setup = format!(
        "Case file `{BEAMS_PATH}`. L = 1, h = {}, E = 1, ν = 0, s = 1: k_s = E h, k_b = E h³/12 (eq 11–12), I_c = h³ℓ/12; clamp = two fixed nodes \
         (x = −ℓ, 0); tip force with δmax^th = {} L; critical viscous damping of mode 1; {steps} steps in all on {}",
        bc.thickness,
        bc.deflection,
        prof.backend
    );
    rep.seconds = t0.elapsed().as_secs_f64();
    Ok(rep)
}

/// The Fig. 9 plot: ratio vs 1/N with the fitted line.
pub fn fig9(prefix: &str, title: &str, pts: &[(f64, f64)], fit: (f64, f64)) -> Figure {
    let x1 = pts.iter().map(|p| p.0).fold(0.0, f64::max);
    Figure {
        file: format!("{prefix}_fig9_convergence.png"),
        caption: format!(
            "Fig. 9, {}: δmax/δmax^th vs 1/N (markers) and the least-squares line, intercept {:.4}",
            title.to_lowercase(),
            fit.1
        ),
        spec: PlotSpec {
            title: format!("{title}: δmax/δmax^th vs 1/N (Fig. 9)"),
            x_label: "1/N".into(),
            y_label: "δmax/δmax^th".into(),
            series: vec![
                Series {
                    name: "simulation".into(),
                    points: pts.to_vec(),
                    style: Style::Markers,
                },
                Series {
                    name: format!("fit {:.4} + {:.3}/N", fit.1, fit.0),
                    points: vec![(0.0, fit.1), (x1, fit.1 + fit.0 * x1)],
                    style: Style::Dashed,
                },
                Series {
                    name: "1 (continuum)".into(),
                    points: vec![(0.0, 1.0), (x1, 1.0)],
                    style: Style::Line,
                },
            ],
        },
    }
}
