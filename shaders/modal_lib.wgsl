// modal_lib.wgsl: records, bindings and per-point functions of the modal (deformable LS-DEM)
// engine. Twins: src/modal/layout.rs (records), src/modal/contact.rs (functions, same names and
// order of operations). Imported by modal_contact.wgsl, modal_body.wgsl and
// modal_spd_contact.wgsl.

#import common
#import df32
#import spd_records

const MODE_BENDING: u32 = 0u;
const MODE_GRID: u32 = 1u;
const STIFF_LINEAR: u32 = 0u;
const STIFF_TABLE: u32 = 1u;
const WALL_LINE: u32 = 0u;
const WALL_CIRCLE: u32 = 1u;
const QUERY_PULLBACK: u32 = 0u;
const QUERY_PRECOMPUTED: u32 = 1u;
const MODAL_PI: f32 = 3.14159265358979;

struct ModalParams {
    dt: f32,
    n_nodes: u32,
    n_bodies: u32,
    n_walls: u32,
    slots: u32,
    k_n: f32,
    c_n: f32,
    k_t: f32,
    mu: f32,
    opaque_zero: u32,
    gravity: array<f32, 2>,
    n_materials: u32,
    pad: array<u32, 3>,
}

struct ModalBodyRec {
    node_first: u32,
    node_count: u32,
    n_modes: u32,
    mode_first: u32,
    ls_first: u32,
    nx: u32,
    ny: u32,
    stiff_kind: u32,
    origin: array<f32, 2>,
    h: f32,
    mass: f32,
    inertia: f32,
    rigid_damping: f32,
    bound_radius: f32,
    table_first: u32,
    table_len: u32,
    contact_material: u32,
    minv: array<f32, 16>,
    k: array<f32, 16>,
    c: array<f32, 16>,
}

