//! Effective (pair) quantities of two spheres and the damping ratio of a restitution
//! coefficient: the mixing rules of the law table. Host side, in f64, stored as f32.

/// Effective Young's modulus, 1/E* = (1 − ν_i)/(2 G_i) + (1 − ν_j)/(2 G_j) (paper, after eq 3),
/// which with G = E/(2(1 + ν)) is the usual (1 − ν_i²)/E_i + (1 − ν_j²)/E_j.
/// A rigid partner (a wall) has `e_j = f64::INFINITY`.
pub fn effective_young(e_i: f64, nu_i: f64, e_j: f64, nu_j: f64) -> f64 {
    1.0 / ((1.0 - nu_i * nu_i) / e_i + (1.0 - nu_j * nu_j) / e_j)
}

/// Shear modulus G = E/(2(1 + ν)).
pub fn shear_modulus(e: f64, nu: f64) -> f64 {
    e / (2.0 * (1.0 + nu))
}

/// Effective shear modulus, 1/G* = (2 − ν_i)/G_i + (2 − ν_j)/G_j (paper, after eq 5).
pub fn effective_shear(e_i: f64, nu_i: f64, e_j: f64, nu_j: f64) -> f64 {
    1.0 / ((2.0 - nu_i) / shear_modulus(e_i, nu_i) + (2.0 - nu_j) / shear_modulus(e_j, nu_j))
}

/// Effective radius r_ij = r_i r_j/(r_i + r_j) (paper, after eq 3); a plane (r_j = ∞) gives r_i.
pub fn effective_radius(r_i: f64, r_j: f64) -> f64 {
    if r_j.is_infinite() {
        r_i
    } else {
        r_i * r_j / (r_i + r_j)
    }
}

/// Effective mass m_ij = m_i m_j/(m_i + m_j) (paper §3.4); a wall (m_j = ∞) gives m_i.
pub fn effective_mass(m_i: f64, m_j: f64) -> f64 {
    if m_j.is_infinite() {
        m_i
    } else {
        m_i * m_j / (m_i + m_j)
    }
}

/// β_e = ln e / sqrt(ln² e + π²) (≤ 0), the damping ratio −ζ of a linear oscillator whose
/// restitution is e; LIGGGHTS' Hertz model takes γ_n from it (see `hertz::hertz_damping`).
pub fn restitution_damping_ratio(e: f64) -> f64 {
    assert!(e > 0.0 && e <= 1.0, "restitution coefficient {e} outside (0, 1]");
    let l = e.ln();
    l / (l * l + std::f64::consts::PI * std::f64::consts::PI).sqrt()
}

/// Arithmetic mean: the mixing rule for a restitution or friction coefficient of two different
/// materials (a pair given explicitly in the law table overrides it).
pub fn mix_mean(a: f64, b: f64) -> f64 {
    0.5 * (a + b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_forms_equal_the_usual_forms() {
        let (e1, n1, e2, n2) = (1.85e6, 0.46, 23.3e3, 0.5);
        let g1 = shear_modulus(e1, n1);
        let g2 = shear_modulus(e2, n2);
        let paper = 1.0 / ((1.0 - n1) / (2.0 * g1) + (1.0 - n2) / (2.0 * g2));
        assert!((effective_young(e1, n1, e2, n2) / paper - 1.0).abs() < 1e-14);
        // Same material, ν = 0.5: E* = E/(2(1 − ν²)) = E/1.5.
        assert!((effective_young(e2, n2, e2, n2) - e2 / 1.5).abs() < 1e-9);
        // A rigid wall: E* = E/(1 − ν²).
        assert!((effective_young(e2, n2, f64::INFINITY, 0.3) - e2 / 0.75).abs() < 1e-9);
        assert_eq!(effective_radius(0.01, 0.01), 0.005);
        assert_eq!(effective_radius(0.01, f64::INFINITY), 0.01);
        // e = 1: no damping; e → 0: β_e → −1.
        assert_eq!(restitution_damping_ratio(1.0), 0.0);
        assert!(restitution_damping_ratio(1e-12) < -0.99);
    }
}
