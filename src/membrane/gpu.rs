//! The membrane's force passes on the GPU (`shaders/membrane_step.wgsl`), the twins of
//! `forces.rs`: one evaluation from a membrane's records, candidate list and contact history
//! and the sphere states, giving every sphere's membrane force, the new histories and the
//! patch records, from host data (the single-evaluation comparison of `tests/gpu_membrane.rs`).
//! On the GPU stepper the same kernels run as a force source: `gpu_source::GpuMembraneSource`.

use super::model::Membrane;
use super::records::PatchOut;
use crate::gpu::array::GpuArray;
use crate::gpu::context::GpuContext;
use crate::gpu::kernel::Kernel;
use crate::spheres::contact::ContactHistory;
use crate::spheres::gpu_pass::{dispatch, params_uniform};
use crate::spheres::{SphereForce, SphereParams, SphereState};
use wgpu::util::DeviceExt as _;

/// The compiled kernels, one field per pass.
pub struct GpuMembraneForces {
    pub(crate) edge_pass: Kernel,
    pub(crate) hinge_pass: Kernel,
    pub(crate) pressure_pass: Kernel,
    pub(crate) patch_pass: Kernel,
    pub(crate) membrane_gather: Kernel,
}

/// What one GPU evaluation returns.
pub struct GpuMembraneResult {
    pub external: Vec<SphereForce>,
    pub patch_history: Vec<ContactHistory>,
    pub patch_out: Vec<PatchOut>,
}

/// `v`, or one zeroed element when empty (zero-sized bindings are rejected).
pub(crate) fn nonempty<T: bytemuck::Pod>(v: &[T]) -> Vec<T> {
    if v.is_empty() {
        vec![T::zeroed()]
    } else {
        v.to_vec()
    }
}

impl GpuMembraneForces {
    pub fn new(ctx: &GpuContext) -> anyhow::Result<Self> {
        let k = |e: &str| Kernel::new(ctx, "membrane_step", e);
        Ok(GpuMembraneForces {
            edge_pass: k("edge_pass")?,
            hinge_pass: k("hinge_pass")?,
            pressure_pass: k("pressure_pass")?,
            patch_pass: k("patch_pass")?,
            membrane_gather: k("membrane_gather")?,
        })
    }

    /// One force evaluation of `m` on `states` (the candidate list must be current: call
    /// `Membrane::rebuild` first when `needs_rebuild`).
    pub fn run(&self, ctx: &GpuContext, m: &Membrane, states: &[SphereState]) -> anyhow::Result<GpuMembraneResult> {
        let sp = params_uniform(ctx, &SphereParams::default());
        let mut p = m.params;
        p.n_spheres = states.len() as u32;
        let mp = ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("MembraneParams"),
            contents: bytemuck::bytes_of(&p),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let l = &m.list;
        let empty_start = vec![0u32; states.len() + 1];
        let cand_start = if l.start.is_empty() { &empty_start } else { &l.start };
        let empty_corner = vec![0u32; p.n_vertices as usize + 1];
        let corner_start = if l.corner_start.is_empty() {
            &empty_corner
        } else {
            &l.corner_start
        };
        let states_b = GpuArray::new(ctx, "states", states)?;
        let edges = GpuArray::new(ctx, "edges", &nonempty(&m.edges))?;
        let hinges = GpuArray::new(ctx, "hinges", &nonempty(&m.hinges))?;
        let patches = GpuArray::new(ctx, "patches", &nonempty(&m.patches))?;
        let edge_out = GpuArray::<[f32; 4]>::zeroed(ctx, "edge out", m.edges.len().max(1))?;
        let hinge_out = GpuArray::<[[f32; 4]; 4]>::zeroed(ctx, "hinge out", m.hinges.len().max(1))?;
        let pressure_out = GpuArray::<[f32; 4]>::zeroed(ctx, "pressure out", m.patches.len().max(1))?;
        let laws = GpuArray::new(ctx, "patch laws", &nonempty(&m.patch_laws))?;
        let cs = GpuArray::new(ctx, "cand start", cand_start)?;
        let cp = GpuArray::new(ctx, "cand patch", &nonempty(&l.patch))?;
        let hist = GpuArray::new(ctx, "patch history", &nonempty(&m.patch_history))?;
        let pout = GpuArray::<PatchOut>::zeroed(ctx, "patch out", l.patch.len().max(1))?;
        let vs = GpuArray::new(ctx, "vertex start", &m.vertex_start)?;
        let ve = GpuArray::new(ctx, "vertex entry", &nonempty(&m.vertex_entry))?;
        let crs = GpuArray::new(ctx, "corner start", corner_start)?;
        let cr = GpuArray::new(ctx, "corner", &nonempty(&l.corner))?;
        let ext = GpuArray::<SphereForce>::zeroed(ctx, "external", states.len().max(1))?;
        // The stepper's step flags, never raised here (binding 19 of membrane_step.wgsl).
        let flags = GpuArray::<u32>::zeroed(ctx, "step flags", 4)?;
        let table: Vec<(u32, &wgpu::Buffer)> = vec![
            (0, &sp),
            (1, &mp),
            (2, states_b.buffer()),
            (3, edges.buffer()),
            (4, hinges.buffer()),
            (5, patches.buffer()),
            (6, edge_out.buffer()),
            (7, hinge_out.buffer()),
            (8, pressure_out.buffer()),
            (9, laws.buffer()),
            (10, cs.buffer()),
            (11, cp.buffer()),
            (12, hist.buffer()),
            (13, pout.buffer()),
            (14, vs.buffer()),
            (15, ve.buffer()),
            (16, crs.buffer()),
            (17, cr.buffer()),
            (18, ext.buffer()),
            (19, flags.buffer()),
        ];
        let passes = [
            (&self.edge_pass, p.n_edges),
            (&self.hinge_pass, p.n_hinges),
            (&self.pressure_pass, p.n_patches),
            (&self.patch_pass, p.n_spheres),
            (&self.membrane_gather, p.n_spheres),
        ];
        let groups: Vec<wgpu::BindGroup> = passes.iter().map(|(k, _)| k.bind(ctx, &table)).collect();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            for ((k, n), bg) in passes.iter().zip(&groups) {
                if *n > 0 {
                    dispatch(&mut pass, k, bg, *n);
                }
            }
        }
        ctx.queue.submit([encoder.finish()]);
        let mut external = ext.read(ctx);
        external.truncate(states.len());
        let mut patch_history = hist.read(ctx);
        patch_history.truncate(m.patch_history.len());
        let mut patch_out = pout.read(ctx);
        patch_out.truncate(l.patch.len());
        Ok(GpuMembraneResult {
            external,
            patch_history,
            patch_out,
        })
    }
}
