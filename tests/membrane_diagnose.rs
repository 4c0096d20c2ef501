//! Issue 25, the probes of `membrane::diagnose` (docs/membrane.md, "Why the curves differ at
//! small strain") checked on the hydrostatic cell (110 grains in a frictionless membrane of
//! patches, σ_c = 100 kPa, 10 ms held) at rest, against what statics requires:
//! - the grains' axial balance: bottom platen + top platen + the membrane's axial force (all
//!   bands) = 0 (1 % of the platen force): the probe sees every external force on the grains;
//! - the trace of the cylindrical stress tensor is 3 × the row's Love–Weber mean stress (same
//!   contacts, same V: 1e-6);
//! - the membrane's radial stress (virial of its contact forces) equals σ_c within 3 %: the
//!   patches carry the pressure at the contact points (the MSS_patch surface is the grains'),
//!   and each stress component of the grains equals σ_c within 5 % (isotropic confinement);
//! - the membrane's axial balance: the grains' axial force on it, the caps' axial force on it
//!   through the rims (`rims::cap_axial_force`, what a load cell on a cap sealed to the membrane
//!   reads besides the grains) and σ_c's net axial force on the open tube, σ_c (A_top − A_bottom)
//!   (the rims' polygons), sum to 0 (1 % of the platen force): the reaction is the cap's share.

use softdem::membrane::diagnose::probe;
use softdem::membrane::hydrostatic::hydrostatic_cell;
use softdem::membrane::rims::cap_axial_force;

#[test]
fn probes_of_the_hydrostatic_cell_close_the_force_balance() {
    let sigma_c = 1e5;
    let (cell, _) = hydrostatic_cell(sigma_c, 0.0, 10.0);
    let p = probe(&cell);
    println!("{p:?}");
    let fz: f64 = p.membrane_axial_force.iter().sum();
    let balance = p.platen_force[0] + p.platen_force[1] + fz;
    println!(
        "platens {:.3} / {:.3} N, membrane {:.3} N (bands {:?}): balance {:.2e} N",
        p.platen_force[0], p.platen_force[1], fz, p.membrane_axial_force, balance
    );
    assert!(
        p.platen_force[0] > 0.0 && p.platen_force[1] < 0.0,
        "platens push the grains"
    );
    assert!(
        balance.abs() < 0.01 * p.platen_force[0],
        "axial balance of the grains: {balance:.3e} N"
    );
    let trace = p.grain_stress.iter().sum::<f64>();
    let mean = cell.sample().mean_stress;
    assert!(
        (trace / 3.0 - mean).abs() < 1e-6 * mean,
        "trace/3 {:.3} Pa vs Love–Weber {mean:.3} Pa",
        trace / 3.0
    );
    let rel = |s: f64| (s - sigma_c).abs() / sigma_c;
    assert!(
        rel(p.membrane_radial_stress) < 0.03,
        "membrane radial stress {:.1} Pa",
        p.membrane_radial_stress
    );
    for (k, s) in p.grain_stress.iter().enumerate() {
        assert!(rel(*s) < 0.05, "grain stress component {k}: {s:.1} Pa");
    }
    assert!(p.membrane_contacts > 0 && p.grains_on_membrane > 0);

    // The membrane's axial balance with the caps' reactions (sliding rims, no faces here).
    let sp = &cell.sys.spheres;
    let caps = cap_axial_force(&sp.states, &sp.forces, &sp.walls, &cell.rims);
    let s = cell.sample();
    let pressure_z = sigma_c * (s.rim_area[1] - s.rim_area[0]);
    let membrane = -fz + caps[0] + caps[1] + pressure_z;
    println!(
        "membrane: grains {:.3} N, caps {:.3} / {:.3} N, σ_c ΔA {:.3} N: balance {:.2e} N",
        -fz, caps[0], caps[1], pressure_z, membrane
    );
    assert_eq!(
        caps,
        s.cap_membrane_force.to_vec(),
        "the sample's caps' force is the function's"
    );
    assert!(
        membrane.abs() < 0.01 * p.platen_force[0],
        "axial balance of the membrane: {membrane:.3e} N"
    );
    assert!(
        caps[0].abs() > 10.0 * membrane.abs(),
        "the rims carry axial load here ({:.3} N): the check can fail",
        caps[0]
    );
}
