// node_forces.wgsl: all forces on node X at x_{n+1} (stretch, bending and core pressure from the
// shell_forces records of X−1, X, X+1; contact gather with lever-rule reactions; cohesive links),
// then the second half of velocity Verlet (§2.4); twin of src/cpu/node_forces.rs. Gather only,
// fixed order (list order, wherever the slots lie in the pool), no atomics: bit-identical reruns.
// `node_forces_integrate` then runs the next step's integrate on the finished state (fused, as
// the CPU stepper's node pass: one pass over the nodes instead of two).

#import model
#import integrate
#import history

// From integrate.wgsl: nodes (1), flags (5), bcs (15), x_ref (16), state (17): in
// node_forces_integrate, the other ping-pong side, into which the next step's integrate writes.
// This step's node states (x_{n+1}, v_{n+½}), finished in place by node_forces: node x's record
// is read and written by invocation x only.
@group(0) @binding(6) var<storage, read_write> pos: array<NodeState>;
@group(0) @binding(2) var<storage, read> bodies: array<Body>;
@group(0) @binding(3) var<storage, read> shell: array<ShellForce>;
@group(0) @binding(4) var<storage, read> slot_index: array<u32>;
// Slot marks, one bit per node, written by contact_pairs.
@group(0) @binding(7) var<storage, read> slot_marks: array<u32>;
@group(0) @binding(8) var<storage, read> start: array<u32>;
@group(0) @binding(9) var<storage, read> entries: array<Entry>;
@group(0) @binding(10) var<storage, read> pool: array<ContactSlot>;
@group(0) @binding(11) var<storage, read> link_start: array<u32>;
@group(0) @binding(12) var<storage, read> link_list: array<u32>;
@group(0) @binding(13) var<storage, read> link_force: array<vec2<f32>>;

// Per-node forces from modal bodies (src/coupled), gathered by `spd_modal_gather`; read only by
// the entry point `node_forces_modal` of the coupled modal–SPD stepper.
@group(0) @binding(14) var<storage, read> modal_force: array<vec2<f32>>;

@compute @workgroup_size(64)
fn node_forces(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let x = linear_id(wid, lid, nwg, 64u);
    // flags.stop != 0: list or pool overflow earlier in this batch, no-op (see core_area.wgsl).
    if (x >= params.n_nodes || atomicLoad(&flags.stop) != 0u) {
        return;
    }
    pos[x] = node_force_finish(x, node_force_sum(x));
}

// node_forces of step n, then integrate of step n + 1 (integrate.wgsl) from the node's finished
// state into the other ping-pong side (`state`), whose step-n input nothing reads any more.
// The same operations as the two kernels in sequence: integrate of a node reads only that node's
// state (and x_ref, which a build sets before node_forces). The finished state itself is not
// stored: step n + 1 reads only the integrated record, which carries f_{n+1} and the plastic
// state (integrate.wgsl), and a redo after a stopped batch resumes after integrate
// (`GpuBackend::integrated`); the batch's last node_forces stores it for the host.
@compute @workgroup_size(64)
fn node_forces_integrate(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let x = linear_id(wid, lid, nwg, 64u);
    if (x < params.n_nodes && atomicLoad(&flags.stop) == 0u) {
        let s = node_force_finish(x, node_force_sum(x));
        raise_displacement(integrate_node(x, nodes[x], s));
    }
}

// As `node_forces_integrate`, the displacement maximum staged per workgroup (integrate.wgsl,
// `stage_displacement`; for GPUs, `DisplacementMax::Staged`).
@compute @workgroup_size(64)
fn node_forces_integrate_staged(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let x = linear_id(wid, lid, nwg, 64u);
    var d = 0.0;
    if (x < params.n_nodes && atomicLoad(&flags.stop) == 0u) {
        let s = node_force_finish(x, node_force_sum(x));
        d = integrate_node(x, nodes[x], s);
    }
    stage_displacement(lid.x, d);
}

