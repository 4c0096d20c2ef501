//! The validation cases of issue 7 (rows `modal_*` of `softdem validate`):
//!
//! 1. `modal_bending`: three-point bending of a slender beam with the analytic first bending mode
//!    (2D eq 51) between two rigid support cylinders, indented at mid-span by a third; the
//!    normalised force–displacement F̂ = F/(K_g δ0) vs δ̂ = δ/δ0 (eq 52) has slope 1.
//! 2. `modal_disk`: a disk with one tabulated compaction mode and the App. B force table, pressed
//!    by four rigid walls each moved in by u: the total wall force equals F_int(u) (the mode moves
//!    the four contact points in by ε, so ε = u and F_ε = Σ wall forces).
//! 3. `modal_packing`: a 3×3 square packing of those disks compressed by four walls; the total
//!    wall force against F_w(u_w) = (N/3) F_int(u_w/3) = 3 F_int(u_w/3) (docs/modal.md derives
//!    this 2D analogue of eq 59/73 from the same energy balance).
//! 4. `modal_pullback`: the pullback level set (eq 47–48) and the precomputed interpolation
//!    (eq 49–50) against a directly recomputed signed distance of the deformed shape, in the band
//!    |φ| ≤ h around the surface.
//! 5. `modal_query`: the 2×2 packing with both level-set queries (pullback, precomputed): both
//!    wall-force curves against the energy balance, and against each other.

use super::body::{beam, disk, ModalBody};
use super::cpu::CpuModal;
use super::gpu::GpuModal;
use super::layout::ModalState;
use super::level_set::{polygon_sdf, Grid};
use super::precomputed::PrecomputedLevelSets;
use super::quadrature::Elastic;
use super::stepper::{circle_wall, line_wall, ContactParams, ModalBackend, ModalRun, ModalScene};
use super::stiffness::{ModalStiffness, PAPER_COMPACTION_TABLE};
use super::timestep::critical_time_steps;
use crate::backend::BackendKind;
use crate::plot::{PlotSpec, Series, Style};
use crate::validation::checks::{CaseReport, Check, Extent, Figure, Trace};
use std::time::Instant;

/// A recorded run: per sample, time-step index, wall forces and body states.
pub struct Record {
    pub steps: Vec<u64>,
    pub wall_forces: Vec<Vec<[f32; 2]>>,
    pub states: Vec<Vec<ModalState>>,
    pub dt: f32,
}

/// Runs `scene` for `steps` steps on `kind`, sampling every `every` steps.
pub fn run_scene(kind: BackendKind, scene: &ModalScene, steps: u64, every: u64) -> anyhow::Result<Record> {
    let packed = scene.pack()?;
    let state: Vec<ModalState> = scene.bodies.iter().map(|b| b.initial_state()).collect();
    match kind {
        BackendKind::Cpu => drive(
            ModalRun::new(CpuModal::new(packed, state), scene.rebuild_every, scene.skin),
            steps,
            every,
            scene.dt,
        ),
        BackendKind::Gpu => {
            let ctx = crate::gpu::context::GpuContext::new()?;
            drive(
                ModalRun::new(GpuModal::new(ctx, packed, state)?, scene.rebuild_every, scene.skin),
                steps,
                every,
                scene.dt,
            )
        }
    }
}

fn drive<B: ModalBackend>(mut run: ModalRun<B>, steps: u64, every: u64, dt: f32) -> anyhow::Result<Record> {
    let mut rec = Record {
        steps: vec![],
        wall_forces: vec![],
        states: vec![],
        dt,
    };
    let mut done = 0;
    while done < steps {
        let n = every.min(steps - done);
        run.run(n)?;
        done += n;
        rec.steps.push(done);
        rec.wall_forces.push(run.backend.wall_forces()?);
        rec.states.push(run.backend.states()?);
    }
    Ok(rec)
}

/// Node contact with a dashpot at 10 % of the critical damping of one node penalty on m_eff
/// (a modal coordinate feels up to ~16 node contacts at once in the packing: the explicit
/// dashpot must stay well inside its stability limit c·dt/m < 1), and a tangential spring
/// k_t = k_n/2 capped at μ f_n.
fn contact(k_n: f32, m_eff: f32, mu: f32) -> ContactParams {
    ContactParams {
        k_n,
        c_n: 0.2 * (k_n * m_eff).sqrt(),
        k_t: 0.5 * k_n,
        mu,
    }
}

