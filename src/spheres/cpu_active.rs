//! The CPU stepper's active-pair pass (`CpuSpheres::steps` without MC laws): most candidate
//! pairs of a dense packing are within the skin but not in contact (the bench's random packing:
//! 5.8 candidates and ~0.3 contacts per sphere), and such a pair with a zero history gives an
//! all-zero result and keeps its zero history. So a step
//!
//! 1. tests every pair for contact on positions and radii alone (`pair_lanes::touching8`, the
//!    test by which `sphere_pair_geometry` returns an empty contact), and keeps the *active*
//!    pairs: in contact, or with a history that is not all-zero bits (it must be cleared);
//! 2. evaluates only the active pairs (eight at a time on lanes, `pair_lanes::pair_group_at`,
//!    else `one_pair`: the same operations as `pair_pass`), their results in a compact array
//!    (4–5 MB less per step to write and read back at 10⁵ spheres than a 48-byte record per
//!    candidate), their histories in place;
//! 3. gathers per sphere, in the incident order of `gather` (the partners' user index order),
//!    only the active pairs' results, and kicks the sphere in the same sweep (`kick_pass`'s
//!    closing kick and the next step's kick, drift and rebuild check).
//!
//! **The same bits as `pair_gather` + `kick_pass`.** An inactive pair's record is +0 in every
//! component (force, torques) and its history stays the zero it was. Skipping a term −(+0) in a
//! sum changes nothing (x − 0 = x for every x, −0 included); skipping a term +(+0) changes a sum
//! only where it is −0 (−0 + 0 = +0), and a running sum that took a +0 term once is never −0
//! again (from +0, zero terms keep it +0 and a nonzero sum returns to zero only by exact
//! cancellation, which gives +0). So the sum without the skipped +0 terms, plus one +0 at the
//! end when some were skipped, is the full sum bit for bit (the gather's `skipped` flags; the
//! same argument as the walls' +0 in `GatherInputs::force`). `pair_out` is written only at the
//! end of a call (`write_back`), as the full pass would have left it.
//!
//! Pairs are cut into regions of 2^shift pairs (many per thread; a region's active pairs, their
//! results and its part of `live` are its own); the split changes no result.

use super::contact::ContactHistory;
use super::cpu_stepper::{damp, moved_beyond, CpuSpheres, Drift, PairInputs, PairOut};
use super::pair_lanes::{lane_law, pair_group_at, touching8, PairLaneInputs};
use super::precision::{df3_add, df3_sub};
use super::state::{SphereForce, SphereState};
use crate::laws::vec3::{add, norm, scale, sub};
use crate::model::lanes::LANES;
use rayon::prelude::*;

/// No slot: the pair is not active.
const NONE: u32 = u32::MAX;

/// Spheres per rayon task at least in the gather.
const PAR_MIN: usize = 512;

/// The active pairs of the current evaluation and what carries from one step to the next.
pub struct ActivePairs {
    /// log2 of the pairs per region.
    shift: u32,
    /// Per region: the pairs whose history is not all-zero bits after the last evaluation
    /// (increasing), the active pairs of this evaluation (increasing) and their results.
    live: Vec<Vec<u32>>,
    active: Vec<Vec<u32>>,
    out: Vec<Vec<PairOut>>,
    /// Per pair: its index in its region's `active` and `out`; `NONE` when inactive.
    slot: Vec<u32>,
}

/// Whether a history record has some bit set (−0 included: it must be cleared to +0).
#[inline]
fn nonzero(h: &ContactHistory) -> bool {
    bytemuck::cast_ref::<_, [u32; 8]>(h).iter().any(|&w| w != 0)
}

/// Not (δ ≤ 0 or |d| ≤ 0): the contact test of `sphere_pair_geometry`, scalar.
#[inline]
fn touches(a: &SphereState, b: &SphereState) -> bool {
    let d = df3_sub(a.pos_hi, a.pos_lo, b.pos_hi, b.pos_lo);
    let dist = norm(d);
    let delta = a.radius + b.radius - dist;
    !(delta <= 0.0 || dist <= 0.0)
}

impl ActivePairs {
    /// For the current list and histories of `sys`.
    pub fn new(sys: &CpuSpheres) -> ActivePairs {
        let mut a = ActivePairs {
            shift: 0,
            live: Vec::new(),
            active: Vec::new(),
            out: Vec::new(),
            slot: Vec::new(),
        };
        a.reset(sys);
        a
    }

