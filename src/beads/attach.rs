//! Bead bodies in a driven sphere run (`[spheres.beads]`): the bond source attached to either
//! stepper, read back for the outputs and restored from a checkpoint. The CPU stepper keeps the
//! `BeadForces` source itself; the GPU stepper keeps a `SharedGpuBeads`, a `GpuBeadForces`
//! behind a `RefCell` so that a restore can reach it through the stepper's `extra()` (the
//! `GpuExtraForces` trait hands out shared references only).

use super::forces::BeadForces;
use super::gpu::GpuBeadForces;
use crate::gpu::context::GpuContext;
use crate::spheres::cpu_stepper::CpuSpheres;
use crate::spheres::extra_force::SharedGpuSource;
use crate::spheres::gpu_stepper::GpuSpheres;
use std::cell::RefCell;

/// `GpuBeadForces` as a source a restore can reach (see the module doc).
pub type SharedGpuBeads = SharedGpuSource<GpuBeadForces>;

/// Attaches the bead source to the CPU stepper (the first evaluation, at t = 0, happens here).
pub fn attach_cpu(sys: &mut CpuSpheres, forces: BeadForces) {
    sys.add_extra(Box::new(forces));
}

/// Attaches the bead source to the GPU stepper.
pub fn attach_gpu(ctx: &GpuContext, sys: &mut GpuSpheres, forces: BeadForces) -> anyhow::Result<()> {
    let src = GpuBeadForces::new(ctx, forces)?;
    sys.add_extra(ctx, Box::new(SharedGpuSource(RefCell::new(src))))
}

fn cpu_source(sys: &CpuSpheres) -> Option<usize> {
    sys.extra.iter().position(|s| s.as_any().is::<BeadForces>())
}

fn gpu_source(sys: &GpuSpheres) -> Option<&SharedGpuBeads> {
    sys.extra()
        .iter()
        .find_map(|s| s.as_any().downcast_ref::<SharedGpuBeads>())
}

/// The bead source as of the last evaluation (bonds with break records, bond and plane forces,
/// evaluation count), or None without one.
pub fn read_cpu(sys: &CpuSpheres) -> Option<BeadForces> {
    cpu_source(sys).map(|k| {
        sys.extra[k]
            .as_any()
            .downcast_ref::<BeadForces>()
            .expect("checked")
            .clone()
    })
}

/// The GPU twin of `read_cpu` (bonds and forces read back).
pub fn read_gpu(ctx: &GpuContext, sys: &GpuSpheres) -> Option<BeadForces> {
    gpu_source(sys).map(|s| {
        let g = s.0.borrow();
        let mut f = g.host.clone();
        f.bonds = g.bonds(ctx);
        f.bond_force = g.bond_force(ctx);
        f.plane_force = g.plane_force(ctx);
        f
    })
}

/// Restores the bead source from `saved` (a `read_cpu` of the same scenario's run).
pub fn restore_cpu(sys: &mut CpuSpheres, saved: &BeadForces) -> anyhow::Result<()> {
    let k = cpu_source(sys).ok_or_else(|| anyhow::anyhow!("this run has no bead bodies"))?;
    let cur = sys.extra[k].as_any().downcast_ref::<BeadForces>().expect("checked");
    anyhow::ensure!(
        saved.bonds.len() == cur.bonds.len() && saved.plane_force.len() == cur.planes.len(),
        "the checkpoint has {} bonds and {} planes, this scenario {} and {}",
        saved.bonds.len(),
        saved.plane_force.len(),
        cur.bonds.len(),
        cur.planes.len()
    );
    let mut f = cur.clone();
    f.bonds.bonds = saved.bonds.bonds.clone();
    f.bond_force = saved.bond_force.clone();
    f.plane_force = saved.plane_force.clone();
    f.evaluations = saved.evaluations;
    sys.extra[k] = Box::new(f);
    Ok(())
}

/// The GPU twin of `restore_cpu`.
pub fn restore_gpu(ctx: &GpuContext, sys: &GpuSpheres, saved: &BeadForces) -> anyhow::Result<()> {
    let s = gpu_source(sys).ok_or_else(|| anyhow::anyhow!("this run has no bead bodies"))?;
    s.0.borrow_mut().restore(ctx, saved)
}
