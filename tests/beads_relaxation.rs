//! Validation 5 (issue 24; the paper's Fig. 10) at CI size, CPU. (1) The analytic limit: one
//! Kelvin–Voigt bond behind an eq-6 plate that advances, then is held (a standard linear solid:
//! the plate in series with the KV bond), against the f64 RK4 of its ODE, the exact F∞ and the
//! linearised late relaxation time b / (k + 2 S p∞). (2) The lattice sphere n = 6 (895 beads) with
//! the paper's k = 200 N/m and b = 10⁻⁶ N s/m, compressed to δ/2R = 10 % and held: the two-term
//! Prony fit gives E0 > E∞ and F∞ within 2 % of the elastic sphere's force at the same δ
//! (validation 3's sphere, held); the viscous part of the loading force is within 10 % of the
//! massless KV-network limit τ dF_el/dt.

use softdem::validation::beads_relaxation::{
    bond_relaxation, bond_tau, bond_u_inf, elastic_reference, sphere_checks, sphere_relaxation, viscous_excess, HOLD,
};

#[test]
fn one_kv_bond_behind_a_plate_relaxes_to_its_analytic_limit() {
    let b = bond_relaxation(None, 1e-5, 12.0).unwrap();
    println!("{b:?}; u∞ = {:.6} m, τ = {:.6} s", bond_u_inf(), bond_tau());
    assert!((bond_u_inf() - (3.0 - 5f64.sqrt()) / 2.0).abs() < 1e-12);
    assert!(b.f_inf_error.abs() < 1e-3, "F∞ off by {}", b.f_inf_error);
    assert!(b.history_error < 1e-3, "history off the RK4 by {} F∞", b.history_error);
    assert!(
        (b.tau / bond_tau() - 1.0).abs() < 0.01,
        "τ = {} vs {}",
        b.tau,
        bond_tau()
    );
    assert!(b.overshoot > 1.05, "no relaxation: F(stop)/F∞ = {}", b.overshoot);
}

#[test]
fn viscoelastic_sphere_relaxes_to_the_elastic_force() {
    let s = sphere_relaxation(None, 6.0, HOLD, 400).unwrap();
    let (el_loading, elastic) = elastic_reference(None, 6.0).unwrap();
    let (excess, limit) = viscous_excess(&s, &el_loading);
    println!(
        "{:?}\nE0/E∞ − 1 = {:.4}; viscous excess {excess:.4} (massless limit {limit:.4}); F∞ = {:.5e} N, elastic {elastic:.5e} N",
        s.prony,
        s.e0 / s.e_inf - 1.0,
        s.prony.f_inf
    );
    assert_eq!(s.beads, 895);
    for c in sphere_checks(&s, &el_loading, elastic) {
        println!(
            "{:<36} {:>12.5e} expected {:>12.5e} ± {} pass {}",
            c.name, c.measured, c.expected, c.tolerance, c.pass
        );
        assert!(!c.fails(), "{c:?}");
    }
}
