//! The CPU stepper's active-pair pass (`CpuSpheres::steps` without MC laws). Most candidate
//! pairs of a dense packing are within the skin but not in contact (the bench's random packing:
//! 5.8 candidates and 0.53 touching pairs per sphere), and such a pair with a zero history gives an
//! all-zero result and keeps its zero history. So a step
//!
//! 1. tests the *near* pairs for contact on positions and radii alone (`pair_lanes::touching_at`,
//!    the test by which `sphere_pair_geometry` returns an empty contact) and keeps the *active*
//!    pairs: in contact, or *live* (a history that is not all-zero bits, to be cleared). Near:
//!    gap below `NEAR_FRACTION` × skin at the last near build, redone when some sphere has
//!    moved by a quarter of that gap since (a farther pair cannot have closed: its gap shrank
//!    by at most half of it; the gap is not used where the coordinates' rounding nears it);
//! 2. evaluates only the active pairs (eight at a time on lanes, `pair_lanes::pair_group_at`,
//!    else `one_pair`: the operations of `pair_pass`), their results in a compact array per
//!    region, the histories of the live pairs carried compactly from step to step (the
//!    stepper's `history` is written at a list build and at the end of the call, `flush`);
//!    each active pair sets its entry's bit in its two spheres' masks (integer OR, in any order);
//! 3. gathers per sphere, in the incident order of `gather` (the partners' user index order),
//!    the entries of its mask (a sphere with more than 32 pairs: every entry, through `slot`),
//!    and kicks the sphere in the same sweep, eight spheres at a time on lanes (`kick_lanes`:
//!    `kick_pass`'s closing kick and the next step's kick, drift and rebuild check, and the
//!    near list's staleness test of that drift; `forces` is written at the last step of the
//!    call only).
//!
//! **The same bits as `pair_gather` + `kick_pass`.** An inactive pair's record is +0 in every
//! component (force, torques) and its history stays the zero it was. Skipping a term −(+0) in a
//! sum changes nothing (x − 0 = x for every x, −0 included); skipping a term +(+0) changes a sum
//! only where it is −0 (−0 + 0 = +0), and a running sum that took a +0 term once is never −0
//! again (from +0, zero terms keep it +0 and a nonzero sum returns to zero only by exact
//! cancellation, which gives +0). So the sum without the skipped +0 terms, plus one +0 at the
//! end when some were skipped, is the full sum bit for bit (the gather's `skipped` flags; the
//! same argument as the walls' +0 in `GatherInputs::force`). `pair_out` is written only at the
//! end of a call (`write_back`), as the full pass would have left it. Test:
//! `tests/sphere_active_pairs.rs`.
//!
//! Pairs are cut into regions of 2^shift pairs (many per thread; a region's lists and results
//! are its own); the split changes no result.

use super::kick_lanes::{kick_eight, kick_one, KickInputs, Moved};
use super::{add_walls_and_extra, CpuSpheres, Drift, PairInputs, PairOut};
use crate::laws::vec3::{add, norm, scale, sub, V3};
use crate::model::lanes::LANES;
use crate::spheres::contact::ContactHistory;
use crate::spheres::pair_lanes::{lane_law, pair_group_at, touching_at, PairLaneInputs};
use crate::spheres::precision::df3_sub;
use crate::spheres::state::{SphereForce, SphereState};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// No slot: the pair is not active.
const NONE: u32 = u32::MAX;

/// Spheres per rayon task at least in the gather.
const PAR_MIN: usize = 512;

/// A sphere with more incident pairs than this gathers through the slots (no bit mask).
const MASK_BITS: usize = 32;

/// The near gap, a fraction of the skin: pairs farther apart at the near build are not tested
/// until some sphere has moved by a quarter of it (they cannot touch before).
pub const NEAR_FRACTION: f32 = 0.125;