// ---------------------------------------------------------------- case 1: three-point bending

/// Beam and loading of case 1 (App. B Table 1 scaled to a 40 × 2 beam: K ≈ M ≈ 1e4, ζ = 1).
pub struct BendingCase {
    pub scene: ModalScene,
    pub k_g: f64,
    pub delta0: f64,
    pub speed: f32,
    pub steps: u64,
}

/// Friction at the supports and the indenter: without it the beam on two round supports has no
/// restoring force sideways and slides off (observed after δ̂ ≈ 0.7). It costs at most
/// μ·|Φ_x(end)| ≈ 0.05 · 0.08 = 0.4 % of F̂ (the supports resisting the ends' rotation).
pub const BENDING_MU: f32 = 0.05;

/// Frictionless, as in the paper's compaction examples (friction at the walls would do work: the
/// outer disks of the packing slide along them).
pub const COMPACTION_MU: f32 = 0.0;

/// Surface nodes per disk (divisible by 4: nodes at the four contact points).
pub const DISK_NODES: usize = 128;

pub fn bending_case() -> anyhow::Result<BendingCase> {
    let (length, t) = (40.0, 2.0);
    let body = beam(
        [0.0, 0.0],
        length,
        t,
        0.5,
        0.5,
        250.0,
        Elastic {
            young: 2.0e7,
            poisson: 0.0,
        },
        1.0,
    );
    let k_g = match &body.stiffness {
        ModalStiffness::Linear(k) => k[0] as f64,
        _ => unreachable!(),
    };
    let k_n = 1.0e7;
    let ts = critical_time_steps(std::slice::from_ref(&body), k_n, 0.2, 0.2)?;
    let dt = ts.dt() as f32;
    let delta0 = 0.5;
    let duration = 60.0;
    let speed = (delta0 / duration) as f32;
    let r = 0.5f32;
    let (a, b) = (0.5 * length as f32, 0.5 * t as f32);
    let walls = vec![
        circle_wall([-a, -b - r], r, [0.0, 0.0]),
        circle_wall([a, -b - r], r, [0.0, 0.0]),
        circle_wall([0.0, b + r], r, [0.0, -speed]),
    ];
    let m_eff = body.modal_mass[0];
    Ok(BendingCase {
        scene: ModalScene {
            bodies: vec![body],
            walls,
            contact: contact(k_n as f32, m_eff, BENDING_MU),
            contact_materials: vec![],
            dt,
            rebuild_every: 1000,
            skin: 1.0,
        },
        k_g,
        delta0,
        speed,
        steps: (duration / dt as f64).ceil() as u64,
    })
}

/// Least-squares slope and intercept.
pub fn fit_line(pts: &[(f64, f64)]) -> (f64, f64) {
    let n = pts.len() as f64;
    let (sx, sy) = pts.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
    let (mx, my) = (sx / n, sy / n);
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let k = sxy / sxx;
    (k, my - k * mx)
}

