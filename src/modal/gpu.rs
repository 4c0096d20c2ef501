//! The wgpu backend of the modal engine: the packed scene uploaded once, three dispatches per step
//! (`modal_node_contact`, `modal_body_update` (bodies), `modal_walls_clock` (one workgroup per wall
//! and the step counter)), many steps per submission. Every reduction is a gather or a
//! workgroup reduction in a fixed order (no atomics), so runs are deterministic; the CPU twins
//! are in `cpu.rs`.

use super::backend::{Dynamic, ModalBackend};
use super::layout::*;
use super::packed::Packed;
use crate::broad_phase::pool::SlotPool;
use crate::gpu::array::{dispatch_size, GpuArray};
use crate::gpu::context::GpuContext;
use crate::gpu::kernel::Kernel;

/// The packed modal scene on the GPU: the arrays behind modal_lib.wgsl's bindings 0–13 and
/// 24–27, shared by this backend and the coupled one (`coupled::gpu`).
pub struct ModalBuffers {
    pub state: GpuArray<ModalState>,
    /// The candidate lists (`Dynamic::node_cand`, binding 9; `Dynamic::body_rx`, binding 10),
    /// grown when a build needs more; `cand_lens` of their words in use.
    node_cand: GpuArray<u32>,
    body_rx: GpuArray<u32>,
    cand_lens: [usize; 2],
    /// The slot pool (`crate::broad_phase::pool`): its slots (binding 11, grown when a list
    /// needs more; `pool_len` of them in use) and offsets per surface node (binding 27).
    /// (The coupled backend puts its pools' offsets after the modal nodes' n_nodes + 1, see
    /// `coupled::layout::CoupleParams::spd_start_at`.)
    pub slot_start: GpuArray<u32>,
    pub slots: GpuArray<ModalSlot>,
    pool_len: usize,
    n_nodes: usize,
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
        Self::with_offsets(ctx, sc, state, 0)
    }

    /// Like [`ModalBuffers::new`], with `extra` more entries in `slot_start` after the modal
    /// nodes' offsets (the coupled backend's pools, [`ModalBuffers::write_offsets`]).
    pub fn with_offsets(
        ctx: &GpuContext,
        sc: &Packed,
        state: &[ModalState],
        extra: usize,
    ) -> anyhow::Result<ModalBuffers> {
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
        // The arrays at the start (no list yet), as the CPU backend's.
        let Dynamic {
            node_cand,
            body_rx,
            pool,
            ..
        } = Dynamic::new(sc, vec![]);
        let cand_lens = [node_cand.len(), body_rx.len()];
        let node_cand = GpuArray::new(ctx, "modal node candidates", &node_cand)?;
        let body_rx = GpuArray::new(ctx, "modal body reactions", &body_rx)?;
        let slots = GpuArray::new(ctx, "modal slots", &pool.slots)?;
        let mut offsets = pool.start.clone();
        offsets.resize(pool.start.len() + extra, 0);
        let slot_start = GpuArray::new(ctx, "modal slot offsets", &offsets)?;
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
            (9, node_cand.buffer()),
            (10, body_rx.buffer()),
            (11, slots.buffer()),
            (12, clock.buffer()),
            (13, wall_force.buffer()),
            (24, queries.buffer()),
            (25, pre_ls.buffer()),
            (26, laws.buffer()),
            (27, slot_start.buffer()),
        ]
        .into_iter()
        .map(|(k, b)| (k, b.clone()))
        .collect();
        Ok(ModalBuffers {
            state,
            node_cand,
            body_rx,
            cand_lens,
            pool_len: pool.slots.len(),
            n_nodes: sc.nodes.len(),
            slots,
            slot_start,
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
            node_cand: self.node_cand.read(ctx)[..self.cand_lens[0]].to_vec(),
            body_rx: self.body_rx.read(ctx)[..self.cand_lens[1]].to_vec(),
            pool: self.pool(ctx),
            clock: self.clock.read(ctx)[0],
            wall_force: f.chunks(2).map(|c| [c[0], c[1]]).collect(),
        }
    }

    /// The slot pool, read back.
    pub fn pool(&self, ctx: &GpuContext) -> SlotPool<ModalSlot> {
        let mut slots = self.slots.read(ctx);
        slots.truncate(self.pool_len);
        let mut start = self.slot_start.read(ctx);
        start.truncate(self.n_nodes + 1);
        SlotPool { start, slots }
    }

    /// Writes offsets from entry `at` of `slot_start` on (a coupled pool's section).
    pub fn write_offsets(&self, ctx: &GpuContext, at: usize, start: &[u32]) {
        assert!(
            at + start.len() <= self.slot_start.len(),
            "slot offsets past the buffer"
        );
        ctx.queue
            .write_buffer(self.slot_start.buffer(), 4 * at as u64, bytemuck::cast_slice(start));
    }

    /// Entries `at .. at + len` of `slot_start`, read back.
    pub fn read_offsets(&self, ctx: &GpuContext, at: usize, len: usize) -> Vec<u32> {
        self.slot_start.read(ctx)[at..at + len].to_vec()
    }

    /// Installs a slot pool; true when the slot buffer had to grow (bind groups that hold the
    /// old one must be made again from [`ModalBuffers::table`]).
    pub fn set_pool(&mut self, ctx: &GpuContext, pool: &SlotPool<ModalSlot>) -> anyhow::Result<bool> {
        anyhow::ensure!(
            pool.start.len() == self.n_nodes + 1,
            "modal slot pool for {} surface nodes, this scene has {}",
            pool.owners(),
            self.n_nodes
        );
        self.slot_start.write(ctx, &pool.start);
        self.pool_len = pool.slots.len();
        let grew = self.slots.write_or_grow(ctx, "modal slots", &pool.slots)?;
        if grew {
            self.rebind(11, self.slots.buffer().clone());
        }
        Ok(grew)
    }

    /// Installs the candidate lists (`Dynamic::node_cand`, `body_rx`); true when a buffer had to
    /// grow (see [`ModalBuffers::set_pool`]).
    pub fn set_candidates(&mut self, ctx: &GpuContext, node_cand: &[u32], body_rx: &[u32]) -> anyhow::Result<bool> {
        let grew_cand = self.node_cand.write_or_grow(ctx, "modal node candidates", node_cand)?;
        if grew_cand {
            self.rebind(9, self.node_cand.buffer().clone());
        }
        let grew_rx = self.body_rx.write_or_grow(ctx, "modal body reactions", body_rx)?;
        if grew_rx {
            self.rebind(10, self.body_rx.buffer().clone());
        }
        self.cand_lens = [node_cand.len(), body_rx.len()];
        Ok(grew_cand || grew_rx)
    }

    /// Points binding `k` of the table at `buffer` (after a buffer grew).
    fn rebind(&mut self, k: u32, buffer: wgpu::Buffer) {
        for (kb, b) in self.bindings.iter_mut() {
            if *kb == k {
                *b = buffer.clone();
            }
        }
    }

    /// Writes the read-write arrays of `dynamic` back; true when a buffer grew (see
    /// [`ModalBuffers::set_pool`]).
    pub fn set_dynamic(&mut self, ctx: &GpuContext, dy: &Dynamic) -> anyhow::Result<bool> {
        anyhow::ensure!(
            dy.state.len() == self.state.len(),
            "saved modal state has {} bodies, this scene {}",
            dy.state.len(),
            self.state.len(),
        );
        self.state.write(ctx, &dy.state);
        let grow = self.set_candidates(ctx, &dy.node_cand, &dy.body_rx)? | self.set_pool(ctx, &dy.pool)?;
        self.clock.write(ctx, &[dy.clock]);
        let f: Vec<f32> = dy.wall_force.iter().flatten().copied().collect();
        self.wall_force.write(ctx, &f);
        Ok(grow)
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
        let clock_k = Kernel::new(&ctx, "modal_body", "modal_walls_clock")?;
        let groups = Self::groups(&ctx, &buf, [&contact, &body, &clock_k]);
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

impl GpuModal {
    fn groups(ctx: &GpuContext, buf: &ModalBuffers, kernels: [&Kernel; 3]) -> [wgpu::BindGroup; 3] {
        let table = buf.table();
        kernels.map(|k| k.bind(ctx, &table))
    }

    /// The bind groups again after the slot buffer grew.
    fn rebind(&mut self) {
        self.groups = Self::groups(&self.ctx, &self.buf, [&self.contact, &self.body, &self.clock]);
    }
}

impl ModalBackend for GpuModal {
    fn step(&mut self, n: u32) -> anyhow::Result<()> {
        let dn = dispatch_size(self.sc.params.n_nodes, 64);
        let db = dispatch_size(self.sc.params.n_bodies, 64);
        // One workgroup per wall (the fixed-order reduction), at least one (the step counter).
        let dw = self.sc.params.n_walls.max(1);
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
                    pass.dispatch_workgroups(dw, 1, 1);
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
    fn pool(&mut self) -> anyhow::Result<SlotPool<ModalSlot>> {
        Ok(self.buf.pool(&self.ctx))
    }
    fn set_neighbours(&mut self, node_cand: &[u32], body_rx: &[u32], pool: &SlotPool<ModalSlot>) -> anyhow::Result<()> {
        let grew = self.buf.set_candidates(&self.ctx, node_cand, body_rx)?;
        if self.buf.set_pool(&self.ctx, pool)? | grew {
            self.rebind();
        }
        Ok(())
    }
    fn steps_done(&self) -> u64 {
        self.steps
    }
    fn packed(&self) -> &Packed {
        &self.sc
    }
    fn packed_mut(&mut self) -> &mut Packed {
        &mut self.sc
    }
    fn upload_walls(&mut self) -> anyhow::Result<()> {
        self.buf.walls.write(&self.ctx, &self.sc.walls);
        Ok(())
    }
    fn upload_params(&mut self) -> anyhow::Result<()> {
        self.buf.params.write(&self.ctx, &[self.sc.params]);
        Ok(())
    }
    fn dynamic(&mut self) -> anyhow::Result<Dynamic> {
        Ok(self.buf.dynamic(&self.ctx))
    }
    fn set_dynamic(&mut self, dy: &Dynamic, steps: u64) -> anyhow::Result<()> {
        if self.buf.set_dynamic(&self.ctx, dy)? {
            self.rebind();
        }
        self.steps = steps;
        Ok(())
    }
}