/// The active pairs of the current evaluation and what carries from one step to the next.
pub struct ActivePairs {
    /// log2 of the pairs per region, and the regions.
    shift: u32,
    regions: Vec<Region>,
    /// Per pair: its index in its region's `active` and `out`; `NONE` when inactive.
    slot: Vec<u32>,
    /// Per pair: its entry's place in the incident row of its i and of its j (255 past 254).
    place: Vec<[u8; 2]>,
    /// Per sphere: the bits of its active incident entries (set in the pair pass, cleared by
    /// the gather), and of the entries where it is the pair's i (from the list).
    mask: Vec<AtomicU32>,
    i_side: Vec<u32>,
    /// Near build: its positions and the gap below which a pair is near (it is redone when a
    /// sphere has moved by a quarter of the gap); `near_gap` 0: every pair is near.
    x_near: Vec<V3>,
    near_gap: f32,
    /// Whether some sphere moved by a quarter of the near gap in the last `gather_kick`'s drift
    /// (its `near_stale` test; None: not known, `pair_pass` tests).
    moved_near: Option<bool>,
    /// Whether the steps until the next list build use this pass: when at most half the pairs
    /// are near at the build (`CpuSpheres::active_max_near`, `ACTIVE_MAX_NEAR`); else
    /// `CpuSpheres::force_passes` evaluates every candidate (the same bits).
    pub enabled: bool,
}

/// The largest fraction of near pairs at a list build for which the steps until the next build
/// use this pass. A measured choice: the lattice bench (74 % near, 63 % in contact) costs 1.3–1.5
/// times the CPU time of the full pass on this path (per-pair atomics, gathered loads), the
/// random packing (23 % near, 9 % in contact) half.
pub const ACTIVE_MAX_NEAR: f64 = 0.5;

/// What a region of pairs holds (pair indices increasing in every list).
#[derive(Clone, Debug, Default)]
struct Region {
    /// The pairs whose gap was below `near_gap` at the near build.
    near: Vec<u32>,
    /// The pairs whose history is not all-zero bits after the last evaluation, and their
    /// histories (the stepper's `history` holds them only after `flush`).
    live: Vec<u32>,
    live_hist: Vec<ContactHistory>,
    /// The live pairs at the last `flush` or `reset` (their records to clear at the next).
    flushed: Vec<u32>,
    /// The active pairs of this evaluation, for each the index of its old history in
    /// `live_hist` (`NONE`: zero), its new history and its result.
    active: Vec<u32>,
    old: Vec<u32>,
    hist: Vec<ContactHistory>,
    out: Vec<PairOut>,
}

/// Whether a history record has some bit set (−0 included: it must be cleared to +0).
#[inline]
fn nonzero(h: &ContactHistory) -> bool {
    bytemuck::cast_ref::<_, [u32; 8]>(h).iter().any(|&w| w != 0)
}

/// Distance and δ of a pair, as `sphere_pair_geometry` computes them.
#[inline]
fn dist_delta(a: &SphereState, b: &SphereState) -> (f32, f32) {
    let d = df3_sub(a.pos_hi, a.pos_lo, b.pos_hi, b.pos_lo);
    let dist = norm(d);
    (dist, a.radius + b.radius - dist)
}

/// Not (δ ≤ 0 or |d| ≤ 0): the contact test of `sphere_pair_geometry`, scalar.
#[inline]
fn touches(a: &SphereState, b: &SphereState) -> bool {
    let (dist, delta) = dist_delta(a, b);
    !(delta <= 0.0 || dist <= 0.0)
}

impl ActivePairs {
    /// For the current list and histories of `sys`.
    pub fn new(sys: &CpuSpheres) -> ActivePairs {
        let mut a = ActivePairs {
            shift: 0,
            regions: Vec::new(),
            slot: Vec::new(),
            place: Vec::new(),
            mask: Vec::new(),
            i_side: Vec::new(),
            x_near: Vec::new(),
            near_gap: 0.0,
            moved_near: None,
            enabled: false,
        };
        a.reset(sys);
        a
    }

