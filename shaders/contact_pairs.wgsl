// contact_pairs.wgsl: for node C, the contacts owned by each entry of its neighbour list
// (C against segment D → next D, and the cap contact C–D when C < D); twin of
// src/cpu/contact_pairs.rs. Each contact is computed by one thread only. Only entries with an
// active contact get a slot: appended to the pool with an atomic counter (flags.pool_used, one
// atomicAdd per workgroup: see STAGE; the slots' places vary from run to run, their values and
// every sum over them do not), its place stored in the entry's slot_index (NO_SLOT without a
// contact). The slot carries the contact's friction history: the previous step's pool and slot
// indices (read only; pools and indices are ping-pong) give the history to
// update, and an entry without a slot has none. A pool overflow (flags.pool_overflow, with
// flags.stop stopping the rest of the batch) thus leaves the step's inputs intact for the host's
// redo. The workgroup's 64 threads OR their slot marks (bit c: node C got a slot; read by
// node_forces) into two shared words, which two threads then store (core_area clears the marks).
// `shell_forces_contact_pairs_direct` is the same pass with neither the shared words nor the
// stage: no workgroup barrier, which CPU adapters (lavapipe) pay for dearly.
//
// The entry point `shell_forces_contact_pairs` runs, per node, shell_forces (shell_forces.wgsl)
// and then the node's contacts, on the node's record and state read once: one pass over the
// nodes instead of two (the CPU stepper runs both over each chunk of nodes). The two write
// different outputs (shell records; slots, slot indices, marks) from the same inputs, so fusing
// them changes no result.

#import shell_forces
#import contact

// From shell_forces.wgsl: nodes (1), bodies (2), pos (3), materials (14), body_state (15),
// shell (17).
@group(0) @binding(5) var<storage, read> start: array<u32>;
@group(0) @binding(6) var<storage, read> entries: array<Entry>;
// The previous step's slots and slot indices (friction histories).
@group(0) @binding(7) var<storage, read> old_pool: array<ContactSlot>;
@group(0) @binding(11) var<storage, read> old_index: array<u32>;
// This step's.
@group(0) @binding(8) var<storage, read_write> pool: array<ContactSlot>;
@group(0) @binding(9) var<storage, read_write> slot_index: array<u32>;
// flags.stop != 0: list or pool overflow earlier in this batch, no-op (see core_area.wgsl);
// flags.pool_used: slots appended in this step; flags.pool_overflow = 1: the pool overflowed.
@group(0) @binding(10) var<storage, read_write> flags: StepFlags;
// Marks, two halves of ceil(n/32) words (twin of cpu::stepper's slot_marks): slot marks, one bit
// per node that got a slot (`has_slots`), stored per workgroup; gather marks, one bit per node a
// slot acts on (`gathers`), ORed in by any thread (core_area cleared them).
@group(0) @binding(12) var<storage, read_write> slot_marks: array<atomic<u32>>;
// The contact law of every ordered pair of contact materials, row-major (model::contact_table).
@group(0) @binding(13) var<storage, read> contact_laws: array<ContactLaw>;

var<workgroup> group_marks: array<atomic<u32>, 2>;

// Slot allocation per workgroup: each new slot is staged here with its entry, and one
// atomicAdd on flags.pool_used per workgroup places them all (instead of one per slot on the one
// address of the whole grid). A slot that finds the stage full takes its place from flags.pool_used
// directly. Where a slot lies in the pool varies from run to run either way; its value, the
// entry's slot_index → slot map, and every sum over the slots do not.
const STAGE: u32 = 64u;
var<workgroup> stage_slots: array<ContactSlot, STAGE>;
var<workgroup> stage_entries: array<u32, STAGE>;
var<workgroup> staged: atomic<u32>;
var<workgroup> stage_base: u32;

// True when P lies in the vertex region of node v (twin of cpu::contact::in_vertex_region).
fn in_vertex_region(p: NodeState, v: u32) -> bool {
    let nv = nodes[v];
    let pv = pos[v];
    let vp = df_sub(p, pv);
    if (nv.prev != NONE) {
        let av = df_sub(pv, pos[nv.prev]);
        if (dot2(vp, av) < 0.0) {
            return false;
        }
    }
    if (nv.next != NONE) {
        let vb = df_sub(pos[nv.next], pv);
        if (dot2(vp, vb) >= 0.0) {
            return false;
        }
    }
    return true;
}

