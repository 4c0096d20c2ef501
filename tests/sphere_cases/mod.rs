//! Pieces shared by the sphere test files (`mod sphere_cases;`).

#![allow(dead_code)]

use softdem::spheres::pair_law::SphereMaterial;
use softdem::spheres::SphereState;

/// The largest difference of any position coordinate between two runs' spheres.
pub fn largest_position_gap(a: &[SphereState], b: &[SphereState]) -> f64 {
    a.iter()
        .zip(b)
        .flat_map(|(a, b)| {
            let (pa, pb) = (a.position(), b.position());
            (0..3).map(move |k| (pa[k] - pb[k]).abs())
        })
        .fold(0.0, f64::max)
}

/// Spheres of Table 1's hydrogel (r = 1 cm) on the x axis at `xs`, with x velocities `vs`.
pub fn hydrogel_line(xs: &[f64], vs: &[f32]) -> Vec<SphereState> {
    let m = SphereMaterial::HYDROGEL;
    xs.iter()
        .zip(vs)
        .map(|(&x, &v)| {
            let mut s = SphereState::solid([x, 0.0, 0.0], 0.01, m.density, 0);
            s.vel = [v, 0.0, 0.0];
            s
        })
        .collect()
}
