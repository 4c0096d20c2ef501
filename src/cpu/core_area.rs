//! Twin of `shaders/core_area.wgsl`: enclosed area of each closed shell by the signed shoelace
//! formula (relative to the first node, so the sum does not cancel far from the origin), and the
//! core pressure of §2.2: undrained p = p0 − K_Ω (V − V0)/V0 (eq 4), drained p = p0, gas p V = p0 V0.
//!
//! Precision. A stiff undrained core (K_Ω ≈ 10⁵ K_∂Ω, the paper's η ≃ 10⁵) turns ΔV/V0 = 10⁻⁹
//! into a visible pressure, while one f32 ulp of V is ΔV/V0 ≈ 6×10⁻⁸. The area is therefore
//! summed in double-f32, error-free where it matters:
//! - r_k = x_k − x_0 is the unevaluated sum hi + lo (`df_rel`: TwoSum of the hi parts plus the
//!   difference of the lo parts), so it keeps the displacements that live in `pos_lo`;
//! - each shoelace term r_k × r_{k+1} is the exact f32 products of the hi parts (Dekker's
//!   TwoProduct, no FMA: both backends round identically) plus the hi×lo cross terms in f32;
//! - the terms are accumulated by TwoSum in a fixed order: term k (k = 1 … N−2) into partial sum
//!   (k − 1) mod 8, each in order of k, and the eight partial sums are then added in order. (Eight
//!   chains instead of one, so that the CPU stepper adds eight terms at a time on lanes:
//!   `core_area_lanes`.)
//!
//! The area is then exact to about N·2⁻⁴⁴ A (dropped lo×lo terms and the f32 sum of the error
//! parts) plus N·2⁻⁴⁸ |x_0| R from rounding the lo differences (10⁻¹¹ A at 100 R from the
//! origin), whatever the rotation. ΔA = |A| − A0 is formed against the host's
//! reference area A0 (double-f32 in `Body`, from f64), so V − V0 = s ΔA is resolved relative to
//! itself, not to V: p = p0 − K_Ω ΔA/A0 (eq 4 with V = s A, V0 = s A0).
//! Test: `tests/core_area.rs` (CPU and GPU on the same polygons).

use crate::model::lanes::Real;
use crate::model::*;

/// Knuth's TwoSum: s + e = a + b exactly.
#[inline(always)]
pub fn two_sum<T: Real>(a: T, b: T) -> (T, T) {
    let s = a + b;
    let bp = s - a;
    let e = (a - (s - bp)) + (b - bp);
    (s, e)
}

