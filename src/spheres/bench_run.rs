//! `softdem bench --scene spheres`: sphere-steps/s of the bench packing
//! (`bench_scene::compressed_lattice`, a dense Hertz–Mindlin packing under slow compression)
//! from 10³ to 10⁶ spheres on the CPU or GPU stepper, with the memory per sphere, the contacts
//! per sphere and the log-log slope of the cost per step against the number of spheres (the
//! issue asks ≤ 1.1). One CSV row per size on stdout, comments (#) on stderr.

use super::bench_scene::{compressed_lattice, random_dense};
use super::cpu_stepper::CpuSpheres;
use super::gpu_stepper::GpuSpheres;
pub use crate::bench_measure::loglog_slope;
use crate::bench_measure::process_cpu_seconds;
use crate::gpu::context::GpuContext;
use std::io::Write;
use std::time::Instant;

/// What to run.
#[derive(Clone, Debug)]
pub struct SphereBench {
    pub gpu: bool,
    /// Sphere counts asked for; each becomes the n³ lattice with n = round(∛count).
    pub spheres: Vec<f64>,
    /// Sizes above this are skipped (per backend: the CPU here is slow at 10⁶).
    pub max_spheres: f64,
    /// Steps per size (None: about `sphere_steps` sphere-steps, at least 5 steps).
    pub steps: Option<u32>,
    pub sphere_steps: f64,
    /// GPU: steps per submission (`GpuSpheres::batch`).
    pub batch: u32,
    /// The packing: false, the n³ lattice (`compressed_lattice`); true, the random dense
    /// polydisperse packing in random order (`random_dense`, about `count` spheres).
    pub random: bool,
}

/// A stepper of either backend, as the bench drives it.
enum Stepper {
    Cpu(Box<CpuSpheres>),
    Gpu(Box<GpuSpheres>, std::sync::Arc<GpuContext>),
}

impl Stepper {
    fn steps(&mut self, k: u32) -> anyhow::Result<()> {
        match self {
            Stepper::Cpu(s) => s.steps(k as u64),
            Stepper::Gpu(s, ctx) => {
                s.steps_batched(ctx, k)?;
                let _ = s.states(ctx); // waits for the device
            }
        }
        Ok(())
    }
}

/// Runs the sizes and prints the CSV rows and the log-log slopes.
pub fn run(b: &SphereBench) -> anyhow::Result<()> {
    let ctx = if b.gpu {
        Some(std::sync::Arc::new(GpuContext::new()?))
    } else {
        None
    };
    let adapter = ctx.as_ref().map_or_else(
        || format!("{} threads", rayon::current_num_threads()),
        |c| c.info.name.clone(),
    );
    println!("scene,backend,adapter,spheres,steps,seconds,cpu_seconds,sphere_steps_per_s,bytes_per_sphere,pairs_per_sphere,contacts_per_sphere,rebuilds");
    let (mut cost, mut cpu_cost) = (vec![], vec![]);
    for &count in &b.spheres {
        if count > b.max_spheres {
            eprintln!(
                "# spheres: {count:.0} spheres skipped (above --max-spheres {:.0})",
                b.max_spheres
            );
            continue;
        }
        let (p, states, laws, walls) = if b.random {
            random_dense(count as usize)
        } else {
            compressed_lattice(count.cbrt().round().max(2.0) as usize)
        };
        let n = states.len();
        let mut stepper = match &ctx {
            None => Stepper::Cpu(Box::new(CpuSpheres::new(p, states, laws, walls))),
            Some(c) => {
                let mut g = GpuSpheres::new(c, p, &states, &laws, &walls)?;
                g.batch = b.batch;
                Stepper::Gpu(Box::new(g), c.clone())
            }
        };
        let steps = b.steps.unwrap_or(((b.sphere_steps / n as f64).round() as u32).max(5));
        stepper.steps(3)?; // warm-up (pipelines, caches)
        let (t, c0) = (Instant::now(), process_cpu_seconds());
        stepper.steps(steps)?;
        let s = t.elapsed().as_secs_f64();
        let cpu = process_cpu_seconds().zip(c0).map_or(f64::NAN, |(a, b)| a - b);
        cost.push((n as f64, s / steps as f64));
        if cpu > 0.0 {
            // (CPU time is counted in 10 ms ticks: a short run may read 0.)
            cpu_cost.push((n as f64, cpu / steps as f64));
        }
        let (bytes, pairs, contacts, rebuilds) = match &stepper {
            Stepper::Cpu(s) => (
                s.bytes_per_sphere(),
                s.list.len(),
                s.pair_out.iter().filter(|o| o.f_n > 0.0).count(),
                s.rebuilds,
            ),
            Stepper::Gpu(s, _) => (s.bytes_per_sphere(), s.pair_count(), 0, s.rebuilds),
        };
        println!(
            "{},{},{},{n},{steps},{s:.4},{cpu:.3},{:.4e},{bytes:.1},{:.3},{},{rebuilds}",
            if b.random { "spheres_random" } else { "spheres" },
            if b.gpu { "Gpu" } else { "Cpu" },
            adapter.replace(',', ";"),
            n as f64 * steps as f64 / s,
            pairs as f64 / n as f64,
            if b.gpu {
                "".to_string()
            } else {
                format!("{:.3}", contacts as f64 / n as f64)
            },
        );
        std::io::stdout().flush()?;
    }
    for (what, c) in [("seconds", &cost), ("CPU seconds", &cpu_cost)] {
        if c.len() >= 2 {
            eprintln!(
                "# spheres: log-log slope of {what} per step against spheres ({:.0} to {:.0}): {:.3}",
                c[0].0,
                c[c.len() - 1].0,
                loglog_slope(c)
            );
        }
    }
    Ok(())
}
