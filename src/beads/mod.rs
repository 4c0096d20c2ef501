//! Viscoelastic solids of beads joined by Kelvin–Voigt bonds (issue 24; Sahputra, Alexiadis and
//! Adams 2020, `../shared/seeds/kelvin-voigt-bonded-beads.txt`), on the 3D sphere engine: the
//! beads are spheres of `crate::spheres`, the bonds (and, in the library scenes, the eq-6
//! planes) one extra force source (`spheres::extra_force`) on each stepper; in scenarios the
//! eq-6 planes are walls of the sphere engine (`pair_law::LAW_PLANE_REPULSION`). Laws in `crate::laws::{kelvin_voigt,
//! plane_repulsion}` with WGSL twins. Model, choices and figures: docs/beads.md.

pub mod attach;
pub mod bench;
pub mod bonds;
pub mod facet;
pub mod fits;
pub mod forces;
pub mod generators;
pub mod gpu;
pub mod layered_contact;
pub mod moduli;
pub mod scenes;
pub mod shell;
pub mod stress;

pub use bonds::{Bond, BondList, BreakEvent};
pub use forces::{BeadForces, BeadPlane, LoadProfile, PointLoad};
pub use generators::{build_body, BeadBody, BodyShape, BodySpec, Shell};

use crate::spheres::pair_law::{LawTable, PairLaw};

/// The law table for bead bodies: beads of one body do not touch each other (they interact only
/// through their bonds: bonded neighbours would otherwise also feel a contact force, and the
/// paper's LSM has none); a zero-stiffness linear law (k_n = k_t = 0, e = 1, μ = 0) gives exactly
/// zero force. `n` materials, all pairs without contact; the caller may set other pairs.
pub fn no_contact_table(n: usize) -> LawTable {
    LawTable::uniform(n, PairLaw::linear(0.0, 0.0, 1.0, 0.0))
}
