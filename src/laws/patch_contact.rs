//! Contact of a granular sphere with a triangular membrane patch (Götz & Pöschel §2.5, eq 17,
//! Fig. 3, Table 1). Twin: `shaders/patch_contact.wgsl` (same names).
//!
//! - `closest_on_patch`: the point x_c of the patch nearest to the sphere's centre with its
//!   barycentric weights (a1, a2, a3) and its class (eq 17): vertex (x_c = ρ_i), edge (x_c on
//!   ρ_iρ_j) or face, by the Voronoi regions of the triangle (Ericson, *Real-Time Collision
//!   Detection* §5.1.5), which is eq 17 evaluated without a tolerance.
//! - `patch_contact_dropped`: Table 1 for a sphere touching several patches that share a vertex:
//!   a contact whose point (its edge or vertex, `PatchPoint::feature`) is also a point of
//!   another touching patch is that patch's point seen from the neighbour and is dropped (face
//!   beats edge beats vertex); the same common edge or vertex seen from both keeps the lower
//!   patch index (the paper: "randomly") — deterministic, so GPU reruns are bit-identical; two
//!   faces, and any two separate points, are both kept.
//! - The force on the sphere is the pair law's; vertex k gets −a_k F (Fig. 3).

use super::vec3::{dot, scale, sub, V3};

/// Contact classes of eq 17 (ordered: a higher class wins in Table 1).
pub const PATCH_VERTEX: u32 = 0;
pub const PATCH_EDGE: u32 = 1;
pub const PATCH_FACE: u32 = 2;

/// Nearest point of a patch: position, barycentric weights of (a, b, c) and class.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PatchPoint {
    pub point: V3,
    pub weights: V3,
    pub class: u32,
    /// The feature of the patch the point lies on: bit k set for vertex k of (a, b, c) (a
    /// vertex: one bit, an edge: two, the face: three).
    pub feature: u32,
}

/// The point of triangle (a, b, c) nearest to p, its weights and its class (eq 17, Fig. 3).
#[inline]
pub fn closest_on_patch(p: V3, a: V3, b: V3, c: V3) -> PatchPoint {
    let ab = sub(b, a);
    let ac = sub(c, a);
    let ap = sub(p, a);
    let d1 = dot(ab, ap);
    let d2 = dot(ac, ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return PatchPoint {
            point: a,
            weights: [1.0, 0.0, 0.0],
            class: PATCH_VERTEX,
            feature: 0b001,
        };
    }
    let bp = sub(p, b);
    let d3 = dot(ab, bp);
    let d4 = dot(ac, bp);
    if d3 >= 0.0 && d4 <= d3 {
        return PatchPoint {
            point: b,
            weights: [0.0, 1.0, 0.0],
            class: PATCH_VERTEX,
            feature: 0b010,
        };
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return PatchPoint {
            point: [a[0] + v * ab[0], a[1] + v * ab[1], a[2] + v * ab[2]],
            weights: [1.0 - v, v, 0.0],
            class: PATCH_EDGE,
            feature: 0b011,
        };
    }
    let cp = sub(p, c);
    let d5 = dot(ab, cp);
    let d6 = dot(ac, cp);
    if d6 >= 0.0 && d5 <= d6 {
        return PatchPoint {
            point: c,
            weights: [0.0, 0.0, 1.0],
            class: PATCH_VERTEX,
            feature: 0b100,
        };
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return PatchPoint {
            point: [a[0] + w * ac[0], a[1] + w * ac[1], a[2] + w * ac[2]],
            weights: [1.0 - w, 0.0, w],
            class: PATCH_EDGE,
            feature: 0b101,
        };
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        let bc = sub(c, b);
        return PatchPoint {
            point: [b[0] + w * bc[0], b[1] + w * bc[1], b[2] + w * bc[2]],
            weights: [0.0, 1.0 - w, w],
            class: PATCH_EDGE,
            feature: 0b110,
        };
    }
    let denom = 1.0 / (va + vb + vc);
    let v = vb * denom;
    let w = vc * denom;
    PatchPoint {
        point: [
            a[0] + ab[0] * v + ac[0] * w,
            a[1] + ab[1] * v + ac[1] * w,
            a[2] + ab[2] * v + ac[2] * w,
        ],
        weights: [1.0 - v - w, v, w],
        class: PATCH_FACE,
        feature: 0b111,
    }
}

