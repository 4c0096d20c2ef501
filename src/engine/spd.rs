//! SPD cells as a kind: a `Backend` (CPU twin or GPU) plus the scene's own boundary conditions,
//! onto which the driver's controls are added (gravity m·g on free nodes, forces, the moving
//! wall's velocity on every node of its body).

use super::{Controls, Kind, Sample};
use crate::backend::{Backend, BackendKind, SavedState};
use crate::model::*;
use crate::run::measure;
use crate::scenario::Built;

pub struct SpdKind {
    pub backend: Box<dyn Backend>,
    pub bc: SpdControls,
}

/// How the driver's controls act on SPD nodes (also the SPD side of coupled runs).
pub struct SpdControls {
    /// Boundary conditions of the scene as built (frozen walls, clamps).
    base: Vec<Node>,
    bodies: Vec<Body>,
}

impl SpdKind {
    pub fn new(scene: &Scene, backend: Box<dyn Backend>) -> SpdKind {
        SpdKind {
            backend,
            bc: SpdControls::new(scene),
        }
    }

    /// Reads the SPD points back and measures them.
    pub fn sample_spd(backend: &mut dyn Backend, built: &Built) -> anyhow::Result<Sample> {
        let nodes = backend.read_nodes()?;
        let bodies = backend.read_bodies()?;
        let contacts = backend.read_contacts()?;
        let measures = measure::measure(built, &nodes, &bodies, &contacts);
        Ok(Sample {
            nodes,
            bodies,
            contacts,
            measures,
        })
    }
}

impl SpdControls {
    pub fn new(scene: &Scene) -> SpdControls {
        SpdControls {
            base: scene.nodes.clone(),
            bodies: scene.bodies.clone(),
        }
    }

    pub fn n_nodes(&self) -> usize {
        self.base.len()
    }

    /// Boundary conditions under `c`: the scene's, plus gravity (m·g on free nodes), forces and
    /// the current stage's wall velocity.
    pub fn boundary_conditions(&self, c: &Controls) -> Vec<Node> {
        let mut nodes = self.base.clone();
        let g = [c.gravity[0] as f32, c.gravity[1] as f32];
        for n in nodes.iter_mut() {
            if self.bodies[n.body as usize].flags & BODY_FROZEN == 0 {
                n.bc_force[0] += n.mass * g[0];
                n.bc_force[1] += n.mass * g[1];
            }
        }
        for (i, f) in &c.forces {
            let n = &mut nodes[*i as usize];
            n.bc_force[0] += f[0] as f32;
            n.bc_force[1] += f[1] as f32;
        }
        if let Some((set, force)) = &c.stage_force {
            for &i in set {
                let n = &mut nodes[i as usize];
                n.bc_force[0] += force[0] as f32;
                n.bc_force[1] += force[1] as f32;
            }
        }
        if let Some((w, v)) = c.wall {
            let b = self.bodies[w as usize];
            for n in &mut nodes[b.first as usize..(b.first + b.count) as usize] {
                n.bc_mode = BC_VX | BC_VY;
                n.bc_velocity = [v[0] as f32, v[1] as f32];
            }
        }
        nodes
    }

    /// Node `i` as messages name it.
    pub fn describe_node(&self, i: u32) -> String {
        let n = self.base[i as usize];
        format!("{i} (body {}, node {} of that body)", n.body, n.local)
    }
}

impl Kind for SpdKind {
    fn name(&self) -> String {
        self.backend.name()
    }
    fn step(&mut self, steps: u32) -> anyhow::Result<()> {
        self.backend.step(steps)
    }
    fn steps_done(&self) -> u64 {
        self.backend.steps_done()
    }
    fn device_bytes(&self) -> u64 {
        self.backend.device_bytes()
    }
    fn apply(&mut self, c: &Controls) -> anyhow::Result<()> {
        let bc = self.bc.boundary_conditions(c);
        self.backend.set_boundary_conditions(&bc)
    }
    fn sample(&mut self, built: &Built) -> anyhow::Result<Sample> {
        Self::sample_spd(&mut *self.backend, built)
    }
    fn describe_point(&self, i: u32) -> String {
        self.bc.describe_node(i)
    }
    fn export_state(&mut self) -> anyhow::Result<SavedState> {
        self.backend.export_state()
    }
    fn import_state(&mut self, saved: &SavedState) -> anyhow::Result<()> {
        anyhow::ensure!(
            saved.nodes.len() == self.bc.n_nodes(),
            "the checkpoint has {} nodes, the scenario {}",
            saved.nodes.len(),
            self.bc.n_nodes()
        );
        anyhow::ensure!(
            saved.kind.is_empty(),
            "the checkpoint holds the state of another kind of run (modal bodies), not of SPD cells"
        );
        self.backend.import_state(saved)
    }
    fn read_links(&mut self) -> anyhow::Result<Vec<LinkState>> {
        self.backend.read_links()
    }
}

/// Creates the SPD backend `kind` for `scene` (the GPU one on the adapter chosen from the
/// environment). Here, above `backend` and both steppers, so that `backend` (the trait the
/// steppers implement) does not import them.
pub fn create(kind: BackendKind, scene: &Scene) -> anyhow::Result<Box<dyn Backend>> {
    Ok(match kind {
        BackendKind::Cpu => Box::new(crate::cpu::CpuBackend::new(scene)?),
        BackendKind::Gpu => {
            let ctx = std::sync::Arc::new(crate::gpu::context::GpuContext::new()?);
            Box::new(crate::gpu::stepper::GpuBackend::new(ctx, scene)?)
        }
    })
}
