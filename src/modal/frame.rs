//! The body frame: R(Θ) from a sine and cosine that round the same on every device
//! (`sin_cos_det`), and the rotations R v, Rᵀ v (twins in shaders/modal_lib.wgsl). Below the
//! modes and the contact functions, which both turn vectors between frames.

/// (sin x, cos x) from +, −, × only (Cody–Waite reduction by π/2, Taylor polynomials to x⁹ / x⁸
/// on |r| ≤ π/4, error < 1e-7), so the GPU twin `sin_cos_det` rounds identically: library sin/cos
/// differ by an ulp between lavapipe and Rust, and a multi-body run amplifies that.
pub fn sin_cos_det(x: f32) -> (f32, f32) {
    let k = (x * std::f32::consts::FRAC_2_PI).round_ties_even();
    let r = (x - k * 1.570_796_4) - k * (-4.371_139e-8);
    let r2 = r * r;
    let mut ps = 1.0 / 362_880.0;
    ps = ps * r2 - 1.0 / 5040.0;
    ps = ps * r2 + 1.0 / 120.0;
    ps = ps * r2 - 1.0 / 6.0;
    let sn = r + (r * r2) * ps;
    let mut pc = 1.0 / 40_320.0;
    pc = pc * r2 - 1.0 / 720.0;
    pc = pc * r2 + 1.0 / 24.0;
    pc = pc * r2 - 0.5;
    let cs = 1.0 + r2 * pc;
    match (k as i32) & 3 {
        0 => (sn, cs),
        1 => (cs, -sn),
        2 => (-sn, -cs),
        _ => (-cs, sn),
    }
}

pub fn rot(c: f32, s: f32, v: [f32; 2]) -> [f32; 2] {
    [c * v[0] - s * v[1], s * v[0] + c * v[1]]
}

pub fn rot_t(c: f32, s: f32, v: [f32; 2]) -> [f32; 2] {
    [c * v[0] + s * v[1], c * v[1] - s * v[0]]
}