pub fn run_bending(kind: BackendKind, extent: Extent) -> anyhow::Result<CaseReport> {
    let t0 = Instant::now();
    let c = bending_case()?;
    // GPU prefix on lavapipe: the first half of the loading (δ̂ ≤ 0.5).
    let steps = match extent {
        Extent::Full => c.steps,
        Extent::Prefix => c.steps / 2,
    };
    let rec = run_scene(kind, &c.scene, steps, 100)?;
    let mut pts = Vec::new();
    for (i, n) in rec.steps.iter().enumerate() {
        let delta = c.speed as f64 * (*n as f64 * rec.dt as f64);
        let f = rec.wall_forces[i][2][1] as f64; // force on the indenter, upwards
        pts.push((delta / c.delta0, f / (c.k_g * c.delta0)));
    }
    let fitpts: Vec<(f64, f64)> = pts.iter().cloned().filter(|p| p.0 >= 0.3 && p.0 <= 1.0).collect();
    let (slope, intercept) = fit_line(&fitpts);
    let eps_end = rec.states.last().unwrap()[0].eps[0] as f64;
    let d_end = pts.last().unwrap().0 * c.delta0;
    let mut checks = vec![
        Check::relative("modal_bending_slope", slope, 1.0, 0.02),
        // ε follows the indenter (δ = ε up to the contact compliance).
        Check::relative("modal_bending_eps_over_delta", eps_end / d_end, 1.0, 0.02),
    ];
    checks[1].rule = "ε/δ at the end, relative error ≤ tolerance".into();
    checks[0].rule =
        format!("least-squares slope of F̂(δ̂) over δ̂ ∈ [0.3, 1] (intercept {intercept:.4}), relative error ≤ tolerance");
    Ok(CaseReport {
        case: "modal_bending".into(),
        setup: format!(
            "Beam 40 × 2 (level-set spacing 0.5, {} surface nodes), analytic bending mode (2D eq 51), \
             K_g = {:.4e} and M = {:.4e} by quadrature (eq 4, 8), ζ = 1; supports and indenter are rigid \
             cylinders of radius 0.5; δ0 = {}, {} steps of dt = {:.3e}.",
            c.scene.bodies[0].nodes.len(),
            c.k_g,
            c.scene.bodies[0].modal_mass[0],
            c.delta0,
            c.steps,
            c.scene.dt
        ),
        checks,
        figures: vec![Figure {
            file: "modal_bending.png".into(),
            caption: "Three-point bending with the analytic bending mode: normalised indenter force vs displacement (eq 52), cf. Fig. 4b.".into(),
            spec: PlotSpec {
                title: "Three-point bending, analytic mode (eq 51, 52)".into(),
                x_label: "δ̂ = δ/δ0".into(),
                y_label: "F̂ = F/(K_g δ0)".into(),
                series: vec![
                    Series {
                        name: "modal LS-DEM".into(),
                        points: pts.clone(),
                        style: Style::Line,
                    },
                    Series {
                        name: "F̂ = δ̂".into(),
                        points: vec![(0.0, 0.0), (1.0, 1.0)],
                        style: Style::Line,
                    },
                ],
            },
        }],
        traces: vec![
            Trace {
                name: "force".into(),
                values: pts.iter().map(|p| p.1).collect(),
            },
            Trace {
                name: "eps".into(),
                values: rec.states.iter().map(|s| s[0].eps[0] as f64).collect(),
            },
        ],
        seconds: t0.elapsed().as_secs_f64(),
        backend: format!("{kind:?}"),
    })
}

// ---------------------------------------------------------------- cases 2, 3: compaction

pub const DISK_R: f64 = 10.0;
/// Loading time of cases 2 and 3 (wall speed u_max / duration).
pub const COMPACTION_DURATION: f64 = 40.0;

/// The compaction mode: Φ(p) = −((x/R)³, (y/R)³), tabulated on the grid. It moves the four axis
/// points (±R, 0), (0, ±R) inward by ε and flattens the disk there (a 2D stand-in for the
/// FEM-extracted mode of §4.2, which the paper does not give).
pub fn compaction_mode(p: [f64; 2]) -> [f64; 2] {
    [-(p[0] / DISK_R).powi(3), -(p[1] / DISK_R).powi(3)]
}

pub fn compaction_disk(center: [f64; 2]) -> ModalBody {
    compaction_disk_h(center, 0.5)
}

/// The compaction disk with level-set spacing `h`.
pub fn compaction_disk_h(center: [f64; 2], h: f64) -> ModalBody {
    // Modal damping: critical for the initial tangent stiffness of the table.
    let k0 = (PAPER_COMPACTION_TABLE[1][1] / PAPER_COMPACTION_TABLE[1][0]) as f64;
    let mut b = disk(
        center,
        DISK_R,
        h,
        DISK_NODES,
        1.0,
        compaction_mode,
        ModalStiffness::Table(PAPER_COMPACTION_TABLE.to_vec()),
        0.0,
    );
    b.modal_damping = vec![(2.0 * (k0 * b.modal_mass[0] as f64).sqrt()) as f32];
    b
}

pub struct CompactionCase {
    pub scene: ModalScene,
    /// Inward displacement rate of each wall.
    pub speed: f32,
    pub u_max: f64,
    pub steps: u64,
    /// Number of disks.
    pub n: usize,
}

/// `side` × `side` disks in a square lattice touching each other and four walls; each wall moves
/// in by u_max over the run.
pub fn compaction_case(side: usize, duration: f64) -> anyhow::Result<CompactionCase> {
    compaction_case_h(side, duration, 0.5)
}

