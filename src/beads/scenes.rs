//! Ready-made bead scenes on the sphere steppers, from plain parameters: the single Kelvin–Voigt
//! bond of the paper's §2.2.1 (Figs 2–4) and the diametric compression of a bead sphere between
//! two eq-6 planes (§2.2.2, Figs 6–7, 10). Used by validation (`validation::beads_*`), the tests
//! and `softdem bench --scene beads`; each runs on the CPU stepper or the GPU one.

use super::bonds::{Bond, BondList};
use super::forces::{BeadForces, BeadPlane, LoadProfile, PointLoad};
use super::generators::{build_body, BeadBody, BodyShape, BodySpec};
use super::gpu::GpuBeadForces;
use super::no_contact_table;
use crate::gpu::context::GpuContext;
use crate::laws::vec3::V3;
use crate::spheres::cpu_stepper::CpuSpheres;
use crate::spheres::gpu_stepper::GpuSpheres;
use crate::spheres::pair_law::LawTable;
use crate::spheres::{SphereParams, SphereState};

/// Everything a stepper needs for a bead scene.
#[derive(Clone, Debug)]
pub struct BeadScene {
    pub params: SphereParams,
    pub states: Vec<SphereState>,
    pub laws: LawTable,
    pub forces: BeadForces,
}

/// A bead scene on either stepper.
pub enum BeadRun {
    Cpu(Box<CpuSpheres>),
    Gpu(Box<GpuSpheres>),
}

impl BeadRun {
    pub fn cpu(scene: BeadScene) -> BeadRun {
        let mut sys = CpuSpheres::new(scene.params, scene.states, scene.laws, Vec::new());
        sys.add_extra(Box::new(scene.forces));
        BeadRun::Cpu(Box::new(sys))
    }

    pub fn gpu(ctx: &GpuContext, scene: BeadScene) -> anyhow::Result<BeadRun> {
        let mut sys = GpuSpheres::new(ctx, scene.params, &scene.states, &scene.laws, &[])?;
        sys.add_extra(ctx, Box::new(GpuBeadForces::new(ctx, scene.forces)?))?;
        Ok(BeadRun::Gpu(Box::new(sys)))
    }

    pub fn step(&mut self, ctx: Option<&GpuContext>) -> anyhow::Result<()> {
        match self {
            BeadRun::Cpu(s) => s.step(),
            BeadRun::Gpu(s) => s.step(ctx.expect("a GPU run needs its context"))?,
        }
        Ok(())
    }

    /// `k` steps: the GPU stepper records them many per submission (`steps_batched`), the same
    /// bits as `k` calls of `step`.
    pub fn steps(&mut self, ctx: Option<&GpuContext>, k: u32) -> anyhow::Result<()> {
        match self {
            BeadRun::Cpu(s) => (0..k).for_each(|_| s.step()),
            BeadRun::Gpu(s) => s.steps_batched(ctx.expect("a GPU run needs its context"), k)?,
        }
        Ok(())
    }

    pub fn states(&self, ctx: Option<&GpuContext>) -> Vec<SphereState> {
        match self {
            BeadRun::Cpu(s) => s.states.clone(),
            BeadRun::Gpu(s) => s.states(ctx.expect("a GPU run needs its context")),
        }
    }

    /// The bead source's host record (planes, loads, evaluation count; on the GPU its bonds
    /// are the initial ones).
    pub fn host(&self) -> &BeadForces {
        match self {
            BeadRun::Cpu(s) => s.extra[0].as_any().downcast_ref::<BeadForces>().expect("bead source"),
            BeadRun::Gpu(s) => {
                &s.extra()[0]
                    .as_any()
                    .downcast_ref::<GpuBeadForces>()
                    .expect("bead source")
                    .host
            }
        }
    }

