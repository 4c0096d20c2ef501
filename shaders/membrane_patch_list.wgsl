// membrane_patch_list.wgsl: the candidate patches of every grain built on the GPU, twin of
// src/membrane/patch_list.rs (`build_patch_list`: same candidate test, rows sorted by patch
// index; a dense grid fitted on the host instead of the CPU's hashed one) and of the history carry
// of `Membrane::rebuild`. Order of one build (src/membrane/gpu_patch_list.rs):
//   patch_bounds → cell_clear → cell_count → scan(cell_start) → cell_cursor → cell_scatter →
//   cand_count → scan(cand_start) → [host reads the total] → cand_fill → cand_carry →
//   corner_clear → corner_count → scan(corner_start) → corner_cursor → corner_scatter → corner_sort.
// Integer atomics only (counts and cursors): a cell's patches and a vertex's corners land in any
// order, but every row is then sorted (candidates by patch, corners by candidate), so the lists
// and everything after them are deterministic.

#import sphere_state

struct PatchListParams {
    grid_origin: vec3<f32>,
    cell_size: f32,
    grid_dims: vec3<u32>,
    n_cells: u32,
    first: u32,
    n_vertices: u32,
    n_patches: u32,
    n_spheres: u32,
    skin: f32,
    n_candidates: u32,
    flags: u32,
    _pad0: u32,
}

// PatchListParams::flags: vertices meet the patches they do not belong to.
const MEMBRANE_SELF_CONTACT: u32 = 4u;

struct MembranePatch {
    v: vec3<u32>,
    _pad: u32,
}

@group(0) @binding(1) var<uniform> lp: PatchListParams;
@group(0) @binding(2) var<storage, read> states: array<SphereState>;
@group(0) @binding(3) var<storage, read> patches: array<MembranePatch>;
// Per patch: centroid relative to its vertex 0 (xyz) and the largest centroid–vertex distance R.
@group(0) @binding(4) var<storage, read_write> bounds: array<vec4<f32>>;
// Patches per cell, scanned in place into each cell's first slot (n_cells + 1 entries).
@group(0) @binding(5) var<storage, read_write> cell_start: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> cell_cursor_buf: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> cell_patches: array<u32>;
// Candidates per sphere, scanned in place into each row's start (n_spheres + 1 entries).
@group(0) @binding(8) var<storage, read_write> cand_start: array<u32>;
@group(0) @binding(9) var<storage, read_write> cand_patch: array<u32>;
@group(0) @binding(10) var<storage, read> old_start: array<u32>;
@group(0) @binding(11) var<storage, read> old_patch: array<u32>;
@group(0) @binding(12) var<storage, read> old_history: array<ContactHistory>;
@group(0) @binding(13) var<storage, read_write> history: array<ContactHistory>;
// Per local vertex, its candidate corners (candidate << 2 | corner), in candidate order.
@group(0) @binding(14) var<storage, read_write> corner_start: array<atomic<u32>>;
@group(0) @binding(15) var<storage, read_write> corner_cursor_buf: array<atomic<u32>>;
@group(0) @binding(16) var<storage, read_write> corner: array<u32>;

const LIST_WG: u32 = 64u;

fn vertex_sphere(v: u32) -> u32 {
    return lp.first + v;
}

fn is_vertex(s: u32) -> bool {
    return s >= lp.first && s < lp.first + lp.n_vertices;
}

// Whether sphere s has a row: grains always, vertices with self-contact.
fn meets_patches(s: u32) -> bool {
    return !is_vertex(s) || (lp.flags & MEMBRANE_SELF_CONTACT) != 0u;
}

fn cell_of(x: vec3<f32>) -> vec3<u32> {
    var c: vec3<u32>;
    for (var k = 0u; k < 3u; k++) {
        let f = min(max(floor((x[k] - lp.grid_origin[k]) / lp.cell_size), 0.0), f32(lp.grid_dims[k] - 1u));
        c[k] = u32(f);
    }
    return c;
}

