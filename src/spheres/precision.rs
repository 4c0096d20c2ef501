//! Position precision of the sphere kind: double-f32 (hi + lo per coordinate), as the 2D engine.
//!
//! Why: forces and velocities are f32 (fast on every GPU; f64 runs at 1/32–1/64 on consumer
//! NVIDIA parts), but an f32 coordinate of 0.1 m has an ulp of 7.5e-9 m, and a quasi-static
//! compression (the paper's oedometer: 0.167 m × 13.4 % over ~10⁶ steps) moves a sphere ~2e-8 m
//! per step, a few ulp, so increments are rounded by up to ±50 % and at slower rates vanish
//! (stall). hi + lo keeps ~48 bits; the TwoSum update `model::df32::df_add` is reused per
//! component, and relative vectors are (hi_a − hi_b) + (lo_a − lo_b). WGSL twins: `df3_add`,
//! `df3_sub` in `shaders/sphere_state.wgsl` (through `opaque` of df32.wgsl).
//! Test: `tests/sphere_precision.rs`.

use crate::model::df32::df_add;

/// (hi, lo) + d per component.
#[inline(always)]
pub fn df3_add(hi: [f32; 3], lo: [f32; 3], d: [f32; 3]) -> ([f32; 3], [f32; 3]) {
    let (x0, e0) = df_add(hi[0], lo[0], d[0]);
    let (x1, e1) = df_add(hi[1], lo[1], d[1]);
    let (x2, e2) = df_add(hi[2], lo[2], d[2]);
    ([x0, x1, x2], [e0, e1, e2])
}

/// a − b, (a_hi − b_hi) + (a_lo − b_lo) per component.
#[inline(always)]
pub fn df3_sub(a_hi: [f32; 3], a_lo: [f32; 3], b_hi: [f32; 3], b_lo: [f32; 3]) -> [f32; 3] {
    [
        (a_hi[0] - b_hi[0]) + (a_lo[0] - b_lo[0]),
        (a_hi[1] - b_hi[1]) + (a_lo[1] - b_lo[1]),
        (a_hi[2] - b_hi[2]) + (a_lo[2] - b_lo[2]),
    ]
}

/// An f64 position as hi (nearest f32) + lo (the rest, rounded).
pub fn df3_split(p: [f64; 3]) -> ([f32; 3], [f32; 3]) {
    let hi = [p[0] as f32, p[1] as f32, p[2] as f32];
    (
        hi,
        [
            (p[0] - hi[0] as f64) as f32,
            (p[1] - hi[1] as f64) as f32,
            (p[2] - hi[2] as f64) as f32,
        ],
    )
}

/// hi + lo as f64.
pub fn df3_value(hi: [f32; 3], lo: [f32; 3]) -> [f64; 3] {
    [
        hi[0] as f64 + lo[0] as f64,
        hi[1] as f64 + lo[1] as f64,
        hi[2] as f64 + lo[2] as f64,
    ]
}