struct ModalModeRec {
    kind: u32,
    grid_first: u32,
    length: f32,
    x_left: f32,
    y_mid: f32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

struct ModalNodeRec {
    body: u32,
    pad: u32,
    p: array<f32, 2>,
    phi: array<f32, 8>,
}

struct ModalState {
    x_hi: array<f32, 2>,
    x_lo: array<f32, 2>,
    v: array<f32, 2>,
    theta: f32,
    omega: f32,
    eps: array<f32, 4>,
    eps_dot: array<f32, 4>,
}

struct ModalWallRec {
    kind: u32,
    pad: u32,
    p0: array<f32, 2>,
    normal: array<f32, 2>,
    velocity: array<f32, 2>,
    radius: f32,
    pad1: u32,
}

// Twin: layout::ModalQueryRec.
struct ModalQueryRec {
    kind: u32,
    n_samples: u32,
    samples_first: u32,
    fields_first: u32,
}

struct ModalSlot {
    force: array<f32, 2>,
    q: array<f32, 2>,
    p_ref: array<f32, 2>,
    hist: array<f32, 2>,
    partner: u32,
    flag: u32,
}

@group(0) @binding(0) var<storage, read> params: ModalParams;
@group(0) @binding(1) var<storage, read> bodies: array<ModalBodyRec>;
@group(0) @binding(2) var<storage, read> modes: array<ModalModeRec>;
@group(0) @binding(3) var<storage, read> mode_grid: array<f32>;
@group(0) @binding(4) var<storage, read> phi0: array<f32>;
@group(0) @binding(5) var<storage, read> nodes: array<ModalNodeRec>;
@group(0) @binding(6) var<storage, read> walls: array<ModalWallRec>;
@group(0) @binding(7) var<storage, read> tables: array<f32>;
@group(0) @binding(8) var<storage, read_write> state: array<ModalState>;
// The candidates of the last list build, CSR lists in one array each (offsets absolute into it;
// twins: modal::backend::Dynamic::node_cand, body_rx): surface node k's candidate neighbour
// bodies node_cand[node_cand[k]..node_cand[k + 1]] (its slots after its walls, in that order);
// body b's reactions, the pool slots that point to it, body_rx[body_rx[b]..body_rx[b + 1]].
@group(0) @binding(9) var<storage, read> node_cand: array<u32>;
@group(0) @binding(10) var<storage, read> body_rx: array<u32>;
@group(0) @binding(11) var<storage, read_write> slots: array<ModalSlot>;
@group(0) @binding(12) var<storage, read_write> clock: array<u32>;
@group(0) @binding(13) var<storage, read_write> wall_force: array<f32>;
// Level-set query per body and the precomputed fields (eq 49–50); high binding numbers keep
// room below for other additions.
@group(0) @binding(24) var<storage, read> ls_queries: array<ModalQueryRec>;
@group(0) @binding(25) var<storage, read> pre_ls: array<f32>;
// The contact law of every ordered pair of contact materials (entry a·n + b; twin: Packed::laws).
@group(0) @binding(26) var<storage, read> modal_laws: array<ContactLaw>;
// The slot pool's offsets (twin: broad_phase::pool::SlotPool::start): surface node k's slots are
// slots[slot_start[k] .. slot_start[k + 1]], its walls first, then one per neighbour listed for
// its body (list order).
@group(0) @binding(27) var<storage, read> slot_start: array<u32>;

// The runtime zero behind `opaque` and `df_add` (df32.wgsl).
fn opaque_zero() -> u32 {
    return params.opaque_zero;
}

// (sin x, cos x) from +, −, × only (twin: contact::sin_cos_det); products kept unfused by opaque().
fn sin_cos_det(x: f32) -> vec2<f32> {
    let k = round(x * 0.63661977236758134);
    let r = opaque(x - opaque(k * 1.5707964)) - opaque(k * -4.371139e-8);
    let r2 = opaque(r * r);
    var ps = 1.0 / 362880.0;
    ps = opaque(ps * r2) - 1.0 / 5040.0;
    ps = opaque(ps * r2) + 1.0 / 120.0;
    ps = opaque(ps * r2) - 1.0 / 6.0;
    let sn = r + opaque(opaque(r * r2) * ps);
    var pc = 1.0 / 40320.0;
    pc = opaque(pc * r2) - 1.0 / 720.0;
    pc = opaque(pc * r2) + 1.0 / 24.0;
    pc = opaque(pc * r2) - 0.5;
    let cs = 1.0 + opaque(r2 * pc);
    let q = u32(i32(k) & 3);
    if (q == 0u) {
        return vec2<f32>(sn, cs);
    } else if (q == 1u) {
        return vec2<f32>(cs, -sn);
    } else if (q == 2u) {
        return vec2<f32>(-sn, -cs);
    }
    return vec2<f32>(-cs, sn);
}

// R v and Rᵀ v. Products unfused (opaque): node positions and contact points q come from these,
// and the contact decisions (gap < 0, q's level-set cell, on the grid) read them.
fn rot(c: f32, s: f32, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(opaque(c * v.x) - opaque(s * v.y), opaque(s * v.x) + opaque(c * v.y));
}

fn rot_t(c: f32, s: f32, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(opaque(c * v.x) + opaque(s * v.y), opaque(c * v.y) - opaque(s * v.x));
}

// Surface node k's position relative to X in the global frame, R(Θ)(p + ε_α Φ_α(p)) (eq 1), with
// (s, c) = sin_cos_det(Θ) computed once by the caller. Twin: modal::cpu::node_arm.
fn node_arm(st: ModalState, k: u32, c: f32, s: f32) -> vec2<f32> {
    let nd = nodes[k];
    var loc = vec2<f32>(nd.p[0], nd.p[1]);
    for (var a = 0u; a < bodies[nd.body].n_modes; a = a + 1u) {
        // Unfused: the node's position decides its wall and body contacts.
        loc.x = loc.x + opaque(st.eps[a] * nd.phi[2u * a]);
        loc.y = loc.y + opaque(st.eps[a] * nd.phi[2u * a + 1u]);
    }
    return rot(c, s, loc);
}

// Surface node k of a body in state st: position relative to X in the global frame and velocity
// (eq 1 and its rate). Twin: modal::cpu::node_kinematics.
struct NodeKin {
    rel: vec2<f32>,
    vel: vec2<f32>,
}

fn node_kinematics(st: ModalState, k: u32) -> NodeKin {
    let nd = nodes[k];
    let sc = sin_cos_det(st.theta);
    let rel = node_arm(st, k, sc.y, sc.x);
    var vloc = vec2<f32>(0.0, 0.0);
    for (var a = 0u; a < bodies[nd.body].n_modes; a = a + 1u) {
        vloc.x = vloc.x + opaque(st.eps_dot[a] * nd.phi[2u * a]);
        vloc.y = vloc.y + opaque(st.eps_dot[a] * nd.phi[2u * a + 1u]);
    }
    let vg = rot(sc.y, sc.x, vloc);
    // Unfused: the velocity's normal part decides the dashpot's clamp (contact_law).
    return NodeKin(rel, vec2<f32>(st.v[0] - opaque(st.omega * rel.y) + vg.x, st.v[1] + opaque(st.omega * rel.x) + vg.y));
}

// Surface node k as a contact point: its body, the body's state, its position relative to X
// (global frame) and velocity (node_kinematics), its position x_hi + x_lo (x_lo carries the arm).
// Twin: modal::cpu::surface_point.
struct SurfacePoint {
    body: u32,
    st: ModalState,
    rel: vec2<f32>,
    vel: vec2<f32>,
    x_hi: vec2<f32>,
    x_lo: vec2<f32>,
}

fn surface_point(k: u32) -> SurfacePoint {
    let b = nodes[k].body;
    let st = state[b];
    let kin = node_kinematics(st, k);
    let x_hi = vec2<f32>(st.x_hi[0], st.x_hi[1]);
    let x_lo = vec2<f32>(st.x_lo[0] + kin.rel.x, st.x_lo[1] + kin.rel.y);
    return SurfacePoint(b, st, kin.rel, kin.vel, x_hi, x_lo);
}

// 2D eq 51 (src/modal/modes.rs bending_mode).
fn bending_mode(length: f32, x_left: f32, y_mid: f32, p: vec2<f32>) -> vec2<f32> {
    let k = MODAL_PI / length;
    let a = k * (p.x - x_left);
    let z = p.y - y_mid;
    let sc = sin_cos_det(a);
    return vec2<f32>(z * k * sc.y, -sc.x);
}

// p's cell of body b's level-set grid with p clamped into the grid (a point just outside reads the
// boundary cell's extension): corner (i, j) and fractions (fx, fy). Twin: level_set::ls_clamped_cell.
fn ls_clamped_cell(b: u32, p: vec2<f32>) -> LsCell {
    let br = bodies[b];
    let gx = clamp((p.x - br.origin[0]) / br.h, 0.0, f32(br.nx - 1u));
    let gy = clamp((p.y - br.origin[1]) / br.h, 0.0, f32(br.ny - 1u));
    let i = min(u32(floor(gx)), br.nx - 2u);
    let j = min(u32(floor(gy)), br.ny - 2u);
    return LsCell(i, j, gx - f32(i), gy - f32(j), true);
}

// Bilinear interpolation of φ0 of body b at p (clamped to the grid). Twin: level_set::ls_bilinear.
fn ls_bilinear(b: u32, p: vec2<f32>) -> f32 {
    let br = bodies[b];
    let cell = ls_clamped_cell(b, p);
    let o = br.ls_first + cell.j * br.nx + cell.i;
    let v = vec4<f32>(phi0[o], phi0[o + 1u], phi0[o + br.nx], phi0[o + br.nx + 1u]);
    return ls_interp(v, cell.fx, cell.fy, br.h).x;
}

// Component c of a tabulated mode (interleaved pairs from `first`) at p. Twin:
// contact::ls_bilinear_pair.
fn ls_bilinear_pair(b: u32, first: u32, c: u32, p: vec2<f32>) -> f32 {
    let br = bodies[b];
    let cell = ls_clamped_cell(b, p);
    let o = first + 2u * (cell.j * br.nx + cell.i) + c;
    let w = 2u * br.nx;
    let v = vec4<f32>(mode_grid[o], mode_grid[o + 2u], mode_grid[o + w], mode_grid[o + w + 2u]);
    return ls_interp(v, cell.fx, cell.fy, br.h).x;
}

fn mode_eval(b: u32, m: u32, p: vec2<f32>) -> vec2<f32> {
    let mr = modes[bodies[b].mode_first + m];
    if (mr.kind == MODE_BENDING) {
        return bending_mode(mr.length, mr.x_left, mr.y_mid, p);
    }
    return vec2<f32>(ls_bilinear_pair(b, mr.grid_first, 0u, p), ls_bilinear_pair(b, mr.grid_first, 1u, p));
}

fn mode_at_node(b: u32, m: u32, i: u32, j: u32) -> vec2<f32> {
    let br = bodies[b];
    let mr = modes[br.mode_first + m];
    if (mr.kind == MODE_BENDING) {
        // Unfused: sin_cos_det's quadrant (round) reads p.
        let p = vec2<f32>(br.origin[0] + opaque(f32(i) * br.h), br.origin[1] + opaque(f32(j) * br.h));
        return bending_mode(mr.length, mr.x_left, mr.y_mid, p);
    }
    let o = mr.grid_first + 2u * (j * br.nx + i);
    return vec2<f32>(mode_grid[o], mode_grid[o + 1u]);
}

// u(p) = Σ ε_α Φ_α(p) (eq 1); `e` the amplitudes (or their rates). Products unfused: u moves the
// pullback corners and p_ref, whose level-set cells (ls_clamped_cell) are decisions.
fn displacement(b: u32, e: vec4<f32>, p: vec2<f32>) -> vec2<f32> {
    var u = vec2<f32>(0.0, 0.0);
    for (var m = 0u; m < min(bodies[b].n_modes, 4u); m = m + 1u) {
        let f = mode_eval(b, m, p);
        u.x = u.x + opaque(e[m] * f.x);
        u.y = u.y + opaque(e[m] * f.y);
    }
    return u;
}

fn displacement_at_node(b: u32, e: vec4<f32>, i: u32, j: u32) -> vec2<f32> {
    var u = vec2<f32>(0.0, 0.0);
    for (var m = 0u; m < min(bodies[b].n_modes, 4u); m = m + 1u) {
        let f = mode_at_node(b, m, i, j);
        u.x = u.x + opaque(e[m] * f.x);
        u.y = u.y + opaque(e[m] * f.y);
    }
    return u;
}

// q's cell of body b's level-set grid: corner (i, j), q's fractions (fx, fy) in it, and whether
// q lies on the grid (no contact possible off it). Twin: contact::ls_cell.
struct LsCell {
    i: u32,
    j: u32,
    fx: f32,
    fy: f32,
    inside: bool,
}

fn ls_cell(b: u32, q: vec2<f32>) -> LsCell {
    let br = bodies[b];
    let gx = (q.x - br.origin[0]) / br.h;
    let gy = (q.y - br.origin[1]) / br.h;
    if (!(gx >= 0.0 && gy >= 0.0 && gx < f32(br.nx - 1u) && gy < f32(br.ny - 1u))) {
        return LsCell(0u, 0u, 0.0, 0.0, false);
    }
    let i = u32(floor(gx));
    let j = u32(floor(gy));
    return LsCell(i, j, gx - f32(i), gy - f32(j), true);
}

// Bilinear interpolation of the corner values v ((i, j), (i+1, j), (i, j+1), (i+1, j+1)) at
// fractions (fx, fy) of a cell of spacing h: (φ, ∂φ/∂x, ∂φ/∂y, 1). Twin: contact::ls_interp.
fn ls_interp(v: vec4<f32>, fx: f32, fy: f32, h: f32) -> vec4<f32> {
    // Unfused: φ decides contact (gap < 0), the gradient's length the normal's fallback.
    let a = opaque(v[0] * (1.0 - fx)) + opaque(v[1] * fx);
    let b = opaque(v[2] * (1.0 - fx)) + opaque(v[3] * fx);
    let phi = opaque(a * (1.0 - fy)) + opaque(b * fy);
    let dx = (opaque((v[1] - v[0]) * (1.0 - fy)) + opaque((v[3] - v[2]) * fy)) / h;
    let dy = (opaque((v[2] - v[0]) * (1.0 - fx)) + opaque((v[3] - v[1]) * fx)) / h;
    return vec4<f32>(phi, dx, dy, 1.0);
}

// Deformed level set of body b at q (body frame): (φ, ∂φ/∂x, ∂φ/∂y, inside grid), eq 47–48
// evaluated on demand at the four corners of q's cell.
fn ls_pullback(b: u32, e: vec4<f32>, q: vec2<f32>) -> vec4<f32> {
    let br = bodies[b];
    let cell = ls_cell(b, q);
    if (!cell.inside) {
        return vec4<f32>(1.0e30, 0.0, 0.0, 0.0);
    }
    var v = vec4<f32>(0.0, 0.0, 0.0, 0.0);
    for (var c = 0u; c < 4u; c = c + 1u) {
        let di = c & 1u;
        let dj = c >> 1u;
        let u = displacement_at_node(b, e, cell.i + di, cell.j + dj);
        // eq 47: x_ref = x − u(x) at the corner; eq 48: φ(x) = φ0(x_ref).
        // Unfused: the corner's cell in φ0 (ls_clamped_cell) is a decision.
        let cx = br.origin[0] + opaque(f32(cell.i + di) * br.h) - u.x;
        let cy = br.origin[1] + opaque(f32(cell.j + dj) * br.h) - u.y;
        v[c] = ls_bilinear(b, vec2<f32>(cx, cy));
    }
    return ls_interp(v, cell.fx, cell.fy, br.h);
}

// Interval i and weight t of ε among the samples (eq 49 hat weights), clamped to the sampled
// range. Twin: precomputed::pre_interval.
fn pre_interval(first: u32, n: u32, eps: f32) -> vec2<f32> {
    var i = 0u;
    while (i + 2u < n && eps > pre_ls[first + i + 1u]) {
        i = i + 1u;
    }
    let s0 = pre_ls[first + i];
    let s1 = pre_ls[first + i + 1u];
    let t = clamp((eps - s0) / (s1 - s0), 0.0, 1.0);
    return vec2<f32>(f32(i), t);
}

// Deformed level set of body b at q from the precomputed fields (§3.1.4): at each corner c of
// q's cell, φ(c) = Σ_α [(1 − t_α) φ_{α,i}(c) + t_α φ_{α,i+1}(c)] − (N_modes − 1) φ0(c)
// (eq 49–50), then bilinear interpolation as in ls_pullback. Twin: precomputed::ls_precomputed.
fn ls_precomputed(b: u32, e: vec4<f32>, q: vec2<f32>) -> vec4<f32> {
    let br = bodies[b];
    let qr = ls_queries[b];
    let cell = ls_cell(b, q);
    if (!cell.inside) {
        return vec4<f32>(1.0e30, 0.0, 0.0, 0.0);
    }
    let len = br.nx * br.ny;
    let ns = qr.n_samples;
    let nm = min(br.n_modes, 4u);
    var v = vec4<f32>(0.0, 0.0, 0.0, 0.0);
    for (var c = 0u; c < 4u; c = c + 1u) {
        let node = (cell.j + (c >> 1u)) * br.nx + cell.i + (c & 1u);
        var acc = 0.0;
        for (var a = 0u; a < nm; a = a + 1u) {
            let it = pre_interval(qr.samples_first, ns, e[a]);
            let t = it.y;
            let f0 = qr.fields_first + (a * ns + u32(it.x)) * len + node;
            // eq 49: hat weights between the two samples around ε_α.
            acc = acc + (opaque((1.0 - t) * pre_ls[f0]) + opaque(t * pre_ls[f0 + len]));
        }
        // eq 50: superposition of the modes' changes of φ0 (unfused: φ decides contact).
        v[c] = acc - opaque((f32(nm) - 1.0) * phi0[br.ls_first + node]);
    }
    return ls_interp(v, cell.fx, cell.fy, br.h);
}

// Deformed level set of body j at q by the body's query method (pullback, eq 47–48, or
// precomputed level sets, eq 49–50). Twin: contact::ls_query.
fn ls_query(j: u32, e: vec4<f32>, q: vec2<f32>) -> vec4<f32> {
    if (ls_queries[j].kind == QUERY_PRECOMPUTED) {
        return ls_precomputed(j, e, q);
    }
    return ls_pullback(j, e, q);
}

struct ContactOut {
    force: vec2<f32>,
    hist: vec2<f32>,
    flag: u32,
}

// The law of a contact between contact materials a and b (twin: Packed::pair_law).
fn pair_law(a: u32, b: u32) -> ContactLaw {
    return modal_laws[a * params.n_materials + b];
}

// The walls' law, `[contact]` (twin: ModalParams::wall_law).
fn wall_law() -> ContactLaw {
    return ContactLaw(params.k_n, params.k_t, params.mu, params.c_n);
}

// Penalty normal force with dashpot, tangential spring with history and Coulomb cap; `law`: the
// pair's entry of the law table or the walls' law.
fn contact_law(law: ContactLaw, gap: f32, n: vec2<f32>, vrel: vec2<f32>, hist: vec2<f32>) -> ContactOut {
    var out: ContactOut;
    out.force = vec2<f32>(0.0, 0.0);
    out.hist = vec2<f32>(0.0, 0.0);
    out.flag = 0u;
    if (gap >= 0.0) {
        return out;
    }
    // Products unfused (opaque): the normal force's clamp at 0 and sticking vs sliding
    // (ftl > lim) are decisions, rounded here as the CPU twin rounds them.
    let vn = opaque(vrel.x * n.x) + opaque(vrel.y * n.y);
    let fnorm = max(-opaque(law.k_n * gap) - opaque(law.c_n * vn), 0.0);
    let vt = vec2<f32>(vrel.x - opaque(vn * n.x), vrel.y - opaque(vn * n.y));
    let hn = opaque(hist.x * n.x) + opaque(hist.y * n.y);
    var ht = vec2<f32>(hist.x - opaque(hn * n.x) + opaque(vt.x * params.dt),
                       hist.y - opaque(hn * n.y) + opaque(vt.y * params.dt));
    var ft = vec2<f32>(-law.k_t * ht.x, -law.k_t * ht.y);
    let ftl = sqrt(opaque(ft.x * ft.x) + opaque(ft.y * ft.y));
    let lim = law.mu * fnorm;
    if (ftl > lim) {
        let r = lim / ftl;
        ft = vec2<f32>(ft.x * r, ft.y * r);
        ht = vec2<f32>(-ft.x / law.k_t, -ft.y / law.k_t);
    }
    out.force = vec2<f32>(opaque(n.x * fnorm) + ft.x, opaque(n.y * fnorm) + ft.y);
    out.hist = ht;
    out.flag = 1u;
    return out;
}

// Wall w's reference point at time t (unfused: the wall's position decides its contacts).
fn wall_point(w: u32, t: f32) -> vec2<f32> {
    let wr = walls[w];
    return vec2<f32>(wr.p0[0] + opaque(wr.velocity[0] * t), wr.p0[1] + opaque(wr.velocity[1] * t));
}

// A point x_hi + x_lo with velocity vel against wall w at time t.
fn node_vs_wall(w: u32, t: f32, x_hi: vec2<f32>, x_lo: vec2<f32>, vel: vec2<f32>, hist: vec2<f32>) -> ContactOut {
    let wr = walls[w];
    let wp = wall_point(w, t);
    let d = vec2<f32>((x_hi.x - wp.x) + x_lo.x, (x_hi.y - wp.y) + x_lo.y);
    var gap: f32;
    var n = vec2<f32>(wr.normal[0], wr.normal[1]);
    if (wr.kind == WALL_LINE) {
        gap = opaque(d.x * wr.normal[0]) + opaque(d.y * wr.normal[1]);
    } else {
        let dist = sqrt(opaque(d.x * d.x) + opaque(d.y * d.y));
        gap = dist - wr.radius;
        if (dist > 0.0) {
            n = vec2<f32>(d.x / dist, d.y / dist);
        }
    }
    let vrel = vec2<f32>(vel.x - wr.velocity[0], vel.y - wr.velocity[1]);
    return contact_law(wall_law(), gap, n, vrel, hist);
}

struct BodyContact {
    c: ContactOut,
    q: vec2<f32>,
    p_ref: vec2<f32>,
}

// A point of radius r (§3.2: gap = φ − r; a modal surface node has r = 0, an SPD node its
// half-thickness; d: its centre relative to X_j, global frame; velocity vel) against body j's
// deformed level set; q: the centre in j's frame, p_ref = q − u(q) (eq 47); `material`: the
// point's contact material (the law: the table's entry for it and j's). Twin:
// modal::contact::point_vs_body.
fn point_vs_body(j: u32, d: vec2<f32>, vel: vec2<f32>, hist: vec2<f32>, r: f32, material: u32) -> BodyContact {
    var out: BodyContact;
    out.c.force = vec2<f32>(0.0, 0.0);
    out.c.hist = vec2<f32>(0.0, 0.0);
    out.c.flag = 0u;
    out.q = vec2<f32>(0.0, 0.0);
    out.p_ref = vec2<f32>(0.0, 0.0);
    let bj = bodies[j];
    let sj = state[j];
    let reach = bj.bound_radius + r;
    if (opaque(d.x * d.x) + opaque(d.y * d.y) > reach * reach) {
        return out;
    }
    let scj = sin_cos_det(sj.theta);
    let c = scj.y;
    let s = scj.x;
    let q = rot_t(c, s, d);
    out.q = q;
    let e = vec4<f32>(sj.eps[0], sj.eps[1], sj.eps[2], sj.eps[3]);
    let ls = ls_query(j, e, q);
    let gap = ls.x - r;
    if (ls.w == 0.0 || gap >= 0.0) {
        return out;
    }
    let gl = sqrt(opaque(ls.y * ls.y) + opaque(ls.z * ls.z));
    var nl = vec2<f32>(1.0, 0.0);
    if (gl > 0.0) {
        nl = vec2<f32>(ls.y / gl, ls.z / gl);
    }
    let n = rot(c, s, nl);
    let u = displacement(j, e, q);
    let p_ref = vec2<f32>(q.x - u.x, q.y - u.y);
    let ed = vec4<f32>(sj.eps_dot[0], sj.eps_dot[1], sj.eps_dot[2], sj.eps_dot[3]);
    let ud = displacement(j, ed, p_ref);
    let udg = rot(c, s, ud);
    let vj = vec2<f32>(sj.v[0] - opaque(sj.omega * d.y) + udg.x, sj.v[1] + opaque(sj.omega * d.x) + udg.y);
    let vrel = vec2<f32>(vel.x - vj.x, vel.y - vj.y);
    out.c = contact_law(pair_law(material, bj.contact_material), gap, n, vrel, hist);
    out.p_ref = p_ref;
    return out;
}

// The slot a point's contact with body `partner` leaves (force, contact point q and pullback
// point p_ref in the partner's frame, friction history), for a modal surface node or an SPD node
// alike. Twin: modal::contact::body_contact_slot.
fn body_contact_slot(o: BodyContact, partner: u32) -> ModalSlot {
    var sl: ModalSlot;
    sl.force = array<f32, 2>(o.c.force.x, o.c.force.y);
    sl.q = array<f32, 2>(o.q.x, o.q.y);
    sl.p_ref = array<f32, 2>(o.p_ref.x, o.p_ref.y);
    sl.hist = array<f32, 2>(o.c.hist.x, o.c.hist.y);
    sl.partner = partner;
    sl.flag = o.c.flag;
    return sl;
}