    /// After a list build: regions for the new list, the live pairs read from the histories,
    /// the entries' places in the incident rows, a near build.
    pub fn reset(&mut self, sys: &CpuSpheres) {
        let m = sys.list.len();
        let n = sys.states.len();
        // About 16 regions per thread (rayon balances them), at least 4,096 pairs each.
        let target = m / (16 * rayon::current_num_threads()).max(1);
        self.shift = target.max(4096).next_power_of_two().trailing_zeros();
        let len = 1usize << self.shift;
        self.regions = sys
            .history
            .par_chunks(len)
            .enumerate()
            .map(|(r, h)| {
                let k0 = r * len;
                let live: Vec<u32> = (0..h.len())
                    .filter(|&q| nonzero(&h[q]))
                    .map(|q| (k0 + q) as u32)
                    .collect();
                Region {
                    live_hist: live.iter().map(|&k| h[k as usize - k0]).collect(),
                    flushed: live.clone(),
                    live,
                    ..Default::default()
                }
            })
            .collect();
        self.slot = vec![NONE; m];
        let (start, incident) = (&sys.incident_start, &sys.incident);
        self.place = vec![[255; 2]; m];
        for s in 0..n {
            for (q, &e) in incident[start[s] as usize..start[s + 1] as usize].iter().enumerate() {
                self.place[(e >> 1) as usize][(e & 1) as usize] = q.min(255) as u8;
            }
        }
        self.i_side = (0..n)
            .into_par_iter()
            .with_min_len(4096)
            .map(|s| {
                let row = &incident[start[s] as usize..start[s + 1] as usize];
                row.iter()
                    .take(MASK_BITS)
                    .enumerate()
                    .fold(0u32, |b, (q, &e)| b | (((e & 1 == 0) as u32) << q))
            })
            .collect();
        self.mask = (0..n).map(|_| AtomicU32::new(0)).collect();
        self.near_build(sys);
        let near: usize = self.regions.iter().map(|r| r.near.len()).sum();
        self.enabled = near as f64 <= sys.active_max_near * m as f64;
    }

    /// The near pairs of every region: gap |d| − r_i − r_j below `near_gap` (a NaN counts as
    /// near), at the present positions.
    // Negated comparisons on purpose: a NaN counts as near (and as moved, below).
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    fn near_build(&mut self, sys: &CpuSpheres) {
        let states = &sys.states;
        // The gap, unless the coordinates are so large that their rounding nears it.
        let x_max = states
            .iter()
            .flat_map(|s| s.pos_hi.map(f32::abs))
            .fold(0.0f32, f32::max);
        let gap = NEAR_FRACTION * sys.params.skin;
        self.near_gap = if gap > 256.0 * f32::EPSILON * x_max { gap } else { 0.0 };
        self.moved_near = None;
        self.x_near = states.iter().map(|s| add(s.pos_hi, s.pos_lo)).collect();
        let len = 1usize << self.shift;
        let m = sys.list.len();
        let (pair_i, pair_j, near_gap) = (&sys.pair_i, &sys.pair_j, self.near_gap);
        self.regions.par_iter_mut().enumerate().for_each(|(r, reg)| {
            reg.near.clear();
            reg.near.extend(
                (r * len..((r + 1) * len).min(m))
                    .filter(|&k| {
                        let (dist, delta) = dist_delta(&states[pair_i[k] as usize], &states[pair_j[k] as usize]);
                        near_gap == 0.0 || !(-delta >= near_gap) || !(dist > 0.0)
                    })
                    .map(|k| k as u32),
            );
        });
    }

    /// Whether some sphere moved more than a quarter of the near gap since the near build
    /// (then `near_build` again; a NaN counts as moved).
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    fn near_stale(&self, states: &[SphereState]) -> bool {
        let lim = 0.25 * self.near_gap;
        self.near_gap > 0.0
            && states
                .par_iter()
                .zip(self.x_near.par_iter())
                .with_min_len(4096)
                .any(|(s, r)| {
                    let d = sub(add(s.pos_hi, s.pos_lo), *r);
                    !(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= lim * lim)
                })
    }

