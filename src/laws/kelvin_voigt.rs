//! Kelvin–Voigt bond (Sahputra et al., eq 3): a linear spring k and a dashpot b in parallel
//! between two beads, F_KV = k X + b dX/dt with X = |x_i − x_j| − l₀ the bond's extension and
//! dX/dt = (v_i − v_j)·n its rate (n from j to i). b = 0 is the purely elastic bond (linear
//! spring). Twin of `shaders/kelvin_voigt.wgsl` (same steps, f32, no fused multiply-add).
//!
//! Sign: the scalar F_KV is positive in tension; the force on i is −F_KV n (pulls i back
//! towards j when stretched), j gets +F_KV n.

use super::vec3::{dot, norm, scale, V3};

/// The force on i of a Kelvin–Voigt bond of stiffness k, dashpot b and rest length l₀, for
/// d = x_i − x_j and w = v_i − v_j; returns (force on i, extension X, F_KV). A bond of zero
/// length has no direction: no force.
#[inline]
pub fn kelvin_voigt_force(k: f32, b: f32, rest: f32, d: V3, w: V3) -> (V3, f32, f32) {
    let len = norm(d);
    if len <= 0.0 {
        return ([0.0; 3], -rest, 0.0);
    }
    let n = scale(d, 1.0 / len);
    let x = len - rest;
    // Eq 3: F_KV = k X + b dX/dt.
    let f = k * x + b * dot(w, n);
    (scale(n, -f), x, f)
}

/// Elastic energy ½ k X² stored in the spring (the dashpot stores none).
#[inline]
pub fn kelvin_voigt_energy(k: f32, x: f32) -> f32 {
    0.5 * k * x * x
}

/// Eq 4: displacement of a massless KV bond under a constant force F from rest,
/// X(t) = F/k (1 − exp(−k t/b)).
pub fn creep_displacement(force: f64, k: f64, b: f64, t: f64) -> f64 {
    force / k * (1.0 - (-k * t / b).exp())
}

/// Steady state of m ẍ + b ẋ + k x = F sin ωt: amplitude F/sqrt((k − mω²)² + (bω)²) and phase
/// lag φ = atan2(bω, k − mω²) (x = A sin(ωt − φ)).
pub fn sine_steady_state(force: f64, m: f64, k: f64, b: f64, omega: f64) -> (f64, f64) {
    let re = k - m * omega * omega;
    let im = b * omega;
    (force / (re * re + im * im).sqrt(), im.atan2(re))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spring_and_dashpot_add_along_the_bond() {
        // Stretched by 0.1 along x, opening at 2 m/s: F = 0.2·0.1 + 0.5·2 = 1.02 N in tension.
        let (f, x, s) = kelvin_voigt_force(0.2, 0.5, 1.0, [1.1, 0.0, 0.0], [2.0, 0.0, 0.0]);
        assert!((x - 0.1).abs() < 1e-6);
        assert!((s - 1.02).abs() < 1e-5);
        assert!((f[0] + 1.02).abs() < 1e-5 && f[1] == 0.0 && f[2] == 0.0);
        // Compressed, closing, tangential velocity ignored; elastic b = 0.
        let (f, x, s) = kelvin_voigt_force(200.0, 0.0, 1.0, [0.0, 0.9, 0.0], [5.0, 0.0, 0.0]);
        assert!((x + 0.1).abs() < 1e-6 && (s + 20.0).abs() < 1e-4);
        assert!((f[1] - 20.0).abs() < 1e-4);
        assert!((kelvin_voigt_energy(200.0, x) - 1.0).abs() < 1e-4);
    }

    #[test]
    fn creep_and_sine_references() {
        assert!((creep_displacement(1.0, 0.2, 0.5, 1e9) - 5.0).abs() < 1e-12);
        // t = b/k: 1 − 1/e of the final value.
        let x = creep_displacement(1.0, 0.2, 0.5, 2.5);
        assert!((x - 5.0 * (1.0 - (-1.0f64).exp())).abs() < 1e-12);
        // At resonance the lag is π/2 and the amplitude F/(bω).
        let (a, p) = sine_steady_state(1.0, 1.0, 4.0, 0.5, 2.0);
        assert!((a - 1.0).abs() < 1e-12 && (p - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
    }
}
