// core_area.wgsl: signed shoelace area of each closed shell and its core pressure (§2.2, eq 4);
// twin of src/cpu/core_area.rs. Eight invocations per body, eight bodies per workgroup:
// invocation l sums partial sum l (terms k = l + 1, l + 9, … in order), and the body's first
// invocation adds the eight in order: the CPU twin's order (term k into sum (k − 1) mod 8, then
// the sums in order), so the same bits, without a serial chain per body.
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
// The marks (see contact_pairs.wgsl): this kernel clears the gather marks that contact_pairs of
// this step ORs into (node_forces of the step before has read them).
@group(0) @binding(10) var<storage, read_write> slot_marks: array<u32>;

// The partial sums of the workgroup's eight bodies, eight each.
var<workgroup> wg_part: array<vec2<f32>, 64>;

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
    let g = linear_id(wid, lid, nwg, 64u);
    let run = flags.stop == 0u;
    // Gather marks: word g of the second half (the dispatch covers max(8 bodies, words) threads).
    if (run && g < marks_words()) {
        slot_marks[g] = 0u;
        slot_marks[marks_words() + g] = 0u;
    }
    let b = g / 8u;
    let l = lid.x % 8u;
    var closed = false;
    var body: Body;
    // Partial sum l of twice the signed area, hi + lo: terms k = l + 1, l + 9, …
    var part = vec2<f32>(0.0, 0.0);
    if (run && b < params.n_bodies) {
        body = bodies[b];
        closed = (body.flags & BODY_CLOSED) != 0u;
        if (closed) {
            let x0 = pos[body.first];
            for (var k = l + 1u; k + 1u < body.count; k += 8u) {
                let ra = df_rel(pos[body.first + k], x0);
                let rc = df_rel(pos[body.first + k + 1u], x0);
                part = add_cross(part, ra, rc);
            }
        }
    }
    wg_part[lid.x] = part;
    workgroupBarrier();
    if (!run || b >= params.n_bodies || l != 0u) {
        return;
    }
    var out = BodyState(0.0, 0.0, 0.0);
    if (!closed) {
        body_state[b] = out;
        return;
    }
    // The partial sums added in order (hi parts by TwoSum).
    var twice = vec2<f32>(0.0, 0.0);
    for (var j = 0u; j < 8u; j++) {
        let p = wg_part[lid.x + j];
        let s = two_sum(twice.x, p.x);
        twice = vec2<f32>(s.x, opaque(twice.y + opaque(s.y + p.y)));
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
