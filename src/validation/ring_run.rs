//! The compressed ring of §5 (Figs 11–26) as a run: its parameters from the case files, the
//! scene and the loading, recorded as samples (`ring_compression` checks them, `plastic_limit`
//! runs its rate study on them).
//!
//! **Case files.** The parameters of the three variants are in `scenarios/validation/`
//! (`elastic_ring.toml`, `plastic_ring.toml`, `stiff_core.toml`), embedded at build time and
//! parsed by [`Params::new`] (errors name the file and the key).
//!
//! **Particle.** A regular N-gon of radius R = 1 (N = `nodes`, divisible by 4 so b0 = 2R),
//! depth s = 1, node mass m = 1. The shell follows eq 11–12 with ν = 0 and E h = k_s = 1; its
//! thickness h is set by the stiffness ratio ξ = k_b/(k_s ℓ²) = h²/(12 ℓ²) of eq 19:
//! ξ = `xi` = 0.25 (h = √(12ξ) ℓ ≈ 1.7 ℓ), so k_b = ξ k_s ℓ² and the sphero-segment half-thickness is
//! r = h/2. Characteristic quantities: F* = k_b/R (eq 32), M* = F* ℓ (eq 34), F** = M^Y/ℓ
//! (eq 35), K_∂Ω = (k_s/s) tan(π/N) (eq 25), K_Ω = η K_∂Ω (eq 20).
//! - elastic ring: no core (η = 0: "a floppy membrane" whose shape is held by bending alone; no
//!   gas or drained pressure is needed), M^Y = ∞.
//! - plastic ring: as the elastic ring with M_b^Y = γ M*, γ = 5×10⁻⁵ (eq 27).
//! - stiff core: undrained core (eq 4, p0 = 0) with K_Ω = η K_∂Ω, η = 10⁵.
//!
//! **Walls.** Two frozen open lines of one segment each (length 5R, half-thickness r), touching
//! the particle at y = ±(R + 2r). Frictionless contacts (μ = 0: the normal forces of the
//! analytic models only) with k_n = `kn_over_ks`·k_s.
//!
//! **Loading.** Both walls move towards each other at speed v until each has travelled
//! 0.35 R (ε = 0.35 at the walls), then back at the same speed to their start, then the particle
//! relaxes with the walls at rest (`relax_fraction` of the loading time). The rate is
//! quasi-static: v R/v_c ≪ 1 with the slowest shape mode (see [`Params::wall_speed`]); global
//! viscous damping c_v and local damping α remove the kinetic energy. Halving v changes the
//! measured curves by less than their tolerances (checked while choosing v; see
//! docs/validation.md).
//!
//! **Time step.** dt = 0.5·√(m/k_max) with k_max the largest of k_s, 4k_b/ℓ², k_n and the
//! stiffness of the core's breathing mode, K_Ω s² ℓ² N/V0 (the core couples all N nodes; the
//! scene's `critical_dt` counts only one node's share of it, see docs/validation.md), so the
//! scene's time step is `TimeStep::Fixed`.

use super::measure;
use crate::backend::BackendKind;
use crate::diagnostics;
use crate::engine::spd::create;
use crate::model::*;
use std::f64::consts::PI;

/// Maximum strain ε = 1 − b/b0 of the paper (Fig. 11); the case files must use it (the
/// figures' axes and the eq 30 line are drawn up to it).
pub const EPS_MAX: f64 = 0.35;

/// Which particle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Elastic,
    Plastic,
    StiffCore,
}

impl Variant {
    /// Check-name prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            Variant::Elastic => "elastic_ring",
            Variant::Plastic => "plastic_ring",
            Variant::StiffCore => "stiff_core",
        }
    }
}

