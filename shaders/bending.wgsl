// bending.wgsl: elasto-plastic vertex moment (eq 3) applied as two couples (eq 9–10, Fig. 6);
// twin of src/cpu/bending.rs (see there for the couple magnitude M/ℓ).

#import model

struct Bending {
    moment: f32,
    theta_p: f32,
    grad_a: vec2<f32>,
    grad_c: vec2<f32>,
}

fn bending(m: Material, a: NodeState, v: NodeState, c: NodeState, va: vec2<f32>, vv: vec2<f32>, vc: vec2<f32>, theta_p: f32) -> Bending {
    let e1 = df_sub(v, a);
    let e2 = df_sub(c, v);
    let theta = atan2_det(cross2(e1, e2), dot2(e1, e2));
    var dtheta = theta - theta_p;
    if (dtheta > PI) {
        dtheta -= 2.0 * PI;
    }
    if (dtheta < -PI) {
        dtheta += 2.0 * PI;
    }
    var moment = m.k_b * dtheta;
    var theta_p_new = theta_p;
    if (abs(moment) > m.m_b_yield) {
        moment = select(-m.m_b_yield, m.m_b_yield, moment > 0.0);
        theta_p_new = theta - moment / m.k_b;
    }
    let p1 = perp(e1);
    let p2 = perp(e2);
    let l1sq = dot2(e1, e1);
    let l2sq = dot2(e2, e2);
    let grad_a = vec2<f32>(p1.x / l1sq, p1.y / l1sq);
    let grad_c = vec2<f32>(p2.x / l2sq, p2.y / l2sq);
    let rate = (opaque(grad_a.x * (va.x - vv.x)) + opaque(grad_a.y * (va.y - vv.y)))
        + (opaque(grad_c.x * (vc.x - vv.x)) + opaque(grad_c.y * (vc.y - vv.y)));
    return Bending(moment + m.c_b * rate, theta_p_new, grad_a, grad_c);
}
