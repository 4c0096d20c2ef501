// integrate.wgsl: first half of velocity Verlet (§2.4); twin of src/cpu/integrate.rs.
// Also records the largest displacement since the last neighbour-list build (atomicMax on the
// bits of a non-negative f32: order-independent, hence deterministic), without a workgroup
// barrier (`raise_displacement`).
//
// Two entry points run it: `integrate` here (the first step of a batch), and
// `node_forces_integrate` (node_forces.wgsl), which integrates step n + 1 right after node_forces
// of step n has finished the node's state, from that state still in registers (the CPU stepper's
// node pass does the same: `CpuBackend::step_end`).

#import model

@group(0) @binding(1) var<storage, read> nodes: array<NodeRecord>;
// The step flags: flags.stop (no-op), flags.max_disp (atomicMax).
@group(0) @binding(5) var<storage, read_write> flags: StepFlags;
// Boundary conditions, indexed by NodeRecord.bc (NONE: none).
@group(0) @binding(15) var<storage, read> bcs: array<NodeBc>;
@group(0) @binding(16) var<storage, read> x_ref: array<vec2<f32>>;
// The node states, one buffer integrated in place: node i's record is read and written by
// invocation i only (the state of step n becomes x_{n+1}, v_{n+½}, with f_n and the plastic state
// (ℓ_p, θ_p) carried over, one whole record; shell_forces reads the plastic state from it).
@group(0) @binding(17) var<storage, read_write> state: array<NodeState>;

// Integrates node i from its state s into state[i] (the whole record); returns
// |x_{n+1} − x_ref|.
fn integrate_node(i: u32, n: NodeRecord, s: NodeState) -> f32 {
    let h = 0.5 * params.dt / n.mass;
    var vh = vec2<f32>(s.vel.x + h * s.force.x, s.vel.y + h * s.force.y);
    if (n.bc != NONE) {
        let c = bcs[n.bc];
        if ((c.mode & BC_VX) != 0u) {
            vh.x = c.velocity.x;
        }
        if ((c.mode & BC_VY) != 0u) {
            vh.y = c.velocity.y;
        }
    }
    let px = df_add(s.pos_hi.x, s.pos_lo.x, params.dt * vh.x);
    let py = df_add(s.pos_hi.y, s.pos_lo.y, params.dt * vh.y);
    var o = s;
    o.pos_hi = vec2<f32>(px.x, py.x);
    o.pos_lo = vec2<f32>(px.y, py.y);
    o.vel = vh;
    state[i] = o;
    let r = x_ref[i];
    let dx = (px.x - r.x) + px.y;
    let dy = (py.x - r.y) + py.y;
    return sqrt(dx * dx + dy * dy);
}

// Largest displacement: an invocation whose displacement exceeds the largest so far raises it
// (atomicMax on the bits of d ≥ 0 or NaN, whose integer order is the value order with NaN on top:
// order-independent, the same bits as any reduction). The load spares the atomic to all but the
// few nodes that move farthest. No workgroup reduction: its barriers cost more than they save
// inside the large node_forces_integrate kernel (on lavapipe every barrier switches the
// workgroup's coroutines, docs/performance.md), and a GPU serves the load from cache.
fn raise_displacement(d: f32) {
    let bits = bitcast<u32>(d);
    if (bits > atomicLoad(&flags.max_disp)) {
        atomicMax(&flags.max_disp, bits);
    }
}

@compute @workgroup_size(64)
fn integrate(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, 64u);
    // flags.stop != 0: list or pool overflow earlier in this batch: no-op.
    if (i < params.n_nodes && atomicLoad(&flags.stop) == 0u) {
        raise_displacement(integrate_node(i, nodes[i], state[i]));
    }
}
