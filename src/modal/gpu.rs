//! The wgpu backend of the modal engine: the packed scene uploaded once, three dispatches per step
//! (`modal_node_contact`, `modal_body_update` (bodies + walls), `modal_clock`), many steps per
//! submission. Every reduction is a gather in a fixed order (no atomics), so runs are
//! deterministic; the CPU twins are in `cpu.rs`.

use super::backend::{Dynamic, ModalBackend};
use super::layout::*;
use super::packed::Packed;
use crate::gpu::array::{dispatch_size, GpuArray};
use crate::gpu::context::GpuContext;
use crate::gpu::kernel::Kernel;

/// The packed modal scene on the GPU: the arrays behind modal_lib.wgsl's bindings 0–13 and
/// 24–26, shared by this backend and the coupled one (`coupled::gpu`).
pub struct ModalBuffers {
    pub state: GpuArray<ModalState>,
    pub nb: GpuArray<u32>,
    pub nb_back: GpuArray<u32>,
    pub slots: GpuArray<ModalSlot>,
    pub wall_force: GpuArray<f32>,
    pub params: GpuArray<ModalParams>,
    pub walls: GpuArray<ModalWallRec>,
    pub clock: GpuArray<u32>,
    /// (binding, buffer) of every modal_lib.wgsl binding (the buffers stay alive with it).
    bindings: Vec<(u32, wgpu::Buffer)>,
}

impl ModalBuffers {
    /// Uploads the packed scene and the initial states; empty neighbour lists and slots.
    pub fn new(ctx: &GpuContext, sc: &Packed, state: &[ModalState]) -> anyhow::Result<ModalBuffers> {
        let params = GpuArray::new(ctx, "modal params", &[sc.params])?;
        let bodies = GpuArray::new(ctx, "modal bodies", &sc.bodies)?;
        let modes = GpuArray::new(ctx, "modal modes", &sc.modes)?;
        let mode_grid = GpuArray::new(ctx, "modal mode grid", &sc.mode_grid)?;
        let phi0 = GpuArray::new(ctx, "modal phi0", &sc.phi0)?;
        let nodes = GpuArray::new(ctx, "modal nodes", &sc.nodes)?;
        let walls = GpuArray::new(ctx, "modal walls", &sc.walls)?;
        let tables = GpuArray::new(ctx, "modal tables", &sc.tables)?;
        let queries = GpuArray::new(ctx, "modal ls queries", &sc.queries)?;
        let pre_ls = GpuArray::new(ctx, "modal precomputed ls", &sc.pre_ls)?;
        let laws = GpuArray::new(ctx, "modal contact laws", &sc.laws)?;
        let state = GpuArray::new(ctx, "modal state", state)?;
        let none = vec![NONE; sc.bodies.len() * super::MAX_NB];
        let nb = GpuArray::new(ctx, "modal nb", &none)?;
        let nb_back = GpuArray::new(ctx, "modal nb_back", &none)?;
        let slots = GpuArray::new(
            ctx,
            "modal slots",
            &vec![ModalSlot::default(); sc.nodes.len() * sc.params.slots as usize],
        )?;
        let clock = GpuArray::<u32>::new(ctx, "modal clock", &[0])?;
        let wall_force = GpuArray::<f32>::zeroed(ctx, "modal wall force", 2 * sc.walls.len())?;
        let bindings = [
            (0, params.buffer()),
            (1, bodies.buffer()),
            (2, modes.buffer()),
            (3, mode_grid.buffer()),
            (4, phi0.buffer()),
            (5, nodes.buffer()),
            (6, walls.buffer()),
            (7, tables.buffer()),
            (8, state.buffer()),
            (9, nb.buffer()),
            (10, nb_back.buffer()),
            (11, slots.buffer()),
            (12, clock.buffer()),
            (13, wall_force.buffer()),
            (24, queries.buffer()),
            (25, pre_ls.buffer()),
            (26, laws.buffer()),
        ]
        .into_iter()
        .map(|(k, b)| (k, b.clone()))
        .collect();
        Ok(ModalBuffers {
            state,
            nb,
            nb_back,
            slots,
            wall_force,
            params,
            walls,
            clock,
            bindings,
        })
    }

    /// The read-write arrays, read back (checkpoints).
    pub fn dynamic(&self, ctx: &GpuContext) -> Dynamic {
        let f = self.wall_force.read(ctx);
        Dynamic {
            state: self.state.read(ctx),
            nb: self.nb.read(ctx),
            nb_back: self.nb_back.read(ctx),
            slots: self.slots.read(ctx),
            clock: self.clock.read(ctx)[0],
            wall_force: f.chunks(2).map(|c| [c[0], c[1]]).collect(),
        }
    }

    /// Writes the read-write arrays of `dynamic` back.
    pub fn set_dynamic(&self, ctx: &GpuContext, dy: &Dynamic) -> anyhow::Result<()> {
        anyhow::ensure!(
            dy.state.len() == self.state.len() && dy.slots.len() == self.slots.len(),
            "saved modal state has {} bodies and {} slots, this scene {} and {}",
            dy.state.len(),
            dy.slots.len(),
            self.state.len(),
            self.slots.len()
        );
        self.state.write(ctx, &dy.state);
        self.nb.write(ctx, &dy.nb);
        self.nb_back.write(ctx, &dy.nb_back);
        self.slots.write(ctx, &dy.slots);
        self.clock.write(ctx, &[dy.clock]);
        let f: Vec<f32> = dy.wall_force.iter().flatten().copied().collect();
        self.wall_force.write(ctx, &f);
        Ok(())
    }