/// Whether patches with vertex ids `a`, `b` have a common vertex (Table 1 applies only then).
#[inline]
pub fn patches_share_vertex(a: [u32; 3], b: [u32; 3]) -> bool {
    let mut found = false;
    for x in a {
        for y in b {
            found = found || x == y;
        }
    }
    found
}

/// Whether every vertex of feature `mask` of patch `p` (bit k: vertex k) is a vertex of patch
/// `q`: the contact point on that feature is then a point of q as well.
#[inline]
pub fn feature_on_patch(mask: u32, p: [u32; 3], q: [u32; 3]) -> bool {
    let mut all = true;
    for (k, &v) in p.iter().enumerate() {
        if mask & (1 << k) != 0 {
            all = all && (q[0] == v || q[1] == v || q[2] == v);
        }
    }
    all
}

/// Table 1: whether contact c (its feature `c_mask` on patch `c_v`, index `c_patch`) is dropped
/// because of contact o of the same sphere on another patch: c's point lies on o's patch (c's
/// edge or vertex is o's too), so it is o's point seen from c's patch, and o's own nearest
/// point is at least as near; when o's point lies on c's patch as well (the same common edge
/// or vertex seen from both), the higher class stays, then the lower patch index. This is
/// Table 1 wherever its two contacts are one point of the membrane (face > edge > vertex,
/// "randomly" → the lower index, two faces both kept), and it never drops a contact whose
/// point is on no other touching patch: a grain touching two patches that share a vertex at
/// two separate points keeps both. (Read as a table of classes alone, edge–edge dropped a deep
/// contact for a shallow one of a lower index elsewhere, and a grain sank through the
/// membrane: docs/membrane.md.)
#[inline]
pub fn patch_contact_dropped(
    c_mask: u32,
    c_v: [u32; 3],
    c_patch: u32,
    o_mask: u32,
    o_v: [u32; 3],
    o_patch: u32,
) -> bool {
    let (c_class, o_class) = (c_mask.count_ones(), o_mask.count_ones()); // 1 vertex, 2 edge, 3 face
    feature_on_patch(c_mask, c_v, o_v)
        && (!feature_on_patch(o_mask, o_v, c_v) || o_class > c_class || (o_class == c_class && o_patch < c_patch))
}

/// Effective mass of a patch contact point with weights a_k on vertices of mass m_k against a
/// sphere of mass m: a force F at the point accelerates it by F Σ a_k²/m_k, so
/// 1/m* = 1/m + Σ a_k²/m_k.
#[inline]
pub fn patch_effective_mass(m: f32, w: V3, m_v: V3) -> f32 {
    1.0 / (1.0 / m + w[0] * w[0] / m_v[0] + w[1] * w[1] / m_v[1] + w[2] * w[2] / m_v[2])
}

