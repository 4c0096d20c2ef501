//! The rims on the device: `shaders/membrane_rims.wgsl` (twin: `rims.rs`) as a source of the GPU
//! sphere stepper that adds no force and records `hold_rims`, then `rim_servo_area`, after each
//! step's closing kick (`GpuExtraForces::record_after_step`). Its records and uniform are
//! static, so the rims need no host round trip per step (the stepper still steps one step per
//! submission pair with sources: `spheres::extra_force`).

use super::rims::{RimParams, Rims};
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
    pins: GpuArray<super::rims::RimPin>,
    area_rim: GpuArray<u32>,
    spheres: Option<wgpu::Buffer>,
    groups: Vec<wgpu::BindGroup>,
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
            groups: Vec::new(),
            rims,
        })
    }
}

impl GpuExtraForces for GpuRims {
    fn bind(&mut self, _ctx: &GpuContext, spheres: &wgpu::Buffer, _extra: &wgpu::Buffer) -> anyhow::Result<()> {
        self.spheres = Some(spheres.clone());
        Ok(())
    }

    fn bind_step(&mut self, ctx: &GpuContext, flags: &wgpu::Buffer, walls: &wgpu::Buffer) -> anyhow::Result<()> {
        let spheres = self.spheres.as_ref().expect("GpuRims: bind_step before bind");
        let table = [
            (0, &self.sp),
            (1, &self.rp),
            (2, spheres),
            (3, walls),
            (4, flags),
            (5, self.pins.buffer()),
            (6, self.area_rim.buffer()),
        ];
        self.groups = vec![self.hold.bind(ctx, &table), self.area.bind(ctx, &table)];
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
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
