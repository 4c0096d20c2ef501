//! Validation rows `beads_relax_*` (issue 24, validation 5; the paper's Fig. 10 and §3.2.1):
//! force relaxation of a Kelvin–Voigt bead sphere compressed, then held.
//!
//! **The analytic limit: one KV bond behind an eq-6 plate.** Bead 0 held, bead 1 (m = 10⁻⁵ kg)
//! joined to it by a KV bond (k = 0.2 N/m, b = 0.05 N s/m) and pushed by an eq-6 plane
//! (S = 0.2 N/m²) that advances D = 1 m at 5 m/s, then is held. The plate (a nonlinear spring,
//! stiffness 2 S p) in series with the KV bond is a standard linear solid: the plate force
//! relaxes from its value at the stop to F∞ = k u∞ with k u∞ = S (D − u∞)² (u∞ = 0.382 m), late
//! in time as e^{−t/τ} with τ = b / (k + 2 S (D − u∞)) (massless, linearised: m K / b² = 0.2 %).
//! Rows: F∞ (10⁻³), the whole history against the f64 RK4 of m ü = S (P − u)² − k u − b u̇
//! (10⁻³ of F∞), τ from the late decay (1 %). A single KV bond alone cannot relax (its force
//! follows the imposed extension); the compliance in series is what makes a network of KV
//! bonds relax — the paper's explanation (§2.2.2, a generalised KV model).
//!
//! **The sphere.** The cubic-lattice sphere of `beads_sphere` (n² − 1 cut; k = 200 N/m,
//! l = 12.5 µm, beads of 1000 kg/m³ · l³ on their centres, S = 10¹⁰ N/m², Δt = 2 ns, plates at
//! 2 m/s relative to δ/2R = 10 %) with the paper's b = 10⁻⁶ N s/m, then held. The held force is
//! fitted with a two-term Prony series F∞ + a1 e^{−t/t1} + a2 e^{−t/t2} (`fits::prony2_fit`);
//! E0 = E(F(0)) with F(0) the force at the stop and E∞ = E(F∞) by eq 1 (the method of the
//! paper's ref. 35 as the issue states it). Asserted: E0 > E∞; the viscous part of the loading
//! force (the part that relaxes) within 10 % of the massless KV-network limit τ dF_el/dt
//! (uniform τ = b/k: every bond carries k(X + τ Ẋ), so the force while loading is
//! F_el + τ dF_el/dt; `viscous_excess`); F∞ equal to the elastic sphere's force at the same δ
//! (validation 3's sphere, held; the dashpots carry nothing at rest) within 2 %. The stop itself rings (the surface beads on the stiff eq-6
//! plates, period ≈ 4 ns) for ~20 ns; the fit spans it. Reported: E0, E∞ against
//! the paper's 54 and 34 MPa, t1 and t2 against 0.49 s and 4.6 × 10⁻⁵ s. With b/k = 5 ns the
//! bonds' own relaxation is 10³ times shorter than a wave's transit: what relaxes here is the
//! ringing the loading left (times of the order of the transit and of its KV damping, µs), and
//! the paper's 0.49 s cannot be reached by any run of its stated step (10⁻¹¹ s: 5 × 10¹⁰ steps).

use super::{CaseReport, Check};
use crate::backend::BackendKind;
use crate::beads::build_body;
use crate::beads::fits::{loglog_slope, prony2_fit, Prony2};
use crate::beads::forces::{BeadForces, BeadPlane, LoadProfile};
use crate::beads::scenes::{
    compress_and_hold, paper_compression_spec, single_bond_scene, BeadRun, CompressionSample, CompressionSpec,
};
use crate::gpu::context::GpuContext;

/// The single-bond relaxation's parameters.
pub const BOND_K: f64 = 0.2;
pub const BOND_B: f64 = 0.05;
pub const BOND_M: f64 = 1e-5;
pub const PLATE_S: f64 = 0.2;
pub const PLATE_D: f64 = 1.0;
pub const PLATE_V: f64 = 5.0;

/// u∞ of k u = S (D − u)², the root in (0, D).
pub fn bond_u_inf() -> f64 {
    // S u² − (2 S D + k) u + S D² = 0, smaller root.
    let (a, b, c) = (
        PLATE_S,
        -(2.0 * PLATE_S * PLATE_D + BOND_K),
        PLATE_S * PLATE_D * PLATE_D,
    );
    (-b - (b * b - 4.0 * a * c).sqrt()) / (2.0 * a)
}

/// The late relaxation time b / (k + 2 S (D − u∞)).
pub fn bond_tau() -> f64 {
    BOND_B / (BOND_K + 2.0 * PLATE_S * (PLATE_D - bond_u_inf()))
}