fn cell_index(c: vec3<u32>) -> u32 {
    return (c.z * lp.grid_dims.y + c.y) * lp.grid_dims.x + c.x;
}

fn position(s: u32) -> vec3<f32> {
    return states[s].pos_hi + states[s].pos_lo;
}

fn patch_cell(k: u32) -> u32 {
    let v0 = vertex_sphere(patches[k].v.x);
    return cell_index(cell_of(position(v0) + bounds[k].xyz));
}

@compute @workgroup_size(64)
fn patch_bounds(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(wid, lid, nwg, LIST_WG);
    if (k >= lp.n_patches) {
        return;
    }
    let v = patches[k].v + vec3<u32>(lp.first);
    let a = states[v.x];
    let x1 = df3_sub(states[v.y].pos_hi, states[v.y].pos_lo, a.pos_hi, a.pos_lo);
    let x2 = df3_sub(states[v.z].pos_hi, states[v.z].pos_lo, a.pos_hi, a.pos_lo);
    let c = (x1 + x2) * (1.0 / 3.0);
    let r = max(length(c), max(length(x1 - c), length(x2 - c)));
    bounds[k] = vec4<f32>(c, r);
}

@compute @workgroup_size(64)
fn cell_clear(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_id(wid, lid, nwg, LIST_WG);
    if (c <= lp.n_cells) {
        atomicStore(&cell_start[c], 0u);
    }
}

@compute @workgroup_size(64)
fn cell_count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(wid, lid, nwg, LIST_WG);
    if (k >= lp.n_patches) {
        return;
    }
    atomicAdd(&cell_start[patch_cell(k)], 1u);
}

@compute @workgroup_size(64)
fn cell_cursor(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_id(wid, lid, nwg, LIST_WG);
    if (c < lp.n_cells) {
        atomicStore(&cell_cursor_buf[c], atomicLoad(&cell_start[c]));
    }
}

@compute @workgroup_size(64)
fn cell_scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(wid, lid, nwg, LIST_WG);
    if (k >= lp.n_patches) {
        return;
    }
    let slot = atomicAdd(&cell_cursor_buf[patch_cell(k)], 1u);
    cell_patches[slot] = k;
}

// The candidate patches of grain s in the 27 cells around its own (|x − c| < r + R + skin, the
// twin's test); written from `out` when `write`; returns their number.
fn visit_patches(s: u32, write: bool, out: u32) -> u32 {
    let g = states[s];
    let c = vec3<i32>(cell_of(position(s)));
    let dims = vec3<i32>(lp.grid_dims);
    var n = 0u;
    for (var dz = -1; dz <= 1; dz++) {
        for (var dy = -1; dy <= 1; dy++) {
            for (var dx = -1; dx <= 1; dx++) {
                let q = c + vec3<i32>(dx, dy, dz);
                if (any(q < vec3<i32>(0)) || any(q >= dims)) {
                    continue;
                }
                let ci = cell_index(vec3<u32>(q));
                let a = atomicLoad(&cell_start[ci]);
                let b = atomicLoad(&cell_start[ci + 1u]);
                for (var m = a; m < b; m++) {
                    let k = cell_patches[m];
                    // A vertex never meets its own patches.
                    if (is_vertex(s) && any(patches[k].v == vec3<u32>(s - lp.first))) {
                        continue;
                    }
                    let v0 = states[vertex_sphere(patches[k].v.x)];
                    let d = df3_sub(g.pos_hi, g.pos_lo, v0.pos_hi, v0.pos_lo) - bounds[k].xyz;
                    let reach = g.radius + bounds[k].w + lp.skin;
                    if (dot(d, d) < reach * reach) {
                        if (write) {
                            cand_patch[out + n] = k;
                        }
                        n += 1u;
                    }
                }
            }
        }
    }
    return n;
}

@compute @workgroup_size(64)
fn cand_count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let s = linear_id(wid, lid, nwg, LIST_WG);
    if (s >= lp.n_spheres) {
        return;
    }
    if (!meets_patches(s) || lp.n_patches == 0u) {
        cand_start[s] = 0u;
        return;
    }
    cand_start[s] = visit_patches(s, false, 0u);
}

