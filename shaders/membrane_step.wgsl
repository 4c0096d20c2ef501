// membrane_step.wgsl: the membrane's force passes (issue 25), twins of src/membrane/forces.rs
// (same names, same order): edge_pass (eq 6), hinge_pass (eq 11–16), pressure_pass (eq 18–19),
// patch_pass (one thread per grain: eq 17, Table 1, the pair law, Fig. 3) and membrane_gather
// (per sphere, its records in a fixed order; no atomics), which adds to `membrane_force`: the
// sphere stepper's extra force when the membrane is a source of `GpuSpheres` (src/membrane/gpu_source.rs).

#import sphere_contact
#import membrane_stretch
#import membrane_bending
#import membrane_pressure
#import patch_contact

struct MembraneParams {
    k: f32,
    gamma: f32,
    k_el: f32,
    k_diss: f32,
    sigma: f32,
    dt: f32,
    first: u32,
    n_vertices: u32,
    n_edges: u32,
    n_hinges: u32,
    n_patches: u32,
    n_spheres: u32,
    flags: u32,
    opaque_zero: u32,
    _pad0: u32,
    _pad1: u32,
}

struct MembraneEdge {
    i: u32,
    j: u32,
    rest: f32,
    _pad: f32,
}

struct MembraneHinge {
    v: vec4<u32>,
    sin_half_rest: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
}

struct MembranePatch {
    v: vec3<u32>,
    _pad: u32,
}

struct HingeOut {
    f: array<vec4<f32>, 4>,
}

struct PatchOut {
    force: vec3<f32>,
    f_n: f32,
    weights: vec3<f32>,
    selected: u32,
    torque: vec3<f32>,
    energy: f32,
}

const MEMBRANE_PATCH_CONTACTS: u32 = 1u;
// A force-only evaluation (at attachment): contact histories are not written.
const MEMBRANE_FORCE_ONLY: u32 = 2u;
const ENTRY_EDGE: u32 = 0u;
const ENTRY_HINGE: u32 = 1u;
const MAX_PATCH_CONTACTS: u32 = 16u;
const MEMBRANE_WG: u32 = 64u;

@group(0) @binding(1) var<uniform> mp: MembraneParams;
@group(0) @binding(2) var<storage, read> states: array<SphereState>;
@group(0) @binding(3) var<storage, read> edges: array<MembraneEdge>;
@group(0) @binding(4) var<storage, read> hinges: array<MembraneHinge>;
@group(0) @binding(5) var<storage, read> patches: array<MembranePatch>;
@group(0) @binding(6) var<storage, read_write> edge_out: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> hinge_out: array<HingeOut>;
@group(0) @binding(8) var<storage, read_write> pressure_out: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read> patch_laws: array<PairLaw>;
@group(0) @binding(10) var<storage, read> cand_start: array<u32>;
@group(0) @binding(11) var<storage, read> cand_patch: array<u32>;
@group(0) @binding(12) var<storage, read_write> patch_history: array<ContactHistory>;
@group(0) @binding(13) var<storage, read_write> patch_out: array<PatchOut>;
@group(0) @binding(14) var<storage, read> vertex_start: array<u32>;
@group(0) @binding(15) var<storage, read> vertex_entry: array<u32>;
@group(0) @binding(16) var<storage, read> corner_start: array<u32>;
@group(0) @binding(17) var<storage, read> corner: array<u32>;
@group(0) @binding(18) var<storage, read_write> membrane_force: array<SphereForce>;
// The sphere stepper's step flags ([0] ≠ 0: its list is stale, the batch stops; `list_stale` of
// sphere_step.wgsl): several steps are recorded per submission, and the step the host finishes
// after the rebuild runs these passes once (src/spheres/extra_force.rs, "Batching"). A zero
// buffer for the stand-alone evaluation (src/membrane/gpu.rs).
@group(0) @binding(19) var<storage, read_write> step_flags: array<atomic<u32>>;

fn list_stale() -> bool {
    return atomicLoad(&step_flags[0]) != 0u;
}

fn rel(a: u32, b: u32) -> vec3<f32> {
    return df3_sub(states[a].pos_hi, states[a].pos_lo, states[b].pos_hi, states[b].pos_lo);
}