/// Plate force of the f64 RK4 reference m ü = S max(P − u, 0)² − k u − b u̇ at the times
/// `dt`, 2 dt, …, `steps` dt (P = v min(t, D/v)).
pub fn bond_reference(dt: f64, steps: usize) -> Vec<f64> {
    let t_stop = PLATE_D / PLATE_V;
    let plate = |t: f64| PLATE_V * t.min(t_stop);
    let acc = |t: f64, u: f64, w: f64| {
        let p = (plate(t) - u).max(0.0);
        (PLATE_S * p * p - BOND_K * u - BOND_B * w) / BOND_M
    };
    // Substeps of dt/10 keep RK4's error far below the stepper's.
    let h = dt / 10.0;
    let (mut u, mut w, mut t) = (0.0f64, 0.0f64, 0.0f64);
    let mut out = Vec::with_capacity(steps);
    for _ in 0..steps {
        for _ in 0..10 {
            (u, w) = super::ode::rk4_step(acc, t, u, w, h);
            t += h;
        }
        let p = (plate(t) - u).max(0.0);
        out.push(PLATE_S * p * p);
    }
    out
}

/// What the single-bond relaxation measured.
#[derive(Clone, Debug, PartialEq)]
pub struct BondRelaxation {
    /// Plate force at the end of the run over F∞ = k u∞, minus 1.
    pub f_inf_error: f64,
    /// Largest |F − F_RK4| over the run, relative to F∞.
    pub history_error: f64,
    /// τ from the late decay (|F − F∞| between 10 % and 0.1 % of its value at the stop).
    pub tau: f64,
    /// Plate force at the stop over F∞ (> 1: it relaxes).
    pub overshoot: f64,
}

/// The single KV bond behind a plate, stepped for `hold_taus` relaxation times after the stop
/// with Δt = `dt`.
pub fn bond_relaxation(ctx: Option<&GpuContext>, dt: f64, hold_taus: f64) -> anyhow::Result<BondRelaxation> {
    let never = LoadProfile::Step {
        on: f64::INFINITY,
        off: f64::INFINITY,
    };
    let mut scene = single_bond_scene(BOND_K, BOND_B, BOND_M, 0.0, never, dt);
    let r = scene.states[1].radius as f64;
    let plane = BeadPlane {
        point: [10.0 + r, 0.0, 0.0],
        normal: [-1.0, 0.0, 0.0],
        velocity: [-PLATE_V, 0.0, 0.0],
        stop_time: PLATE_D / PLATE_V,
        s: PLATE_S as f32,
    };
    scene.forces = BeadForces::new(scene.forces.bonds.clone(), vec![plane], Vec::new(), f32::INFINITY);
    let mut run = match ctx {
        Some(c) => BeadRun::gpu(c, scene)?,
        None => BeadRun::cpu(scene),
    };
    let t_stop = PLATE_D / PLATE_V;
    let steps = ((t_stop + hold_taus * bond_tau()) / dt).round() as usize;
    let reference = bond_reference(dt, steps);
    let f_inf = BOND_K * bond_u_inf();
    let stop_step = (t_stop / dt).round() as usize;
    let mut history = Vec::with_capacity(steps);
    let mut err = 0.0f64;
    for f_ref in &reference {
        run.step(ctx)?;
        // The force of the evaluation at the end of step s + 1 (time (s + 1) dt).
        let f = run.plane_force(ctx)[0][0] as f64;
        err = err.max((f - f_ref).abs() / f_inf);
        history.push(f);
    }
    let f0 = history[stop_step - 1];
    let amp = f0 - f_inf;
    let late: Vec<(f64, f64)> = history
        .iter()
        .enumerate()
        .skip(stop_step)
        .filter(|(_, f)| (**f - f_inf) < 0.1 * amp && (**f - f_inf) > 1e-3 * amp)
        .map(|(s, f)| ((s + 1) as f64 * dt, (f - f_inf).ln()))
        .collect();
    let (slope, _) = crate::beads::fits::line_fit(&late);
    Ok(BondRelaxation {
        f_inf_error: history[steps - 1] / f_inf - 1.0,
        history_error: err,
        tau: -1.0 / slope,
        overshoot: f0 / f_inf,
    })
}

/// The viscoelastic sphere of validation 5 for n lattice spacings: `beads_sphere`'s lattice,
/// k and S with the paper's b = 10⁻⁶ N s/m, and light beads (ρ = 1 kg/m³, Δt = 5 × 10⁻¹¹ s:
/// the paper's 10⁻¹¹ s step points to beads far lighter than our 1000 kg/m³ of validation 3)
/// loaded at 200 m/s relative (3 % of the wave speed sqrt(E/ρ) = 6.3 km/s), so that the
/// loading is quasi-static for the waves but fast for the bonds (τ δ̇/δ ≈ 0.05–0.1).
pub fn sphere_spec(n: f64) -> CompressionSpec {
    let mut s = paper_compression_spec(n);
    let l = s.body.spacing;
    s.body.b = 1e-6;
    s.body.bead_mass = RHO * l * l * l;
    s.dt = 5e-11;
    s.speed = 200.0;
    s
}

