//! The continuum limit of the elastic ring (η = 0) between two frictionless rigid walls: an
//! inextensible Euler elastica of bending rigidity EI and natural curvature 1/R (the model's
//! continuum limit, EI = k_b ℓ, is what the beams of Fig. 9 calibrate). Used as a second,
//! resolution-independent reference next to the paper's eq 30 and 33 (docs/validation.md).
//!
//! By symmetry (left–right and top–bottom, no friction) each half of the ring carries only the
//! vertical force P = F/2 across its cuts, so along a quarter arc that starts at the top
//! (turning angle φ = 0, tangent parallel to the wall) and ends at the side (φ = π/2):
//!   EI dκ/ds = P cos φ  ⇒  κ² = κ_A² + q sin φ,  q = 2P/EI = F/EI,
//! with κ_A the curvature at the top. The natural curvature only shifts the moment by a
//! constant, so it does not enter the shape equation; it enters through the fixed length
//! πR/2 of the quarter arc.
//! - **Point contact** (κ_A ≥ 0): ∫₀^{π/2} dφ/κ = πR/2 fixes κ_A for each q, and
//!   b = 2∫₀^{π/2} sin φ dφ/κ.
//! - **Flat contact** (after κ_A reaches 0, at F R²/EI = 2.786, ε = 0.282): the flat part
//!   carries a uniform moment, hence no bending force, and the free arcs have κ = 0 at their
//!   ends: κ = √(q sin φ). Then b = 2 I_s/√q and L_c = πR − 2 I_c/√q with
//!   I_s = ∫₀^{π/2} √(sin φ) dφ = 1.19814 and I_c = ∫₀^{π/2} dφ/√(sin φ) = 2.62206, i.e.
//!   F R²/EI = I_s²/(1 − ε)² = 1.4355/(1 − ε)² and L_c/b0 = π/2 − (I_c/I_s)(1 − ε):
//!   L_c grows with slope I_c/I_s = 2.188 in ε (the stadium of eq 30 has π/2 because its
//!   semicircles have a curvature jump at the contact edge, which the elastica does not).

use std::f64::consts::PI;

/// ∫₀^{π/2} w(φ)/√(κ_A² + q sin φ) dφ, with φ = u² to remove the 1/√φ singularity at κ_A = 0.
fn quarter_integral(kappa_a: f64, q: f64, w: impl Fn(f64) -> f64) -> f64 {
    let n = 4000;
    let umax = (PI / 2.0).sqrt();
    let h = umax / n as f64;
    let f = |u: f64| {
        let phi = u * u;
        let den = kappa_a * kappa_a + q * phi.sin();
        if u == 0.0 {
            // limit of 2u/√(κ_A² + q u²) at u = 0
            if kappa_a > 0.0 {
                0.0
            } else {
                2.0 * w(0.0) / q.sqrt()
            }
        } else {
            2.0 * u * w(phi) / den.sqrt()
        }
    };
    // Simpson's rule
    let mut s = f(0.0) + f(umax);
    for i in 1..n {
        let c = if i % 2 == 1 { 4.0 } else { 2.0 };
        s += c * f(i as f64 * h);
    }
    s * h / 3.0
}

/// I_s = ∫₀^{π/2} √(sin φ) dφ.
pub fn i_s() -> f64 {
    quarter_integral(0.0, 1.0, |p| p.sin())
}

/// I_c = ∫₀^{π/2} dφ/√(sin φ).
pub fn i_c() -> f64 {
    quarter_integral(0.0, 1.0, |_| 1.0)
}

/// Slope d(L_c/b0)/dε of the flat-contact regime, I_c/I_s.
pub fn lc_slope() -> f64 {
    i_c() / i_s()
}

/// Strain at which the flat contact starts: 1 − π/(2 I_c/I_s).
pub fn eps_flat() -> f64 {
    1.0 - PI / (2.0 * lc_slope())
}

/// One state of the elastica ring (R = 1, EI = 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct State {
    /// ε = 1 − b/b0.
    pub eps: f64,
    /// F R²/EI (total wall force).
    pub force: f64,
    /// L_c/b0 (length of the flat contact with one wall).
    pub lc_b0: f64,
}

/// The point-contact state with q = F R²/EI (0 ≤ q ≤ q at the flat onset).
fn point_state(q: f64) -> State {
    // κ_A from the length condition (the integral decreases with κ_A).
    let len = |k: f64| quarter_integral(k, q, |_| 1.0) - PI / 2.0;
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..80 {
        let m = 0.5 * (lo + hi);
        if len(m) > 0.0 {
            lo = m;
        } else {
            hi = m;
        }
    }
    let k = 0.5 * (lo + hi);
    let b = 2.0 * quarter_integral(k, q, |p| p.sin());
    State {
        eps: 1.0 - b / 2.0,
        force: q,
        lc_b0: 0.0,
    }
}

/// The elastica's force and contact length at strain ε (0 ≤ ε < 1).
pub fn at_strain(eps: f64) -> State {
    let (is, ic) = (i_s(), i_c());
    let e0 = 1.0 - PI * is / (2.0 * ic);
    if eps >= e0 {
        let one = 1.0 - eps;
        return State {
            eps,
            force: is * is / (one * one),
            lc_b0: PI / 2.0 - ic / is * one,
        };
    }
    // Point contact: ε(q) increases with q from 0 to e0 at q0 = (2 I_c/π)²; bisection on q.
    let q0 = (2.0 * ic / PI).powi(2);
    let (mut lo, mut hi) = (0.0, q0);
    for _ in 0..60 {
        let m = 0.5 * (lo + hi);
        if point_state(m).eps < eps {
            lo = m;
        } else {
            hi = m;
        }
    }
    State {
        eps,
        force: 0.5 * (lo + hi),
        lc_b0: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants() {
        // ∫₀^{π/2} √sin = 2√(2π³)/Γ(1/4)², ∫₀^{π/2} 1/√sin = Γ(1/4)²/(2√(2π)).
        let g = 3.625_609_908_221_908_f64; // Γ(1/4)
        assert!((i_s() - 2.0 * (2.0 * PI.powi(3)).sqrt() / (g * g)).abs() < 1e-6);
        assert!((i_c() - g * g / (2.0 * (2.0 * PI).sqrt())).abs() < 1e-5);
        assert!((lc_slope() - 2.18844).abs() < 1e-4);
        assert!((eps_flat() - 0.28223).abs() < 1e-4);
    }

    #[test]
    fn point_and_flat_regimes_join() {
        let e0 = eps_flat();
        let a = at_strain(e0 - 1e-6);
        let b = at_strain(e0 + 1e-6);
        assert!((a.force - b.force).abs() < 1e-3, "{a:?} {b:?}");
        // Small strains: the linear ring, F R²/EI = ε b0 R² /(R³ (π/4 − 2/π)) / 2 … checked as
        // the slope dF/dε at ε → 0 against the classical diametral stiffness of a ring,
        // δ = (π/4 − 2/π) F R³/EI for the change of diameter.
        let e = 1e-4;
        let s = at_strain(e);
        let expect = 2.0 * e / (PI / 4.0 - 2.0 / PI);
        assert!((s.force / expect - 1.0).abs() < 2e-3, "{} vs {}", s.force, expect);
    }
}
