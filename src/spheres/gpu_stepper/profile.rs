//! Per-kernel GPU times of the sphere step (`softdem bench --gpu-report`): a child of the
//! stepper (it records the stepper's kernels on its buffers). Each kernel of a step gets a compute
//! pass of its own with timestamps at its beginning and end (`crate::gpu::profile`, as for SPD).
//! The steps timed are those without a list build: a step whose build falls due halts as in a
//! host-decided batch, its partial times are dropped and it is finished untimed
//! (`steps_batched`), so the system steps on exactly as it would have.

use super::{GpuSpheres, HALT_DUE};
use crate::gpu::array::dispatch_size;
use crate::gpu::context::GpuContext;
use crate::gpu::kernel::Kernel;
use crate::gpu::profile::{KernelProfile, KernelTimer, Recorder};
use crate::spheres::gpu_pass::SPHERE_WG;
use std::time::Instant;

impl GpuSpheres {
    /// GPU time per kernel over `steps` build-free steps; None when the device has no timestamp
    /// queries or extra force sources are attached (their kernels are not timed here).
    pub fn profile_kernels(&mut self, ctx: &GpuContext, steps: u32) -> anyhow::Result<Option<KernelProfile>> {
        if !self.extra.is_empty() {
            return Ok(None);
        }
        // 13 dispatches per step at most, 2 tries per step: within a timer's 2048 pairs.
        let steps = steps.min(64);
        let Some(mut timer) = KernelTimer::new(ctx) else {
            return Ok(None);
        };
        let mut profile = KernelProfile {
            steps: 0,
            wall_s: 0.0,
            kernels: Vec::new(),
        };
        let mut seen = 0;
        // At most 2 steps per timed one: a halted step is finished, then the next is timed.
        for _ in 0..2 * steps {
            if profile.steps >= steps as u64 {
                break;
            }
            if self.build_next.is_some() {
                self.steps_batched(ctx, 1)?;
            }
            let t0 = Instant::now();
            self.clear_flags(ctx, true);
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            {
                let mut rec = Recorder::new(&mut enc, "sphere step (timed)", Some(&mut timer));
                self.record_step_timed(&mut rec);
            }
            timer.resolve(&mut enc);
            ctx.queue.submit([enc.finish()]);
            let flags = self.read_flags(ctx);
            let times = timer.read(ctx);
            let new = &times[seen..];
            seen = times.len();
            let halt = flags[super::FLAG_HALT];
            if halt == 0 {
                profile.wall_s += t0.elapsed().as_secs_f64();
                profile.steps += 1;
                profile.add(new);
                self.steps += 1;
                self.pace.record(1, 0);
                continue;
            }
            // Twin of batch_host_decided with one step: it halted after its drift.
            anyhow::ensure!(halt == HALT_DUE, "step flags: halt {halt}");
            self.pace.record(1, 1);
            self.build_next = Some(true);
        }
        Ok(Some(profile))
    }

    /// One step without a build, each kernel in the host order of `batch_host_decided`.
    fn record_step_timed(&self, rec: &mut Recorder<'_>) {
        let (n, nw) = (self.params.n_spheres, self.params.n_walls);
        let k = &self.k;
        let mut d = |kern: &Kernel, b: usize, threads: u32| {
            rec.dispatch(kern, &self.bind[b], dispatch_size(threads, SPHERE_WG))
        };
        d(&k.kick, 0, n);
        d(&k.drift, 1, n);
        d(&k.wall_advance, 2, nw);
        d(&k.displacement_check, 3, n);
        if self.mc {
            d(&k.normal_pass, 8, n);
            d(&k.wall_normal_pass, 9, n * nw);
            d(&k.stress_pass, 10, n);
        }
        if self.strain {
            d(&k.strain_pass, 11, n);
        }
        d(&k.pair_pass, 4, n);
        if nw > 0 {
            d(&k.wall_pass, 5, self.wall_cap.max(1) as u32);
        }
        d(&k.gather, 6, n);
        if nw > 0 {
            // One workgroup per wall.
            rec.dispatch(&k.wall_gather, &self.bind[7], (nw, 1));
        }
        let mut d = |kern: &Kernel, b: usize, threads: u32| {
            rec.dispatch(kern, &self.bind[b], dispatch_size(threads, SPHERE_WG))
        };
        d(&k.kick, 0, n);
    }
}
