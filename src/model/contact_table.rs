//! The 2D contact law table: one law (eq 5–8) per ordered pair of contact materials, mixed from
//! the two materials' laws by a stated rule. Both backends read the table by the two bodies'
//! contact materials (`Body::contact_material`): entry a·n + b, n materials (`cpu::contact_pairs`,
//! `shaders/contact_pairs.wgsl`).
//!
//! The mixing rule (`mix`), as MercuryDPM's default mixed species and rapier's
//! `CoefficientCombineRule`:
//! - k_n, k_t, c_n: the harmonic mean 2 a b/(a + b), 0 when either is 0 (MercuryDPM's
//!   `BaseSpecies::average`): two springs in series, scaled so that a material against itself
//!   keeps its own law;
//! - μ: the arithmetic mean (a + b)/2 (rapier's default `CoefficientCombineRule::Average`, the
//!   spheres' `laws::mixing::mix_mean`).
//!
//! Mixed in f64 from the f32 values and rounded once: a material with itself gives its own law
//! bit for bit (2a²/(2a) and (a + a)/2 are exact), so a one-material scene is the old `[contact]`.

use super::layout::ContactLaw;

/// Harmonic mean 2ab/(a + b) of two stiffnesses or dashpots; 0 when either is 0.
pub fn harmonic_mean(a: f32, b: f32) -> f32 {
    let (a, b) = (a as f64, b as f64);
    if a == 0.0 || b == 0.0 {
        0.0
    } else {
        (2.0 * (a * b) / (a + b)) as f32
    }
}

/// Arithmetic mean (a + b)/2 of two friction coefficients.
pub fn arithmetic_mean(a: f32, b: f32) -> f32 {
    (0.5 * (a as f64 + b as f64)) as f32
}

/// The law of a contact between materials `a` and `b` (symmetric): the module's mixing rule.
pub fn mix(a: &ContactLaw, b: &ContactLaw) -> ContactLaw {
    ContactLaw {
        k_n: harmonic_mean(a.k_n, b.k_n),
        k_t: harmonic_mean(a.k_t, b.k_t),
        mu: arithmetic_mean(a.mu, b.mu),
        c_n: harmonic_mean(a.c_n, b.c_n),
    }
}

/// The table of every ordered pair of `materials`, row-major (entry a·n + b).
pub fn law_table(materials: &[ContactLaw]) -> Vec<ContactLaw> {
    materials
        .iter()
        .flat_map(|a| materials.iter().map(move |b| mix(a, b)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_material_with_itself_keeps_its_law_bit_for_bit() {
        // Awkward f32 values (no short binary expansion), also subnormal-free extremes.
        for v in [1.0f32, 0.1, 3.3e-7, 7.77e5, 1.0e30, 123.456, f32::MIN_POSITIVE] {
            let law = ContactLaw {
                k_n: v,
                k_t: 0.37 * v,
                mu: v.min(2.0),
                c_n: 1.1 * v,
            };
            assert_eq!(mix(&law, &law), law, "{v}");
        }
    }

    #[test]
    fn two_materials_mix_by_the_stated_rule() {
        let a = ContactLaw {
            k_n: 100.0,
            k_t: 10.0,
            mu: 0.2,
            c_n: 0.0,
        };
        let b = ContactLaw {
            k_n: 300.0,
            k_t: 30.0,
            mu: 0.6,
            c_n: 4.0,
        };
        let m = mix(&a, &b);
        // 2·100·300/400 = 150, 2·10·30/40 = 15, (0.2 + 0.6)/2 = 0.4; a dashpot-free side: none.
        assert_eq!((m.k_n, m.k_t, m.mu, m.c_n), (150.0, 15.0, 0.4, 0.0));
        assert_eq!(mix(&b, &a), m);
        let t = law_table(&[a, b]);
        assert_eq!(t, vec![a, m, m, b]);
    }
}
