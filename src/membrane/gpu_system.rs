//! Grains and one membrane stepped together on the GPU: the twin of `system::MembraneSpheres`
//! on `GpuSpheres`, with the membrane attached as a `GpuExtraForces` source
//! (`gpu_source::GpuMembraneSource`) and pinned vertices written back on their path after each
//! step (as the CPU façade sets them), one contiguous run of spheres per write.

use super::gpu_source::GpuMembraneSource;
use super::model::MembraneSpec;
use super::system::{membrane_system, Pin};
use crate::gpu::context::GpuContext;
use crate::spheres::gpu_stepper::GpuSpheres;
use crate::spheres::pair_law::SphereMaterial;
use crate::spheres::precision::df3_split;
use crate::spheres::{PlaneWall, SphereParams, SphereState};

/// Grains + a membrane, stepped together on the GPU.
pub struct GpuMembraneSpheres {
    pub spheres: GpuSpheres,
    pub pins: Vec<Pin>,
    pub time: f64,
    /// The initial state of every sphere (the static fields of pinned vertices come from here).
    initial: Vec<SphereState>,
    first: usize,
}

impl GpuMembraneSpheres {
    /// As `MembraneSpheres::new`.
    pub fn new(
        ctx: &GpuContext,
        params: SphereParams,
        grains: Vec<SphereState>,
        materials: &[SphereMaterial],
        walls: &[PlaneWall],
        spec: &MembraneSpec,
    ) -> anyhow::Result<GpuMembraneSpheres> {
        let first = grains.len();
        let (states, laws, membrane) = membrane_system(&params, grains, materials, spec);
        let mut spheres = GpuSpheres::new(ctx, params, &states, &laws, walls)?;
        spheres.add_extra(ctx, Box::new(GpuMembraneSource::new(ctx, membrane)?))?;
        Ok(GpuMembraneSpheres {
            spheres,
            pins: Vec::new(),
            time: 0.0,
            initial: states,
            first,
        })
    }

    /// The membrane source (to read its list and contact results).
    pub fn source(&self) -> &GpuMembraneSource {
        self.spheres.extra()[0]
            .as_any()
            .downcast_ref::<GpuMembraneSource>()
            .expect("the membrane source")
    }

    /// Sphere index of local vertex v.
    pub fn vertex_sphere(&self, v: u32) -> usize {
        self.first + v as usize
    }

    /// Pins the vertices `vs` to move at `velocity` from where they are now.
    pub fn pin(&mut self, ctx: &GpuContext, vs: &[u32], velocity: [f64; 3]) {
        let states = self.spheres.states(ctx);
        for &v in vs {
            let s = self.vertex_sphere(v);
            self.pins.push(Pin {
                sphere: s as u32,
                x0: states[s].position(),
                t0: self.time,
                velocity,
            });
        }
        self.pins.sort_by_key(|p| p.sphere);
    }

    /// One time step, then the pinned vertices on their path (`MembraneSpheres::step`).
    pub fn step(&mut self, ctx: &GpuContext) -> anyhow::Result<()> {
        self.spheres.step(ctx)?;
        self.time += self.spheres.params.dt as f64;
        let mut k = 0;
        while k < self.pins.len() {
            // One write per run of consecutive spheres.
            let s0 = self.pins[k].sphere as usize;
            let mut run = Vec::new();
            while k < self.pins.len() && self.pins[k].sphere as usize == s0 + run.len() {
                let p = &self.pins[k];
                let dt = self.time - p.t0;
                let x = [0, 1, 2].map(|d| p.x0[d] + p.velocity[d] * dt);
                let mut st = self.initial[p.sphere as usize];
                (st.pos_hi, st.pos_lo) = df3_split(x);
                st.vel = p.velocity.map(|v| v as f32);
                st.omega = [0.0; 3];
                run.push(st);
                k += 1;
            }
            self.spheres.write_spheres(ctx, s0, &run);
        }
        Ok(())
    }
}
