// membrane_pressure.wgsl: the confining stress on a patch (Götz & Pöschel eq 18–19): each vertex
// of patch (a, b, c), counter-clockwise seen from outside, gets −σ N/6, N = (b − a) × (c − a).
// Twin of src/laws/membrane_pressure.rs.

fn membrane_pressure_force(sigma: f32, a: vec3<f32>, b: vec3<f32>, c: vec3<f32>) -> vec3<f32> {
    let u = b - a;
    let v = c - a;
    let n = vec3<f32>(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x);
    return n * (-sigma / 6.0);
}