/// As [`compaction_case`], with level-set spacing `h`.
pub fn compaction_case_h(side: usize, duration: f64, h: f64) -> anyhow::Result<CompactionCase> {
    // The surface nodes straddling an axis point lie R(1 − cos(π/N)) inside the circle: disks are
    // spaced and walls placed so that these nodes just touch (contact starts at u = 0).
    let r = DISK_R * (std::f64::consts::PI / DISK_NODES as f64).cos();
    let mut bodies = Vec::new();
    let off = (side as f64 - 1.0) * r;
    for j in 0..side {
        for i in 0..side {
            bodies.push(compaction_disk_h(
                [2.0 * r * i as f64 - off, 2.0 * r * j as f64 - off],
                h,
            ));
        }
    }
    let k_n = 2.0e5;
    let ts = critical_time_steps(&bodies, k_n, 0.1, 0.2)?;
    let dt = ts.dt() as f32;
    let u_max = 0.16 * side as f64;
    let speed = (u_max / duration) as f32;
    let e = (off + r) as f32;
    let walls = vec![
        line_wall([-e, 0.0], [1.0, 0.0], [speed, 0.0]),
        line_wall([e, 0.0], [-1.0, 0.0], [-speed, 0.0]),
        line_wall([0.0, -e], [0.0, 1.0], [0.0, speed]),
        line_wall([0.0, e], [0.0, -1.0], [0.0, -speed]),
    ];
    let m_eff = bodies[0].modal_mass[0];
    Ok(CompactionCase {
        scene: ModalScene {
            bodies,
            walls,
            contact: contact(k_n as f32, m_eff, COMPACTION_MU),
            contact_materials: vec![],
            dt,
            rebuild_every: 500,
            skin: 1.0,
        },
        speed,
        u_max,
        steps: (duration / dt as f64).ceil() as u64,
        n: side * side,
    })
}

/// Total normal force of the four walls (each wall's force along its inward normal, reversed).
fn total_wall_force(c: &CompactionCase, wf: &[[f32; 2]]) -> f64 {
    c.scene
        .walls
        .iter()
        .zip(wf)
        .map(|(w, f)| -(f[0] * w.normal[0] + f[1] * w.normal[1]) as f64)
        .sum()
}

fn table_force(eps: f64) -> f64 {
    ModalStiffness::Table(PAPER_COMPACTION_TABLE.to_vec()).force_1d(eps as f32) as f64
}

