// sphere_cell_list.wgsl: 3D cell list by counting sort and the candidate pair list, twin of
// src/spheres/cell_list.rs (same names). Order of one build (src/spheres/gpu_cell_list.rs):
//   cell_clear → cell_count → scan(cell_start) → cell_cursor → cell_scatter → pair_count →
//   scan(pair_start) → pair_fill → pair_carry.
// The GPU stepper's build (device-resident, no read-back; src/spheres/gpu_rebuild.rs) fits the
// grid on the device first (bounds_reduce → fit_grid, twin of cell_list::fit_grid), runs the same
// kernels up to the pair scan, checks the pair total against the capacity (pair_check: an
// overflow halts the batch, the host grows the buffers and redoes the build), then pair_fill →
// pair_carry_packed → incident_clear → incident_count → scan(incident_start) → incident_cursor →
// incident_scatter → incident_sort. Every kernel returns at once when the batch is halted.
// Integer atomics only (counts and cursors); a cell's spheres land in any order, but each row of
// the pair list is sorted by partner, so the list (and everything after it) is deterministic.
// Includes sphere_state.

#import sphere_state
#import history

@group(0) @binding(1) var<storage, read> spheres: array<SphereState>;
// Spheres per cell, scanned in place into each cell's first slot (n_cells + 1 entries).
@group(0) @binding(2) var<storage, read_write> cell_start: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> cursor: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> cell_spheres: array<u32>;
// Candidates per sphere, scanned in place into each row's start (n_spheres + 1 entries).
@group(0) @binding(5) var<storage, read_write> pair_start: array<u32>;
@group(0) @binding(6) var<storage, read_write> partner: array<u32>;
// The list of the build before and its history, and the carried history of the new list.
@group(0) @binding(7) var<storage, read> old_start: array<u32>;
@group(0) @binding(8) var<storage, read> old_partner: array<u32>;
@group(0) @binding(9) var<storage, read> old_history: array<ContactHistory>;
@group(0) @binding(10) var<storage, read_write> history: array<ContactHistory>;

// The stepper's packed history (3 f32 per pair; the rolling one sized only when a law uses it,
// one element otherwise) and the j-side incident lists (see shaders/sphere_step.wgsl).
@group(0) @binding(11) var<storage, read> old_history_t: array<f32>;
@group(0) @binding(12) var<storage, read_write> history_t: array<f32>;
@group(0) @binding(13) var<storage, read> old_history_r: array<f32>;
@group(0) @binding(14) var<storage, read_write> history_r: array<f32>;
@group(0) @binding(15) var<storage, read_write> incident_start: array<atomic<u32>>;
@group(0) @binding(16) var<storage, read_write> incident: array<u32>;
@group(0) @binding(17) var<storage, read_write> incident_cursor: array<atomic<u32>>;
// The stepper's step flags (shaders/sphere_step.wgsl: [0] halt, [4] pair total, [7] cells
// needed); zeros in the host-array build.
@group(0) @binding(18) var<storage, read_write> step_flags: array<atomic<u32>>;
// The grid of the build (written by fit_grid, or by the host in the host-array build).
@group(0) @binding(19) var<storage, read_write> grid: Grid;
// Bounding box keys (bounds_key: lo x y z, hi x y z) and r_max's bits, reduced by atomics.
@group(0) @binding(20) var<storage, read_write> bounds: array<atomic<u32>>;
// The list before the build, saved by list_save (shaders/sphere_rebuild.wgsl) into the pair
// results' buffer: 7 words per old pair k from 7k: partner (bits), tangential (3), rolling (3).
@group(0) @binding(21) var<storage, read> old_pairs: array<u32>;

struct Grid {
    origin: vec3<f32>,
    cell_size: f32,
    dims: vec3<u32>,
    n_cells: u32,
}

fn halted() -> bool {
    return atomicLoad(&step_flags[0]) != 0u;
}

// An order-preserving u32 key of an f32 (negative: all bits flipped; else the sign bit set):
// min and max of the keys are the keys of the min and max, whatever the order of the atomics
// (twin: gpu_rebuild::bounds_key).
fn bounds_key(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    if ((b & 0x80000000u) != 0u) {
        return ~b;
    }
    return b | 0x80000000u;
}

fn bounds_value(k: u32) -> f32 {
    if ((k & 0x80000000u) != 0u) {
        return bitcast<f32>(k & 0x7fffffffu);
    }
    return bitcast<f32>(~k);
}

const CELL_WG: u32 = 64u;

fn cell_of(s: SphereState) -> vec3<u32> {
    var c: vec3<u32>;
    for (var k = 0u; k < 3u; k++) {
        let x = (s.pos_hi[k] + s.pos_lo[k] - grid.origin[k]) / grid.cell_size;
        let f = min(max(floor(x), 0.0), f32(grid.dims[k] - 1u));
        c[k] = u32(f);
    }
    return c;
}