    /// Force of the beads on each plane at the last evaluation.
    pub fn plane_force(&self, ctx: Option<&GpuContext>) -> Vec<V3> {
        match self {
            BeadRun::Cpu(_) => self.host().plane_force.clone(),
            BeadRun::Gpu(s) => s.extra()[0]
                .as_any()
                .downcast_ref::<GpuBeadForces>()
                .expect("bead source")
                .plane_force(ctx.expect("context")),
        }
    }

    /// The bonds with their current break records, and each bond's last force (for stresses).
    pub fn bonds(&self, ctx: Option<&GpuContext>) -> (BondList, Vec<V3>) {
        match self {
            BeadRun::Cpu(_) => (self.host().bonds.clone(), self.host().bond_force.clone()),
            BeadRun::Gpu(s) => {
                let g = s.extra()[0]
                    .as_any()
                    .downcast_ref::<GpuBeadForces>()
                    .expect("bead source");
                let ctx = ctx.expect("context");
                (g.bonds(ctx), g.bond_force(ctx))
            }
        }
    }

    /// The bead source as measured at the last evaluation (bonds and bond forces read back).
    pub fn measured(&self, ctx: Option<&GpuContext>) -> BeadForces {
        let mut f = self.host().clone();
        (f.bonds, f.bond_force) = self.bonds(ctx);
        f.plane_force = self.plane_force(ctx);
        f
    }

    pub fn dt(&self) -> f32 {
        match self {
            BeadRun::Cpu(s) => s.params.dt,
            BeadRun::Gpu(s) => s.params.dt,
        }
    }
}

/// Two beads 10 m apart (longer than any displacement of the paper's cases, so the bond never
/// passes through zero length) joined by one bond (k, b): bead 0 held (mass 10³⁰), bead 1 of mass m
/// pulled along +x by `load` (F along x). The paper's Fig. 1 system.
pub fn single_bond_scene(k: f64, b: f64, m: f64, force: f64, profile: LoadProfile, dt: f64) -> BeadScene {
    let bead = |x: f64, mass: f64| SphereState {
        pos_hi: [x as f32, 0.0, 0.0],
        radius: 0.25,
        mass: mass as f32,
        inertia: (0.4 * mass * 0.0625) as f32,
        ..Default::default()
    };
    let states = vec![bead(0.0, 1e30), bead(10.0, m)];
    let bonds = BondList::new(
        2,
        vec![Bond {
            i: 0,
            j: 1,
            rest: 10.0,
            k: k as f32,
            b: b as f32,
            ..Default::default()
        }],
    );
    let load = PointLoad {
        bead: 1,
        force: [force, 0.0, 0.0],
        profile,
    };
    BeadScene {
        params: SphereParams {
            dt: dt as f32,
            skin: 20.0,
            ..Default::default()
        },
        states,
        laws: no_contact_table(1),
        forces: BeadForces::new(bonds, Vec::new(), vec![load], f32::INFINITY),
    }
}

/// Diametric compression: a body between two eq-6 planes tangent to its beads' surfaces (centre
/// ± l/2) at its top and bottom, both moving towards the centre at `speed`/2 (relative speed `speed`) until the
/// plates' displacement δ reaches `strain` · 2 R_o, then held. Beads of mass `body.bead_mass`,
/// bonds of the body's k, b; global damping `damping` (1/s, 0 for none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompressionSpec {
    pub body: BodySpec,
    pub speed: f64,
    pub strain: f64,
    pub s: f64,
    pub dt: f64,
    pub damping: f64,
}

impl CompressionSpec {
    /// Time at which the plates stop (δ = strain · 2R_o).
    pub fn stop_time(&self, outer_radius: f64) -> f64 {
        self.strain * 2.0 * outer_radius / self.speed
    }
}

