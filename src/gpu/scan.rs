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
//! So 2^24 elements take 5 dispatches in one compute pass, reading the data twice and writing it
//! once. Arithmetic is wrapping `u32` addition, which is associative: the result is exact and
//! identical to the CPU twin [`crate::cpu::scan::prefix_scan`] for every input.
//!
//! # Many scans in one command encoder
//! Per-level parameters (`n`, and whether offsets are added) live in small uniform buffers that
//! are created initialised (`create_buffer_init`) and never rewritten. They are cached per
//! distinct `n` (least recently used of 32 evicted), together with their bind groups. Nothing is
//! written with `queue.write_buffer`, so any number of [`PrefixScan::encode`] calls, with equal
//! or different `n`, can be recorded in one encoder or submission: a later call never changes the
//! parameters of an earlier one. The block-sum scratch buffers are shared by all calls; wgpu
//! orders the dispatches (barriers between them), so sharing is safe. When a larger `n` needs
//! more scratch, new scratch buffers replace the old ones (commands already recorded keep the old
//! ones alive) and the cache is cleared.
//!
//! Per call, only the bind groups of the caller's data buffer are created (one or two).

use std::num::NonZeroU64;
use std::sync::Mutex;

use wgpu::util::DeviceExt as _;

use super::array::dispatch_groups;
use super::context::GpuContext;

/// Elements per workgroup block (must match `SCAN_BLOCK` in `shaders/prefix_scan.wgsl`).
pub const SCAN_BLOCK: u32 = 1024;

/// Number of cached per-`n` plans.
const PLAN_CACHE: usize = 32;

/// Element counts of every level for a scan of `n` elements: `[n, blocks(n), blocks(blocks(n)),
/// ...]`, ending with the first level that fits one block.
fn level_sizes(n: u32) -> Vec<u32> {
    let mut v = vec![n];
    while *v.last().unwrap() > SCAN_BLOCK {
        let last = *v.last().unwrap();
        v.push(last.div_ceil(SCAN_BLOCK));
    }
    v
}

/// Bind groups and dispatch size of one level of a plan.
struct Level {
    n: u32,
    groups: (u32, u32),
    /// Group 0 of `reduce_blocks` (params, block sums out); `None` on the top level.
    reduce_g0: Option<wgpu::BindGroup>,
    /// Group 0 of `scan_blocks` (params, scanned block sums or a dummy on the top level).
    scan_g0: wgpu::BindGroup,
    /// Group 1 (the level's data) of `reduce_blocks` / `scan_blocks`, for levels >= 1 (their
    /// data is scratch). Level 0's data is the caller's buffer, bound per call.
    reduce_g1: Option<wgpu::BindGroup>,
    scan_g1: Option<wgpu::BindGroup>,
    /// Keeps the parameter buffer alive with the bind groups.
    _params: wgpu::Buffer,
}

struct Plan {
    n: u32,
    levels: Vec<Level>,
}

struct State {
    /// `scratch[k]`: block sums of level `k` = data of level `k + 1` (plus one total slot).
    scratch: Vec<wgpu::Buffer>,
    /// Most recently used last.
    plans: Vec<Plan>,
}

/// GPU exclusive prefix scan over `u32`; see the module docs for the design.
pub struct PrefixScan {
    reduce: wgpu::ComputePipeline,
    scan: wgpu::ComputePipeline,
    dummy: wgpu::Buffer,
    state: Mutex<State>,
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct ScanParams {
    n: u32,
    with_offsets: u32,
    pad: [u32; 2],
}

impl PrefixScan {
    /// Compiles the kernels. Scratch buffers are allocated on first use (or by
    /// [`PrefixScan::reserve`]).
    pub fn new(ctx: &GpuContext) -> anyhow::Result<Self> {
        let reduce = ctx.create_compute_pipeline("prefix_scan", "reduce_blocks")?;
        let scan = ctx.create_compute_pipeline("prefix_scan", "scan_blocks")?;
        let dummy = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("prefix_scan dummy sums"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        Ok(PrefixScan {
            reduce,
            scan,
            dummy,
            state: Mutex::new(State {
                scratch: Vec::new(),
                plans: Vec::new(),
            }),
        })
    }

    /// Allocates scratch for scans of up to `max_n` elements now, so that encoding does not
    /// allocate later.
    pub fn reserve(&self, ctx: &GpuContext, max_n: u32) {
        let mut st = self.state.lock().unwrap();
        Self::ensure_scratch(ctx, &mut st, max_n);
    }

    /// Grows the scratch buffers so that a scan of `n` fits; clears the plan cache when any
    /// buffer is replaced.
    fn ensure_scratch(ctx: &GpuContext, st: &mut State, n: u32) {
        let sizes = level_sizes(n);
        let mut replaced = false;
        for (k, &elems) in sizes.iter().enumerate().skip(1) {
            let need = (elems as u64 + 1) * 4;
            let idx = k - 1;
            if idx < st.scratch.len() && st.scratch[idx].size() >= need {
                continue;
            }
            let size = need.next_power_of_two().max(16);
            let buf = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("prefix_scan block sums"),
                size,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            });
            if idx < st.scratch.len() {
                st.scratch[idx] = buf;
            } else {
                st.scratch.push(buf);
            }
            replaced = true;
        }
        if replaced {
            st.plans.clear();
        }
    }

