//! The per-sphere tail of the active-pair sweep (`ActivePairs::gather_kick`), eight spheres at a
//! time on SIMD lanes: damping of the gathered force and torque, `kick_pass`'s closing
//! half-kick, the next step's half-kick and drift (eq 1, double-f32 positions), and the two move
//! checks of that drift (the list's rebuild check against `x_ref`, the near list's against
//! `x_near`, `ActivePairs::near_stale`). The gather itself (variable-length sums in a fixed
//! order) stays scalar; this tail was about half of the sweep's scalar work.
//!
//! One source for both: `tail` is generic over `Real`, run on `f32` for a single sphere and on
//! eight lanes (`F8Avx` with AVX2, else `F8`) for eight, so every lane gives the scalar bits
//! (`model::lanes`: IEEE +, −, ×, ÷ round alike in vector and scalar registers, no FMA; branches
//! as selects). `damp`'s `v ≠ 0` branch and `signum` become selects with the same values (a NaN
//! velocity: NaN sign, as `f32::signum`). Test: `tests/sphere_active_pairs.rs` and
//! `tests/sphere_lanes.rs` compare `steps(k)` with `step()` bit for bit.

use super::Drift;
use crate::laws::vec3::V3;
use crate::model::df32::df_add;
use crate::model::lanes::{Lanes, Real, F8, LANES};
use crate::spheres::state::{SphereForce, SphereState};
use rayon::prelude::*;

/// What the tail reads besides the spheres: the closing kick's h, the next step's drift (none
/// at a call's last step), the damping, the reference positions of the two move checks and the
/// near check's limit (0: none).
#[derive(Clone, Copy)]
pub struct KickInputs<'a> {
    pub h: f32,
    pub next: Option<Drift>,
    pub global_damping: f32,
    pub local_damping: f32,
    pub x_ref: &'a [V3],
    pub x_near: &'a [V3],
    pub near_lim: f32,
}

/// What a sphere's (or eight spheres') tail found: moved beyond the rebuild limit, moved beyond
/// the near limit.
#[derive(Clone, Copy, Debug, Default)]
pub struct Moved {
    pub rebuild: bool,
    pub near: bool,
}

impl Moved {
    pub fn or(self, o: Moved) -> Moved {
        Moved {
            rebuild: self.rebuild | o.rebuild,
            near: self.near | o.near,
        }
    }
}

/// A sphere's fields as the tail reads and writes them.
struct Body<L> {
    hi: [L; 3],
    lo: [L; 3],
    vel: [L; 3],
    omega: [L; 3],
    mass: L,
    inertia: L,
}

/// `cpu_stepper::damp` with its branch as a select: −c v, then −α |f_k| sign(v_k) where v_k ≠ 0.
#[inline(always)]
fn damp<L: Real>(f: [L; 3], v: [L; 3], c: L, alpha: L) -> [L; 3] {
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    let mut out = [f[0] - v[0] * c, f[1] - v[1] * c, f[2] - v[2] * c];
    for k in 0..3 {
        // f32::signum of a nonzero v: ±1, NaN for NaN.
        let sign = L::select(
            L::gt(v[k], zero),
            one,
            L::select(L::lt(v[k], zero), -one, L::splat(f32::NAN)),
        );
        let damped = out[k] - alpha * out[k].abs() * sign;
        out[k] = L::select(L::eq(v[k], zero), out[k], damped);
    }
    out
}

/// The tail of one sphere or eight: damping, kicks, drift; returns the damped force and torque
/// and the squared distances from the two reference positions (zero without `next`).
// Plain loops, no closures: a closure is compiled without AVX2 (`model::f8`).
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn tail<L: Real>(
    b: &mut Body<L>,
    f: [L; 3],
    t: [L; 3],
    inp: &KickInputs,
    x_ref: [L; 3],
    x_near: [L; 3],
) -> ([L; 3], [L; 3], L, L) {
    let gd = L::splat(inp.global_damping);
    let alpha = L::splat(inp.local_damping);
    let f = damp(f, b.vel, gd * b.mass, alpha);
    let t = damp(t, b.omega, gd * b.inertia, alpha);
    let (hm, hi_) = (L::splat(inp.h) / b.mass, L::splat(inp.h) / b.inertia);
    for k in 0..3 {
        b.vel[k] = b.vel[k] + f[k] * hm;
        b.omega[k] = b.omega[k] + t[k] * hi_;
    }
    let zero = L::splat(0.0);
    let (mut d_ref, mut d_near) = (zero, zero);
    if let Some(d) = inp.next {
        let (hm, hi_) = (L::splat(d.h) / b.mass, L::splat(d.h) / b.inertia);
        for k in 0..3 {
            b.vel[k] = b.vel[k] + f[k] * hm;
            b.omega[k] = b.omega[k] + t[k] * hi_;
        }
        let dt = L::splat(d.dt);
        let mut x = [zero; 3];
        for k in 0..3 {
            (b.hi[k], b.lo[k]) = df_add(b.hi[k], b.lo[k], b.vel[k] * dt);
            x[k] = b.hi[k] + b.lo[k];
        }
        let r = [x[0] - x_ref[0], x[1] - x_ref[1], x[2] - x_ref[2]];
        d_ref = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        let q = [x[0] - x_near[0], x[1] - x_near[1], x[2] - x_near[2]];
        d_near = q[0] * q[0] + q[1] * q[1] + q[2] * q[2];
    }
    (f, t, d_ref, d_near)
}

