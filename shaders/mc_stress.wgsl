// mc_stress.wgsl: MC-stress multi-contact correction (paper eq 9–10, Appendix), twin of
// src/laws/mc_stress.rs: pass 1 sums l·f = −(r − δ/2) f_n per sphere (V tr σ, eq 9), pass 2
// adds β ν π r δ · (−k (tr σ_i + tr σ_j)) to the Hertz force (eq 10). With MC_BRANCH_DIAMETER
// (eq 11 as printed) the branch length is the diameter 2r.

const MC_INCLUDE_SELF: u32 = 1u;
const MC_EXCLUDE_WALLS: u32 = 2u;
const MC_CAP_HERTZ: u32 = 4u;
const MC_BRANCH_DIAMETER: u32 = 16u;
// (MC_STRAIN = 8u, in mc_strain.wgsl: the branch option does not apply under it.)
const MC_STRAIN_BIT: u32 = 8u;

struct McStressParams {
    beta: f32,
    nu: f32,
    pressure_factor: f32,
    options: u32,
}

fn branch_length(options: u32, r_i: f32, delta: f32) -> f32 {
    if ((options & (MC_BRANCH_DIAMETER | MC_STRAIN_BIT)) == MC_BRANCH_DIAMETER) {
        return 2.0 * r_i;
    }
    return r_i - 0.5 * delta;
}

fn stress_trace_term(options: u32, r_i: f32, delta: f32, f_n: f32) -> f32 {
    return -branch_length(options, r_i, delta) * f_n;
}

const MC_PI: f32 = 3.14159265358979;

fn sphere_volume(r: f32) -> f32 {
    return (4.0 / 3.0) * MC_PI * r * r * r;
}

fn contact_area(r_star: f32, delta: f32) -> f32 {
    return MC_PI * r_star * delta;
}

fn mc_stress_force(p: McStressParams, r_star: f32, delta: f32, trace_i: f32, trace_j: f32) -> f32 {
    let pressure = -p.pressure_factor * (trace_i + trace_j);
    return p.beta * p.nu * contact_area(r_star, delta) * pressure;
}
