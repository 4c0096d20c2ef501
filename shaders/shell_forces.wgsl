// shell_forces.wgsl: the shell's internal forces, each evaluated once per step; twin of
// src/cpu/shell_forces.rs. Node X owns segment X → X+1 and vertex X: stretch (eq 1–2) and core
// pressure (§2.4) of the segment, bending (eq 3, 9–10) of the vertex, written to shell[X] for
// node_forces to gather with the new plastic state (ℓ_p, θ_p), which node_forces copies into X's
// node state.

#import model
#import stretch
#import bending
#import core_pressure

@group(0) @binding(1) var<storage, read> nodes: array<NodeRecord>;
@group(0) @binding(2) var<storage, read> bodies: array<Body>;
@group(0) @binding(3) var<storage, read> materials: array<Material>;
@group(0) @binding(4) var<storage, read> body_state: array<BodyState>;
@group(0) @binding(5) var<storage, read> old: array<NodeState>;
@group(0) @binding(6) var<storage, read> pos: array<NodeState>;
@group(0) @binding(8) var<storage, read_write> shell: array<ShellForce>;
// flags.stop != 0: list or pool overflow earlier in this batch, no-op (see core_area.wgsl).
@group(0) @binding(9) var<storage, read> flags: StepFlagsView;
// The marks (see contact_pairs.wgsl): this kernel clears the gather marks that contact_pairs,
// next, ORs into (node_forces of the step before has read them).
@group(0) @binding(10) var<storage, read_write> slot_marks: array<u32>;

@compute @workgroup_size(64)
fn shell_forces(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let x = linear_id(wid, lid, nwg, 64u);
    if (x < params.n_nodes && (x & 31u) == 0u) {
        slot_marks[marks_words() + (x >> 5u)] = 0u;
    }
    if (x >= params.n_nodes || flags.stop != 0u) {
        return;
    }
    let n = nodes[x];
    let body = bodies[n.body];
    let zero = vec2<f32>(0.0, 0.0);
    var out = ShellForce(zero, zero, zero, zero, old[x].seg_rest, old[x].theta_p);
    if ((body.flags & BODY_FROZEN) == 0u && n.next != NONE) {
        let m = materials[body.material];
        let b = n.next;
        let px = pos[x];
        let pb = pos[b];
        // Stretch (eq 1–2) of the owned segment X → X+1.
        let s = stretch(m, px, pb, px.vel, pb.vel, old[x].seg_rest);
        out.stretch = s.xy;
        out.seg_rest = s.z;
        // Core pressure on the owned segment (§2.4), the force on each end.
        if ((body.flags & BODY_CLOSED) != 0u && body.core_model != CORE_NONE) {
            let bs = body_state[n.body];
            let orientation = select(-1.0, 1.0, bs.area >= 0.0);
            let fp = core_pressure(m.depth, bs.pressure, orientation, px, pb);
            out.pressure = vec2<f32>(opaque(fp.x), opaque(fp.y));
        }
        // Bending (eq 3, 9–10) of the owned vertex X: F = −M ∂θ/∂x on X−1 and X+1.
        if (n.prev != NONE) {
            let a = n.prev;
            let bd = bending(m, pos[a], px, pb, pos[a].vel, px.vel, pb.vel, old[x].theta_p);
            out.bend_a = vec2<f32>(opaque(bd.moment * bd.grad_a.x), opaque(bd.moment * bd.grad_a.y));
            out.bend_c = vec2<f32>(opaque(bd.moment * bd.grad_c.x), opaque(bd.moment * bd.grad_c.y));
            out.theta_p = bd.theta_p;
        }
    }
    shell[x] = out;
}
