//! The plastic ring's quasi-static wall force against limit analysis (issue 19).
//!
//! With M^Y = 5×10⁻⁵ M* every vertex yields after a rotation of M^Y/k_b ≈ 5×10⁻⁶ rad, so the
//! ring is a rigid-plastic mechanism and its quasi-static wall force is its collapse load
//! (docs/validation.md, "The plastic ring's collapse load"): hinges at the two contact-edge nodes
//! of each wall and at the two side nodes (six hinges), and by virtual work (or the statics of a
//! quarter, whose moment is linear in x between −M^Y at the edge and +M^Y at the side)
//!   F = 4 M^Y/Δx,  i.e.  F/F** = 4ℓ/Δx,
//! with Δx the horizontal distance from the contact-edge node to the side node; 8 sin(π/N) =
//! 0.393 at N = 64 on the undeformed ring (Δx = R: F = 4 M^Y/R). The simulation measures Δx in
//! each quarter ([`measure::hinge_levers`]) and the collapse load of the current geometry,
//! M^Y Σ_quarters 1/Δx_i, is `Sample::limit_force`.
//!
//! Damping and inertia add to that force while the mechanism moves, in proportion to the rate.
//! The study loads the ring at three rates, each 4× slower (`[rate_study]` of
//! `scenarios/validation/plastic_ring.toml`), averages F/F** over a strain window, and asserts
//! that the mean changes by less than 5 % between the two slowest rates and that at the slowest
//! it equals the collapse load within 5 %. The paper's eq 36 is reported on the slowest run as a
//! `reference` row.

use super::measure::interpolate;
use super::ring_run::{simulate, Params, RateStudy, RingRun, Sample, EPS_MAX};
use super::{CaseReport, Check, Figure};
use crate::backend::BackendKind;
use crate::plot::{PlotSpec, Series, Style};

/// One loading of the study.
#[derive(Clone, Debug)]
pub struct RateRun {
    pub load_periods: f64,
    pub run: RingRun,
    /// Mean F/F** over the window.
    pub force: f64,
    /// Mean collapse load M^Y Σ 1/Δx_i over F**, over the same samples.
    pub limit: f64,
    pub seconds: f64,
}

/// The rate study of `p` (panics when the case has none: only the plastic ring has one).
pub fn study_of(p: &Params) -> RateStudy {
    p.rate_study
        .expect("the plastic ring's case file has a [rate_study] section")
}

/// The parameters of the `i`-th loading of the study (0: fastest), stopped at `eps_end`, or at
/// `fraction` of that when `fraction` < 1 (the GPU test's prefix).
pub fn params_at(p: &Params, i: usize, fraction: f64) -> Params {
    let r = study_of(p);
    let mut q = *p;
    q.load_periods = r.load_periods[i];
    q.viscous = r.viscous;
    q.local = r.local_damping;
    q.unload = false;
    q.fraction = fraction * r.eps_end / EPS_MAX;
    q
}

/// F** = M^Y/ℓ (eq 35).
pub fn f_star2(p: &Params) -> f64 {
    p.gamma * p.m_star() / p.ell()
}

/// Mean F/F** and mean collapse load over F** over the loading samples inside the window.
pub fn window_means(p: &Params, run: &RingRun) -> (f64, f64) {
    let w = study_of(p).window;
    let f2 = f_star2(p);
    let inside: Vec<&Sample> = run
        .samples
        .iter()
        .filter(|s| s.loading && s.eps >= w[0] && s.eps <= w[1] && s.limit_force > 0.0)
        .collect();
    let n = inside.len().max(1) as f64;
    (
        inside.iter().map(|s| s.force / f2).sum::<f64>() / n,
        inside.iter().map(|s| s.limit_force / f2).sum::<f64>() / n,
    )
}

/// Runs the three loadings on `kind`.
pub fn run_study(kind: BackendKind, p: &Params) -> anyhow::Result<Vec<RateRun>> {
    (0..3)
        .map(|i| {
            let q = params_at(p, i, 1.0);
            let t0 = std::time::Instant::now();
            let run = simulate(kind, &q)?;
            let (force, limit) = window_means(p, &run);
            Ok(RateRun {
                load_periods: q.load_periods,
                run,
                force,
                limit,
                seconds: t0.elapsed().as_secs_f64(),
            })
        })
        .collect()
}

