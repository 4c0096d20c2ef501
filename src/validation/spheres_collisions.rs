//! Validation row 3 of issue 23 (rows `spheres_collision_*`): the paper's 3- and 5-particle cases
//! (§3.4.1–3.4.2, Fig. 5, Figs 6–9), classical DEM against MC-stress and MC-strain.
//!
//! Spheres of r = 1 cm of Table 1's hydrogel or rubber: a central one at rest, two outer ones on
//! the x axis (3 particles, Fig. 5a) plus two on the y axis (5 particles, Fig. 5b), each 0.1 mm
//! from touching and moving at 10 m/s towards the centre. Δt = 10⁻⁵ s (hydrogel) and 2·10⁻⁵ s
//! (rubber), as the paper; 3 ms (hydrogel) and 4 ms (rubber), past the end of the contacts. Prefactors (the text does not say which β, γ Figs 6–9 use):
//! the calibrated ones, β = 1.65, γ = 1.12 for hydrogel (§4.1) and β = 1.71, γ = 0.55 for
//! rubber (§3.3). Recorded: the kinetic energy of the system and the central sphere's overlap with
//! its +x neighbour; for MC-strain both the geometric overlap and the overlap the law sees,
//! δ + Σ δ_{k→c} (eq 8; the one plotted as MC-strain's overlap, docs/spheres.md).
//!
//! Asserted (the text, §3.4.1–2): MC-stress reaches a lower maximum central overlap than
//! classical DEM, and MC-strain a higher one. Reported (`reference`): the times of the maximum
//! overlap and contact durations (the text: multi-contact collisions are shorter and peak
//! earlier), the final kinetic energy of MC-strain against classical (the text on Fig. 8b:
//! "the increase of the kinetic energy is higher ... by applying MC-strain"), the paper's t_c
//! against the formula of §3.4.
//! `Extent::Prefix` (the GPU tests) runs the hydrogel cases for 1.5 ms (past the peaks, ~1 ms).

use super::sphere_sim::{kinetic_energy, overlap, params, SimFactory};
use super::{CaseReport, Check, Extent, Figure, Trace};
use crate::backend::BackendKind;
use crate::laws::hertz::hertz_contact_duration;
use crate::laws::mixing::effective_young;
use crate::plot::{PlotSpec, Series, Style};
use crate::spheres::pair_law::{LawTable, SphereMaterial};
use crate::spheres::SphereState;

/// The three models of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Model {
    Classical,
    McStress(f64),
    McStrain(f64),
}

impl Model {
    pub fn label(self) -> String {
        match self {
            Model::Classical => "classical".into(),
            Model::McStress(b) => format!("MC-stress β = {b}"),
            Model::McStrain(g) => format!("MC-strain γ = {g}"),
        }
    }
    fn key(self) -> &'static str {
        match self {
            Model::Classical => "classical",
            Model::McStress(_) => "mc_stress",
            Model::McStrain(_) => "mc_strain",
        }
    }
    /// Law table of material `m` with this model on every pair.
    pub fn laws(self, m: SphereMaterial) -> LawTable {
        let t = LawTable::hertz_mindlin(&[m]);
        match self {
            Model::Classical => t,
            Model::McStress(b) => t.with_mc_stress(b, 0),
            Model::McStrain(g) => t.with_mc_strain(g, 0),
        }
    }
}

/// Histories of one run: time (s), kinetic energy (J), central geometric overlap and the overlap
/// the law sees (m; equal except for MC-strain).
#[derive(Clone, Debug, Default)]
pub struct History {
    pub t: Vec<f64>,
    pub kinetic: Vec<f64>,
    pub overlap: Vec<f64>,
    pub law_overlap: Vec<f64>,
}

impl History {
    /// Largest overlap the law saw and its time.
    pub fn peak(&self) -> (f64, f64) {
        self.law_overlap
            .iter()
            .zip(&self.t)
            .fold((0.0, 0.0), |acc, (&d, &t)| if d > acc.0 { (d, t) } else { acc })
    }
    /// Time with a positive central overlap.
    pub fn contact_time(&self) -> f64 {
        let dt = self.t[1] - self.t[0];
        self.overlap.iter().filter(|&&d| d > 0.0).count() as f64 * dt
    }
}

