//! The model shared by both backends: data layout, precision helpers and the scene description.

pub mod contact_table;
pub mod df32;
pub mod f8;
#[cfg(target_arch = "x86_64")]
pub(crate) mod f8_avx;
pub mod lanes;
pub mod layout;
pub mod scene;

pub use layout::*;
pub use scene::*;
