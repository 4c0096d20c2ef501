// integrate.wgsl: first half of velocity Verlet (§2.4); twin of src/cpu/integrate.rs.
// Also records the largest displacement since the last neighbour-list build (atomicMax on the
// bits of a non-negative f32: order-independent, hence deterministic).

#import model

@group(0) @binding(1) var<storage, read> nodes: array<NodeRecord>;
@group(0) @binding(2) var<storage, read> state_in: array<NodeState>;
@group(0) @binding(3) var<storage, read> x_ref: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read_write> state_out: array<NodeState>;
@group(0) @binding(6) var<storage, read_write> flags: StepFlags;
// Boundary conditions, indexed by NodeRecord.bc (NONE: none).
@group(0) @binding(7) var<storage, read> bcs: array<NodeBc>;

@compute @workgroup_size(64)
fn integrate(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, 64u);
    var d = 0.0;
    // flags.stop != 0: list or pool overflow earlier in this batch: no-op (the workgroup reduction below
    // still runs in uniform control flow; its atomicMax is undone by the host's redo).
    if (i < params.n_nodes && atomicLoad(&flags.stop) == 0u) {
        let n = nodes[i];
        let s = state_in[i];
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
        state_out[i].pos_hi = vec2<f32>(px.x, py.x);
        state_out[i].pos_lo = vec2<f32>(px.y, py.y);
        state_out[i].vel = vh;
        let dx = (px.x - x_ref[i].x) + px.y;
        let dy = (py.x - x_ref[i].y) + py.y;
        d = sqrt(dx * dx + dy * dy);
    }
    // Largest displacement: reduce in the workgroup, then one atomicMax on the f32 bits.
    let wg = workgroup_max(lid.x, d);
    if (lid.x == 0u) {
        atomicMax(&flags.max_disp, bitcast<u32>(wg));
    }
}
