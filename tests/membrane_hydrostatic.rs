//! Issue 25, validation 2 (the hydrostatic check): a random packing in a frictionless membrane
//! of patches (Table 2 otherwise) under σ_c = 100 kPa on the membrane and on the top platen: the
//! grains' mean stress (Love–Weber on the volume enclosed by membrane and platens) and each
//! platen's stress (on its rim's area) equal σ_c within 2 %, the packing at rest. This is also
//! the triaxial set-up's check that the confining stress is reached before shearing. (With the
//! membrane's friction 1.2 the figures are reported by row `membrane_hydrostatic`.)

use softdem::membrane::cases::hydrostatic;

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
    for (name, s) in [
        ("mean stress", h.mean_stress),
        ("bottom platen", h.platen_stress[0]),
        ("top platen", h.platen_stress[1]),
    ] {
        assert!(
            (s / sigma_c - 1.0).abs() < 0.02,
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
