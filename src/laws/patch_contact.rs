//! Contact of a granular sphere with a triangular membrane patch (Götz & Pöschel §2.5, eq 17,
//! Fig. 3, Table 1). Twin: `shaders/patch_contact.wgsl` (same names).
//!
//! - `closest_on_patch`: the point x_c of the patch nearest to the sphere's centre with its
//!   barycentric weights (a1, a2, a3) and its class (eq 17): vertex (x_c = ρ_i), edge (x_c on
//!   ρ_iρ_j) or face, by the Voronoi regions of the triangle (Ericson, *Real-Time Collision
//!   Detection* §5.1.5), which is eq 17 evaluated without a tolerance.
//! - `patch_contact_dropped`: Table 1 for a sphere touching several patches that share a vertex:
//!   face beats edge beats vertex, two faces are both kept, and of two edge or two vertex
//!   contacts (the paper: "randomly") the patch of lower index is kept — deterministic, so GPU
//!   reruns are bit-identical. Contacts at one shared vertex reduce to one the same way.
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
        };
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return PatchPoint {
            point: [a[0] + v * ab[0], a[1] + v * ab[1], a[2] + v * ab[2]],
            weights: [1.0 - v, v, 0.0],
            class: PATCH_EDGE,
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
        };
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return PatchPoint {
            point: [a[0] + w * ac[0], a[1] + w * ac[1], a[2] + w * ac[2]],
            weights: [1.0 - w, 0.0, w],
            class: PATCH_EDGE,
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

/// Overlaps closer than `PATCH_TIE` r count as equal in Table 1: one point of the membrane (a
/// common edge or vertex) seen from two patches gives the same overlap up to f32 rounding
/// (~1e-7 r), distinct points differ by far more.
pub const PATCH_TIE: f32 = 1e-4;

/// Table 1: whether contact c (class, patch index, overlap δ) is dropped because of contact o
/// of the same sphere on a patch sharing a vertex with c's: o's class is higher, or both are
/// edge or both vertex contacts and o's patch index is lower — **provided o's point is at
/// least as near the sphere's centre as c's** (δ_o ≥ δ_c − tol). Table 1 removes the same
/// contact seen from two patches (a common edge or vertex: equal overlaps) and the shadows of
/// the nearest point on its neighbours (a patch's edge or vertex next to a face contact: a
/// smaller overlap); it never drops the membrane's nearest point for a farther one. Of two edge
/// or two vertex contacts with different overlaps the deeper one is kept. Two face contacts
/// are both kept. (Without the proviso a grain pressed into a pocket of the membrane kept only
/// a shallow edge contact of a lower-indexed patch and sank through: docs/membrane.md.)
#[inline]
pub fn patch_contact_dropped(
    c_class: u32,
    c_patch: u32,
    c_delta: f32,
    o_class: u32,
    o_patch: u32,
    o_delta: f32,
    tol: f32,
) -> bool {
    let not_shallower = o_delta >= c_delta - tol;
    let deeper = o_delta > c_delta + tol;
    (o_class > c_class && not_shallower)
        || (o_class == c_class && c_class != PATCH_FACE && (deeper || (not_shallower && o_patch < c_patch)))
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
        use PATCH_EDGE as E;
        use PATCH_FACE as F;
        use PATCH_VERTEX as V;
        // Rows: contact on B (patch 2); columns: on A (patch 1). Kept: "A and B", "A", "B".
        // The same point seen from both patches (equal overlaps, within the tie tolerance).
        let kept = |b: u32, a: u32| {
            (
                !patch_contact_dropped(a, 1, 0.5, b, 2, 0.5 + 1e-6, 1e-4),
                !patch_contact_dropped(b, 2, 0.5 + 1e-6, a, 1, 0.5, 1e-4),
            )
        };
        assert_eq!(kept(F, F), (true, true));
        assert_eq!(kept(F, E), (false, true));
        assert_eq!(kept(F, V), (false, true));
        assert_eq!(kept(E, F), (true, false));
        assert_eq!(kept(E, E), (true, false)); // "rand": the lower patch index
        assert_eq!(kept(E, V), (false, true));
        assert_eq!(kept(V, F), (true, false));
        assert_eq!(kept(V, E), (true, false));
        assert_eq!(kept(V, V), (true, false));
        assert!(patches_share_vertex([1, 2, 3], [3, 4, 5]) && !patches_share_vertex([1, 2, 3], [4, 5, 6]));
    }

    #[test]
    fn table_1_never_drops_the_nearer_point() {
        use PATCH_EDGE as E;
        use PATCH_FACE as F;
        use PATCH_VERTEX as V;
        // A shallow contact (δ 0.1) on patch 1 against a deep one (δ 0.9) on patch 2.
        let dropped = |shallow: u32, deep: u32| {
            (
                patch_contact_dropped(shallow, 1, 0.1, deep, 2, 0.9, 1e-4),
                patch_contact_dropped(deep, 2, 0.9, shallow, 1, 0.1, 1e-4),
            )
        };
        // (shallow dropped, deep dropped): a shadow next to a deeper point of higher or equal
        // class goes; the deep point stays whatever the class or index of the shallow one.
        assert_eq!(dropped(E, E), (true, false)); // the escape's case: not the lower index
        assert_eq!(dropped(V, V), (true, false));
        assert_eq!(dropped(E, F), (true, false)); // a shadow edge beside a face
        assert_eq!(dropped(V, E), (true, false));
        assert_eq!(dropped(F, E), (false, false)); // a farther face and a nearer edge: both real
        assert_eq!(dropped(E, V), (false, false));
        assert_eq!(dropped(F, F), (false, false));
    }
}
