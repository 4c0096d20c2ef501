//! The triaxial cell (`triaxial::TriaxialCell`) on the GPU sphere stepper: the same packing,
//! membrane, platens and protocol (confinement with the σ_c ramp and the servo top platen, then
//! shearing by the top platen at −v_p), stepped by `GpuSpheres` with the membrane as its
//! `GpuMembraneSource` and the rims (sliding, with the rim stop) and the servo's rim area on the
//! device (`gpu_rims`, `shaders/membrane_rims.wgsl`, the twin of `rims.rs` that `TriaxialCell::step`
//! runs with the cell's `rims`).
//!
//! **One set of measures.** `host` is the CPU cell built from the same inputs and never stepped:
//! `sync` copies the device state into it (spheres, walls, pair and wall results, the membrane's
//! candidate list and patch results, the time), and `sample` is `TriaxialCell::sample` on it, so
//! σ_p, σ_d, ε, ε_v, the grains' mean stress and the escape count are computed by one code for
//! both backends. The host reads the device only at a sample, at `start_shear` and once at the
//! start of `confine` (the servo's gain).
//!
//! **Stepping.** `GpuSpheres::steps_batched` runs host-decided batches with the membrane and
//! rims attached (a due sphere-list build halts the batch; the host rebuilds the membrane's
//! candidate list from the states it reads there: `spheres::extra_force`); σ_c and the servo
//! target of the ramp are set on the host before each of its steps, as `TriaxialCell::confine`
//! sets them, so the ramp runs one step per call.
//!
//! **The load cell's servo** (`TriaxialCell::servo_on_load_cell`, set by `paper_cell`): the
//! device holds the load cell's measure as the CPU cell does. After each step's rims and servo
//! area, `load_cell_servo` (`gpu_rims`, twin `rims::load_cell_servo`) reduces the top cap's axial
//! force on the membrane R_z from that step's forces in a fixed order and sets the servo's
//! target σ + R_z/A for the next step, where `TriaxialCell::step` sets it from
//! `rims::cap_axial_force` before the step; σ is written by the host at each ramp step and once
//! for the hold, with the kernel run once on the state then (the first step's target from the
//! forces of the attachment, as the CPU cell's). No read-back per step. The kernel sums in f32,
//! the CPU cell's servo in f64: the two cells follow each other within the test's tolerances
//! (tests/gpu_membrane_triaxial.rs), not bit for bit.

use super::attach::set_sigma;
use super::gpu_rims::GpuRims;
use super::gpu_source::GpuMembraneSource;
use super::model::MembraneContact;
use super::triaxial::{paper_cell, CellSpec, Packing, TriaxialCell, TriaxialSample};
use crate::gpu::context::GpuContext;
use crate::spheres::extra_force::SharedGpuSource;
use crate::spheres::gpu_stepper::GpuSpheres;
use crate::spheres::WALL_PLANE;
use std::cell::RefCell;

/// A membrane-wrapped packing between two platens, stepped on the GPU.
pub struct GpuTriaxialCell {
    pub spheres: GpuSpheres,
    /// The CPU cell of the same inputs, never stepped: the host's view of the device (module doc).
    pub host: TriaxialCell,
    /// Simulated time, accumulated per step as the CPU cell's (`MembraneSpheres::step`).
    time: f64,
}

impl GpuTriaxialCell {
    /// As `TriaxialCell::new` with the paper's membranes (`triaxial::paper_cell`).
    pub fn paper(
        ctx: &GpuContext,
        spec: &CellSpec,
        packing: &Packing,
        contact: MembraneContact,
    ) -> anyhow::Result<Self> {
        Self::from_host(ctx, paper_cell(spec, packing, contact))
    }

    /// The GPU twin of a freshly built CPU cell: its spheres, laws, walls and membrane uploaded,
    /// the cell's rims (`TriaxialCell::rims`: bottom on wall 0, top on wall 1, the rim stop if
    /// set) and the top rim's area as the servo's.
    pub fn from_host(ctx: &GpuContext, host: TriaxialCell) -> anyhow::Result<Self> {
        let cpu = &host.sys.spheres;
        let mut spheres = GpuSpheres::new(ctx, cpu.params, &cpu.states, &cpu.laws, &cpu.walls)?;
        let source = GpuMembraneSource::new(ctx, host.sys.membrane.clone())?;
        spheres.add_extra(ctx, Box::new(SharedGpuSource(RefCell::new(source))))?;
        let rims = host.rims.clone();
        let rims = if host.load_cell && host.servo_on_load_cell {
            GpuRims::with_load_cell(ctx, rims, 1)?
        } else {
            GpuRims::new(ctx, rims)?
        };
        spheres.add_extra(ctx, Box::new(rims))?;
        Ok(GpuTriaxialCell {
            spheres,
            time: host.sys.time,
            host,
        })
    }

    pub fn n_grains(&self) -> usize {
        self.host.n_grains
    }

    pub fn n_vertices(&self) -> usize {
        self.host.n_vertices()
    }

