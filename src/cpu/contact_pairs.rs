//! Twin of `shaders/contact_pairs.wgsl`: for node C, evaluates the contacts owned by each entry of
//! its neighbour list (see `ContactSlot`) and writes the forces and the new friction history.
//! Each contact is computed by exactly one thread; `node_forces` gathers the reactions.
//!
//! Most entries hold no contact (in a dense packing ~99 %), so only entries with an active
//! contact get a slot, appended to a pool; every entry's `slot_index` says which (or `NO_SLOT`).
//! The GPU appends with an atomic counter (slot order varies, values do not); here each chunk of
//! nodes appends to its own pool and the stepper concatenates them in chunk order. The slot
//! carries the contact's friction history, so the previous step's pool and slot indices (read
//! only; the pools and indices are ping-pong like the node state) give the history to update,
//! and an entry without a slot has none. An overflowing GPU pool thus leaves the step's inputs
//! intact for the redo. The function returns whether C got any slot, C's bit of the slot marks
//! (`has_slots`) that the stepper's chunk writes (on the GPU, the workgroup's 64 threads OR their
//! bits together and write two words), and lists in `gather` the nodes each new slot acts on
//! (C, D and, for a segment contact, D's successor), whose gather marks (`gathers`) the stepper
//! sets (on the GPU, `atomicOr` into the marks' second half).

use super::contact::*;
use crate::model::df32::{cross, df_sub, dot};
use crate::model::*;

/// True when node C can touch neither the interior of segment D → D1 nor (when C owns the cap,
/// `cap`) node D: |C − D| exceeds 1.01 (r_C + r_D), and C does not project into the segment's
/// interior (`interior`, the value the segment test after it uses) or its distance to the line
/// through D and D1 (|(C − D) × (D1 − D)| / |D1 − D|) exceeds 1.01 (r_C + r_D). No square root,
/// no division, and every contact it rejects would have been inactive: the interior test is the
/// exact test's own value, and the 1 % margin exceeds the rounding of the exact distances, so
/// the early out never changes a result. Most list entries (nodes facing a neighbouring shell
/// without touching it, or beside a segment's line but past its ends) end here.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn out_of_reach(
    cd: [f32; 2],
    cd2: f32,
    cap: bool,
    d: u32,
    d1: u32,
    interior: bool,
    pos: &[NodeState],
    r_sum: f32,
) -> bool {
    let lim = 1.01 * r_sum;
    let lim2 = lim * lim;
    if cap && cd2 <= lim2 {
        return false;
    }
    if d1 == NONE || !interior {
        return true;
    }
    let (pd, pb) = (&pos[d as usize], &pos[d1 as usize]);
    let ab = df_sub(pb.pos_hi, pb.pos_lo, pd.pos_hi, pd.pos_lo);
    let cr = cross(cd, ab);
    cr * cr > lim2 * dot(ab, ab)
}

#[allow(clippy::too_many_arguments)]
#[inline]
pub fn contact_pairs(
    c: usize,
    p: &SimParams,
    laws: &[ContactLaw],
    nodes: &[NodeRecord],
    bodies: &[Body],
    pos: &[NodeState],
    start: &[u32],
    entries: &[Entry],
    old_index: &[u32],
    old_pool: &[ContactSlot],
    slot_index: &mut [u32],
    pool: &mut Vec<ContactSlot>,
    gather: &mut Vec<u32>,
) -> bool {
    let args = (p, laws, nodes, bodies, pos, entries, old_index, old_pool);
    let before = pool.len();
    let base = start[c] as usize;
    for (k, index) in slot_index.iter_mut().enumerate() {
        *index = entry_contacts::<true>(c, base + k, args, pool, gather);
    }
    // Node C's slot mark (`has_slots`).
    pool.len() > before
}

/// What `entry_contacts` reads: the parameters, the contact law table (`Scene::contact_law_table`),
/// the nodes, bodies and state, the lists and the previous slots.
pub type PairInputs<'a> = (
    &'a SimParams,
    &'a [ContactLaw],
    &'a [NodeRecord],
    &'a [Body],
    &'a [NodeState],
    &'a [Entry],
    &'a [u32],
    &'a [ContactSlot],
);