pub fn run_compaction(kind: BackendKind, extent: Extent, side: usize) -> anyhow::Result<CaseReport> {
    let t0 = Instant::now();
    let c = compaction_case(side, COMPACTION_DURATION)?;
    let name = if side == 1 { "modal_disk" } else { "modal_packing" };
    // GPU prefix on lavapipe (≈1 ms per step for one disk, ≈10 ms for the packing there): the
    // first eighth of the loading for the disk, the first 1000 steps (u_w ≤ 0.014) for the packing.
    let steps = match extent {
        Extent::Full => c.steps,
        Extent::Prefix if side == 1 => c.steps / 8,
        Extent::Prefix => 1000,
    };
    let rec = run_scene(kind, &c.scene, steps, (steps / 100).max(1))?;
    let nf = c.n as f64 / 3.0;
    // The walls start moving at full speed: the start-up transient of the disks' rigid motion
    // (period ≈ 2π√(M/K_tangent) ≈ 3.5 at small ε, modal damping ζ ≈ 0.4) has decayed by
    // u = u_max/4 for one disk and by u_max/2 for the packing; the check covers the rest.
    let check_from = if side == 1 { 0.25 } else { 0.5 };
    let per = side as f64; // u_w = side · ε
    let mut sim = Vec::new();
    let mut reference = Vec::new();
    let mut worst: f64 = 0.0;
    for (i, n) in rec.steps.iter().enumerate() {
        let u = c.speed as f64 * (*n as f64 * rec.dt as f64);
        let f = total_wall_force(&c, &rec.wall_forces[i]);
        // side = 1: F = F_int(u); side = 3: F_w = (N/3) F_int(u/3) (N = 9).
        let fref = if side == 1 {
            table_force(u)
        } else {
            nf * table_force(u / per)
        };
        sim.push((u, f));
        reference.push((u, fref));
        if u >= check_from * c.u_max {
            worst = worst.max((f - fref).abs() / fref);
        }
    }
    let mut check = Check::at_most(&format!("{name}_max_rel_error"), worst, 0.0, 0.02);
    check.rule = format!("max over u ≥ {check_from} u_max of |F − F_ref|/F_ref ≤ tolerance");
    let ref_label = if side == 1 { "table F_int(u)" } else { "3 F_int(u_w/3)" };
    Ok(CaseReport {
        case: name.into(),
        setup: format!(
            "{} disk(s) R = {}, level-set spacing 0.5, {} surface nodes, one tabulated compaction mode \
             Φ = −((x/R)³, (y/R)³) on the grid, App. B force table, M by eq 8 (ρ = 1); four frictionless \
             walls move in by {:.3} over {} steps of dt = {:.3e}; node penalty k_n = {:.1e}.",
            c.n, DISK_R, DISK_NODES, c.u_max, steps, c.scene.dt, c.scene.contact.k_n
        ),
        checks: vec![check],
        figures: vec![Figure {
            file: format!("{name}.png"),
            caption: if side == 1 {
                "Disk with a tabulated compaction mode between four walls: total wall force vs wall displacement against the table (cf. Fig. 5b).".into()
            } else {
                "3×3 packing compressed by four walls: total wall force vs wall displacement against 3 F_int(u_w/3) (2D analogue of eq 59/73, cf. Fig. 6c).".into()
            },
            spec: PlotSpec {
                title: if side == 1 {
                    "Disk compaction, tabulated mode".into()
                } else {
                    "3×3 packing compaction".into()
                },
                x_label: "wall displacement u".into(),
                y_label: "total wall force".into(),
                series: vec![
                    Series {
                        name: "modal LS-DEM".into(),
                        points: sim.clone(),
                        style: Style::Line,
                    },
                    Series {
                        name: ref_label.into(),
                        points: reference,
                        style: Style::Markers,
                    },
                ],
            },
        }],
        traces: vec![
            Trace {
                name: "force".into(),
                values: sim.iter().map(|p| p.1).collect(),
            },
            Trace {
                name: "eps".into(),
                values: rec
                    .states
                    .iter()
                    .flat_map(|s| s.iter().map(|b| b.eps[0] as f64))
                    .collect(),
            },
        ],
        seconds: t0.elapsed().as_secs_f64(),
        backend: format!("{kind:?}"),
    })
}

// ---------------------------------------------------------------- case 4: pullback accuracy

/// Errors (in grid spacings) of the pullback and of the precomputed interpolation against the
/// exact signed distance of the deformed shape, at points with |φ_exact| ≤ h (within one cell of
/// the surface; deeper inside a thin body the distance field has its medial-axis kink).
pub struct PullbackErrors {
    pub pullback_max: f64,
    pub precomputed_max: f64,
    pub samples: usize,
}

/// The sample points of the level-set error checks (case 4 and the two-mode check in
/// tests/modal_validation.rs): a lattice 4× finer than grid `g`, inside the grid's inner part,
/// offset from the grid lines; only the points within h of the exact deformed boundary `poly`
/// and more than 2h from every deformed corner. Calls `f(q, exact signed distance)` per point.
pub fn for_each_ls_sample(g: &Grid, poly: &[[f64; 2]], corners: &[[f64; 2]], mut f: impl FnMut([f32; 2], f64)) {
    let h = g.h as f64;
    for j in 8..(4 * (g.ny - 1) - 8) {
        for i in 8..(4 * (g.nx - 1) - 8) {
            let q = [
                g.origin[0] as f64 + i as f64 * h / 4.0 + 0.013 * h,
                g.origin[1] as f64 + j as f64 * h / 4.0 + 0.007 * h,
            ];
            let exact = polygon_sdf(poly, q);
            if exact.abs() > h || corners.iter().any(|c| (q[0] - c[0]).hypot(q[1] - c[1]) < 2.0 * h) {
                continue;
            }
            f([q[0] as f32, q[1] as f32], exact);
        }
    }
}

