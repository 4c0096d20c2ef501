// kelvin_voigt.wgsl: Kelvin–Voigt bond (Sahputra et al., eq 3), F_KV = k X + b dX/dt with
// X = |d| − l₀ and dX/dt = w·n (d = x_i − x_j, w = v_i − v_j, n = d/|d|); force on i = −F_KV n.
// Twin of src/laws/kelvin_voigt.rs.

struct KvForce {
    force: vec3<f32>,
    extension: f32,
    f_kv: f32,
}

fn kelvin_voigt_force(k: f32, b: f32, rest: f32, d: vec3<f32>, w: vec3<f32>) -> KvForce {
    let len = sqrt(dot(d, d));
    if (len <= 0.0) {
        return KvForce(vec3<f32>(0.0), -rest, 0.0);
    }
    let n = d * (1.0 / len);
    let x = len - rest;
    // Eq 3.
    let f = k * x + b * dot(w, n);
    return KvForce(n * (-f), x, f);
}

fn kelvin_voigt_energy(k: f32, x: f32) -> f32 {
    return 0.5 * k * x * x;
}
