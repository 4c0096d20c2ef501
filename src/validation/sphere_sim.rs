//! The sphere steppers behind one small interface for the `spheres_*` validation cases: the CPU
//! reference (`spheres::cpu_stepper::CpuSpheres`) or its GPU twin (`spheres::gpu_stepper`), built
//! from the same records, so every case runs unchanged on `--backend cpu|gpu`. The cases build
//! their systems programmatically on the steppers (no scenario file: the `[spheres]` section of
//! the shared driver is not part of this module).

use crate::backend::BackendKind;
use crate::gpu::context::GpuContext;
use crate::laws::vec3::V3;
use crate::spheres::cpu_stepper::CpuSpheres;
use crate::spheres::gpu_stepper::GpuSpheres;
use crate::spheres::pair_law::{LawTable, SphereMaterial};
use crate::spheres::{PlaneWall, SphereForce, SphereParams, SphereState};

/// (x, y) samples of a curve (strain–stress, strain–force).
pub type Curve = Vec<(f64, f64)>;

/// Makes systems on one backend; holds the GPU context a case's systems share.
pub struct SimFactory {
    pub kind: BackendKind,
    ctx: Option<GpuContext>,
}

impl SimFactory {
    /// Errors on `Gpu` when no adapter can be used (a GPU test then fails, never skips).
    pub fn new(kind: BackendKind) -> anyhow::Result<SimFactory> {
        let ctx = match kind {
            BackendKind::Cpu => None,
            BackendKind::Gpu => Some(GpuContext::new()?),
        };
        Ok(SimFactory { kind, ctx })
    }

    /// `cpu` or `gpu` (the report's backend column).
    pub fn name(&self) -> String {
        match self.kind {
            BackendKind::Cpu => "cpu".into(),
            BackendKind::Gpu => "gpu".into(),
        }
    }

    /// A system at rest in its initial forces (as `CpuSpheres::new` / `GpuSpheres::new`).
    pub fn make(
        &self,
        params: SphereParams,
        states: Vec<SphereState>,
        laws: LawTable,
        walls: Vec<PlaneWall>,
    ) -> anyhow::Result<SphereSim<'_>> {
        Ok(match &self.ctx {
            None => SphereSim::Cpu(Box::new(CpuSpheres::new(params, states, laws, walls))),
            Some(ctx) => SphereSim::Gpu(ctx, Box::new(GpuSpheres::new(ctx, params, &states, &laws, &walls)?)),
        })
    }
}

/// One sphere system on either backend.
pub enum SphereSim<'a> {
    Cpu(Box<CpuSpheres>),
    Gpu(&'a GpuContext, Box<GpuSpheres>),
}

impl SphereSim<'_> {
    pub fn step(&mut self) -> anyhow::Result<()> {
        match self {
            SphereSim::Cpu(s) => s.step(),
            SphereSim::Gpu(ctx, s) => s.step(ctx)?,
        }
        Ok(())
    }

    /// `n` steps.
    pub fn run(&mut self, n: usize) -> anyhow::Result<()> {
        for _ in 0..n {
            self.step()?;
        }
        Ok(())
    }

    pub fn states(&self) -> Vec<SphereState> {
        match self {
            SphereSim::Cpu(s) => s.states.clone(),
            SphereSim::Gpu(ctx, s) => s.states(ctx),
        }
    }

    /// The walls with the force and torque of the last force evaluation.
    pub fn walls(&self) -> Vec<PlaneWall> {
        match self {
            SphereSim::Cpu(s) => s.walls.clone(),
            SphereSim::Gpu(ctx, s) => s.walls(ctx),
        }
    }

    /// Replaces the walls (same count).
    pub fn set_walls(&mut self, walls: &[PlaneWall]) {
        match self {
            SphereSim::Cpu(s) => s.walls.copy_from_slice(walls),
            SphereSim::Gpu(ctx, s) => s.set_walls(ctx, walls),
        }
    }

    /// Sets every wall's velocity (`v[w]`), keeping its position.
    pub fn set_wall_velocities(&mut self, v: &[V3]) {
        let mut w = self.walls();
        for (wall, v) in w.iter_mut().zip(v) {
            wall.velocity = *v;
        }
        self.set_walls(&w);
    }

    pub fn forces(&self) -> Vec<SphereForce> {
        match self {
            SphereSim::Cpu(s) => s.forces.clone(),
            SphereSim::Gpu(ctx, s) => s.forces(ctx),
        }
    }

    /// Index of the candidate pair (i, j), i < j, in the current list.
    pub fn pair_index(&self, i: u32, j: u32) -> Option<usize> {
        let list = match self {
            SphereSim::Cpu(s) => std::borrow::Cow::Borrowed(&s.list),
            SphereSim::Gpu(ctx, s) => std::borrow::Cow::Owned(s.list(ctx)),
        };
        let (i, j) = (i.min(j), i.max(j));
        let (a, b) = (list.start[i as usize] as usize, list.start[i as usize + 1] as usize);
        list.partner[a..b].iter().position(|&p| p == j).map(|k| a + k)
    }

    /// MC-strain: Σ δ_{k→c} of pair `k` summed over its two sides (eq 8's correction of the
    /// overlap), at the last force evaluation.
    pub fn pair_strain(&self, k: usize) -> f64 {
        match self {
            SphereSim::Cpu(s) => (s.pair_strain[k][0] + s.pair_strain[k][1]) as f64,
            SphereSim::Gpu(ctx, s) => {
                let v = s.pair_strain(ctx);
                (v[2 * k] + v[2 * k + 1]) as f64
            }
        }
    }
}

/// Translational + rotational kinetic energy of `states`.
pub fn kinetic_energy(states: &[SphereState]) -> f64 {
    states
        .iter()
        .map(|s| {
            let v2: f64 = s.vel.iter().map(|v| (*v as f64).powi(2)).sum();
            let w2: f64 = s.omega.iter().map(|w| (*w as f64).powi(2)).sum();
            0.5 * s.mass as f64 * v2 + 0.5 * s.inertia as f64 * w2
        })
        .sum()
}

/// Overlap r_i + r_j − |x_i − x_j| of two spheres (f64 from the double-f32 positions).
pub fn overlap(a: &SphereState, b: &SphereState) -> f64 {
    let (p, q) = (a.position(), b.position());
    let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
    a.radius as f64 + b.radius as f64 - d
}

/// Materials 0 (`m`) and 1 (a rigid wall with the same surface properties: E = ∞).
pub fn with_rigid_wall(m: SphereMaterial) -> [SphereMaterial; 2] {
    [
        m,
        SphereMaterial {
            young: f64::INFINITY,
            ..m
        },
    ]
}

/// Step parameters with Δt, gravity and a 1 mm skin (no damping).
pub fn params(dt: f64, gravity: [f64; 3]) -> SphereParams {
    SphereParams {
        gravity: gravity.map(|g| g as f32),
        dt: dt as f32,
        skin: 1e-3,
        ..Default::default()
    }
}

/// Largest |a − b| / max|a| over two equally long series (the GPU-vs-CPU comparisons).
pub fn relative_gap(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "series of different lengths");
    let scale = a.iter().map(|x| x.abs()).fold(0.0, f64::max).max(1e-300);
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max) / scale
}
