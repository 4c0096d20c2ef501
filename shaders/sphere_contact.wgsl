// sphere_contact.wgsl: one contact, twin of src/spheres/contact.rs (same names and steps): the
// law table record, the geometry of two spheres, and `pair_force`, the law of the pair applied
// to a geometry and a history. Functions only; kernels: sphere_law_batch.wgsl, sphere_step.wgsl.
// Uses sphere_state, hertz, mindlin, linear_spring_dashpot, rolling_resistance, mc_stress,
// plane_repulsion (the eq-6 wall law).

#import sphere_state
#import hertz
#import mindlin
#import linear_spring_dashpot
#import rolling_resistance
#import mc_stress
#import plane_repulsion

struct PairLaw {
    kind: u32,
    _pad0: u32,
    hertz: HertzParams,
    mindlin: MindlinParams,
    linear: LinearSpringDashpotParams,
    rolling: RollingParams,
    mc: McStressParams,
}

const LAW_HERTZ_MINDLIN: u32 = 0u;
const LAW_LINEAR: u32 = 1u;
// Eq 6 of the bonded beads, S δ² (S in linear.k_n): a wall law.
const LAW_PLANE_REPULSION: u32 = 2u;

struct ContactGeometry {
    normal: vec3<f32>,
    delta: f32,
    v_rel: vec3<f32>,
    r_star: f32,
    w_rel: vec3<f32>,
    m_star: f32,
}

struct PairForce {
    force: vec3<f32>,
    f_n: f32,
    rolling_torque: vec3<f32>,
    energy: f32,
}

struct PairResult {
    force: PairForce,
    history: ContactHistory,
}

// The classical normal force of the pair's law (eq 3 or linear), ≥ 0.
fn classical_normal_force(law: PairLaw, g: ContactGeometry) -> f32 {
    let delta_dot = -v3_dot(g.v_rel, g.normal);
    if (law.kind == LAW_HERTZ_MINDLIN) {
        return hertz_normal_force(law.hertz, g.r_star, g.m_star, g.delta, delta_dot);
    }
    if (law.kind == LAW_PLANE_REPULSION) {
        return plane_repulsion_normal(law.linear.k_n, g.delta);
    }
    return linear_normal_force(law.linear, g.m_star, g.delta, delta_dot);
}

// The pair's law plus f_mc, the MC-stress correction of eq 10 (0 for classical DEM).
fn pair_force(law: PairLaw, g: ContactGeometry, dt: f32, h: ContactHistory, f_mc: f32) -> PairResult {
    var r: PairResult;
    if (g.delta <= 0.0) {
        return r;
    }
    let n = g.normal;
    let v_t = v3_tangential(g.v_rel, n);
    let f_classical = classical_normal_force(law, g);
    let f_n = f_classical + f_mc;
    var f_cap = f_n;
    if ((law.mc.options & MC_CAP_HERTZ) != 0u) {
        f_cap = f_classical;
    }
    var k_n: f32;
    var k_t: f32;
    var gamma_t: f32;
    var mu: f32;
    var energy: f32;
    if (law.kind == LAW_HERTZ_MINDLIN) {
        k_n = hertz_elastic_force(law.hertz, g.r_star, g.delta) / g.delta;
        k_t = mindlin_stiffness(law.mindlin, g.r_star, g.delta);
        gamma_t = mindlin_damping(law.mindlin, k_t, g.m_star);
        mu = law.mindlin.mu;
        energy = hertz_energy(law.hertz, g.r_star, g.delta);
    } else if (law.kind == LAW_PLANE_REPULSION) {
        // Eq 6: normal only (k_t = γ_t = μ = 0 give no tangential force nor history).
        k_n = law.linear.k_n * g.delta;
        k_t = 0.0;
        gamma_t = 0.0;
        mu = 0.0;
        energy = plane_repulsion_energy(law.linear.k_n, g.delta);
    } else {
        k_n = law.linear.k_n;
        k_t = law.linear.k_t;
        gamma_t = linear_tangential_damping(law.linear, g.m_star);
        mu = law.linear.mu;
        energy = linear_energy(law.linear, g.delta);
    }
    let t = tangential_spring_force(k_t, gamma_t, mu * f_cap, n, v_t, dt, h.tangential);
    energy += mindlin_energy(k_t, t.history);
    var m_r = vec3<f32>(0.0);
    if (law.rolling.mu_r > 0.0) {
        m_r = rolling_torque(law.rolling, k_n, g.r_star, f_cap, n, g.w_rel, dt, h.rolling);
    }
    r.force = PairForce(n * f_n + t.force, f_n, m_r, energy);
    r.history = ContactHistory(t.history, 0.0, m_r, 0.0);
    return r;
}

// Branch vectors to the middle of the overlap: l_i = −(r_i − δ/2) n, l_j = (r_j − δ/2) n.
struct Branches {
    l_i: vec3<f32>,
    l_j: vec3<f32>,
}

fn branch_vectors(n: vec3<f32>, delta: f32, r_i: f32, r_j: f32) -> Branches {
    return Branches(n * -(r_i - 0.5 * delta), n * (r_j - 0.5 * delta));
}

struct PairGeometry {
    g: ContactGeometry,
    b: Branches,
}

fn v3_cross(a: vec3<f32>, b: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

// Geometry of spheres i and j (δ = 0 and zero vectors when apart).
fn sphere_pair_geometry(a: SphereState, b: SphereState) -> PairGeometry {
    var out: PairGeometry;
    let d = df3_sub(a.pos_hi, a.pos_lo, b.pos_hi, b.pos_lo);
    let dist = v3_norm(d);
    let delta = a.radius + b.radius - dist;
    if (delta <= 0.0 || dist <= 0.0) {
        return out;
    }
    let n = d * (1.0 / dist);
    let br = branch_vectors(n, delta, a.radius, b.radius);
    let v_i = a.vel + v3_cross(a.omega, br.l_i);
    let v_j = b.vel + v3_cross(b.omega, br.l_j);
    out.g = ContactGeometry(n, delta, v_i - v_j, a.radius * b.radius / (a.radius + b.radius), a.omega - b.omega,
        a.mass * b.mass / (a.mass + b.mass));
    out.b = br;
    return out;
}

// Force, torques, normal force and energy of one pair in a step (twin: cpu_stepper::PairOut).
struct PairOut {
    force: vec3<f32>,
    f_n: f32,
    torque_i: vec3<f32>,
    energy: f32,
    torque_j: vec3<f32>,
    _pad: f32,
}
