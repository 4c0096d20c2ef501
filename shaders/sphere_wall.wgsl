// sphere_wall.wgsl: geometry of a sphere against a plane wall, twin of wall_geometry in
// src/spheres/wall.rs. Uses sphere_state and sphere_contact.

#import sphere_contact

struct WallGeometry {
    g: ContactGeometry,
    l_i: vec3<f32>,
    // Contact point relative to the wall point (for the wall torque).
    c: vec3<f32>,
}

fn wall_geometry(w: PlaneWall, s: SphereState) -> WallGeometry {
    var out: WallGeometry;
    let d = df3_sub(s.pos_hi, s.pos_lo, w.point_hi, w.point_lo);
    let n = w.normal;
    let gap = v3_dot(d, n);
    let delta = s.radius - gap;
    if (delta <= 0.0) {
        return out;
    }
    let l_i = branch_vectors(n, delta, s.radius, 0.0).l_i;
    let v_i = s.vel + v3_cross(s.omega, l_i);
    out.g = ContactGeometry(n, delta, v_i - w.velocity, s.radius, s.omega, s.mass);
    out.l_i = l_i;
    out.c = d + l_i;
    return out;
}
