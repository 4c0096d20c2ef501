// patch_contact.wgsl: a grain against a triangular membrane patch (Götz & Pöschel eq 17, Fig. 3,
// Table 1). Twin of src/laws/patch_contact.rs (same names): nearest point, barycentric weights
// and cls; Table 1 with the lower patch index where the paper picks at random.

const PATCH_VERTEX: u32 = 0u;
const PATCH_EDGE: u32 = 1u;
const PATCH_FACE: u32 = 2u;

struct PatchPoint {
    point: vec3<f32>,
    cls: u32,
    weights: vec3<f32>,
}

fn pc_dot(a: vec3<f32>, b: vec3<f32>) -> f32 {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

fn patch_point(point: vec3<f32>, weights: vec3<f32>, cls: u32) -> PatchPoint {
    var q: PatchPoint;
    q.point = point;
    q.weights = weights;
    q.cls = cls;
    return q;
}

// The point of triangle (a, b, c) nearest to p (Voronoi regions = eq 17).
fn closest_on_patch(p: vec3<f32>, a: vec3<f32>, b: vec3<f32>, c: vec3<f32>) -> PatchPoint {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = pc_dot(ab, ap);
    let d2 = pc_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        return patch_point(a, vec3<f32>(1.0, 0.0, 0.0), PATCH_VERTEX);
    }
    let bp = p - b;
    let d3 = pc_dot(ab, bp);
    let d4 = pc_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        return patch_point(b, vec3<f32>(0.0, 1.0, 0.0), PATCH_VERTEX);
    }
    let vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        let v = d1 / (d1 - d3);
        return patch_point(vec3<f32>(a.x + v * ab.x, a.y + v * ab.y, a.z + v * ab.z), vec3<f32>(1.0 - v, v, 0.0), PATCH_EDGE);
    }
    let cp = p - c;
    let d5 = pc_dot(ab, cp);
    let d6 = pc_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        return patch_point(c, vec3<f32>(0.0, 0.0, 1.0), PATCH_VERTEX);
    }
    let vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        let w = d2 / (d2 - d6);
        return patch_point(vec3<f32>(a.x + w * ac.x, a.y + w * ac.y, a.z + w * ac.z), vec3<f32>(1.0 - w, 0.0, w), PATCH_EDGE);
    }
    let va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        let bc = c - b;
        return patch_point(vec3<f32>(b.x + w * bc.x, b.y + w * bc.y, b.z + w * bc.z), vec3<f32>(0.0, 1.0 - w, w), PATCH_EDGE);
    }
    let denom = 1.0 / (va + vb + vc);
    let v = vb * denom;
    let w = vc * denom;
    return patch_point(vec3<f32>(a.x + ab.x * v + ac.x * w, a.y + ab.y * v + ac.y * w, a.z + ab.z * v + ac.z * w),
        vec3<f32>(1.0 - v - w, v, w), PATCH_FACE);
}

fn patches_share_vertex(a: vec3<u32>, b: vec3<u32>) -> bool {
    var found = false;
    for (var i = 0u; i < 3u; i++) {
        for (var j = 0u; j < 3u; j++) {
            found = found || a[i] == b[j];
        }
    }
    return found;
}

// Overlaps within PATCH_TIE r are equal in Table 1 (one point seen from two patches).
const PATCH_TIE: f32 = 1e-4;

// Table 1: contact c is dropped because of contact o on a patch sharing a vertex, provided o's
// point is at least as near the grain's centre (δ_o ≥ δ_c − tol); of two edge or two vertex
// contacts the deeper one stays, the lower patch index on a tie.
fn patch_contact_dropped(c_class: u32, c_patch: u32, c_delta: f32, o_class: u32, o_patch: u32, o_delta: f32, tol: f32) -> bool {
    let not_shallower = o_delta >= c_delta - tol;
    let deeper = o_delta > c_delta + tol;
    return (o_class > c_class && not_shallower)
        || (o_class == c_class && c_class != PATCH_FACE && (deeper || (not_shallower && o_patch < c_patch)));
}

// 1/m* = 1/m + Σ a_k²/m_k.
fn patch_effective_mass(m: f32, w: vec3<f32>, m_v: vec3<f32>) -> f32 {
    return 1.0 / (1.0 / m + w.x * w.x / m_v.x + w.y * w.y / m_v.y + w.z * w.z / m_v.z);
}

// Σ a_k v_k (Fig. 3).
fn patch_point_velocity(w: vec3<f32>, v1: vec3<f32>, v2: vec3<f32>, v3: vec3<f32>) -> vec3<f32> {
    let a = v1 * w.x;
    let b = v2 * w.y;
    let c = v3 * w.z;
    return vec3<f32>(a.x + b.x + c.x, a.y + b.y + c.y, a.z + b.z + c.z);
}
