// sphere_wall.wgsl: geometry of a sphere against a wall (plane, cylinder inside, servo plane) and
// the servo law, twins of wall_geometry and servo_velocity in src/spheres/wall.rs. Uses
// sphere_state and sphere_contact.

#import sphere_contact

const WALL_PLANE: u32 = 0u;
const WALL_CYLINDER: u32 = 1u;
const WALL_SERVO: u32 = 2u;

// v = n clamp(g (σ_target − σ), ±v_max) with σ = −F·n/A; other kinds unchanged.
fn servo_velocity(w: PlaneWall) -> vec3<f32> {
    if (w.kind != WALL_SERVO) {
        return w.velocity;
    }
    let stress = -v3_dot(w.force, w.normal) / w.size;
    let u = clamp(w.gain * (w.target_stress - stress), -w.max_speed, w.max_speed);
    return w.normal * u;
}

// Whether sphere s is a candidate of wall w at a list build: its gap is below the skin (twin:
// wall.rs wall_candidate).
fn wall_candidate(w: PlaneWall, s: SphereState) -> bool {
    let d = df3_sub(s.pos_hi, s.pos_lo, w.point_hi, w.point_lo);
    var gap = v3_dot(d, w.normal);
    if (w.kind == WALL_CYLINDER) {
        gap = w.size - v3_norm(d - w.normal * v3_dot(d, w.normal));
    }
    return s.radius + sp.skin - gap > 0.0;
}

struct WallGeometry {
    g: ContactGeometry,
    l_i: vec3<f32>,
    // Contact point relative to the wall point (for the wall torque).
    c: vec3<f32>,
}

fn wall_geometry(w: PlaneWall, s: SphereState) -> WallGeometry {
    var out: WallGeometry;
    let d = df3_sub(s.pos_hi, s.pos_lo, w.point_hi, w.point_lo);
    var n = w.normal;
    var gap = v3_dot(d, n);
    if (w.kind == WALL_CYLINDER) {
        // Radial offset from the axis; the normal points from the shell to the axis.
        let radial = d - w.normal * v3_dot(d, w.normal);
        let rho = v3_norm(radial);
        if (rho == 0.0) {
            return out;
        }
        n = radial * (-1.0 / rho);
        gap = w.size - rho;
    }
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