/// `body` (one mode) at amplitude `eps`; the exact deformed boundary is the polygon of
/// `dense` boundary points mapped by p + ε Φ(p) (f64).
/// Points within 2h of a deformed `corners` point are skipped: at a sharp corner the bilinear grid
/// itself (ε = 0) is off by up to ~h/4, which is not what this case measures.
pub fn pullback_errors(
    body: &ModalBody,
    eps: f32,
    dense: &[[f64; 2]],
    corners: &[[f64; 2]],
    pre: &PrecomputedLevelSets,
) -> anyhow::Result<PullbackErrors> {
    let scene = ModalScene {
        bodies: vec![body.clone()],
        walls: vec![],
        contact: contact(1.0, 1.0, 0.0),
        contact_materials: vec![],
        dt: 1.0,
        rebuild_every: 1,
        skin: 0.0,
    };
    let sc = scene.pack()?;
    let g = &body.level_set.grid;
    let poly: Vec<[f64; 2]> = dense
        .iter()
        .map(|p| {
            let u = body.modes[0].eval_f64(g, *p);
            [p[0] + eps as f64 * u[0], p[1] + eps as f64 * u[1]]
        })
        .collect();
    let h = g.h as f64;
    let corners_def: Vec<[f64; 2]> = corners
        .iter()
        .map(|p| {
            let u = body.modes[0].eval_f64(g, *p);
            [p[0] + eps as f64 * u[0], p[1] + eps as f64 * u[1]]
        })
        .collect();
    let mut e = PullbackErrors {
        pullback_max: 0.0,
        precomputed_max: 0.0,
        samples: 0,
    };
    let e4 = [eps, 0.0, 0.0, 0.0];
    for_each_ls_sample(g, &poly, &corners_def, |qf, exact| {
        let pb = super::contact::ls_pullback(&sc, &sc.bodies[0], &e4, qf)[0] as f64;
        let pc = pre.query(qf, eps) as f64;
        e.pullback_max = e.pullback_max.max((pb - exact).abs() / h);
        e.precomputed_max = e.precomputed_max.max((pc - exact).abs() / h);
        e.samples += 1;
    });
    Ok(e)
}

