//! `PreparedScan`: the exclusive scan of `shaders/prefix_scan.wgsl` (algorithm in `gpu::scan`)
//! bound once to one buffer and one length, recorded into a caller's compute pass with
//! *indirect* dispatches. The stepper uses it inside the neighbour-list rebuild, whose dispatches
//! are sized 0 on the GPU when no rebuild is due — so a step never waits for the host.

use super::array::dispatch_groups;
use super::context::GpuContext;
use super::scan::SCAN_BLOCK;
use wgpu::util::DeviceExt as _;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct ScanParams {
    n: u32,
    with_offsets: u32,
    pad: [u32; 2],
}

struct Level {
    groups: (u32, u32),
    g0: wgpu::BindGroup,
    g0_reduce: Option<wgpu::BindGroup>,
    g1_reduce: wgpu::BindGroup,
    g1_scan: wgpu::BindGroup,
}

pub struct PreparedScan {
    reduce: wgpu::ComputePipeline,
    scan: wgpu::ComputePipeline,
    levels: Vec<Level>,
    _buffers: Vec<wgpu::Buffer>,
}

impl PreparedScan {
    /// Scan of `data[0..n]` in place, total to `data[n]`.
    pub fn new(ctx: &GpuContext, data: &wgpu::Buffer, n: u32) -> anyhow::Result<Self> {
        let reduce = ctx.create_compute_pipeline("prefix_scan", "reduce_blocks")?;
        let scan = ctx.create_compute_pipeline("prefix_scan", "scan_blocks")?;
        let dev = &ctx.device;
        let mut sizes = vec![n];
        while *sizes.last().unwrap() > SCAN_BLOCK {
            let last = *sizes.last().unwrap();
            sizes.push(last.div_ceil(SCAN_BLOCK));
        }
        let top = sizes.len() - 1;
        let mut buffers = Vec::new();
        // Level k's data is `data` for k = 0, else the block sums of level k − 1.
        let mut level_data: Vec<wgpu::Buffer> = vec![data.clone()];
        for &nk in &sizes[1..] {
            level_data.push(dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some("prepared_scan block sums"),
                size: ((nk as u64 + 1) * 4).max(16),
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }));
        }
        let dummy = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some("prepared_scan dummy"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let mut levels = Vec::new();
        for (k, &nk) in sizes.iter().enumerate() {
            let params = dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("prepared_scan params"),
                contents: bytemuck::bytes_of(&ScanParams {
                    n: nk,
                    with_offsets: (k < top) as u32,
                    pad: [0; 2],
                }),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            let sums = if k < top { &level_data[k + 1] } else { &dummy };
            let g0 = |p: &wgpu::ComputePipeline| {
                dev.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("prepared_scan g0"),
                    layout: &p.get_bind_group_layout(0),
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: params.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: sums.as_entire_binding(),
                        },
                    ],
                })
            };
            let g1 = |p: &wgpu::ComputePipeline| {
                dev.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("prepared_scan g1"),
                    layout: &p.get_bind_group_layout(1),
                    entries: &[wgpu::BindGroupEntry {
                        binding: 0,
                        resource: level_data[k].as_entire_binding(),
                    }],
                })
            };
            levels.push(Level {
                groups: dispatch_groups(nk.div_ceil(SCAN_BLOCK).max(1)),
                g0: g0(&scan),
                g0_reduce: (k < top).then(|| g0(&reduce)),
                g1_reduce: g1(&reduce),
                g1_scan: g1(&scan),
            });
            buffers.push(params);
        }
        buffers.extend(level_data.into_iter().skip(1));
        buffers.push(dummy);
        Ok(PreparedScan {
            reduce,
            scan,
            levels,
            _buffers: buffers,
        })
    }

    /// Workgroup counts of every dispatch, in recording order (reduce up, then scan down).
    pub fn dispatch_sizes(&self) -> Vec<(u32, u32)> {
        let top = self.levels.len() - 1;
        let up = self.levels[..top].iter().map(|l| l.groups);
        let down = self.levels.iter().rev().map(|l| l.groups);
        up.chain(down).collect()
    }

    /// Records the scan with indirect dispatches reading 12-byte arguments from `args`, the first
    /// at slot `first_slot`, in the order of `dispatch_sizes`.
    pub fn record_indirect(&self, pass: &mut wgpu::ComputePass<'_>, args: &wgpu::Buffer, first_slot: u32) {
        let top = self.levels.len() - 1;
        let mut slot = first_slot as u64;
        pass.set_pipeline(&self.reduce);
        for l in &self.levels[..top] {
            pass.set_bind_group(0, l.g0_reduce.as_ref().unwrap(), &[]);
            pass.set_bind_group(1, &l.g1_reduce, &[]);
            pass.dispatch_workgroups_indirect(args, slot * 12);
            slot += 1;
        }
        pass.set_pipeline(&self.scan);
        for l in self.levels.iter().rev() {
            pass.set_bind_group(0, &l.g0, &[]);
            pass.set_bind_group(1, &l.g1_scan, &[]);
            pass.dispatch_workgroups_indirect(args, slot * 12);
            slot += 1;
        }
    }
}
