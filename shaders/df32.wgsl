// df32.wgsl: the compiler barrier `opaque` and double-f32 addition (twins in src/model/df32.rs),
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
