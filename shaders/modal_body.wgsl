// modal_body.wgsl: per body, the generalized forces (eq 26–28) gathered in a fixed order from the
// body's own node slots and from the reaction slots of its neighbours' nodes, then the explicit
// step of eq 42–44 (modal_body_update: one invocation per body); per wall, the total wall force by
// the fixed-order reduction of fixed_reduce.wgsl, and the step counter (modal_walls_clock: one
// workgroup per wall; wall kinematics read the counter). Twins: src/modal/cpu.rs
// modal_body_update, modal_wall_force, modal_body_pass.

#import modal_lib
#import fixed_reduce

fn table_force(first: u32, len: u32, eps: f32) -> f32 {
    let a = abs(eps);
    var i = 0u;
    loop {
        if (!(i + 2u < len && a > tables[first + 2u * (i + 1u)])) {
            break;
        }
        i = i + 1u;
    }
    let e0 = tables[first + 2u * i];
    let f0 = tables[first + 2u * i + 1u];
    let e1 = tables[first + 2u * (i + 1u)];
    let f1 = tables[first + 2u * (i + 1u) + 1u];
    let f = f0 + (f1 - f0) * ((a - e0) / (e1 - e0));
    if (eps < 0.0) {
        return -f;
    }
    return f;
}

fn modal_body_update_one(b: u32) {
    var g = modal_generalized_force(b);
    // Gravity on the rigid part, M g at X (zero unless a stage sets it; exact for modes with
    // ∫ρ Φ = 0, checked by the host).
    if (params.gravity[0] != 0.0 || params.gravity[1] != 0.0) {
        g.f.x = g.f.x + bodies[b].mass * params.gravity[0];
        g.f.y = g.f.y + bodies[b].mass * params.gravity[1];
    }
    modal_integrate(b, g);
}

// Generalized forces of a body (eq 26–28). Twin: cpu::GeneralizedForce.
struct GeneralizedForce {
    f: vec2<f32>,
    tau: f32,
    fe: array<f32, 4>,
}

// Body b as its generalized forces see it: its record and state, its n modes and its frame
// (c, s) = (cos Θ, sin Θ) from sin_cos_det. Twin: cpu::body_frame.
struct BodyFrame {
    br: ModalBodyRec,
    st: ModalState,
    n: u32,
    c: f32,
    s: f32,
}

fn body_frame(b: u32) -> BodyFrame {
    let br = bodies[b];
    let st = state[b];
    let sc = sin_cos_det(st.theta);
    return BodyFrame(br, st, br.n_modes, sc.y, sc.x);
}

// eq 26–28: force f on surface node nd (arm rel = R(p + ε_α Φ_α), global frame) into the
// generalized forces of its body (frame fr). Twin: cpu::add_node_force.
fn add_node_force(g: ptr<function, GeneralizedForce>, fr: BodyFrame, nd: ModalNodeRec, rel: vec2<f32>,
                  f: array<f32, 2>) {
    let c = fr.c;
    let s = fr.s;
    (*g).f.x = (*g).f.x + f[0];
    (*g).f.y = (*g).f.y + f[1];
    // eq 27: (R q) × f.
    (*g).tau = (*g).tau + (rel.x * f[1] - rel.y * f[0]);
    // eq 28 with the global → local mapping.
    let fl = rot_t(c, s, vec2<f32>(f[0], f[1]));
    for (var a = 0u; a < fr.n; a = a + 1u) {
        (*g).fe[a] = (*g).fe[a] + (nd.phi[2u * a] * fl.x + nd.phi[2u * a + 1u] * fl.y);
    }
}

// eq 26–28: the reaction −f of a point's contact slot o with body b (frame fr; contact point q,
// pullback point p_ref, both in b's frame) into b's generalized forces. Twin: cpu::add_reaction.
fn add_reaction(g: ptr<function, GeneralizedForce>, fr: BodyFrame, b: u32, o: ModalSlot) {
    let c = fr.c;
    let s = fr.s;
    let r = vec2<f32>(-o.force[0], -o.force[1]);
    let arm = rot(c, s, vec2<f32>(o.q[0], o.q[1]));
    (*g).f.x = (*g).f.x + r.x;
    (*g).f.y = (*g).f.y + r.y;
    (*g).tau = (*g).tau + (arm.x * r.y - arm.y * r.x);
    let fl = rot_t(c, s, r);
    for (var a = 0u; a < fr.n; a = a + 1u) {
        let phi = mode_eval(b, a, vec2<f32>(o.p_ref[0], o.p_ref[1]));
        (*g).fe[a] = (*g).fe[a] + (phi.x * fl.x + phi.y * fl.y);
    }
}

