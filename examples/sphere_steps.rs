//! Profiling aid: `cargo run --release --example sphere_steps -- N STEPS [scalar]` steps the n³
//! bench packing (`spheres::bench_scene::compressed_lattice`) on the CPU and prints the time per
//! step (use with `perf stat` / `perf record`; the figures to report come from the benches).
use softdem::spheres::bench_scene::compressed_lattice;
use softdem::spheres::cpu_stepper::CpuSpheres;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map_or(47, |a| a.parse().unwrap());
    let steps: u64 = args.get(2).map_or(20, |a| a.parse().unwrap());
    let (p, states, laws, walls) = compressed_lattice(n);
    let mut sys = CpuSpheres::new(p, states, laws, walls);
    sys.use_lanes = args.get(3).is_none_or(|a| a != "scalar");
    let c = softdem::bench_measure::process_cpu_seconds().unwrap_or(0.0);
    let t = std::time::Instant::now();
    for _ in 0..steps {
        sys.step();
    }
    let s = t.elapsed().as_secs_f64();
    let cpu = softdem::bench_measure::process_cpu_seconds().unwrap_or(0.0) - c;
    println!(
        "{} spheres, {steps} steps, {:.3} ms/step, {:.3} ms CPU/step, {:.3e} sphere-steps/s, {} rebuilds, {} pairs",
        sys.states.len(),
        1e3 * s / steps as f64,
        1e3 * cpu / steps as f64,
        (sys.states.len() as u64 * steps) as f64 / s,
        sys.rebuilds,
        sys.list.len()
    );
}
