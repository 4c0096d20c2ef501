//! GPU twin of `forces::BeadForces`: the kernels of `shaders/beads.wgsl` as a
//! `spheres::extra_force::GpuExtraForces` source of `GpuSpheres`. Plane positions and point
//! loads are evaluated on the host at each evaluation's time (f64, as the CPU twin), for all the
//! evaluations of a submission at once (`prepare_batch`): evaluation k of the submission binds
//! slot k's `BeadParams` (its 1-based evaluation number, for the break records) and reads slot
//! k's plane and load records, so the stepper records many steps per submission; the stepper
//! tells the source how many ran (`evaluated`). Bonds (with their break records) stay on the GPU.

use super::bonds::{Bond, BondList};
use super::forces::BeadForces;
use crate::gpu::array::GpuArray;
use crate::gpu::context::GpuContext;
use crate::gpu::kernel::Kernel;
use crate::spheres::extra_force::{Evaluation, GpuExtraForces};
use crate::spheres::gpu_pass::{dispatch, params_uniform};
use crate::spheres::SphereParams;
use bytemuck::{Pod, Zeroable};

/// `BeadParams` of `shaders/beads.wgsl` (32 bytes, a uniform).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BeadParams {
    pub n_beads: u32,
    pub n_bonds: u32,
    pub n_planes: u32,
    pub n_loads: u32,
    pub break_stretch: f32,
    pub evaluation: u32,
    /// Index of this evaluation in its submission (its plane and load records).
    pub slot: u32,
    pub _pad1: u32,
}

/// `BeadPlaneRec` (48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BeadPlaneRec {
    pub point_hi: [f32; 3],
    pub s: f32,
    pub point_lo: [f32; 3],
    pub _pad0: f32,
    pub normal: [f32; 3],
    pub _pad1: f32,
}

/// `LoadRec` (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct LoadRec {
    pub force: [f32; 3],
    pub bead: u32,
}

/// The stepper's buffers the kernels bind (`bind`, `bind_step`).
struct Bound {
    spheres: wgpu::Buffer,
    extra: wgpu::Buffer,
    /// The step flags (`bind_step`; a zero placeholder until then).
    flags: wgpu::Buffer,
}

struct Kernels {
    bond_pass: Kernel,
    bead_pass: Kernel,
    load_pass: Kernel,
    plane_gather: Kernel,
}

/// Bonds, planes and loads on the GPU; `host` keeps the planes, loads and the evaluation count
/// (its bonds are the initial ones: read the current ones with `bonds`).
pub struct GpuBeadForces {
    pub host: BeadForces,
    k: Kernels,
    /// One `BeadParams` per slot, `stride` bytes apart (the uniform offset alignment).
    params: wgpu::Buffer,
    stride: u64,
    /// Evaluations a submission may hold (slots of `params`, `planes`, `loads`, `groups`).
    slots: u32,
    sphere_params: wgpu::Buffer,
    bonds: GpuArray<Bond>,
    bond_force: GpuArray<[f32; 4]>,
    bond_start: GpuArray<u32>,
    bond_incident: GpuArray<u32>,
    /// Per slot, the planes at that evaluation's time (slot · n_planes + plane).
    planes: GpuArray<BeadPlaneRec>,
    /// Per slot, the loads at that evaluation's time (slot · n_loads + load).
    loads: GpuArray<LoadRec>,
    plane_force: GpuArray<[f32; 4]>,
    bound: Option<Bound>,
    /// Per slot, the bind groups of bond_pass, bead_pass, load_pass, plane_gather.
    groups: Vec<[wgpu::BindGroup; 4]>,
}

impl GpuBeadForces {
    pub fn new(ctx: &GpuContext, host: BeadForces) -> anyhow::Result<GpuBeadForces> {
        let b = &host.bonds;
        let sp = SphereParams {
            n_spheres: b.n_beads() as u32,
            ..Default::default()
        };
        let kn = |e| Kernel::new(ctx, "beads", e);
        let k = Kernels {
            bond_pass: kn("bond_pass")?,
            bead_pass: kn("bead_pass")?,
            load_pass: kn("load_pass")?,
            plane_gather: kn("plane_gather")?,
        };
        let align = ctx.device.limits().min_uniform_buffer_offset_alignment as u64;
        let stride = (std::mem::size_of::<BeadParams>() as u64).next_multiple_of(align.max(1));
        // One slot until a submission asks for more (`prepare_batch`).
        Ok(GpuBeadForces {
            k,
            params: Self::params_buffer(ctx, stride, 1),
            stride,
            slots: 1,
            sphere_params: params_uniform(ctx, &sp),
            bonds: GpuArray::new(ctx, "bonds", &b.bonds)?,
            bond_force: GpuArray::zeroed(ctx, "bond force", b.len())?,
            bond_start: GpuArray::new(ctx, "bond start", &b.start)?,
            bond_incident: GpuArray::new(ctx, "bond incident", &b.incident)?,
            planes: GpuArray::zeroed(ctx, "bead planes", host.planes.len())?,
            loads: GpuArray::zeroed(ctx, "bead loads", host.loads.len())?,
            plane_force: GpuArray::zeroed(ctx, "plane force", host.planes.len())?,
            bound: None,
            groups: Vec::new(),
            host,
        })
    }

