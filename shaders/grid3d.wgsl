// grid3d.wgsl: the one 3D cell list of the sphere kinds, twin of src/broad_phase/grid3d.rs (same
// names). A dense box of cells (`Grid3`: origin, side, dims; a point outside is clamped into the
// border cells, which keeps the cell index monotone in the coordinate, so two points closer than a
// cell side stay within one cell of each other); items binned by count → scan → scatter
// (cell_clear → cell_count → scan(cell_start) → cell_cursor → cell_scatter); each owner's
// candidates from the 27 cells around its own (`grid_walk`) as CSR rows sorted by item
// (cand_count → scan(cand_start) → cand_fill); the history of a row carried from the previous
// list by binary search (`cand_carry`, `find_sorted`). Integer atomics only (counts and cursors):
// a cell's items land in any order, but every row is sorted, so the list is deterministic.
// Importers: sphere_cell_list.wgsl (items and owners: the spheres) and membrane_patch_list.wgsl
// (items: the patches; owners: the grains).
//
// It owns bindings 2–10 of its importer and calls the importer's (WGSL passes no storage
// pointers to functions; history.wgsl asks `sorted_key` the same way):
//   grid_of() -> Grid3           the grid of the build
//   grid_halted() -> bool        the batch is halted: every kernel returns at once
//   n_items() -> u32             items binned
//   item_point(i) -> vec3<f32>   the point item i is binned by
//   n_owners() -> u32            rows of the list
//   owner_point(i) -> vec3<f32>  the point whose 27 cells owner i visits
//   has_row(i) -> bool           whether owner i looks for candidates at all
//   is_near(i, j) -> bool        whether item j is a candidate of owner i

#import sphere_state
#import history

struct Grid3 {
    origin: vec3<f32>,
    cell_size: f32,
    dims: vec3<u32>,
    n_cells: u32,
}

// Items per cell, scanned in place into each cell's first slot (n_cells + 1 entries).
@group(0) @binding(2) var<storage, read_write> cell_start: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> cursor: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> cell_items: array<u32>;
// Candidates per owner, scanned in place into each row's start (n_owners + 1 entries).
@group(0) @binding(5) var<storage, read_write> cand_start: array<u32>;
@group(0) @binding(6) var<storage, read_write> cand: array<u32>;
// The list of the build before and its history, and the carried history of the new list.
@group(0) @binding(7) var<storage, read> old_start: array<u32>;
@group(0) @binding(8) var<storage, read> old_cand: array<u32>;
@group(0) @binding(9) var<storage, read> old_history: array<ContactHistory>;
@group(0) @binding(10) var<storage, read_write> history: array<ContactHistory>;

const GRID_WG: u32 = 64u;

// Cell coordinates of point x, clamped into the grid.
fn grid_cell_of(g: Grid3, x: vec3<f32>) -> vec3<u32> {
    var c: vec3<u32>;
    for (var k = 0u; k < 3u; k++) {
        let f = min(max(floor((x[k] - g.origin[k]) / g.cell_size), 0.0), f32(g.dims[k] - 1u));
        c[k] = u32(f);
    }
    return c;
}

fn grid_cell_index(g: Grid3, c: vec3<u32>) -> u32 {
    return (c.z * g.dims.y + c.y) * g.dims.x + c.x;
}

// The grid over the box lo..hi with one cell of margin: side `cell` (× 1.26 until at most
// `limit` cells: a sparse set gets larger cells, still exact, only more candidates per cell),
// dims[k] = floor((hi − lo)/side) + 3, the product tested without overflow. n_cells = 0: no fit
// within 1000 tries (only non-finite bounds).
fn grid_fit(lo: vec3<f32>, hi: vec3<f32>, cell_in: f32, limit: u32) -> Grid3 {
    var cell = cell_in;
    for (var tries = 0u; tries < 1000u; tries++) {
        var dims = vec3<u32>(0u);
        var fits = true;
        var cells = 1u;
        for (var k = 0u; k < 3u; k++) {
            let f = floor((hi[k] - lo[k]) / cell);
            if (f >= f32(limit)) {
                fits = false;
                break;
            }
            dims[k] = u32(f) + 3u;
            if (dims[k] > limit / cells) {
                fits = false;
                break;
            }
            cells *= dims[k];
        }
        if (fits) {
            return Grid3(lo - vec3<f32>(cell), cell, dims, cells);
        }
        cell *= 1.26;
    }
    return Grid3(vec3<f32>(0.0), 0.0, vec3<u32>(0u), 0u);
}

