//! Validation rows `beads_core_shell_*` (issue 24, validation 6; the paper's §3.3, Figs 13–14):
//! disordered spheres of about 6065 beads (R = 11.3 l; 900 beads, R = 6 l, on the GPU) with a
//! core and a shell of h/r = 0.2, compressed between eq-6 planes to δ/2R = 5 % (2 m/s, Δt = 2 ns,
//! beads of 1000 kg/m³ · l³, dashpots b = 5 × 10⁻⁸ s · k, the same relaxation time in every bond).
//! The force at 5 % relative to the homogeneous k = 200 N/m sphere: soft shell (k_shell = 20)
//! against the paper's ≈ 11 %, soft core (k_core = 0.2) against ≈ 67 % — reported (the paper's
//! approximate reading of its figures, with its own mesh); asserted: the paper's conclusion that
//! the shell carries the load at small deformation (soft-shell ratio < soft-core ratio; at the
//! paper's bead count, CPU: at the GPU's 900 beads it does not hold and is reported) and both
//! below 1. The h/r sweep of Figs 13b–14b (`hr_sweep`, `sweep_checks`): HC-SS and SC-HS
//! at h/r = 0.05, 0.2, 0.5, 1. HC-SS against the continuum of a soft layer bonded on a hard
//! half-space (`beads::layered_contact`): the ratio at h/r = 0.2 and the sweep's, and the
//! continuum against the paper's 0.11, reported (the single stop sample rings; the CI test
//! averages and asserts).

use super::{CaseReport, Check};
use crate::backend::BackendKind;
use crate::beads::layered_contact::soft_shell_force_ratio;
use crate::beads::scenes::{compression_scene, run_compression, BeadRun, CompressionSpec};
use crate::beads::{BodyShape, BodySpec, Shell};
use crate::gpu::context::GpuContext;

/// Bead spacing l of validation 6's spheres (m).
pub const CORE_SHELL_L: f64 = 12.5e-6;
/// Dashpot time b/k of validation 6's bonds (s).
pub const CORE_SHELL_TAU: f64 = 5e-8;

/// Validation 6's compression: a disordered sphere of `radius_l` spacings (seed 24), bonds of
/// k_core, and shell bonds of (h/r, k_shell) when `shell` is given, b = τ k, pressed at 2 m/s to
/// δ/2R = 5 % between eq-6 plates.
pub fn core_shell_spec(radius_l: f64, k_core: f64, shell: Option<(f64, f64)>) -> CompressionSpec {
    let (l, tau) = (CORE_SHELL_L, CORE_SHELL_TAU);
    CompressionSpec {
        body: BodySpec {
            shape: BodyShape::Disordered {
                radius: radius_l * l,
                seed: 24,
            },
            spacing: l,
            k: k_core,
            b: tau * k_core,
            shell: shell.map(|(h_over_r, k_shell)| Shell {
                h_over_r,
                k: k_shell,
                b: tau * k_shell,
            }),
            bead_mass: 1000.0 * l * l * l,
            contact_radius: 0.01 * l,
            material: 0,
            center: [0.0; 3],
        },
        speed: 2.0,
        strain: 0.05,
        s: 1e10,
        dt: 2e-9,
        damping: 0.0,
    }
}

/// Force at δ/2R = 5 % of a disordered core–shell sphere (k_core, k_shell, h/r).
pub fn force_at_5_percent(
    ctx: Option<&GpuContext>,
    radius_l: f64,
    k_core: f64,
    k_shell: f64,
    h_over_r: f64,
) -> anyhow::Result<f64> {
    let spec = core_shell_spec(radius_l, k_core, Some((h_over_r, k_shell)));
    let (scene, body) = compression_scene(&spec);
    let mut run = match ctx {
        Some(c) => BeadRun::gpu(c, scene)?,
        None => BeadRun::cpu(scene),
    };
    let steps = (spec.stop_time(body.outer_radius) / spec.dt).ceil() as usize;
    let s = run_compression(&mut run, ctx, steps, steps)?;
    Ok(s.last().map_or(0.0, |x| x.force()))
}

/// The h/r values of the paper's Figs 13b–16b.
pub const H_OVER_R: [f64; 4] = [0.05, 0.2, 0.5, 1.0];

