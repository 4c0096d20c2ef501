//! Issue 25, validation 4: an open membrane cylinder (Table 2 membrane, R = 25 mm, patches of
//! side ≈ 4 mm) under internal pressure expands radially by p r²/(E h) (thin shell, no axial
//! stress, ν irrelevant), within 2 %, uniformly off the rims (which carry half the pressure
//! area on full hoop springs and expand by half); bending (k^el) does not change a uniform
//! expansion (dihedral angles are scale invariant).

use softdem::membrane::cases::cylinder_under_pressure;

#[test]
fn pressurised_cylinder_expands_by_p_r2_over_e_h() {
    for (p, k_el) in [(30.0, 0.0), (60.0, 1e-6)] {
        let c = cylinder_under_pressure(0.025, 4e-3, p, k_el, 5e-6, 6000);
        let rims = [c.rings[0], c.rings[c.rings.len() - 1]].map(|d| d / c.expected);
        println!(
            "rings / p r²/(E h): {:?}",
            c.rings.iter().map(|d| d / c.expected).collect::<Vec<_>>()
        );
        // A free rim vertex carries half an interior vertex's pressure area on full hoop springs.
        assert!(rims.iter().all(|r| (r - 0.5).abs() < 0.01), "rims at {rims:?}");
        let rel = c.mean / c.expected - 1.0;
        println!(
            "p = {p} Pa, k_el = {k_el}: {} vertices, Δr = {:.6e} m, p r²/(E h) = {:.6e} m ({:+.3} %), spread {:.2e} m, speed {:.1e} m/s",
            c.n_vertices,
            c.mean,
            c.expected,
            100.0 * rel,
            c.spread,
            c.mean_speed
        );
        assert!(rel.abs() < 0.02, "Δr off by {:.3} %", 100.0 * rel);
        assert!(
            c.spread < 0.02 * c.expected,
            "non-uniform expansion: spread {:.3e}",
            c.spread
        );
        assert!(c.mean_speed.abs() * 1e-3 < 1e-3 * c.expected, "not settled");
    }
}

#[test]
fn validation_row_membrane_cylinder_passes() {
    let r = softdem::validation::membrane_cylinder::run().unwrap();
    r.assert_all_pass();
}