// F, τ, F_ε of body b from its own nodes' slots, then the reactions of the slots that point to
// it (body_rx, in slot order).
fn modal_generalized_force(b: u32) -> GeneralizedForce {
    let fr = body_frame(b);
    let br = fr.br;
    var g: GeneralizedForce;
    g.f = vec2<f32>(0.0, 0.0);
    g.tau = 0.0;
    g.fe = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
    for (var k = br.node_first; k < br.node_first + br.node_count; k = k + 1u) {
        let nd = nodes[k];
        let rel = node_arm(fr.st, k, fr.c, fr.s);
        for (var sl = slot_start[k]; sl < slot_start[k + 1u]; sl = sl + 1u) {
            let o = slots[sl];
            if (o.flag != 0u) {
                add_node_force(&g, fr, nd, rel, o.force);
            }
        }
    }
    for (var j = body_rx[b]; j < body_rx[b + 1u]; j = j + 1u) {
        let o = slots[body_rx[j]];
        if (o.flag != 0u) {
            add_reaction(&g, fr, b, o);
        }
    }
    return g;
}

// The explicit step of eq 42–44 of body b under the generalized forces g.
fn modal_integrate(b: u32, g: GeneralizedForce) {
    let br = bodies[b];
    var st = state[b];
    let n = br.n_modes;
    let f = g.f;
    let tau = g.tau;
    let fe = g.fe;
    // eq 42, 43 (semi-implicit Euler) with rigid damping.
    let v = vec2<f32>(st.v[0] + params.dt * (f.x / br.mass - br.rigid_damping * st.v[0]),
                      st.v[1] + params.dt * (f.y / br.mass - br.rigid_damping * st.v[1]));
    let omega = st.omega + params.dt * (tau / br.inertia - br.rigid_damping * st.omega);
    // eq 44: M ε̈ = F_ε − F_int(ε) − C ε̇.
    var rhs = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
    for (var a = 0u; a < n; a = a + 1u) {
        var fint = 0.0;
        if (br.stiff_kind == STIFF_TABLE) {
            fint = table_force(br.table_first, br.table_len, st.eps[0]);
        } else {
            for (var q = 0u; q < n; q = q + 1u) {
                fint = fint + br.k[a * 4u + q] * st.eps[q];
            }
        }
        var damp = 0.0;
        for (var q = 0u; q < n; q = q + 1u) {
            damp = damp + br.c[a * 4u + q] * st.eps_dot[q];
        }
        rhs[a] = fe[a] - fint - damp;
    }
    var eps_dot = st.eps_dot;
    for (var a = 0u; a < n; a = a + 1u) {
        var acc = 0.0;
        for (var q = 0u; q < n; q = q + 1u) {
            acc = acc + br.minv[a * 4u + q] * rhs[q];
        }
        eps_dot[a] = st.eps_dot[a] + params.dt * acc;
    }
    for (var a = 0u; a < n; a = a + 1u) {
        st.eps[a] = st.eps[a] + params.dt * eps_dot[a];
    }
    st.eps_dot = eps_dot;
    let x = df_add(st.x_hi[0], st.x_lo[0], params.dt * v.x);
    let y = df_add(st.x_hi[1], st.x_lo[1], params.dt * v.y);
    st.x_hi = array<f32, 2>(x.x, y.x);
    st.x_lo = array<f32, 2>(x.y, y.y);
    st.v = array<f32, 2>(v.x, v.y);
    st.theta = st.theta + params.dt * omega;
    st.omega = omega;
    state[b] = st;
}

// Total force on wall w, −Σ_k slot force over every surface node k whose wall slot is active: one
// workgroup of REDUCE_LANES lanes, lane t takes nodes t, t + L, t + 2L, … in increasing order, then
// the fixed tree of fixed_reduce.wgsl (twin: cpu::modal_wall_force, bit for bit). The nodes are a
// fixed list, so a resumed run sums in the uninterrupted run's order. Each lane reads n_nodes / L
// slots (one thread read all n_nodes before); adjacent lanes read adjacent nodes' offsets.
fn modal_wall_force_one(w: u32, lane: u32) {
    var f = vec3<f32>(0.0);
    for (var k = lane; k < params.n_nodes; k = k + REDUCE_LANES) {
        let o = slots[slot_start[k] + w];
        if (o.flag != 0u) {
            f = f - vec3<f32>(o.force[0], o.force[1], 0.0);
        }
    }
    let total = reduce_tree1(lane, f);
    if (lane == 0u) {
        wall_force[2u * w] = total.x;
        wall_force[2u * w + 1u] = total.y;
    }
}

// Thread i of a body pass (modal_body_update, modal_body_update_coupled): body i, NONE past the
// bodies (the walls have their own workgroups in modal_walls_clock). Twin: cpu::modal_body_pass.
fn modal_body_pass_thread(i: u32) -> u32 {
    if (i < params.n_bodies) {
        return i;
    }
    return NONE;
}

@compute @workgroup_size(64)
fn modal_body_update(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = modal_body_pass_thread(linear_id(wid, lid, nwg, 64u));
    if (b != NONE) {
        modal_body_update_one(b);
    }
}

// After a body pass (modal_body_update or modal_body_update_coupled; both read the same slots):
// workgroup w reduces wall w's force (max(n_walls, 1) workgroups dispatched), and the first
// invocation advances the step counter — one dispatch for both, as the counter's alone was.
@compute @workgroup_size(256)
fn modal_walls_clock(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let w = wid.x;
    if (w == 0u && lid.x == 0u) {
        clock[0] = clock[0] + 1u;
    }
    if (w < params.n_walls) {
        modal_wall_force_one(w, lid.x);
    }
}
