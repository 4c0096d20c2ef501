// sphere_cell_list.wgsl: the spheres' candidate pair list on the 3D cell list of grid3d.wgsl
// (items and owners: the spheres; a pair (i, j > i) is a candidate when |x_i − x_j| < r_i + r_j +
// skin), twin of src/spheres/cell_list.rs (same names). Order of one build
// (src/spheres/gpu_cell_list.rs):
//   cell_clear → cell_count → scan(cell_start) → cell_cursor → cell_scatter → cand_count →
//   scan(cand_start) → cand_fill → cand_carry.
// The GPU stepper's build (device-resident, no read-back; src/spheres/gpu_rebuild.rs) fits the
// grid on the device first (bounds_reduce → fit_grid, twin of cell_list::fit_grid), runs the same
// kernels up to the pair scan, checks the pair total against the capacity (pair_check: an
// overflow halts the batch, the host grows the buffers and redoes the build), then cand_fill →
// pair_carry_packed → incident_clear → incident_count → scan(incident_start) → incident_cursor →
// incident_scatter → incident_sort. Every kernel returns at once when the batch is halted.
// Integer atomics only (counts and cursors); a cell's spheres land in any order, but each row of
// the pair list is sorted by partner, so the list (and everything after it) is deterministic.
// Bindings 2–10 (cells, pair rows `cand_start`/`cand`, old list, history) are grid3d's.

#import grid3d

@group(0) @binding(1) var<storage, read> spheres: array<SphereState>;

// The stepper's packed history (3 f32 per pair; the rolling one sized only when a law uses it,
// one element otherwise) and the j-side incident lists (see shaders/sphere_step.wgsl). The
// history before the build is read from the saved list (old_pairs).
@group(0) @binding(12) var<storage, read_write> history_t: array<f32>;
@group(0) @binding(14) var<storage, read_write> history_r: array<f32>;
@group(0) @binding(15) var<storage, read_write> incident_start: array<atomic<u32>>;
@group(0) @binding(16) var<storage, read_write> incident: array<u32>;
@group(0) @binding(17) var<storage, read_write> incident_cursor: array<atomic<u32>>;
// The stepper's step flags (shaders/sphere_step.wgsl: [0] halt, [4] pair total, [7] cells
// needed); zeros in the host-array build.
@group(0) @binding(18) var<storage, read_write> step_flags: array<atomic<u32>>;
// The grid of the build (written by fit_grid, or by the host in the host-array build).
@group(0) @binding(19) var<storage, read_write> grid: Grid3;
// Bounding box keys (bounds_key: lo x y z, hi x y z) and r_max's bits, reduced by atomics.
@group(0) @binding(20) var<storage, read_write> bounds: array<atomic<u32>>;
// The list before the build, saved by list_save (shaders/sphere_rebuild.wgsl) into the pair
// results' buffer: 7 words per old pair k from 7k: partner (bits), tangential (3), rolling (3).
@group(0) @binding(21) var<storage, read> old_pairs: array<u32>;

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

fn is_candidate(a: SphereState, b: SphereState) -> bool {
    let d = df3_sub(a.pos_hi, a.pos_lo, b.pos_hi, b.pos_lo);
    let reach = a.radius + b.radius + sp.skin;
    return d.x * d.x + d.y * d.y + d.z * d.z < reach * reach;
}

// grid3d's hooks: the spheres are both the items and the owners; a row holds the j > i.
fn grid_of() -> Grid3 {
    return grid;
}

fn grid_halted() -> bool {
    return halted();
}

fn n_items() -> u32 {
    return sp.n_spheres;
}

fn item_point(i: u32) -> vec3<f32> {
    return spheres[i].pos_hi + spheres[i].pos_lo;
}

fn n_owners() -> u32 {
    return sp.n_spheres;
}

fn owner_point(i: u32) -> vec3<f32> {
    return item_point(i);
}

fn has_row(i: u32) -> bool {
    return true;
}

fn is_near(i: u32, j: u32) -> bool {
    return j > i && is_candidate(spheres[i], spheres[j]);
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
    if (halted() || i >= sp.n_spheres) {
        return;
    }
    let rolling = arrayLength(&history_r) >= 3u * cand_start[sp.n_spheres] && arrayLength(&history_r) > 1u;
    for (var k = cand_start[i]; k < cand_start[i + 1u]; k++) {
        let o = old_pair_index(i, cand[k]);
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
var<workgroup> wg_bounds: array<atomic<u32>, 7>;

@compute @workgroup_size(64)
fn bounds_reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, CELL_WG);
    // Reduced in the workgroup first (min and max are exact: the same keys whatever the order),
    // then 7 atomics per workgroup on the shared words instead of 7 per sphere. No return before
    // the barriers (they must be reached by the whole workgroup).
    if (lid.x < 3u) {
        atomicStore(&wg_bounds[lid.x], 0xffffffffu);
    } else if (lid.x < 7u) {
        atomicStore(&wg_bounds[lid.x], 0u);
    }
    workgroupBarrier();
    let live = !halted();
    if (live && i < sp.n_spheres) {
        let s = spheres[i];
        for (var k = 0u; k < 3u; k++) {
            let key = bounds_key(s.pos_hi[k] + s.pos_lo[k]);
            atomicMin(&wg_bounds[k], key);
            atomicMax(&wg_bounds[3u + k], key);
        }
        // Radii are ≥ 0: their bits order as their values.
        atomicMax(&wg_bounds[6], bitcast<u32>(s.radius));
    }
    workgroupBarrier();
    if (live && lid.x < 7u) {
        // The reset values are the identities of min and max: an empty workgroup changes nothing.
        let v = atomicLoad(&wg_bounds[lid.x]);
        if (lid.x < 3u) {
            atomicMin(&bounds[lid.x], v);
        } else {
            atomicMax(&bounds[lid.x], v);
        }
    }
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
    let g = grid_fit(lo, hi, cell, max(8u * sp.n_spheres, 4096u));
    if (g.n_cells == 0u) {
        return;
    }
    grid = g;
    if (g.n_cells > arrayLength(&cursor)) {
        atomicStore(&step_flags[7], g.n_cells);
        atomicStore(&step_flags[0], 1u);
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
    let total = cand_start[sp.n_spheres];
    atomicStore(&step_flags[4], total);
    if (total > arrayLength(&cand)) {
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
    if (halted() || i >= sp.n_spheres) {
        return;
    }
    for (var k = cand_start[i]; k < cand_start[i + 1u]; k++) {
        atomicAdd(&incident_start[cand[k]], 1u);
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
    if (halted() || i >= sp.n_spheres) {
        return;
    }
    for (var k = cand_start[i]; k < cand_start[i + 1u]; k++) {
        incident[atomicAdd(&incident_cursor[cand[k]], 1u)] = k;
    }
}

// Row j sorted by pair index (insertion sort; rows are short), so the list is deterministic.
@compute @workgroup_size(64)
fn incident_sort(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let j = linear_id(wid, lid, nwg, CELL_WG);
    if (halted() || j >= sp.n_spheres) {
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