/// One collision of `n` (3 or 5) spheres of material `m` with `model`, `steps` of Δt.
pub fn collide(
    f: &SimFactory,
    m: SphereMaterial,
    n: usize,
    model: Model,
    dt: f64,
    steps: usize,
) -> anyhow::Result<History> {
    let (r, v, gap) = (0.01, 10.0f32, 1e-4);
    let x = 2.0 * r + gap;
    let dirs: &[[f64; 2]] = &[[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]];
    let mut states = vec![SphereState::solid([0.0; 3], r, m.density, 0)];
    for d in &dirs[..n - 1] {
        let mut s = SphereState::solid([x * d[0], x * d[1], 0.0], r, m.density, 0);
        s.vel = [-v * d[0] as f32, -v * d[1] as f32, 0.0];
        states.push(s);
    }
    let mut sim = f.make(params(dt, [0.0; 3]), states, model.laws(m), vec![])?;
    let mut h = History::default();
    for step in 1..=steps {
        sim.step()?;
        let st = sim.states();
        let d = overlap(&st[0], &st[1]);
        let mut seen = d;
        if let Model::McStrain(_) = model {
            if d > 0.0 {
                if let Some(k) = sim.pair_index(0, 1) {
                    seen = (d + sim.pair_strain(k)).max(0.0);
                }
            }
        }
        h.t.push(step as f64 * dt);
        h.kinetic.push(kinetic_energy(&st));
        h.overlap.push(d.max(0.0));
        h.law_overlap.push(seen.max(0.0));
    }
    Ok(h)
}

