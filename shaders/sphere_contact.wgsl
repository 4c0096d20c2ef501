// sphere_contact.wgsl: the law of one contact from its geometry and history, `pair_force`, twin
// of src/spheres/contact.rs, and `pair_force_batch`, one thread per contact of a batch of
// geometries (what the GPU stepper's pair pass will call after forming the geometry).
// Includes sphere_state, hertz, mindlin, linear_spring_dashpot, rolling_resistance.

struct PairLaw {
    kind: u32,
    _pad0: u32,
    hertz: HertzParams,
    mindlin: MindlinParams,
    linear: LinearSpringDashpotParams,
    rolling: RollingParams,
    _pad1: vec2<u32>,
}

const LAW_HERTZ_MINDLIN: u32 = 0u;
const LAW_LINEAR: u32 = 1u;

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

fn pair_force(law: PairLaw, g: ContactGeometry, dt: f32, h: ContactHistory) -> PairResult {
    var r: PairResult;
    if (g.delta <= 0.0) {
        return r;
    }
    let n = g.normal;
    let delta_dot = -v3_dot(g.v_rel, n);
    let v_t = v3_tangential(g.v_rel, n);
    var f_n: f32;
    var k_n: f32;
    var k_t: f32;
    var gamma_t: f32;
    var mu: f32;
    var energy: f32;
    if (law.kind == LAW_HERTZ_MINDLIN) {
        f_n = hertz_normal_force(law.hertz, g.r_star, g.m_star, g.delta, delta_dot);
        k_n = hertz_elastic_force(law.hertz, g.r_star, g.delta) / g.delta;
        k_t = mindlin_stiffness(law.mindlin, g.r_star, g.delta);
        gamma_t = mindlin_damping(law.mindlin, k_t, g.m_star);
        mu = law.mindlin.mu;
        energy = hertz_energy(law.hertz, g.r_star, g.delta);
    } else {
        f_n = linear_normal_force(law.linear, g.m_star, g.delta, delta_dot);
        k_n = law.linear.k_n;
        k_t = law.linear.k_t;
        gamma_t = linear_tangential_damping(law.linear, g.m_star);
        mu = law.linear.mu;
        energy = linear_energy(law.linear, g.delta);
    }
    let t = tangential_spring_force(k_t, gamma_t, mu * f_n, n, v_t, dt, h.tangential);
    energy += mindlin_energy(k_t, t.history);
    var m_r = vec3<f32>(0.0);
    if (law.rolling.mu_r > 0.0) {
        m_r = rolling_torque(law.rolling, k_n, g.r_star, f_n, n, g.w_rel, dt, h.rolling);
    }
    r.force = PairForce(n * f_n + t.force, f_n, m_r, energy);
    r.history = ContactHistory(t.history, 0.0, m_r, 0.0);
    return r;
}

@group(0) @binding(1) var<storage, read> laws: array<PairLaw>;
@group(0) @binding(2) var<storage, read> geometry: array<ContactGeometry>;
@group(0) @binding(3) var<storage, read> law_index: array<u32>;
@group(0) @binding(4) var<storage, read_write> history: array<ContactHistory>;
@group(0) @binding(5) var<storage, read_write> result: array<PairForce>;

const PAIR_WG: u32 = 64u;

// One contact per thread: result[k] and the new history[k] (twin: contact::pair_force).
@compute @workgroup_size(64)
fn pair_force_batch(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(wid, lid, nwg, PAIR_WG);
    if (k >= sp.n_items) {
        return;
    }
    let out = pair_force(laws[law_index[k]], geometry[k], sp.dt, history[k]);
    result[k] = out.force;
    history[k] = out.history;
}
