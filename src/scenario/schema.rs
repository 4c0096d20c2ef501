//! The scenario file as written (serde structs of the TOML), before units are resolved and
//! before anything is generated. Every table rejects unknown keys; `mod.rs` turns a serde error
//! into one message with file, line, column and key.
//!
//! `ScenarioFile` collects the sections; a section read by one builder is defined in that
//! builder's file and re-exported here (`[[bodies]]`: `geometry`; `[materials]`, `[link_laws]`,
//! `[contact]`: `materials`; `[[stages]]`: `stages`; `[modal]`: `modal`; `[spheres]`:
//! `spheres`), so the builders import nothing from this file and it sits above them.
//!
//! Generators and stages are flat tables selected by `kind` (not serde enums): a flat table keeps
//! the span of every value, so a wrong type is reported at its key, and `validate_kinds` in
//! `mod.rs` reports a key that does not belong to the chosen kind.

pub use super::geometry::BodySpec;
pub use super::materials::{Contact, LinkLawSpec, MaterialSpec};
pub use super::modal::ModalSection;
pub use super::spheres::SpheresSection;
pub use super::stages::StageSpec;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A whole scenario file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Name of the run (default: the file stem); the default output directory is `out/<name>`.
    pub name: Option<String>,
    pub description: Option<String>,
    /// Free label of the unit system ("SI", "reduced", ...); all values must be consistent in it.
    pub units: Option<String>,
    #[serde(default)]
    pub simulation: Simulation,
    #[serde(default)]
    pub output: Output,
    /// Required in 2D scenarios (`ScenarioFile::contact`); absent from `[spheres]` ones.
    pub contact: Option<Contact>,
    /// `[contact_materials.NAME]`: more contact materials (the `[contact]` table is the default
    /// one); a body names its own with `contact_material`, pairs mix by `model::contact_table`.
    #[serde(default)]
    pub contact_materials: BTreeMap<String, Contact>,
    #[serde(default)]
    pub materials: BTreeMap<String, MaterialSpec>,
    #[serde(default)]
    pub link_laws: BTreeMap<String, LinkLawSpec>,
    #[serde(default)]
    pub bodies: Vec<BodySpec>,
    pub measure: Option<Measure>,
    #[serde(default)]
    pub stages: Vec<StageSpec>,
    /// `[modal]`: modal deformable bodies and their walls (`super::modal`).
    pub modal: Option<ModalSection>,
    /// `[spheres]`: 3D spheres (`super::spheres`); the scenario is then three-dimensional.
    pub spheres: Option<SpheresSection>,
}

impl ScenarioFile {
    /// `[contact]` (all zero when absent: a `[spheres]` scenario; 2D ones are checked to have it).
    pub fn contact(&self) -> &Contact {
        static NONE: Contact = Contact {
            k_n: 0.0,
            k_t: 0.0,
            mu: 0.0,
            c_n: 0.0,
        };
        self.contact.as_ref().unwrap_or(&NONE)
    }
}

/// `[simulation]`: time step, global forces and damping, run-wide limits.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Simulation {
    /// Fixed time step [time]; exclusive with `dt_fraction`.
    pub dt: Option<f64>,
    /// Time step as a fraction of the critical δt_c = sqrt(m_min/k_max) (default 0.2).
    pub dt_fraction: Option<f64>,
    /// Initial gravity [length/time²]; applied as a force m·g on every free node (a pair; a
    /// triple in a `[spheres]` scenario). Empty: none.
    #[serde(default)]
    pub gravity: Vec<f64>,
    /// Global viscous damping rate [1/time].
    #[serde(default)]
    pub viscous_damping: f64,
    /// Local non-viscous damping α (dimensionless, 0 ≤ α < 1).
    #[serde(default)]
    pub local_damping: f64,
    /// Verlet skin [length] (default a fifth of the mean segment length).
    pub skin: Option<f64>,
    /// Self-contact skips nodes closer than this along a shell (default 2).
    pub self_exclusion: Option<u32>,
    /// Steps between evaluations of stop conditions, servo control and the runaway check.
    pub check_every: Option<u64>,
    /// Cap on the total number of steps of the run.
    pub max_steps: Option<u64>,
    /// Runaway: a free node faster than this [length/time] stops the run (default ℓ̄/(4 dt), ℓ̄ the mean segment).
    pub max_speed: Option<f64>,
    /// Runaway: total kinetic energy above this [energy] stops the run (default: none).
    pub max_kinetic_energy: Option<f64>,
}

impl Default for Simulation {
    fn default() -> Self {
        toml::from_str("").expect("empty [simulation] table")
    }
}

/// `[output]`: what is written, and how often (in steps; 0 = never, except at the end).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Output {
    /// One `series.csv` row every this many steps (default 500).
    pub series_every: Option<u64>,
    /// One `frames/frame_NNNNNN.vtp` every this many steps (default 5000; 0 = last frame only).
    pub frames_every: Option<u64>,
    /// One `snapshots/*.png` every this many steps (default 0 = last only).
    pub snapshots_every: Option<u64>,
    /// `checkpoint.bin` every this many steps (default 10000) and at the end.
    pub checkpoint_every: Option<u64>,
    /// Seconds between one-line progress summaries on a terminal (default 10).
    pub summary_every: Option<f64>,
    /// Snapshot width in pixels (default 800).
    pub snapshot_width: Option<u32>,
    /// Write `plots/*.png` at the end (default true).
    pub plots: Option<bool>,
    /// Write `cells.csv` at the end: every free closed cell as a polygon in the format of a
    /// `file` body (`cell,x,y`), e.g. a deposited packing to start other runs from (default false).
    pub polygons: Option<bool>,
    /// Also a `snapshots/snapshot_NNNNNN_<stage>.png` when each stage ends (default false).
    pub stage_snapshots: Option<bool>,
    /// Encoding of the `.vtp` frames' arrays: "binary" (base64, default) or "ascii".
    pub vtk: Option<String>,
}

impl Default for Output {
    fn default() -> Self {
        toml::from_str("").expect("empty [output] table")
    }
}

/// `[measure]`: which walls bound the sample (for stress, strain and void ratio).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    pub top: Option<String>,
    pub bottom: Option<String>,
    pub left: Option<String>,
    pub right: Option<String>,
    /// Name of the stage whose start defines H0 and W0 of the strain (default: the first stage
    /// that moves a wall).
    pub strain_from: Option<String>,
}