// As node_forces, plus the modal contact force of the node, added after the cohesive links.
@compute @workgroup_size(64)
fn node_forces_modal(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let x = linear_id(wid, lid, nwg, 64u);
    if (x >= params.n_nodes || atomicLoad(&flags.stop) != 0u) {
        return;
    }
    var f = node_force_sum(x);
    let e = modal_force[x];
    f.x += e.x;
    f.y += e.y;
    pos[x] = node_force_finish(x, f);
}

// True when node x's entries hold a contact slot this step (twin of model::layout::has_slots).
fn has_slots(x: u32) -> bool {
    return (slot_marks[x >> 5u] & (1u << (x & 31u))) != 0u;
}

// True when one of this step's slots acts on node x (twin of model::layout::gathers).
fn gathers(x: u32) -> bool {
    return (slot_marks[marks_words() + (x >> 5u)] & (1u << (x & 31u))) != 0u;
}

// Shell, contact and cohesive-link forces on node X.
fn node_force_sum(x: u32) -> vec2<f32> {
    let n = nodes[x];
    let body = bodies[n.body];
    var f = vec2<f32>(0.0, 0.0);
    let own = shell[x];
    let frozen = (body.flags & BODY_FROZEN) != 0u;
    if (!frozen) {
        // Stretch (eq 1–2) of segments X → X+1 (on its start: −) and X−1 → X (on its end: +).
        if (n.next != NONE) {
            f.x -= own.stretch.x;
            f.y -= own.stretch.y;
        }
        if (n.prev != NONE) {
            let s = shell[n.prev].stretch;
            f.x += s.x;
            f.y += s.y;
        }
        // Bending (eq 3, 9–10) of vertices X−1, X, X+1: F = −M ∂θ/∂x (zero where a vertex has no
        // two segments).
        if (n.prev != NONE) {
            let b = shell[n.prev].bend_c;
            f.x -= b.x;
            f.y -= b.y;
        }
        // On X itself: M (∂θ/∂x_{X−1} + ∂θ/∂x_{X+1}) (the couples sum to zero).
        f.x += opaque(own.bend_a.x + own.bend_c.x);
        f.y += opaque(own.bend_a.y + own.bend_c.y);
        if (n.next != NONE) {
            let b = shell[n.next].bend_a;
            f.x -= b.x;
            f.y -= b.y;
        }
        // Core pressure on both segments (§2.4), half of each segment's force.
        if ((body.flags & BODY_CLOSED) != 0u && body.core_model != CORE_NONE) {
            let fa = shell[n.prev].pressure;
            let fb = own.pressure;
            f.x += opaque(fa.x + fb.x);
            f.y += opaque(fa.y + fb.y);
        }
    }
    // Contacts: own slots (X as node C), reactions from the neighbours' slots (X as segment end).
    // Entries without a contact have no slot (NO_SLOT); a node without any slot is unmarked
    // (has_slots), so its entries, or the mirror entries in its list, are not looked at: the
    // terms skipped are the absent ones, the sum and its order are the same.
    let x_marked = has_slots(x);
    // No slot of this step acts on X (`gathers`): none of its entries has a term.
    var e_end = start[x];
    if (gathers(x)) {
        e_end = start[x + 1u];
    }
    for (var e = start[x]; e < e_end; e++) {
        let en = entries[e];
        let d_marked = has_slots(en.neighbor);
        if (!x_marked && !d_marked) {
            continue;
        }
        var own = NO_SLOT;
        if (x_marked) {
            own = slot_index[e];
        }
        var m = vec2<u32>(NONE, NONE);
        var mirror = NO_SLOT;
        if (d_marked) {
            m = mirror_entries(x, n.prev, en.neighbor);
            mirror = slot_index[m.x];
        }
        var s = empty_slot();
        if (own != NO_SLOT) {
            s = pool[own];
        }
        var ms = empty_slot();
        if (mirror != NO_SLOT) {
            ms = pool[mirror];
        }
        if ((s.flags & SLOT_SEG) != 0u) {
            f.x += s.seg_force.x;
            f.y += s.seg_force.y;
        }
        if ((ms.flags & SLOT_SEG) != 0u) {
            let w = 1.0 - ms.seg_w;
            f.x -= w * ms.seg_force.x;
            f.y -= w * ms.seg_force.y;
        }
        if (m.y != NONE) {
            let pi = slot_index[m.y];
            if (pi != NO_SLOT) {
                let ps = pool[pi];
                if ((ps.flags & SLOT_SEG) != 0u) {
                    f.x -= ps.seg_w * ps.seg_force.x;
                    f.y -= ps.seg_w * ps.seg_force.y;
                }
            }
        }
        if (x < en.neighbor) {
            if ((s.flags & SLOT_CAP) != 0u) {
                f.x += s.cap_force.x;
                f.y += s.cap_force.y;
            }
        } else if ((ms.flags & SLOT_CAP) != 0u) {
            f.x -= ms.cap_force.x;
            f.y -= ms.cap_force.y;
        }
    }
    // Cohesive links (§7): + force on a, − on b; entries are link · 2 + side.
    // Without links link_start is one word (no per-node offsets: 4 B/node less), so no loop.
    if (arrayLength(&link_start) <= x + 1u) {
        return f;
    }
    for (var k = link_start[x]; k < link_start[x + 1u]; k++) {
        let e = link_list[k];
        let lf = link_force[e >> 1u];
        if ((e & 1u) == 0u) {
            f.x += lf.x;
            f.y += lf.y;
        } else {
            f.x -= lf.x;
            f.y -= lf.y;
        }
    }
    return f;
}

