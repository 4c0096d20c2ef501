//! The bead force source (`spheres::extra_force::ExtraForces`): at every force evaluation, one
//! Kelvin–Voigt force per bond (`bonds::bond_force`, eq 3, with breakage), then per bead the sum
//! of its bonds in CSR order and of the rigid planes' eq-6 repulsion in plane order, then the
//! point loads. The beads are spheres 0..n_beads of the stepper. Twin of `gpu::GpuBeadForces`
//! (`shaders/beads.wgsl`).

use super::bonds::{bond_force, BondList};
use crate::cpu::fixed_reduce::strided_reduce;
use crate::laws::plane_repulsion::plane_repulsion_force;
use crate::laws::vec3::{add, sub, V3};
use crate::spheres::extra_force::{Evaluation, ExtraForces};
use crate::spheres::precision::{df3_split, df3_sub};
use crate::spheres::{SphereForce, SphereState};
use rayon::prelude::*;

const PAR_MIN: usize = 512;

/// A rigid plane of eq 6: F = S p² along `normal` (inward, towards the beads) for a bead whose
/// surface (centre + its radius) is p past the plane. It moves at `velocity` until `stop_time`,
/// then is held (the paper's platen: constant speed, then held for relaxation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BeadPlane {
    pub point: [f64; 3],
    pub normal: [f32; 3],
    pub velocity: [f64; 3],
    pub stop_time: f64,
    /// S (N/m²); the paper uses 10¹⁰.
    pub s: f32,
}

impl BeadPlane {
    /// The plane's point at time t (f64, no accumulated rounding).
    pub fn point_at(&self, t: f64) -> [f64; 3] {
        let tm = t.min(self.stop_time);
        [0, 1, 2].map(|k| self.point[k] + self.velocity[k] * tm)
    }
}

/// A plane at one time as both twins use it: point (hi, lo), inward normal, S.
pub type PlaneRecord = ([f32; 3], [f32; 3], [f32; 3], f32);

/// How a point load varies in time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoadProfile {
    /// F while on ≤ t < off (creep, then recovery after `off`: Fig. 3).
    Step { on: f64, off: f64 },
    /// F sin(ω t) (Fig. 4).
    Sine { omega: f64 },
}

/// A force on one bead (beads of different loads distinct).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointLoad {
    pub bead: u32,
    pub force: [f64; 3],
    pub profile: LoadProfile,
}

impl PointLoad {
    pub fn force_at(&self, t: f64) -> [f32; 3] {
        let s = match self.profile {
            LoadProfile::Step { on, off } => {
                if t >= on && t < off {
                    1.0
                } else {
                    0.0
                }
            }
            LoadProfile::Sine { omega } => (omega * t).sin(),
        };
        self.force.map(|f| (f * s) as f32)
    }
}

/// Bonds, planes and loads of a bead body, and what the last evaluation measured.
#[derive(Clone, Debug, Default)]
pub struct BeadForces {
    pub bonds: BondList,
    pub planes: Vec<BeadPlane>,
    pub loads: Vec<PointLoad>,
    /// Stretch X/l₀ above which a bond breaks (`f32::INFINITY`: never).
    pub break_stretch: f32,
    /// Force evaluations so far (the first, at attachment, is 1 and happens at t = 0).
    pub evaluations: u32,
    /// Force of each bond on its i at the last evaluation.
    pub bond_force: Vec<V3>,
    /// Force of the beads on each plane at the last evaluation (minus the sum of the plane's
    /// forces on the beads, in bead order).
    pub plane_force: Vec<V3>,
}

impl BeadForces {
    pub fn new(bonds: BondList, planes: Vec<BeadPlane>, loads: Vec<PointLoad>, break_stretch: f32) -> BeadForces {
        BeadForces {
            bond_force: vec![[0.0; 3]; bonds.len()],
            plane_force: vec![[0.0; 3]; planes.len()],
            bonds,
            planes,
            loads,
            break_stretch,
            evaluations: 0,
        }
    }

