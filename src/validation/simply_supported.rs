//! Simply supported beam (§4, eq 17–18, Figs 8–9).
//!
//! Same beam as the cantilever (`cantilever.rs`: L = 1, h, E = 1, ν = 0, k_s and k_b of
//! eq 11–12, I_c = h³ℓ/12), pinned at x = 0 (both velocity components imposed to zero) and on a
//! roller at x = L (vertical component imposed to zero), N odd.
//!
//! **The paper's formulas.** The text loads the beam with "a force F applied at its center", but
//! eq 17, δ/δmax = (16/5)(x/L)(1 − 2(x/L)² + (x/L)³), is the deflection of a *uniformly
//! loaded* simply supported beam, and eq 18, 5FL³/(768 E I_c), is the uniform-load maximum
//! 5WL³/(384 E I_c) with a total load W = F/2. A central point load gives instead
//! δ/δmax = 3(x/L) − 4(x/L)³ for x ≤ L/2 and δmax = F L³/(48 E I_c); the two profiles differ by up to
//! 0.026 δmax, more than the 2 % tolerance. The case therefore runs both loads:
//! - mid-span force F against the point-load profile and δmax = FL³/(48 E I_c) (profile with 21
//!   nodes, convergence for N = 9 … 81, Fig. 9);
//! - uniform load q (nodal forces q ℓ) against eq 17 itself and δmax = 5qL⁴/(384 E I_c).
//!
//! The discrete beam with hinges at the nodes gives, for the point load, exactly
//! δmax/δmax^th = 1 + 2/(N − 1)², converging to 1 (the fitted intercept in 1/N is within 10⁻³).

use super::cantilever::{convergence, fig9, profile_deviation, relax_beam, Support};
use super::case_file::{beams, BEAMS_PATH};
use super::{CaseReport, Check, Extent, Figure, Trace};
use crate::backend::BackendKind;
use crate::plot::{PlotSpec, Series, Style};

/// Eq 17 (uniform load, as printed in the paper).
pub fn eq17(x: f64) -> f64 {
    16.0 / 5.0 * x * (1.0 - 2.0 * x * x + x * x * x)
}

/// Central point load: δ/δmax = 3ξ − 4ξ³ for ξ = min(x, 1 − x)/L ≤ 1/2.
pub fn point_load_profile(x: f64) -> f64 {
    let u = x.min(1.0 - x);
    3.0 * u - 4.0 * u * u * u
}

/// Runs the case. `Extent::Prefix` (GPU tests) runs the two 21-node profiles only.
pub fn run(kind: BackendKind, extent: Extent) -> anyhow::Result<CaseReport> {
    let t0 = std::time::Instant::now();
    let bc = beams();
    let point = relax_beam(kind, Support::SimplyPointLoad, bc.profile_nodes)?;
    let uniform = relax_beam(kind, Support::SimplyUniformLoad, bc.profile_nodes)?;
    let mut rep = CaseReport {
        case: "simply_supported".into(),
        backend: point.backend.clone(),
        ..Default::default()
    };
    rep.checks.push(Check::at_most(
        "simply_supported_profile_point_load_max_abs_dev_n21",
        profile_deviation(&point.profile, point.delta_max, point_load_profile),
        0.0,
        0.02,
    ));
    rep.checks.push(Check::at_most(
        "simply_supported_profile_eq17_uniform_load_max_abs_dev_n21",
        profile_deviation(&uniform.profile, uniform.delta_max, eq17),
        0.0,
        0.02,
    ));
    rep.checks.push(Check::relative(
        "simply_supported_uniform_load_delta_max_ratio_n21",
        uniform.delta_max / uniform.delta_th,
        1.0,
        0.01,
    ));
    rep.traces.push(Trace {
        name: "profile_point_n21".into(),
        values: point.profile.iter().map(|p| p.1 / bc.deflection).collect(),
    });
    rep.traces.push(Trace {
        name: "profile_uniform_n21".into(),
        values: uniform.profile.iter().map(|p| p.1 / bc.deflection).collect(),
    });
    let mut steps = point.steps + uniform.steps;
    let xs: Vec<f64> = (0..=100).map(|i| i as f64 / 100.0).collect();
    rep.figures.push(Figure {
        file: "simply_supported_fig8_profile.png".into(),
        caption: "Fig. 8(c), simply supported beam with 21 nodes: δ/δmax for a mid-span force and for a uniform load \
                  (markers) against the point-load solution and eq 17 (lines)"
            .into(),
        spec: PlotSpec {
            title: "Simply supported beam, 21 nodes (Fig. 8c)".into(),
            x_label: "x/L".into(),
            y_label: "δ/δmax".into(),
            series: vec![
                Series {
                    name: "simulation, mid-span force".into(),
                    points: point.profile.iter().map(|&(x, d)| (x, d / point.delta_max)).collect(),
                    style: Style::Markers,
                },
                Series {
                    name: "point load 3x − 4x³".into(),
                    points: xs.iter().map(|&x| (x, point_load_profile(x))).collect(),
                    style: Style::Dashed,
                },
                Series {
                    name: "simulation, uniform load".into(),
                    points: uniform
                        .profile
                        .iter()
                        .map(|&(x, d)| (x, d / uniform.delta_max))
                        .collect(),
                    style: Style::Markers,
                },
                Series {
                    name: "eq 17".into(),
                    points: xs.iter().map(|&x| (x, eq17(x))).collect(),
                    style: Style::Dashed,
                },
            ],
        },
    });
    if extent == Extent::Full {
        let (pts, (slope, intercept), s) = convergence(kind, Support::SimplyPointLoad, &bc.node_counts)?;
        steps += s;
        rep.checks.push(Check::relative(
            "simply_supported_ratio_fit_intercept",
            intercept,
            1.0,
            0.01,
        ));
        rep.checks.push(Check::at_least(
            "simply_supported_ratio_fit_slope_positive",
            slope,
            0.0,
            0.0,
        ));
        rep.figures.push(fig9(
            "simply_supported",
            "Simply supported beam",
            &pts,
            (slope, intercept),
        ));
    }
    rep.setup = format!(
        "Case file `{BEAMS_PATH}`. Beam as the cantilever; pin at x = 0, roller at x = L; mid-span force (δmax^th = FL³/48EI_c = {d} L) \
         and uniform load (5qL⁴/384EI_c = {d} L); {steps} steps in all on {}",
        point.backend,
        d = bc.deflection
    );
    rep.seconds = t0.elapsed().as_secs_f64();
    Ok(rep)
}