// In the list of X's neighbour D: the entry for X (it exists: lists are symmetric) and the entry
// for X's predecessor `prev` (or NONE), whose segment prev → X has X as its end (twin of
// cpu::node_forces::mirror_entries). Lists are sorted, so prev = X − 1 sits just before X.
fn mirror_entries(x: u32, prev: u32, d: u32) -> vec2<u32> {
    var lo = start[d];
    var hi = start[d + 1u];
    let first = lo;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if (entries[mid].neighbor < x) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    let m = lo;
    var pm = NONE;
    if (prev != NONE) {
        if (prev + 1u == x) {
            if (m > first && entries[m - 1u].neighbor == prev) {
                pm = m - 1u;
            }
        } else {
            pm = find_sorted(first, start[d + 1u], prev);
        }
    }
    return vec2<u32>(m, pm);
}

// The list `find_sorted` (history.wgsl) searches here: the entries, for mirror entries.
fn sorted_key(i: u32) -> u32 {
    return entries[i].neighbor;
}

// Gravity, added forces and damping, then the second half of velocity Verlet: node x's finished
// state (the caller stores it whole, one store of the record instead of four of its fields).
fn node_force_finish(x: u32, f_in: vec2<f32>) -> NodeState {
    let n = nodes[x];
    let frozen = (bodies[n.body].flags & BODY_FROZEN) != 0u;
    let own = shell[x];
    var f = f_in;
    var s = pos[x];
    // v_{n+½} (integrate put it here; replaced below by v_{n+1}).
    let vh = s.vel;
    // The node's boundary condition; none = no imposed component, zero added force.
    var c = NodeBc(0u, 0u, vec2<f32>(0.0, 0.0), vec2<f32>(0.0, 0.0));
    if (n.bc != NONE) {
        c = bcs[n.bc];
    }
    if (!frozen) {
        f.x += n.mass * params.gravity.x;
        f.y += n.mass * params.gravity.y;
        f.x += c.force.x;
        f.y += c.force.y;
        // Global viscous damping and local non-viscous damping (quasi-static runs).
        f.x -= params.viscous_damping * n.mass * vh.x;
        f.y -= params.viscous_damping * n.mass * vh.y;
        f.x -= params.local_damping * abs(f.x) * sign(vh.x);
        f.y -= params.local_damping * abs(f.y) * sign(vh.y);
    }
    let h = 0.5 * params.dt / n.mass;
    var vel = vec2<f32>(vh.x + h * f.x, vh.y + h * f.y);
    if ((c.mode & BC_VX) != 0u) {
        vel.x = c.velocity.x;
    }
    if ((c.mode & BC_VY) != 0u) {
        vel.y = c.velocity.y;
    }
    s.vel = vel;
    s.force = f;
    s.seg_rest = own.seg_rest;
    s.theta_p = own.theta_p;
    return s;
}
