//! Validation rows `beads_sphere_*` (issue 24, validation 3): an elastic cubic-lattice sphere
//! (k = 200 N/m, l = 12.5 µm, so E = 2.5 k/l = 40 MPa by eq 5) compressed between two eq-6 planes
//! (S = 10¹⁰ N/m², on the bead centres) to δ = 10 % of 2R at a relative platen speed of 2 m/s
//! (about 10 wave transits), beads of ρ l³ with ρ = 1000 kg/m³, Δt = 2 ns, a weak bond dashpot
//! b = 10⁻⁵ N s/m against ringing. The sphere is the paper's cut scaled: all lattice points
//! with |x|² < (n l)², the six poles of the n l shell excluded (n = 32 gives the paper's
//! 137,059 beads); n = 16 (17,077 beads) on the CPU, n = 8 on the GPU (lavapipe's step cost).
//!
//! Rows: the plate forces agree (asserted 3 %; the loading is symmetric, so this guards the
//! twins' symmetry); the Hertz fit of eq 1 over
//! δ/2R ∈ [2 %, 10 %] (R = the beads' outer radius, ν = 0.25) against 40 MPa and the depth of the
//! maximum of |σ1 − σ3|/2 under the contact against 0.48a (a = sqrt(R δ/2)), both **reported**:
//! at these sizes the cut's flat pole facet (radius ≈ 0.3 R) dominates the contact, so the fit is
//! not yet Hertz's (docs/beads.md gives the figures against the cut). Also reported, the other
//! well-defined fits of the same record (docs/beads.md, "What the fits show"): eq 1 through the
//! origin over the whole loading, F = A (δ − δ₀)^{3/2} with its offset δ₀, and the log-log
//! slope of F against δ (1 for a flat punch, 3/2 for Hertz).

use super::{CaseReport, Check};
use crate::backend::BackendKind;
use crate::beads::fits::loglog_slope;
use crate::beads::scenes::{compression_scene, hertz_fit, hertz_fit_offset, run_compression, BeadRun, CompressionSpec};
use crate::beads::stress::{axis_shear_profile, peak_depth};
use crate::gpu::context::GpuContext;

pub use crate::beads::scenes::paper_compression_spec as spec;

/// Measured figures of one compression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SphereFigures {
    pub beads: usize,
    /// Eq 1 fitted through the origin over δ/2R ∈ [2 %, 10 %] (the row's figure).
    pub young: f64,
    /// Eq 1 fitted through the origin over the whole loading (F against δ^{3/2}, Fig. 6b).
    pub young_whole: f64,
    /// F = A (δ − δ₀)^{3/2} over δ/2R ∈ [2 %, 10 %]: E from A, and δ₀ / l.
    pub young_offset: f64,
    pub offset_over_l: f64,
    /// dln F / dln δ over δ/2R ∈ [2 %, 10 %] (Hertz: 3/2, a flat punch: 1).
    pub slope: f64,
    pub force_balance: f64,
    pub shear_depth_over_a: f64,
    pub spacing_over_a: f64,
}

pub fn compress(ctx: Option<&GpuContext>, spec: &CompressionSpec) -> anyhow::Result<SphereFigures> {
    let (scene, body) = compression_scene(spec);
    let n = scene.states.len();
    let mut run = match ctx {
        Some(c) => BeadRun::gpu(c, scene)?,
        None => BeadRun::cpu(scene),
    };
    let r = body.outer_radius;
    let steps = (spec.stop_time(r) / spec.dt).ceil() as usize;
    let samples = run_compression(&mut run, ctx, steps, (steps / 200).max(1))?;
    let (lo, hi) = (0.02 * 2.0 * r, 0.1 * 2.0 * r);
    let (_, young) = hertz_fit(&samples, lo, hi, r, 0.25);
    let (_, young_whole) = hertz_fit(&samples, 0.0, hi, r, 0.25);
    let (_, d0, young_offset) = hertz_fit_offset(&samples, lo, hi, r, 0.25);
    let slope = loglog_slope(&samples, lo, hi);
    let last = samples
        .last()
        .copied()
        .unwrap_or(crate::beads::scenes::CompressionSample {
            time: 0.0,
            delta: 0.0,
            f_top: 0.0,
            f_bottom: 0.0,
        });
    let forces = run.measured(ctx);
    let t = forces.time(spec.dt as f32);
    let z_top = forces.planes[0].point_at(t)[2];
    let l = spec.body.spacing;
    // The upper half of the axis: under the top contact.
    let profile: Vec<(f64, f64)> =
        axis_shear_profile(&run.states(ctx), &forces, t, l * l * l, [0.0, 0.0], 0.5 * l, z_top)
            .into_iter()
            .filter(|p| p.0 < 0.5 * last.delta.mul_add(-1.0, 2.0 * r))
            .collect();
    let a = (r * last.delta / 2.0).sqrt();
    Ok(SphereFigures {
        beads: n,
        young,
        young_whole,
        young_offset,
        offset_over_l: d0 / spec.body.spacing,
        slope,
        force_balance: (last.f_top - last.f_bottom).abs() / last.force().abs().max(1e-300),
        shear_depth_over_a: peak_depth(&profile) / a,
        spacing_over_a: l / a,
    })
}

pub fn run(kind: BackendKind) -> anyhow::Result<CaseReport> {
    let start = std::time::Instant::now();
    let ctx = match kind {
        BackendKind::Gpu => Some(GpuContext::new()?),
        BackendKind::Cpu => None,
    };
    let n = if ctx.is_some() { 8.0 } else { 16.0 };
    let f = compress(ctx.as_ref(), &spec(n))?;
    // The lattice's eq-1 fit against the facetted continuum's under the same fit (validation 3,
    // `beads::facet`): asserted from n = 12 on (n = 16: 0.99), reference on the GPU's n = 8
    // (1.16: two terraces inside the contact are coarser than a continuum).
    let model = crate::beads::facet::facet_fit_ratio(n, 0.02, 0.10) * 40e6;
    let facet = Check::relative("beads_sphere_hertz_young_over_facet_model", f.young / model, 1.0, 0.06);
    let checks = vec![
        Check::at_most("beads_sphere_plate_force_balance", f.force_balance, 0.0, 0.03),
        if n >= 12.0 { facet } else { facet.reference() },
        Check::relative("beads_sphere_hertz_young", f.young, 40e6, 0.05).reference(),
        Check::relative("beads_sphere_hertz_young_whole_loading", f.young_whole, 40e6, 0.05).reference(),
        Check::relative("beads_sphere_hertz_young_offset_fit", f.young_offset, 40e6, 0.05).reference(),
        Check::absolute("beads_sphere_hertz_offset_over_l", f.offset_over_l, 0.0, 1.0).reference(),
        Check::absolute("beads_sphere_loglog_slope", f.slope, 1.5, 0.2).reference(),
        Check::absolute(
            "beads_sphere_max_shear_depth_over_a",
            f.shear_depth_over_a,
            0.48,
            f.spacing_over_a,
        )
        .reference(),
    ];
    Ok(CaseReport {
        case: "beads_sphere".into(),
        setup: format!("cubic-lattice sphere n = {n} ({} beads), δ/2R = 10 %", f.beads),
        checks,
        seconds: start.elapsed().as_secs_f64(),
        backend: format!("{kind:?}"),
        ..Default::default()
    })
}
