// membrane_rims.wgsl: a membrane's rims on their platens after every step, twins of
// src/membrane/rims.rs (same names, same order): hold_rims (one thread per rim vertex: pinned,
// x = x₀ + (w − w₀); sliding, z and v_z of the wall; or stopped, sliding and then not inside
// the cap radius R_cap from the wall's axis: the rim stop), then rim_servo_area (one thread: the
// servo platen's area from its rim). Recorded after each step's closing kick by the GPU sphere
// stepper (`GpuExtraForces::record_after_step`, src/membrane/gpu_rims.rs); both return while the
// stepper's list is stale, so the step the host finishes after a rebuild runs them once. With a
// load cell, load_cell_servo follows them (one workgroup): the cap's axial force on the membrane
// R_z from the last evaluation's forces, reduced in a fixed order, and the servo's target σ + R_z/A
// for the next step (twin: rims::load_cell_servo).

#import sphere_state
#import fixed_reduce

struct RimPin {
    sphere: u32,
    wall: u32,
    mode: u32,
    wall_b: u32,
    offset_hi: vec3<f32>,
    cap_radius: f32,
    offset_lo: vec3<f32>,
    _pad2: f32,
}

struct RimParams {
    n_pins: u32,
    area_wall: u32,
    n_area: u32,
    particles: u32,
    vertex_radius: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

const RIM_PINNED: u32 = 0u;
const RIM_STOPPED: u32 = 2u;
const RIM_FACES: u32 = 3u;
const RIM_NO_AREA: u32 = 0xffffffffu;
const WALL_SERVO: u32 = 2u;
// A face vertex counts as lying on a wall's plane within this distance (m; rims::FACE_ON).
const FACE_ON: f32 = 1e-9;
// Lanes of load_cell_servo's one workgroup (rims::LOAD_CELL_LANES).
const LOAD_LANES: u32 = REDUCE_LANES;
const RIM_WG: u32 = 64u;
const PI: f32 = 3.14159265358979;

@group(0) @binding(1) var<uniform> rp: RimParams;
@group(0) @binding(2) var<storage, read_write> spheres: array<SphereState>;
@group(0) @binding(3) var<storage, read_write> walls: array<PlaneWall>;
@group(0) @binding(4) var<storage, read_write> step_flags: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read> pins: array<RimPin>;
// Sphere indices of the servo area's rim, in ring order (one dummy entry without one).
@group(0) @binding(6) var<storage, read> area_rim: array<u32>;
// The stepper's forces of the last evaluation (load_cell_servo only).
@group(0) @binding(7) var<storage, read> forces: array<SphereForce>;
@group(0) @binding(8) var<uniform> lc: LoadCell;
// load_cell_servo's output: R_z (N) and the wall's target stress after it (Pa).
@group(0) @binding(9) var<storage, read_write> load_out: array<f32>;

// The load cell (twin: rims::LoadCell): the wall whose cap it reads and σ, the servo's target
// as the cell measures it.
struct LoadCell {
    wall: u32,
    _pad0: u32,
    sigma: f32,
    _pad1: u32,
}


fn list_stale() -> bool {
    return atomicLoad(&step_flags[0]) != 0u;
}

// a + b of two double-f32 numbers: TwoSum of the hi parts, the lo parts added to its error,
// renormalised by a second TwoSum (so hi is the nearest f32 of the pair, as a split gives).
fn df_sum(a_hi: f32, a_lo: f32, b_hi: f32, b_lo: f32) -> vec2<f32> {
    let s = two_sum(a_hi, b_hi);
    let e = opaque(s.y + opaque(a_lo + b_lo));
    return two_sum(s.x, e);
}

@compute @workgroup_size(64)
fn hold_rims(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(wid, lid, nwg, RIM_WG);
    if (list_stale()) {
        return;
    }
    if (k >= min(rp.n_pins, arrayLength(&pins))) {
        return;
    }
    let p = pins[k];
    let w = walls[p.wall];
    var s = spheres[p.sphere];
    if (p.mode == RIM_FACES) {
        // The caps' faces: written only when a face acts (no other pin holds this vertex).
        let a = face_vertex(&s, w);
        let b = face_vertex(&s, walls[p.wall_b]);
        if (a || b) {
            spheres[p.sphere] = s;
        }
        return;
    }
    if (p.mode == RIM_PINNED) {
        // x₀ + (w − w₀) = w + (x₀ − w₀), the offset split on the host.
        for (var c = 0u; c < 3u; c++) {
            let x = df_sum(w.point_hi[c], w.point_lo[c], p.offset_hi[c], p.offset_lo[c]);
            s.pos_hi[c] = x.x;
            s.pos_lo[c] = x.y;
        }
        s.vel = w.velocity;
        s.omega = vec3<f32>(0.0);
    } else {
        // Sliding: z and v_z of the wall, free radially.
        s.pos_hi.z = w.point_hi.z;
        s.pos_lo.z = w.point_lo.z;
        s.vel.z = w.velocity.z;
        if (p.mode == RIM_STOPPED) {
            stop_vertex(&s, w, p.cap_radius);
        }
    }
    spheres[p.sphere] = s;
}

// The rim stop (twin: rims::stop_vertex): inside R_cap from the wall's axis, the vertex is put on
// the cap along its radius, x = w + R_cap d/ρ (d = x − w in f32 from double-f32 differences, the
// offset in f32 added to the wall's double-f32 point), and an inward radial velocity removed.
fn stop_vertex(s: ptr<function, SphereState>, w: PlaneWall, cap_radius: f32) {
    let d = df3_sub((*s).pos_hi, (*s).pos_lo, w.point_hi, w.point_lo);
    let rho = sqrt(opaque(opaque(d.x * d.x) + opaque(d.y * d.y)));
    if (!(rho < cap_radius && rho > 0.0)) {
        return;
    }
    let e = vec2<f32>(d.x / rho, d.y / rho);
    let o = vec2<f32>(opaque(cap_radius * e.x), opaque(cap_radius * e.y));
    let x = df_sum(w.point_hi.x, w.point_lo.x, o.x, 0.0);
    let y = df_sum(w.point_hi.y, w.point_lo.y, o.y, 0.0);
    (*s).pos_hi.x = x.x;
    (*s).pos_lo.x = x.y;
    (*s).pos_hi.y = y.x;
    (*s).pos_lo.y = y.y;
    let v_r = opaque(opaque((*s).vel.x * e.x) + opaque((*s).vel.y * e.y));
    if (v_r < 0.0) {
        (*s).vel.x = opaque((*s).vel.x - opaque(v_r * e.x));
        (*s).vel.y = opaque((*s).vel.y - opaque(v_r * e.y));
    }
}

// A cap's face (twin: rims::face_vertex): beyond the wall's plane the vertex is put on it,
// x −= ((x − w)·n̂) n̂ (f32 distance, double-f32 position), and its velocity into the wall relative
// to the wall's removed. Returns whether it acted.
fn face_vertex(s: ptr<function, SphereState>, w: PlaneWall) -> bool {
    let d = df3_sub((*s).pos_hi, (*s).pos_lo, w.point_hi, w.point_lo);
    let n = w.normal;
    let dist = opaque(opaque(opaque(d.x * n.x) + opaque(d.y * n.y)) + opaque(d.z * n.z));
    if (!(dist < 0.0)) {
        return false;
    }
    for (var c = 0u; c < 3u; c++) {
        let x = df_sum((*s).pos_hi[c], (*s).pos_lo[c], -opaque(dist * n[c]), 0.0);
        (*s).pos_hi[c] = x.x;
        (*s).pos_lo[c] = x.y;
    }
    let u = (*s).vel - w.velocity;
    let v_n = opaque(opaque(opaque(u.x * n.x) + opaque(u.y * n.y)) + opaque(u.z * n.z));
    if (v_n < 0.0) {
        for (var c = 0u; c < 3u; c++) {
            (*s).vel[c] = opaque((*s).vel[c] - opaque(v_n * n[c]));
        }
    }
    return true;
}

// The rim polygon's area as a fan from its first vertex (double-f32 differences, f32 sums);
// for vertex particles the circle of that area less the vertex radius.
@compute @workgroup_size(64)
fn rim_servo_area(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(wid, lid, nwg, RIM_WG);
    if (list_stale()) {
        return;
    }
    if (k != 0u || rp.area_wall == RIM_NO_AREA) {
        return;
    }
    let n = min(rp.n_area, arrayLength(&area_rim));
    if (n < 3u) {
        return;
    }
    let p0 = spheres[area_rim[0]];
    var twice = 0.0;
    for (var i = 1u; i + 1u < n; i++) {
        let a = spheres[area_rim[i]];
        let b = spheres[area_rim[i + 1u]];
        let u = df3_sub(a.pos_hi, a.pos_lo, p0.pos_hi, p0.pos_lo);
        let v = df3_sub(b.pos_hi, b.pos_lo, p0.pos_hi, p0.pos_lo);
        twice = opaque(twice + opaque(opaque(u.x * v.y) - opaque(v.x * u.y)));
    }
    var area = 0.5 * abs(twice);
    if (rp.particles != 0u) {
        let r = sqrt(area / PI) - rp.vertex_radius;
        area = PI * r * r;
    }
    walls[rp.area_wall].size = area;
}

// One pin's share of the cap's axial force on the membrane at `wall` (twin: rims::cap_axial_part;
// f32 of rims::cap_axial_force's f64 rule): a rim vertex held on `wall` gives −F_z; a face
// vertex lying on a plane (|distance| ≤ FACE_ON, its first wall checked first) and pressed
// into it gives the push −(F·n̂) n̂_z when that plane is `wall`'s.
fn cap_axial_part(p: RimPin, wall: u32) -> f32 {
    let f = forces[p.sphere].force;
    if (p.mode != RIM_FACES) {
        return select(0.0, -f.z, p.wall == wall);
    }
    let s = spheres[p.sphere];
    for (var k = 0u; k < 2u; k++) {
        let id = select(p.wall_b, p.wall, k == 0u);
        let w = walls[id];
        let d = df3_sub(s.pos_hi, s.pos_lo, w.point_hi, w.point_lo);
        let n = w.normal;
        let dist = opaque(opaque(opaque(d.x * n.x) + opaque(d.y * n.y)) + opaque(d.z * n.z));
        if (abs(dist) <= FACE_ON) {
            let f_n = opaque(opaque(opaque(f.x * n.x) + opaque(f.y * n.y)) + opaque(f.z * n.z));
            if (id == wall && f_n < 0.0) {
                return -opaque(f_n * n.z);
            }
            return 0.0;
        }
    }
    return 0.0;
}

// The load cell's servo: R_z = Σ cap_axial_part over the pins, lane t summing the block
// t·K .. t·K + K − 1 (K = ⌈n_pins / LOAD_LANES⌉) in pin order, then the shared fixed binary tree
// (reduce_tree1: stride 128, 64, …, 1); the servo wall's target σ + R_z/A (A its size, the
// rim's area just set by rim_servo_area), as TriaxialCell::step sets it before a step. No atomics; a halted batch
// reduces nothing and writes nothing (no barrier in non-uniform control flow).
@compute @workgroup_size(256)
fn load_cell_servo(@builtin(local_invocation_id) lid: vec3<u32>) {
    let lane = lid.x;
    let live = !list_stale();
    var m = 0u;
    if (live) {
        m = min(rp.n_pins, arrayLength(&pins));
    }
    let k = (m + LOAD_LANES - 1u) / LOAD_LANES;
    let b0 = min(lane * k, m);
    let b1 = min(b0 + k, m);
    var r = 0.0;
    for (var c = b0; c < b1; c++) {
        r = opaque(r + cap_axial_part(pins[c], lc.wall));
    }
    // The shared tree (fixed_reduce.wgsl) on (r, 0, 0): x is the scalar tree's sum.
    let r_z = reduce_tree1(lane, vec3<f32>(r, 0.0, 0.0)).x;
    if (lane == 0u && live) {
        let w = walls[lc.wall];
        var aim = w.target_stress;
        if (w.kind == WALL_SERVO) {
            aim = opaque(lc.sigma + opaque(r_z / w.size));
            walls[lc.wall].target_stress = aim;
        }
        load_out[0] = r_z;
        load_out[1] = aim;
    }
}