/// Forces at δ/2R = 5 % over `H_OVER_R` for a hard core with a soft shell (HC-SS, k_core = 200,
/// k_shell = 20 N/m, Fig. 13b) and a soft core with a hard shell (SC-HS, k_core = 2,
/// k_shell = 200 N/m, Fig. 14b's caption; the text's 0.2 is the h/r = 0.2 row of `run`). At
/// h/r = 1 every bond is a shell bond: the SC-HS sphere is the homogeneous hard one, whose force
/// `hard` is passed in rather than run again.
pub fn hr_sweep(ctx: Option<&GpuContext>, radius_l: f64, hard: f64) -> anyhow::Result<([f64; 4], [f64; 4])> {
    let mut hcss = [0.0; 4];
    let mut schs = [0.0; 4];
    for (i, &h) in H_OVER_R.iter().enumerate() {
        hcss[i] = force_at_5_percent(ctx, radius_l, 200.0, 20.0, h)?;
        schs[i] = if h >= 1.0 {
            hard
        } else {
            force_at_5_percent(ctx, radius_l, 2.0, 200.0, h)?
        };
    }
    Ok((hcss, schs))
}

/// The sweep's rows. Each force relative to the homogeneous hard sphere `hard` (reference).
/// Asserted at every size: the HC-SS force falls and the SC-HS force rises with h/r (a thicker
/// shell replaces core bonds by shell bonds), and for HC-SS the paper's "increasing h/r from
/// 0.05 to 0.2 changed the force more than from 0.2 to 1". The paper's cut-off statement (the
/// force barely changes above h/r = 0.5), |F(1) − F(0.5)| ≤ `SWEEP_BOUND` · F(0.5): asserted
/// for HC-SS when `bound_asserted` (the paper's bead count; at R = 6 l the shell of h/r = 0.5
/// is 3 beads thick and the change is 33 %), reported for SC-HS (22 % at R = 11.3 l: a core of
/// k = 2 N/m and radius R/2 is not negligible in our network; docs/beads.md).
pub fn sweep_checks(hcss: &[f64; 4], schs: &[f64; 4], hard: f64, bound_asserted: bool) -> Vec<Check> {
    let mut c = Vec::new();
    for (i, h) in H_OVER_R.iter().enumerate() {
        c.push(
            Check::absolute(
                &format!("beads_core_shell_hcss_h{h}_ratio"),
                hcss[i] / hard,
                0.0,
                f64::INFINITY,
            )
            .reference(),
        );
        c.push(
            Check::absolute(
                &format!("beads_core_shell_schs_h{h}_ratio"),
                schs[i] / hard,
                0.0,
                f64::INFINITY,
            )
            .reference(),
        );
    }
    let falls = hcss.windows(2).map(|w| w[1] / w[0]).fold(0.0, f64::max);
    let rises = schs.windows(2).map(|w| w[1] / w[0]).fold(f64::MAX, f64::min);
    c.push(Check::at_most("beads_core_shell_hcss_falls_with_h", falls, 1.0, 0.0));
    c.push(Check::at_least("beads_core_shell_schs_rises_with_h", rises, 1.0, 0.0));
    // |ΔF(0.2 → 1)| / |ΔF(0.05 → 0.2)| < 1.
    let late_over_early = |f: &[f64; 4]| (f[3] - f[1]).abs() / (f[1] - f[0]).abs();
    c.push(Check::at_most(
        "beads_core_shell_hcss_late_over_early_change",
        late_over_early(hcss),
        1.0,
        0.0,
    ));
    c.push(
        Check::at_most(
            "beads_core_shell_schs_late_over_early_change",
            late_over_early(schs),
            1.0,
            0.0,
        )
        .reference(),
    );
    let above = |f: &[f64; 4]| (f[3] - f[2]).abs() / f[2];
    let hc = Check::at_most("beads_core_shell_hcss_change_above_h0.5", above(hcss), 0.0, SWEEP_BOUND);
    c.push(if bound_asserted { hc } else { hc.reference() });
    c.push(Check::at_most("beads_core_shell_schs_change_above_h0.5", above(schs), 0.0, SWEEP_BOUND).reference());
    c
}

