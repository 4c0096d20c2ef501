//! 3D spheres (issue 23): the sphere kind's records, position precision, law table per material
//! pair, contact geometry, plane walls, 3D cell list (CPU and GPU), the CPU and GPU steppers,
//! and packings to start from (lattices, random packings, CSV files: `generators`). No run
//! loop, scenario section or CLI path yet: those come with the shared driver of issue 22.
//! The force laws themselves live in `crate::laws`; WGSL twins in `shaders/sphere_*.wgsl`.
//! Model, equations and choices: docs/spheres.md.

pub mod backend;
pub mod bench_run;
pub mod bench_scene;
pub mod cell_list;
pub mod cell_order;
pub mod contact;
pub mod cpu_stepper;
pub mod extra_force;
pub mod generators;
pub mod gpu_cell_list;
pub mod gpu_contact;
pub mod gpu_pass;
pub mod gpu_rebuild;
pub mod gpu_stepper;
pub mod observables;
pub mod pair_lanes;
pub mod pair_law;
pub mod precision;
pub mod state;
pub mod wall;
pub mod wall_reduce;

pub use contact::{ContactGeometry, ContactHistory, PairForce};
pub use pair_law::{PairLaw, SphereMaterial};
pub use state::{SphereForce, SphereParams, SphereState};
pub use wall::{box_walls, PlaneWall, WALL_CYLINDER, WALL_PLANE, WALL_SERVO};
