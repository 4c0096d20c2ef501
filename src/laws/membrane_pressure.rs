//! Confining stress on a membrane (Götz & Pöschel eq 18–19). Twin: `membrane_pressure_force` in
//! `shaders/membrane_pressure.wgsl`.
//!
//! A patch (a, b, c) numbered counter-clockwise seen from outside has the outward normal
//! N = (b − a) × (c − a) with |N| = 2A, so A n̂ = N/2 needs no square root. Eq 18 with normals
//! "such that forces act from outside towards the granulate" is F_j = −σ A_j n̂_j^out; eq 19 gives
//! each of the three vertices F_j/3. σ > 0 confines; an internal pressure p is σ = −p.

use super::vec3::{cross, scale, sub, V3};

/// The force on each vertex of patch (a, b, c) under confining stress σ: −σ N/6 (eq 18–19).
#[inline]
pub fn membrane_pressure_force(sigma: f32, a: V3, b: V3, c: V3) -> V3 {
    let n = cross(sub(b, a), sub(c, a));
    scale(n, -sigma / 6.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_seen_from_outside_is_pushed_in_by_a_third_of_sigma_a() {
        // Unit right triangle in z = 0, counter-clockwise seen from +z: outward +z, A = 1/2.
        let f = membrane_pressure_force(6.0, [0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
        assert_eq!(f, [0.0, 0.0, -1.0]);
    }
}
