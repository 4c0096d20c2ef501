// fixed_reduce.wgsl: the fixed-order workgroup reduction of a wall's or plane's total force, one
// workgroup of REDUCE_LANES invocations per wall (twin: src/cpu/fixed_reduce.rs). Each lane brings
// its partial; the fixed binary tree (stride 128, 64, …, 1: p[i] = p[i] + p[i + stride]) adds
// them, so the order depends on neither the device nor the number of workgroups it runs at once.
// The lanes' partials are the caller's: strided (lane t takes items t, t + L, t + 2L, … in
// increasing order) in beads.wgsl plane_gather and modal_body.wgsl modal_walls_clock; blocks of
// ranks in sphere_step.wgsl wall_gather. The functions hold barriers: every lane of the workgroup
// calls them in uniform control flow (callers skip their final write instead of returning early).

const REDUCE_LANES: u32 = 256u;
var<workgroup> reduce_a: array<vec3<f32>, 256>;
var<workgroup> reduce_b: array<vec3<f32>, 256>;

// The workgroup's total of one partial per lane (returned to every lane). Twin: reduce_tree.
fn reduce_tree1(lane: u32, a: vec3<f32>) -> vec3<f32> {
    reduce_a[lane] = a;
    workgroupBarrier();
    for (var s = REDUCE_LANES / 2u; s > 0u; s /= 2u) {
        if (lane < s) {
            reduce_a[lane] = reduce_a[lane] + reduce_a[lane + s];
        }
        workgroupBarrier();
    }
    return reduce_a[0];
}

struct ReducedPair {
    a: vec3<f32>,
    b: vec3<f32>,
}

// Two partials per lane (a wall's force and torque) by the same tree. Twin: reduce_tree over pairs.
fn reduce_tree2(lane: u32, a: vec3<f32>, b: vec3<f32>) -> ReducedPair {
    reduce_a[lane] = a;
    reduce_b[lane] = b;
    workgroupBarrier();
    for (var s = REDUCE_LANES / 2u; s > 0u; s /= 2u) {
        if (lane < s) {
            reduce_a[lane] = reduce_a[lane] + reduce_a[lane + s];
            reduce_b[lane] = reduce_b[lane] + reduce_b[lane + s];
        }
        workgroupBarrier();
    }
    return ReducedPair(reduce_a[0], reduce_b[0]);
}