    fn params_buffer(ctx: &GpuContext, stride: u64, slots: u32) -> wgpu::Buffer {
        ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("BeadParams"),
            size: stride * slots as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Room for `slots` evaluations per submission (params, plane and load records, and the
    /// bind groups once bound).
    fn alloc_slots(&mut self, ctx: &GpuContext, slots: u32) -> anyhow::Result<()> {
        let n = slots as usize;
        self.params = Self::params_buffer(ctx, self.stride, slots);
        self.planes = GpuArray::zeroed(ctx, "bead planes", n * self.host.planes.len())?;
        self.loads = GpuArray::zeroed(ctx, "bead loads", n * self.host.loads.len())?;
        self.slots = slots;
        self.make_groups(ctx);
        Ok(())
    }

    /// The bind groups of every slot (none before `bind`).
    fn make_groups(&mut self, ctx: &GpuContext) {
        let Some(b) = &self.bound else {
            self.groups.clear();
            return;
        };
        let k = &self.k;
        self.groups = (0..self.slots as u64)
            .map(|slot| {
                let table = [
                    (0, whole(&self.sphere_params)),
                    (
                        1,
                        wgpu::BufferBinding {
                            buffer: &self.params,
                            offset: slot * self.stride,
                            size: wgpu::BufferSize::new(std::mem::size_of::<BeadParams>() as u64),
                        },
                    ),
                    (2, whole(&b.spheres)),
                    (3, whole(&b.extra)),
                    (4, whole(self.bonds.buffer())),
                    (5, whole(self.bond_force.buffer())),
                    (6, whole(self.bond_start.buffer())),
                    (7, whole(self.bond_incident.buffer())),
                    (8, whole(self.planes.buffer())),
                    (9, whole(self.loads.buffer())),
                    (10, whole(self.plane_force.buffer())),
                    (11, whole(&b.flags)),
                ];
                [&k.bond_pass, &k.bead_pass, &k.load_pass, &k.plane_gather]
                    .map(|kernel| kernel.bind_ranges(ctx, &table))
            })
            .collect();
    }

    /// The bonds with their break records (read back).
    pub fn bonds(&self, ctx: &GpuContext) -> BondList {
        let mut list = self.host.bonds.clone();
        list.bonds = self.bonds.read(ctx);
        list
    }

    /// Force of the beads on each plane at the last evaluation.
    pub fn plane_force(&self, ctx: &GpuContext) -> Vec<[f32; 3]> {
        self.plane_force.read(ctx).iter().map(|f| [f[0], f[1], f[2]]).collect()
    }

    /// Force of each bond on its i at the last evaluation.
    pub fn bond_force(&self, ctx: &GpuContext) -> Vec<[f32; 3]> {
        self.bond_force.read(ctx).iter().map(|f| [f[0], f[1], f[2]]).collect()
    }

    /// Restores the state `BeadRun::measured`-style reads give (a checkpoint): the bonds' break
    /// records, the last evaluation's bond and plane forces and the evaluation count.
    pub fn restore(&mut self, ctx: &GpuContext, saved: &BeadForces) -> anyhow::Result<()> {
        anyhow::ensure!(
            saved.bonds.len() == self.host.bonds.len() && saved.plane_force.len() == self.host.planes.len(),
            "the checkpoint has {} bonds and {} planes, this scenario {} and {}",
            saved.bonds.len(),
            saved.plane_force.len(),
            self.host.bonds.len(),
            self.host.planes.len()
        );
        self.bonds.write(ctx, &saved.bonds.bonds);
        let v4 = |f: &[[f32; 3]]| -> Vec<[f32; 4]> { f.iter().map(|x| [x[0], x[1], x[2], 0.0]).collect() };
        self.bond_force.write(ctx, &v4(&saved.bond_force));
        self.plane_force.write(ctx, &v4(&saved.plane_force));
        self.host.evaluations = saved.evaluations;
        Ok(())
    }

    /// GPU bytes per bond (record, force, two incident entries) and per bead (CSR start).
    pub fn bytes_per_bond_and_bead() -> (usize, usize) {
        (std::mem::size_of::<Bond>() + 16 + 8, 4)
    }
}

impl GpuExtraForces for GpuBeadForces {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn bind(&mut self, ctx: &GpuContext, spheres: &wgpu::Buffer, extra: &wgpu::Buffer) -> anyhow::Result<()> {
        let flags = GpuArray::<u32>::zeroed(ctx, "step flags (unbound)", 4)?;
        self.bound = Some(Bound {
            spheres: spheres.clone(),
            extra: extra.clone(),
            flags: flags.buffer().clone(),
        });
        self.make_groups(ctx);
        Ok(())
    }

    fn bind_step(&mut self, ctx: &GpuContext, flags: &wgpu::Buffer, _walls: &wgpu::Buffer) -> anyhow::Result<()> {
        let b = self.bound.as_mut().expect("GpuBeadForces: bind_step before bind");
        b.flags = flags.clone();
        self.make_groups(ctx);
        Ok(())
    }

    /// One evaluation (`prepare_batch` with one slot; the stepper calls `prepare_batch`).
    fn prepare(&mut self, ctx: &GpuContext, eval: Evaluation) {
        self.prepare_batch(ctx, eval, 1)
            .expect("GpuBeadForces: one slot always fits");
    }

    /// Slot k holds evaluation `evaluations + 1 + k`: its number, and the planes and loads at
    /// its time (f64 → f32 exactly as the CPU twin), all written at once.
    fn prepare_batch(&mut self, ctx: &GpuContext, eval: Evaluation, count: u32) -> anyhow::Result<()> {
        let count = count.max(1);
        if count > self.slots {
            self.alloc_slots(ctx, count)?;
        }
        let h = &self.host;
        let mut params = vec![0u8; (self.stride * count as u64) as usize];
        let mut planes = Vec::with_capacity(count as usize * h.planes.len());
        let mut loads = Vec::with_capacity(count as usize * h.loads.len());
        for slot in 0..count {
            let evaluation = h.evaluations + 1 + slot;
            let t = BeadForces::time_of(evaluation, eval.dt);
            let p = BeadParams {
                n_beads: h.bonds.n_beads() as u32,
                n_bonds: h.bonds.len() as u32,
                n_planes: h.planes.len() as u32,
                n_loads: h.loads.len() as u32,
                break_stretch: h.break_stretch,
                evaluation,
                slot,
                _pad1: 0,
            };
            let at = (slot as u64 * self.stride) as usize;
            params[at..at + std::mem::size_of::<BeadParams>()].copy_from_slice(bytemuck::bytes_of(&p));
            if !h.planes.is_empty() {
                planes.extend(h.plane_records(t).iter().map(|&(hi, lo, n, s)| BeadPlaneRec {
                    point_hi: hi,
                    s,
                    point_lo: lo,
                    normal: n,
                    ..Default::default()
                }));
            }
            loads.extend(h.loads.iter().map(|l| LoadRec {
                force: l.force_at(t),
                bead: l.bead,
            }));
        }
        ctx.queue.write_buffer(&self.params, 0, &params);
        self.planes.write(ctx, &planes);
        self.loads.write(ctx, &loads);
        Ok(())
    }

    /// The bead clock advances by the evaluations that ran.
    fn evaluated(&mut self, count: u32) {
        self.host.evaluations += count;
    }

    fn record(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.record_at(pass, 0)
    }

    fn record_at(&self, pass: &mut wgpu::ComputePass<'_>, index: u32) {
        assert!(
            index < self.slots && !self.groups.is_empty(),
            "GpuBeadForces: evaluation {index} of a submission prepared for {}",
            self.slots
        );
        let [bond, bead, load, plane] = &self.groups[index as usize];
        let h = &self.host;
        dispatch(pass, &self.k.bond_pass, bond, h.bonds.len() as u32);
        dispatch(pass, &self.k.bead_pass, bead, h.bonds.n_beads() as u32);
        if !h.loads.is_empty() {
            dispatch(pass, &self.k.load_pass, load, h.loads.len() as u32);
        }
        if !h.planes.is_empty() {
            // One workgroup of 256 lanes per plane (the fixed-order reduction, fixed_reduce.wgsl).
            pass.set_pipeline(&self.k.plane_gather.pipeline);
            pass.set_bind_group(0, plane, &[]);
            pass.dispatch_workgroups(h.planes.len() as u32, 1, 1);
        }
    }
}

fn whole(buf: &wgpu::Buffer) -> wgpu::BufferBinding<'_> {
    buf.as_entire_buffer_binding()
}
