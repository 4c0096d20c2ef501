//! The CPU stepper's core_area pass: `core_area` (the scalar twin of `shaders/core_area.wgsl`)
//! with its per-node work on eight lanes (`F8`, or `F8Avx` where the CPU has AVX2).
//!
//! The shoelace sum of a body is eight chains: term k (k = 1 … N−2) is added by TwoSum to the
//! double-f32 partial sum (k − 1) mod 8, in order of k, and the partial sums are added in order
//! at the end; that fixed order is what makes both twins give the same bits. Here lane l holds
//! partial sum l: the relative vectors r_k (`df_rel`), the parts of r_k × r_{k+1}
//! (`cross_parts`: two exact products and the small terms) and the additions (`accumulate`) run
//! on eight k at a time, for `BLOCK` terms staged in structure-of-arrays form, so the result is
//! bit for bit `core_area`'s (test `lanes_equal_the_scalar_twin_bit_for_bit`).

use super::core_area::{accumulate, combine, core_area, core_state, cross_parts, df_rel, SUMS};
use crate::model::lanes::{Lanes, F8, LANES};
use crate::model::*;

/// Terms staged at a time (a multiple of `LANES`, so lane l always holds partial sum l).
const BLOCK: usize = 64;
const _: () = assert!(SUMS == LANES && BLOCK.is_multiple_of(LANES));

