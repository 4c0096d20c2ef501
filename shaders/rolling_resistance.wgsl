// rolling_resistance.wgsl: elastic–plastic rolling spring (Ai et al. 2011, model C without its
// dashpot; LIGGGHTS epsd2): k_r = 2.25 k_n μ_r² r², |M_r| ≤ μ_r r f_n.
// Twin of src/laws/rolling_resistance.rs; uses rotate_history and v3_* from mindlin.wgsl.

#import hertz
#import mindlin

struct RollingParams {
    mu_r: f32,
    _pad: f32,
}

fn rolling_stiffness(p: RollingParams, k_n: f32, r_star: f32) -> f32 {
    return 2.25 * k_n * p.mu_r * p.mu_r * r_star * r_star;
}

fn rolling_torque(p: RollingParams, k_n: f32, r_star: f32, f_n: f32, n: vec3<f32>, w_rel: vec3<f32>, dt: f32, history: vec3<f32>) -> vec3<f32> {
    let k_r = rolling_stiffness(p, k_n, r_star);
    let w_r = v3_tangential(w_rel, n);
    let m = rotate_history(history, n) - w_r * (k_r * dt);
    let cap = p.mu_r * r_star * f_n;
    let len = v3_norm(m);
    if (len > cap) {
        if (len > 0.0) {
            return m * (cap / len);
        }
        return vec3<f32>(0.0);
    }
    return m;
}
