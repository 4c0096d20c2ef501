//! The pair pass (`cpu_stepper::pair_pass`) eight pairs at a time in SIMD lanes, for the common
//! case: a group of eight consecutive pairs under one Hertz–Mindlin law without rolling
//! resistance and without an MC correction in effect (`lane_law`). Every other group runs the
//! scalar pair pass.
//!
//! The lanes evaluate `sphere_pair_geometry`, `pair_force` (`hertz_normal_force`,
//! `tangential_spring_force`, `hertz_energy`, `mindlin_energy`) and the torques of `pair_pass`
//! with the same operations in the same order, branches written as `select` (both sides
//! computed, one kept), so every lane gives the scalar pass's bits (`model::lanes`: IEEE +, −,
//! ×, ÷, √ round alike in vector and scalar registers, no FMA): the lanes change the speed, not
//! the results, and the WGSL twin stays the scalar one (test `lanes_equal_the_scalar_pair_pass`
//! in `tests/sphere_stepper.rs`). `F8Avx` where the CPU has AVX2 (run-time dispatch), `F8` else.

use super::contact::ContactHistory;
use super::contact::PairOut;
use super::pair_law::{PairLaw, LAW_HERTZ_MINDLIN};
use super::state::SphereState;
use crate::laws::hertz::TWO_SQRT_FIVE_SIXTHS;
use crate::laws::mc_stress::MC_CAP_HERTZ;
use crate::model::lanes::{Lanes, Real, F8, LANES};

/// Whether the pairs of `law` can run on lanes: Hertz–Mindlin, no rolling resistance, and no
/// MC correction in effect (`mc`: the law table uses MC-stress or MC-strain).
pub fn lane_law(law: &PairLaw, mc: bool) -> bool {
    law.kind == LAW_HERTZ_MINDLIN
        // `pair_force` adds rolling only when μ_r > 0 (so a NaN μ_r counts as none, too).
        && law.rolling.mu_r.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
        && !(mc && law.mc.beta != 0.0)
        && (law.mc.options & MC_CAP_HERTZ) == 0
}

/// What a group of pairs reads.
pub struct PairLaneInputs<'a> {
    pub states: &'a [SphereState],
    pub owner: &'a [u32],
    pub partner: &'a [u32],
    pub dt: f32,
}

/// Pairs k0 … k0 + 7, all under `law` (`lane_law`): results into `outs[0..8]` and the new
/// histories into `hists[0..8]` (which hold the old ones).
pub fn pair_group(inp: &PairLaneInputs, k0: usize, law: &PairLaw, outs: &mut [PairOut], hists: &mut [ContactHistory]) {
    let ks: [u32; LANES] = std::array::from_fn(|l| (k0 + l) as u32);
    let old: [ContactHistory; LANES] = std::array::from_fn(|l| hists[l]);
    let r = pair_group_at(inp, &ks, law, &old);
    for l in 0..LANES {
        (outs[l], hists[l]) = r.record(l);
    }
}

/// The results of eight pairs, lane by lane (`record`).
pub struct LaneResults {
    force: [[f32; LANES]; 3],
    torque_i: [[f32; LANES]; 3],
    torque_j: [[f32; LANES]; 3],
    history: [[f32; LANES]; 3],
    f_n: [f32; LANES],
    energy: [f32; LANES],
}

impl LaneResults {
    /// Pair l's result record and new history.
    #[inline(always)]
    pub fn record(&self, l: usize) -> (PairOut, ContactHistory) {
        let v = |a: &[[f32; LANES]; 3]| [a[0][l], a[1][l], a[2][l]];
        (
            PairOut {
                force: v(&self.force),
                f_n: self.f_n[l],
                torque_i: v(&self.torque_i),
                energy: self.energy[l],
                torque_j: v(&self.torque_j),
                _pad: 0.0,
            },
            ContactHistory {
                tangential: v(&self.history),
                ..Default::default()
            },
        )
    }
}

/// Pairs `ks[0..8]` (any eight pair indices, all under `law`, `lane_law`) with their old
/// histories `old`: the results and new histories, as `pair_group` (the same bits).
pub fn pair_group_at(
    inp: &PairLaneInputs,
    ks: &[u32; LANES],
    law: &PairLaw,
    old: &[ContactHistory; LANES],
) -> LaneResults {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above), the only requirement of a
        // `#[target_feature(enable = "avx2")]` function.
        return unsafe { group_avx2(inp, ks, law, old) };
    }
    group::<F8>(inp, ks, law, old)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn group_avx2(inp: &PairLaneInputs, ks: &[u32; LANES], law: &PairLaw, old: &[ContactHistory; LANES]) -> LaneResults {
    group::<crate::model::lanes::F8Avx>(inp, ks, law, old)
}

type L3<L> = [L; 3];

