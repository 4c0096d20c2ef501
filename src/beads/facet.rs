//! The pole facet of a lattice sphere and the contact it makes (validation 3, docs/beads.md).
//!
//! A sphere cut from the cubic lattice (|x|² ≤ (n² − 1) l², `paper_compression_spec`) has no
//! pole: its top terrace is the flat square-ish facet z = (n − 1) l, x² + y² ≤ (2n − 2) l², the
//! rim of which lies on the sphere of radius R = sqrt(n² − 1) l. Its continuum twin is a sphere
//! truncated by a flat disc of radius b = sqrt(2n − 2) l (sag b²/2R ≈ l), and Sneddon's
//! axisymmetric punch solution gives its contact with a rigid plane exactly: with contact radius
//! a ≥ b and profile f(r) = 0 (r < b), (r² − b²)/2R (r > b),
//!
//!   δ = (a/R) sqrt(a² − b²),    P = (2E*/3R) (2a² + b²) sqrt(a² − b²),
//!
//! (b = 0: Hertz, δ = a²/R, P = 4E* a³/3R; δ ≪ b²/R: the flat punch P = 2E* b δ). The facet is
//! a flat punch until δ ≈ b²/R ≈ 2 l per contact, a depth that does not grow with n, while the
//! fit window of eq 1 (δ/2R from 2 % to 10 %) does: the fitted modulus converges to E as 1/n.

use super::scenes::{hertz_fit, CompressionSample};

/// (δ, P) of one contact of the truncated sphere (radius `radius`, facet radius `b`, E*) at
/// contact radius a ≥ b.
pub fn flat_pole_contact(e_star: f64, radius: f64, b: f64, a: f64) -> (f64, f64) {
    let root = (a * a - b * b).max(0.0).sqrt();
    (
        a / radius * root,
        2.0 * e_star / (3.0 * radius) * (2.0 * a * a + b * b) * root,
    )
}