// True when node C can touch neither the interior of segment D → D1 nor (when C owns the cap,
// `cap`) node D: |C − D| exceeds 1.01 (r_C + r_D), and C does not project into the segment's
// interior (`interior`, the value the segment test after it uses) or its distance to the line
// through D and D1 exceeds 1.01 (r_C + r_D). The interior test is the exact test's own value and
// the 1 % margin exceeds the rounding of the exact distances, so the early out never changes a
// result (twin of cpu::contact_pairs::out_of_reach).
fn out_of_reach(cd: vec2<f32>, cd2: f32, cap: bool, d: u32, d1: u32, interior: bool, r_sum: f32) -> bool {
    let lim = 1.01 * r_sum;
    let lim2 = lim * lim;
    if (cap && cd2 <= lim2) {
        return false;
    }
    if (d1 == NONE || !interior) {
        return true;
    }
    let ab = df_sub(pos[d1], pos[d]);
    let cr = cross2(cd, ab);
    return cr * cr > lim2 * dot2(ab, ab);
}

// Friction history of entry e's contacts (segment, cap) after the previous step.
fn old_history(e: u32) -> vec2<f32> {
    let i = old_index[e];
    if (i == NO_SLOT) {
        return vec2<f32>(0.0, 0.0);
    }
    return old_pool[i].hist;
}

@compute @workgroup_size(64)
fn shell_forces_contact_pairs(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_id(wid, lid, nwg, 64u);
    if (lid.x < 2u) {
        atomicStore(&group_marks[lid.x], 0u);
    }
    if (lid.x == 0u) {
        atomicStore(&staged, 0u);
    }
    workgroupBarrier();
    if (c < params.n_nodes && atomicLoad(&flags.stop) == 0u) {
        let n = nodes[c];
        let body = bodies[n.body];
        let pc = pos[c];
        shell_forces(c, n, body, pc);
        if (node_contacts_staged(c, body, pc)) {
            atomicOr(&group_marks[lid.x >> 5u], 1u << (lid.x & 31u));
        }
    }
    workgroupBarrier();
    // The workgroup's nodes start at a multiple of 64: words (c − lid) / 32 + 0 and + 1.
    let first = c - lid.x + 32u * lid.x;
    if (lid.x < 2u && first < params.n_nodes) {
        atomicStore(&slot_marks[first >> 5u], atomicLoad(&group_marks[lid.x]));
    }
    // The staged slots: one place for all of them, then each thread stores every 64th.
    let count = min(atomicLoad(&staged), STAGE);
    if (lid.x == 0u && count > 0u) {
        stage_base = atomicAdd(&flags.pool_used, count);
    }
    workgroupBarrier();
    for (var j = lid.x; j < count; j += 64u) {
        place_slot(stage_base + j, stage_slots[j], stage_entries[j]);
    }
}

// The same pass without workgroup barriers or workgroup memory (`GpuBackend` chooses it on CPU
// adapters, `SlotAllocation`): a node that got a slot ORs its slot mark into the marks (core_area
// cleared them), and each new slot takes its place with its own atomicAdd. The same slots, slot
// indices, marks and sums as the staged pass; only the slots' places in the pool differ, as they
// do from run to run.
@compute @workgroup_size(64)
fn shell_forces_contact_pairs_direct(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_id(wid, lid, nwg, 64u);
    if (c >= params.n_nodes || atomicLoad(&flags.stop) != 0u) {
        return;
    }
    let n = nodes[c];
    let body = bodies[n.body];
    let pc = pos[c];
    shell_forces(c, n, body, pc);
    if (node_contacts_direct(c, body, pc)) {
        atomicOr(&slot_marks[c >> 5u], 1u << (c & 31u));
    }
}

// Stores slot s at pool place i and its index in entry e's slot_index; a place beyond the pool
// is an overflow: the batch stops and the host grows the pool (flags.pool_used, the slots asked
// for, sizes it) and redoes the step.
fn place_slot(i: u32, s: ContactSlot, e: u32) {
    if (i < arrayLength(&pool)) {
        pool[i] = s;
        slot_index[e] = i;
    } else {
        slot_index[e] = NO_SLOT;
        atomicStore(&flags.pool_overflow, 1u);
        atomicStore(&flags.stop, 1u);
    }
}

// Sets node x's gather mark (the marks' second half; OR is order-free, so runs stay identical).
fn mark_gather(x: u32) {
    atomicOr(&slot_marks[marks_words() + (x >> 5u)], 1u << (x & 31u));
}

