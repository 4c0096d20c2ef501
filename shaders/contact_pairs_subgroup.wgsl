// contact_pairs_subgroup.wgsl: `shell_forces_contact_pairs` (contact_pairs.wgsl) with the new
// contact slots placed per subgroup (`SlotAllocation::Subgroup`, GPUs with subgroup operations):
// no workgroup memory and no workgroup barrier, one atomicAdd on the pool counter per subgroup
// and round instead of one per slot.
//
// The invocations of a subgroup walk their lists in lock step: round k handles entry k of every
// invocation's list, for as many rounds as the longest list of the subgroup (subgroupMax), an
// invocation whose list is shorter, or without a node, taking part with no slot (subgroup
// operations need every invocation of the subgroup, in uniform control flow). In a round the
// invocations with a new slot count themselves (subgroupExclusiveAdd: each one's place among
// them; subgroupAdd: how many), the first invocation takes that many places with one atomicAdd,
// subgroupBroadcastFirst hands its base to all, and each stores its slot at base + its place.
// The slot marks (one bit per node that got a slot) are ORed per subgroup (subgroupOr) into the
// workgroup's two words and stored by the first invocation (core_area cleared them).
//
// The same slots, slot indices, marks and sums as the staged and direct passes; only the slots'
// places in the pool differ, as they do from run to run. A module of its own, compiled only on a
// device with subgroup operations (src/shaders.rs, NEEDS_SUBGROUPS).

#import contact_pairs
#import subgroup

@compute @workgroup_size(64)
fn shell_forces_contact_pairs_subgroup(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_id(wid, lid, nwg, 64u);
    // flags.stop is read once: an invocation without a node (or after an overflow) still takes
    // part in every subgroup operation below, with an empty list.
    let has_node = c < params.n_nodes && atomicLoad(&flags.stop) == 0u;
    var body: Body;
    var pc: NodeState;
    var first_entry = 0u;
    var entries_of_c = 0u;
    if (has_node) {
        let n = nodes[c];
        body = bodies[n.body];
        pc = pos[c];
        shell_forces(c, n, body, pc);
        first_entry = start[c];
        entries_of_c = start[c + 1u] - first_entry;
    }
    let first = subgroup_first();
    let rounds = subgroupMax(entries_of_c);
    var any_slot = false;
    for (var k = 0u; k < rounds; k++) {
        let e = first_entry + k;
        var s = empty_slot();
        if (k < entries_of_c) {
            s = entry_contacts(c, body, pc, e);
            if (s.flags == 0u) {
                slot_index[e] = NO_SLOT;
            } else {
                any_slot = true;
                mark_slot_nodes(c, e, s);
            }
        }
        let wants = select(0u, 1u, s.flags != 0u);
        let total = subgroupAdd(wants);
        // `total` is the same in every invocation: the branch is uniform.
        if (total == 0u) {
            continue;
        }
        let place = subgroupExclusiveAdd(wants);
        var base = 0u;
        if (first) {
            base = atomicAdd(&flags.pool_used, total);
        }
        base = subgroupBroadcastFirst(base);
        if (wants != 0u) {
            place_slot(base + place, s, e);
        }
    }
    // Slot marks: the workgroup's 64 nodes start at a multiple of 64, words (c − lid) / 32 + 0
    // (invocations 0–31) and + 1 (32–63); bit lid mod 32.
    let bit = select(0u, 1u << (lid.x & 31u), any_slot);
    let low = subgroupOr(select(bit, 0u, lid.x >= 32u));
    let high = subgroupOr(select(0u, bit, lid.x >= 32u));
    if (first) {
        let w = (c - lid.x) >> 5u;
        if (low != 0u) {
            atomicOr(&slot_marks[w], low);
        }
        if (high != 0u) {
            atomicOr(&slot_marks[w + 1u], high);
        }
    }
}