fn cell_index(c: vec3<u32>) -> u32 {
    return (c.z * grid.dims.y + c.y) * grid.dims.x + c.x;
}

fn is_candidate(a: SphereState, b: SphereState) -> bool {
    let d = df3_sub(a.pos_hi, a.pos_lo, b.pos_hi, b.pos_lo);
    let reach = a.radius + b.radius + sp.skin;
    return d.x * d.x + d.y * d.y + d.z * d.z < reach * reach;
}

@compute @workgroup_size(64)
fn cell_clear(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_id(wid, lid, nwg, CELL_WG);
    if (halted()) {
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
    let i = linear_id(wid, lid, nwg, CELL_WG);
    if (halted()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    atomicAdd(&cell_start[cell_index(cell_of(spheres[i]))], 1u);
}

@compute @workgroup_size(64)
fn cell_cursor(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_id(wid, lid, nwg, CELL_WG);
    if (halted()) {
        return;
    }
    if (c < grid.n_cells) {
        atomicStore(&cursor[c], atomicLoad(&cell_start[c]));
    }
}

@compute @workgroup_size(64)
fn cell_scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, CELL_WG);
    if (halted()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    let slot = atomicAdd(&cursor[cell_index(cell_of(spheres[i]))], 1u);
    cell_spheres[slot] = i;
}

// The candidates j > i of sphere i in the 27 cells around its own; writes them from `out`
// when `write` (pair_fill), returns their number.
fn visit_candidates(i: u32, write: bool, out: u32) -> u32 {
    let s = spheres[i];
    let c = vec3<i32>(cell_of(s));
    let dims = vec3<i32>(grid.dims);
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
                for (var k = a; k < b; k++) {
                    let j = cell_spheres[k];
                    if (j > i && is_candidate(s, spheres[j])) {
                        if (write) {
                            partner[out + n] = j;
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
fn pair_count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, CELL_WG);
    if (halted()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    pair_start[i] = visit_candidates(i, false, 0u);
}

// Fills row i and sorts it by partner (insertion sort, as the CPU twin).
@compute @workgroup_size(64)
fn pair_fill(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, CELL_WG);
    if (halted()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    let a = pair_start[i];
    let b = pair_start[i + 1u];
    _ = visit_candidates(i, true, a);
    for (var k = a + 1u; k < b; k++) {
        let v = partner[k];
        var m = k;
        while (m > a && partner[m - 1u] > v) {
            partner[m] = partner[m - 1u];
            m -= 1u;
        }
        partner[m] = v;
    }
}

// History of row i of the new list: a pair found (binary search) in row i of the old list keeps
// its record, a new one starts from zero (twin: cell_list::carry_history).
@compute @workgroup_size(64)
fn pair_carry(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, CELL_WG);
    if (halted()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    let lo0 = old_start[i];
    let hi0 = old_start[i + 1u];
    for (var k = pair_start[i]; k < pair_start[i + 1u]; k++) {
        let j = partner[k];
        let found = find_sorted(lo0, hi0, j);
        if (found != NONE) {
            history[k] = old_history[found];
        } else {
            history[k] = ContactHistory(vec3<f32>(0.0), 0.0, vec3<f32>(0.0), 0.0);
        }
    }
}

// The list `find_sorted` (history.wgsl) searches here: the partners of the old list.
fn sorted_key(i: u32) -> u32 {
    return old_partner[i];
}

// Index of partner j in row i of the old list (binary search), NONE if absent.
fn old_index(i: u32, j: u32) -> u32 {
    return find_sorted(old_start[i], old_start[i + 1u], j);
}

// Index of partner j in row i of the saved list (binary search over old_pairs), NONE if absent.
fn old_pair_index(i: u32, j: u32) -> u32 {
    var lo = old_start[i];
    var hi = old_start[i + 1u];
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        let v = old_pairs[7u * mid];
        if (v == j) {
            return mid;
        }
        if (v < j) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return NONE;
}

// pair_carry on the stepper's packed history, from the saved list (old_pairs; old_start holds
// its row starts): tangential 3 f32 per pair, the rolling torque too when its arrays hold one
// per pair.
@compute @workgroup_size(64)
fn pair_carry_packed(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, CELL_WG);
    if (halted()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    let rolling = arrayLength(&history_r) >= 3u * pair_start[sp.n_spheres] && arrayLength(&history_r) > 1u;
    for (var k = pair_start[i]; k < pair_start[i + 1u]; k++) {
        let o = old_pair_index(i, partner[k]);
        for (var c = 0u; c < 3u; c++) {
            var t = 0.0;
            var r = 0.0;
            if (o != NONE) {
                t = bitcast<f32>(old_pairs[7u * o + 1u + c]);
                if (rolling) {
                    r = bitcast<f32>(old_pairs[7u * o + 4u + c]);
                }
            }
            history_t[3u * k + c] = t;
            if (rolling) {
                history_r[3u * k + c] = r;
            }
        }
    }
}

// Twin of the bounding-box loop of cell_list::fit_grid: min and max of x = hi + lo per axis and
// the largest radius, by integer atomics on order-preserving keys (exact and order-independent,
// so the grid equals the host's bit for bit). The keys were reset by the previous fit_grid.
@compute @workgroup_size(64)
fn bounds_reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, CELL_WG);
    if (halted()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    let s = spheres[i];
    for (var k = 0u; k < 3u; k++) {
        let key = bounds_key(s.pos_hi[k] + s.pos_lo[k]);
        atomicMin(&bounds[k], key);
        atomicMax(&bounds[3u + k], key);
    }
    // Radii are ≥ 0: their bits order as their values.
    atomicMax(&bounds[6], bitcast<u32>(s.radius));
}

// The reset state of the bounds (what bounds_reduce folds into).
fn bounds_reset() {
    for (var k = 0u; k < 3u; k++) {
        atomicStore(&bounds[k], 0xffffffffu);
        atomicStore(&bounds[3u + k], 0u);
    }
    atomicStore(&bounds[6], 0u);
}

// Single thread, twin of cell_list::fit_grid from the reduced bounds: cell side 2 r_max + skin
// (× 1.26 until at most max(8 n, 4096) cells), one cell of margin. Halts the batch when the
// grid has more cells than the cell buffers hold (step_flags[7]: cells needed).
@compute @workgroup_size(1)
fn fit_grid() {
    if (halted()) {
        return;
    }
    var lo = vec3<f32>(0.0);
    var hi = vec3<f32>(0.0);
    if (sp.n_spheres > 0u) {
        for (var k = 0u; k < 3u; k++) {
            lo[k] = bounds_value(atomicLoad(&bounds[k]));
            hi[k] = bounds_value(atomicLoad(&bounds[3u + k]));
        }
    }
    let r_max = bitcast<f32>(atomicLoad(&bounds[6]));
    bounds_reset();
    var cell = 2.0 * r_max + sp.skin;
    if (!(cell > 0.0)) {
        cell = 1.0;
    }
    let limit = max(8u * sp.n_spheres, 4096u);
    // dims[k] = floor((hi − lo)/cell) + 3; the product ≤ limit tested without overflow.
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
            grid.origin = lo - vec3<f32>(cell);
            grid.dims = dims;
            grid.n_cells = cells;
            grid.cell_size = cell;
            if (cells > arrayLength(&cursor)) {
                atomicStore(&step_flags[7], cells);
                atomicStore(&step_flags[0], 1u);
            }
            return;
        }
        cell *= 1.26;
    }
}

// Single thread: the pair total against the pair buffers' capacity (the partner array's length).
// Over it, the batch halts here (the old list is saved, the new one not yet written) and the
// host grows the buffers and redoes the build; step_flags[4] holds the total either way.
@compute @workgroup_size(1)
fn pair_check() {
    if (halted()) {
        return;
    }
    let total = pair_start[sp.n_spheres];
    atomicStore(&step_flags[4], total);
    if (total > arrayLength(&partner)) {
        atomicStore(&step_flags[0], 1u);
    }
}

@compute @workgroup_size(64)
fn incident_clear(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, CELL_WG);
    if (halted()) {
        return;
    }
    if (i <= sp.n_spheres) {
        atomicStore(&incident_start[i], 0u);
    }
}

