//! Exclusive prefix sum (scan) over `u32` on the GPU, for any `n` the binding limit allows.
//!
//! # Algorithm (`shaders/prefix_scan.wgsl`)
//! Multi-level "reduce then scan" over blocks of [`SCAN_BLOCK`] = 1024 elements (one workgroup of
//! 256 invocations, 4 elements each):
//! 1. `reduce_blocks`: the sum of each block of level `k` goes to the scratch buffer of level
//!    `k + 1`; repeated while a level has more than one block (2^24 elements: 16 Ki block sums,
//!    then 16, then one block).
//! 2. `scan_blocks` on the top level (a single block): exclusive scan in place, total to `data[n]`.
//! 3. `scan_blocks` on each lower level, top-down: exclusive scan of each block plus the block's
//!    (now scanned) offset from the level above.
//!
//! 2^24 elements take 5 dispatches, reading the data twice and writing it once. Wrapping `u32`
//! addition is associative: the result is exact and identical to the CPU twin
//! [`crate::cpu::scan::prefix_scan`].
//!
//! # Prepared once, recorded many times
//! A [`PrefixScan`] is bound to one buffer and one `n` at creation: its per-level parameters
//! (uniforms created initialised, never rewritten), scratch buffers and bind groups are made once.
//! It can then be recorded any number of times into any compute pass, directly (`record`) or with
//! indirect dispatches (`record_indirect`), which the stepper uses inside a neighbour-list rebuild
//! whose dispatches are sized 0 on the GPU when no rebuild is due — no step waits for the host.

use super::array::dispatch_groups;
use super::context::GpuContext;
use wgpu::util::DeviceExt as _;

/// Elements per workgroup block (must match `SCAN_BLOCK` in `shaders/prefix_scan.wgsl`).
pub const SCAN_BLOCK: u32 = 1024;

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

pub struct PrefixScan {
    reduce: wgpu::ComputePipeline,
    scan: wgpu::ComputePipeline,
    levels: Vec<Level>,
    _buffers: Vec<wgpu::Buffer>,
}

impl PrefixScan {
    /// Scan of `data[0..n]` in place, total to `data[n]`: `data` must hold n + 1 `u32`.
    pub fn new(ctx: &GpuContext, data: &wgpu::Buffer, n: u32) -> anyhow::Result<Self> {
        Self::with_range(ctx, data, None, n)
    }

    /// As `new`, for the n + 1 `u32` of `data` from byte `offset` (a multiple of the device's
    /// storage offset alignment): a range of a buffer that holds other arrays too.
    pub fn new_at(ctx: &GpuContext, data: &wgpu::Buffer, offset: u64, n: u32) -> anyhow::Result<Self> {
        Self::with_range(ctx, data, Some(offset), n)
    }

    fn with_range(ctx: &GpuContext, data: &wgpu::Buffer, offset: Option<u64>, n: u32) -> anyhow::Result<Self> {
        let bytes = (n as u64 + 1) * 4;
        let at = offset.unwrap_or(0);
        anyhow::ensure!(
            data.size() >= at + bytes,
            "prefix scan of {n} elements needs n + 1 for the total = {} u32 ({bytes} bytes) from byte {at}; the buffer has {} bytes",
            n as u64 + 1,
            data.size()
        );
        ctx.check_binding_size("prefix scan data", bytes)?;
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
                        // Level 0 is `data` (its range, when one is given).
                        resource: match offset.filter(|_| k == 0) {
                            Some(at) => wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer: &level_data[0],
                                offset: at,
                                size: std::num::NonZeroU64::new(bytes),
                            }),
                            None => level_data[k].as_entire_binding(),
                        },
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
        Ok(PrefixScan {
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

    /// Records the scan with direct dispatches.
    pub fn record(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.record_with(pass, |pass, _, groups| pass.dispatch_workgroups(groups.0, groups.1, 1));
    }

    /// Records the scan in its own compute pass.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("prefix_scan"),
            timestamp_writes: None,
        });
        self.record(&mut pass);
    }

    /// Records the scan with indirect dispatches reading 12-byte arguments from `args`, the first
    /// at slot `first_slot`, in the order of `dispatch_sizes`.
    pub fn record_indirect(&self, pass: &mut wgpu::ComputePass<'_>, args: &wgpu::Buffer, first_slot: u32) {
        self.record_with(pass, |pass, k, _| {
            pass.dispatch_workgroups_indirect(args, (first_slot as u64 + k as u64) * 12)
        });
    }

    /// The dispatch sequence; `dispatch(pass, k, groups)` issues the k-th dispatch.
    fn record_with(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        dispatch: impl Fn(&mut wgpu::ComputePass<'_>, usize, (u32, u32)),
    ) {
        let top = self.levels.len() - 1;
        let mut k = 0;
        pass.set_pipeline(&self.reduce);
        for l in &self.levels[..top] {
            pass.set_bind_group(0, l.g0_reduce.as_ref().unwrap(), &[]);
            pass.set_bind_group(1, &l.g1_reduce, &[]);
            dispatch(pass, k, l.groups);
            k += 1;
        }
        pass.set_pipeline(&self.scan);
        for l in self.levels.iter().rev() {
            pass.set_bind_group(0, &l.g0, &[]);
            pass.set_bind_group(1, &l.g1_scan, &[]);
            dispatch(pass, k, l.groups);
            k += 1;
        }
    }
}
