// Temporary: RSS of the GPU sphere stepper over steps and rebuilds.
use softdem::gpu::context::GpuContext;
use softdem::spheres::gpu_stepper::GpuSpheres;
fn rss() -> u64 {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap();
    s.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 4096 / 1048576
}
fn main() {
    let ctx = GpuContext::new().unwrap();
    let (p, st, laws, walls) = softdem::spheres::bench_scene::compressed_lattice(std::env::args().nth(2).map(|x| x.parse().unwrap()).unwrap_or(10));
    let mut sys = GpuSpheres::new(&ctx, p, &st, &laws, &walls).unwrap();
    let mode = std::env::args().nth(1).unwrap_or_default();
    for round in 0..40 {
        match mode.as_str() {
            "rebuild" => sys.rebuild(&ctx).unwrap(),
            "read" => { let _ = sys.states(&ctx); }
            "single" => { for _ in 0..50 { sys.steps_batched(&ctx, 1).unwrap(); } }
            "write" => { for _ in 0..50 { sys.set_gravity(&ctx, [0.0, 0.0, 0.0]); } let _ = sys.states(&ctx); }
            _ => sys.steps_batched(&ctx, 50).unwrap(),
        }
        if round % 5 == 0 { println!("{mode} round {round}: rss {} MiB, rebuilds {}", rss(), sys.rebuilds); }
    }
}
