// stretch.wgsl: linear elastic–perfectly plastic segment law (eq 1–2); twin of src/cpu/stretch.rs.
// Compression positive: F = k_s (l_p − l), capped at ±F_s^Y with the plastic rest length following.
// Returns (force on b .xy, new rest length .z); node a receives the opposite force.

#import model

fn stretch(m: Material, a: NodeState, b: NodeState, va: vec2<f32>, vb: vec2<f32>, rest: f32) -> vec3<f32> {
    let d = df_sub(b, a);
    let l = sqrt(dot2(d, d));
    let u = vec2<f32>(d.x / l, d.y / l);
    let elastic = m.k_s * (rest - l);
    // Return mapping as selects, like the CPU twin (there it avoids a branch the predictor cannot
    // learn in a pressed packing).
    let capped = select(-m.f_s_yield, m.f_s_yield, elastic > 0.0);
    let yielded = abs(elastic) > m.f_s_yield;
    let f = select(elastic, capped, yielded);
    let rest_new = select(rest, l + capped / m.k_s, yielded);
    let rate = opaque(u.x * (vb.x - va.x)) + opaque(u.y * (vb.y - va.y));
    let f_total = f - m.c_s * rate;
    return vec3<f32>(f_total * u.x, f_total * u.y, rest_new);
}