// Eq 6 on every edge: the force on its vertex i.
@compute @workgroup_size(64)
fn edge_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(wid, lid, nwg, MEMBRANE_WG);
    if (list_stale()) {
        return;
    }
    if (k >= mp.n_edges) {
        return;
    }
    let e = edges[k];
    let a = mp.first + e.i;
    let b = mp.first + e.j;
    let m_eff = states[a].mass * states[b].mass / (states[a].mass + states[b].mass);
    let f = membrane_stretch_force(mp.k, mp.gamma, e.rest, m_eff, rel(a, b), states[a].vel - states[b].vel);
    edge_out[k] = vec4<f32>(f, 0.0);
}

// Eq 11–16 on every hinge, positions relative to vertex 3.
@compute @workgroup_size(64)
fn hinge_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(wid, lid, nwg, MEMBRANE_WG);
    if (list_stale()) {
        return;
    }
    if (k >= mp.n_hinges) {
        return;
    }
    let h = hinges[k];
    let s = h.v + vec4<u32>(mp.first);
    var bp: BendingParams;
    bp.k_el = mp.k_el;
    bp.k_diss = mp.k_diss;
    let f = membrane_bending_forces(rel(s.x, s.z), rel(s.y, s.z), vec3<f32>(0.0), rel(s.w, s.z),
        states[s.x].vel, states[s.y].vel, states[s.z].vel, states[s.w].vel, h.sin_half_rest, bp);
    var out: HingeOut;
    for (var i = 0u; i < 4u; i++) {
        out.f[i] = vec4<f32>(f.f[i], 0.0);
    }
    hinge_out[k] = out;
}

// Eq 18–19 on every patch.
@compute @workgroup_size(64)
fn pressure_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(wid, lid, nwg, MEMBRANE_WG);
    if (list_stale()) {
        return;
    }
    if (k >= mp.n_patches) {
        return;
    }
    let s = patches[k].v + vec3<u32>(mp.first);
    let f = membrane_pressure_force(mp.sigma, vec3<f32>(0.0), rel(s.y, s.x), rel(s.z, s.x));
    pressure_out[k] = vec4<f32>(f, 0.0);
}

struct RawContact {
    normal: vec3<f32>,
    delta: f32,
    weights: vec3<f32>,
    cand: u32,
    pid: u32,
    feature: u32,
}

// Per grain: nearest points, Table 1, history (own or handed over), law, all candidate records.
@compute @workgroup_size(64)
fn patch_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let s = linear_id(wid, lid, nwg, MEMBRANE_WG);
    if (list_stale()) {
        return;
    }
    if (s >= mp.n_spheres || (mp.flags & MEMBRANE_PATCH_CONTACTS) == 0u) {
        return;
    }
    let c0 = cand_start[s];
    let c1 = cand_start[s + 1u];
    if (c0 == c1) {
        return;
    }
    let g = states[s];
    var raw: array<RawContact, 16>;
    var n = 0u;
    for (var c = c0; c < c1; c++) {
        let pv = patches[cand_patch[c]].v + vec3<u32>(mp.first);
        let q = closest_on_patch(vec3<f32>(0.0), rel(pv.x, s), rel(pv.y, s), rel(pv.z, s));
        let d = q.point * -1.0;
        let dist = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
        if (dist < g.radius && dist > 0.0 && n < MAX_PATCH_CONTACTS) {
            raw[n].cand = c;
            raw[n].pid = cand_patch[c];
            raw[n].feature = q.feature;
            raw[n].weights = q.weights;
            raw[n].normal = d * (1.0 / dist);
            raw[n].delta = g.radius - dist;
            n += 1u;
        }
    }
    var keep: array<bool, 16>;
    for (var a = 0u; a < n; a++) {
        keep[a] = true;
        for (var b = 0u; b < n; b++) {
            let va = patches[raw[a].pid].v;
            let vb = patches[raw[b].pid].v;
            if (b != a && patches_share_vertex(va, vb)
                && patch_contact_dropped(raw[a].feature, va, raw[a].pid, raw[b].feature, vb, raw[b].pid)) {
                keep[a] = false;
            }
        }
    }
    var new_out: array<PatchOut, 16>;
    var new_hist: array<ContactHistory, 16>;
    var donated: array<u32, 16>;
    var n_donated = 0u;
    for (var a = 0u; a < n; a++) {
        if (!keep[a]) {
            continue;
        }
        let c = raw[a].cand;
        var h = patch_history[c];
        if (h._pad0 == 0.0) {
            for (var o = c0; o < c1; o++) {
                var still = false;
                for (var b = 0u; b < n; b++) {
                    still = still || (keep[b] && raw[b].cand == o);
                }
                var given = false;
                for (var d = 0u; d < n_donated; d++) {
                    given = given || donated[d] == o;
                }
                if (patch_history[o]._pad0 != 0.0 && !still && !given
                    && patches_share_vertex(patches[cand_patch[o]].v, patches[raw[a].pid].v)) {
                    h = patch_history[o];
                    donated[n_donated] = o;
                    n_donated += 1u;
                    break;
                }
            }
        }
        let pv = patches[raw[a].pid].v + vec3<u32>(mp.first);
        let w = raw[a].weights;
        let nrm = raw[a].normal;
        let l = nrm * -(g.radius - 0.5 * raw[a].delta);
        let v_point = patch_point_velocity(w, states[pv.x].vel, states[pv.y].vel, states[pv.z].vel);
        var geom: ContactGeometry;
        geom.normal = nrm;
        geom.delta = raw[a].delta;
        geom.v_rel = (g.vel + v3_cross(g.omega, l)) - v_point;
        geom.r_star = g.radius;
        geom.w_rel = g.omega;
        geom.m_star = patch_effective_mass(g.mass, w, vec3<f32>(states[pv.x].mass, states[pv.y].mass, states[pv.z].mass));
        let r = pair_force(patch_laws[g.material], geom, mp.dt, h, 0.0);
        new_hist[a] = r.history;
        new_hist[a]._pad0 = 1.0;
        new_out[a].force = r.force.force;
        new_out[a].f_n = r.force.f_n;
        new_out[a].weights = w;
        new_out[a].selected = 1u;
        new_out[a].torque = v3_cross(l, r.force.force) + r.force.rolling_torque;
        new_out[a].energy = r.force.energy;
    }
    // Every candidate of the row: the new record of a kept contact, else zeros.
    for (var c = c0; c < c1; c++) {
        var o: PatchOut;
        var h: ContactHistory;
        for (var a = 0u; a < n; a++) {
            if (keep[a] && raw[a].cand == c) {
                o = new_out[a];
                h = new_hist[a];
            }
        }
        patch_out[c] = o;
        if ((mp.flags & MEMBRANE_FORCE_ONLY) == 0u) {
            patch_history[c] = h;
        }
    }
}