    /// Steps 1 and 2 of a step: the active pairs, their results and new histories, and the
    /// spheres' bits of active entries.
    pub fn pair_pass(&mut self, sys: &mut CpuSpheres) {
        // The drift's test from `gather_kick` when it ran since the near build, else a pass.
        let stale = match self.moved_near.take() {
            Some(moved) => moved,
            None => self.near_stale(&sys.states),
        };
        if stale {
            self.near_build(sys);
        }
        let inp = PairInputs {
            states: &sys.states,
            laws: &sys.laws,
            dt: sys.params.dt,
            pair_i: &sys.pair_i,
            pair_j: &sys.pair_j,
            mc: sys.mc,
            trace: &sys.stress_trace,
            pair_trace: &sys.pair_trace,
            pair_strain: &sys.pair_strain,
            use_lanes: sys.use_lanes,
        };
        let lanes = PairLaneInputs {
            states: &sys.states,
            owner: &sys.pair_i,
            partner: &sys.pair_j,
            dt: sys.params.dt,
        };
        let len = 1usize << self.shift;
        let (place, mask) = (&self.place, &self.mask);
        self.regions
            .par_iter_mut()
            .zip(self.slot.par_chunks_mut(len))
            .enumerate()
            .for_each(|(r, (reg, slot))| {
                let k0 = r * len;
                for &k in &reg.active {
                    slot[k as usize - k0] = NONE;
                }
                select_active(&inp, &lanes, reg);
                for (a, &k) in reg.active.iter().enumerate() {
                    slot[k as usize - k0] = a as u32;
                    // The spheres' bits of active entries (integer OR: the order of the
                    // threads does not matter).
                    let p = place[k as usize];
                    let (i, j) = (inp.pair_i[k as usize] as usize, inp.pair_j[k as usize] as usize);
                    if (p[0] as usize) < MASK_BITS {
                        mask[i].fetch_or(1 << p[0], Relaxed);
                    }
                    if (p[1] as usize) < MASK_BITS {
                        mask[j].fetch_or(1 << p[1], Relaxed);
                    }
                }
                evaluate(&inp, &lanes, reg);
                // The live pairs for the next step.
                reg.live.clear();
                reg.live_hist.clear();
                for (&k, h) in reg.active.iter().zip(&reg.hist) {
                    if nonzero(h) {
                        reg.live.push(k);
                        reg.live_hist.push(*h);
                    }
                }
            });
    }

    /// The live histories into the stepper's `history` (the others are zero), before a list
    /// build and at the end of a call.
    pub fn flush(&mut self, sys: &mut CpuSpheres) {
        let len = 1usize << self.shift;
        self.regions
            .par_iter_mut()
            .zip(sys.history.par_chunks_mut(len))
            .enumerate()
            .for_each(|(r, (reg, h))| {
                let k0 = r * len;
                for &k in &reg.flushed {
                    h[k as usize - k0] = ContactHistory::default();
                }
                for (&k, x) in reg.live.iter().zip(&reg.live_hist) {
                    h[k as usize - k0] = *x;
                }
                reg.flushed.clone_from(&reg.live);
            });
    }

    /// Step 3: every sphere's force and torque (as `GatherInputs::force`, from the active
    /// pairs' results), written to `forces`, then `kick_pass`'s kicks and drift of the sphere;
    /// returns the rebuild check of that drift (false without `next`). Eight spheres at a time:
    /// the gathers one by one, the rest on lanes (`kick_lanes`, the same bits); the same pass
    /// checks the drift against the near build's positions (`near_stale`'s test, kept for the
    /// next `pair_pass`).
    pub fn gather_kick(&mut self, sys: &mut CpuSpheres, h: f32, next: Option<Drift>) -> bool {
        let p = sys.params;
        let g = Gather {
            gravity: p.gravity,
            nw: sys.walls.len(),
            start: &sys.incident_start,
            incident: &sys.incident,
            wall_out: &sys.wall_out,
            wall_any: &sys.wall_any,
            extra: &sys.extra_force,
            slot: &self.slot,
            regions: &self.regions,
            shift: self.shift,
            i_side: &self.i_side,
        };
        let k = KickInputs {
            h,
            next,
            global_damping: p.global_damping,
            local_damping: p.local_damping,
            x_ref: &sys.x_ref,
            x_near: &self.x_near,
            near_lim: if self.near_gap > 0.0 { 0.25 * self.near_gap } else { 0.0 },
        };
        let lanes = sys.use_lanes;
        let moved = sys
            .states
            .par_chunks_mut(LANES)
            .zip(sys.forces.par_chunks_mut(LANES))
            .zip(self.mask.par_chunks_mut(LANES))
            .enumerate()
            .with_min_len(PAR_MIN / LANES)
            .map(|(c, ((s, fo), mask))| {
                let i0 = c * LANES;
                let (mut f, mut t) = ([[0.0f32; 3]; LANES], [[0.0f32; 3]; LANES]);
                for (l, (s, m)) in s.iter().zip(mask.iter_mut()).enumerate() {
                    (f[l], t[l]) = g.sum(i0 + l, s.mass, m.get_mut());
                }
                if lanes && s.len() == LANES {
                    kick_eight(&k, i0, s, &f, &t, fo)
                } else {
                    let mut m = Moved::default();
                    for (l, (s, fo)) in s.iter_mut().zip(fo.iter_mut()).enumerate() {
                        m = m.or(kick_one(&k, i0 + l, s, f[l], t[l], fo));
                    }
                    m
                }
            })
            .reduce(Moved::default, Moved::or);
        if next.is_some() {
            self.moved_near = Some(moved.near);
        }
        moved.rebuild
    }