/// Parameters of one run.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub variant: Variant,
    pub n: usize,
    pub xi: f64,
    /// η = K_Ω/K_∂Ω (0: no core).
    pub eta: f64,
    /// γ = M^Y/M* (∞: elastic).
    pub gamma: f64,
    pub kn_over_ks: f64,
    /// Loading time in units of the slowest bending period of the ring (see `wall_speed`).
    pub load_periods: f64,
    /// Global viscous damping rate in units of the slowest bending angular frequency.
    pub viscous: f64,
    /// Local damping α.
    pub local: f64,
    /// Unload and relax after the loading.
    pub unload: bool,
    /// Unloading speed over loading speed.
    pub unload_speedup: u64,
    /// Relaxation after unloading, as a fraction of the loading time.
    pub relax_fraction: f64,
    /// Fraction of the loading that `Extent::Prefix` (the GPU tests) runs.
    pub gpu_prefix: f64,
    /// Fraction of the loading run actually done (1 for the full case; the GPU prefix runs less).
    pub fraction: f64,
    /// The plastic ring's loading-rate study (`[rate_study]` of its case file; issue 19).
    pub rate_study: Option<RateStudy>,
}

/// Three loadings of the plastic ring, each 4× slower than the one before, that show the wall
/// force converge to its quasi-static value (`plastic_limit.rs`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateStudy {
    /// Loading times in ovalisation periods (to ε = ε_max; each run stops at `eps_end`).
    pub load_periods: [f64; 3],
    /// Global viscous damping c_v / ω_b.
    pub viscous: f64,
    /// Local damping α.
    pub local_damping: f64,
    /// Strain at which each loading stops.
    pub eps_end: f64,
    /// Strain window over which the wall force is averaged.
    pub window: [f64; 2],
}