fn item_cell(i: u32) -> u32 {
    let g = grid_of();
    return grid_cell_index(g, grid_cell_of(g, item_point(i)));
}

@compute @workgroup_size(64)
fn cell_clear(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_id(wid, lid, nwg, GRID_WG);
    if (grid_halted()) {
        return;
    }
    // The whole buffer (capacity + 1): the scan runs over the capacity, the cells past the
    // grid's count zero.
    if (c < arrayLength(&cell_start)) {
        atomicStore(&cell_start[c], 0u);
    }
}

@compute @workgroup_size(64)
fn cell_count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, GRID_WG);
    if (grid_halted() || i >= n_items()) {
        return;
    }
    atomicAdd(&cell_start[item_cell(i)], 1u);
}

@compute @workgroup_size(64)
fn cell_cursor(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_id(wid, lid, nwg, GRID_WG);
    if (grid_halted()) {
        return;
    }
    if (c < grid_of().n_cells) {
        atomicStore(&cursor[c], atomicLoad(&cell_start[c]));
    }
}

@compute @workgroup_size(64)
fn cell_scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, GRID_WG);
    if (grid_halted() || i >= n_items()) {
        return;
    }
    let slot = atomicAdd(&cursor[item_cell(i)], 1u);
    cell_items[slot] = i;
}

// The candidates of owner i in the 27 cells around its own (z, y, x outer to inner); writes them
// from `out` when `write` (cand_fill), returns their number.
fn grid_walk(i: u32, write: bool, out: u32) -> u32 {
    let g = grid_of();
    let c = vec3<i32>(grid_cell_of(g, owner_point(i)));
    let dims = vec3<i32>(g.dims);
    var n = 0u;
    for (var dz = -1; dz <= 1; dz++) {
        for (var dy = -1; dy <= 1; dy++) {
            for (var dx = -1; dx <= 1; dx++) {
                let q = c + vec3<i32>(dx, dy, dz);
                if (any(q < vec3<i32>(0)) || any(q >= dims)) {
                    continue;
                }
                let ci = grid_cell_index(g, vec3<u32>(q));
                let a = atomicLoad(&cell_start[ci]);
                let b = atomicLoad(&cell_start[ci + 1u]);
                for (var k = a; k < b; k++) {
                    let j = cell_items[k];
                    if (is_near(i, j)) {
                        if (write) {
                            cand[out + n] = j;
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
    let i = linear_id(wid, lid, nwg, GRID_WG);
    if (grid_halted() || i >= n_owners()) {
        return;
    }
    if (!has_row(i)) {
        cand_start[i] = 0u;
        return;
    }
    cand_start[i] = grid_walk(i, false, 0u);
}

// Fills row i and sorts it by item (insertion sort, as the CPU twin; rows are short).
@compute @workgroup_size(64)
fn cand_fill(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, GRID_WG);
    if (grid_halted() || i >= n_owners() || !has_row(i)) {
        return;
    }
    let a = cand_start[i];
    let b = cand_start[i + 1u];
    _ = grid_walk(i, true, a);
    for (var k = a + 1u; k < b; k++) {
        let v = cand[k];
        var m = k;
        while (m > a && cand[m - 1u] > v) {
            cand[m] = cand[m - 1u];
            m -= 1u;
        }
        cand[m] = v;
    }
}

// The list `find_sorted` (history.wgsl) searches here: the candidates of the old list.
fn sorted_key(i: u32) -> u32 {
    return old_cand[i];
}

// History of row i of the new list: a candidate found (binary search) in row i of the old list
// keeps its record, a new one starts from zero (twin: grid3d::carry_rows).
@compute @workgroup_size(64)
fn cand_carry(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, GRID_WG);
    if (grid_halted() || i >= n_owners()) {
        return;
    }
    let lo0 = old_start[i];
    let hi0 = old_start[i + 1u];
    for (var k = cand_start[i]; k < cand_start[i + 1u]; k++) {
        let found = find_sorted(lo0, hi0, cand[k]);
        if (found != NONE) {
            history[k] = old_history[found];
        } else {
            history[k] = ContactHistory(vec3<f32>(0.0), 0.0, vec3<f32>(0.0), 0.0);
        }
    }
}
