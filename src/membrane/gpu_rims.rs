//! The rims on the device: `shaders/membrane_rims.wgsl` (twin: `rims.rs`) as a source of the GPU
//! sphere stepper that adds no force and records `hold_rims`, then `rim_servo_area`, after each
//! step's closing kick (`GpuExtraForces::record_after_step`). Its records and uniform are
//! static, so the rims need no host round trip per step (the stepper still steps one step per
//! submission pair with sources: `spheres::extra_force`).
//!
//! With a load cell (`with_load_cell`: the triaxial cell's servo on the load cell's measure)
//! `load_cell_servo` follows them in every step: the cap's axial force on the membrane from the
//! stepper's forces of the step's evaluation (bound by `GpuExtraForces::bind_forces`) and the
//! servo's target σ + R_z/A for the next step. σ is a uniform the host writes
//! (`set_load_cell_stress`, which also runs the kernel once on the current state, so the next
//! step's target is σ's, as `TriaxialCell::step` computes it before the step).

use super::rims::{LoadCell, RimParams, RimPin, Rims};
use crate::gpu::array::GpuArray;
use crate::gpu::context::GpuContext;
use crate::gpu::kernel::Kernel;
use crate::spheres::extra_force::{Evaluation, GpuExtraForces};
use crate::spheres::gpu_pass::{dispatch, params_uniform};
use crate::spheres::SphereParams;
use wgpu::util::DeviceExt as _;

/// A membrane's rims held on their walls by the device.
pub struct GpuRims {
    pub rims: Rims,
    params: RimParams,
    hold: Kernel,
    area: Kernel,
    /// `SphereParams` for `opaque_zero` (all zero).
    sp: wgpu::Buffer,
    rp: wgpu::Buffer,
    pins: GpuArray<RimPin>,
    area_rim: GpuArray<u32>,
    spheres: Option<wgpu::Buffer>,
    /// The stepper's walls and step flags (`bind_step`), for the load cell's group.
    walls: Option<wgpu::Buffer>,
    flags: Option<wgpu::Buffer>,
    groups: Vec<wgpu::BindGroup>,
    /// The load cell (`with_load_cell`), if any.
    load: Option<GpuLoadCell>,
}

/// The load cell's kernel, uniform, output (R_z, target) and forces binding.
struct GpuLoadCell {
    cell: LoadCell,
    kernel: Kernel,
    uniform: wgpu::Buffer,
    out: GpuArray<f32>,
    forces: Option<wgpu::Buffer>,
    group: Option<wgpu::BindGroup>,
    /// Whether the kernel runs after each step (`set_load_cell_on`).
    on: std::cell::Cell<bool>,
}

impl GpuRims {
    pub fn new(ctx: &GpuContext, rims: Rims) -> anyhow::Result<GpuRims> {
        let params = rims.params();
        let records = rims.records();
        let area_rim: Vec<u32> = rims.area.as_ref().map_or(vec![], |a| a.rim.clone());
        Ok(GpuRims {
            params,
            hold: Kernel::new(ctx, "membrane_rims", "hold_rims")?,
            area: Kernel::new(ctx, "membrane_rims", "rim_servo_area")?,
            sp: params_uniform(ctx, &SphereParams::default()),
            rp: ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("RimParams"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            }),
            pins: GpuArray::new(ctx, "rim pins", &super::gpu::nonempty(&records))?,
            area_rim: GpuArray::new(ctx, "area rim", &super::gpu::nonempty(&area_rim))?,
            spheres: None,
            walls: None,
            flags: None,
            groups: Vec::new(),
            rims,
            load: None,
        })
    }

    /// The rims with a load cell on `wall`'s cap (module doc), σ = 0 until
    /// `set_load_cell_stress`. Attach to a stepper (which binds its forces) before stepping.
    pub fn with_load_cell(ctx: &GpuContext, rims: Rims, wall: u32) -> anyhow::Result<GpuRims> {
        let mut g = GpuRims::new(ctx, rims)?;
        let cell = LoadCell {
            wall,
            ..Default::default()
        };
        g.load = Some(GpuLoadCell {
            cell,
            kernel: Kernel::new(ctx, "membrane_rims", "load_cell_servo")?,
            uniform: ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("LoadCell"),
                contents: bytemuck::bytes_of(&cell),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            }),
            out: GpuArray::zeroed(ctx, "load cell out", 2)?,
            forces: None,
            group: None,
            on: std::cell::Cell::new(true),
        });
        Ok(g)
    }

    /// The load cell's σ (the servo's target as the cell measures it), then the kernel once on
    /// the current state, forces and walls: the servo wall's target for the next step is
    /// σ + R_z/A (as `TriaxialCell::step` sets it from `servo_stress` before a step). Needs the
    /// stepper's list not stale (true between its stepping calls).
    pub fn set_load_cell_stress(&self, ctx: &GpuContext, sigma: f32) -> anyhow::Result<()> {
        let l = self
            .load
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("GpuRims: no load cell"))?;
        let cell = LoadCell { sigma, ..l.cell };
        ctx.queue.write_buffer(&l.uniform, 0, bytemuck::bytes_of(&cell));
        let group = l
            .group
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("GpuRims: the load cell is not bound to a stepper"))?;
        let mut enc = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("load cell"),
        });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&l.kernel.pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        ctx.queue.submit([enc.finish()]);
        Ok(())
    }

    /// Whether these rims carry a load cell.
    pub fn has_load_cell(&self) -> bool {
        self.load.is_some()
    }

    /// Whether the load cell's kernel runs after each step (on from `with_load_cell`; the
    /// triaxial cell turns it off when the servo platen becomes a moving plane, whose target
    /// nothing reads).
    pub fn set_load_cell_on(&self, on: bool) {
        if let Some(l) = &self.load {
            l.on.set(on);
        }
    }

    /// The load cell's bind group, once the stepper's spheres, walls, flags and forces are bound.
    fn bind_load_cell(&mut self, ctx: &GpuContext) {
        let Some(l) = &mut self.load else {
            return;
        };
        let (Some(spheres), Some(walls), Some(flags), Some(forces)) =
            (&self.spheres, &self.walls, &self.flags, &l.forces)
        else {
            return;
        };
        let mut table = rims_table(&self.sp, &self.rp, [spheres, walls, flags], &self.pins);
        table.extend([(7, forces), (8, &l.uniform), (9, l.out.buffer())]);
        l.group = Some(l.kernel.bind(ctx, &table));
    }

    /// The load cell's last output: R_z (N, > 0 up) and the wall's target stress after it (Pa);
    /// None without a load cell.
    pub fn load_cell_out(&self, ctx: &GpuContext) -> Option<(f32, f32)> {
        self.load.as_ref().map(|l| {
            let o = l.out.read(ctx);
            (o[0], o[1])
        })
    }
}

