//! The membrane as a force source of the GPU sphere stepper (`spheres::extra_force::
//! GpuExtraForces`), twin of `impl ExtraForces for Membrane`: at every force evaluation the
//! kernels of `shaders/membrane_step.wgsl` (edge_pass, hinge_pass, pressure_pass, patch_pass,
//! membrane_gather) run inside the stepper's compute pass and membrane_gather adds every sphere's
//! force and torque to the stepper's extra force. The records stay on the GPU; the grain–patch
//! candidate list is built on the GPU (`gpu_patch_list`) whenever the stepper rebuilds its
//! sphere list, with the friction history carried: the device's displacement check halts the
//! stepper's batch, the host calls `rebuild` with the states, then the sphere list is built and
//! the batch goes on (`GpuExtraForces`, *Stepping*). `prepare` writes only step-invariant
//! parameters, so the source is `batchable` (the default).

use super::gpu::{nonempty, GpuMembraneForces};
use super::gpu_patch_list::{GpuPatchBuffers, GpuPatchList};
use super::model::Membrane;
use super::patch_list::PatchList;
use super::records::{PatchOut, MEMBRANE_FORCE_ONLY, MEMBRANE_PATCH_CONTACTS};
use crate::gpu::array::GpuArray;
use crate::gpu::context::GpuContext;
use crate::spheres::contact::ContactHistory;
use crate::spheres::extra_force::{Evaluation, GpuExtraForces};
use crate::spheres::gpu_pass::{dispatch, params_uniform};
use crate::spheres::{SphereParams, SphereState};
use wgpu::util::DeviceExt as _;

/// Buffers bound by the stepper (`bind`).
struct Bound {
    spheres: wgpu::Buffer,
    extra: wgpu::Buffer,
    /// The stepper's step flags (`bind_step`; a zero buffer until then).
    flags: wgpu::Buffer,
}

/// A membrane on the GPU stepper. `host` holds the records and parameters (its list, outputs and
/// history are those of construction, not kept current: read the GPU's with `list`,
/// `patch_out`).
pub struct GpuMembraneSource {
    pub host: Membrane,
    kernels: GpuMembraneForces,
    list_kernels: GpuPatchList,
    sp: wgpu::Buffer,
    mp: wgpu::Buffer,
    edges: GpuArray<super::records::MembraneEdge>,
    hinges: GpuArray<super::records::MembraneHinge>,
    patches: GpuArray<super::records::MembranePatch>,
    edge_out: GpuArray<[f32; 4]>,
    hinge_out: GpuArray<[[f32; 4]; 4]>,
    pressure_out: GpuArray<[f32; 4]>,
    laws: GpuArray<crate::spheres::PairLaw>,
    vertex_start: GpuArray<u32>,
    vertex_entry: GpuArray<u32>,
    list: Option<GpuPatchBuffers>,
    patch_out: GpuArray<PatchOut>,
    bound: Option<Bound>,
    groups: Vec<wgpu::BindGroup>,
    /// Candidate builds so far.
    pub list_builds: u64,
}

impl GpuMembraneSource {
    /// The membrane `m` (its records and parameters; `m.params.n_spheres` must be the stepper's
    /// sphere count) uploaded.
    pub fn new(ctx: &GpuContext, m: Membrane) -> anyhow::Result<Self> {
        let mp = ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("MembraneParams"),
            contents: bytemuck::bytes_of(&m.params),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        Ok(GpuMembraneSource {
            kernels: GpuMembraneForces::new(ctx)?,
            list_kernels: GpuPatchList::new(ctx)?,
            sp: params_uniform(ctx, &SphereParams::default()),
            mp,
            edges: GpuArray::new(ctx, "edges", &nonempty(&m.edges))?,
            hinges: GpuArray::new(ctx, "hinges", &nonempty(&m.hinges))?,
            patches: GpuArray::new(ctx, "patches", &nonempty(&m.patches))?,
            edge_out: GpuArray::zeroed(ctx, "edge out", m.edges.len().max(1))?,
            hinge_out: GpuArray::zeroed(ctx, "hinge out", m.hinges.len().max(1))?,
            pressure_out: GpuArray::zeroed(ctx, "pressure out", m.patches.len().max(1))?,
            laws: GpuArray::new(ctx, "patch laws", &nonempty(&m.patch_laws))?,
            vertex_start: GpuArray::new(ctx, "vertex start", &m.vertex_start)?,
            vertex_entry: GpuArray::new(ctx, "vertex entry", &nonempty(&m.vertex_entry))?,
            list: None,
            patch_out: GpuArray::zeroed(ctx, "patch out", 1)?,
            bound: None,
            groups: Vec::new(),
            list_builds: 0,
            host: m,
        })
    }