/// The move checks on the squared distances: `moved_beyond` (rebuild) and `near_stale`'s
/// negated comparison (a NaN counts as moved).
#[inline(always)]
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn checks(inp: &KickInputs, d_ref: f32, d_near: f32) -> Moved {
    match inp.next {
        Some(d) => Moved {
            rebuild: d_ref > d.lim * d.lim,
            near: inp.near_lim > 0.0 && !(d_near <= inp.near_lim * inp.near_lim),
        },
        None => Moved::default(),
    }
}

/// Sphere i alone (state `s`, gathered force `f` and torque `t`); the damped force and torque
/// go to `fo` at a call's last step (no `next`).
#[inline]
pub fn kick_one(inp: &KickInputs, i: usize, s: &mut SphereState, f: V3, t: V3, fo: &mut SphereForce) -> Moved {
    let mut b = Body {
        hi: s.pos_hi,
        lo: s.pos_lo,
        vel: s.vel,
        omega: s.omega,
        mass: s.mass,
        inertia: s.inertia,
    };
    let zero = [0.0f32; 3];
    let (x_ref, x_near) = match inp.next {
        Some(_) => (inp.x_ref[i], inp.x_near.get(i).copied().unwrap_or(zero)),
        None => (zero, zero),
    };
    let (f, t, d_ref, d_near) = tail(&mut b, f, t, inp, x_ref, x_near);
    (s.pos_hi, s.pos_lo, s.vel, s.omega) = (b.hi, b.lo, b.vel, b.omega);
    if inp.next.is_none() {
        *fo = SphereForce {
            force: f,
            torque: t,
            ..Default::default()
        };
    }
    checks(inp, d_ref, d_near)
}

/// Spheres i0 … i0 + 7 (`s`, gathered forces `f` and torques `t`), as eight `kick_one`.
pub fn kick_eight(
    inp: &KickInputs,
    i0: usize,
    s: &mut [SphereState],
    f: &[V3; LANES],
    t: &[V3; LANES],
    fo: &mut [SphereForce],
) -> Moved {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above), the only requirement of a
        // `#[target_feature(enable = "avx2")]` function.
        return unsafe { eight_avx2(inp, i0, s, f, t, fo) };
    }
    eight::<F8>(inp, i0, s, f, t, fo)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn eight_avx2(
    inp: &KickInputs,
    i0: usize,
    s: &mut [SphereState],
    f: &[V3; LANES],
    t: &[V3; LANES],
    fo: &mut [SphereForce],
) -> Moved {
    eight::<crate::model::lanes::F8Avx>(inp, i0, s, f, t, fo)
}

/// Component k of eight vectors as lanes.
#[inline(always)]
fn comp<L: Lanes>(v: &[V3], k: usize) -> L {
    L::from_array([v[0][k], v[1][k], v[2][k], v[3][k], v[4][k], v[5][k], v[6][k], v[7][k]])
}

#[inline(always)]
fn comps<L: Lanes>(v: &[V3]) -> [L; 3] {
    [comp(v, 0), comp(v, 1), comp(v, 2)]
}

