// integrate.wgsl: first half of velocity Verlet (§2.4); twin of src/cpu/integrate.rs.
// Also records the largest displacement since the last neighbour-list build (atomicMax on the
// bits of a non-negative f32: order-independent, hence deterministic): directly per node
// (`raise_displacement`, CPU adapters) or staged per workgroup (`stage_displacement`, GPUs;
// entry points `*_staged`), chosen by `gpu::stepper::DisplacementMax`.
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
// The node states, double-buffered (ping-pong): a step reads the states of the step before from
// one side (`state_in`) and writes its own to the other (`state`): x_{n+1}, v_{n+½}, with f_n and
// the plastic state (ℓ_p, θ_p) carried over, one whole record (shell_forces reads the plastic
// state from it).
@group(0) @binding(17) var<storage, read_write> state: array<NodeState>;
@group(0) @binding(18) var<storage, read> state_in: array<NodeState>;

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

// Largest displacement, direct (`DisplacementMax::Direct`, CPU adapters): an invocation whose
// displacement exceeds the largest so far raises it (atomicMax on the bits of d ≥ 0 or NaN, whose
// integer order is the value order with NaN on top: order-independent, the same bits as any
// reduction). The load spares the atomic to all but the few nodes that move farthest. No
// workgroup barrier: on lavapipe every barrier switches the workgroup's coroutines, which costs
// the whole large node_forces_integrate kernel (docs/performance.md).
fn raise_displacement(d: f32) {
    raise_displacement_bits(bitcast<u32>(d));
}

fn raise_displacement_bits(bits: u32) {
    if (bits > atomicLoad(&flags.max_disp)) {
        atomicMax(&flags.max_disp, bits);
    }
}

// The workgroup's largest displacement (bits), for `stage_displacement`.
var<workgroup> wg_max_disp: atomic<u32>;

// Largest displacement, staged per workgroup (`DisplacementMax::Staged`, GPUs): every invocation
// raises the workgroup's maximum in workgroup memory, then one invocation raises the global one
// with it: one global atomic per workgroup instead of one per node that beats the load (on a GPU
// the 64 invocations of a workgroup hit one address at once). A maximum is exact: the same bits
// as `raise_displacement`. Every invocation of the workgroup must call it (uniform control flow),
// those without a node with d = 0 (bits 0, the identity of the maximum).
fn stage_displacement(lid: u32, d: f32) {
    // wg_max_disp starts at 0: workgroup memory is zeroed at the start of every workgroup.
    atomicMax(&wg_max_disp, bitcast<u32>(d));
    workgroupBarrier();
    if (lid == 0u) {
        raise_displacement_bits(atomicLoad(&wg_max_disp));
    }
}

@compute @workgroup_size(64)
fn integrate(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, 64u);
    // flags.stop != 0: list or pool overflow earlier in this batch: no-op.
    if (i < params.n_nodes && atomicLoad(&flags.stop) == 0u) {
        raise_displacement(integrate_node(i, nodes[i], state_in[i]));
    }
}

// As `integrate`, the displacement maximum staged per workgroup.
@compute @workgroup_size(64)
fn integrate_staged(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, 64u);
    var d = 0.0;
    if (i < params.n_nodes && atomicLoad(&flags.stop) == 0u) {
        d = integrate_node(i, nodes[i], state_in[i]);
    }
    stage_displacement(lid.x, d);
}
