// membrane_patch_list.wgsl: the candidate patches of every grain on the 3D cell list of
// grid3d.wgsl (items: the patches, binned by centroid; owners: the grains, and the vertices with
// self-contact), twin of src/membrane/patch_list.rs (`build_patch_list`: same grid, same
// candidate test, rows sorted by patch index, history carried by `grid3d::carry_rows`). Order of
// one build (src/membrane/gpu_patch_list.rs):
//   patch_bounds → cell_clear → cell_count → scan(cell_start) → cell_cursor → cell_scatter →
//   cand_count → scan(cand_start) → [host reads the total] → cand_fill → cand_carry →
//   corner_clear → corner_count → scan(corner_start) → corner_cursor → corner_scatter → corner_sort.
// Integer atomics only (counts and cursors): a cell's patches and a vertex's corners land in any
// order, but every row is then sorted (candidates by patch, corners by candidate), so the lists
// and everything after them are deterministic. Bindings 2–10 (cells, rows `cand_start`/`cand`,
// old list, history) are grid3d's.

#import grid3d

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
@group(0) @binding(11) var<storage, read> states: array<SphereState>;
@group(0) @binding(12) var<storage, read> patches: array<MembranePatch>;
// Per patch: centroid relative to its vertex 0 (xyz) and the largest centroid–vertex distance R.
@group(0) @binding(13) var<storage, read_write> bounds: array<vec4<f32>>;
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

fn position(s: u32) -> vec3<f32> {
    return states[s].pos_hi + states[s].pos_lo;
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

// grid3d's hooks: the patches binned by centroid, the grains (and, with self-contact, the
// vertices) as owners; |x − c| < r + R + skin, a vertex never meeting its own patches.
fn grid_of() -> Grid3 {
    return Grid3(lp.grid_origin, lp.cell_size, lp.grid_dims, lp.n_cells);
}

fn grid_halted() -> bool {
    return false;
}

fn n_items() -> u32 {
    return lp.n_patches;
}

fn item_point(k: u32) -> vec3<f32> {
    return position(vertex_sphere(patches[k].v.x)) + bounds[k].xyz;
}

fn n_owners() -> u32 {
    return lp.n_spheres;
}

fn owner_point(s: u32) -> vec3<f32> {
    return position(s);
}

fn has_row(s: u32) -> bool {
    return meets_patches(s) && lp.n_patches != 0u;
}

fn is_near(s: u32, k: u32) -> bool {
    if (is_vertex(s) && any(patches[k].v == vec3<u32>(s - lp.first))) {
        return false;
    }
    let g = states[s];
    let v0 = states[vertex_sphere(patches[k].v.x)];
    let d = df3_sub(g.pos_hi, g.pos_lo, v0.pos_hi, v0.pos_lo) - bounds[k].xyz;
    let reach = g.radius + bounds[k].w + lp.skin;
    return dot(d, d) < reach * reach;
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
    if (c >= min(lp.n_candidates, arrayLength(&cand))) {
        return;
    }
    let v = patches[cand[c]].v;
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
    if (c >= min(lp.n_candidates, arrayLength(&cand))) {
        return;
    }
    let v = patches[cand[c]].v;
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