/// The study's rows, figures and set-up line, added to the plastic ring's report.
pub fn report(p: &Params, runs: &[RateRun], rep: &mut CaseReport) {
    let r = study_of(p);
    let [mid, slow] = [&runs[1], &runs[2]];
    rep.checks.push(Check::at_most(
        "plastic_ring_force_rate_change_slowest_step",
        (slow.force - mid.force).abs() / slow.force,
        0.0,
        0.05,
    ));
    rep.checks.push(Check::relative(
        "plastic_ring_force_limit_analysis_slowest_rate",
        slow.force,
        slow.limit,
        0.05,
    ));
    // Eq 36 (F/F** = L_c/ℓ) on the quasi-static run, for the record.
    let f2 = f_star2(p);
    let dev = slow
        .run
        .samples
        .iter()
        .filter(|s| s.loading && s.eps >= r.window[0] && s.lc_ell >= 2.0)
        .map(|s| (s.force / f2 - s.lc_ell).abs() / s.lc_ell)
        .fold(0.0, f64::max);
    rep.checks
        .push(Check::at_most("plastic_ring_force_eq36_max_rel_dev_quasi_static", dev, 0.0, 0.10).reference());
    rep.setup.push_str(&format!(
        "\n\nRate study (`[rate_study]`): loadings of {:?} ovalisation periods to ε = {}, c_v = {} ω_b, α = {}; mean F/F** over \
         ε ∈ [{}, {}]: {} against the collapse load {} ({} s).",
        r.load_periods,
        r.eps_end,
        r.viscous,
        r.local_damping,
        r.window[0],
        r.window[1],
        runs.iter().map(|x| format!("{:.4}", x.force)).collect::<Vec<_>>().join(" / "),
        runs.iter().map(|x| format!("{:.4}", x.limit)).collect::<Vec<_>>().join(" / "),
        runs.iter().map(|x| format!("{:.1}", x.seconds)).collect::<Vec<_>>().join(" / "),
    ));
    let curve = |run: &RingRun, f: &dyn Fn(&Sample) -> f64| -> Vec<(f64, f64)> {
        run.samples
            .iter()
            .filter(|s| s.loading)
            .map(|s| (s.eps, f(s)))
            .collect()
    };
    let mut series: Vec<Series> = runs
        .iter()
        .map(|x| Series {
            name: format!("{} periods", x.load_periods),
            points: curve(&x.run, &|s| s.force / f2),
            style: Style::Line,
        })
        .collect();
    series.push(Series {
        name: "collapse load M^Y Σ 1/Δx (limit analysis)".into(),
        points: curve(&slow.run, &|s| s.limit_force / f2)
            .into_iter()
            .filter(|q| q.1 > 0.0)
            .collect(),
        style: Style::Dashed,
    });
    series.push(Series {
        name: "eq 36: F/F** = L_c/ℓ (paper)".into(),
        points: curve(&slow.run, &|s| s.lc_ell),
        style: Style::Dashed,
    });
    rep.figures.push(Figure {
        file: "plastic_ring_rate_convergence.png".into(),
        caption:
            "Plastic ring: wall force F/F** vs ε at three loading rates (each 4× slower), the collapse load of the \
                  measured geometry (limit analysis) and the paper's eq 36"
                .into(),
        spec: PlotSpec {
            title: "Plastic ring: F/F** vs ε at three rates, limit analysis, eq 36".into(),
            x_label: "ε = 1 − b/b0".into(),
            y_label: "F/F**".into(),
            series,
        },
    });
    let mut prof: Vec<Series> = slow
        .run
        .profiles
        .iter()
        .map(|(e, pts)| Series {
            name: format!("ε = {e:.2}"),
            points: pts.clone(),
            style: Style::Markers,
        })
        .collect();
    prof.push(Series {
        name: "paper's plateau F'_k = F** (eq 35–36)".into(),
        points: vec![(-0.8, 1.0), (0.8, 1.0)],
        style: Style::Dashed,
    });
    // Limit analysis: the two edge nodes carry the whole force, half each.
    if let Some((e, _)) = slow.run.profiles.last() {
        let lim = interpolate(&curve(&slow.run, &|s| s.limit_force / f2), *e);
        prof.push(Series {
            name: format!("limit analysis: each edge node F/2 at ε = {e:.2}"),
            points: vec![(-0.8, 0.5 * lim), (0.8, 0.5 * lim)],
            style: Style::Dashed,
        });
    }
    rep.figures.push(Figure {
        file: "plastic_ring_fig19_quasi_static.png".into(),
        caption:
            "Fig. 19, quasi-static (slowest rate of the study): per-node contact force F'_k/F** (= p/p**) along the \
                  bottom wall vs (x − x_mid)/R, beside the paper's plateau and the limit analysis' edge forces"
                .into(),
        spec: PlotSpec {
            title: "Plastic ring, quasi-static: per-node contact force (Fig. 19)".into(),
            x_label: "(x − x_mid)/R".into(),
            y_label: "F'_k/F** = p/p**".into(),
            series: prof,
        },
    });
}