    /// `flush` + `write_back` into another labelling of the pairs (pair k of this pass is
    /// `map[k]` there; the stepper's records left the cell order without them): the live
    /// histories and zero elsewhere (what `flush` leaves: no other history has a bit set), the
    /// active pairs' results and +0 elsewhere.
    pub fn write_mapped(&self, history: &mut [ContactHistory], pair_out: &mut [PairOut], map: &[u32]) {
        history
            .par_iter_mut()
            .with_min_len(4096)
            .for_each(|h| *h = ContactHistory::default());
        pair_out
            .par_iter_mut()
            .with_min_len(4096)
            .for_each(|o| *o = PairOut::default());
        for reg in &self.regions {
            for (&k, x) in reg.live.iter().zip(&reg.live_hist) {
                history[map[k as usize] as usize] = *x;
            }
            for (&k, o) in reg.active.iter().zip(&reg.out) {
                pair_out[map[k as usize] as usize] = *o;
            }
        }
    }

    /// `pair_out` of the last evaluation: the active pairs' results, +0 elsewhere (what the
    /// full pass writes for a pair out of contact).
    pub fn write_back(&self, sys: &mut CpuSpheres) {
        let len = 1usize << self.shift;
        sys.pair_out
            .par_chunks_mut(len)
            .zip(self.regions.par_iter())
            .enumerate()
            .for_each(|(r, (po, reg))| {
                po.fill(PairOut::default());
                for (&k, o) in reg.active.iter().zip(&reg.out) {
                    po[k as usize - r * len] = *o;
                }
            });
    }
}

/// Groups of eight near pairs between a record's prefetch and its test.
const PREFETCH_GROUPS: usize = 4;

/// Starts loading `x`'s cache line (a hint: no effect on any result).
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that never faults; SSE is part of the x86-64 baseline.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(x as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// The active pairs of a region: its near pairs in contact now, and its live pairs (a history
/// to clear), in increasing order, each with the index of its old history (`Region::old`).
#[inline(never)]
fn select_active(inp: &PairInputs, lanes: &PairLaneInputs, reg: &mut Region) {
    let (near, live, act, old) = (&reg.near, &reg.live, &mut reg.active, &mut reg.old);
    act.clear();
    old.clear();
    let mut li = 0;
    for (c, ks) in near.chunks(LANES).enumerate() {
        // The records of the group PREFETCH_GROUPS ahead: the test waits on these loads
        // (a partner's record is first read a cell layer after its last write).
        for &k in near.iter().skip((c + PREFETCH_GROUPS) * LANES).take(LANES) {
            prefetch(&inp.states[inp.pair_i[k as usize] as usize]);
            prefetch(&inp.states[inp.pair_j[k as usize] as usize]);
        }
        let bits: u32 = match <&[u32; LANES]>::try_from(ks) {
            Ok(ks) if inp.use_lanes => touching_at(lanes, ks) as u32,
            _ => ks.iter().enumerate().fold(0, |m, (q, &k)| {
                let (a, b) = (
                    &inp.states[inp.pair_i[k as usize] as usize],
                    &inp.states[inp.pair_j[k as usize] as usize],
                );
                m | ((touches(a, b) as u32) << q)
            }),
        };
        for (q, &k) in ks.iter().enumerate() {
            while li < live.len() && live[li] < k {
                act.push(live[li]);
                old.push(li as u32);
                li += 1;
            }
            if li < live.len() && live[li] == k {
                act.push(k);
                old.push(li as u32);
                li += 1;
            } else if bits >> q & 1 == 1 {
                act.push(k);
                old.push(NONE);
            }
        }
    }
    for (q, &k) in live.iter().enumerate().skip(li) {
        act.push(k);
        old.push(q as u32);
    }
}

/// The active pairs of a region: results into `out`, new histories into `hist`. Groups of
/// eight under one lane law on lanes, the others one by one (the same bits either way, as
/// `PairInputs::range`).
#[inline(never)]
fn evaluate(inp: &PairInputs, lanes: &PairLaneInputs, reg: &mut Region) {
    let (act, old, live_hist) = (&reg.active, &reg.old, &reg.live_hist);
    let (out, hist) = (&mut reg.out, &mut reg.hist);
    out.clear();
    out.resize(act.len(), PairOut::default());
    hist.clear();
    hist.extend(old.iter().map(|&q| {
        if q == NONE {
            ContactHistory::default()
        } else {
            live_hist[q as usize]
        }
    }));
    let states = inp.states;
    let law_of = |k: u32| {
        let k = k as usize;
        (
            states[inp.pair_i[k] as usize].material,
            states[inp.pair_j[k] as usize].material,
        )
    };
    for ((ks, outs), hists) in act.chunks(LANES).zip(out.chunks_mut(LANES)).zip(hist.chunks_mut(LANES)) {
        if inp.use_lanes && ks.len() == LANES {
            let m = law_of(ks[0]);
            let law = inp.laws.get(m.0, m.1);
            if lane_law(law, inp.mc) && ks[1..].iter().all(|&k| law_of(k) == m) {
                let ks: &[u32; LANES] = ks.try_into().unwrap();
                let old: [ContactHistory; LANES] = std::array::from_fn(|l| hists[l]);
                let r = pair_group_at(lanes, ks, law, &old);
                for (l, (o, h)) in outs.iter_mut().zip(hists.iter_mut()).enumerate() {
                    (*o, *h) = r.record(l);
                }
                continue;
            }
        }
        for ((o, h), &k) in outs.iter_mut().zip(hists.iter_mut()).zip(ks) {
            inp.one_pair(k as usize, o, h);
        }
    }
}

/// What the gather of `gather_kick` reads.
struct Gather<'a> {
    gravity: V3,
    nw: usize,
    start: &'a [u32],
    incident: &'a [u32],
    wall_out: &'a [PairOut],
    wall_any: &'a [bool],
    extra: &'a [SphereForce],
    slot: &'a [u32],
    regions: &'a [Region],
    shift: u32,
    i_side: &'a [u32],
}

