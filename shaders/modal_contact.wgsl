// modal_contact.wgsl: one surface node's contacts per invocation (twin: src/modal/cpu.rs
// modal_node_contact): its walls, then the level sets of its candidate neighbour bodies (pullback,
// eq 47–48). Writes only this node's slots in the pool (force, contact point, friction history;
// slot_start[k] on, one per wall and one per candidate): no atomics.

#import modal_lib

@compute @workgroup_size(64)
fn modal_node_contact(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                      @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(wid, lid, nwg, 64u);
    if (k >= params.n_nodes) {
        return;
    }
    let pt = surface_point(k);
    let b = pt.body;
    let st = pt.st;
    let t = f32(clock[0]) * params.dt;
    let base = slot_start[k];
    let listed = slot_start[k + 1u] - base - params.n_walls;
    for (var w = 0u; w < params.n_walls; w = w + 1u) {
        let h = slots[base + w].hist;
        let o = node_vs_wall(w, t, pt.x_hi, pt.x_lo, pt.vel, vec2<f32>(h[0], h[1]));
        // A wall slot: no contact point or pullback point, no partner body.
        slots[base + w] = body_contact_slot(BodyContact(o, vec2<f32>(0.0, 0.0), vec2<f32>(0.0, 0.0)), NONE);
    }
    for (var u = 0u; u < listed; u = u + 1u) {
        let slot = base + params.n_walls + u;
        let j = node_cand[node_cand[k] + u];
        let sj = state[j];
        let d = vec2<f32>((st.x_hi[0] - sj.x_hi[0]) + (st.x_lo[0] - sj.x_lo[0]) + pt.rel.x,
                          (st.x_hi[1] - sj.x_hi[1]) + (st.x_lo[1] - sj.x_lo[1]) + pt.rel.y);
        let h = slots[slot].hist;
        let o = point_vs_body(j, d, pt.vel, vec2<f32>(h[0], h[1]), 0.0, bodies[b].contact_material);
        slots[slot] = body_contact_slot(o, j);
    }
}
