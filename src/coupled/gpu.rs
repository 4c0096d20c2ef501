//! The wgpu backend of the coupled modal–SPD stepper: the SPD `GpuBackend` records its step up to
//! node_forces (`record_coupled`), then this backend records, in the same compute pass, the modal
//! body update, the modal clock, the modal node contacts, the two coupling slot passes, the gather
//! and node_forces_modal (the order of `stepper`). The modal arrays are uploaded by
//! `modal::gpu::ModalBuffers` (as in the modal-only backend); every reduction is a gather in a
//! fixed order.

use super::backend::{CoupleStatic, CoupledBackend, CoupledHost, CoupledSlots};
use super::broad_phase::CoupleLists;
use super::layout::SegSlot;
use crate::backend::Backend;
use crate::broad_phase::pool::SlotPool;
use crate::gpu::array::{dispatch_size, GpuArray};
use crate::gpu::context::GpuContext;
use crate::gpu::kernel::Kernel;
use crate::gpu::stepper::GpuBackend;
use crate::modal::broad_phase::ModalLists;
use crate::modal::gpu::ModalBuffers;
use crate::modal::layout::*;
use crate::modal::stepper::Packed;
use crate::model::Scene;
use std::sync::Arc;
use wgpu::util::DeviceExt as _;

struct Kernels {
    body: Kernel,
    clock: Kernel,
    contact: Kernel,
    spd_vs_modal: Kernel,
    mnode_vs_spd: Kernel,
    gather: Kernel,
    node_forces: Kernel,
}

/// Bind groups: modal ones (side-independent) and, per SPD ping-pong side, the coupling ones
/// (they read the SPD state being written this step) and node_forces_modal (stepping, dt = 0).
struct Groups {
    body: wgpu::BindGroup,
    clock: wgpu::BindGroup,
    contact: wgpu::BindGroup,
    spd_vs_modal: [wgpu::BindGroup; 2],
    mnode_vs_spd: [wgpu::BindGroup; 2],
    gather: [wgpu::BindGroup; 2],
    node_forces: [[wgpu::BindGroup; 2]; 2],
}

pub struct GpuCoupled {
    ctx: Arc<GpuContext>,
    /// The SPD GPU backend, the packed modal scene and the coupling statics.
    host: CoupledHost<GpuBackend>,
    modal: ModalBuffers,
    mb_cells: GpuArray<u32>,
    /// The candidates over primitives (`CoupleLists::cand`; grown when a build needs more).
    cand: GpuArray<u32>,
    /// The coupling slot pools (grown when a list needs more; their offsets are in the modal
    /// `slot_start` at `CoupleParams::spd_start_at`, `mnode_start_at`) and the slots in use.
    spd_slots: GpuArray<ModalSlot>,
    mnode_slots: GpuArray<SegSlot>,
    pool_lens: [usize; 2],
    /// `CoupleParams` (uniform; gravity changes by stage).
    cparams: wgpu::Buffer,
    node_cell: GpuArray<u32>,
    cells: GpuArray<super::layout::CellRec>,
    modal_force: GpuArray<[f32; 2]>,
    kernels: Kernels,
    /// Always `Some` after `new`.
    groups: Option<Groups>,
}

