//! `softdem bench --scene triaxial`: the triaxial cell of case 1 timed on the CPU stepper, or on
//! the GPU stepper (`gpu_triaxial::bench`).

use super::model::MembraneContact;
use super::triaxial::{grow_packing, paper_cell, servo_gain, CellSpec};

/// `softdem bench --scene triaxial`: case 1 (Table 3) grown once, then for MSS_patch and
/// MSS_particle 2 ms of confinement (not timed) and `steps` timed shearing steps at 0.05 m/s.
/// Prints particle-steps/s (grains + membrane particles) and the wall time those steps give for
/// 20 ms of simulated time (Table 4's measure). `gpu`: the same on the GPU stepper
/// (`gpu_triaxial::bench`).
pub fn bench(gpu: bool, steps: usize) -> anyhow::Result<()> {
    if gpu {
        return super::gpu_triaxial::bench(steps);
    }
    let spec = CellSpec::table3(1, 4.6e9, 2e-6);
    let packing = grow_packing(&spec, 5e-5, 0.05 * spec.sigma_c, 2000, 20_000);
    println!("scene,backend,membrane,membrane_particles,grains,steps,dt,seconds,particle_steps_per_s,seconds_per_20ms");
    for (name, contact) in [
        ("patches", MembraneContact::Patches),
        ("particles", MembraneContact::Particles),
    ] {
        let mut cell = paper_cell(&spec, &packing, contact);
        let ms = (1e-3 / spec.dt).round() as usize;
        cell.confine(ms, ms, servo_gain(&spec), 0.05);
        cell.start_shear(0.05);
        let t = std::time::Instant::now();
        for _ in 0..steps {
            cell.step();
        }
        let secs = t.elapsed().as_secs_f64();
        let n = cell.n_grains + cell.n_vertices();
        println!(
            "triaxial,Cpu,{name},{},{},{steps},{:e},{secs:.3},{:.4e},{:.1}",
            cell.n_vertices(),
            cell.n_grains,
            spec.dt,
            (n * steps) as f64 / secs,
            secs * 0.02 / (steps as f64 * spec.dt)
        );
    }
    Ok(())
}
