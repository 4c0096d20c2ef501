//! `softdem info`: every adapter wgpu finds, the one `GpuContext::new` chooses, its key limits,
//! whether it has subgroup operations, its features, and the floating-point probe run on it
//! (`gpu::precision`). Kept out of `context` so the layers
//! stay one way: context → arrays and kernels → the probe → this report.

use super::context::{enumerate_adapters, GpuContext};
use super::precision::measure;

/// One line describing an adapter.
fn adapter_line(info: &wgpu::AdapterInfo) -> String {
    let driver = [info.driver.as_str(), info.driver_info.as_str()]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    format!(
        "{} | backend {:?} | type {:?} | driver {}",
        info.name, info.backend, info.device_type, driver
    )
}

/// Prints every adapter found, the one [`GpuContext::new`] chooses, and its key limits.
pub fn print_info() -> anyhow::Result<()> {
    let adapters = enumerate_adapters();
    println!("adapters found: {}", adapters.len());
    for info in &adapters {
        println!("  {}", adapter_line(info));
    }
    let ctx = GpuContext::new()?;
    let l = &ctx.limits;
    let a = ctx.adapter.limits();
    println!("chosen: {}", adapter_line(&ctx.info));
    println!("limits (requested / adapter):");
    println!(
        "  max_storage_buffer_binding_size: {} / {}",
        l.max_storage_buffer_binding_size, a.max_storage_buffer_binding_size
    );
    println!("  max_buffer_size: {} / {}", l.max_buffer_size, a.max_buffer_size);
    println!(
        "  max_storage_buffers_per_shader_stage: {} / {}",
        l.max_storage_buffers_per_shader_stage, a.max_storage_buffers_per_shader_stage
    );
    println!(
        "  max_compute_workgroups_per_dimension: {} / {}",
        l.max_compute_workgroups_per_dimension, a.max_compute_workgroups_per_dimension
    );
    println!("subgroup operations: {}", ctx.subgroup_summary());
    println!("adapter features: {:?}", ctx.adapter.features());
    println!("floating point (precision_probe.wgsl on this device):");
    for line in measure(&ctx)?.lines() {
        println!("  {line}");
    }
    Ok(())
}
