//! `softdem bench --scene triaxial`: the triaxial cell of case 1 timed on the CPU stepper
//! (`TriaxialCell`) or on the GPU stepper (`GpuTriaxialCell`), the same packing, protocol and
//! printed figures.

use super::gpu_triaxial::GpuTriaxialCell;
use super::model::MembraneContact;
use super::triaxial::{grow_packing, paper_cell, servo_gain, CellSpec};
use crate::bench_measure::process_cpu_seconds;
use crate::gpu::context::GpuContext;

/// Case 1 (Table 3) grown once, then for MSS_patch and MSS_particle 1 ms of ramp and 1 ms of
/// hold (not timed) and `steps` timed shearing steps at 0.05 m/s. Prints particle-steps/s
/// (grains + membrane particles) and the wall time those steps give for 20 ms of simulated time
/// (Table 4's measure). `gpu`: on the GPU stepper (its timing ends on the batch's read-back, so
/// the device has finished).
pub fn bench(gpu: bool, steps: usize) -> anyhow::Result<()> {
    let ctx = if gpu { Some(GpuContext::new()?) } else { None };
    let spec = CellSpec::table3(1, 4.6e9, 2e-6);
    let packing = grow_packing(&spec, 5e-5, 0.05 * spec.sigma_c, 2000, 20_000);
    let ms = (1e-3 / spec.dt).round() as usize;
    println!("scene,backend,membrane,membrane_particles,grains,steps,dt,seconds,particle_steps_per_s,seconds_per_20ms,cpu_seconds");
    for (name, contact) in [
        ("patches", MembraneContact::Patches),
        ("particles", MembraneContact::Particles),
    ] {
        let cpu0;
        let (backend, secs, n_vertices, n_grains) = match &ctx {
            None => {
                let mut cell = paper_cell(&spec, &packing, contact);
                cell.confine(ms, ms, servo_gain(&spec), 0.05);
                cell.start_shear(0.05);
                cpu0 = process_cpu_seconds().unwrap_or(f64::NAN);
                let t = std::time::Instant::now();
                for _ in 0..steps {
                    cell.step();
                }
                ("Cpu", t.elapsed().as_secs_f64(), cell.n_vertices(), cell.n_grains)
            }
            Some(ctx) => {
                let mut cell = GpuTriaxialCell::paper(ctx, &spec, &packing, contact)?;
                cell.confine(ctx, ms, ms, servo_gain(&spec), 0.05)?;
                cell.start_shear(ctx, 0.05);
                cpu0 = process_cpu_seconds().unwrap_or(f64::NAN);
                let t = std::time::Instant::now();
                cell.steps(ctx, steps as u32)?;
                ("Gpu", t.elapsed().as_secs_f64(), cell.n_vertices(), cell.n_grains())
            }
        };
        let cpu = process_cpu_seconds().unwrap_or(f64::NAN) - cpu0;
        let n = n_grains + n_vertices;
        println!(
            "triaxial,{backend},{name},{n_vertices},{n_grains},{steps},{:e},{secs:.3},{:.4e},{:.1},{cpu:.2}",
            spec.dt,
            (n * steps) as f64 / secs,
            secs * 0.02 / (steps as f64 * spec.dt)
        );
    }
    Ok(())
}