impl GpuCoupled {
    pub fn new(
        ctx: Arc<GpuContext>,
        spd_scene: &Scene,
        sc: Packed,
        state: Vec<ModalState>,
        cs: CoupleStatic,
    ) -> anyhow::Result<GpuCoupled> {
        // A coupled batch cannot be redone after an SPD neighbour-list or slot-pool overflow (no
        // snapshot of the modal side): start with 6 entries per node (SPD-only runs start with 4
        // and grow) and a slot for every entry (the pool cannot overflow).
        let n = spd_scene.nodes.len() as u64;
        let max_entries =
            ctx.limits.max_storage_buffer_binding_size / std::mem::size_of::<crate::model::ContactSlot>() as u64;
        let capacity = (6 * n).clamp(1024, max_entries.max(1024)) as u32;
        let spd = GpuBackend::with_capacities(ctx.clone(), spd_scene, Some(capacity), Some(capacity))?;
        let c = &*ctx;
        // slot_start: the modal nodes' offsets, then the SPD nodes' and the modal nodes' coupling
        // offsets (all zero: no list yet).
        let extra = cs.node_cell.len() + 1 + sc.nodes.len() + 1;
        let modal = ModalBuffers::with_offsets(c, &sc, &state, extra)?;
        let cparams = c.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("couple params"),
            contents: bytemuck::bytes_of(&cs.params),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let node_cell = GpuArray::new(c, "couple node_cell", &cs.node_cell)?;
        let cells = GpuArray::new(c, "couple cells", &cs.cells)?;
        let empty = CoupleLists::empty(cs.cells.len(), sc.bodies.len(), cs.node_cell.len());
        let mb_cells = GpuArray::new(c, "couple mb_cells", &empty.mb_cells)?;
        let cand = GpuArray::new(c, "couple candidates", &empty.cand)?;
        let spd_slots = GpuArray::<ModalSlot>::zeroed(c, "couple spd slots", 0)?;
        let mnode_slots = GpuArray::<SegSlot>::zeroed(c, "couple modal-node slots", 0)?;
        let modal_force = GpuArray::<[f32; 2]>::zeroed(c, "couple modal force", cs.node_cell.len())?;
        let sh = "modal_spd_contact";
        let kernels = Kernels {
            body: Kernel::new(c, sh, "modal_body_update_coupled")?,
            clock: Kernel::new(c, "modal_body", "modal_walls_clock")?,
            contact: Kernel::new(c, "modal_contact", "modal_node_contact")?,
            spd_vs_modal: Kernel::new(c, sh, "spd_node_vs_modal")?,
            mnode_vs_spd: Kernel::new(c, sh, "modal_node_vs_spd")?,
            gather: Kernel::new(c, sh, "spd_modal_gather")?,
            node_forces: Kernel::new(c, "node_forces", "node_forces_modal")?,
        };
        let mut me = GpuCoupled {
            ctx: ctx.clone(),
            host: CoupledHost { sc, cs, spd },
            modal,
            mb_cells,
            cand,
            spd_slots,
            mnode_slots,
            pool_lens: [0, 0],
            cparams,
            node_cell,
            cells,
            modal_force,
            kernels,
            groups: None,
        };
        me.groups = Some(me.make_groups());
        Ok(me)
    }

    /// The bind groups over the current buffers (again whenever the modal slot pool grows).
    fn make_groups(&self) -> Groups {
        let c = &*self.ctx;
        // Bindings 0–13 and 24–27: modal_lib.wgsl; 14–18, 20–23: modal_spd_contact.wgsl.
        let table = |s: usize| -> Vec<(u32, &wgpu::Buffer)> {
            let mut t = self.modal.table();
            t.extend([
                (14, &self.cparams),
                (15, self.node_cell.buffer()),
                (16, self.cells.buffer()),
                // The SPD state written by step n (side 1 − s): x_{n+1}.
                (17, self.host.spd.state_buffer(1 - s)),
                (18, self.cand.buffer()),
                (20, self.mb_cells.buffer()),
                (21, self.spd_slots.buffer()),
                (22, self.mnode_slots.buffer()),
                (23, self.modal_force.buffer()),
            ]);
            t
        };
        let k = &self.kernels;
        let nf = |init: bool, s: usize| {
            let mut t = self.host.spd.coupling_table(init, s);
            t.push((14, self.modal_force.buffer()));
            k.node_forces.bind(c, &t)
        };
        Groups {
            body: k.body.bind(c, &table(0)),
            clock: k.clock.bind(c, &table(0)),
            contact: k.contact.bind(c, &table(0)),
            spd_vs_modal: [k.spd_vs_modal.bind(c, &table(0)), k.spd_vs_modal.bind(c, &table(1))],
            mnode_vs_spd: [k.mnode_vs_spd.bind(c, &table(0)), k.mnode_vs_spd.bind(c, &table(1))],
            gather: [k.gather.bind(c, &table(0)), k.gather.bind(c, &table(1))],
            node_forces: [[nf(false, 0), nf(false, 1)], [nf(true, 0), nf(true, 1)]],
        }
    }

    /// Records and submits `n` coupled steps (or, with `init`, the dt = 0 force pass).
    fn record(&mut self, n: u32, init: bool) -> anyhow::Result<()> {
        let p = self.host.sc.params;
        let n_spd = self.host.cs.params.n_spd_nodes;
        let (k, g) = (&self.kernels, self.groups.as_ref().expect("bind groups made in new"));
        let dispatch = |pass: &mut wgpu::ComputePass<'_>, kern: &Kernel, group: &wgpu::BindGroup, threads: u32| {
            if threads == 0 {
                return;
            }
            let d = dispatch_size(threads, 64);
            pass.set_pipeline(&kern.pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(d.0, d.1, 1);
        };
        self.host.spd.record_coupled(n, init, &mut |pass, s| {
            if !init {
                dispatch(pass, &k.body, &g.body, p.n_bodies);
                // One workgroup per modal wall (fixed-order reduction), at least one (the counter).
                pass.set_pipeline(&k.clock.pipeline);
                pass.set_bind_group(0, &g.clock, &[]);
                pass.dispatch_workgroups(p.n_walls.max(1), 1, 1);
            }
            dispatch(pass, &k.contact, &g.contact, p.n_nodes);
            dispatch(pass, &k.spd_vs_modal, &g.spd_vs_modal[s], n_spd);
            dispatch(pass, &k.mnode_vs_spd, &g.mnode_vs_spd[s], p.n_nodes);
            dispatch(pass, &k.gather, &g.gather[s], n_spd);
            dispatch(pass, &k.node_forces, &g.node_forces[init as usize][s], n_spd);
        })
    }
}

