use softdem::validation::beads_sphere::{compress, spec};
fn main() {
    let n: f64 = std::env::args().nth(1).unwrap().parse().unwrap();
    let t0 = std::time::Instant::now();
    let f = compress(None, &spec(n)).unwrap();
    println!("n = {n}: {f:?}, E/40MPa = {:.4}, {:.1} s", f.young / 40e6, t0.elapsed().as_secs_f64());
}