    fn storage(buffer: &wgpu::Buffer, elems: u32) -> wgpu::BindingResource<'_> {
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset: 0,
            size: NonZeroU64::new((elems as u64 + 1) * 4),
        })
    }

    fn make_plan(&self, ctx: &GpuContext, scratch: &[wgpu::Buffer], n: u32) -> Plan {
        let sizes = level_sizes(n);
        let top = sizes.len() - 1;
        let dev = &ctx.device;
        let levels = sizes
            .iter()
            .enumerate()
            .map(|(k, &nk)| {
                let params = dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("prefix_scan params"),
                    contents: bytemuck::bytes_of(&ScanParams {
                        n: nk,
                        with_offsets: (k < top) as u32,
                        pad: [0; 2],
                    }),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
                let sums = if k < top {
                    Self::storage(&scratch[k], sizes[k + 1])
                } else {
                    self.dummy.as_entire_binding()
                };
                let g0 = |pipeline: &wgpu::ComputePipeline, sums: wgpu::BindingResource<'_>| {
                    dev.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some("prefix_scan g0"),
                        layout: &pipeline.get_bind_group_layout(0),
                        entries: &[
                            wgpu::BindGroupEntry {
                                binding: 0,
                                resource: params.as_entire_binding(),
                            },
                            wgpu::BindGroupEntry {
                                binding: 1,
                                resource: sums,
                            },
                        ],
                    })
                };
                let reduce_g0 = (k < top).then(|| g0(&self.reduce, sums.clone()));
                let scan_g0 = g0(&self.scan, sums);
                let (reduce_g1, scan_g1) = if k == 0 {
                    (None, None)
                } else {
                    let data = &scratch[k - 1];
                    (
                        Some(self.data_group(ctx, &self.reduce, data, nk)),
                        Some(self.data_group(ctx, &self.scan, data, nk)),
                    )
                };
                Level {
                    n: nk,
                    groups: dispatch_groups(nk.div_ceil(SCAN_BLOCK).max(1)),
                    reduce_g0,
                    scan_g0,
                    reduce_g1,
                    scan_g1,
                    _params: params,
                }
            })
            .collect();
        Plan { n, levels }
    }

    fn data_group(
        &self,
        ctx: &GpuContext,
        pipeline: &wgpu::ComputePipeline,
        data: &wgpu::Buffer,
        n: u32,
    ) -> wgpu::BindGroup {
        ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("prefix_scan data"),
            layout: &pipeline.get_bind_group_layout(1),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: Self::storage(data, n),
            }],
        })
    }

    /// Records an exclusive scan of `data[0..n]` (u32, in place) into `encoder`, with the grand
    /// total written to `data[n]`; `data` must hold at least `n + 1` elements and have `STORAGE`
    /// usage. Sums wrap modulo 2^32. Safe to call many times per encoder (see the module docs).
    ///
    /// Panics when `data` is too small or `(n + 1) * 4` bytes exceed the device's storage binding
    /// limit (size scenes with [`GpuContext::check_binding_size`] beforehand).
    pub fn encode(&self, ctx: &GpuContext, encoder: &mut wgpu::CommandEncoder, data: &wgpu::Buffer, n: u32) {
        let bytes = (n as u64 + 1) * 4;
        assert!(
            data.size() >= bytes,
            "PrefixScan::encode: scanning {n} elements needs {} u32 (n + 1 for the total) = {bytes} \
             bytes, the buffer {:?} has {}",
            n as u64 + 1,
            data,
            data.size()
        );
        if let Err(e) = ctx.check_binding_size("prefix scan data", bytes) {
            panic!("PrefixScan::encode: {e:#}");
        }

        let mut st = self.state.lock().unwrap();
        Self::ensure_scratch(ctx, &mut st, n);
        let pos = st.plans.iter().position(|p| p.n == n);
        let plan = match pos {
            Some(i) => st.plans.remove(i),
            None => self.make_plan(ctx, &st.scratch, n),
        };

        let top = plan.levels.len() - 1;
        let data_reduce = (top > 0).then(|| self.data_group(ctx, &self.reduce, data, n));
        let data_scan = self.data_group(ctx, &self.scan, data, n);

        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("prefix_scan"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.reduce);
            for (k, level) in plan.levels[..top].iter().enumerate() {
                let g1 = if k == 0 {
                    data_reduce.as_ref().unwrap()
                } else {
                    level.reduce_g1.as_ref().unwrap()
                };
                pass.set_bind_group(0, level.reduce_g0.as_ref().unwrap(), &[]);
                pass.set_bind_group(1, g1, &[]);
                pass.dispatch_workgroups(level.groups.0, level.groups.1, 1);
            }
            pass.set_pipeline(&self.scan);
            for (k, level) in plan.levels.iter().enumerate().rev() {
                let g1 = if k == 0 {
                    &data_scan
                } else {
                    level.scan_g1.as_ref().unwrap()
                };
                debug_assert!(k == 0 || level.n == plan.levels[k - 1].n.div_ceil(SCAN_BLOCK));
                pass.set_bind_group(0, &level.scan_g0, &[]);
                pass.set_bind_group(1, g1, &[]);
                pass.dispatch_workgroups(level.groups.0, level.groups.1, 1);
            }
        }

        st.plans.push(plan);
        if st.plans.len() > PLAN_CACHE {
            st.plans.remove(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels() {
        assert_eq!(level_sizes(0), vec![0]);
        assert_eq!(level_sizes(1024), vec![1024]);
        assert_eq!(level_sizes(1025), vec![1025, 2]);
        assert_eq!(level_sizes(1 << 24), vec![1 << 24, 1 << 14, 16]);
        assert_eq!(level_sizes(u32::MAX), vec![u32::MAX, 1 << 22, 4096, 4]);
    }
}