#[inline(always)]
fn eight<L: Lanes>(
    inp: &KickInputs,
    i0: usize,
    s: &mut [SphereState],
    f: &[V3; LANES],
    t: &[V3; LANES],
    fo: &mut [SphereForce],
) -> Moved {
    let s: &mut [SphereState; LANES] = s.try_into().expect("eight spheres");
    // Rows of four floats: (pos_hi, radius), (pos_lo, mass), (vel, inertia), (omega, material).
    let rows: &mut [[[f32; 4]; 4]; LANES] = bytemuck::cast_mut(s);
    // Written out, not `array::from_fn`: a closure does not inherit the AVX2 target feature of
    // `eight_avx2`, so the transposes would not inline (tried: the random packing's step took
    // 60 % more CPU).
    let r: [[L; 4]; 4] = [
        L::transpose4([
            &rows[0][0],
            &rows[1][0],
            &rows[2][0],
            &rows[3][0],
            &rows[4][0],
            &rows[5][0],
            &rows[6][0],
            &rows[7][0],
        ]),
        L::transpose4([
            &rows[0][1],
            &rows[1][1],
            &rows[2][1],
            &rows[3][1],
            &rows[4][1],
            &rows[5][1],
            &rows[6][1],
            &rows[7][1],
        ]),
        L::transpose4([
            &rows[0][2],
            &rows[1][2],
            &rows[2][2],
            &rows[3][2],
            &rows[4][2],
            &rows[5][2],
            &rows[6][2],
            &rows[7][2],
        ]),
        L::transpose4([
            &rows[0][3],
            &rows[1][3],
            &rows[2][3],
            &rows[3][3],
            &rows[4][3],
            &rows[5][3],
            &rows[6][3],
            &rows[7][3],
        ]),
    ];
    let mut b = Body {
        hi: [r[0][0], r[0][1], r[0][2]],
        lo: [r[1][0], r[1][1], r[1][2]],
        vel: [r[2][0], r[2][1], r[2][2]],
        omega: [r[3][0], r[3][1], r[3][2]],
        mass: r[1][3],
        inertia: r[2][3],
    };
    let zero = L::splat(0.0);
    let (x_ref, x_near) = match inp.next {
        Some(_) => (
            comps::<L>(&inp.x_ref[i0..i0 + LANES]),
            if inp.near_lim > 0.0 {
                comps::<L>(&inp.x_near[i0..i0 + LANES])
            } else {
                [zero; 3]
            },
        ),
        None => ([zero; 3], [zero; 3]),
    };
    let (f, t, d_ref, d_near) = tail(&mut b, comps::<L>(f), comps::<L>(t), inp, x_ref, x_near);
    let new: [[L; 4]; 4] = [
        [b.hi[0], b.hi[1], b.hi[2], r[0][3]],
        [b.lo[0], b.lo[1], b.lo[2], b.mass],
        [b.vel[0], b.vel[1], b.vel[2], b.inertia],
        [b.omega[0], b.omega[1], b.omega[2], r[3][3]],
    ];
    for (q, v) in new.into_iter().enumerate() {
        let [a0, a1, a2, a3, a4, a5, a6, a7] = rows.each_mut();
        L::store_rows4(
            v,
            [
                &mut a0[q], &mut a1[q], &mut a2[q], &mut a3[q], &mut a4[q], &mut a5[q], &mut a6[q], &mut a7[q],
            ],
        );
    }
    if inp.next.is_none() {
        let f = [f[0].to_array(), f[1].to_array(), f[2].to_array()];
        let t = [t[0].to_array(), t[1].to_array(), t[2].to_array()];
        for (l, o) in fo.iter_mut().enumerate() {
            *o = SphereForce {
                force: [f[0][l], f[1][l], f[2][l]],
                torque: [t[0][l], t[1][l], t[2][l]],
                ..Default::default()
            };
        }
    }
    let (d_ref, d_near) = (d_ref.to_array(), d_near.to_array());
    let mut m = Moved::default();
    for l in 0..LANES {
        m = m.or(checks(inp, d_ref[l], d_near[l]));
    }
    m
}

/// Spheres per rayon task at least in `kick_all` (as the stepper's passes).
const PAR_MIN: usize = 512;

/// The full pass's kick (`force_passes` with a kick): every sphere's undamped gathered force
/// and torque in `forces` through the tail, eight at a time on lanes when `lanes` (else one by
/// one, the same bits): the same operations as the gather's damping then `kick_pass`. The
/// damped force and torque go back to `forces` at a call's last step (no `next`); returns the
/// rebuild check of the drift.
pub fn kick_all(inp: &KickInputs, states: &mut [SphereState], forces: &mut [SphereForce], lanes: bool) -> bool {
    states
        .par_chunks_mut(LANES)
        .zip(forces.par_chunks_mut(LANES))
        .enumerate()
        .with_min_len(PAR_MIN / LANES)
        .map(|(c, (s, fo))| {
            let i0 = c * LANES;
            if lanes && s.len() == LANES {
                let mut f = [[0.0f32; 3]; LANES];
                let mut t = [[0.0f32; 3]; LANES];
                for l in 0..LANES {
                    (f[l], t[l]) = (fo[l].force, fo[l].torque);
                }
                kick_eight(inp, i0, s, &f, &t, fo)
            } else {
                let mut m = Moved::default();
                for (l, (s, fo)) in s.iter_mut().zip(fo.iter_mut()).enumerate() {
                    let (f, t) = (fo.force, fo.torque);
                    m = m.or(kick_one(inp, i0 + l, s, f, t, fo));
                }
                m
            }
        })
        .reduce(Moved::default, Moved::or)
        .rebuild
}
