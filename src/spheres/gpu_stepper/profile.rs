//! Per-kernel GPU times of the sphere step (`softdem bench --gpu-report`): a child of the
//! stepper (it records the stepper's kernels on its buffers). Each kernel of a step gets a compute
//! pass of its own with timestamps at its beginning and end (`crate::gpu::profile`, as for SPD).
//! The steps timed are those without a list build: a step whose build falls due halts as in a
//! host-decided batch, its partial times are dropped and it is finished untimed
//! (`steps_batched`), so the system steps on exactly as it would have.

use super::{bg, GpuSpheres, HALT_DUE};
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

    /// One step without a build, each kernel in the host order of `batch_host_decided`
    /// (`record_opening`, `record_forces` with the closing kick; fused or not as `fused`).
    fn record_step_timed(&self, rec: &mut Recorder<'_>) {
        let (n, nw) = (self.params.n_spheres, self.params.n_walls);
        let k = &self.k;
        let b = &self.bind;
        let mut d =
            |kern: &Kernel, g: usize, threads: u32| rec.dispatch(kern, &b[g], dispatch_size(threads, SPHERE_WG));
        if self.fused {
            d(&k.kick_drift, bg::KICK_DRIFT, n);
        } else {
            d(&k.kick, bg::KICK, n);
            d(&k.drift, bg::DRIFT, n);
        }
        // One workgroup (host-decided: it also turns a due build into the halt).
        rec.dispatch(&k.wall_advance, &b[bg::WALL_ADVANCE], (1, 1));
        let mut d =
            |kern: &Kernel, g: usize, threads: u32| rec.dispatch(kern, &b[g], dispatch_size(threads, SPHERE_WG));
        if !self.fused {
            d(&k.displacement_check, bg::DISPLACEMENT_CHECK, n);
        }
        if self.mc {
            d(&k.normal_pass, bg::NORMAL_PASS, n);
            d(&k.wall_normal_pass, bg::WALL_NORMAL_PASS, n * nw);
            d(&k.stress_pass, bg::STRESS_PASS, n);
        }
        if self.strain {
            d(&k.strain_pass, bg::STRAIN_PASS, n);
        }
        d(&k.pair_pass, bg::PAIR_PASS, n);
        if nw > 0 {
            d(&k.wall_pass, bg::WALL_PASS, self.wall_cap.max(1) as u32);
        }
        if self.fused {
            d(&k.gather_kick, bg::GATHER_KICK, n);
        } else {
            d(&k.gather, bg::GATHER, n);
        }
        if nw > 0 {
            // One workgroup per wall.
            rec.dispatch(&k.wall_gather, &b[bg::WALL_GATHER], (nw, 1));
        }
        if !self.fused {
            rec.dispatch(&k.kick, &b[bg::KICK], dispatch_size(n, SPHERE_WG));
        }
    }

    /// Dispatches of a build-free step as `batch_host_decided` records them (`wall_advance` even
    /// without walls; the MC passes counted; the sources' not).
    pub fn dispatches_per_step(&self) -> u32 {
        let walls = self.params.n_walls > 0;
        let opening = if self.fused { 2 } else { 4 };
        let mc = if self.mc { 3 } else { 0 } + self.strain as u32;
        let close = if self.fused { 1 } else { 2 };
        opening + mc + 1 + 2 * walls as u32 + close
    }

    /// The byte model of a build-free step without MC passes: per kernel, the bytes its WGSL reads
    /// and writes in one step (a whole-record load or store counts the whole record; the uniform,
    /// the law table and the walls' records, a few hundred bytes re-read by every thread from
    /// cache, are counted once per wall access only in wall_advance), from the sizes of the
    /// current list (pairs, wall candidates; read back here, not on the stepping path).
    pub fn step_bytes(&self, ctx: &GpuContext) -> Vec<(&'static str, f64)> {
        use crate::spheres::contact::ContactHistory;
        use crate::spheres::cpu_stepper::PairOut;
        use crate::spheres::state::{SphereForce, SphereState};
        use crate::spheres::wall::PlaneWall;
        use std::mem::size_of;
        let n = self.params.n_spheres as f64;
        let nw = self.params.n_walls as f64;
        let p = self.total as f64;
        let c = self.wall_slots(ctx).len() as f64;
        let s = size_of::<SphereState>() as f64;
        let f = size_of::<SphereForce>() as f64;
        let h = size_of::<ContactHistory>() as f64;
        let o = size_of::<PairOut>() as f64;
        let w = size_of::<PlaneWall>() as f64;
        // Rolling history read and written per pair only when a law has rolling resistance.
        let roll = if self.rolling { 24.0 } else { 0.0 };
        let x_ref = 12.0;
        let out_words = (super::PAIR_OUT_WORDS * 4) as f64;
        let mut v = Vec::new();
        if self.fused {
            // Sphere and force records read, x_ref read, sphere record written.
            v.push(("kick_drift", n * (s + f + x_ref + s)));
        } else {
            v.push(("kick", n * (s + f + s)));
            v.push(("drift", n * (s + s)));
        }
        v.push(("wall_advance", nw * (2.0 * w + x_ref)));
        if !self.fused {
            v.push(("displacement_check", n * (s + x_ref)));
        }
        // Row i: its record and two row starts; per pair: partner index, j's record, history
        // read and written, PAIR_OUT_WORDS written.
        v.push(("pair_pass", n * (s + 8.0) + p * (4.0 + s + 24.0 + roll + out_words)));
        if nw > 0.0 {
            // Per candidate: its slot, the sphere's record, history read and written, result.
            v.push(("wall_pass", c * (4.0 + s + 2.0 * h + o)));
        }
        // Per sphere: its record, incident and row starts, its wall range, the force written;
        // per pair, both sides: force and torque (24 B) and, on j's side, the incident entry;
        // per wall candidate its result.
        let gather = n * (s + 8.0 + 8.0 + 8.0 + f) + p * (4.0 + 2.0 * 24.0) + c * o;
        if self.fused {
            v.push(("gather_kick", gather + n * s));
        } else {
            v.push(("gather", gather));
        }
        if nw > 0.0 {
            // Per wall, two scans of every candidate (count, then sum): slot and result.
            v.push(("wall_gather", nw * 2.0 * c * (4.0 + o)));
        }
        if !self.fused {
            v.push(("kick", n * (s + f + s)));
        }
        v
    }
}
