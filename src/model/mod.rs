//! The model shared by both backends: data layout, precision helpers and the scene description.

pub mod df32;
pub mod f8;
pub mod lanes;
pub mod layout;
pub mod scene;

pub use layout::*;
pub use scene::*;