/// `core_area` of bodies b0 … b0 + out.len() − 1, into `out`.
pub fn core_area_run(b0: usize, bodies: &[Body], materials: &[Material], pos: &[NodeState], out: &mut [BodyState]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above), the only requirement of a
        // `#[target_feature(enable = "avx2")]` function.
        unsafe { run_avx2(b0, bodies, materials, pos, out) };
        return;
    }
    run::<F8>(b0, bodies, materials, pos, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn run_avx2(b0: usize, bodies: &[Body], materials: &[Material], pos: &[NodeState], out: &mut [BodyState]) {
    run::<crate::model::lanes::F8Avx>(b0, bodies, materials, pos, out);
}

#[inline(always)]
fn run<L: Lanes>(b0: usize, bodies: &[Body], materials: &[Material], pos: &[NodeState], out: &mut [BodyState]) {
    // The staging buffer serves every body of the run: zeroing it per body cost more than a
    // 32-node body's terms (a `memset`, 3 % of a step). What a body's terms read it wrote first
    // (`r` up to `padded`).
    let mut r = [[0.0f32; BLOCK + 2 * LANES]; 4];
    for (i, o) in out.iter_mut().enumerate() {
        *o = body_area::<L>(b0 + i, bodies, materials, pos, &mut r);
    }
}

/// `core_area` of body b.
#[inline(always)]
fn body_area<L: Lanes>(
    b: usize,
    bodies: &[Body],
    materials: &[Material],
    pos: &[NodeState],
    r: &mut [[f32; BLOCK + 2 * LANES]; 4],
) -> BodyState {
    let body = bodies[b];
    if body.flags & BODY_CLOSED == 0 || body.count < 3 {
        return core_area(b, bodies, materials, pos);
    }
    let first = body.first as usize;
    let count = body.count as usize;
    let o = &pos[first];
    let o_hi = [L::splat(o.pos_hi[0]), L::splat(o.pos_hi[1])];
    let o_lo = [L::splat(o.pos_lo[0]), L::splat(o.pos_lo[1])];
    let mut part = (L::splat(0.0), L::splat(0.0));
    // Terms k = k0 … k0 + len − 1 use r_k0 … r_{k0+len}.
    let mut k0 = 1;
    while k0 + 1 < count {
        let len = BLOCK.min(count - 1 - k0);
        let padded = len.next_multiple_of(LANES);
        // r for nodes k0 … k0 + len, eight at a time (one group more for the shifted r_{k+1}),
        // from their position rows (`Lanes::transpose4`); copies of the last fill the lanes.
        for g in (0..=padded).step_by(LANES) {
            let rows = std::array::from_fn(|l| pos[first + k0 + (g + l).min(len)].pos_row());
            let [hi_x, hi_y, lo_x, lo_y] = L::transpose4(rows);
            let (hi, lo) = df_rel([hi_x, hi_y], [lo_x, lo_y], o_hi, o_lo);
            for (f, v) in [hi[0], hi[1], lo[0], lo[1]].into_iter().enumerate() {
                v.store(&mut r[f][g..]);
            }
        }
        // The parts of each term and their addition to the partial sums, eight at a time; the
        // lanes past the last term keep their sums.
        for g in (0..len).step_by(LANES) {
            let at = |i: usize| -> ([L; 2], [L; 2]) {
                let ld = |f: usize| L::load(&r[f][i..]);
                ([ld(0), ld(1)], [ld(2), ld(3)])
            };
            let sum = accumulate(part, cross_parts(at(g), at(g + 1)));
            part = if len - g >= LANES {
                sum
            } else {
                let live = L::mask(std::array::from_fn(|l| l < len - g));
                (L::select(live, sum.0, part.0), L::select(live, sum.1, part.1))
            };
        }
        k0 += len;
    }
    let (hi, lo) = (part.0.to_array(), part.1.to_array());
    core_state(&body, materials, combine(std::array::from_fn(|l| (hi[l], lo[l]))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenes::SplitMix;

    /// Closed bodies of 3 to 200 nodes (one term to several blocks), far from the origin and
    /// near it, both orientations, with random sub-ulp `pos_lo` parts; open lines are passed on.
    #[test]
    fn lanes_equal_the_scalar_twin_bit_for_bit() {
        let mut rng = SplitMix(11);
        let mut sc = Scene::default();
        let m = sc.add_material(Material {
            k_s: 1.0,
            k_b: 1.0,
            k_core: 1.0,
            depth: 1.0,
            ..Default::default()
        });
        let o = BodyOptions {
            material: m,
            radius: 0.05,
            node_mass: 1.0,
            frozen: false,
            self_contact: false,
            core: Core::Undrained { p0: 0.0 },
        };
        for (k, n) in [3usize, 4, 8, 9, 17, 32, 63, 64, 65, 66, 130, 200]
            .into_iter()
            .enumerate()
        {
            let c = if k % 2 == 0 { [1234.5, -987.0] } else { [0.3, 0.1] };
            let body = sc.add_ring(c, 1.0 + 0.1 * k as f64, n, o);
            if k % 3 == 0 {
                // Clockwise: reverse the node order (negative signed area).
                let b = sc.bodies[body as usize];
                sc.init[b.first as usize..(b.first + b.count) as usize].reverse();
            }
        }
        sc.add_line([0.0, -5.0], [3.0, -5.0], 10, BodyOptions { core: Core::None, ..o });
        for _ in 0..50 {
            let mut pos = sc.init.clone();
            for p in pos.iter_mut() {
                let mut j = |s: f64| ((rng.next_f64() - 0.5) * s) as f32;
                p.pos_hi = [p.pos_hi[0] + j(0.1), p.pos_hi[1] + j(0.1)];
                p.pos_lo = [j(1e-4), j(1e-4)];
            }
            let nb = sc.bodies.len();
            let mut got = vec![BodyState::default(); nb];
            core_area_run(0, &sc.bodies, &sc.materials, &pos, &mut got);
            let mut base = vec![BodyState::default(); nb];
            run::<F8>(0, &sc.bodies, &sc.materials, &pos, &mut base);
            for b in 0..nb {
                let want = bytemuck::bytes_of(&core_area(b, &sc.bodies, &sc.materials, &pos)).to_vec();
                assert_eq!(bytemuck::bytes_of(&got[b]), want, "body {b}");
                assert_eq!(bytemuck::bytes_of(&base[b]), want, "body {b}");
            }
        }
    }
}
