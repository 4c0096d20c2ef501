//! `Kernel`: one compute pipeline plus the bindings its entry point really uses, reflected with
//! naga, so bind groups are built from one table per shader instead of lists repeated by hand.

use super::context::GpuContext;
use anyhow::Context as _;

pub struct Kernel {
    pub pipeline: wgpu::ComputePipeline,
    /// Bindings of group 0 used by the entry point.
    pub bindings: Vec<u32>,
    pub name: String,
}

impl Kernel {
    pub fn new(ctx: &GpuContext, shader: &str, entry: &str) -> anyhow::Result<Kernel> {
        let source = crate::shaders::shader_source(shader).map_err(|e| anyhow::anyhow!(e))?;
        let module = naga::front::wgsl::parse_str(&source).map_err(|e| anyhow::anyhow!(e.emit_to_string(&source)))?;
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            super::context::kernel_capabilities(shader),
        )
        .validate(&module)
        .map_err(|e| anyhow::anyhow!(e.emit_to_string(&source)))?;
        let ep = module
            .entry_points
            .iter()
            .position(|e| e.name == entry)
            .with_context(|| format!("no entry point {entry} in shaders/{shader}.wgsl"))?;
        let fi = info.get_entry_point(ep);
        let mut bindings: Vec<u32> = module
            .global_variables
            .iter()
            .filter(|(h, _)| !fi[*h].is_empty())
            .filter_map(|(_, g)| g.binding.as_ref().map(|b| b.binding))
            .collect();
        bindings.sort_unstable();
        let pipeline = ctx.create_compute_pipeline(shader, entry)?;
        Ok(Kernel {
            pipeline,
            bindings,
            name: format!("{shader}::{entry}"),
        })
    }

    /// A bind group for group 0 from `table` (binding → buffer), keeping what this kernel uses.
    pub fn bind(&self, ctx: &GpuContext, table: &[(u32, &wgpu::Buffer)]) -> wgpu::BindGroup {
        let ranges: Vec<(u32, wgpu::BufferBinding<'_>)> = table
            .iter()
            .map(|(b, buf)| (*b, buf.as_entire_buffer_binding()))
            .collect();
        self.bind_ranges(ctx, &ranges)
    }

    /// As `bind`, with buffer ranges (offset, size) instead of whole buffers.
    pub fn bind_ranges(&self, ctx: &GpuContext, table: &[(u32, wgpu::BufferBinding<'_>)]) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = self
            .bindings
            .iter()
            .map(|b| {
                let range = table
                    .iter()
                    .find(|(k, _)| k == b)
                    .unwrap_or_else(|| panic!("{}: binding {b} missing from the table", self.name))
                    .1
                    .clone();
                wgpu::BindGroupEntry {
                    binding: *b,
                    resource: wgpu::BindingResource::Buffer(range),
                }
            })
            .collect();
        ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&self.name),
            layout: &self.pipeline.get_bind_group_layout(0),
            entries: &entries,
        })
    }
}
