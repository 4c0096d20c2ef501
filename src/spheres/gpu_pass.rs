//! Small host-side helpers shared by the sphere GPU kernels: the `SphereParams` uniform and a
//! dispatch of one kernel over n items (workgroups of 64, the size every sphere kernel uses).

use super::state::SphereParams;
use crate::gpu::array::dispatch_size;
use crate::gpu::context::GpuContext;
use crate::gpu::kernel::Kernel;
use wgpu::util::DeviceExt as _;

/// Workgroup size of every sphere kernel (`PAIR_WG`, `CELL_WG` in WGSL).
pub const SPHERE_WG: u32 = 64;

/// A uniform buffer holding `p` (binding 0 of every sphere kernel).
pub fn params_uniform(ctx: &GpuContext, p: &SphereParams) -> wgpu::Buffer {
    ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("SphereParams"),
        contents: bytemuck::bytes_of(p),
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    })
}

/// Records `kernel` over `n` items with bind group `bg`.
pub fn dispatch(pass: &mut wgpu::ComputePass<'_>, kernel: &Kernel, bg: &wgpu::BindGroup, n: u32) {
    pass.set_pipeline(&kernel.pipeline);
    pass.set_bind_group(0, bg, &[]);
    let (x, y) = dispatch_size(n, SPHERE_WG);
    pass.dispatch_workgroups(x, y, 1);
}
