// membrane_bending.wgsl: dihedral bending of two membrane patches (Götz & Pöschel eq 8–16, after
// Bridson et al. 2003). Twin of src/laws/membrane_bending.rs: unit normals in eq 10, signed
// θ with u_i = ∂θ/∂ρ_i, Bridson's minus sign in u4, forces −(…) u_i.

struct BendingParams {
    k_el: f32,
    k_diss: f32,
    _pad0: f32,
    _pad1: f32,
}

struct HingeForces {
    f: array<vec3<f32>, 4>,
}

fn mb_dot(a: vec3<f32>, b: vec3<f32>) -> f32 {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

fn mb_cross(a: vec3<f32>, b: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

// sin(θ/2), signed (eq 8–10 with unit normals).
fn hinge_sin_half(p1: vec3<f32>, p2: vec3<f32>, p3: vec3<f32>, p4: vec3<f32>) -> f32 {
    let e = p4 - p3;
    let n1 = mb_cross(p1 - p3, p1 - p4);
    let n2 = mb_cross(p2 - p4, p2 - p3);
    let c = clamp(mb_dot(n1, n2) / (sqrt(mb_dot(n1, n1)) * sqrt(mb_dot(n2, n2))), -1.0, 1.0);
    let s = sqrt(max(0.5 * (1.0 - c), 0.0));
    if (mb_dot(mb_cross(n2, n1), e) < 0.0) {
        return -s;
    }
    return s;
}

// Forces on vertices 1–4 (eq 11–12), positions p and velocities v.
fn membrane_bending_forces(p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, p3: vec3<f32>, v0: vec3<f32>, v1: vec3<f32>, v2: vec3<f32>, v3: vec3<f32>, sin_half_rest: f32, bp: BendingParams) -> HingeForces {
    var out: HingeForces;
    let e = p3 - p2;
    let n1 = mb_cross(p0 - p2, p0 - p3);
    let n2 = mb_cross(p1 - p3, p1 - p2);
    let le = sqrt(mb_dot(e, e));
    let n1sq = mb_dot(n1, n1);
    let n2sq = mb_dot(n2, n2);
    if (le <= 0.0 || n1sq <= 0.0 || n2sq <= 0.0) {
        return out;
    }
    let t1 = n1 * (1.0 / n1sq);
    let t2 = n2 * (1.0 / n2sq);
    let u1 = t1 * le;
    let u2 = t2 * le;
    let u3 = t1 * (mb_dot(p0 - p3, e) / le) + t2 * (mb_dot(p1 - p3, e) / le);
    let u4 = (t1 * (mb_dot(p0 - p2, e) / le) + t2 * (mb_dot(p1 - p2, e) / le)) * -1.0;
    let l1 = sqrt(n1sq);
    let l2 = sqrt(n2sq);
    let c = clamp(mb_dot(n1, n2) / (l1 * l2), -1.0, 1.0);
    var sin_half = sqrt(max(0.5 * (1.0 - c), 0.0));
    if (mb_dot(mb_cross(n2, n1), e) < 0.0) {
        sin_half = -sin_half;
    }
    let theta_dot = mb_dot(u1, v0) + mb_dot(u2, v1) + mb_dot(u3, v2) + mb_dot(u4, v3);
    let f = bp.k_el * (le * le / (l1 + l2)) * (sin_half - sin_half_rest) + bp.k_diss * le * theta_dot;
    out.f[0] = u1 * -f;
    out.f[1] = u2 * -f;
    out.f[2] = u3 * -f;
    out.f[3] = u4 * -f;
    return out;
}
