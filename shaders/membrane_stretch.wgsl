// membrane_stretch.wgsl: the damped edge spring of a membrane (Götz & Pöschel eq 6–7), force on
// vertex i. Twin of src/laws/membrane_stretch.rs (same name, same steps; eq 6's sign as there).

fn membrane_stretch_force(k: f32, gamma: f32, rest: f32, m_eff: f32, rho_ij: vec3<f32>, rho_dot_ij: vec3<f32>) -> vec3<f32> {
    let len = sqrt(rho_ij.x * rho_ij.x + rho_ij.y * rho_ij.y + rho_ij.z * rho_ij.z);
    if (len <= 0.0) {
        return vec3<f32>(0.0);
    }
    let e = rho_ij * (1.0 / len);
    let f = k * (len - rest) + 2.0 * gamma * sqrt(k * m_eff) * (e.x * rho_dot_ij.x + e.y * rho_dot_ij.y + e.z * rho_dot_ij.z);
    return e * (-f);
}
