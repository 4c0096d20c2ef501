//! Per-kernel GPU times from timestamp queries (`softdem bench --gpu-report`), and the
//! `Recorder` through which the SPD stepper records its dispatches.
//!
//! A timed dispatch gets a compute pass of its own whose beginning and end write a timestamp
//! (`ComputePassTimestampWrites`). That needs only `Features::TIMESTAMP_QUERY`, which WebGPU,
//! Vulkan, DX12 and Metal all offer; `TIMESTAMP_QUERY_INSIDE_PASSES` (timestamps between the
//! dispatches of one pass) is native-only and missing on Apple GPUs, and a timestamp inside a pass
//! is not ordered against the dispatches around it on every driver, while a pass boundary is.
//! The extra pass per kernel costs a pass begin/end, not a barrier: wgpu already puts a barrier
//! between dispatches that write storage. Untimed recording (every normal step) stays one pass.

use super::context::GpuContext;
use super::kernel::Kernel;

/// Timestamp pairs of one timer (two queries per timed dispatch).
const PAIRS: u32 = wgpu::QUERY_SET_MAX_QUERIES / 2;

/// The timestamps of the dispatches recorded while it is attached to a `Recorder`.
pub struct KernelTimer {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    staging: wgpu::Buffer,
    /// The kernel of each pair (`Kernel::name`, "shader::entry").
    names: Vec<String>,
}

impl KernelTimer {
    /// A timer, or None when the device was created without timestamp queries.
    pub fn new(ctx: &GpuContext) -> Option<KernelTimer> {
        if !ctx.device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let bytes = 2 * PAIRS as u64 * wgpu::QUERY_SIZE as u64;
        let buffer = |label, usage| {
            ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage,
                mapped_at_creation: false,
            })
        };
        use wgpu::BufferUsages as U;
        Some(KernelTimer {
            set: ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("kernel timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * PAIRS,
            }),
            resolve: buffer("kernel timestamps", U::QUERY_RESOLVE | U::COPY_SRC),
            staging: buffer("kernel timestamps staging", U::MAP_READ | U::COPY_DST),
            names: Vec::new(),
        })
    }

    /// The timestamp writes of the next timed pass (kernel `name`); None when the set is full
    /// (the dispatch then runs untimed).
    fn next(&mut self, name: &str) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        let i = self.names.len() as u32;
        if i >= PAIRS {
            return None;
        }
        self.names.push(name.to_string());
        Some(wgpu::ComputePassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: Some(2 * i),
            end_of_pass_write_index: Some(2 * i + 1),
        })
    }

    /// Records the resolve of every query written so far (at the end of a command buffer).
    pub fn resolve(&self, enc: &mut wgpu::CommandEncoder) {
        let n = 2 * self.names.len() as u32;
        if n > 0 {
            enc.resolve_query_set(&self.set, 0..n, &self.resolve, 0);
        }
    }

    /// (kernel, ns) of every timed dispatch so far, in recording order; waits for the queue.
    pub fn read(&self, ctx: &GpuContext) -> Vec<(String, f64)> {
        let n = 2 * self.names.len() as u64;
        if n == 0 {
            return Vec::new();
        }
        let bytes = n * wgpu::QUERY_SIZE as u64;
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(&self.resolve, 0, &self.staging, 0, bytes);
        ctx.queue.submit([enc.finish()]);
        let slice = self.staging.slice(..bytes);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        ctx.poll_wait();
        rx.recv()
            .expect("map_async callback was not called")
            .expect("mapping the timestamps failed");
        let ticks: Vec<u64> = slice
            .get_mapped_range()
            .expect("mapped timestamps")
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect();
        self.staging.unmap();
        let period = ctx.queue.get_timestamp_period() as f64;
        self.names
            .iter()
            .zip(ticks.chunks_exact(2))
            .map(|(name, t)| (name.clone(), t[1].wrapping_sub(t[0]) as f64 * period))
            .collect()
    }
}

/// Where a step's dispatches go: one open compute pass, or, with a timer attached, a pass of
/// their own with timestamps at its beginning and end (`dispatch`). Passes end when it drops.
pub struct Recorder<'a> {
    enc: &'a mut wgpu::CommandEncoder,
    label: &'static str,
    pass: Option<wgpu::ComputePass<'static>>,
    timer: Option<&'a mut KernelTimer>,
}

impl<'a> Recorder<'a> {
    pub fn new(enc: &'a mut wgpu::CommandEncoder, label: &'static str, timer: Option<&'a mut KernelTimer>) -> Self {
        Recorder {
            enc,
            label,
            pass: None,
            timer,
        }
    }

    /// The open untimed pass (begun if none is open).
    pub fn pass(&mut self) -> &mut wgpu::ComputePass<'static> {
        if self.pass.is_none() {
            let desc = wgpu::ComputePassDescriptor {
                label: Some(self.label),
                timestamp_writes: None,
            };
            // The encoder stays locked while the pass lives; it ends before the next begins.
            self.pass = Some(self.enc.begin_compute_pass(&desc).forget_lifetime());
        }
        self.pass.as_mut().expect("an open pass")
    }

    /// Dispatches `kern` with `group` on `d` workgroups; timed in a pass of its own when a timer
    /// with room is attached.
    pub fn dispatch(&mut self, kern: &Kernel, group: &wgpu::BindGroup, d: (u32, u32)) {
        let writes = self.timer.as_mut().and_then(|t| t.next(&kern.name));
        if let Some(w) = writes {
            self.pass = None;
            let mut p = self.enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(&kern.name),
                timestamp_writes: Some(w),
            });
            p.set_pipeline(&kern.pipeline);
            p.set_bind_group(0, group, &[]);
            p.dispatch_workgroups(d.0, d.1, 1);
            return;
        }
        let p = self.pass();
        p.set_pipeline(&kern.pipeline);
        p.set_bind_group(0, group, &[]);
        p.dispatch_workgroups(d.0, d.1, 1);
    }
}

/// One kernel's time over a profiled run.
#[derive(Clone, Debug)]
pub struct KernelTime {
    /// Entry point (the part of `Kernel::name` after "::").
    pub entry: String,
    pub dispatches: u64,
    pub ns: f64,
}

/// Per-kernel GPU times of `steps` steps (`GpuBackend::profile_kernels`), and the wall time of
/// the same steps (recorded one pass per kernel, the timestamps read outside it).
#[derive(Clone, Debug)]
pub struct KernelProfile {
    pub steps: u64,
    pub wall_s: f64,
    /// In order of first dispatch.
    pub kernels: Vec<KernelTime>,
}

impl KernelProfile {
    /// Adds timed dispatches (kernel name, ns) to the per-kernel sums.
    pub fn add(&mut self, times: &[(String, f64)]) {
        for (name, ns) in times {
            let entry = name.rsplit("::").next().unwrap_or(name);
            match self.kernels.iter_mut().find(|k| k.entry == entry) {
                Some(k) => {
                    k.dispatches += 1;
                    k.ns += ns;
                }
                None => self.kernels.push(KernelTime {
                    entry: entry.to_string(),
                    dispatches: 1,
                    ns: *ns,
                }),
            }
        }
    }

    /// GPU µs per step summed over the kernels.
    pub fn kernel_us_per_step(&self) -> f64 {
        self.kernels.iter().map(|k| k.ns).sum::<f64>() * 1e-3 / self.steps.max(1) as f64
    }

    /// Wall µs per step of the profiled run.
    pub fn wall_us_per_step(&self) -> f64 {
        self.wall_s * 1e6 / self.steps.max(1) as f64
    }
}