    fn patch_contacts(&self) -> bool {
        self.host.params.flags & MEMBRANE_PATCH_CONTACTS != 0
    }

    /// The bind groups of the five passes over the current list.
    fn make_groups(&mut self, ctx: &GpuContext) {
        let b = self.bound.as_ref().expect("GpuMembraneSource: rebuild before bind");
        let l = self.list.as_ref().expect("GpuMembraneSource: groups before a list");
        let (cs, cp, hist, crs, cr) = (&l.start, &l.patch, &l.history, &l.corner_start, &l.corner);
        let table: Vec<(u32, &wgpu::Buffer)> = vec![
            (0, &self.sp),
            (1, &self.mp),
            (2, &b.spheres),
            (3, self.edges.buffer()),
            (4, self.hinges.buffer()),
            (5, self.patches.buffer()),
            (6, self.edge_out.buffer()),
            (7, self.hinge_out.buffer()),
            (8, self.pressure_out.buffer()),
            (9, self.laws.buffer()),
            (10, cs.buffer()),
            (11, cp.buffer()),
            (12, hist.buffer()),
            (13, self.patch_out.buffer()),
            (14, self.vertex_start.buffer()),
            (15, self.vertex_entry.buffer()),
            (16, crs.buffer()),
            (17, cr.buffer()),
            (18, &b.extra),
            (19, &b.flags),
        ];
        let k = &self.kernels;
        self.groups = [
            &k.edge_pass,
            &k.hinge_pass,
            &k.pressure_pass,
            &k.patch_pass,
            &k.membrane_gather,
        ]
        .iter()
        .map(|kernel| kernel.bind(ctx, &table))
        .collect();
    }

    /// The current candidate list and its history (read back; empty before the first build).
    pub fn list(&self, ctx: &GpuContext) -> (PatchList, Vec<ContactHistory>) {
        match &self.list {
            Some(l) => l.read(ctx),
            None => (PatchList::default(), Vec::new()),
        }
    }

