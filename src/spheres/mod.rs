//! 3D spheres: the particle kind of the 3D seed papers (multi-contact DEM, bonded beads,
//! membranes).

pub mod generators;