impl CoupledBackend for GpuCoupled {
    fn host(&self) -> &CoupledHost<dyn Backend> {
        &self.host
    }
    fn host_mut(&mut self) -> &mut CoupledHost<dyn Backend> {
        &mut self.host
    }
    fn upload_couple_params(&mut self) -> anyhow::Result<()> {
        let p = &self.host.cs.params;
        self.ctx.queue.write_buffer(&self.cparams, 0, bytemuck::bytes_of(p));
        Ok(())
    }
    fn upload_modal_walls(&mut self) -> anyhow::Result<()> {
        self.modal.walls.write(&self.ctx, &self.host.sc.walls);
        Ok(())
    }
    fn init_forces(&mut self) -> anyhow::Result<()> {
        self.record(1, true)
    }
    fn step(&mut self, n: u32) -> anyhow::Result<()> {
        self.record(n, false)
    }
    fn modal_states(&mut self) -> anyhow::Result<Vec<ModalState>> {
        Ok(self.modal.state.read(&self.ctx))
    }
    fn modal_wall_forces(&mut self) -> anyhow::Result<Vec<[f32; 2]>> {
        let f = self.modal.wall_force.read(&self.ctx);
        Ok(f.chunks(2).map(|c| [c[0], c[1]]).collect())
    }
    fn slots(&mut self) -> anyhow::Result<CoupledSlots> {
        let c = &*self.ctx;
        let (p, sc) = (&self.host.cs.params, &self.host.sc);
        let (n_spd, n_mnodes) = (self.host.cs.node_cell.len(), sc.nodes.len());
        let mut s = self.spd_slots.read(c);
        s.truncate(self.pool_lens[0]);
        let mut k = self.mnode_slots.read(c);
        k.truncate(self.pool_lens[1]);
        Ok((
            self.modal.pool(c),
            SlotPool {
                start: self.modal.read_offsets(c, p.spd_start_at as usize, n_spd + 1),
                slots: s,
            },
            SlotPool {
                start: self.modal.read_offsets(c, p.mnode_start_at as usize, n_mnodes + 1),
                slots: k,
            },
        ))
    }
    fn modal_dynamic(&mut self) -> anyhow::Result<crate::modal::cpu::Dynamic> {
        Ok(self.modal.dynamic(&self.ctx))
    }
    fn set_modal_dynamic(&mut self, dy: &crate::modal::cpu::Dynamic) -> anyhow::Result<()> {
        if self.modal.set_dynamic(&self.ctx, dy)? {
            self.groups = Some(self.make_groups());
        }
        Ok(())
    }
    fn set_lists(
        &mut self,
        modal: &ModalLists,
        lists: &CoupleLists,
        slots: Option<CoupledSlots>,
    ) -> anyhow::Result<()> {
        let ctx = self.ctx.clone();
        let c = &*ctx;
        let mut regroup = self.modal.set_candidates(c, &modal.node_cand, &modal.body_rx)?;
        self.mb_cells.write(c, &lists.mb_cells);
        regroup |= self.cand.write_or_grow(c, "couple candidates", &lists.cand)?;
        if regroup {
            self.groups = Some(self.make_groups());
        }
        if let Some((m, s, k)) = slots {
            let (p, n_spd, n_mnodes) = (
                self.host.cs.params,
                self.host.cs.node_cell.len(),
                self.host.sc.nodes.len(),
            );
            anyhow::ensure!(
                s.owners() == n_spd && k.owners() == n_mnodes,
                "coupling slot pools for {} SPD and {} modal nodes, this scene has {} and {}",
                s.owners(),
                k.owners(),
                n_spd,
                n_mnodes
            );
            let mut grew = self.modal.set_pool(c, &m)?;
            self.modal.write_offsets(c, p.spd_start_at as usize, &s.start);
            self.modal.write_offsets(c, p.mnode_start_at as usize, &k.start);
            grew |= self.spd_slots.write_or_grow(c, "couple spd slots", &s.slots)?;
            grew |= self.mnode_slots.write_or_grow(c, "couple modal-node slots", &k.slots)?;
            self.pool_lens = [s.slots.len(), k.slots.len()];
            if grew {
                self.groups = Some(self.make_groups());
            }
        }
        Ok(())
    }
}
