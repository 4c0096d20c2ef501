//! Diametric compression of a cubic-lattice bead sphere between two eq-6 planes (validation 3,
//! CI size: n = 6, 895 beads, CPU): the two plate forces agree, the force barely changes (3 %)
//! when the plates are then held (quasi-static loading), the force grows
//! with δ while the plates advance, and the stresses under the contact are compressive along z
//! with the largest |σ1 − σ3|/2 below the surface bead. The Hertz fit (reported, not asserted:
//! the cut's pole facet dominates at this size, docs/beads.md) is printed.

use softdem::beads::scenes::{compression_scene, hertz_fit, run_compression, BeadRun};
use softdem::beads::stress::{axis_shear_profile, bead_stress};
use softdem::validation::beads_sphere::spec;

#[test]
fn lattice_sphere_compression_is_balanced_and_monotone() {
    let sp = spec(6.0);
    let (scene, body) = compression_scene(&sp);
    assert_eq!(scene.states.len(), 895);
    let r = body.outer_radius;
    let steps = (sp.stop_time(r) / sp.dt).ceil() as usize;
    let mut run = BeadRun::cpu(scene);
    let s = run_compression(&mut run, None, steps, steps / 50).unwrap();
    let last = *s.last().unwrap();
    // Held for another quarter of the loading time: a quasi-static loading leaves the force
    // within 3 % (the dashpot damps the ringing).
    let held = run_compression(&mut run, None, steps / 4, steps / 40).unwrap();
    let mean_held = held.iter().map(|h| h.force()).sum::<f64>() / held.len() as f64;
    println!("force at the stop {:.4e} N, held {mean_held:.4e} N", last.force());
    assert!((mean_held / last.force() - 1.0).abs() < 0.03);
    assert!(
        (last.delta / (2.0 * r) - 0.1).abs() < 1e-3,
        "δ/2R = {}",
        last.delta / (2.0 * r)
    );
    let balance = (last.f_top - last.f_bottom).abs() / last.force();
    println!("F = {:.4e} N at δ/2R = 10 %, balance {balance:.2e}", last.force());
    assert!(balance < 0.03);
    // Monotone loading (the weak dashpot keeps ringing below 5 % of the force).
    for w in s.windows(2).filter(|w| w[0].force() > 0.2 * last.force()) {
        assert!(w[1].force() > 0.95 * w[0].force(), "{w:?}");
    }
    let (_, e) = hertz_fit(&s, 0.02 * 2.0 * r, 0.1 * 2.0 * r, r, 0.25);
    println!("Hertz fit E = {:.3e} Pa (eq 5: 4e7)", e);
    // Stress: the column under the top contact is in compression along z.
    let forces = run.measured(None);
    let t = forces.time(sp.dt as f32);
    let l = sp.body.spacing;
    let states = run.states(None);
    let sig = bead_stress(&states, &forces, t, l * l * l);
    let centre = states
        .iter()
        .position(|st| st.position().iter().all(|x| x.abs() < 0.1 * l))
        .unwrap();
    assert!(sig[centre][2][2] < 0.0, "σzz at the centre {}", sig[centre][2][2]);
    let z_top = forces.planes[0].point_at(t)[2];
    let prof: Vec<(f64, f64)> = axis_shear_profile(&states, &forces, t, l * l * l, [0.0, 0.0], 0.5 * l, z_top)
        .into_iter()
        .filter(|p| p.0 < r)
        .collect();
    println!("shear on the axis: {prof:?}");
    let k = (0..prof.len())
        .max_by(|&a, &b| prof[a].1.total_cmp(&prof[b].1))
        .unwrap();
    assert!(k > 0, "the largest shear lies below the surface bead");
}

/// Validation 3's question (is the lattice sphere's high Hertz modulus a defect?): the n = 12
/// lattice sphere (7,123 beads, CPU) fitted by eq 1 through the origin over δ/2R = 2–10 % gives
/// what the continuum of E = 2.5 k/l, ν = 0.25 with the lattice's pole facet (a sphere of
/// radius sqrt(n² − 1) l truncated by a disc of radius sqrt(2n − 2) l, Sneddon's solution,
/// `beads::facet`) gives under the same fit, within 6 % (measured +4 %): far above E (2.2 E),
/// falling with n as 1/n (`facet::tests`), so the lattice is the continuum of eq 5 and the
/// departure from 40 MPa is the facet's, not the bonds'.
#[test]
fn lattice_sphere_fit_is_the_facetted_continuum() {
    use softdem::beads::facet::facet_fit_ratio;
    let sp = spec(12.0);
    let (scene, body) = compression_scene(&sp);
    assert_eq!(scene.states.len(), 7123);
    let r = body.outer_radius;
    let steps = (sp.stop_time(r) / sp.dt).ceil() as usize;
    let mut run = BeadRun::cpu(scene);
    let s = run_compression(&mut run, None, steps, steps / 100).unwrap();
    let (_, e) = hertz_fit(&s, 0.02 * 2.0 * r, 0.1 * 2.0 * r, r, 0.25);
    let (measured, model) = (e / 40e6, facet_fit_ratio(12.0, 0.02, 0.10));
    println!("n = 12: E_fit/E = {measured:.4} (lattice), {model:.4} (facetted continuum)");
    assert!(model > 2.0, "{model}");
    assert!(
        (measured / model - 1.0).abs() < 0.06,
        "lattice {measured} vs continuum {model}"
    );
}

/// The paper's 137,059-bead sphere (n = 32) compressed to δ/2R = 10 % on the CPU (~20,000 steps,
/// about 20 min on this 2-core machine): prints the Hertz fit and the shear depth. Not in CI:
/// `cargo test --release --test beads_compression -- --ignored --nocapture`.
#[test]
#[ignore = "the paper's 137,059-bead sphere: ~20–40 min on 2 cores; run by hand with --ignored"]
fn paper_sphere_137059_beads() {
    let t0 = std::time::Instant::now();
    let f = softdem::validation::beads_sphere::compress(None, &spec(32.0)).unwrap();
    println!(
        "{f:?}, E/40 MPa = {:.4}, {:.0} s",
        f.young / 40e6,
        t0.elapsed().as_secs_f64()
    );
    assert_eq!(f.beads, 137_059);
}

/// Validation 6 at the paper's size (CPU, ~2 min with the h/r sweep): prints the ratios.
/// `cargo test --release --test beads_compression -- --ignored --nocapture core_shell`.
#[test]
#[ignore = "prints the paper-size core–shell ratios and h/r sweep (~2 min); `softdem validate` runs the rows"]
fn core_shell_ratios() {
    let r = softdem::validation::beads_core_shell::run(softdem::backend::BackendKind::Cpu).unwrap();
    for c in &r.checks {
        println!("{}: {:.4} (expected {})", c.name, c.measured, c.expected);
    }
    println!("{}", r.setup);
    r.assert_all_pass();
}
