//! Three-vectors as `[f32; 3]` with the few operations the laws use, written in the order the
//! WGSL twins evaluate them (`dot(a, b)` = a.x b.x + a.y b.y + a.z b.z, left to right).

pub type V3 = [f32; 3];

#[inline(always)]
pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline(always)]
pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline(always)]
pub fn scale(a: V3, s: f32) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

#[inline(always)]
pub fn dot(a: V3, b: V3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline(always)]
pub fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[inline(always)]
pub fn norm(a: V3) -> f32 {
    dot(a, a).sqrt()
}

/// The part of `a` in the plane orthogonal to the unit vector `n`.
#[inline(always)]
pub fn tangential(a: V3, n: V3) -> V3 {
    sub(a, scale(n, dot(a, n)))
}
