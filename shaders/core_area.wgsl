// core_area.wgsl: signed shoelace area of each closed shell and its core pressure (§2.2, eq 4);
// twin of src/cpu/core_area.rs. One thread per body, fixed summation order (eight partial sums,
// term k into sum (k − 1) mod 8, then the sums in order).
//
// The area is summed in double-f32 (see the CPU twin for the error analysis): r_k = x_k − x_0 as
// hi + lo, exact hi×hi products (Dekker's TwoProduct, no FMA), TwoSum accumulation, and
// ΔA = |A| − A0 against the host's double-f32 A0, so a stiff core's pressure K_Ω ΔA/A0 resolves
// ΔV/V0 far below one f32 ulp of V. Every intermediate goes through opaque() so the driver can
// neither simplify the error terms away nor contract products into FMAs (bit-identical to the CPU).

#import model

@group(0) @binding(1) var<storage, read> bodies: array<Body>;
@group(0) @binding(2) var<storage, read> materials: array<Material>;
@group(0) @binding(3) var<storage, read> pos: array<NodeState>;
@group(0) @binding(4) var<storage, read_write> body_state: array<BodyState>;
// flags.stop != 0: a neighbour list or the contact-slot pool overflowed earlier in this batch; every
// kernel is a no-op until the host grows them and redoes the step (gpu::stepper::step_with_retry).
@group(0) @binding(5) var<storage, read> flags: StepFlagsView;

// two_sum, split, two_prod: df32.wgsl.

// x_a − x_o per component as hi + lo: (hi.x, hi.y, lo.x, lo.y).
fn df_rel(a: NodeState, o: NodeState) -> vec4<f32> {
    let sx = two_sum(a.pos_hi.x, -o.pos_hi.x);
    let tx = opaque(sx.y + opaque(a.pos_lo.x - o.pos_lo.x));
    let x = two_sum(sx.x, tx);
    let sy = two_sum(a.pos_hi.y, -o.pos_hi.y);
    let ty = opaque(sy.y + opaque(a.pos_lo.y - o.pos_lo.y));
    let y = two_sum(sy.x, ty);
    return vec4<f32>(x.x, y.x, x.y, y.y);
}

// sum + r_a × r_c in double-f32: hi×hi exactly, hi×lo in f32, lo×lo dropped.
fn add_cross(sum: vec2<f32>, a: vec4<f32>, c: vec4<f32>) -> vec2<f32> {
    let p1 = two_prod(a.x, c.y);
    let p2 = two_prod(a.y, c.x);
    let t1 = opaque(opaque(a.x * c.w) + opaque(a.z * c.y));
    let t2 = opaque(opaque(a.y * c.z) + opaque(a.w * c.x));
    let small = opaque(opaque(opaque(p1.y - p2.y) + t1) - t2);
    let s1 = two_sum(sum.x, p1.x);
    let s2 = two_sum(s1.x, -p2.x);
    return vec2<f32>(s2.x, opaque(sum.y + opaque(opaque(s1.y + s2.y) + small)));
}

@compute @workgroup_size(64)
fn core_area(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = linear_id(wid, lid, nwg, 64u);
    if (b >= params.n_bodies || flags.stop != 0u) {
        return;
    }
    let body = bodies[b];
    var out = BodyState(0.0, 0.0, 0.0);
    if ((body.flags & BODY_CLOSED) == 0u) {
        body_state[b] = out;
        return;
    }
    let x0 = pos[body.first];
    // Twice the signed area, hi + lo, in eight partial sums: term k into sum (k − 1) mod 8.
    var part: array<vec2<f32>, 8>;
    var ra = df_rel(pos[body.first + 1u], x0); // a closed body has ≥ 2 nodes
    for (var k = 1u; k + 1u < body.count; k++) {
        let rc = df_rel(pos[body.first + k + 1u], x0);
        let l = (k - 1u) % 8u;
        part[l] = add_cross(part[l], ra, rc);
        ra = rc;
    }
    // The partial sums added in order (hi parts by TwoSum).
    var twice = vec2<f32>(0.0, 0.0);
    for (var l = 0u; l < 8u; l++) {
        let s = two_sum(twice.x, part[l].x);
        twice = vec2<f32>(s.x, opaque(twice.y + opaque(s.y + part[l].y)));
    }
    let t = two_sum(twice.x, twice.y);
    out.area = 0.5 * t.x;
    // |A| − A0 (eq 4): halving and the sign are exact; one TwoSum against A0's hi part.
    var sign = 1.0;
    if (t.x < 0.0) {
        sign = -1.0;
    }
    let de = two_sum(0.5 * sign * t.x, -body.core_a0_hi);
    let d_area = opaque(de.x + opaque(opaque(de.y + 0.5 * sign * t.y) - body.core_a0_lo));
    out.area_change = d_area;
    let m = materials[body.material];
    let v = m.depth * abs(out.area);
    if (body.core_model == CORE_UNDRAINED) {
        out.pressure = body.core_p0 - opaque(m.k_core * d_area) / body.core_a0_hi;
    } else if (body.core_model == CORE_DRAINED) {
        out.pressure = body.core_p0;
    } else if (body.core_model == CORE_GAS) {
        out.pressure = body.core_p0 * body.core_v0 / v;
    }
    body_state[b] = out;
}