    /// `k` steps of `TriaxialCell::step` (one `steps_batched` call).
    pub fn steps(&mut self, ctx: &GpuContext, k: u32) -> anyhow::Result<()> {
        self.spheres.steps_batched(ctx, k)?;
        for _ in 0..k {
            self.time += self.spheres.params.dt as f64;
        }
        Ok(())
    }

    /// `TriaxialCell::confine`: σ_c and the servo target ramped over `ramp` steps (one step per
    /// submission, the values set on the host as the CPU cell sets them), then `hold` steps at
    /// σ_c (one call).
    pub fn confine(&mut self, ctx: &GpuContext, ramp: usize, hold: usize, gain: f64, v_max: f64) -> anyhow::Result<()> {
        let mut walls = self.spheres.walls(ctx);
        walls[1].gain = gain as f32;
        walls[1].max_speed = v_max as f32;
        self.spheres.set_walls(ctx, &walls);
        let sigma_c = self.host.sigma_c;
        let mut k = 0;
        while k < ramp + hold {
            let s = sigma_c * ((k + 1) as f64 / ramp.max(1) as f64).min(1.0);
            self.set_stress(ctx, s)?;
            // From the end of the ramp on, σ_c holds: the rest in one call.
            let n = if s == sigma_c { ramp + hold - k } else { 1 };
            self.steps(ctx, n as u32)?;
            k += n;
        }
        Ok(())
    }

    /// σ on the membrane and as the top platen's servo target (f32, as the CPU cell's
    /// `set_servo_stress`); with the load cell's servo, the target σ + R_z/A from the current
    /// state on the device (module doc).
    fn set_stress(&mut self, ctx: &GpuContext, s: f64) -> anyhow::Result<()> {
        set_sigma(None, Some(&self.spheres), s)?;
        self.spheres.set_wall_target(ctx, 1, s as f32);
        self.host.servo_stress = s;
        if let Some(rims) = self.rims().filter(|r| r.has_load_cell()) {
            rims.set_load_cell_stress(ctx, s as f32)?;
        }
        Ok(())
    }

    /// The rims' source on the stepper (`gpu_rims::GpuRims`, with the load cell if any).
    pub fn rims(&self) -> Option<&GpuRims> {
        self.spheres
            .extra()
            .iter()
            .find_map(|s| s.as_any().downcast_ref::<GpuRims>())
    }

    /// Copies the device state into `host` (module doc).
    pub fn sync(&mut self, ctx: &GpuContext) {
        let g = &self.spheres;
        let cpu = &mut self.host.sys.spheres;
        cpu.states = g.states(ctx);
        cpu.walls = g.walls(ctx);
        cpu.forces = g.forces(ctx);
        cpu.list = g.list(ctx);
        cpu.owner = (0..cpu.list.start.len().saturating_sub(1))
            .flat_map(|i| {
                let (a, b) = (cpu.list.start[i], cpu.list.start[i + 1]);
                (a..b).map(move |_| i as u32)
            })
            .collect();
        cpu.pair_out = g.pair_out(ctx);
        cpu.wall_out = g.wall_out(ctx);
        cpu.steps = g.steps;
        let src = g
            .extra()
            .iter()
            .find_map(|s| s.as_any().downcast_ref::<SharedGpuSource<GpuMembraneSource>>())
            .expect("the membrane source");
        let src = src.0.borrow();
        let m = &mut self.host.sys.membrane;
        (m.list, m.patch_history) = src.list(ctx);
        m.patch_out = src.patch_out(ctx);
        self.host.sys.time = self.time;
    }

    /// `TriaxialCell::sample` of the device state.
    pub fn sample(&mut self, ctx: &GpuContext) -> TriaxialSample {
        self.sync(ctx);
        self.host.sample()
    }

    /// `TriaxialCell::start_shear`: h0 and V0 from the device state, the top platen a plane
    /// moving at −v_p, the shear damping.
    pub fn start_shear(&mut self, ctx: &GpuContext, v_p: f64) {
        self.sync(ctx);
        self.host.start_shear(v_p);
        debug_assert_eq!(self.host.sys.spheres.walls[1].kind, WALL_PLANE);
        self.spheres.set_walls(ctx, &self.host.sys.spheres.walls);
        self.spheres
            .set_global_damping(ctx, self.host.sys.spheres.params.global_damping);
        // A moving plane now: nothing reads a target (the kernel would leave it; skip it).
        if let Some(rims) = self.rims() {
            rims.set_load_cell_on(false);
        }
    }

    /// `TriaxialCell::shear`: `steps` steps, a sample every `every` (the first before the first
    /// step); the steps between samples in one call.
    pub fn shear(&mut self, ctx: &GpuContext, steps: usize, every: usize) -> anyhow::Result<Vec<TriaxialSample>> {
        let every = every.max(1);
        let mut out = vec![self.sample(ctx)];
        let mut done = 0;
        while done < steps {
            let n = every.min(steps - done);
            self.steps(ctx, n as u32)?;
            done += n;
            if done.is_multiple_of(every) {
                out.push(self.sample(ctx));
            }
        }
        Ok(out)
    }
}