/// The case file of a variant (`scenarios/validation/<prefix>.toml`), as (path, text).
pub fn case_file(variant: Variant) -> (&'static str, &'static str) {
    match variant {
        Variant::Elastic => (
            "scenarios/validation/elastic_ring.toml",
            include_str!("../../scenarios/validation/elastic_ring.toml"),
        ),
        Variant::Plastic => (
            "scenarios/validation/plastic_ring.toml",
            include_str!("../../scenarios/validation/plastic_ring.toml"),
        ),
        Variant::StiffCore => (
            "scenarios/validation/stiff_core.toml",
            include_str!("../../scenarios/validation/stiff_core.toml"),
        ),
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    case: String,
    particle: ParticleSection,
    walls: WallsSection,
    loading: LoadingSection,
    rate_study: Option<RateStudy>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ParticleSection {
    nodes: usize,
    xi: f64,
    eta: f64,
    gamma: f64,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WallsSection {
    kn_over_ks: f64,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LoadingSection {
    eps_max: f64,
    load_periods: f64,
    viscous: f64,
    local_damping: f64,
    unload: bool,
    unload_speedup: u64,
    relax_fraction: f64,
    gpu_prefix: f64,
}

impl Params {
    /// The parameters of `variant` from its case file (panics with the file, line and key on a
    /// malformed file: the files are part of the build).
    pub fn new(variant: Variant) -> Params {
        let (path, text) = case_file(variant);
        Params::parse(variant, path, text).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Parses a ring case file; errors name `path`, the line and the key. The negated
    /// comparisons reject NaN on purpose.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    pub fn parse(variant: Variant, path: &str, text: &str) -> anyhow::Result<Params> {
        let f: CaseFile = super::case_file::parse(path, text)?;
        let bad = |key: &str, why: &str| anyhow::anyhow!("{path}: {key}: {why}");
        if f.case != variant.prefix() {
            return Err(bad(
                "case",
                &format!("is {:?}, expected {:?}", f.case, variant.prefix()),
            ));
        }
        if f.particle.nodes < 8 || !f.particle.nodes.is_multiple_of(4) {
            return Err(bad("particle.nodes", "must be a multiple of 4, at least 8"));
        }
        if !(f.particle.xi > 0.0) || !(f.particle.eta >= 0.0) || !(f.particle.gamma > 0.0) {
            return Err(bad("particle", "xi and gamma must be > 0, eta ≥ 0"));
        }
        if !(f.walls.kn_over_ks > 0.0) {
            return Err(bad("walls.kn_over_ks", "must be > 0"));
        }
        let l = &f.loading;
        if l.eps_max != EPS_MAX {
            return Err(bad("loading.eps_max", &format!("the paper's cases use {EPS_MAX}")));
        }
        if !(l.load_periods > 0.0) || !(l.viscous >= 0.0) || !(0.0..1.0).contains(&l.local_damping) {
            return Err(bad("loading", "load_periods > 0, viscous ≥ 0, 0 ≤ local_damping < 1"));
        }
        if l.unload_speedup == 0 || !(l.relax_fraction >= 0.0) || !(l.gpu_prefix > 0.0 && l.gpu_prefix <= 1.0) {
            return Err(bad(
                "loading",
                "unload_speedup ≥ 1, relax_fraction ≥ 0, 0 < gpu_prefix ≤ 1",
            ));
        }
        if let Some(r) = &f.rate_study {
            let slower = r.load_periods.windows(2).all(|w| w[1] == 4.0 * w[0]);
            if !(r.load_periods[0] > 0.0) || !slower {
                return Err(bad(
                    "rate_study.load_periods",
                    "three rates, each 4× slower: [T, 4T, 16T], T > 0",
                ));
            }
            if !(r.viscous >= 0.0) || !(0.0..1.0).contains(&r.local_damping) {
                return Err(bad("rate_study", "viscous ≥ 0, 0 ≤ local_damping < 1"));
            }
            let ordered = r.eps_end > 0.0
                && r.eps_end <= EPS_MAX
                && r.window[0] > 0.0
                && r.window[0] < r.window[1]
                && r.window[1] <= r.eps_end;
            if !ordered {
                return Err(bad(
                    "rate_study",
                    "0 < eps_end ≤ eps_max, 0 < window[0] < window[1] ≤ eps_end",
                ));
            }
        }
        if (variant == Variant::Plastic) != f.rate_study.is_some() {
            return Err(bad(
                "rate_study",
                "the plastic ring has a [rate_study] section, the others none",
            ));
        }
        Ok(Params {
            rate_study: f.rate_study,
            variant,
            n: f.particle.nodes,
            xi: f.particle.xi,
            eta: f.particle.eta,
            gamma: f.particle.gamma,
            kn_over_ks: f.walls.kn_over_ks,
            load_periods: l.load_periods,
            viscous: l.viscous,
            local: l.local_damping,
            unload: l.unload,
            unload_speedup: l.unload_speedup,
            relax_fraction: l.relax_fraction,
            gpu_prefix: l.gpu_prefix,
            fraction: 1.0,
        })
    }

    /// Segment length ℓ0 of the N-gon of radius 1.
    pub fn ell(&self) -> f64 {
        2.0 * (PI / self.n as f64).sin()
    }
    pub fn k_s(&self) -> f64 {
        1.0
    }
    pub fn k_b(&self) -> f64 {
        self.xi * self.k_s() * self.ell() * self.ell()
    }
    /// Shell thickness h from ξ = h²/(12 ℓ²) (eq 19).
    pub fn h(&self) -> f64 {
        (12.0 * self.xi).sqrt() * self.ell()
    }
    /// F* = k_b/R (eq 32).
    pub fn f_star(&self) -> f64 {
        self.k_b()
    }
    /// M* = F* ℓ (eq 34).
    pub fn m_star(&self) -> f64 {
        self.f_star() * self.ell()
    }
    /// K_∂Ω = (k_s/s) tan(π/N) (eq 25, initial state).
    pub fn k_shell(&self) -> f64 {
        self.k_s() * (PI / self.n as f64).tan()
    }
    pub fn k_core(&self) -> f64 {
        self.eta * self.k_shell()
    }
    /// Initial volume V0 = s · area of the N-gon.
    pub fn v0(&self) -> f64 {
        0.5 * self.n as f64 * (2.0 * PI / self.n as f64).sin()
    }
    /// Largest stiffness (see the module documentation).
    pub fn k_max(&self) -> f64 {
        let l = self.ell();
        let core = self.k_core() * l * l * self.n as f64 / self.v0();
        self.k_s()
            .max(4.0 * self.k_b() / (l * l))
            .max(self.kn_over_ks * self.k_s())
            .max(core)
    }
    pub fn dt(&self) -> f64 {
        0.5 / self.k_max().sqrt()
    }
    /// Angular frequency of the ovalisation mode of a ring, ω² = 7.2 EI/(ρA R⁴) with EI = k_b ℓ
    /// and ρA = m/ℓ.
    pub fn omega_bending(&self) -> f64 {
        (7.2 * self.k_b() * self.ell() * self.ell()).sqrt()
    }
    /// Wall speed: each wall travels 0.35 R in `load_periods` ovalisation periods.
    pub fn wall_speed(&self) -> f64 {
        let t_load = self.load_periods * 2.0 * PI / self.omega_bending();
        0.5 * EPS_MAX * 2.0 / t_load
    }
}

/// One sample of the loading or unloading curve.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    pub step: u64,
    /// Loading (true) or unloading.
    pub loading: bool,
    pub eps: f64,
    /// a/b0.
    pub a_b0: f64,
    pub v_v0: f64,
    /// Number of contact nodes per wall (mean of the two walls): L_c/ℓ.
    pub lc_ell: f64,
    /// Mean wall force (y), positive.
    pub force: f64,
    pub pressure: f64,
    pub w_s: f64,
    pub w_b: f64,
    pub kinetic: f64,
    /// Collapse load of the yielded ring at this geometry, M^Y Σ_quarters 1/Δx_i (limit analysis,
    /// docs/validation.md); 0 for an elastic ring or while a wall has no contact node.
    pub limit_force: f64,
}

/// Everything recorded in one run.
#[derive(Clone, Debug, Default)]
pub struct RingRun {
    pub samples: Vec<Sample>,
    /// (ε, profile) at the first samples with ε ≥ 0.1, 0.2, 0.3, 0.35 (bottom wall).
    pub profiles: Vec<(f64, Vec<(f64, f64)>)>,
    /// Largest distance of a node from its start after unloading and relaxation, over R.
    pub final_max_disp: f64,
    /// b/b0 after unloading.
    pub final_b_b0: f64,
    pub steps: u64,
    pub backend: String,
}

/// The scene: particle (body 0), bottom wall (body 1), top wall (body 2).
pub fn scene(p: &Params) -> Scene {
    let mut sc = Scene::default();
    let ell = p.ell();
    let shell = sc.add_material(Material {
        k_s: p.k_s() as f32,
        f_s_yield: f32::INFINITY,
        c_s: 0.0,
        k_b: p.k_b() as f32,
        m_b_yield: if p.gamma.is_finite() {
            (p.gamma * p.m_star()) as f32
        } else {
            f32::INFINITY
        },
        c_b: 0.0,
        k_core: p.k_core() as f32,
        depth: 1.0,
    });
    let wall = sc.add_material(Material {
        depth: 1.0,
        ..Default::default()
    });
    let r = 0.5 * p.h();
    let core = if p.eta > 0.0 {
        Core::Undrained { p0: 0.0 }
    } else {
        Core::None
    };
    sc.add_ring(
        [0.0, 0.0],
        1.0,
        p.n,
        BodyOptions {
            material: shell,
            radius: r as f32,
            node_mass: 1.0,
            frozen: false,
            self_contact: false,
            core,
        },
    );
    let wo = BodyOptions {
        material: wall,
        radius: r as f32,
        node_mass: 1.0,
        frozen: true,
        self_contact: false,
        core: Core::None,
    };
    let y = 1.0 + 2.0 * r;
    sc.add_line([-2.5, -y], [2.5, -y], 2, wo);
    sc.add_line([2.5, y], [-2.5, y], 2, wo);
    sc.contact = ContactLaw {
        k_n: (p.kn_over_ks * p.k_s()) as f32,
        k_t: 0.0,
        mu: 0.0,
        c_n: 0.0,
    };
    sc.viscous_damping = (p.viscous * p.omega_bending()) as f32;
    sc.local_damping = p.local as f32;
    sc.time_step = TimeStep::Fixed(p.dt() as f32);
    sc.skin = Some((0.5 * ell) as f32);
    sc
}

/// Runs the loading–unloading cycle (or its first `p.fraction` of the loading).
pub fn simulate(kind: BackendKind, p: &Params) -> anyhow::Result<RingRun> {
    let mut sc = scene(p);
    let mut be = create(kind, &sc)?;
    let dt = sc.dt() as f64;
    let v = p.wall_speed();
    let travel = 0.5 * EPS_MAX * 2.0;
    let load_steps = (travel / (v * dt)).ceil() as u64;
    let relax_steps = (p.relax_fraction * load_steps as f64) as u64;
    let n_samples = 200u64;
    let chunk = (load_steps / n_samples).max(1);
    let init = measure::positions(&sc, &sc.init, 0);
    let (_, b0) = measure::extents(&init);
    let v0 = measure::polygon_area(&init);
    let ell = p.ell();
    let f_char = if p.gamma.is_finite() {
        p.gamma * p.m_star() / ell
    } else {
        p.f_star()
    };
    let threshold = 1e-3 * f_char;
    let mut run = RingRun {
        backend: be.name(),
        ..Default::default()
    };
    let profile_at = [0.1, 0.2, 0.3, 0.35];
    let total_load = ((p.fraction * load_steps as f64).ceil() as u64).min(load_steps);
    let set_walls = |sc: &mut Scene, be: &mut Box<dyn crate::Backend>, speed: f64| -> anyhow::Result<()> {
        sc.impose_velocity(&NodeSet::Body(1), Some(0.0), Some(speed as f32));
        sc.impose_velocity(&NodeSet::Body(2), Some(0.0), Some(-speed as f32));
        be.set_boundary_conditions(&sc.nodes)
    };
    let stages: [(f64, u64, bool); 3] = if total_load < load_steps || !p.unload {
        [(v, total_load, true), (0.0, 0, false), (0.0, 0, false)]
    } else {
        let k = p.unload_speedup;
        [
            (v, load_steps, true),
            (-v * k as f64, load_steps / k, false),
            (0.0, relax_steps / k, false),
        ]
    };
    for (speed, steps, loading) in stages {
        if steps == 0 {
            continue;
        }
        set_walls(&mut sc, &mut be, speed)?;
        let mut done = 0u64;
        while done < steps {
            let n = chunk.min(steps - done);
            be.step(n as u32)?;
            done += n;
            if speed == 0.0 && done < steps {
                continue;
            }
            let nodes = be.read_nodes()?;
            let bodies = be.read_bodies()?;
            let contacts = be.read_contacts()?;
            let pos = measure::positions(&sc, &nodes, 0);
            let (a, b) = measure::extents(&pos);
            let vol = measure::polygon_area(&pos);
            let fb = measure::wall_contact_forces(&sc, &contacts, 0, 1);
            let ft = measure::wall_contact_forces(&sc, &contacts, 0, 2);
            let nc = 0.5 * (measure::contact_nodes(&fb, threshold) + measure::contact_nodes(&ft, threshold)) as f64;
            let fwb = diagnostics::body_force(&sc, &nodes, 1)[1];
            let fwt = diagnostics::body_force(&sc, &nodes, 2)[1];
            let e = diagnostics::energies(&sc, &nodes, &bodies, &contacts);
            let limit_force = match measure::hinge_levers(&pos, &fb, &ft, threshold) {
                Some(dx) if p.gamma.is_finite() => p.gamma * p.m_star() * dx.iter().map(|d| 1.0 / d).sum::<f64>(),
                _ => 0.0,
            };
            anyhow::ensure!(e.total().is_finite(), "{}: the state became NaN", p.variant.prefix());
            let s = Sample {
                step: be.steps_done(),
                loading,
                eps: 1.0 - b / b0,
                a_b0: a / b0,
                v_v0: vol / v0,
                lc_ell: nc,
                force: 0.5 * (-fwb + fwt),
                pressure: bodies[0].pressure as f64,
                w_s: e.stretch,
                w_b: e.bending,
                kinetic: e.kinetic,
                limit_force,
            };
            if loading {
                if let Some(&target) = profile_at.get(run.profiles.len()) {
                    if s.eps >= target - 1e-3 {
                        run.profiles
                            .push((s.eps, measure::pressure_profile(&pos, &fb, threshold, f_char, 1.0)));
                    }
                }
            }
            run.samples.push(s);
        }
    }
    let nodes = be.read_nodes()?;
    let pos = measure::positions(&sc, &nodes, 0);
    run.final_max_disp = pos
        .iter()
        .zip(&init)
        .map(|(q, q0)| (q[0] - q0[0]).hypot(q[1] - q0[1]))
        .fold(0.0, f64::max);
    run.final_b_b0 = measure::extents(&pos).1 / b0;
    run.steps = be.steps_done();
    Ok(run)
}