/// Runs the case.
pub fn run(kind: BackendKind, extent: Extent) -> anyhow::Result<CaseReport> {
    let t0 = std::time::Instant::now();
    let f = SimFactory::new(kind)?;
    let mut rep = CaseReport {
        case: "spheres_collision".into(),
        backend: f.name(),
        setup: "3 and 5 spheres (r = 1 cm, Table 1 hydrogel and rubber), the outer ones at 10 m/s towards the \
                resting central one (§3.4, Fig. 5), classical vs MC-stress vs MC-strain (hydrogel β = 1.65, \
                γ = 1.12; rubber β = 1.71, γ = 0.55): kinetic energy and central overlap (Figs 6–9)."
            .into(),
        ..Default::default()
    };
    let hyd = SphereMaterial::HYDROGEL;
    let rub = SphereMaterial::RUBBER;
    // (name, material, Δt, β, γ, paper's t_c, figures, duration of the run)
    let mut cases = vec![("hydrogel", hyd, 1e-5, 1.65, 1.12, 0.0018, 6, 7, 3e-3)];
    if extent == Extent::Full {
        cases.push(("rubber", rub, 2e-5, 1.71, 0.55, 0.0025, 8, 9, 4e-3));
    }
    for (name, m, dt, beta, gamma, tc_paper, fig_e, fig_o, full) in cases {
        let duration = if extent == Extent::Full { full } else { 1.5e-3 };
        let steps = (duration / dt) as usize;
        let e_star = effective_young(m.young, m.poisson, m.young, m.poisson);
        let mass = SphereState::solid([0.0; 3], 0.01, m.density, 0).mass as f64;
        rep.checks.push(
            Check::relative(
                &format!("spheres_collision_{name}_t_c_paper_vs_formula"),
                tc_paper,
                hertz_contact_duration(e_star, 0.005, 0.5 * mass, 10.0),
                0.2,
            )
            .reference(),
        );
        for (n, panel) in [(3usize, "a"), (5, "b")] {
            let models = [Model::Classical, Model::McStress(beta), Model::McStrain(gamma)];
            let mut runs = Vec::new();
            for model in models {
                runs.push((model, collide(&f, m, n, model, dt, steps)?));
            }
            let pre = format!("spheres_collision_{name}_{n}p");
            let (classical, stress, strain) = (&runs[0].1, &runs[1].1, &runs[2].1);
            let (c_peak, c_time) = classical.peak();
            let (s_peak, s_time) = stress.peak();
            let (g_peak, g_time) = strain.peak();
            rep.checks.push(Check::at_most(
                &format!("{pre}_max_overlap_mc_stress_below_classical"),
                s_peak,
                c_peak,
                0.0,
            ));
            rep.checks.push(Check::at_least(
                &format!("{pre}_max_overlap_mc_strain_above_classical"),
                g_peak,
                c_peak,
                0.0,
            ));
            rep.checks.push(
                Check::at_most(&format!("{pre}_peak_time_mc_stress_vs_classical"), s_time, c_time, 0.0).reference(),
            );
            rep.checks.push(
                Check::at_most(&format!("{pre}_peak_time_mc_strain_vs_classical"), g_time, c_time, 0.0).reference(),
            );
            if extent == Extent::Full {
                rep.checks.push(
                    Check::at_most(
                        &format!("{pre}_contact_time_mc_stress_vs_classical"),
                        stress.contact_time(),
                        classical.contact_time(),
                        0.0,
                    )
                    .reference(),
                );
                rep.checks.push(
                    Check::at_least(
                        &format!("{pre}_final_kinetic_mc_strain_vs_classical"),
                        strain.kinetic[strain.kinetic.len() - 1],
                        classical.kinetic[classical.kinetic.len() - 1],
                        0.0,
                    )
                    .reference(),
                );
                rep.checks.push(
                    Check::at_most(
                        &format!("{pre}_contact_time_mc_strain_vs_classical"),
                        strain.contact_time(),
                        classical.contact_time(),
                        0.0,
                    )
                    .reference(),
                );
            }
            for (model, h) in &runs {
                rep.traces.push(Trace {
                    name: format!("{name}_{n}p_{}_overlap", model.key()),
                    values: h.law_overlap.clone(),
                });
                rep.traces.push(Trace {
                    name: format!("{name}_{n}p_{}_kinetic", model.key()),
                    values: h.kinetic.clone(),
                });
            }
            let ms = |h: &History, y: &[f64], scale: f64| -> Vec<(f64, f64)> {
                h.t.iter().zip(y).map(|(t, y)| (1e3 * t, scale * y)).collect()
            };
            let mut energy = Vec::new();
            let mut overlaps = Vec::new();
            for (model, h) in &runs {
                energy.push(Series {
                    name: model.label(),
                    points: ms(h, &h.kinetic, 1.0),
                    style: Style::Line,
                });
                overlaps.push(Series {
                    name: if let Model::McStrain(_) = model {
                        format!("{} (δ + Σ, eq 8)", model.label())
                    } else {
                        model.label()
                    },
                    points: ms(h, &h.law_overlap, 1e3),
                    style: Style::Line,
                });
            }
            overlaps.push(Series {
                name: format!("{} (geometric δ)", runs[2].0.label()),
                points: ms(&runs[2].1, &runs[2].1.overlap, 1e3),
                style: Style::Dashed,
            });
            rep.figures.push(Figure {
                file: format!("spheres_fig{fig_e}{panel}_{name}_{n}p_kinetic.png"),
                caption: format!(
                    "Fig. {fig_e}{panel}: kinetic energy of {n} {name} spheres, outer ones at 10 m/s towards the centre"
                ),
                spec: PlotSpec {
                    title: format!("{n} {name} spheres: kinetic energy"),
                    x_label: "t (ms)".into(),
                    y_label: "kinetic energy (J)".into(),
                    series: energy,
                },
            });
            rep.figures.push(Figure {
                file: format!("spheres_fig{fig_o}{panel}_{name}_{n}p_overlap.png"),
                caption: format!(
                    "Fig. {fig_o}{panel}: overlap of the central sphere with its +x neighbour, {n} {name} spheres; \
                     peaks {:.3} mm classical, {:.3} mm MC-stress, {:.3} mm MC-strain (δ + Σ)",
                    1e3 * c_peak,
                    1e3 * s_peak,
                    1e3 * g_peak
                ),
                spec: PlotSpec {
                    title: format!("{n} {name} spheres: central overlap"),
                    x_label: "t (ms)".into(),
                    y_label: "overlap (mm)".into(),
                    series: overlaps,
                },
            });
        }
    }
    rep.seconds = t0.elapsed().as_secs_f64();
    Ok(rep)
}
