// contact.wgsl: sphero-segment contact geometry (Fig. 4) and the contact law (eq 5–8);
// twin of src/cpu/contact.rs (see there for how each geometric contact is found once).

#import model

struct ContactForce {
    force: vec2<f32>,
    f_n: f32,
    f_t: f32,
}

// Eq 6–8. `n` points from the partner towards C; `vrel` is C's velocity relative to the partner.
fn contact_law(k_n: f32, k_t: f32, mu: f32, c_n: f32, dt: f32, overlap: f32, n: vec2<f32>, vrel: vec2<f32>, ft_old: f32) -> ContactForce {
    let vn = dot2(vrel, n);
    let f_n = max(k_n * overlap - c_n * vn, 0.0);
    let t = vec2<f32>(n.y, -n.x);
    let du_t = dot2(vrel, t) * dt;
    let lim = mu * f_n;
    let f_t = clamp(ft_old - k_t * du_t, -lim, lim);
    return ContactForce(vec2<f32>(f_n * n.x + f_t * t.x, f_n * n.y + f_t * t.y), f_n, f_t);
}

fn in_segment_interior(p: NodeState, a: NodeState, b: NodeState) -> bool {
    let ab = df_sub(b, a);
    let ap = df_sub(p, a);
    let bp = df_sub(p, b);
    return dot2(ap, ab) >= 0.0 && dot2(bp, ab) < 0.0;
}

// (offset from the closest point of a → b to p .xy, lever weight w .z).
fn segment_offset(p: NodeState, a: NodeState, b: NodeState) -> vec3<f32> {
    let ab = df_sub(b, a);
    let ap = df_sub(p, a);
    let w = dot2(ap, ab) / dot2(ab, ab);
    return vec3<f32>(ap.x - w * ab.x, ap.y - w * ab.y, w);
}

// Distance from p to segment a → b when p is in its interior, else the largest finite f32 (a
// finite sentinel: a fast-math compiler may assume no infinities); twin: cpu::contact.
fn interior_distance(p: NodeState, a: NodeState, b: NodeState) -> f32 {
    if (!in_segment_interior(p, a, b)) {
        return 3.40282347e38;
    }
    let o = segment_offset(p, a, b);
    let d = o.xy;
    return sqrt(dot2(d, d));
}
