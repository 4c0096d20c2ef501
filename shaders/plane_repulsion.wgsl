// plane_repulsion.wgsl: rigid plane pushing beads (Sahputra et al., eq 6): depth
// p = r − (x − p₀)·n, F = S p² n for p > 0. Twin of src/laws/plane_repulsion.rs.

struct PlaneRepulsion {
    force: vec3<f32>,
    depth: f32,
    energy: f32,
}

// Eq 6 on the depth alone: S p² for p > 0 (the sphere wall law LAW_PLANE_REPULSION).
fn plane_repulsion_normal(s: f32, p: f32) -> f32 {
    if (p <= 0.0) {
        return 0.0;
    }
    // Eq 6.
    return s * p * p;
}

fn plane_repulsion_energy(s: f32, p: f32) -> f32 {
    if (p <= 0.0) {
        return 0.0;
    }
    return s * p * p * p / 3.0;
}

fn plane_repulsion_force(s: f32, radius: f32, n: vec3<f32>, d: vec3<f32>) -> PlaneRepulsion {
    let p = radius - dot(d, n);
    if (p <= 0.0) {
        return PlaneRepulsion(vec3<f32>(0.0), p, 0.0);
    }
    return PlaneRepulsion(n * plane_repulsion_normal(s, p), p, plane_repulsion_energy(s, p));
}
