//! `softdem bench --scene beads`: bead-steps/s of the paper's compression (cubic-lattice sphere
//! between two eq-6 planes, `scenes::paper_compression_spec`) at about 10⁴, 10⁵ and the paper's
//! 137,059 beads, on the CPU stepper or the GPU one, and the GPU bytes per bead and per bond.
//! Timing covers the steps only (scene build and GPU upload outside), one `BeadRun::steps` call
//! (on the GPU batched, the stepper's default batch), and on the GPU ends with a read-back so the
//! queued work is counted.

use super::gpu::GpuBeadForces;
use super::scenes::{compression_scene, paper_compression_spec, BeadRun};
use crate::backend::BackendKind;
use crate::gpu::context::GpuContext;

/// Runs the sizes (n lattice spacings per radius; 13.4, 28.8 and 32 give ≈ 10⁴, 10⁵, 137,059
/// beads) for `steps` steps each and prints one CSV line per size (header first).
pub fn run(kind: BackendKind, sizes: &[f64], steps: u32) -> anyhow::Result<()> {
    println!("scene,backend,beads,bonds,steps,seconds,bead_steps_per_s,gpu_bytes_per_bead,gpu_bytes_per_bond");
    let ctx = match kind {
        BackendKind::Gpu => Some(GpuContext::new()?),
        BackendKind::Cpu => None,
    };
    for &n in sizes {
        let (scene, body) = compression_scene(&paper_compression_spec(n));
        let (beads, bonds) = (scene.states.len(), body.bonds.len());
        let mut run = match &ctx {
            Some(c) => BeadRun::gpu(c, scene)?,
            None => BeadRun::cpu(scene),
        };
        let t0 = std::time::Instant::now();
        run.steps(ctx.as_ref(), steps)?;
        let _ = run.states(ctx.as_ref());
        let secs = t0.elapsed().as_secs_f64();
        let (per_bead, per_bond) = match &run {
            BeadRun::Gpu(s) => {
                let (bond_b, bead_b) = GpuBeadForces::bytes_per_bond_and_bead();
                // The stepper's bytes per sphere, the extra force and torque, the bead CSR start.
                (s.bytes_per_sphere() + 32.0 + bead_b as f64, bond_b as f64)
            }
            BeadRun::Cpu(_) => (0.0, 0.0),
        };
        println!(
            "beads,{kind:?},{beads},{bonds},{steps},{secs:.3},{:.4e},{per_bead:.1},{per_bond:.1}",
            (beads as f64 * steps as f64) / secs
        );
    }
    Ok(())
}