/// The scene of `spec` and the body it built.
pub fn compression_scene(spec: &CompressionSpec) -> (BeadScene, BeadBody) {
    let body = build_body(&spec.body);
    let c = spec.body.center;
    let t_stop = spec.stop_time(body.outer_radius);
    let v = 0.5 * spec.speed;
    // Tangent to the beads' surfaces along z (the pole of a lattice sphere may lie below R_o).
    let r = spec.body.contact_radius;
    let z_top = body.states.iter().map(|s| s.position()[2]).fold(f64::MIN, f64::max) + r;
    let z_bottom = body.states.iter().map(|s| s.position()[2]).fold(f64::MAX, f64::min) - r;
    let planes = vec![
        BeadPlane {
            point: [c[0], c[1], z_top],
            normal: [0.0, 0.0, -1.0],
            velocity: [0.0, 0.0, -v],
            stop_time: t_stop,
            s: spec.s as f32,
        },
        BeadPlane {
            point: [c[0], c[1], z_bottom],
            normal: [0.0, 0.0, 1.0],
            velocity: [0.0, 0.0, v],
            stop_time: t_stop,
            s: spec.s as f32,
        },
    ];
    let scene = BeadScene {
        params: SphereParams {
            dt: spec.dt as f32,
            skin: (0.5 * spec.body.spacing) as f32,
            global_damping: spec.damping as f32,
            ..Default::default()
        },
        states: body.states.clone(),
        laws: no_contact_table(spec.body.material as usize + 1),
        forces: BeadForces::new(body.bonds.clone(), planes, Vec::new(), f32::INFINITY),
    };
    (scene, body)
}

/// One sample of a compression: time, plate displacement δ, force on the top and bottom
/// plates (z components, the top one positive in compression, the bottom one negated).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompressionSample {
    pub time: f64,
    pub delta: f64,
    pub f_top: f64,
    pub f_bottom: f64,
}

impl CompressionSample {
    /// Mean of the two plate forces.
    pub fn force(&self) -> f64 {
        0.5 * (self.f_top + self.f_bottom)
    }
}

/// Runs `steps` steps, sampling every `every` (and after the last); the steps between samples
/// go in one `BeadRun::steps`.
pub fn run_compression(
    run: &mut BeadRun,
    ctx: Option<&GpuContext>,
    steps: usize,
    every: usize,
) -> anyhow::Result<Vec<CompressionSample>> {
    let mut out = Vec::new();
    let dt = run.dt();
    let every = every.max(1);
    let mut s = 0;
    while s < steps {
        let next = ((s / every + 1) * every).min(steps);
        run.steps(ctx, (next - s) as u32)?;
        s = next;
        let h = run.host();
        let t = h.time(dt);
        let (top, bottom) = (h.planes[0], h.planes[1]);
        let delta = top.point[2] - top.point_at(t)[2] + bottom.point_at(t)[2] - bottom.point[2];
        let f = run.plane_force(ctx);
        out.push(CompressionSample {
            time: t,
            delta,
            f_top: f[0][2] as f64,
            f_bottom: -f[1][2] as f64,
        });
    }
    Ok(out)
}

/// Least-squares Hertz fit F = A δ^{3/2} (eq 1) over the samples with δ in [lo, hi]; returns
/// A and the Young's modulus E = 3 (1 − ν²) A / sqrt(2R).
pub fn hertz_fit(samples: &[CompressionSample], lo: f64, hi: f64, radius: f64, nu: f64) -> (f64, f64) {
    let (mut num, mut den) = (0.0, 0.0);
    for s in samples.iter().filter(|s| s.delta >= lo && s.delta <= hi) {
        let d15 = s.delta.powf(1.5);
        num += s.force() * d15;
        den += d15 * d15;
    }
    let a = num / den;
    (a, 3.0 * (1.0 - nu * nu) * a / (2.0 * radius).sqrt())
}