/// Case 4: the compaction disk at ε = 0.16 and 0.5 (between precomputed samples) and the beam at
/// ε = 0.5 (bending mode).
pub fn run_pullback() -> anyhow::Result<CaseReport> {
    let t0 = Instant::now();
    let mut checks = Vec::new();
    let mut rows = Vec::new();
    let d = compaction_disk([0.0, 0.0]);
    let dense_disk = super::body::circle_nodes(DISK_R, 4096, 0.0);
    let pre_d = PrecomputedLevelSets::build(&d, &[0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
    for eps in [0.16f32, 0.5] {
        let e = pullback_errors(&d, eps, &dense_disk, &[], &pre_d)?;
        rows.push(("disk", eps, e.pullback_max, e.precomputed_max, e.samples));
    }
    let bc = bending_case()?;
    let bm = &bc.scene.bodies[0];
    let dense_beam = super::body::rectangle_nodes(20.0, 1.0, 0.02);
    let pre_b = PrecomputedLevelSets::build(bm, &[0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
    let corners = [[-20.0, -1.0], [20.0, -1.0], [20.0, 1.0], [-20.0, 1.0]];
    let e = pullback_errors(bm, 0.5, &dense_beam, &corners, &pre_b)?;
    rows.push(("beam", 0.5, e.pullback_max, e.precomputed_max, e.samples));
    for (name, eps, pb, pc, _) in &rows {
        let tag = format!("{name}_{}", (eps * 100.0).round() as i32);
        // ε = 0.16 is the range of cases 2–3 (1.6 % of R); ε = 0.5 on the disk (5 % of R) shows the
        // first-order pullback error |u|·|∇u| growing with ε.
        let tol = if *name == "disk" && *eps > 0.2 {
            PULLBACK_TOL_LARGE_H
        } else {
            PULLBACK_TOL_H
        };
        let mut c1 = Check::at_most(&format!("modal_pullback_{tag}_max_error_h"), *pb, 0.0, tol);
        c1.rule = "max |φ_pullback − φ_exact| / h over |φ_exact| ≤ h ≤ tolerance".into();
        let mut c2 = Check::at_most(
            &format!("modal_precomputed_{tag}_max_error_h"),
            *pc,
            0.0,
            PULLBACK_TOL_H,
        );
        c2.rule = "max |φ_precomputed − φ_exact| / h over |φ_exact| ≤ h ≤ tolerance".into();
        checks.push(c1);
        checks.push(c2);
    }
    Ok(CaseReport {
        case: "modal_pullback".into(),
        setup: format!(
            "Deformed level set at points with |φ_exact| ≤ h (lattice h/4), h = 0.5: pullback (eq 47–48, on demand at \
             cell corners) and precomputed interpolation (eq 49–50, samples ε = 0, 0.2, …, 1.0 recomputed from the \
             deformed surface nodes) against the exact distance to the deformed boundary (4096-point polygon). \
             Rows (body, ε, pullback max/h, precomputed max/h, points): {rows:?}"
        ),
        checks,
        figures: vec![],
        traces: vec![],
        seconds: t0.elapsed().as_secs_f64(),
        backend: "Cpu".into(),
    })
}

/// Tolerance of case 4, in grid spacings (small deformations: disk ε = 0.16, beam ε = 0.5).
pub const PULLBACK_TOL_H: f64 = 0.1;
/// Tolerance of case 4 for the disk at ε = 0.5 (5 % of R).
pub const PULLBACK_TOL_LARGE_H: f64 = 0.3;

// ---------------------------------------------------------------- case 5: query methods

/// Sample amplitudes of the precomputed level sets of case 5 (the disks reach ε ≈ 0.16; a
/// negative start-up transient is clamped to the first sample).
pub const QUERY_SAMPLES: [f32; 6] = [-0.05, 0.0, 0.05, 0.1, 0.15, 0.2];

/// Level-set spacing of case 5 (R/40; cases 2–3 use R/20). The precomputed fields are the
/// distance to the deformed node polygon, sampled on the grid: their bilinear error near a
/// polygon vertex (~h²/(8R)·…, +0.006 at h = 0.5 where the straddling nodes meet) opens the
/// disk–disk contacts and cost 3.4 % of the force at h = 0.5; it falls as h². The pullback's
/// error is first order in the deformation (x − u(x) instead of the inverse map) and does not
/// fall with h: at h = 0.5 it happened to cancel the penalty compliance (0.8 %), at h = 0.25 it
/// shows (+1.7 %).
pub const QUERY_H: f64 = 0.25;

/// Case 5 tolerance: the wall-force curves of the two query methods agree within this fraction
/// of the reference force, over u_w ≥ u_max/2 (where cases 2–3 are checked too). Measured 2.3 %:
/// the pullback is 1.7 % high (its first-order overlap excess), the precomputed 0.6 % low (the
/// penalty compliance); each is within 2 % of the reference, so they can differ by up to 4 %.
pub const QUERY_AGREEMENT_TOL: f64 = 0.03;

/// Case 5 (`modal_query`): the 2×2 packing of compaction disks at level-set spacing `QUERY_H`
/// (the smallest case in which the
/// level sets are queried: disk–disk contacts; a disk against walls never queries its own level
/// set) compressed by four walls, once with the pullback query (eq 47–48) and once with the
/// precomputed level sets (eq 49–50, samples `QUERY_SAMPLES`). Each total wall force against the
/// energy balance F_w = (N/n) F_int(u_w/n) = 2 F_int(u_w/2) (n = 2, N = 4; docs/modal.md case 3)
/// within 2 %, and the two curves within `QUERY_AGREEMENT_TOL` of it.
pub fn run_query(kind: BackendKind, extent: Extent) -> anyhow::Result<CaseReport> {
    let t0 = Instant::now();
    let side = 2;
    let base = compaction_case_h(side, COMPACTION_DURATION, QUERY_H)?;
    // GPU prefix on lavapipe: 1000 steps per method (u_w ≤ 0.009).
    let steps = match extent {
        Extent::Full => base.steps,
        Extent::Prefix => 1000,
    };
    let every = (steps / 100).max(1);
    let mut pre_scene = base.scene.clone();
    for b in &mut pre_scene.bodies {
        b.query = super::body::LevelSetQuery::Precomputed {
            samples: QUERY_SAMPLES.to_vec(),
        };
    }
    let rec_pull = run_scene(kind, &base.scene, steps, every)?;
    let rec_pre = run_scene(kind, &pre_scene, steps, every)?;
    let (nn, per) = ((side * side) as f64, side as f64);
    let check_from = 0.5;
    let mut curves = [Vec::new(), Vec::new()];
    let mut reference = Vec::new();
    let (mut worst, mut worst_pair) = ([0.0f64; 2], 0.0f64);
    for (i, n) in rec_pull.steps.iter().enumerate() {
        let u = base.speed as f64 * (*n as f64 * rec_pull.dt as f64);
        let fref = nn / per * table_force(u / per);
        let f = [
            total_wall_force(&base, &rec_pull.wall_forces[i]),
            total_wall_force(&base, &rec_pre.wall_forces[i]),
        ];
        for m in 0..2 {
            curves[m].push((u, f[m]));
        }
        reference.push((u, fref));
        if u >= check_from * base.u_max {
            for m in 0..2 {
                worst[m] = worst[m].max((f[m] - fref).abs() / fref);
            }
            worst_pair = worst_pair.max((f[1] - f[0]).abs() / fref);
        }
    }
    let mut checks = Vec::new();
    if extent == Extent::Full {
        for (m, tag) in ["pullback", "precomputed"].iter().enumerate() {
            let mut c = Check::at_most(&format!("modal_query_{tag}_max_rel_error"), worst[m], 0.0, 0.02);
            c.rule =
                format!("max over u_w ≥ {check_from} u_max of |F_w − 2 F_int(u_w/2)| / (2 F_int(u_w/2)) ≤ tolerance");
            checks.push(c);
        }
        let mut c = Check::at_most("modal_query_agreement", worst_pair, 0.0, QUERY_AGREEMENT_TOL);
        c.rule =
            format!("max over u_w ≥ {check_from} u_max of |F_precomputed − F_pullback| / (2 F_int(u_w/2)) ≤ tolerance");
        checks.push(c);
    }
    let eps_of = |r: &Record| -> Vec<f64> {
        r.states
            .iter()
            .flat_map(|s| s.iter().map(|b| b.eps[0] as f64))
            .collect()
    };
    let [pull, pre] = curves;
    Ok(CaseReport {
        case: "modal_query".into(),
        setup: format!(
            "2×2 compaction disks as in cases 2–3, once with the pullback level-set query (eq 47–48) and once \
             with precomputed level sets (eq 49–50) at ε = {QUERY_SAMPLES:?}; four frictionless walls move in by \
             {:.3} over {} steps of dt = {:.3e}.",
            base.u_max, steps, base.scene.dt
        ),
        checks,
        figures: vec![Figure {
            file: "modal_query.png".into(),
            caption: "2×2 packing: total wall force with the pullback and the precomputed level-set queries against 2 F_int(u_w/2).".into(),
            spec: PlotSpec {
                title: "Level-set query methods, 2×2 packing".into(),
                x_label: "wall displacement u_w".into(),
                y_label: "total wall force".into(),
                series: vec![
                    Series {
                        name: "pullback (eq 47–48)".into(),
                        points: pull.clone(),
                        style: Style::Line,
                    },
                    Series {
                        name: "precomputed (eq 49–50)".into(),
                        points: pre.clone(),
                        style: Style::Line,
                    },
                    Series {
                        name: "2 F_int(u_w/2)".into(),
                        points: reference,
                        style: Style::Markers,
                    },
                ],
            },
        }],
        traces: vec![
            Trace {
                name: "force_pullback".into(),
                values: pull.iter().map(|p| p.1).collect(),
            },
            Trace {
                name: "force_precomputed".into(),
                values: pre.iter().map(|p| p.1).collect(),
            },
            Trace {
                name: "eps_pullback".into(),
                values: eps_of(&rec_pull),
            },
            Trace {
                name: "eps_precomputed".into(),
                values: eps_of(&rec_pre),
            },
        ],
        seconds: t0.elapsed().as_secs_f64(),
        backend: format!("{kind:?}"),
    })
}

/// Every modal case (what `softdem validate` appends).
pub fn run_all(kind: BackendKind) -> anyhow::Result<Vec<CaseReport>> {
    Ok(vec![
        run_bending(kind, Extent::Full)?,
        run_compaction(kind, Extent::Full, 1)?,
        run_compaction(kind, Extent::Full, 3)?,
        run_pullback()?,
        run_query(kind, Extent::Full)?,
    ])
}