/// Bead density of the viscoelastic sphere (kg/m³).
pub const RHO: f64 = 1.0;

/// What the sphere's relaxation measured.
#[derive(Clone, Debug, PartialEq)]
pub struct SphereRelaxation {
    /// The loading record (for the viscous excess against the elastic sphere).
    pub loading: Vec<CompressionSample>,
    pub beads: usize,
    pub prony: Prony2,
    pub e0: f64,
    pub e_inf: f64,
    /// Force at the stop (t = 0 of the hold).
    pub f_stop: f64,
    /// Mean force over the last fifth of the hold.
    pub f_rest: f64,
    /// dln F/dln δ over the last fifth of the loading.
    pub log_slope: f64,
    /// τ δ̇ (τ = b/k, δ̇ the platen speed).
    pub tau_rate: f64,
    pub delta: f64,
    pub outer_radius: f64,
}

/// Compresses `sphere_spec(n)`, holds for `hold` seconds and fits the held force (about
/// `samples` samples) with the two-term Prony series.
pub fn sphere_relaxation(
    ctx: Option<&GpuContext>,
    n: f64,
    hold: f64,
    samples: usize,
) -> anyhow::Result<SphereRelaxation> {
    let sp = sphere_spec(n);
    let hold_steps = (hold / sp.dt).round() as usize;
    let rec = compress_and_hold(ctx, &sp, 100, hold_steps, (hold_steps / samples).max(1))?;
    let stop = rec.loading().last().copied().expect("samples");
    let (t, f): (Vec<f64>, Vec<f64>) = std::iter::once(&stop)
        .chain(rec.hold())
        .map(|s| (s.time - stop.time, s.force()))
        .unzip();
    let prony = prony2_fit(&t, &f);
    // E0 from the force at t = 0 (the stop), E∞ from the fit's limit, both by eq 1.
    let e0 = Prony2::modulus(stop.force(), stop.delta, rec.outer_radius, 0.25);
    let e_inf = Prony2::modulus(prony.f_inf, stop.delta, rec.outer_radius, 0.25);
    let rest = &rec.hold()[rec.hold().len() * 4 / 5..];
    let f_rest = rest.iter().map(|s| s.force()).sum::<f64>() / rest.len() as f64;
    let log_slope = loglog_slope(rec.loading(), 0.8 * stop.delta, stop.delta);
    let tau = sp.body.b / sp.body.k;
    Ok(SphereRelaxation {
        loading: rec.loading().to_vec(),
        beads: rec.beads,
        prony,
        e0,
        e_inf,
        f_stop: stop.force(),
        f_rest,
        log_slope,
        tau_rate: tau * sp.speed,
        delta: stop.delta,
        outer_radius: rec.outer_radius,
    })
}

/// The elastic sphere of validation 3 (`beads_sphere::spec(n)`: b = 10⁻⁵ N s/m, 1000 kg/m³,
/// 2 m/s): its loading record and the mean force over a hold of a quarter of its loading (the
/// elastic force at δ/2R = 10 %).
pub fn elastic_reference(ctx: Option<&GpuContext>, n: f64) -> anyhow::Result<(Vec<CompressionSample>, f64)> {
    let sp = paper_compression_spec(n);
    let steps = (sp.stop_time(build_body(&sp.body).outer_radius) / sp.dt).ceil() as usize;
    let rec = compress_and_hold(ctx, &sp, 100, steps / 4, (steps / 200).max(1))?;
    let h = rec.hold();
    Ok((
        rec.loading().to_vec(),
        h.iter().map(|s| s.force()).sum::<f64>() / h.len() as f64,
    ))
}

/// F of a loading record at δ (linear interpolation in δ).
fn force_at(rec: &[CompressionSample], delta: f64) -> f64 {
    let k = rec.partition_point(|s| s.delta < delta).clamp(1, rec.len() - 1);
    let (a, b) = (rec[k - 1], rec[k]);
    let w = ((delta - a.delta) / (b.delta - a.delta)).clamp(0.0, 1.0);
    a.force() + w * (b.force() - a.force())
}

