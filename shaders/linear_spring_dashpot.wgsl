// linear_spring_dashpot.wgsl: f_n = k_n δ + γ_n δ̇, γ_n = −2 β_e sqrt(k_n m), clipped at zero;
// the tangential part is mindlin.wgsl's spring with a constant k_t.
// Twin of src/laws/linear_spring_dashpot.rs.

struct LinearSpringDashpotParams {
    k_n: f32,
    k_t: f32,
    beta_e: f32,
    mu: f32,
}

fn linear_damping(p: LinearSpringDashpotParams, m_star: f32) -> f32 {
    return -2.0 * p.beta_e * sqrt(p.k_n * m_star);
}

fn linear_normal_force(p: LinearSpringDashpotParams, m_star: f32, delta: f32, delta_dot: f32) -> f32 {
    let f = p.k_n * delta + linear_damping(p, m_star) * delta_dot;
    return max(f, 0.0);
}

fn linear_energy(p: LinearSpringDashpotParams, delta: f32) -> f32 {
    return 0.5 * p.k_n * delta * delta;
}

fn linear_stiffness(p: LinearSpringDashpotParams) -> f32 {
    return p.k_n;
}

fn linear_tangential_damping(p: LinearSpringDashpotParams, m_star: f32) -> f32 {
    return -2.0 * p.beta_e * sqrt(p.k_t * m_star);
}
