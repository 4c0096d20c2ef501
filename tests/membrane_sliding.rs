//! Issue 25, validation 1 (the paper's friction test, §3.2 and its figure): a grain pressed on a
//! flat membrane by gravity and dragged across it, rotation suppressed. With patches the height
//! and the friction force are constant (relative fluctuation below 1e-3 over 3 patch sides,
//! across faces, edges and the Table 1 hand-overs); with vertex particles (MSS_particle) both
//! oscillate, by more than ten times as much.

use softdem::membrane::cases::{relative_fluctuation, sliding};
use softdem::membrane::MembraneContact;

#[test]
fn a_grain_slides_smoothly_on_patches_and_bumps_over_particles() {
    let (g, v, dist, dt) = (9.81, 0.02, 4e-3, 1e-5);
    let patch = sliding(MembraneContact::Patches, g, v, dist, dt);
    let part = sliding(MembraneContact::Particles, g, v, dist, dt);
    // Skip the first quarter: the tangential spring loads until it slips.
    let tail = |s: &[f64]| s[s.len() / 4..].to_vec();
    let fp = relative_fluctuation(&tail(&patch.friction));
    let fq = relative_fluctuation(&tail(&part.friction));
    let zp =
        tail(&patch.z).iter().fold(f64::MIN, |a, &b| a.max(b)) - tail(&patch.z).iter().fold(f64::MAX, |a, &b| a.min(b));
    let zq =
        tail(&part.z).iter().fold(f64::MIN, |a, &b| a.max(b)) - tail(&part.z).iter().fold(f64::MAX, |a, &b| a.min(b));
    let mu_p = tail(&patch.friction).iter().sum::<f64>() / tail(&patch.normal).iter().sum::<f64>();
    println!("patches: friction fluctuation {fp:.2e}, height range {zp:.2e} m, F_t/F_n = {mu_p:.4}");
    println!("particles: friction fluctuation {fq:.2e}, height range {zq:.2e} m");
    assert!(fp < 1e-3, "friction with patches fluctuates by {fp:.2e}");
    // Sliding: −F_t/F_n = the mean μ of grain (0.25) and membrane (1.2).
    assert!((mu_p + 0.725).abs() < 0.01 * 0.725, "F_t/F_n = {mu_p}");
    assert!(zp < 1e-8, "height with patches varies by {zp:.2e} m");
    assert!(
        fq > 10.0 * fp && zq > 100.0 * zp.max(1e-10),
        "particles do not oscillate"
    );
}
