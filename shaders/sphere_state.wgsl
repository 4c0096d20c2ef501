// sphere_state.wgsl: records of the 3D sphere kind and their double-f32 position helpers.
// Twins: src/spheres/state.rs, src/spheres/wall.rs, src/spheres/precision.rs (checked by
// tests/layout.rs). Every vec3 is followed by a 4-byte scalar, so std430 equals the C layout.

#import common
#import df32

struct SphereState {
    pos_hi: vec3<f32>,
    radius: f32,
    pos_lo: vec3<f32>,
    mass: f32,
    vel: vec3<f32>,
    inertia: f32,
    omega: vec3<f32>,
    material: u32,
}

struct SphereForce {
    force: vec3<f32>,
    _pad0: f32,
    torque: vec3<f32>,
    _pad1: f32,
}

struct SphereParams {
    gravity: vec3<f32>,
    dt: f32,
    n_spheres: u32,
    n_items: u32,
    n_walls: u32,
    opaque_zero: u32,
    global_damping: f32,
    local_damping: f32,
    skin: f32,
    cell_size: f32,
    grid_origin: vec3<f32>,
    n_cells: u32,
    grid_dims: vec3<u32>,
    n_materials: u32,
}

struct PlaneWall {
    point_hi: vec3<f32>,
    material: u32,
    point_lo: vec3<f32>,
    kind: u32,
    normal: vec3<f32>,
    size: f32,
    velocity: vec3<f32>,
    target_stress: f32,
    force: vec3<f32>,
    gain: f32,
    torque: vec3<f32>,
    max_speed: f32,
}

// History of a contact (twin: spheres::contact::ContactHistory), here because the cell list
// carries it across rebuilds as well as the laws update it.
struct ContactHistory {
    tangential: vec3<f32>,
    _pad0: f32,
    rolling: vec3<f32>,
    _pad1: f32,
}

@group(0) @binding(0) var<uniform> sp: SphereParams;

// The runtime zero behind `opaque` and `df_add` (df32.wgsl).
fn opaque_zero() -> u32 {
    return sp.opaque_zero;
}

struct Df3 {
    hi: vec3<f32>,
    lo: vec3<f32>,
}

// (hi, lo) + d per component: TwoSum of hi and lo + d (twin: precision::df3_add).
fn df3_add(hi: vec3<f32>, lo: vec3<f32>, d: vec3<f32>) -> Df3 {
    var out: Df3;
    for (var k = 0u; k < 3u; k++) {
        let r = df_add(hi[k], lo[k], d[k]);
        out.hi[k] = r.x;
        out.lo[k] = r.y;
    }
    return out;
}

// a − b as (a_hi − b_hi) + (a_lo − b_lo) (twin: precision::df3_sub).
fn df3_sub(a_hi: vec3<f32>, a_lo: vec3<f32>, b_hi: vec3<f32>, b_lo: vec3<f32>) -> vec3<f32> {
    let h = a_hi - b_hi;
    let l = a_lo - b_lo;
    return vec3<f32>(opaque(h.x) + opaque(l.x), opaque(h.y) + opaque(l.y),
        opaque(h.z) + opaque(l.z));
}
