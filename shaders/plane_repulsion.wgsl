// plane_repulsion.wgsl: rigid plane pushing beads (Sahputra et al., eq 6): depth
// p = r − (x − p₀)·n, F = S p² n for p > 0. Twin of src/laws/plane_repulsion.rs.

struct PlaneRepulsion {
    force: vec3<f32>,
    depth: f32,
    energy: f32,
}

fn plane_repulsion_force(s: f32, radius: f32, n: vec3<f32>, d: vec3<f32>) -> PlaneRepulsion {
    let p = radius - dot(d, n);
    if (p <= 0.0) {
        return PlaneRepulsion(vec3<f32>(0.0), p, 0.0);
    }
    // Eq 6.
    let f = s * p * p;
    return PlaneRepulsion(n * f, p, s * p * p * p / 3.0);
}
