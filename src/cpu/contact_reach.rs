//! The early out of `contact_pairs` (`out_of_reach`) for a chunk's list entries, eight at a time
//! on AVX2 lanes, before the per-node loop.
//!
//! Most list entries end at the early out (since it also tests that C projects into the
//! segment's interior, ~96 % of the entries of `reach_equals_out_of_reach`'s jittered rings), and
//! which ones is hard to predict: in `contact_pairs` that is a mispredicted branch for many
//! entries, and the positions of D and D+1 are loaded only to be rejected. Here the test runs on
//! eight entries at once, with the same operations as `out_of_reach` in the same order, so the
//! outcome is the same bit (test `reach_equals_out_of_reach`). `contact_pairs_reached` then visits
//! only the entries that passed, in list order, with the exact tests of `contact_pairs`
//! (`entry_contacts`): the same slots in the same order, without a branch per entry on the early
//! out.
//!
//! Without AVX2 (`contact_reach` returns false) the stepper calls `contact_pairs` itself.

use super::contact_pairs::{entry_contacts, PairInputs};
use crate::model::*;

/// Per node, what the test reads besides positions: its successor (`NONE` at the end of an open
/// line) and its body's radius.
pub struct ReachTables {
    next: Vec<u32>,
    radius: Vec<f32>,
}

impl ReachTables {
    pub fn new(nodes: &[NodeRecord], bodies: &[Body]) -> Self {
        ReachTables {
            next: nodes.iter().map(|n| n.next).collect(),
            radius: nodes.iter().map(|n| bodies[n.body as usize].radius).collect(),
        }
    }
}

/// The node whose list holds each entry (rebuilt with the lists).
pub fn entry_owners(start: &[u32], owner: &mut Vec<u32>) {
    owner.clear();
    for c in 0..start.len() - 1 {
        owner.extend(std::iter::repeat_n(c as u32, (start[c + 1] - start[c]) as usize));
    }
}

/// Fills `reach` with one bit per entry of nodes c0 … c1 − 1 (bit e − start[c0]): set when the
/// entry passes the early out (`!out_of_reach`). Returns false, leaving `reach` alone, when the
/// CPU has no AVX2.
#[allow(clippy::too_many_arguments)]
pub fn contact_reach(
    c0: usize,
    c1: usize,
    start: &[u32],
    entries: &[Entry],
    owner: &[u32],
    pos: &[NodeState],
    tables: &ReachTables,
    reach: &mut Vec<u64>,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { avx2::reach(c0, c1, start, entries, owner, pos, tables, reach) };
        return true;
    }
    let _ = (c0, c1, start, entries, owner, pos, tables, reach);
    false
}