    /// After a list build: regions for the new list, the live pairs read from the histories.
    pub fn reset(&mut self, sys: &CpuSpheres) {
        let m = sys.list.len();
        // About 16 regions per thread (rayon balances them), at least 4,096 pairs each.
        let target = m / (16 * rayon::current_num_threads()).max(1);
        self.shift = target.max(4096).next_power_of_two().trailing_zeros();
        let len = 1usize << self.shift;
        let regions = m.div_ceil(len);
        self.live = sys
            .history
            .par_chunks(len)
            .enumerate()
            .map(|(r, h)| {
                let k0 = r * len;
                (0..h.len())
                    .filter(|&q| nonzero(&h[q]))
                    .map(|q| (k0 + q) as u32)
                    .collect()
            })
            .collect();
        self.active = vec![Vec::new(); regions];
        self.out = vec![Vec::new(); regions];
        self.slot = vec![NONE; m];
    }

    /// Steps 1 and 2 of a step: the active pairs, their results and new histories.
    pub fn pair_pass(&mut self, sys: &mut CpuSpheres) {
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
        self.live
            .par_iter_mut()
            .zip(self.active.par_iter_mut())
            .zip(self.out.par_iter_mut())
            .zip(self.slot.par_chunks_mut(len))
            .zip(sys.history.par_chunks_mut(len))
            .enumerate()
            .for_each(|(r, ((((live, act), out), slot), hist))| {
                let k0 = r * len;
                select_active(&inp, &lanes, k0, live, act, slot);
                evaluate(&inp, &lanes, k0, act, out, hist);
                // The histories to clear at the next step.
                live.clear();
                live.extend(act.iter().copied().filter(|&k| nonzero(&hist[k as usize - k0])));
            });
    }

    /// Step 3: every sphere's force and torque (as `GatherInputs::force`, from the active
    /// pairs' results), written to `forces`, then `kick_pass`'s kicks and drift of the sphere;
    /// returns the rebuild check of that drift (false without `next`).
    pub fn gather_kick(&self, sys: &mut CpuSpheres, h: f32, next: Option<Drift>) -> bool {
        let (p, nw) = (sys.params, sys.walls.len());
        let (start, incident) = (&sys.incident_start, &sys.incident);
        let (wall_out, wall_any, extra, x_ref) = (&sys.wall_out, &sys.wall_any, &sys.extra_force, &sys.x_ref);
        let (slot, out, shift) = (&self.slot, &self.out, self.shift);
        sys.states
            .par_iter_mut()
            .zip(sys.forces.par_iter_mut())
            .enumerate()
            .with_min_len(PAR_MIN)
            .map(|(i, (s, fo))| {
                let mut f = scale(p.gravity, s.mass);
                let mut t = [0.0f32; 3];
                // Incident order: the pairs where i is j (−force), then those where it is i.
                let (mut skipped_plus, mut skipped) = (false, false);
                for &e in &incident[start[i] as usize..start[i + 1] as usize] {
                    let k = (e >> 1) as usize;
                    let a = slot[k];
                    if a == NONE {
                        skipped = true;
                        skipped_plus |= e & 1 == 0;
                        continue;
                    }
                    let o = &out[k >> shift][a as usize];
                    if e & 1 == 1 {
                        f = sub(f, o.force);
                        t = add(t, o.torque_j);
                    } else {
                        f = add(f, o.force);
                        t = add(t, o.torque_i);
                    }
                }
                // The skipped +0 terms (module doc): the force got +0 from the pairs where i
                // is i, the torque from every pair.
                if skipped_plus {
                    f = add(f, [0.0; 3]);
                }
                if skipped {
                    t = add(t, [0.0; 3]);
                }
                if wall_any[i] {
                    for o in &wall_out[i * nw..(i + 1) * nw] {
                        f = add(f, o.force);
                        t = add(t, o.torque_i);
                    }
                } else if nw > 0 {
                    f = add(f, [0.0; 3]);
                    t = add(t, [0.0; 3]);
                }
                if let Some(x) = extra.get(i) {
                    f = add(f, x.force);
                    t = add(t, x.torque);
                }
                f = damp(f, s.vel, p.global_damping * s.mass, p.local_damping);
                t = damp(t, s.omega, p.global_damping * s.inertia, p.local_damping);
                *fo = SphereForce {
                    force: f,
                    torque: t,
                    ..Default::default()
                };
                // kick_pass.
                s.vel = add(s.vel, scale(f, h / s.mass));
                s.omega = add(s.omega, scale(t, h / s.inertia));
                next.is_some_and(|d| {
                    s.vel = add(s.vel, scale(f, d.h / s.mass));
                    s.omega = add(s.omega, scale(t, d.h / s.inertia));
                    let (hi, lo) = df3_add(s.pos_hi, s.pos_lo, scale(s.vel, d.dt));
                    s.pos_hi = hi;
                    s.pos_lo = lo;
                    moved_beyond(add(hi, lo), x_ref[i], d.lim)
                })
            })
            .reduce(|| false, |a, b| a | b)
    }

