//! GPU twin of `forces::BeadForces`: the kernels of `shaders/beads.wgsl` as a
//! `spheres::extra_force::GpuExtraForces` source of `GpuSpheres`. Plane positions and point
//! loads are evaluated on the host at each evaluation's time (f64, as the CPU twin) and written
//! before the dispatches; bonds (with their break records) stay on the GPU.

use super::bonds::{Bond, BondList};
use super::forces::BeadForces;
use crate::gpu::array::GpuArray;
use crate::gpu::context::GpuContext;
use crate::gpu::kernel::Kernel;
use crate::spheres::extra_force::{Evaluation, GpuExtraForces};
use crate::spheres::gpu_pass::{dispatch, params_uniform};
use crate::spheres::SphereParams;
use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt as _;

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
    pub _pad0: u32,
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

struct Bound {
    bond_pass: (Kernel, wgpu::BindGroup),
    bead_pass: (Kernel, wgpu::BindGroup),
    load_pass: (Kernel, wgpu::BindGroup),
    plane_gather: (Kernel, wgpu::BindGroup),
}

/// Bonds, planes and loads on the GPU; `host` keeps the planes, loads and the evaluation count
/// (its bonds are the initial ones: read the current ones with `bonds`).
pub struct GpuBeadForces {
    pub host: BeadForces,
    params: wgpu::Buffer,
    sphere_params: wgpu::Buffer,
    bonds: GpuArray<Bond>,
    bond_force: GpuArray<[f32; 4]>,
    bond_start: GpuArray<u32>,
    bond_incident: GpuArray<u32>,
    planes: GpuArray<BeadPlaneRec>,
    loads: GpuArray<LoadRec>,
    plane_force: GpuArray<[f32; 4]>,
    bound: Option<Bound>,
}

impl GpuBeadForces {
    pub fn new(ctx: &GpuContext, host: BeadForces) -> anyhow::Result<GpuBeadForces> {
        let b = &host.bonds;
        let sp = SphereParams {
            n_spheres: b.n_beads() as u32,
            ..Default::default()
        };
        let params = ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("BeadParams"),
            contents: bytemuck::bytes_of(&BeadParams::default()),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        Ok(GpuBeadForces {
            params,
            sphere_params: params_uniform(ctx, &sp),
            bonds: GpuArray::new(ctx, "bonds", &b.bonds)?,
            bond_force: GpuArray::zeroed(ctx, "bond force", b.len())?,
            bond_start: GpuArray::new(ctx, "bond start", &b.start)?,
            bond_incident: GpuArray::new(ctx, "bond incident", &b.incident)?,
            planes: GpuArray::zeroed(ctx, "bead planes", host.planes.len())?,
            loads: GpuArray::zeroed(ctx, "bead loads", host.loads.len())?,
            plane_force: GpuArray::zeroed(ctx, "plane force", host.planes.len())?,
            bound: None,
            host,
        })
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
        let table = [
            (0, &self.sphere_params),
            (1, &self.params),
            (2, spheres),
            (3, extra),
            (4, self.bonds.buffer()),
            (5, self.bond_force.buffer()),
            (6, self.bond_start.buffer()),
            (7, self.bond_incident.buffer()),
            (8, self.planes.buffer()),
            (9, self.loads.buffer()),
            (10, self.plane_force.buffer()),
        ];
        let k = |e| -> anyhow::Result<(Kernel, wgpu::BindGroup)> {
            let kernel = Kernel::new(ctx, "beads", e)?;
            let bg = kernel.bind(ctx, &table);
            Ok((kernel, bg))
        };
        self.bound = Some(Bound {
            bond_pass: k("bond_pass")?,
            bead_pass: k("bead_pass")?,
            load_pass: k("load_pass")?,
            plane_gather: k("plane_gather")?,
        });
        Ok(())
    }

    fn prepare(&mut self, ctx: &GpuContext, eval: Evaluation) {
        let dt = eval.dt;
        let h = &mut self.host;
        h.evaluations += 1;
        let t = h.time(dt);
        let p = BeadParams {
            n_beads: h.bonds.n_beads() as u32,
            n_bonds: h.bonds.len() as u32,
            n_planes: h.planes.len() as u32,
            n_loads: h.loads.len() as u32,
            break_stretch: h.break_stretch,
            evaluation: h.evaluations,
            _pad0: 0,
            _pad1: 0,
        };
        ctx.queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&p));
        if !h.planes.is_empty() {
            let recs: Vec<BeadPlaneRec> = h
                .plane_records(t)
                .iter()
                .map(|&(hi, lo, n, s)| BeadPlaneRec {
                    point_hi: hi,
                    s,
                    point_lo: lo,
                    normal: n,
                    ..Default::default()
                })
                .collect();
            self.planes.write(ctx, &recs);
        }
        if !h.loads.is_empty() {
            let recs: Vec<LoadRec> = h
                .loads
                .iter()
                .map(|l| LoadRec {
                    force: l.force_at(t),
                    bead: l.bead,
                })
                .collect();
            self.loads.write(ctx, &recs);
        }
    }

    /// Not batchable: `prepare` writes each evaluation's count (break records), plane positions
    /// and loads at its time, so the stepper takes one step per submission pair.
    fn batchable(&self) -> bool {
        false
    }

    fn record(&self, pass: &mut wgpu::ComputePass<'_>) {
        let b = self.bound.as_ref().expect("GpuBeadForces::record before bind");
        let h = &self.host;
        dispatch(pass, &b.bond_pass.0, &b.bond_pass.1, h.bonds.len() as u32);
        dispatch(pass, &b.bead_pass.0, &b.bead_pass.1, h.bonds.n_beads() as u32);
        if !h.loads.is_empty() {
            dispatch(pass, &b.load_pass.0, &b.load_pass.1, h.loads.len() as u32);
        }
        if !h.planes.is_empty() {
            dispatch(pass, &b.plane_gather.0, &b.plane_gather.1, h.planes.len() as u32);
        }
    }
}
