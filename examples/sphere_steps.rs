//! Profiling aid: `cargo run --release --example sphere_steps -- N STEPS [scalar]` steps the n³
//! bench packing (`spheres::bench_scene::compressed_lattice`) on the CPU and prints the time per
//! step (use with `perf stat` / `perf record`; the figures to report come from the benches).
use softdem::spheres::bench_scene::compressed_lattice;
use softdem::spheres::cpu_stepper::CpuSpheres;

/// CPU time of the process (user + system) in seconds, from /proc/self/stat (Linux).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let f: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks: f64 =
        f.get(11).and_then(|u| u.parse().ok()).unwrap_or(0.0) + f.get(12).and_then(|u| u.parse().ok()).unwrap_or(0.0);
    ticks / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map_or(47, |a| a.parse().unwrap());
    let steps: u64 = args.get(2).map_or(20, |a| a.parse().unwrap());
    let (p, states, laws, walls) = compressed_lattice(n);
    let mut sys = CpuSpheres::new(p, states, laws, walls);
    sys.use_lanes = args.get(3).is_none_or(|a| a != "scalar");
    let c = cpu_seconds();
    let t = std::time::Instant::now();
    for _ in 0..steps {
        sys.step();
    }
    let s = t.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - c;
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