    /// `pair_out` of the last evaluation: the active pairs' results, +0 elsewhere (what the
    /// full pass writes for a pair out of contact).
    pub fn write_back(&self, sys: &mut CpuSpheres) {
        let len = 1usize << self.shift;
        sys.pair_out
            .par_chunks_mut(len)
            .zip(self.active.par_iter().zip(self.out.par_iter()))
            .enumerate()
            .for_each(|(r, (po, (act, out)))| {
                po.fill(PairOut::default());
                for (&k, o) in act.iter().zip(out) {
                    po[k as usize - r * len] = *o;
                }
            });
    }
}

/// The active pairs of the region from `k0` on (`slot.len()` pairs): in contact now, or live
/// (a history to clear); their slots.
fn select_active(
    inp: &PairInputs,
    lanes: &PairLaneInputs,
    k0: usize,
    live: &[u32],
    act: &mut Vec<u32>,
    slot: &mut [u32],
) {
    act.clear();
    let mut li = 0;
    let len = slot.len();
    for g in (0..len).step_by(LANES) {
        let w = LANES.min(len - g);
        let mut bits: u32 = if inp.use_lanes && w == LANES {
            touching8(lanes, k0 + g) as u32
        } else {
            (0..w).fold(0, |m, q| {
                let k = k0 + g + q;
                let (a, b) = (&inp.states[inp.pair_i[k] as usize], &inp.states[inp.pair_j[k] as usize]);
                m | ((touches(a, b) as u32) << q)
            })
        };
        while li < live.len() && (live[li] as usize) < k0 + g + w {
            bits |= 1 << (live[li] as usize - k0 - g);
            li += 1;
        }
        for q in 0..w {
            slot[g + q] = if bits >> q & 1 == 1 {
                act.push((k0 + g + q) as u32);
                (act.len() - 1) as u32
            } else {
                NONE
            };
        }
    }
}

/// The active pairs `act` of the region from `k0` on: results into `out`, new histories into
/// `hist` (the region's). Groups of eight under one lane law on lanes, the others one by one
/// (the same bits either way, as `PairInputs::range`).
fn evaluate(
    inp: &PairInputs,
    lanes: &PairLaneInputs,
    k0: usize,
    act: &[u32],
    out: &mut Vec<PairOut>,
    hist: &mut [ContactHistory],
) {
    out.clear();
    out.resize(act.len(), PairOut::default());
    let states = inp.states;
    let law_of = |k: u32| {
        let k = k as usize;
        (states[inp.pair_i[k] as usize].material, states[inp.pair_j[k] as usize].material)
    };
    for (ks, outs) in act.chunks(LANES).zip(out.chunks_mut(LANES)) {
        if inp.use_lanes && ks.len() == LANES {
            let m = law_of(ks[0]);
            let law = inp.laws.get(m.0, m.1);
            if lane_law(law, inp.mc) && ks[1..].iter().all(|&k| law_of(k) == m) {
                let ks: &[u32; LANES] = ks.try_into().unwrap();
                let old: [ContactHistory; LANES] = std::array::from_fn(|l| hist[ks[l] as usize - k0]);
                let r = pair_group_at(lanes, ks, law, &old);
                for (l, o) in outs.iter_mut().enumerate() {
                    (*o, hist[ks[l] as usize - k0]) = r.record(l);
                }
                continue;
            }
        }
        for (o, &k) in outs.iter_mut().zip(ks) {
            inp.one_pair(k as usize, o, &mut hist[k as usize - k0]);
        }
    }
}
