//! Validation rows `beads_lattice_*` (issue 24, validation 2): the moduli of the simple cubic
//! lattice with nearest-neighbour and face-diagonal springs of equal k (E = 2.5 k/l, ν = 0.25,
//! eq 5; C44 = k/l) on the interior of a 12 × 12 × 12 block under ε = 10⁻⁴ (`beads::moduli`: the
//! affine field is the interior's exact equilibrium, shown by the residual row), asserted within
//! 1 %; the disordered generator's affine (Born) E and ν in the inner ball of a sphere, reported
//! (an upper bound: a disordered network relaxes non-affinely; its relaxed moduli are the
//! `beads_disordered_relaxed_*` rows). A host computation with the CPU bond pass: the same on both
//! backends.

use super::{CaseReport, Check};
use crate::backend::BackendKind;
use crate::beads::moduli::{affine_moduli, relaxed_moduli};
use crate::beads::{build_body, BodyShape, BodySpec};

pub fn run(kind: BackendKind) -> anyhow::Result<CaseReport> {
    let start = std::time::Instant::now();
    let l = 12.5e-6;
    let spec = |shape| BodySpec {
        shape,
        spacing: l,
        k: 200.0,
        b: 0.0,
        shell: None,
        bead_mass: 1000.0 * l * l * l,
        contact_radius: 0.5 * l,
        material: 0,
        center: [0.0; 3],
    };
    let kl = 200.0 / l;
    let m = affine_moduli(&build_body(&spec(BodyShape::CubicBlock { n: [12; 3] })), 1e-4, 2.0 * l);
    // The disordered sphere measured in a ball (within 6 l of its centre), every bead on the
    // affine field: a box margin on a sphere would take in surface beads, whose virial misses
    // the bonds they lack.
    let d = relaxed_moduli(
        &build_body(&spec(BodyShape::Disordered {
            radius: 10.0 * l,
            seed: 7,
        })),
        1e-3,
        -1.0,
        6.0 * l,
    );
    let checks = vec![
        Check::relative("beads_lattice_young", m.young, 2.5 * kl, 0.01),
        Check::relative("beads_lattice_poisson", m.poisson, 0.25, 0.01),
        Check::relative("beads_lattice_c44", m.c44, kl, 0.01),
        Check::at_most("beads_lattice_interior_residual", m.residual, 0.0, 1e-3),
        Check::relative("beads_disordered_affine_young", d.young, 2.5 * kl, 1.0).reference(),
        Check::relative("beads_disordered_affine_poisson", d.poisson, 0.25, 0.2).reference(),
    ];
    Ok(CaseReport {
        case: "beads_lattice".into(),
        setup: format!(
            "cubic block 12³ (interior {} beads), disordered sphere R = 10 l (interior {} beads), k = 200 N/m, l = 12.5 µm",
            m.interior, d.interior
        ),
        checks,
        seconds: start.elapsed().as_secs_f64(),
        backend: format!("{kind:?}"),
        ..Default::default()
    })
}
