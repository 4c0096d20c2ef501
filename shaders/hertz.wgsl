// hertz.wgsl: Hertz normal force with viscoelastic damping (paper eq 3), damping from the
// restitution in LIGGGHTS' form. Twin of src/laws/hertz.rs (same names, same operation order).
//   f_n = 4/3 E* sqrt(r δ) δ + γ_n δ̇,  S_n = 2 E* sqrt(r δ),  γ_n = −2 sqrt(5/6) β_e sqrt(S_n m)

struct HertzParams {
    e_star: f32,
    beta_e: f32,
}

const TWO_SQRT_FIVE_SIXTHS: f32 = 1.8257419;

// Contact stiffness S_n = d f_el / dδ.
fn hertz_stiffness(p: HertzParams, r_star: f32, delta: f32) -> f32 {
    return 2.0 * p.e_star * sqrt(r_star * delta);
}

// Elastic part of eq 3.
fn hertz_elastic_force(p: HertzParams, r_star: f32, delta: f32) -> f32 {
    return (4.0 / 3.0) * p.e_star * sqrt(r_star * delta) * delta;
}

fn hertz_damping(p: HertzParams, r_star: f32, m_star: f32, delta: f32) -> f32 {
    return -TWO_SQRT_FIVE_SIXTHS * p.beta_e * sqrt(hertz_stiffness(p, r_star, delta) * m_star);
}

// Eq 3, positive repulsive, clipped at zero (no attraction at separation).
fn hertz_normal_force(p: HertzParams, r_star: f32, m_star: f32, delta: f32, delta_dot: f32) -> f32 {
    let f = hertz_elastic_force(p, r_star, delta) + hertz_damping(p, r_star, m_star, delta) * delta_dot;
    return max(f, 0.0);
}

// 8/15 E* sqrt(r) δ^{5/2}
fn hertz_energy(p: HertzParams, r_star: f32, delta: f32) -> f32 {
    return 0.4 * hertz_elastic_force(p, r_star, delta) * delta;
}
