// integrate.wgsl: first half of velocity Verlet (§2.4); twin of src/cpu/integrate.rs.
// Also records the largest displacement since the last neighbour-list build (atomicMax on the
// bits of a non-negative f32: order-independent, hence deterministic).
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
// The integrated state: x_{n+1}, v_{n+½}, and f_n and the plastic state (ℓ_p, θ_p) carried
// over, one whole record (shell_forces reads the plastic state from it).
@group(0) @binding(17) var<storage, read_write> state_out: array<NodeState>;
// `integrate`'s input, the state of step n.
@group(0) @binding(18) var<storage, read> state_in: array<NodeState>;

// Integrates node i from its state s into state_out[i] (the whole record); returns
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
    state_out[i] = o;
    let r = x_ref[i];
    let dx = (px.x - r.x) + px.y;
    let dy = (py.x - r.y) + py.y;
    return sqrt(dx * dx + dy * dy);
}

// Largest displacement: reduce in the workgroup, then one atomicMax on the f32 bits per
// workgroup. Every invocation must call it (uniform control flow).
fn record_displacement(lid: u32, d: f32) {
    let wg = workgroup_max(lid, d);
    if (lid == 0u) {
        atomicMax(&flags.max_disp, bitcast<u32>(wg));
    }
}

@compute @workgroup_size(64)
fn integrate(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, 64u);
    var d = 0.0;
    // flags.stop != 0: list or pool overflow earlier in this batch: no-op (the workgroup reduction below
    // still runs in uniform control flow; its atomicMax is undone by the host's redo).
    if (i < params.n_nodes && atomicLoad(&flags.stop) == 0u) {
        d = integrate_node(i, nodes[i], state_in[i]);
    }
    record_displacement(lid.x, d);
}