    /// Puts saved candidates in as the current list: `keys` (sphere, patch), sorted, with their
    /// `history` (a checkpoint's restore, `membrane::attach::restore_gpu`). The stepper's rebuild
    /// that follows carries the history into its new list by key, as after any build.
    pub fn restore_list(
        &mut self,
        ctx: &GpuContext,
        keys: &[[u32; 2]],
        history: &[ContactHistory],
    ) -> anyhow::Result<()> {
        let n = self.host.params.n_spheres as usize;
        let mut start = vec![0u32; n + 1];
        for k in keys {
            start[k[0] as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let patch: Vec<u32> = keys.iter().map(|k| k[1]).collect();
        let nv = self.host.params.n_vertices as usize;
        self.list = Some(GpuPatchBuffers {
            start: GpuArray::new(ctx, "cand start", &start)?,
            patch: GpuArray::new(ctx, "cand patch", &nonempty(&patch))?,
            history: GpuArray::new(ctx, "patch history", &nonempty(history))?,
            corner_start: GpuArray::zeroed(ctx, "corner start", nv + 1)?,
            corner: GpuArray::zeroed(ctx, "corner", 1)?,
            len: keys.len(),
        });
        Ok(())
    }

    /// The confining stress σ (eq 18–19) from the next evaluation on (`prepare` uploads it).
    pub fn set_sigma(&mut self, sigma: f32) {
        self.host.params.sigma = sigma;
    }

    /// Each candidate's result of the last evaluation (order of `list`).
    pub fn patch_out(&self, ctx: &GpuContext) -> Vec<PatchOut> {
        let n = self.list.as_ref().map_or(0, |l| l.len);
        let mut v = self.patch_out.read(ctx);
        v.truncate(n);
        v
    }
}

impl GpuExtraForces for GpuMembraneSource {
    fn bind(&mut self, ctx: &GpuContext, spheres: &wgpu::Buffer, extra: &wgpu::Buffer) -> anyhow::Result<()> {
        let flags = GpuArray::<u32>::zeroed(ctx, "step flags (unbound)", 4)?;
        self.bound = Some(Bound {
            spheres: spheres.clone(),
            extra: extra.clone(),
            flags: flags.buffer().clone(),
        });
        Ok(())
    }

    fn bind_step(&mut self, _ctx: &GpuContext, flags: &wgpu::Buffer, _walls: &wgpu::Buffer) -> anyhow::Result<()> {
        let b = self.bound.as_mut().expect("GpuMembraneSource: bind_step before bind");
        b.flags = flags.clone();
        Ok(())
    }

    fn rebuild(&mut self, ctx: &GpuContext, states: &[SphereState], skin: f32) -> anyhow::Result<()> {
        anyhow::ensure!(
            states.len() == self.host.params.n_spheres as usize,
            "the membrane was made for {} spheres, the stepper has {}",
            self.host.params.n_spheres,
            states.len()
        );
        if self.patch_contacts() {
            let b = self.bound.as_ref().expect("GpuMembraneSource: rebuild before bind");
            let list = self.list_kernels.build(
                ctx,
                &self.sp,
                &b.spheres,
                &self.patches,
                &self.host,
                states,
                skin,
                self.list.as_ref(),
            )?;
            self.patch_out = GpuArray::zeroed(ctx, "patch out", list.len.max(1))?;
            self.list = Some(list);
            self.list_builds += 1;
        } else if self.list.is_none() {
            // MSS_particle: no candidates; empty lists for the bindings.
            let (n, nv) = (states.len(), self.host.params.n_vertices as usize);
            self.list = Some(GpuPatchBuffers {
                start: GpuArray::zeroed(ctx, "cand start", n + 1)?,
                patch: GpuArray::zeroed(ctx, "cand patch", 0)?,
                history: GpuArray::zeroed(ctx, "patch history", 0)?,
                corner_start: GpuArray::zeroed(ctx, "corner start", nv + 1)?,
                corner: GpuArray::zeroed(ctx, "corner", 0)?,
                len: 0,
            });
        }
        self.make_groups(ctx);
        Ok(())
    }

    fn prepare(&mut self, ctx: &GpuContext, eval: Evaluation) {
        let mut p = self.host.params;
        p.dt = eval.dt;
        if !eval.advance {
            p.flags |= MEMBRANE_FORCE_ONLY;
        }
        ctx.queue.write_buffer(&self.mp, 0, bytemuck::bytes_of(&p));
    }

    fn record(&self, pass: &mut wgpu::ComputePass<'_>) {
        let p = &self.host.params;
        let k = &self.kernels;
        let passes = [
            (&k.edge_pass, p.n_edges),
            (&k.hinge_pass, p.n_hinges),
            (&k.pressure_pass, p.n_patches),
            (&k.patch_pass, p.n_spheres),
            (&k.membrane_gather, p.n_spheres),
        ];
        for ((kernel, n), bg) in passes.iter().zip(&self.groups) {
            if *n > 0 {
                dispatch(pass, kernel, bg, *n);
            }
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
