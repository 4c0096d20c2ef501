//! Profiling aid for the CPU stepper's per-call cost: `cargo run --release --example
//! sphere_calls -- K M [lattice]` builds the bench packing (the dense random one of about 10⁵
//! spheres, `spheres::bench_scene::random_dense`, or the 46³ lattice), takes 3 warm-up steps,
//! then calls `CpuSpheres::steps(K)` M times (as the driver does once per output interval) and
//! prints the CPU time of the process (user + system, all threads) per step and per call, and a
//! hash of the final histories and states (two binaries that should give the same bits print
//! the same hash). Compare `K M` with `K·M 1` for the cost per call. The figures to report come
//! from `softdem bench`; this separates the fixed cost of a call from the steps.
use softdem::spheres::bench_scene::{compressed_lattice, random_dense};
use softdem::spheres::cpu_stepper::CpuSpheres;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let k: u64 = args.get(1).map_or(20, |a| a.parse().unwrap());
    let m: u64 = args.get(2).map_or(30, |a| a.parse().unwrap());
    let (p, states, laws, walls) = if args.get(3).is_some_and(|a| a == "lattice") {
        compressed_lattice(46)
    } else {
        random_dense(100_000)
    };
    let mut sys = CpuSpheres::new(p, states, laws, walls);
    sys.steps(3);
    let c0 = softdem::bench_measure::process_cpu_seconds().unwrap_or(0.0);
    for _ in 0..m {
        sys.steps(k);
    }
    let cpu = softdem::bench_measure::process_cpu_seconds().unwrap_or(0.0) - c0;
    let hash =
        |words: &mut dyn Iterator<Item = u32>| words.fold(0u64, |h, w| h.wrapping_mul(31).wrapping_add(w as u64));
    let h = hash(&mut bytemuck::cast_slice::<_, u32>(&sys.history).iter().copied());
    let x = hash(&mut bytemuck::cast_slice::<_, u32>(&sys.states).iter().copied());
    println!(
        "{} spheres, {m} calls of {k} steps: {cpu:.2} CPU s, {:.3} ms CPU/step, {:.1} ms CPU/call, {} sorts, {} rebuilds, hash {h:016x}/{x:016x}",
        sys.states.len(),
        1e3 * cpu / (k * m) as f64,
        1e3 * cpu / m as f64,
        sys.sorts,
        sys.rebuilds
    );
}