/// P at indentation δ ≥ 0 of one contact (a from δ by bisection; δ(a) increases from 0 at a = b).
pub fn flat_pole_force(e_star: f64, radius: f64, b: f64, delta: f64) -> f64 {
    if delta <= 0.0 {
        return 0.0;
    }
    let (mut lo, mut hi) = (b, b + (radius * delta).sqrt() + delta);
    while flat_pole_contact(e_star, radius, b, hi).0 < delta {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if flat_pole_contact(e_star, radius, b, mid).0 < delta {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    flat_pole_contact(e_star, radius, b, 0.5 * (lo + hi)).1
}

/// Diametric compression of the sphere with two such poles by a total plate displacement δ
/// (each contact δ/2, as eq 1), E* = E/(1 − ν²) against rigid plates.
pub fn diametric_flat_pole_force(young: f64, nu: f64, radius: f64, b: f64, delta: f64) -> f64 {
    flat_pole_force(young / (1.0 - nu * nu), radius, b, 0.5 * delta)
}

/// (R, b) of the n² − 1 lattice sphere of spacing l: the facet's rim on the sphere through it.
pub fn lattice_pole(n: f64, l: f64) -> (f64, f64) {
    ((n * n - 1.0).sqrt() * l, (2.0 * n - 2.0).sqrt() * l)
}

/// The continuum record of the n² − 1 lattice sphere (E, ν, spacing l) loaded to δ/2R = `to`,
/// `m` samples evenly in δ.
pub fn lattice_continuum_record(n: f64, young: f64, nu: f64, l: f64, to: f64, m: usize) -> Vec<CompressionSample> {
    let (r, b) = lattice_pole(n, l);
    (1..=m)
        .map(|k| {
            let delta = to * 2.0 * r * k as f64 / m as f64;
            let f = diametric_flat_pole_force(young, nu, r, b, delta);
            CompressionSample {
                time: 0.0,
                delta,
                f_top: f,
                f_bottom: f,
            }
        })
        .collect()
}

/// E of eq 1 fitted through the origin (`hertz_fit`) to the continuum record of the n² − 1
/// lattice sphere over δ/2R in [lo, hi], over E: what the lattice sphere's row should give if
/// the lattice is the continuum of E = 2.5 k/l, ν = 0.25 and the facet is its only departure
/// from a sphere.
pub fn facet_fit_ratio(n: f64, lo: f64, hi: f64) -> f64 {
    let (young, nu, l) = (40e6, 0.25, 12.5e-6);
    let (r, _) = lattice_pole(n, l);
    let rec = lattice_continuum_record(n, young, nu, l, hi, 2000);
    hertz_fit(&rec, lo * 2.0 * r, hi * 2.0 * r, r, nu).1 / young
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eq 1 is Hertz's two-contact law (each contact δ/2, E* = E/(1 − ν²)), the fit used by the
    /// rows recovers E from an exact eq-1 record, and the truncated sphere is eq 1 when b = 0.
    #[test]
    fn eq_1_is_two_hertz_contacts_and_the_fit_recovers_e() {
        let (e, nu, r): (f64, f64, f64) = (40e6, 0.25, 4e-4);
        let e_star = e / (1.0 - nu * nu);
        for delta in [1e-6f64, 1e-5, 8e-5] {
            let eq1 = e * (2.0 * r).sqrt() / (3.0 * (1.0 - nu * nu)) * delta.powf(1.5);
            let hertz = 4.0 / 3.0 * e_star * r.sqrt() * (0.5 * delta).powf(1.5);
            assert!((eq1 - hertz).abs() < 1e-12 * eq1);
            let trunc = diametric_flat_pole_force(e, nu, r, 0.0, delta);
            assert!((trunc - eq1).abs() < 1e-9 * eq1, "{trunc} vs {eq1}");
        }
        let rec: Vec<CompressionSample> = (1..=100)
            .map(|k| {
                let d = 1e-6 * k as f64;
                let f = e * (2.0 * r).sqrt() / (3.0 * (1.0 - nu * nu)) * d.powf(1.5);
                CompressionSample {
                    time: 0.0,
                    delta: d,
                    f_top: f,
                    f_bottom: f,
                }
            })
            .collect();
        let fit = hertz_fit(&rec, 0.0, 1.0, r, nu).1;
        assert!((fit / e - 1.0).abs() < 1e-12, "{fit}");
    }

    /// The facet is a flat punch at small δ (P = 2E* b δ), Hertz at δ ≫ b²/R, and the
    /// solution is the punch integral's: P = ∫ 2π r p(r) dr is checked through dP/dδ = 2E* a.
    #[test]
    fn truncated_sphere_limits() {
        let (e_star, r, b): (f64, f64, f64) = (1e7, 1.0, 0.1);
        let d: f64 = 1e-7;
        let p = flat_pole_force(e_star, r, b, d);
        assert!((p / (2.0 * e_star * b * d) - 1.0).abs() < 1e-3, "{p}");
        let d: f64 = 0.2;
        let hertz = 4.0 / 3.0 * e_star * r.sqrt() * d.powf(1.5);
        assert!((flat_pole_force(e_star, r, b, d) / hertz - 1.0).abs() < 0.05);
        // Contact stiffness dP/dδ = 2E* a (true of every axisymmetric punch).
        for a in [0.11, 0.2, 0.5] {
            let h = 1e-7;
            let (d1, p1) = flat_pole_contact(e_star, r, b, a - h);
            let (d2, p2) = flat_pole_contact(e_star, r, b, a + h);
            assert!(((p2 - p1) / (d2 - d1) / (2.0 * e_star * a) - 1.0).abs() < 1e-6);
        }
    }

    /// The facetted continuum's eq-1 fit (2–10 %) falls towards E as 1/n: n (E_fit/E − 1) within
    /// 15 % of its n = 1024 value from n = 64 on; it first comes within 5 % near n = 400
    /// (≈ 2.7 × 10⁸ beads).
    #[test]
    fn the_facet_fit_converges_as_one_over_n() {
        let excess = |n: f64| facet_fit_ratio(n, 0.02, 0.10) - 1.0;
        let c = 1024.0 * excess(1024.0);
        for n in [64.0, 128.0, 256.0, 512.0] {
            assert!((n * excess(n) / c - 1.0).abs() < 0.15, "n = {n}: {}", n * excess(n));
        }
        let mut n = 16.0;
        while excess(n) > 0.05 {
            n += 8.0;
        }
        assert!((360.0..=440.0).contains(&n), "within 5 % from n = {n}");
        assert!(excess(16.0) > excess(32.0) && excess(32.0) > 0.5);
    }
}