/// The bound on the relative change of the force at 5 % from h/r = 0.5 to 1.
pub const SWEEP_BOUND: f64 = 0.15;

/// The bound on the network's HC-SS ratio against the layered-contact continuum (relative; see
/// `run` and `tests/beads_core_shell.rs`, `soft_shell_sphere_against_the_layered_contact`).
pub const LAYERED_BOUND: f64 = 0.3;

pub fn run(kind: BackendKind) -> anyhow::Result<CaseReport> {
    let start = std::time::Instant::now();
    let ctx = match kind {
        BackendKind::Gpu => Some(GpuContext::new()?),
        BackendKind::Cpu => None,
    };
    let ctx = ctx.as_ref();
    let r = if ctx.is_some() { 6.0 } else { 11.3 };
    let hard = force_at_5_percent(ctx, r, 200.0, 200.0, 0.2)?;
    let soft_shell = force_at_5_percent(ctx, r, 200.0, 20.0, 0.2)? / hard;
    let soft_core = force_at_5_percent(ctx, r, 0.2, 200.0, 0.2)? / hard;
    let (hcss, schs) = hr_sweep(ctx, r, hard)?;
    // The paper's conclusion holds at its bead count (R = 11.3 l: 0.164 < 0.231) but not at the
    // GPU's R = 6 l (0.229 > 0.106: a shell of 0.2 R is 1.2 beads thick there): asserted on the
    // CPU only.
    let carries = Check::at_most(
        "beads_core_shell_shell_carries_the_load",
        soft_shell - soft_core,
        0.0,
        0.0,
    );
    let carries = if ctx.is_none() { carries } else { carries.reference() };
    // HC-SS against the continuum (`beads::layered_contact`: a soft layer of 0.2 R, E ratio
    // k_shell/k_core = 0.1, ν = 0.25, bonded on a hard half-space under a rigid sphere of radius R,
    // w = δ/2): 0.247 at 5 %, against our network's ratio and the paper's 0.11 (the continuum's
    // value at δ/2R ≈ 0.07 %). Reference rows: this row's network ratio is the single sample at
    // the stop (0.164 at R = 11.3 l), which carries the soft shell's ringing (0.173–0.201 about 0.184
    // while loading) and the dashpots' drop at the stop; `tests/beads_core_shell.rs`
    // (`soft_shell_sphere_against_the_layered_contact`) averages over the ringing and asserts
    // `LAYERED_BOUND` (0.184: −25 %).
    let continuum = soft_shell_force_ratio(0.2, 0.05, 0.1, 0.25);
    let mut checks = vec![
        Check::absolute("beads_core_shell_soft_shell_ratio", soft_shell, 0.11, 0.05).reference(),
        Check::relative(
            "beads_core_shell_soft_shell_vs_layered_contact",
            soft_shell,
            continuum,
            LAYERED_BOUND,
        )
        .reference(),
        Check::absolute("beads_core_shell_layered_contact_ratio", continuum, 0.11, 0.05).reference(),
        Check::absolute("beads_core_shell_soft_core_ratio", soft_core, 0.67, 0.1).reference(),
        carries,
        Check::at_most("beads_core_shell_soft_core_below_hard", soft_core, 1.0, 0.0),
    ];
    checks.extend(sweep_checks(&hcss, &schs, hard, ctx.is_none()));
    // The sweep's HC-SS ratios against the continuum at the same h/r (reference: at h/r = 0.05
    // the shell is thinner than a bead spacing, at h/r = 1 the exact ratio is 0.1 and the
    // continuum's flat substrate is not in the sphere).
    for (i, &h) in H_OVER_R.iter().enumerate() {
        checks.push(
            Check::relative(
                &format!("beads_core_shell_hcss_h{h}_vs_layered_contact"),
                hcss[i] / hard,
                soft_shell_force_ratio(h, 0.05, 0.1, 0.25),
                LAYERED_BOUND,
            )
            .reference(),
        );
    }
    Ok(CaseReport {
        case: "beads_core_shell".into(),
        setup: format!("disordered sphere R = {r} l, h/r = 0.2, force at δ/2R = 5 %: hard sphere {hard:.4e} N"),
        checks,
        seconds: start.elapsed().as_secs_f64(),
        backend: format!("{kind:?}"),
        ..Default::default()
    })
}