    /// The bind-group table of modal_lib.wgsl's bindings.
    pub fn table(&self) -> Vec<(u32, &wgpu::Buffer)> {
        self.bindings.iter().map(|(k, b)| (*k, b)).collect()
    }
}

pub struct GpuModal {
    pub ctx: GpuContext,
    sc: Packed,
    buf: ModalBuffers,
    contact: Kernel,
    body: Kernel,
    clock: Kernel,
    groups: [wgpu::BindGroup; 3],
    steps: u64,
}

/// Steps recorded per submission.
const STEPS_PER_SUBMIT: u32 = 200;

impl GpuModal {
    pub fn new(ctx: GpuContext, sc: Packed, state: Vec<ModalState>) -> anyhow::Result<GpuModal> {
        crate::gpu::precision::require_df32(&ctx)?;
        let buf = ModalBuffers::new(&ctx, &sc, &state)?;
        let contact = Kernel::new(&ctx, "modal_contact", "modal_node_contact")?;
        let body = Kernel::new(&ctx, "modal_body", "modal_body_update")?;
        let clock_k = Kernel::new(&ctx, "modal_body", "modal_clock")?;
        let table = buf.table();
        let groups = [
            contact.bind(&ctx, &table),
            body.bind(&ctx, &table),
            clock_k.bind(&ctx, &table),
        ];
        Ok(GpuModal {
            ctx,
            sc,
            buf,
            contact,
            body,
            clock: clock_k,
            groups,
            steps: 0,
        })
    }
}

impl ModalBackend for GpuModal {
    fn step(&mut self, n: u32) -> anyhow::Result<()> {
        let dn = dispatch_size(self.sc.params.n_nodes, 64);
        let db = dispatch_size(self.sc.params.n_bodies + self.sc.params.n_walls, 64);
        let mut left = n;
        while left > 0 {
            let m = left.min(STEPS_PER_SUBMIT);
            let mut enc = self.ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("modal steps"),
            });
            {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("modal step"),
                    timestamp_writes: None,
                });
                for _ in 0..m {
                    pass.set_pipeline(&self.contact.pipeline);
                    pass.set_bind_group(0, &self.groups[0], &[]);
                    pass.dispatch_workgroups(dn.0, dn.1, 1);
                    pass.set_pipeline(&self.body.pipeline);
                    pass.set_bind_group(0, &self.groups[1], &[]);
                    pass.dispatch_workgroups(db.0, db.1, 1);
                    pass.set_pipeline(&self.clock.pipeline);
                    pass.set_bind_group(0, &self.groups[2], &[]);
                    pass.dispatch_workgroups(1, 1, 1);
                }
            }
            self.ctx.queue.submit([enc.finish()]);
            self.ctx.poll_wait();
            left -= m;
            self.steps += m as u64;
        }
        Ok(())
    }
    fn states(&mut self) -> anyhow::Result<Vec<ModalState>> {
        Ok(self.buf.state.read(&self.ctx))
    }
    fn wall_forces(&mut self) -> anyhow::Result<Vec<[f32; 2]>> {
        let f = self.buf.wall_force.read(&self.ctx);
        Ok(f.chunks(2).map(|c| [c[0], c[1]]).collect())
    }
    fn slots(&mut self) -> anyhow::Result<Vec<ModalSlot>> {
        Ok(self.buf.slots.read(&self.ctx))
    }
    fn set_neighbours(&mut self, nb: &[u32], nb_back: &[u32], slots: Option<&[ModalSlot]>) -> anyhow::Result<()> {
        self.buf.nb.write(&self.ctx, nb);
        self.buf.nb_back.write(&self.ctx, nb_back);
        if let Some(s) = slots {
            self.buf.slots.write(&self.ctx, s);
        }
        Ok(())
    }
    fn steps_done(&self) -> u64 {
        self.steps
    }
    fn packed(&self) -> &Packed {
        &self.sc
    }
    fn set_walls(&mut self, walls: &[ModalWallRec]) -> anyhow::Result<()> {
        anyhow::ensure!(walls.len() == self.sc.walls.len(), "wall count changed");
        self.sc.walls = walls.to_vec();
        self.buf.walls.write(&self.ctx, walls);
        Ok(())
    }
    fn set_gravity(&mut self, g: [f32; 2]) -> anyhow::Result<()> {
        self.sc.params.gravity = g;
        self.buf.params.write(&self.ctx, &[self.sc.params]);
        Ok(())
    }
    fn dynamic(&mut self) -> anyhow::Result<Dynamic> {
        Ok(self.buf.dynamic(&self.ctx))
    }
    fn set_dynamic(&mut self, dy: &Dynamic, steps: u64) -> anyhow::Result<()> {
        self.buf.set_dynamic(&self.ctx, dy)?;
        self.steps = steps;
        Ok(())
    }
}