// Fills row s and sorts it by patch index (insertion sort).
@compute @workgroup_size(64)
fn cand_fill(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let s = linear_id(wid, lid, nwg, LIST_WG);
    if (s >= lp.n_spheres || !meets_patches(s) || lp.n_patches == 0u) {
        return;
    }
    let a = cand_start[s];
    let b = cand_start[s + 1u];
    _ = visit_patches(s, true, a);
    for (var k = a + 1u; k < b; k++) {
        let v = cand_patch[k];
        var m = k;
        while (m > a && cand_patch[m - 1u] > v) {
            cand_patch[m] = cand_patch[m - 1u];
            m -= 1u;
        }
        cand_patch[m] = v;
    }
}

// History of row s: a (grain, patch) candidate found (binary search) in row s of the old list
// keeps its record, a new one starts from zero (twin: `Membrane::rebuild`).
@compute @workgroup_size(64)
fn cand_carry(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let s = linear_id(wid, lid, nwg, LIST_WG);
    if (s >= lp.n_spheres) {
        return;
    }
    let lo0 = old_start[s];
    let hi0 = old_start[s + 1u];
    for (var k = cand_start[s]; k < cand_start[s + 1u]; k++) {
        let p = cand_patch[k];
        var lo = lo0;
        var hi = hi0;
        var found = NONE;
        while (lo < hi) {
            let mid = (lo + hi) / 2u;
            let v = old_patch[mid];
            if (v == p) {
                found = mid;
                break;
            }
            if (v < p) {
                lo = mid + 1u;
            } else {
                hi = mid;
            }
        }
        if (found != NONE) {
            history[k] = old_history[found];
        } else {
            history[k] = ContactHistory(vec3<f32>(0.0), 0.0, vec3<f32>(0.0), 0.0);
        }
    }
}

@compute @workgroup_size(64)
fn corner_clear(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let v = linear_id(wid, lid, nwg, LIST_WG);
    if (v <= lp.n_vertices) {
        atomicStore(&corner_start[v], 0u);
    }
}

@compute @workgroup_size(64)
fn corner_count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_id(wid, lid, nwg, LIST_WG);
    if (c >= min(lp.n_candidates, arrayLength(&cand_patch))) {
        return;
    }
    let v = patches[cand_patch[c]].v;
    atomicAdd(&corner_start[v.x], 1u);
    atomicAdd(&corner_start[v.y], 1u);
    atomicAdd(&corner_start[v.z], 1u);
}

@compute @workgroup_size(64)
fn corner_cursor(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let v = linear_id(wid, lid, nwg, LIST_WG);
    if (v < lp.n_vertices) {
        atomicStore(&corner_cursor_buf[v], atomicLoad(&corner_start[v]));
    }
}

@compute @workgroup_size(64)
fn corner_scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_id(wid, lid, nwg, LIST_WG);
    if (c >= min(lp.n_candidates, arrayLength(&cand_patch))) {
        return;
    }
    let v = patches[cand_patch[c]].v;
    for (var k = 0u; k < 3u; k++) {
        let slot = atomicAdd(&corner_cursor_buf[v[k]], 1u);
        corner[slot] = (c << 2u) | k;
    }
}

// Row v sorted by entry (= candidate order, then corner): the twin's fill order.
@compute @workgroup_size(64)
fn corner_sort(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let v = linear_id(wid, lid, nwg, LIST_WG);
    if (v >= lp.n_vertices) {
        return;
    }
    let a = atomicLoad(&corner_start[v]);
    let b = atomicLoad(&corner_start[v + 1u]);
    for (var k = a + 1u; k < b; k++) {
        let e = corner[k];
        var m = k;
        while (m > a && corner[m - 1u] > e) {
            corner[m] = corner[m - 1u];
            m -= 1u;
        }
        corner[m] = e;
    }
}