/// Veltkamp split: a = hi + lo with hi on the top 12 bits, so products of halves are exact.
#[inline(always)]
fn split<T: Real>(a: T) -> (T, T) {
    let c = T::splat(4097.0) * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// Dekker's TwoProduct without FMA: p + e = a · b exactly (no overflow or underflow here).
#[inline(always)]
pub fn two_prod<T: Real>(a: T, b: T) -> (T, T) {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    let e = (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
    (p, e)
}

/// A vector r = hi + lo per component.
pub type Rel<T> = ([T; 2], [T; 2]);

/// x_a − x_o as (hi, lo) per component, with hi + lo exact to 2⁻⁴⁸ of the coordinates; the
/// positions as (pos_hi, pos_lo).
#[inline(always)]
pub fn df_rel<T: Real>(a_hi: [T; 2], a_lo: [T; 2], o_hi: [T; 2], o_lo: [T; 2]) -> Rel<T> {
    let mut hi = [T::splat(0.0); 2];
    let mut lo = [T::splat(0.0); 2];
    for d in 0..2 {
        let (s, e) = two_sum(a_hi[d], -o_hi[d]);
        let t = e + (a_lo[d] - o_lo[d]);
        (hi[d], lo[d]) = two_sum(s, t);
    }
    (hi, lo)
}

/// The parts of r_a × r_c that do not depend on the running sum: the hi×hi products p1 = a_x c_y
/// and p2 = a_y c_x, and everything smaller (their rounding errors exactly, the hi×lo terms in
/// f32; lo×lo dropped, 2⁻⁴⁸).
#[inline(always)]
pub fn cross_parts<T: Real>(a: Rel<T>, c: Rel<T>) -> (T, T, T) {
    let (ah, al) = a;
    let (ch, cl) = c;
    let (p1, e1) = two_prod(ah[0], ch[1]);
    let (p2, e2) = two_prod(ah[1], ch[0]);
    let small = ((e1 - e2) + (ah[0] * cl[1] + al[0] * ch[1])) - (ah[1] * cl[0] + al[1] * ch[0]);
    (p1, p2, small)
}

/// Adds p1 − p2 + small to the double-f32 sum (sum_hi, sum_lo), p1 and p2 by TwoSum.
#[inline(always)]
pub fn accumulate<T: Real>(sum: (T, T), (p1, p2, small): (T, T, T)) -> (T, T) {
    let (s, f1) = two_sum(sum.0, p1);
    let (s, f2) = two_sum(s, -p2);
    (s, sum.1 + ((f1 + f2) + small))
}

/// r_k = x_{first+k} − x_first.
#[inline(always)]
fn rel(pos: &[NodeState], first: usize, k: usize) -> Rel<f32> {
    let (a, o) = (&pos[first + k], &pos[first]);
    df_rel(a.pos_hi, a.pos_lo, o.pos_hi, o.pos_lo)
}

/// Partial sums of the shoelace terms: term k goes into sum (k − 1) mod `SUMS`.
pub const SUMS: usize = 8;

pub fn core_area(b: usize, bodies: &[Body], materials: &[Material], pos: &[NodeState]) -> BodyState {
    let body = bodies[b];
    if body.flags & BODY_CLOSED == 0 {
        return BodyState::default();
    }
    let first = body.first as usize;
    // Twice the signed area, hi + lo, in SUMS partial sums.
    let mut part = [(0.0f32, 0.0f32); SUMS];
    let mut ra = rel(pos, first, 1); // a closed body has ≥ 2 nodes
    for k in 1..(body.count as usize).saturating_sub(1) {
        let rc = rel(pos, first, k + 1);
        let l = (k - 1) % SUMS;
        part[l] = accumulate(part[l], cross_parts(ra, rc));
        ra = rc;
    }
    core_state(&body, materials, combine(part))
}

/// The partial sums added in order 0 … SUMS − 1 (hi parts by TwoSum).
#[inline]
pub fn combine(part: [(f32, f32); SUMS]) -> (f32, f32) {
    let mut twice = (0.0f32, 0.0f32);
    for (hi, lo) in part {
        let (s, e) = two_sum(twice.0, hi);
        twice = (s, twice.1 + (e + lo));
    }
    twice
}

/// Area, area change and core pressure of a closed body from twice its signed area (hi, lo).
#[inline]
pub fn core_state(body: &Body, materials: &[Material], twice: (f32, f32)) -> BodyState {
    let mut out = BodyState::default();
    let (t_hi, t_lo) = two_sum(twice.0, twice.1);
    out.area = 0.5 * t_hi;
    // |A| − A0 (eq 4): halving and the sign are exact; one TwoSum against A0's hi part.
    let sign = if t_hi < 0.0 { -1.0f32 } else { 1.0f32 };
    let (d, e) = two_sum(0.5 * sign * t_hi, -body.core_a0_hi);
    let d_area = d + ((e + 0.5 * sign * t_lo) - body.core_a0_lo);
    out.area_change = d_area;
    let m = materials[body.material as usize];
    let v = m.depth * out.area.abs();
    out.pressure = match body.core_model {
        CORE_UNDRAINED => body.core_p0 - m.k_core * d_area / body.core_a0_hi,
        CORE_DRAINED => body.core_p0,
        CORE_GAS => body.core_p0 * body.core_v0 / v,
        _ => 0.0,
    };
    out
}