// Per sphere: a vertex sums its edges, hinges, pressure patches, then its candidate corners;
// a grain sums its candidates.
@compute @workgroup_size(64)
fn membrane_gather(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let s = linear_id(wid, lid, nwg, MEMBRANE_WG);
    if (list_stale()) {
        return;
    }
    if (s >= mp.n_spheres) {
        return;
    }
    var f = vec3<f32>(0.0);
    var t = vec3<f32>(0.0);
    if (s >= mp.first && s < mp.first + mp.n_vertices) {
        let v = s - mp.first;
        for (var q = vertex_start[v]; q < vertex_start[v + 1u]; q++) {
            let e = vertex_entry[q];
            let ekind = e >> 30u;
            let item = (e >> 2u) & 0x0fffffffu;
            let slot = e & 3u;
            var x: vec3<f32>;
            if (ekind == ENTRY_EDGE) {
                x = edge_out[item].xyz;
                if (slot != 0u) {
                    x = x * -1.0;
                }
            } else if (ekind == ENTRY_HINGE) {
                x = hinge_out[item].f[slot].xyz;
            } else {
                x = pressure_out[item].xyz;
            }
            f = f + x;
        }
        if ((mp.flags & MEMBRANE_PATCH_CONTACTS) != 0u) {
            for (var q = corner_start[v]; q < corner_start[v + 1u]; q++) {
                let o = patch_out[corner[q] >> 2u];
                if (o.selected != 0u) {
                    f = f - o.force * o.weights[corner[q] & 3u];
                }
            }
            // Self-contact: the vertex's own contacts with foreign patches (force only).
            for (var c = cand_start[s]; c < cand_start[s + 1u]; c++) {
                let o = patch_out[c];
                if (o.selected != 0u) {
                    f = f + o.force;
                }
            }
        }
    } else if ((mp.flags & MEMBRANE_PATCH_CONTACTS) != 0u) {
        for (var c = cand_start[s]; c < cand_start[s + 1u]; c++) {
            let o = patch_out[c];
            if (o.selected != 0u) {
                f = f + o.force;
                t = t + o.torque;
            }
        }
    }
    // Added to the sphere stepper's extra force (zero before the first source adds).
    var out = membrane_force[s];
    out.force = out.force + f;
    out.torque = out.torque + t;
    membrane_force[s] = out;
}
