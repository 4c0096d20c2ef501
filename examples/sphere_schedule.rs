//! The GPU sphere stepper's two rebuild schedules on a shaken packing whose builds come every few
//! steps (the measurement behind `gpu_rebuild::AUTO_DEVICE_BELOW`, docs/spheres.md *Rebuild
//! schedule*). `cargo run --release --example sphere_schedule -- SIDE SKIN_FACTOR STEPS
//! host|gpu|auto [BATCH]`: side³ spheres of `bench_scene::compressed_lattice`, shaken at 2 m/s,
//! skin × SKIN_FACTOR; prints the builds, steps per build, wall and process CPU seconds.

use softdem::gpu::context::GpuContext;
use softdem::spheres::bench_scene::{compressed_lattice, shake};
use softdem::spheres::gpu_rebuild::RebuildSchedule;
use softdem::spheres::gpu_stepper::GpuSpheres;

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let side: usize = a.get(1).map_or(Ok(4), |v| v.parse())?;
    let skin: f32 = a.get(2).map_or(Ok(0.1), |v| v.parse())?;
    let steps: u32 = a.get(3).map_or(Ok(2000), |v| v.parse())?;
    let schedule = match a.get(4).map_or("auto", |v| v.as_str()) {
        "host" => RebuildSchedule::Host,
        "gpu" => RebuildSchedule::Device,
        _ => RebuildSchedule::Auto,
    };
    let batch: u32 = a.get(5).map_or(Ok(32), |v| v.parse())?;
    let ctx = GpuContext::new()?;
    let (mut p, mut states, laws, walls) = compressed_lattice(side);
    p.skin *= skin;
    shake(&mut p, &mut states, 0x9e37_79b9_7f4a_7c15, 2.0, 100.0);
    let mut g = GpuSpheres::new(&ctx, p, &states, &laws, &walls)?;
    g.schedule = schedule;
    g.batch = batch;
    g.steps_batched(&ctx, 10)?;
    let (b0, r0) = (g.rebuilds, g.stepping_reads);
    let (t, c) = (
        std::time::Instant::now(),
        softdem::bench_measure::process_cpu_seconds().unwrap_or(0.0),
    );
    g.steps_batched(&ctx, steps)?;
    let (wall, cpu) = (
        t.elapsed().as_secs_f64(),
        softdem::bench_measure::process_cpu_seconds().unwrap_or(0.0) - c,
    );
    let builds = g.rebuilds - b0;
    println!(
        "spheres {} skin_factor {skin} schedule {schedule:?} batch {batch} steps {steps} builds {builds} steps_per_build {:.1} reads {} wall_s {wall:.3} cpu_s {cpu:.2} wall_us_per_step {:.0} cpu_us_per_step {:.0}",
        states.len(),
        steps as f64 / builds.max(1) as f64,
        g.stepping_reads - r0,
        1e6 * wall / steps as f64,
        1e6 * cpu / steps as f64
    );
    Ok(())
}
