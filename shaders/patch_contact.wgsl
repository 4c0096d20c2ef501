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
    feature: u32, // bit k: vertex k of (a, b, c) on the point's vertex, edge or face
}

fn pc_dot(a: vec3<f32>, b: vec3<f32>) -> f32 {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

fn patch_point(point: vec3<f32>, weights: vec3<f32>, cls: u32, feature: u32) -> PatchPoint {
    var q: PatchPoint;
    q.point = point;
    q.weights = weights;
    q.cls = cls;
    q.feature = feature;
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
        return patch_point(a, vec3<f32>(1.0, 0.0, 0.0), PATCH_VERTEX, 1u);
    }
    let bp = p - b;
    let d3 = pc_dot(ab, bp);
    let d4 = pc_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        return patch_point(b, vec3<f32>(0.0, 1.0, 0.0), PATCH_VERTEX, 2u);
    }
    let vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        let v = d1 / (d1 - d3);
        return patch_point(vec3<f32>(a.x + v * ab.x, a.y + v * ab.y, a.z + v * ab.z), vec3<f32>(1.0 - v, v, 0.0), PATCH_EDGE, 3u);
    }
    let cp = p - c;
    let d5 = pc_dot(ab, cp);
    let d6 = pc_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        return patch_point(c, vec3<f32>(0.0, 0.0, 1.0), PATCH_VERTEX, 4u);
    }
    let vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        let w = d2 / (d2 - d6);
        return patch_point(vec3<f32>(a.x + w * ac.x, a.y + w * ac.y, a.z + w * ac.z), vec3<f32>(1.0 - w, 0.0, w), PATCH_EDGE, 5u);
    }
    let va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        let bc = c - b;
        return patch_point(vec3<f32>(b.x + w * bc.x, b.y + w * bc.y, b.z + w * bc.z), vec3<f32>(0.0, 1.0 - w, w), PATCH_EDGE, 6u);
    }
    let denom = 1.0 / (va + vb + vc);
    let v = vb * denom;
    let w = vc * denom;
    return patch_point(vec3<f32>(a.x + ab.x * v + ac.x * w, a.y + ab.y * v + ac.y * w, a.z + ab.z * v + ac.z * w),
        vec3<f32>(1.0 - v - w, v, w), PATCH_FACE, 7u);
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

// Whether every vertex of feature `mask` of patch p (bit k: vertex k) is a vertex of patch q.
fn feature_on_patch(mask: u32, p: vec3<u32>, q: vec3<u32>) -> bool {
    var all = true;
    for (var k = 0u; k < 3u; k++) {
        if ((mask & (1u << k)) != 0u) {
            all = all && (q.x == p[k] || q.y == p[k] || q.z == p[k]);
        }
    }
    return all;
}

// Table 1: contact c is dropped because of contact o on another patch when c's point (its edge
// or vertex) lies on o's patch; the same common edge or vertex seen from both keeps the higher
// class, then the lower patch index. Two faces, and separate points, are both kept.
fn patch_contact_dropped(c_mask: u32, c_v: vec3<u32>, c_patch: u32, o_mask: u32, o_v: vec3<u32>, o_patch: u32) -> bool {
    let c_class = countOneBits(c_mask); // 1 vertex, 2 edge, 3 face
    let o_class = countOneBits(o_mask);
    return feature_on_patch(c_mask, c_v, o_v)
        && (!feature_on_patch(o_mask, o_v, c_v) || o_class > c_class || (o_class == c_class && o_patch < c_patch));
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
