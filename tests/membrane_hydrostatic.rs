//! Issue 25, validation 2 (the hydrostatic check): a random packing in a frictionless membrane
//! of patches (Table 2 otherwise) under σ_c = 100 kPa on the membrane and on the top platen: the
//! grains' mean stress (Love–Weber on the volume enclosed by membrane and platens) and σ_p (the
//! mean of the platens' stresses, each on its rim's area) equal σ_c within 2 %, the packing at
//! rest, no grain escaped; each platen within 3 % (they differ by ~2 %: the membrane's axial load
//! at the rims). This is also the triaxial set-up's check that the confining stress is reached
//! before shearing. With Table 2's membrane friction 1.2 the row `membrane_hydrostatic` asserts
//! no escape, the mean stress and σ_p (the test below runs the row).

use softdem::membrane::hydrostatic::hydrostatic;

#[test]
fn membrane_enclosed_packing_carries_sigma_c() {
    let sigma_c = 1e5;
    let h = hydrostatic(sigma_c, 0.0, 40.0);
    println!(
        "{} grains (λ {:.4}, φ {:.3}, h {:.3} mm), {} vertices: mean stress {:.1} Pa, platens {:.1} / {:.1} Pa, V {:.4e} m³, max speed {:.2e} m/s",
        h.n_grains,
        h.packing.scale,
        h.packing.solid_fraction,
        h.packing.height * 1e3,
        h.n_vertices,
        h.mean_stress,
        h.platen_stress[0],
        h.platen_stress[1],
        h.volume,
        h.max_speed
    );
    // Jammed when grown (λ < 1) and at rest at the end.
    assert!(h.packing.scale < 1.0, "packing not jammed when grown");
    assert!(h.max_speed < 1e-2, "not at rest: {:.3e} m/s", h.max_speed);
    assert_eq!(h.escaped, 0, "grains left the cell through the membrane");
    let sigma_p = 0.5 * (h.platen_stress[0] + h.platen_stress[1]);
    for (name, s, tol) in [
        ("mean stress", h.mean_stress, 0.02),
        ("σ_p", sigma_p, 0.02),
        ("bottom platen", h.platen_stress[0], 0.03),
        ("top platen", h.platen_stress[1], 0.03),
    ] {
        assert!(
            (s / sigma_c - 1.0).abs() < tol,
            "{name}: {s:.1} Pa vs σ_c = {sigma_c} Pa"
        );
    }
}

#[test]
fn validation_row_membrane_hydrostatic_passes() {
    softdem::validation::membrane_hydrostatic::run()
        .unwrap()
        .assert_all_pass();
}
