use softdem::beads::scenes::*;
use softdem::beads::*;
fn main() {
    let args: Vec<f64> = std::env::args().skip(1).map(|a| a.parse().unwrap()).collect();
    let (rho, b, speed, damping, dt) = (args[0], args[1], args[2], args[3], args[4]);
    let l = 12.5e-6;
    let spec = CompressionSpec {
        body: BodySpec { shape: BodyShape::CubicSphere { radius: rho * l }, spacing: l, k: 200.0, b, shell: None, bead_mass: 1000.0 * l * l * l, contact_radius: 0.01 * l, material: 0, center: [0.0; 3] },
        speed, strain: 0.1, s: 1e10, dt, damping,
    };
    let (scene, body) = compression_scene(&spec);
    let n = scene.states.len();
    let t_stop = spec.stop_time(body.outer_radius);
    let steps = (t_stop / dt) as usize;
    let mut run = BeadRun::cpu(scene);
    let t0 = std::time::Instant::now();
    let samples = run_compression(&mut run, None, steps, steps / 200).unwrap();
    let el = t0.elapsed().as_secs_f64();
    let r = body.outer_radius;
    for s in &samples { println!("{:.3e} {:.4} {:.4e} {:.4e}", s.time, s.delta / (2.0 * r), s.f_top, s.f_bottom); }
    for (lo, hi) in [(0.01, 0.05), (0.02, 0.1), (0.0, 0.1), (0.05, 0.1)] {
        let (_, e) = hertz_fit(&samples, lo * 2.0 * r, hi * 2.0 * r, r, 0.25);
        let (_, d0, e2) = hertz_fit_offset(&samples, lo * 2.0 * r, hi * 2.0 * r, r, 0.25);
        println!("fit {lo}-{hi}: E = {:.4e} ({:.4}); offset fit: E = {:.4e} ({:.4}), δ0 = {:.3} l", e, e / 40e6, e2, e2 / 40e6, d0 / l);
    }
    println!("{n} beads, {steps} steps, {el:.2} s, {:.3e} bead-steps/s", n as f64 * steps as f64 / el);
}
