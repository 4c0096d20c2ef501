// df32.wgsl: the compiler barrier `opaque`, double-f32 addition (twins in src/model/df32.rs) and
// the error-free transformations two_sum / two_prod (twins in src/cpu/core_area.rs),
// shared by the 2D SPD kernels (model.wgsl) and the modal ones (modal_lib.wgsl). The importing
// module provides `opaque_zero()`: a runtime zero (a uniform or storage field the host sets to 0)
// that the compiler cannot see through.

// x, unchanged, but opaque to the compiler. Also placed where a product feeds a sum that the
// driver could contract into a fused multiply-add (the CPU twin rounds each product): this keeps
// the CPU and GPU paths bit-identical on lavapipe in every acceptance case. Vulkan drivers
// (lavapipe's NIR, for one) may apply inexact algebra such as hi − (hi + t) + t → 0 to SPIR-V that
// naga emits without NoContraction, which would erase the rounding error TwoSum is meant to keep.
// The CPU twin needs no barrier.
fn opaque(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ opaque_zero());
}

// (hi, lo) + d for one coordinate: TwoSum of hi and (lo + d). Returns (hi', lo').
fn df_add(hi: f32, lo: f32, d: f32) -> vec2<f32> {
    let t = opaque(lo + d);
    let s = opaque(hi + t);
    let bp = opaque(s - hi);
    let e = opaque(hi - opaque(s - bp)) + opaque(t - bp);
    return vec2<f32>(s, e);
}

// Knuth's TwoSum: (s, e) with s + e = a + b exactly.
fn two_sum(a: f32, b: f32) -> vec2<f32> {
    let s = opaque(a + b);
    let bp = opaque(s - a);
    let e = opaque(opaque(a - opaque(s - bp)) + opaque(b - bp));
    return vec2<f32>(s, e);
}

// Veltkamp split: a = hi + lo with hi on the top 12 bits.
fn split(a: f32) -> vec2<f32> {
    let c = opaque(4097.0 * a);
    let hi = opaque(c - opaque(c - a));
    return vec2<f32>(hi, opaque(a - hi));
}

// Dekker's TwoProduct without FMA: (p, e) with p + e = a · b exactly.
fn two_prod(a: f32, b: f32) -> vec2<f32> {
    let p = opaque(a * b);
    let sa = split(a);
    let sb = split(b);
    var e = opaque(opaque(sa.x * sb.x) - p);
    e = opaque(e + opaque(sa.x * sb.y));
    e = opaque(e + opaque(sa.y * sb.x));
    e = opaque(e + opaque(sa.y * sb.y));
    return vec2<f32>(p, e);
}