/// Hertz fit with an offset, F = A (δ − δ₀)^{3/2}: a straight line through F^{2/3} against δ
/// over the samples with δ in [lo, hi] (least squares); returns (A, δ₀, E). The offset absorbs
/// the lattice sphere's surface, rough at the scale of l (a single bead or a small facet at the
/// pole touches first), which eq 1's smooth sphere does not have.
pub fn hertz_fit_offset(samples: &[CompressionSample], lo: f64, hi: f64, radius: f64, nu: f64) -> (f64, f64, f64) {
    let pts: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| s.delta >= lo && s.delta <= hi && s.force() > 0.0)
        .map(|s| (s.delta, s.force().powf(2.0 / 3.0)))
        .collect();
    let n = pts.len() as f64;
    let (sx, sy) = pts.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
    let (mx, my) = (sx / n, sy / n);
    let (sxy, sxx) = pts.iter().fold((0.0, 0.0), |a, p| {
        (a.0 + (p.0 - mx) * (p.1 - my), a.1 + (p.0 - mx) * (p.0 - mx))
    });
    let slope = sxy / sxx;
    let a = slope.powf(1.5);
    let d0 = mx - my / slope;
    (a, d0, 3.0 * (1.0 - nu * nu) * a / (2.0 * radius).sqrt())
}

/// The compression of validation row 3 for a sphere of n lattice spacings: k = 200 N/m,
/// l = 12.5 µm (E = 40 MPa by eq 5), all lattice points with |x|² ≤ (n² − 1) l² (the six poles of
/// the n l shell excluded: n = 32 gives the paper's 137,059 beads), beads of 1000 kg/m³ · l³ with
/// contact radius l/100 (eq 6 on the centres), b = 10⁻⁵ N s/m, S = 10¹⁰ N/m², plates at 2 m/s
/// relative to δ/2R = 10 %, Δt = 2 ns (docs/beads.md, choices).
pub fn paper_compression_spec(n: f64) -> CompressionSpec {
    let l = 12.5e-6;
    CompressionSpec {
        body: BodySpec {
            shape: BodyShape::CubicSphere {
                radius: (n * n - 1.0).sqrt() * l,
            },
            spacing: l,
            k: 200.0,
            b: 1e-5,
            shell: None,
            bead_mass: 1000.0 * l * l * l,
            contact_radius: 0.01 * l,
            material: 0,
            center: [0.0; 3],
        },
        speed: 2.0,
        strain: 0.1,
        s: 1e10,
        dt: 2e-9,
        damping: 0.0,
    }
}

/// A compression record: the samples of the loading (about `load_samples` of them, the last at
/// the stop) followed by those of `hold_steps` steps with the plates held (every `hold_every`).
#[derive(Clone, Debug)]
pub struct CompressionRecord {
    pub samples: Vec<CompressionSample>,
    /// Index of the first held sample.
    pub hold_start: usize,
    pub beads: usize,
    pub outer_radius: f64,
}

impl CompressionRecord {
    pub fn loading(&self) -> &[CompressionSample] {
        &self.samples[..self.hold_start]
    }

    pub fn hold(&self) -> &[CompressionSample] {
        &self.samples[self.hold_start..]
    }
}

/// Runs the compression of `spec` on the CPU (`ctx` None) or the GPU to its stop, then holds.
pub fn compress_and_hold(
    ctx: Option<&GpuContext>,
    spec: &CompressionSpec,
    load_samples: usize,
    hold_steps: usize,
    hold_every: usize,
) -> anyhow::Result<CompressionRecord> {
    let (scene, body) = compression_scene(spec);
    let beads = scene.states.len();
    let mut run = match ctx {
        Some(c) => BeadRun::gpu(c, scene)?,
        None => BeadRun::cpu(scene),
    };
    let r = body.outer_radius;
    let steps = (spec.stop_time(r) / spec.dt).ceil() as usize;
    let mut samples = run_compression(&mut run, ctx, steps, (steps / load_samples.max(1)).max(1))?;
    let hold_start = samples.len();
    if hold_steps > 0 {
        samples.extend(run_compression(&mut run, ctx, hold_steps, hold_every.max(1))?);
    }
    Ok(CompressionRecord {
        samples,
        hold_start,
        beads,
        outer_radius: r,
    })
}