/// `contact_pairs` of nodes c0 … c1 − 1 after `contact_reach`: every entry's slot index (`si`,
/// the chunk's), the chunk's pool, gather list and slot marks (`marks`, bit c − c0).
#[allow(clippy::too_many_arguments)]
pub fn contact_pairs_reached(
    c0: usize,
    base: usize,
    args: PairInputs,
    owner: &[u32],
    reach: &[u64],
    si: &mut [u32],
    pool: &mut Vec<ContactSlot>,
    gather: &mut Vec<u32>,
    marks: &mut [u32],
) {
    si.fill(NO_SLOT);
    for (w, &word) in reach.iter().enumerate() {
        let mut word = word;
        while word != 0 {
            let k = w * 64 + word.trailing_zeros() as usize;
            let c = owner[base + k] as usize;
            let slot = entry_contacts::<false>(c, base + k, args, pool, gather);
            si[k] = slot;
            if slot != NO_SLOT {
                marks[(c - c0) / 32] |= 1 << ((c - c0) % 32);
            }
            word &= word - 1;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::*;
    use crate::model::f8_avx::transpose4;
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    pub fn reach(
        c0: usize,
        c1: usize,
        start: &[u32],
        entries: &[Entry],
        owner: &[u32],
        pos: &[NodeState],
        tables: &ReachTables,
        reach: &mut Vec<u64>,
    ) {
        let (e0, e1) = (start[c0] as usize, start[c1] as usize);
        reach.clear();
        reach.resize((e1 - e0).div_ceil(64), 0);
        let neighbors: &[u32] = bytemuck::cast_slice(&entries[e0..e1]);
        let owners = &owner[e0..e1];
        // Eight entries at a time; `k` is a multiple of 8, so a byte of bits lies in one word.
        for k in (0..e1 - e0).step_by(8) {
            let take = |v: &[u32]| -> [usize; 8] { std::array::from_fn(|l| v[(k + l).min(v.len() - 1)] as usize) };
            let m = eight(&take(owners), &take(neighbors), pos, tables);
            let live = if e1 - e0 - k < 8 {
                (1u32 << (e1 - e0 - k)) - 1
            } else {
                0xff
            };
            reach[k / 64] |= ((m & live) as u64) << (k % 64);
        }
    }

    /// `!out_of_reach` of eight entries (C = owner[l], D = neighbor[l]) as a bit mask. Each node's
    /// position is one 16-byte row, transposed into lanes; AVX2's gather instructions were 10×
    /// slower on the Intel CPU of session 9 (microcode since the 2023 "Downfall" mitigation).
    #[target_feature(enable = "avx2")]
    fn eight(c: &[usize; 8], d: &[usize; 8], pos: &[NodeState], t: &ReachTables) -> u32 {
        let d1: [u32; 8] = std::array::from_fn(|l| t.next[d[l]]);
        // D's successor, or D itself where there is none (that lane's result is "out" anyway).
        let b: [usize; 8] = std::array::from_fn(|l| if d1[l] == NONE { d[l] } else { d1[l] as usize });
        macro_rules! lanes {
            ($f:expr) => {
                _mm256_setr_ps($f(0), $f(1), $f(2), $f(3), $f(4), $f(5), $f(6), $f(7))
            };
        }
        let mask = |m: [bool; 8]| {
            let v = |l: usize| f32::from_bits(if m[l] { !0 } else { 0 });
            lanes!(v)
        };
        // The positions of C, D and B as lanes [x_hi, y_hi, x_lo, y_lo]: one 16-byte row per
        // node, transposed (not 32 scalar loads and inserts per node).
        let rows = |i: &[usize; 8]| -> [&[f32; 4]; 8] { std::array::from_fn(|l| pos[i[l]].pos_row()) };
        let (pc, pd, pb) = (transpose4(rows(c)), transpose4(rows(d)), transpose4(rows(&b)));
        // df_sub(a, o) per component: (a_hi − o_hi) + (a_lo − o_lo). (A macro, not a closure: a
        // closure here was compiled on its own and called.)
        macro_rules! rel {
            ($a:expr, $o:expr, $comp:expr) => {
                _mm256_add_ps(
                    _mm256_sub_ps($a[$comp], $o[$comp]),
                    _mm256_sub_ps($a[2 + $comp], $o[2 + $comp]),
                )
            };
        }
        let (cd0, cd1) = (rel!(pc, pd, 0), rel!(pc, pd, 1));
        let cd2 = _mm256_add_ps(_mm256_mul_ps(cd0, cd0), _mm256_mul_ps(cd1, cd1));
        let r_sum = lanes!(|l: usize| t.radius[c[l]] + t.radius[d[l]]);
        let lim = _mm256_mul_ps(_mm256_set1_ps(1.01), r_sum);
        let lim2 = _mm256_mul_ps(lim, lim);
        // C owns the cap (C < D) and is within reach of D.
        let cap = mask(std::array::from_fn(|l| c[l] < d[l]));
        let near_cap = _mm256_and_ps(cap, _mm256_cmp_ps::<_CMP_LE_OQ>(cd2, lim2));
        let (ab0, ab1) = (rel!(pb, pd, 0), rel!(pb, pd, 1));
        let cr = _mm256_sub_ps(_mm256_mul_ps(cd0, ab1), _mm256_mul_ps(cd1, ab0));
        let ab2 = _mm256_add_ps(_mm256_mul_ps(ab0, ab0), _mm256_mul_ps(ab1, ab1));
        let far = _mm256_cmp_ps::<_CMP_GT_OQ>(_mm256_mul_ps(cr, cr), _mm256_mul_ps(lim2, ab2));
        // in_segment_interior(C, D, B): dot(C − D, ab) ≥ 0 and dot(C − B, ab) < 0.
        let (bp0, bp1) = (rel!(pc, pb, 0), rel!(pc, pb, 1));
        let ap_ab = _mm256_add_ps(_mm256_mul_ps(cd0, ab0), _mm256_mul_ps(cd1, ab1));
        let bp_ab = _mm256_add_ps(_mm256_mul_ps(bp0, ab0), _mm256_mul_ps(bp1, ab1));
        let zero = _mm256_setzero_ps();
        let interior = _mm256_and_ps(
            _mm256_cmp_ps::<_CMP_GE_OQ>(ap_ab, zero),
            _mm256_cmp_ps::<_CMP_LT_OQ>(bp_ab, zero),
        );
        let outside = _mm256_andnot_ps(interior, _mm256_castsi256_ps(_mm256_set1_epi32(-1)));
        let no_d1 = mask(d1.map(|v| v == NONE));
        let out = _mm256_andnot_ps(near_cap, _mm256_or_ps(no_d1, _mm256_or_ps(outside, far)));
        !(_mm256_movemask_ps(out) as u32) & 0xff
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::contact::in_segment_interior;
    use crate::cpu::contact_pairs::{contact_pairs, out_of_reach};
    use crate::model::df32::{df_sub, dot};
    use crate::scenes::SplitMix;

    /// 8 × 8 rings of 16 nodes (1,024 nodes, two chunks), 1.05 apart with radius 0.5 and
    /// half-thickness 0.05, jittered so that neighbouring rings overlap, touch or miss; every node
    /// lists the nodes of other rings within 0.6 (sorted). Two open lines cross the packing.
    #[test]
    fn reach_equals_out_of_reach() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            // Without AVX2 the stepper never calls these (`contact_reach` returns false).
            assert!(!contact_reach(
                0,
                0,
                &[0],
                &[],
                &[],
                &[],
                &ReachTables::new(&[], &[]),
                &mut vec![]
            ));
            return;
        }
        let mut rng = SplitMix(3);
        let mut sc = Scene::default();
        let m = sc.add_material(crate::cpu::elastic_test_material());
        let o = BodyOptions {
            material: m,
            radius: 0.05,
            node_mass: 1.0,
            frozen: false,
            self_contact: false,
            core: Core::None,
        };
        for i in 0..8 {
            for j in 0..8 {
                sc.add_ring([500.0 + 1.05 * i as f64, -300.0 + 1.05 * j as f64], 0.5, 16, o);
            }
        }
        sc.add_line([499.6, -299.0], [508.0, -297.7], 40, o);
        sc.add_line([501.1, -300.6], [501.3, -292.0], 30, o);
        sc.contact.k_n = 1000.0;
        let p = sc.sim_params();
        let n = sc.nodes.len();
        let (nodes, _) = device_nodes(&sc.nodes);
        let tables = ReachTables::new(&nodes, &sc.bodies);
        for round in 0..10 {
            let mut pos = sc.init.clone();
            for s in pos.iter_mut() {
                let mut j = |a: f64| ((rng.next_f64() - 0.5) * a) as f32;
                s.pos_hi = [s.pos_hi[0] + j(0.06), s.pos_hi[1] + j(0.06)];
                s.pos_lo = [j(1e-5), j(1e-5)];
                s.vel = [j(1.0), j(1.0)];
            }
            let (mut start, mut entries) = (vec![0u32], vec![]);
            for c in 0..n {
                for d in 0..n {
                    let cd = df_sub(pos[c].pos_hi, pos[c].pos_lo, pos[d].pos_hi, pos[d].pos_lo);
                    if nodes[c].body != nodes[d].body && dot(cd, cd) < 0.36 {
                        entries.push(Entry { neighbor: d as u32 });
                    }
                }
                start.push(entries.len() as u32);
            }
            let mut owner = vec![];
            entry_owners(&start, &mut owner);
            let (old_index, old_pool) = (vec![NO_SLOT; entries.len()], vec![]);
            let mut passed = 0;
            for (c0, c1) in [(0, 512), (512, n), (3, 40)] {
                let base = start[c0] as usize;
                let mut reach = vec![];
                assert!(contact_reach(
                    c0, c1, &start, &entries, &owner, &pos, &tables, &mut reach
                ));
                for c in c0..c1 {
                    let (e0, e1) = (start[c] as usize, start[c + 1] as usize);
                    for (e, entry) in entries.iter().enumerate().take(e1).skip(e0) {
                        let d = entry.neighbor;
                        let cd = df_sub(
                            pos[c].pos_hi,
                            pos[c].pos_lo,
                            pos[d as usize].pos_hi,
                            pos[d as usize].pos_lo,
                        );
                        let r_sum = tables.radius[c] + tables.radius[d as usize];
                        let d1 = nodes[d as usize].next;
                        let interior = d1 != NONE && in_segment_interior(&pos[c], &pos[d as usize], &pos[d1 as usize]);
                        let out = out_of_reach(cd, dot(cd, cd), (c as u32) < d, d, d1, interior, &pos, r_sum);
                        let k = e - base;
                        assert_eq!(reach[k / 64] >> (k % 64) & 1 == 0, out, "round {round} entry {e}");
                        passed += !out as usize;
                    }
                }
                // contact_pairs_reached = contact_pairs on every node of the run.
                let count = start[c1] as usize - base;
                let (mut si, mut pool, mut gather, mut marks) = (vec![7; count], vec![], vec![], vec![0u32; 32]);
                let laws = sc.contact_law_table();
                let args = (
                    &p,
                    &laws[..],
                    &nodes[..],
                    &sc.bodies[..],
                    &pos[..],
                    &entries[..],
                    &old_index[..],
                    &old_pool[..],
                );
                contact_pairs_reached(
                    c0,
                    base,
                    args,
                    &owner,
                    &reach,
                    &mut si,
                    &mut pool,
                    &mut gather,
                    &mut marks,
                );
                let (mut si2, mut pool2, mut gather2, mut marks2) = (vec![7; count], vec![], vec![], vec![0u32; 32]);
                for c in c0..c1 {
                    let (e0, e1) = (start[c] as usize - base, start[c + 1] as usize - base);
                    let has = contact_pairs(
                        c,
                        &p,
                        &laws,
                        &nodes,
                        &sc.bodies,
                        &pos,
                        &start,
                        &entries,
                        &old_index,
                        &old_pool,
                        &mut si2[e0..e1],
                        &mut pool2,
                        &mut gather2,
                    );
                    marks2[(c - c0) / 32] |= (has as u32) << ((c - c0) % 32);
                }
                assert_eq!(si, si2);
                assert_eq!(
                    bytemuck::cast_slice::<_, u8>(&pool),
                    bytemuck::cast_slice::<_, u8>(&pool2)
                );
                assert_eq!((gather, marks), (gather2, marks2));
                assert!(!pool.is_empty(), "round {round}: no contact in {c0}..{c1}");
            }
            // Both outcomes well represented (since the interior test, ~4 % of these entries pass).
            let total = start[n] as usize + (start[40] - start[3]) as usize;
            assert!(
                passed > total / 100 && passed < total * 19 / 20,
                "{passed} of {total} passed"
            );
        }
    }
}