/// Velocity of the patch point with weights w: Σ a_k v_k (Fig. 3).
#[inline]
pub fn patch_point_velocity(w: V3, v1: V3, v2: V3, v3: V3) -> V3 {
    let a = scale(v1, w[0]);
    let b = scale(v2, w[1]);
    let c = scale(v3, w[2]);
    [a[0] + b[0] + c[0], a[1] + b[1] + c[1], a[2] + b[2] + c[2]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_and_weights_of_eq_17() {
        let (a, b, c) = ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
        let f = closest_on_patch([0.25, 0.25, 0.3], a, b, c);
        assert_eq!(f.class, PATCH_FACE);
        assert_eq!(f.point, [0.25, 0.25, 0.0]);
        assert!((f.weights[0] - 0.5).abs() < 1e-6 && (f.weights[1] - 0.25).abs() < 1e-6);
        let e = closest_on_patch([0.5, -0.2, 0.3], a, b, c);
        assert_eq!((e.class, e.weights), (PATCH_EDGE, [0.5, 0.5, 0.0]));
        let e = closest_on_patch([0.6, 0.6, 0.1], a, b, c);
        assert_eq!(e.class, PATCH_EDGE);
        assert!((e.weights[1] - 0.5).abs() < 1e-6 && (e.weights[2] - 0.5).abs() < 1e-6);
        let v = closest_on_patch([-0.1, -0.1, 0.0], a, b, c);
        assert_eq!((v.class, v.weights), (PATCH_VERTEX, [1.0, 0.0, 0.0]));
        let v = closest_on_patch([-0.1, 1.2, 0.0], a, b, c);
        assert_eq!((v.class, v.weights), (PATCH_VERTEX, [0.0, 0.0, 1.0]));
    }

    #[test]
    fn table_1() {
        // A = patch 1 (vertices 1, 2, 3) and B = patch 2 (2, 3, 4) share the edge 2–3. Features
        // at the common edge or vertex (the same point seen from both): Table 1's nine cells.
        let (a, b) = ([1u32, 2, 3], [2u32, 3, 4]);
        let (face_a, edge_a, vertex_a) = (0b111, 0b110, 0b010); // A's face, edge 2–3, vertex 2
        let (face_b, edge_b, vertex_b) = (0b111, 0b011, 0b001); // B's face, edge 2–3, vertex 2
        let kept = |fb: u32, fa: u32| {
            (
                !patch_contact_dropped(fa, a, 1, fb, b, 2),
                !patch_contact_dropped(fb, b, 2, fa, a, 1),
            )
        };
        assert_eq!(kept(face_b, face_a), (true, true));
        assert_eq!(kept(face_b, edge_a), (false, true));
        assert_eq!(kept(face_b, vertex_a), (false, true));
        assert_eq!(kept(edge_b, face_a), (true, false));
        assert_eq!(kept(edge_b, edge_a), (true, false)); // "rand": the lower patch index
        assert_eq!(kept(edge_b, vertex_a), (false, true));
        assert_eq!(kept(vertex_b, face_a), (true, false));
        assert_eq!(kept(vertex_b, edge_a), (true, false));
        assert_eq!(kept(vertex_b, vertex_a), (true, false));
        // Contacts at one shared vertex (patches around it): the lower index.
        let c = [2u32, 5, 6];
        assert!(patch_contact_dropped(0b001, c, 3, vertex_a, a, 1));
        assert!(!patch_contact_dropped(vertex_a, a, 1, 0b001, c, 3));
        assert!(patches_share_vertex([1, 2, 3], [3, 4, 5]) && !patches_share_vertex([1, 2, 3], [4, 5, 6]));
    }

    #[test]
    fn table_1_keeps_separate_points() {
        // A = patch 1 (1, 2, 3) and C = patch 3 (3, 5, 6) share vertex 3 only. A grain touching
        // A's edge 1–2 (or 1–3) and C's edge 3–5 touches two points: both kept whatever the
        // index (the escape: a deep edge contact dropped for a shallow one of a lower index).
        let (a, c) = ([1u32, 2, 3], [3u32, 5, 6]);
        assert!(!patch_contact_dropped(0b011, a, 1, 0b011, c, 3));
        assert!(!patch_contact_dropped(0b011, c, 3, 0b011, a, 1));
        assert!(!patch_contact_dropped(0b011, c, 3, 0b101, a, 1));
        // A's edge 1–2 against B's edge 3–4 (B = 2, 3, 4 shares edge 2–3): both separate points.
        let b = [2u32, 3, 4];
        assert!(!patch_contact_dropped(0b011, a, 1, 0b110, b, 2));
        assert!(!patch_contact_dropped(0b110, b, 2, 0b011, a, 1));
        // B's point on the common edge 2–3 is a point of A, whose own nearest point (edge 1–2)
        // is nearer: B's goes, A's stays.
        assert!(patch_contact_dropped(0b011, b, 2, 0b011, a, 1));
        assert!(!patch_contact_dropped(0b011, a, 1, 0b011, b, 2));
    }

    #[test]
    fn features_of_eq_17() {
        let (a, b, c) = ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
        assert_eq!(closest_on_patch([0.25, 0.25, 0.3], a, b, c).feature, 0b111);
        assert_eq!(closest_on_patch([0.5, -0.2, 0.3], a, b, c).feature, 0b011);
        assert_eq!(closest_on_patch([0.6, 0.6, 0.1], a, b, c).feature, 0b110);
        assert_eq!(closest_on_patch([-0.2, 0.5, 0.1], a, b, c).feature, 0b101);
        assert_eq!(closest_on_patch([-0.1, -0.1, 0.0], a, b, c).feature, 0b001);
        assert_eq!(closest_on_patch([1.3, -0.1, 0.0], a, b, c).feature, 0b010);
        assert_eq!(closest_on_patch([-0.1, 1.2, 0.0], a, b, c).feature, 0b100);
    }
}
