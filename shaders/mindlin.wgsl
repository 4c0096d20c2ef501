// mindlin.wgsl: Mindlin/Tsuji incremental tangential spring k_t = 8 G* sqrt(r δ) (eq 4–6) with
// the history rotated into the tangent plane, a dashpot and the Coulomb cap.
// Twin of src/laws/mindlin.rs (same names, same steps 1–4).

#import hertz

struct MindlinParams {
    g_star: f32,
    mu: f32,
    beta_e: f32,
    _pad: f32,
}

struct TangentialUpdate {
    force: vec3<f32>,
    history: vec3<f32>,
}

// Written out as in src/laws/vec3.rs so both sides evaluate the same operations.
fn v3_dot(a: vec3<f32>, b: vec3<f32>) -> f32 {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

fn v3_norm(a: vec3<f32>) -> f32 {
    return sqrt(v3_dot(a, a));
}

fn v3_tangential(a: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    return a - n * v3_dot(a, n);
}

fn mindlin_stiffness(p: MindlinParams, r_star: f32, delta: f32) -> f32 {
    return 8.0 * p.g_star * sqrt(r_star * delta);
}

fn mindlin_damping(p: MindlinParams, k_t: f32, m_star: f32) -> f32 {
    return -TWO_SQRT_FIVE_SIXTHS * p.beta_e * sqrt(k_t * m_star);
}

// The history in the plane orthogonal to n, its length kept.
fn rotate_history(h: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    let len = v3_norm(h);
    let t = v3_tangential(h, n);
    let tl = v3_norm(t);
    if (tl > 0.0) {
        return t * (len / tl);
    }
    return vec3<f32>(0.0);
}

fn tangential_spring_force(k_t: f32, gamma_t: f32, mu_f_n: f32, n: vec3<f32>, v_t: vec3<f32>, dt: f32, history: vec3<f32>) -> TangentialUpdate {
    let h = rotate_history(history, n) - v_t * (k_t * dt);
    let f = h - v_t * gamma_t;
    let f_len = v3_norm(f);
    if (f_len > mu_f_n) {
        var capped = vec3<f32>(0.0);
        if (f_len > 0.0) {
            capped = f * (mu_f_n / f_len);
        }
        return TangentialUpdate(capped, capped + v_t * gamma_t);
    }
    return TangentialUpdate(f, h);
}

fn mindlin_energy(k_t: f32, history: vec3<f32>) -> f32 {
    if (k_t > 0.0) {
        return v3_dot(history, history) / (2.0 * k_t);
    }
    return 0.0;
}
