//! The `beads_*` rows of `softdem validate` on the CPU: the lattice rows (fast) in CI; the
//! single-bond, sphere, disordered-sphere and relaxation rows (about 2.5 min) on demand:
//! `cargo test --release --test beads_validation_rows -- --ignored --nocapture`.

use softdem::backend::BackendKind;
use softdem::validation::{beads_disordered, beads_kv, beads_lattice, beads_relaxation, beads_sphere};

fn show(r: &softdem::validation::CaseReport) {
    for c in &r.checks {
        println!(
            "{:<40} {:>14.6e} expected {:>12.6e} ± {:.3e} {:?} pass {}",
            c.name, c.measured, c.expected, c.tolerance, c.kind, c.pass
        );
    }
    println!("{} ({:.1} s)", r.setup, r.seconds);
}

#[test]
fn lattice_rows_pass() {
    let r = beads_lattice::run(BackendKind::Cpu).unwrap();
    show(&r);
    r.assert_all_pass();
    assert_eq!(r.checks.iter().filter(|c| c.asserted()).count(), 4);
}

#[test]
#[ignore = "~2.5 min; `softdem validate` runs these rows, tests/beads_bond.rs, beads_compression.rs, beads_disordered.rs and beads_relaxation.rs assert their physics in CI"]
fn kv_and_sphere_rows_pass() {
    for r in [
        beads_kv::run(BackendKind::Cpu).unwrap(),
        beads_sphere::run(BackendKind::Cpu).unwrap(),
        beads_disordered::run(BackendKind::Cpu).unwrap(),
        beads_relaxation::run(BackendKind::Cpu).unwrap(),
    ] {
        show(&r);
        r.assert_all_pass();
    }
}