// Pairs per sphere j (the j side), counted from the owners' rows.
@compute @workgroup_size(64)
fn incident_count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, CELL_WG);
    if (halted()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    for (var k = pair_start[i]; k < pair_start[i + 1u]; k++) {
        atomicAdd(&incident_start[partner[k]], 1u);
    }
}

@compute @workgroup_size(64)
fn incident_cursor_init(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, CELL_WG);
    if (halted()) {
        return;
    }
    if (i < sp.n_spheres) {
        atomicStore(&incident_cursor[i], atomicLoad(&incident_start[i]));
    }
}

// Each pair k into its j's row (any order: the rows are sorted next).
@compute @workgroup_size(64)
fn incident_scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, CELL_WG);
    if (halted()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    for (var k = pair_start[i]; k < pair_start[i + 1u]; k++) {
        incident[atomicAdd(&incident_cursor[partner[k]], 1u)] = k;
    }
}

// Row j sorted by pair index (insertion sort; rows are short), so the list is deterministic.
@compute @workgroup_size(64)
fn incident_sort(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let j = linear_id(wid, lid, nwg, CELL_WG);
    if (halted()) {
        return;
    }
    if (j >= sp.n_spheres) {
        return;
    }
    let a = atomicLoad(&incident_start[j]);
    let b = atomicLoad(&incident_start[j + 1u]);
    for (var k = a + 1u; k < b; k++) {
        let v = incident[k];
        var m = k;
        while (m > a && incident[m - 1u] > v) {
            incident[m] = incident[m - 1u];
            m -= 1u;
        }
        incident[m] = v;
    }
}
