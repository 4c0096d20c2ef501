//! Issue 25, validation 1 (the paper's friction test, §3.2 and its figure), through the
//! validation row `membrane_sliding` (src/validation/membrane_sliding.rs): a grain pressed on a
//! flat membrane by gravity and dragged across it, rotation suppressed. With patches the height
//! and the friction force are constant (friction fluctuation ≤ 1e-3 over three patch sides,
//! across faces, edges and Table 1 hand-overs; height range ≤ 1e-8 m; F_t/F_n = mixed μ 0.725
//! within 1 %); with vertex particles (MSS_particle) the friction oscillates by more than ten
//! times as much.

#[test]
fn a_grain_slides_smoothly_on_patches_and_bumps_over_particles() {
    let r = softdem::validation::membrane_sliding::run().unwrap();
    for c in &r.checks {
        println!(
            "{}: {:.4e} (expected {:.4e}, tolerance {:.1e}, {})",
            c.name, c.measured, c.expected, c.tolerance, c.rule
        );
    }
    r.assert_all_pass();
}