/// The contacts owned by entry e of node C's list: appends their slot to `pool` (and the nodes
/// it acts on to `gather`) and returns its index, or `NO_SLOT`. With `EARLY_OUT` false the caller
/// has already applied `out_of_reach` (`contact_reach`, on lanes): the exact tests that follow
/// are the same, so is the slot.
#[inline(always)]
pub fn entry_contacts<const EARLY_OUT: bool>(
    c: usize,
    e: usize,
    (p, laws, nodes, bodies, pos, entries, old_index, old_pool): PairInputs,
    pool: &mut Vec<ContactSlot>,
    gather: &mut Vec<u32>,
) -> u32 {
    let pc = &pos[c];
    let bc = &bodies[nodes[c].body as usize];
    let rc = bc.radius;
    let vc = pos[c].vel;
    // Friction history of this entry's contacts (segment, cap) after the previous step.
    let history = || match old_index[e] {
        NO_SLOT => [0.0f32, 0.0],
        i => old_pool[i as usize].hist,
    };
    let d = entries[e].neighbor;
    let nd = nodes[d as usize];
    let bd = &bodies[nd.body as usize];
    let rd = bd.radius;
    // The pair's law: the table's entry for the two bodies' contact materials.
    let pair = bc.contact_material as usize * p.n_contact_materials as usize + bd.contact_material as usize;
    let lp = LawParams::new(&laws[pair], p.dt);
    let mut s = ContactSlot::default();
    let pd = &pos[d as usize];
    let cd = df_sub(pc.pos_hi, pc.pos_lo, pd.pos_hi, pd.pos_lo);
    let cd2 = dot(cd, cd);
    // Whether C projects into the interior of segment D → D1, once for the early out and the
    // segment test (one value for both, whatever the compiler does with two evaluations).
    let d1 = nd.next;
    let interior = d1 != NONE && in_segment_interior(pc, pd, &pos[d1 as usize]);
    if EARLY_OUT && out_of_reach(cd, cd2, (c as u32) < d, d, d1, interior, pos, rc + rd) {
        return NO_SLOT;
    }
    // Node C against the interior of segment D → D1 (Fig. 4b).
    if d1 != NONE {
        let pa = pd;
        let pb = &pos[d1 as usize];
        if interior {
            let (off, w) = segment_offset(pc, pa, pb);
            let dist = dot(off, off).sqrt();
            let overlap = rc + rd - dist;
            let mut active = overlap > 0.0 && dist > 0.0;
            // Concave joint: only the closer of two adjacent segments acts (ties: the previous).
            if active && nd.prev != NONE && interior_distance(pc, &pos[nd.prev as usize], pa) <= dist {
                active = false;
            }
            let d2 = nodes[d1 as usize].next;
            if active && d2 != NONE && interior_distance(pc, pb, &pos[d2 as usize]) < dist {
                active = false;
            }
            if active {
                let n = [off[0] / dist, off[1] / dist];
                let vd = pos[d as usize].vel;
                let vd1 = pos[d1 as usize].vel;
                let vs = [(1.0 - w) * vd[0] + w * vd1[0], (1.0 - w) * vd[1] + w * vd1[1]];
                let cf = contact_law(&lp, overlap, n, [vc[0] - vs[0], vc[1] - vs[1]], history()[0]);
                s.seg_force = cf.force;
                s.seg_w = w;
                s.seg_fn = cf.f_n;
                s.flags |= SLOT_SEG;
                s.hist[0] = cf.f_t;
            }
        }
    }
    // Cap contact C–D (Fig. 4a/c), owned by the lower index. The overlap is tested before the
    // vertex regions: it is cheaper and fails for most entries.
    if (c as u32) < d {
        let dist = cd2.sqrt();
        let overlap = rc + rd - dist;
        if overlap > 0.0
            && dist > 0.0
            && in_vertex_region(pc, d, nodes, pos)
            && in_vertex_region(pd, c as u32, nodes, pos)
        {
            let n = [cd[0] / dist, cd[1] / dist];
            let vd = pos[d as usize].vel;
            let cf = contact_law(&lp, overlap, n, [vc[0] - vd[0], vc[1] - vd[1]], history()[1]);
            s.cap_force = cf.force;
            s.cap_fn = cf.f_n;
            s.flags |= SLOT_CAP;
            s.hist[1] = cf.f_t;
        }
    }
    if s.flags != 0 {
        pool.push(s);
        // The nodes the slot's forces act on, for their gather marks (`gathers`; the WGSL
        // twin ORs the bits in directly).
        gather.extend_from_slice(&[c as u32, d]);
        if s.flags & SLOT_SEG != 0 {
            gather.push(nd.next);
        }
        (pool.len() - 1) as u32
    } else {
        NO_SLOT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A node at (x, y) in double-f32, split as the steppers store it.
    fn node(x: f64, y: f64) -> NodeState {
        let (pos_hi, pos_lo) = crate::model::df32::df_split([x, y]);
        NodeState {
            pos_hi,
            pos_lo,
            ..Default::default()
        }
    }

    /// `out_of_reach` never rejects an entry whose exact tests (the ones `contact_pairs` runs
    /// after it) find a contact, even for nodes within ±2 % of touching, far from the origin;
    /// and it does reject most entries that cannot touch.
    #[test]
    fn out_of_reach_rejects_only_entries_without_contact() {
        let mut rng = crate::scenes::SplitMix(0x9E37_79B9_7F4A_7C15);
        let mut rnd = move || rng.next_f64();
        let (mut rejected, mut kept, mut touching_at_margin) = (0, 0, 0);
        for k in 0..200_000 {
            let o = [2e3 * (rnd() - 0.5), 2e3 * (rnd() - 0.5)];
            let r_sum = (0.01 + 0.1 * rnd()) as f32;
            let (len, ang) = (0.05 + 0.5 * rnd(), std::f64::consts::TAU * rnd());
            let u = [ang.cos(), ang.sin()];
            // C beside the segment: half the samples within ±2 % of the touching distance.
            let t = -0.3 + 1.6 * rnd();
            let h = if k % 2 == 0 {
                r_sum as f64 * (0.98 + 0.04 * rnd())
            } else {
                4.0 * r_sum as f64 * rnd()
            } * if rnd() < 0.5 { 1.0 } else { -1.0 };
            let c = [o[0] + t * len * u[0] - h * u[1], o[1] + t * len * u[1] + h * u[0]];
            let pos = [
                node(c[0], c[1]),
                node(o[0], o[1]),
                node(o[0] + len * u[0], o[1] + len * u[1]),
            ];
            let cd = df_sub(pos[0].pos_hi, pos[0].pos_lo, pos[1].pos_hi, pos[1].pos_lo);
            let cd2 = dot(cd, cd);
            let cap = k % 3 != 0;
            // The exact tests of contact_pairs (segment interior, then cap), as written there.
            let interior = in_segment_interior(&pos[0], &pos[1], &pos[2]);
            let seg = interior && {
                let (off, _) = segment_offset(&pos[0], &pos[1], &pos[2]);
                let dist = dot(off, off).sqrt();
                r_sum - dist > 0.0 && dist > 0.0
            };
            let dist = cd2.sqrt();
            let cap_contact = cap && r_sum - dist > 0.0 && dist > 0.0;
            if out_of_reach(cd, cd2, cap, 1, 2, interior, &pos, r_sum) {
                assert!(
                    !seg && !cap_contact,
                    "sample {k}: rejected a contact (h/r = {})",
                    h / r_sum as f64
                );
                rejected += 1;
            } else {
                kept += 1;
            }
            if (seg || cap_contact) && h.abs() > 0.99 * r_sum as f64 {
                touching_at_margin += 1;
            }
        }
        assert!(rejected > 50_000 && kept > 50_000, "rejected {rejected}, kept {kept}");
        assert!(
            touching_at_margin > 1_000,
            "only {touching_at_margin} contacts within 1 % of the margin"
        );
    }
}
