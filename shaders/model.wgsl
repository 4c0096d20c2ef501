// model.wgsl: the SPD kernels' simulation parameters binding and deterministic helpers (twins in
// src/model/df32.rs), over the records of spd_records.wgsl. Imported by every SPD physics kernel.

#import common
#import df32
#import spd_records

// Records: spd_records.wgsl.

@group(0) @binding(0) var<uniform> params: SimParams;

// The runtime zero behind `opaque` (df32.wgsl).
fn opaque_zero() -> u32 {
    return params.opaque_zero;
}

// Words in each half of the marks buffer (slot marks, then gather marks): ceil(n / 32)
// (twin: model::layout::gathers, which takes the half of the array's length).
fn marks_words() -> u32 {
    return (params.n_nodes + 31u) / 32u;
}

// ---- Double-f32 positions and deterministic functions (twins in src/model/df32.rs). ----

// df_add and opaque: df32.wgsl.

// Vector from position b to position a.
fn df_sub(a: NodeState, b: NodeState) -> vec2<f32> {
    let h = a.pos_hi - b.pos_hi;
    let l = a.pos_lo - b.pos_lo;
    return vec2<f32>(opaque(h.x) + opaque(l.x), opaque(h.y) + opaque(l.y));
}

fn atan_small(x: f32) -> f32 {
    let s = x * x;
    var p = -1.0 / 15.0;
    p = p * s + 1.0 / 13.0;
    p = p * s - 1.0 / 11.0;
    p = p * s + 1.0 / 9.0;
    p = p * s - 1.0 / 7.0;
    p = p * s + 1.0 / 5.0;
    p = p * s - 1.0 / 3.0;
    p = p * s + 1.0;
    return p * x;
}

// atan2 from +, -, *, / only, bit-identical to the CPU twin.
fn atan2_det(y: f32, x: f32) -> f32 {
    let ax = abs(x);
    let ay = abs(y);
    let mx = max(ax, ay);
    let mn = min(ax, ay);
    if (mx == 0.0) {
        return 0.0;
    }
    let a = mn / mx;
    var r: f32;
    if (a > 0.41421357) {
        r = 0.78539816339745 + atan_small((a - 1.0) / (a + 1.0));
    } else {
        r = atan_small(a);
    }
    if (ay > ax) {
        r = 1.57079632679490 - r;
    }
    if (x < 0.0) {
        r = PI - r;
    }
    if (y < 0.0) {
        r = -r;
    }
    return r;
}

fn cross2(a: vec2<f32>, b: vec2<f32>) -> f32 {
    return a.x * b.y - a.y * b.x;
}

fn dot2(a: vec2<f32>, b: vec2<f32>) -> f32 {
    return a.x * b.x + a.y * b.y;
}

fn perp(a: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(-a.y, a.x);
}

// ---- Workgroup reduction (kernels of workgroup size 64). ----

var<workgroup> wg_max: array<u32, 64>;

// Largest `value` over the 64 invocations of the workgroup; every invocation must call it.
// `value` is +0 or more (lengths, displacements) or NaN: for those the order of the bits as
// integers is the order of the values, with NaN above +∞. The reduction compares bits, so a NaN
// always wins and no float comparison is involved (a fast-math compiler may assume no NaN and
// drop it from a float max).
fn workgroup_max(lid: u32, value: f32) -> f32 {
    wg_max[lid] = bitcast<u32>(value);
    workgroupBarrier();
    for (var stride = 32u; stride > 0u; stride >>= 1u) {
        if (lid < stride) {
            wg_max[lid] = max(wg_max[lid], wg_max[lid + stride]);
        }
        workgroupBarrier();
    }
    return bitcast<f32>(wg_max[0]);
}