/// The viscous part of the loading force over the last fifth of the loading, measured and
/// predicted, both over the elastic force at the stop: measured, the mean of F_KV(δ) − F_el(δ);
/// predicted (massless KV network of uniform τ: every bond carries k (X + τ Ẋ), so the force is
/// F_el + τ dF_el/dt), τ δ̇ times the secant slope of F_el over the same range. Averages over a
/// fifth of the loading smooth the lattice's steps (a new terrace touching the plate) and the
/// ringing of the surface beads.
pub fn viscous_excess(s: &SphereRelaxation, elastic: &[CompressionSample]) -> (f64, f64) {
    let d_end = s.delta;
    let d_start = 0.8 * d_end;
    let f_end = force_at(elastic, d_end);
    let late: Vec<&CompressionSample> = s.loading.iter().filter(|x| x.delta >= d_start).collect();
    let measured = late.iter().map(|x| x.force() - force_at(elastic, x.delta)).sum::<f64>() / late.len() as f64;
    let slope = (f_end - force_at(elastic, d_start)) / (d_end - d_start);
    (measured / f_end, s.tau_rate * slope / f_end)
}

pub fn run(kind: BackendKind) -> anyhow::Result<CaseReport> {
    let start = std::time::Instant::now();
    let ctx = match kind {
        BackendKind::Gpu => Some(GpuContext::new()?),
        BackendKind::Cpu => None,
    };
    let ctx = ctx.as_ref();
    let mut checks = Vec::new();
    // The single bond: 10⁵ steps, CPU only (on lavapipe a step costs ~1 ms; the GPU bond pass
    // equals the CPU's bit for bit in tests/beads_gpu.rs).
    if ctx.is_none() {
        let b = bond_relaxation(None, 1e-5, 12.0)?;
        checks.push(Check::absolute("beads_relax_bond_f_inf", b.f_inf_error, 0.0, 1e-3));
        checks.push(Check::at_most("beads_relax_bond_vs_rk4", b.history_error, 0.0, 1e-3));
        checks.push(Check::relative("beads_relax_bond_tau", b.tau, bond_tau(), 0.01));
        checks.push(Check::at_least("beads_relax_bond_relaxes", b.overshoot, 1.0, 0.0));
    }
    let n = if ctx.is_some() { 6.0 } else { 8.0 };
    let s = sphere_relaxation(ctx, n, HOLD, 400)?;
    let (el_loading, elastic) = elastic_reference(ctx, n)?;
    checks.extend(sphere_checks(&s, &el_loading, elastic));
    Ok(CaseReport {
        case: "beads_relax".into(),
        setup: format!(
            "single KV bond behind an eq-6 plate (k = {BOND_K}, b = {BOND_B}, S = {PLATE_S}); lattice sphere n = {n} ({} beads), k = 200 N/m, b = 1e-6 N s/m, ρ = {RHO} kg/m³, Δt = 5e-11 s, δ/2R = 10 % at 200 m/s, held {HOLD:e} s; Prony: F∞ = {:.4e} N, a1 = {:.3e} N, t1 = {:.3e} s, a2 = {:.3e} N, t2 = {:.3e} s; elastic sphere (validation 3) {elastic:.4e} N",
            s.beads, s.prony.f_inf, s.prony.a1, s.prony.t1, s.prony.a2, s.prony.t2
        ),
        checks,
        seconds: start.elapsed().as_secs_f64(),
        backend: format!("{kind:?}"),
        ..Default::default()
    })
}

/// The sphere's rows: E0 > E∞; the viscous part of the loading force (what relaxes) against the
/// massless KV limit (`viscous_excess`, within `EXCESS_TOL`); F∞ against the elastic sphere's
/// force at the same δ (2 %) and against the end of the hold (0.5 %: the fit's limit is where
/// the record went) — asserted; E0, E∞, t1, t2 against the paper's figures — reported.
pub fn sphere_checks(s: &SphereRelaxation, el_loading: &[CompressionSample], elastic: f64) -> Vec<Check> {
    let (excess, limit) = viscous_excess(s, el_loading);
    vec![
        Check::at_least("beads_relax_e0_over_e_inf", s.e0 / s.e_inf, 1.0, 0.0),
        Check::relative("beads_relax_viscous_excess_vs_kv_limit", excess, limit, EXCESS_TOL),
        Check::relative("beads_relax_f_inf_vs_elastic", s.prony.f_inf, elastic, 0.02),
        Check::relative("beads_relax_f_inf_vs_end_of_hold", s.prony.f_inf, s.f_rest, 0.005),
        Check::relative("beads_relax_e0", s.e0, 54e6, 0.2).reference(),
        Check::relative("beads_relax_e_inf", s.e_inf, 34e6, 0.2).reference(),
        Check::relative("beads_relax_t1", s.prony.t1, 0.49, 0.5).reference(),
        Check::relative("beads_relax_t2", s.prony.t2, 4.6e-5, 0.5).reference(),
    ]
}

/// Relative tolerance of the viscous excess against the massless KV limit (inertia and the elastic
/// plates in series make up the difference).
pub const EXCESS_TOL: f64 = 0.1;

/// Hold after the stop (s).
pub const HOLD: f64 = 200e-9;