#[inline(always)]
fn add<L: Real>(a: L3<L>, b: L3<L>) -> L3<L> {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline(always)]
fn sub<L: Real>(a: L3<L>, b: L3<L>) -> L3<L> {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline(always)]
fn scale<L: Real>(a: L3<L>, s: L) -> L3<L> {
    [a[0] * s, a[1] * s, a[2] * s]
}

#[inline(always)]
fn dot<L: Real>(a: L3<L>, b: L3<L>) -> L {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline(always)]
fn cross<L: Real>(a: L3<L>, b: L3<L>) -> L3<L> {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[inline(always)]
fn select3<L: Real>(m: L::Mask, a: L3<L>, b: L3<L>) -> L3<L> {
    [
        L::select(m, a[0], b[0]),
        L::select(m, a[1], b[1]),
        L::select(m, a[2], b[2]),
    ]
}

/// Rows of four floats of a sphere record: (pos_hi, radius), (pos_lo, mass), (vel, inertia),
/// (omega, material bits).
#[inline(always)]
fn rows(s: &SphereState) -> &[[f32; 4]; 4] {
    bytemuck::cast_ref(s)
}

/// Field row r of eight sphere records, as four lane vectors.
#[inline(always)]
fn field<L: Lanes>(s: &[&[[f32; 4]; 4]; LANES], r: usize) -> [L; 4] {
    L::transpose4([
        &s[0][r], &s[1][r], &s[2][r], &s[3][r], &s[4][r], &s[5][r], &s[6][r], &s[7][r],
    ])
}

/// `sphere_pair_geometry`'s separation on lanes, from both spheres' rows (pos_hi, radius) and
/// (pos_lo, mass): d = (hi_a − hi_b) + (lo_a − lo_b) (`df3_sub`), |d|, δ = (r_a + r_b) − |d|.
#[inline(always)]
fn separation<L: Lanes>(a0: [L; 4], a1: [L; 4], b0: [L; 4], b1: [L; 4]) -> ([L; 3], L, L) {
    let d = [
        (a0[0] - b0[0]) + (a1[0] - b1[0]),
        (a0[1] - b0[1]) + (a1[1] - b1[1]),
        (a0[2] - b0[2]) + (a1[2] - b1[2]),
    ];
    let dist = dot(d, d).sqrt();
    let delta = (a0[3] + b0[3]) - dist;
    (d, dist, delta)
}

/// The lanes of `v` where `on`, +0 elsewhere, as an array.
#[inline(always)]
fn keep<L: Lanes>(on: L::Mask, v: L) -> [f32; LANES] {
    L::select(on, v, L::splat(0.0)).to_array()
}

#[inline(always)]
fn keep3<L: Lanes>(on: L::Mask, v: L3<L>) -> [[f32; LANES]; 3] {
    [keep(on, v[0]), keep(on, v[1]), keep(on, v[2])]
}

// No closure may touch a lane value here: a closure is compiled without AVX2 and its lane
// operations become calls (`model::f8`).
#[inline(always)]
fn group<L: Lanes>(
    inp: &PairLaneInputs,
    ks: &[u32; LANES],
    law: &PairLaw,
    old: &[ContactHistory; LANES],
) -> LaneResults {
    let a: [&[[f32; 4]; 4]; LANES] = std::array::from_fn(|l| rows(&inp.states[inp.owner[ks[l] as usize] as usize]));
    let b: [&[[f32; 4]; 4]; LANES] = std::array::from_fn(|l| rows(&inp.states[inp.partner[ks[l] as usize] as usize]));
    let (a0, a1, b0, b1) = (
        field::<L>(&a, 0),
        field::<L>(&a, 1),
        field::<L>(&b, 0),
        field::<L>(&b, 1),
    );
    let (ra, ma, rb, mb) = (a0[3], a1[3], b0[3], b1[3]);
    let [avx, avy, avz, _] = field::<L>(&a, 2);
    let [awx, awy, awz, _] = field::<L>(&a, 3);
    let [bvx, bvy, bvz, _] = field::<L>(&b, 2);
    let [bwx, bwy, bwz, _] = field::<L>(&b, 3);
    let h_rows: [&[f32; 4]; LANES] = std::array::from_fn(|l| &bytemuck::cast_ref::<_, [[f32; 4]; 2]>(&old[l])[0]);
    let [hx, hy, hz, _] = L::transpose4(h_rows);
    let zero = L::splat(0.0);

    // sphere_pair_geometry: df3_sub, |d|, δ, n, branch vectors, velocities at the contact.
    let (d, dist, delta) = separation(a0, a1, b0, b1);
    // Touching: δ > 0 and |d| > 0 (the scalar path returns zeros otherwise).
    let on = L::gt(L::select(L::gt(dist, zero), delta, zero), zero);
    let n = scale(d, L::splat(1.0) / dist);
    let half_delta = L::splat(0.5) * delta;
    let l_i = scale(n, -(ra - half_delta));
    let l_j = scale(n, rb - half_delta);
    let v_i = add([avx, avy, avz], cross([awx, awy, awz], l_i));
    let v_j = add([bvx, bvy, bvz], cross([bwx, bwy, bwz], l_j));
    let v_rel = sub(v_i, v_j);
    let r_star = ra * rb / (ra + rb);
    let m_star = ma * mb / (ma + mb);

    // pair_force, Hertz–Mindlin, f_mc = 0, no rolling.
    let v_n = dot(v_rel, n);
    let v_t = sub(v_rel, scale(n, v_n));
    let delta_dot = -v_n;
    let (hz_p, md) = (&law.hertz, &law.mindlin);
    let sq = (r_star * delta).sqrt();
    let elastic = L::splat((4.0 / 3.0) * hz_p.e_star) * sq * delta;
    let s_n = L::splat(2.0 * hz_p.e_star) * sq;
    let gamma_n = L::splat(-TWO_SQRT_FIVE_SIXTHS * hz_p.beta_e) * (s_n * m_star).sqrt();
    let f_classical = (elastic + gamma_n * delta_dot).max(zero);
    let f_n = f_classical + zero;
    let k_t = L::splat(8.0 * md.g_star) * sq;
    let gamma_t = L::splat(-TWO_SQRT_FIVE_SIXTHS * md.beta_e) * (k_t * m_star).sqrt();
    let mut energy = L::splat(0.4) * elastic * delta;
    // tangential_spring_force: rotate, spring, dashpot, Coulomb cap.
    let h_old = [hx, hy, hz];
    let len = dot(h_old, h_old).sqrt();
    let t = sub(h_old, scale(n, dot(h_old, n)));
    let tl = dot(t, t).sqrt();
    let rotated = select3(L::gt(tl, zero), scale(t, len / tl), [zero; 3]);
    let h = sub(rotated, scale(v_t, k_t * L::splat(inp.dt)));
    let f = sub(h, scale(v_t, gamma_t));
    let f_len = dot(f, f).sqrt();
    let mu_f_n = L::splat(md.mu) * f_n;
    let capped = select3(L::gt(f_len, zero), scale(f, mu_f_n / f_len), [zero; 3]);
    let sliding = L::gt(f_len, mu_f_n);
    let f_t = select3(sliding, capped, f);
    let history = select3(sliding, add(capped, scale(v_t, gamma_t)), h);
    energy = energy + L::select(L::gt(k_t, zero), dot(history, history) / (L::splat(2.0) * k_t), zero);
    let force = add(scale(n, f_n), f_t);
    // Torques of pair_pass (the rolling torque is +0).
    let torque_i = add(cross(l_i, force), [zero; 3]);
    let torque_j = sub(cross(l_j, scale(force, L::splat(-1.0))), [zero; 3]);

    LaneResults {
        force: keep3(on, force),
        torque_i: keep3(on, torque_i),
        torque_j: keep3(on, torque_j),
        history: keep3(on, history),
        f_n: keep(on, f_n),
        energy: keep(on, energy),
    }
}

/// Which of the pairs `ks[0..8]` are in contact, as bits (bit l: pair `ks[l]`): not (δ ≤ 0 or
/// |d| ≤ 0), the test by which `sphere_pair_geometry` returns an empty contact (a NaN counts
/// as in contact, as there). The first half of `cpu_stepper::active`'s pass: positions and radii only.
pub fn touching_at(inp: &PairLaneInputs, ks: &[u32; LANES]) -> u8 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { touch_avx2(inp, ks) };
    }
    touch::<F8>(inp, ks)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn touch_avx2(inp: &PairLaneInputs, ks: &[u32; LANES]) -> u8 {
    touch::<crate::model::lanes::F8Avx>(inp, ks)
}

#[inline(always)]
fn touch<L: Lanes>(inp: &PairLaneInputs, ks: &[u32; LANES]) -> u8 {
    let a: [&[[f32; 4]; 4]; LANES] = std::array::from_fn(|l| rows(&inp.states[inp.owner[ks[l] as usize] as usize]));
    let b: [&[[f32; 4]; 4]; LANES] = std::array::from_fn(|l| rows(&inp.states[inp.partner[ks[l] as usize] as usize]));
    let (_, dist, delta) = separation(
        field::<L>(&a, 0),
        field::<L>(&a, 1),
        field::<L>(&b, 0),
        field::<L>(&b, 1),
    );
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    // NaN → 1 (in contact), then δ > 0 where |d| > 0.
    let dist = L::select(L::eq(dist, dist), dist, one);
    let delta = L::select(L::eq(delta, delta), delta, one);
    let on = L::gt(L::select(L::gt(dist, zero), delta, zero), zero);
    L::mask_bools(on)
        .iter()
        .enumerate()
        .fold(0u8, |m, (l, &b)| m | ((b as u8) << l))
}
