// shell_forces.wgsl: the shell's internal forces, each evaluated once per step; twin of
// src/cpu/shell_forces.rs. Node X owns segment X → X+1 and vertex X: stretch (eq 1–2) and core
// pressure (§2.4) of the segment, bending (eq 3, 9–10) of the vertex, written to shell[X] for
// node_forces to gather with the new plastic state (ℓ_p, θ_p), which node_forces copies into X's
// node state. Run per node by contact_pairs.wgsl's `shell_forces_contact_pairs`, before the
// node's contacts (as the CPU stepper runs both over each chunk of nodes). The plastic state of
// step n is read from the state at x_{n+1}, where integrate carried it (the CPU twin reads it
// from the state of step n: the same values).

#import model
#import stretch
#import bending
#import core_pressure

@group(0) @binding(1) var<storage, read> nodes: array<NodeRecord>;
@group(0) @binding(2) var<storage, read> bodies: array<Body>;
// The node states at x_{n+1}, with v_{n+½} and the plastic state of step n.
@group(0) @binding(3) var<storage, read> pos: array<NodeState>;
@group(0) @binding(14) var<storage, read> materials: array<Material>;
@group(0) @binding(15) var<storage, read> body_state: array<BodyState>;
@group(0) @binding(17) var<storage, read_write> shell: array<ShellForce>;

// shell[x] for node x (record n, its body, its state px at x_{n+1}).
fn shell_forces(x: u32, n: NodeRecord, body: Body, px: NodeState) {
    let zero = vec2<f32>(0.0, 0.0);
    var out = ShellForce(zero, zero, zero, zero, px.seg_rest, px.theta_p);
    if ((body.flags & BODY_FROZEN) == 0u && n.next != NONE) {
        let m = materials[body.material];
        let b = n.next;
        let pb = pos[b];
        // Stretch (eq 1–2) of the owned segment X → X+1.
        let s = stretch(m, px, pb, px.vel, pb.vel, px.seg_rest);
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
            let pa = pos[a];
            let bd = bending(m, pa, px, pb, pa.vel, px.vel, pb.vel, px.theta_p);
            out.bend_a = vec2<f32>(opaque(bd.moment * bd.grad_a.x), opaque(bd.moment * bd.grad_a.y));
            out.bend_c = vec2<f32>(opaque(bd.moment * bd.grad_c.x), opaque(bd.moment * bd.grad_c.y));
            out.theta_p = bd.theta_p;
        }
    }
    shell[x] = out;
}
