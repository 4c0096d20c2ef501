// core_area.wgsl: signed shoelace area of each closed shell and its core pressure (§2.2, eq 4);
// twin of src/cpu/core_area.rs. One thread per body, fixed summation order.

@group(0) @binding(1) var<storage, read> bodies: array<Body>;
@group(0) @binding(2) var<storage, read> materials: array<Material>;
@group(0) @binding(3) var<storage, read> pos: array<NodeState>;
@group(0) @binding(4) var<storage, read_write> body_state: array<BodyState>;

@compute @workgroup_size(64)
fn core_area(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = linear_id(wid, lid, nwg, 64u);
    if (b >= params.n_bodies) {
        return;
    }
    let body = bodies[b];
    var out = BodyState(0.0, 0.0);
    if ((body.flags & BODY_CLOSED) == 0u) {
        body_state[b] = out;
        return;
    }
    let x0 = pos[body.first];
    var twice_area = 0.0;
    for (var k = 1u; k + 1u < body.count; k++) {
        let ra = df_sub(pos[body.first + k], x0);
        let rc = df_sub(pos[body.first + k + 1u], x0);
        twice_area += opaque(cross2(ra, rc));
    }
    out.area = 0.5 * twice_area;
    let m = materials[body.material];
    let v = m.depth * abs(out.area);
    if (body.core_model == CORE_UNDRAINED) {
        out.pressure = body.core_p0 - m.k_core * (v - body.core_v0) / body.core_v0;
    } else if (body.core_model == CORE_DRAINED) {
        out.pressure = body.core_p0;
    } else if (body.core_model == CORE_GAS) {
        out.pressure = body.core_p0 * body.core_v0 / v;
    }
    body_state[b] = out;
}