// The contacts owned by entry e of node C's list (twin of cpu::contact_pairs): their slot, flags 0
// when neither touches. C's body `bc` and state `pc` as the caller read them.
fn entry_contacts(c: u32, bc: Body, pc: NodeState, e: u32) -> ContactSlot {
    let rc = bc.radius;
    // Row of C's contact material in the law table.
    let row = bc.contact_material * params.n_contact_materials;
    let vc = pc.vel;
    var s = empty_slot();
    let d = entries[e].neighbor;
    let nd = nodes[d];
    let bd = bodies[nd.body];
    let rd = bd.radius;
    let law = contact_laws[row + bd.contact_material];
    let pd = pos[d];
    let cd = df_sub(pc, pd);
    let cd2 = dot2(cd, cd);
    // Whether C projects into the interior of segment D → D1, once for the early out and the
    // segment test (one value for both, whatever the compiler does with two evaluations).
    let d1 = nd.next;
    var interior = false;
    if (d1 != NONE) {
        interior = in_segment_interior(pc, pd, pos[d1]);
    }
    if (out_of_reach(cd, cd2, c < d, d, d1, interior, rc + rd)) {
        return s;
    }
    // Node C against the interior of segment D → D1 (Fig. 4b).
    if (d1 != NONE) {
        let pa = pd;
        let pb = pos[d1];
        if (interior) {
            let o = segment_offset(pc, pa, pb);
            let off = o.xy;
            let w = o.z;
            let dist = sqrt(dot2(off, off));
            let overlap = rc + rd - dist;
            var in_contact = overlap > 0.0 && dist > 0.0;
            // Concave joint: only the closer of two adjacent segments acts (ties: the previous).
            if (in_contact && nd.prev != NONE) {
                if (interior_distance(pc, pos[nd.prev], pa) <= dist) {
                    in_contact = false;
                }
            }
            let d2 = nodes[d1].next;
            if (in_contact && d2 != NONE) {
                if (interior_distance(pc, pb, pos[d2]) < dist) {
                    in_contact = false;
                }
            }
            if (in_contact) {
                let n = vec2<f32>(off.x / dist, off.y / dist);
                let vd = pos[d].vel;
                let vd1 = pos[d1].vel;
                let vs = vec2<f32>((1.0 - w) * vd.x + w * vd1.x, (1.0 - w) * vd.y + w * vd1.y);
                let cf = contact_law(law.k_n, law.k_t, law.mu, law.c_n, params.dt, overlap, n, vec2<f32>(vc.x - vs.x, vc.y - vs.y), old_history(e).x);
                s.seg_force = cf.force;
                s.seg_w = w;
                s.seg_fn = cf.f_n;
                s.flags |= SLOT_SEG;
                s.hist.x = cf.f_t;
            }
        }
    }
    // Cap contact C–D (Fig. 4a/c), owned by the lower index. The overlap is tested before the
    // vertex regions: it is cheaper and fails for most entries.
    if (c < d) {
        let dist = sqrt(cd2);
        let overlap = rc + rd - dist;
        if (overlap > 0.0 && dist > 0.0) {
            if (in_vertex_region(pc, d) && in_vertex_region(pd, c)) {
                let n = vec2<f32>(cd.x / dist, cd.y / dist);
                let vd = pos[d].vel;
                let cf = contact_law(law.k_n, law.k_t, law.mu, law.c_n, params.dt, overlap, n, vec2<f32>(vc.x - vd.x, vc.y - vd.y), old_history(e).y);
                s.cap_force = cf.force;
                s.cap_fn = cf.f_n;
                s.flags |= SLOT_CAP;
                s.hist.y = cf.f_t;
            }
        }
    }
    return s;
}

// Sets the gather marks of the nodes entry e's slot `s` acts on: C, D and, for a segment
// contact, D's successor (twin: the `gather` list of the CPU).
fn mark_slot_nodes(c: u32, e: u32, s: ContactSlot) {
    let d = entries[e].neighbor;
    mark_gather(c);
    mark_gather(d);
    if ((s.flags & SLOT_SEG) != 0u) {
        mark_gather(nodes[d].next);
    }
}

// The contacts of node C's entries, each new slot staged for the workgroup's one allocation (or
// placed at once when the stage is full); true when C got any slot.
fn node_contacts_staged(c: u32, bc: Body, pc: NodeState) -> bool {
    var any_slot = false;
    for (var e = start[c]; e < start[c + 1u]; e++) {
        let s = entry_contacts(c, bc, pc, e);
        if (s.flags == 0u) {
            slot_index[e] = NO_SLOT;
            continue;
        }
        any_slot = true;
        mark_slot_nodes(c, e, s);
        let j = atomicAdd(&staged, 1u);
        if (j < STAGE) {
            stage_slots[j] = s;
            stage_entries[j] = e;
        } else {
            place_slot(atomicAdd(&flags.pool_used, 1u), s, e);
        }
    }
    return any_slot;
}

// As node_contacts_staged, each slot placed at once by its own atomicAdd (no workgroup memory).
fn node_contacts_direct(c: u32, bc: Body, pc: NodeState) -> bool {
    var any_slot = false;
    for (var e = start[c]; e < start[c + 1u]; e++) {
        let s = entry_contacts(c, bc, pc, e);
        if (s.flags == 0u) {
            slot_index[e] = NO_SLOT;
            continue;
        }
        any_slot = true;
        mark_slot_nodes(c, e, s);
        place_slot(atomicAdd(&flags.pool_used, 1u), s, e);
    }
    return any_slot;
}