impl Gather<'_> {
    /// Sphere i's summed force and torque before damping: m g, its active pairs' results in
    /// its incident order (the entries of `mask`, which is cleared; more than 32 pairs: every
    /// entry through `slot`), the skipped +0 terms, its walls, the extra sources.
    #[inline]
    fn sum(&self, i: usize, mass: f32, mask: &mut u32) -> (V3, V3) {
        let (slot, regions, shift, nw) = (self.slot, self.regions, self.shift, self.nw);
        let mut f = scale(self.gravity, mass);
        let mut t = [0.0f32; 3];
        let row = &self.incident[self.start[i] as usize..self.start[i + 1] as usize];
        // Incident order: the pairs where i is j (−force), then those where it is i.
        let mut add_pair = |e: u32, a: u32| {
            let o = &regions[(e >> 1) as usize >> shift].out[a as usize];
            if e & 1 == 1 {
                f = sub(f, o.force);
                t = add(t, o.torque_j);
            } else {
                f = add(f, o.force);
                t = add(t, o.torque_i);
            }
        };
        let (skipped_plus, skipped);
        if row.len() <= MASK_BITS {
            let mut bits = std::mem::replace(mask, 0);
            let all = if row.len() == MASK_BITS {
                u32::MAX
            } else {
                (1u32 << row.len()) - 1
            };
            skipped = bits != all;
            skipped_plus = self.i_side[i] & !bits != 0;
            while bits != 0 {
                let e = row[bits.trailing_zeros() as usize];
                add_pair(e, slot[(e >> 1) as usize]);
                bits &= bits - 1;
            }
        } else {
            let (mut sp, mut sk) = (false, false);
            for &e in row {
                let a = slot[(e >> 1) as usize];
                if a == NONE {
                    sk = true;
                    sp |= e & 1 == 0;
                } else {
                    add_pair(e, a);
                }
            }
            (skipped_plus, skipped) = (sp, sk);
        }
        // The skipped +0 terms (module doc): the force got +0 from the pairs where i is i,
        // the torque from every pair.
        if skipped_plus {
            f = add(f, [0.0; 3]);
        }
        if skipped {
            t = add(t, [0.0; 3]);
        }
        (f, t) = add_walls_and_extra(self.wall_out, self.wall_any, self.extra, nw, i, f, t);
        (f, t)
    }
}