/// Bindings 0–5 of membrane_rims.wgsl, which every rim kernel reads: the two parameter blocks,
/// the stepper's spheres, walls and step flags, the pins.
fn rims_table<'a>(
    sp: &'a wgpu::Buffer,
    rp: &'a wgpu::Buffer,
    [spheres, walls, flags]: [&'a wgpu::Buffer; 3],
    pins: &'a GpuArray<RimPin>,
) -> Vec<(u32, &'a wgpu::Buffer)> {
    vec![
        (0, sp),
        (1, rp),
        (2, spheres),
        (3, walls),
        (4, flags),
        (5, pins.buffer()),
    ]
}

impl GpuExtraForces for GpuRims {
    fn bind(&mut self, _ctx: &GpuContext, spheres: &wgpu::Buffer, _extra: &wgpu::Buffer) -> anyhow::Result<()> {
        self.spheres = Some(spheres.clone());
        Ok(())
    }

    fn bind_step(&mut self, ctx: &GpuContext, flags: &wgpu::Buffer, walls: &wgpu::Buffer) -> anyhow::Result<()> {
        let spheres = self.spheres.as_ref().expect("GpuRims: bind_step before bind");
        let mut table = rims_table(&self.sp, &self.rp, [spheres, walls, flags], &self.pins);
        table.push((6, self.area_rim.buffer()));
        self.groups = vec![self.hold.bind(ctx, &table), self.area.bind(ctx, &table)];
        (self.walls, self.flags) = (Some(walls.clone()), Some(flags.clone()));
        self.bind_load_cell(ctx);
        Ok(())
    }

    fn bind_forces(&mut self, ctx: &GpuContext, forces: &wgpu::Buffer) -> anyhow::Result<()> {
        if let Some(l) = &mut self.load {
            l.forces = Some(forces.clone());
        }
        self.bind_load_cell(ctx);
        Ok(())
    }

    fn prepare(&mut self, _ctx: &GpuContext, _eval: Evaluation) {}

    /// No force: the rims act after the step.
    fn record(&self, _pass: &mut wgpu::ComputePass<'_>) {}

    fn record_after_step(&self, pass: &mut wgpu::ComputePass<'_>) {
        if self.params.n_pins > 0 {
            dispatch(pass, &self.hold, &self.groups[0], self.params.n_pins);
        }
        if self.params.n_area >= 3 {
            dispatch(pass, &self.area, &self.groups[1], 1);
        }
        if let Some(l) = &self.load {
            if l.on.get() {
                let group = l.group.as_ref().expect("GpuRims: the load cell's forces are not bound");
                pass.set_pipeline(&l.kernel.pipeline);
                pass.set_bind_group(0, group, &[]);
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