    /// Time of evaluation e (1-based) for a step Δt: (e − 1) Δt.
    pub fn time_of(evaluation: u32, dt: f32) -> f64 {
        evaluation.saturating_sub(1) as f64 * dt as f64
    }

    /// Time of the last evaluation.
    pub fn time(&self, dt: f32) -> f64 {
        Self::time_of(self.evaluations, dt)
    }

    /// The planes at time t as (hi, lo, normal, S), the form both twins use.
    pub fn plane_records(&self, t: f64) -> Vec<PlaneRecord> {
        self.planes
            .iter()
            .map(|p| {
                let (hi, lo) = df3_split(p.point_at(t));
                (hi, lo, p.normal, p.s)
            })
            .collect()
    }
}

/// Per bead: its bonds in CSR order (force on i, or minus it on j), then the planes in order.
/// Twin of `bead_pass` in `shaders/beads.wgsl`.
#[inline]
pub fn bead_force(b: usize, states: &[SphereState], bonds: &BondList, bond_force: &[V3], planes: &[PlaneRecord]) -> V3 {
    let mut f = [0.0f32; 3];
    for &e in &bonds.incident[bonds.start[b] as usize..bonds.start[b + 1] as usize] {
        let fb = bond_force[(e >> 1) as usize];
        f = if e & 1 == 0 { add(f, fb) } else { sub(f, fb) };
    }
    let s = &states[b];
    for &(hi, lo, n, sc) in planes {
        let d = df3_sub(s.pos_hi, s.pos_lo, hi, lo);
        f = add(f, plane_repulsion_force(sc, s.radius, n, d).0);
    }
    f
}

/// Force of the beads on a plane: minus the sum of its forces on them, in the fixed order of
/// `crate::cpu::fixed_reduce` (lane t takes beads t, t + 256, … in increasing order, then the
/// binary tree). Twin of `plane_gather` in `shaders/beads.wgsl` (bit for bit); not the serial
/// bead order of earlier builds, so the last bits differ from a serial sum.
pub fn plane_gather(states: &[SphereState], &(hi, lo, nrm, sc): &PlaneRecord) -> V3 {
    strided_reduce(
        states.len(),
        [0.0f32; 3],
        |f, i| {
            let s = &states[i];
            let d = df3_sub(s.pos_hi, s.pos_lo, hi, lo);
            sub(f, plane_repulsion_force(sc, s.radius, nrm, d).0)
        },
        add,
    )
}

impl ExtraForces for BeadForces {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    /// Bonds break in every evaluation, the one at attachment included (`evaluations` is the
    /// bead clock); `eval.advance` is ignored (no contact history).
    fn add_forces(&mut self, states: &[SphereState], eval: Evaluation, out: &mut [SphereForce]) {
        let dt = eval.dt;
        self.evaluations += 1;
        let t = self.time(dt);
        let (ev, brk) = (self.evaluations, self.break_stretch);
        // Bond pass: one force per bond, breakage decided by the bond's own record.
        self.bond_force
            .par_iter_mut()
            .zip(self.bonds.bonds.par_iter_mut())
            .with_min_len(PAR_MIN)
            .for_each(|(f, bond)| {
                *f = bond_force(bond, &states[bond.i as usize], &states[bond.j as usize], brk, ev);
            });
        let planes = self.plane_records(t);
        let n = self.bonds.n_beads();
        let (bonds, bond_f) = (&self.bonds, &self.bond_force);
        out[..n]
            .par_iter_mut()
            .enumerate()
            .with_min_len(PAR_MIN)
            .for_each(|(b, o)| o.force = add(o.force, bead_force(b, states, bonds, bond_f, &planes)));
        for l in &self.loads {
            let o = &mut out[l.bead as usize].force;
            *o = add(*o, l.force_at(t));
        }
        // Plane forces: minus the sum of their forces on the beads (fixed-order reduction).
        for (p, plane) in self.plane_force.iter_mut().zip(&planes) {
            *p = plane_gather(&states[..n], plane);
        }
    }
}
