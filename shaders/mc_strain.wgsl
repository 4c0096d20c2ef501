// mc_strain.wgsl: MC-strain multi-contact displacement (Brodu et al., the paper's eq 7), twin of
// src/laws/mc_strain.rs. Uses v3_* of mindlin.wgsl.

#import mindlin

const MC_STRAIN: u32 = 8u;
const MCS_PI: f32 = 3.14159265358979;

fn young_from_self_pair(e_star: f32, nu: f32) -> f32 {
    return 2.0 * (1.0 - nu * nu) * e_star;
}

// δ_{k→c} of eq 7: contact k carries f_k at branch vector l_k, contact c is at l_c.
fn strain_displacement(gamma: f32, young: f32, nu: f32, f_k: f32, l_k: vec3<f32>, l_c: vec3<f32>) -> f32 {
    let d_vec = l_c - l_k;
    let d = v3_norm(d_vec);
    let lk = v3_norm(l_k);
    let lc = v3_norm(l_c);
    if (f_k <= 0.0 || d <= 0.0 || lk <= 0.0 || lc <= 0.0) {
        return 0.0;
    }
    let u = d_vec * (1.0 / d);
    let n_k = l_k * (-1.0 / lk);
    let n_c = l_c * (-1.0 / lc);
    let nku = v3_dot(n_k, u);
    let denom = max(1.0 + nku, 1e-6);
    let bracket = nku * v3_dot(n_c, u) + (3.0 - 4.0 * nu) * v3_dot(n_k, n_c)
        - (1.0 - 2.0 * nu) * v3_dot(n_k + u, n_c) / denom;
    return -gamma * (1.0 + nu) * f_k / (2.0 * MCS_PI * young * d) * bracket;
}
