//! The scenario file as written (serde structs of the TOML), before units are resolved and
//! before anything is generated. Every table rejects unknown keys; `mod.rs` turns a serde error
//! into one message with file, line, column and key.
//!
//! Generators and stages are flat tables selected by `kind` (not serde enums): a flat table keeps
//! the span of every value, so a wrong type is reported at its key, and `validate_kinds` in
//! `mod.rs` reports a key that does not belong to the chosen kind.

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
    pub modal: Option<super::modal::ModalSection>,
    /// `[spheres]`: 3D spheres (`super::spheres`); the scenario is then three-dimensional.
    pub spheres: Option<super::spheres::SpheresSection>,
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

/// `[contact]`: the contact law between every pair of bodies (eq 5–8), the default contact
/// material; also the form of each `[contact_materials.NAME]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Contact {
    /// Normal stiffness k_n [force/length] (eq 6).
    pub k_n: f64,
    /// Tangential stiffness k_t [force/length] (eq 7).
    #[serde(default)]
    pub k_t: f64,
    /// Coulomb friction coefficient μ (eq 7–8).
    #[serde(default)]
    pub mu: f64,
    /// Normal viscous damping c_n [force·time/length].
    #[serde(default)]
    pub c_n: f64,
}

/// `[materials.NAME]`: a shell and core material, given one of three ways (see docs/scenarios.md).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialSpec {
    // Raw stiffnesses.
    pub k_s: Option<f64>,
    pub k_b: Option<f64>,
    pub k_core: Option<f64>,
    pub f_s_yield: Option<f64>,
    pub m_b_yield: Option<f64>,
    pub c_s: Option<f64>,
    pub c_b: Option<f64>,
    // Physical parameters (eq 11–14).
    pub young: Option<f64>,
    pub poisson: Option<f64>,
    pub thickness: Option<f64>,
    pub yield_stress: Option<f64>,
    // Dimensionless ratios (eq 19–27).
    pub xi: Option<f64>,
    pub eta: Option<f64>,
    pub gamma: Option<f64>,
    // Reference ring for ℓ = 2R sin(π/N).
    pub radius: Option<f64>,
    pub nodes: Option<u32>,
    /// Out-of-plane depth s [length] (default 1).
    pub depth: Option<f64>,
    /// Mass of one node [mass]; exclusive with `cell_mass`.
    pub node_mass: Option<f64>,
    /// Mass of one body [mass], shared equally by its nodes.
    pub cell_mass: Option<f64>,
}

/// `[link_laws.NAME]`: a cohesive link law (§7, eq 41) used by `tissue` bodies. Forces in the
/// paper's sign convention (compression positive): the tensile threshold `f_n0` is < 0; a
/// positive `tensile_strength` may be given instead (f_n0 = −tensile_strength).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkLawSpec {
    /// Normal stiffness k_n [force/length].
    pub k_n: f64,
    /// Tangential stiffness k_t [force/length] (default 0.1 k_n).
    pub k_t: Option<f64>,
    /// Tensile threshold f_n^0 [force] (< 0); exclusive with `tensile_strength`.
    pub f_n0: Option<f64>,
    /// Tensile threshold as a positive force [force]: f_n^0 = −tensile_strength.
    pub tensile_strength: Option<f64>,
    /// Shear threshold f_t^0 [force] (> 0).
    pub f_t0: f64,
    /// Exponent α of eq 41 (default 2).
    pub alpha: Option<f64>,
    /// Energy criterion: critical stored energy per unit interface length [energy/length]
    /// (default: none).
    pub g_c: Option<f64>,
}

/// `[[bodies]]`: one geometry generator, selected by `kind`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BodySpec {
    /// ring | packing | box | wall | beam | file | tissue
    pub kind: String,
    /// Name used by `[measure]` and stages (a box adds `.bottom`, `.top`, `.left`, `.right`).
    pub name: Option<String>,
    pub material: Option<String>,
    pub center: Option<[f64; 2]>,
    pub radius: Option<f64>,
    pub nodes: Option<u32>,
    pub count: Option<u64>,
    pub spread: Option<f64>,
    pub min: Option<[f64; 2]>,
    pub max: Option<[f64; 2]>,
    pub seed: Option<u64>,
    pub gap: Option<f64>,
    /// `packing`: "random" (random sequential addition, default) or "drop" (drop and roll).
    pub placement: Option<String>,
    pub half_thickness: Option<f64>,
    pub core: Option<String>,
    pub p0: Option<f64>,
    pub self_contact: Option<bool>,
    pub a: Option<[f64; 2]>,
    pub b: Option<[f64; 2]>,
    pub segment: Option<f64>,
    pub clamp: Option<String>,
    pub clamp_nodes: Option<u32>,
    pub path: Option<String>,
    /// `file`: each polygon is scaled by this factor about its vertex centroid (default 1), e.g.
    /// 0.999 to clear the contact overlaps of a packing written by `[output] polygons`.
    pub scale: Option<f64>,
    pub velocity: Option<[f64; 2]>,
    // Tissue (§7): box [0, size_x] × [0, size_y] and the keys of `tissue::TissueSpec`.
    pub size: Option<[f64; 2]>,
    pub jitter: Option<f64>,
    pub minkowski_radius: Option<f64>,
    pub link_law: Option<String>,
    /// `[contact_materials.NAME]` of every body this entry makes (any kind; default `[contact]`).
    pub contact_material: Option<String>,
    pub wall_link_law: Option<String>,
    pub bond_walls: Option<bool>,
    pub side_walls: Option<bool>,
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

/// `[[stages]]`: one loading stage, selected by `kind`, with its stop condition.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StageSpec {
    /// deposit | gravity | move_wall | hold | unload | servo | force
    pub kind: String,
    pub name: Option<String>,
    // Stop conditions (the first one met ends the stage).
    pub steps: Option<u64>,
    pub time: Option<f64>,
    pub ke_below: Option<f64>,
    pub strain: Option<f64>,
    pub stress: Option<f64>,
    pub displacement: Option<f64>,
    pub tolerance: Option<f64>,
    /// Ends the stage when its wall first carries a contact force (first contact); only `true`.
    pub touch: Option<bool>,
    pub min_steps: Option<u64>,
    pub max_steps: Option<u64>,
    // What the stage does.
    /// A pair (x, y); a triple in a `[spheres]` scenario.
    pub gravity: Option<Vec<f64>>,
    pub wall: Option<String>,
    /// A pair (x, y); a triple in a `[spheres]` scenario.
    pub velocity: Option<Vec<f64>>,
    pub target_stress: Option<f64>,
    pub gain: Option<f64>,
    pub max_speed: Option<f64>,
    pub target: Option<String>,
    pub nodes: Option<Vec<i64>>,
    pub force: Option<[f64; 2]>,
    pub total_force: Option<[f64; 2]>,
    pub persist: Option<bool>,
    /// σ_c of the membrane (`[spheres.membrane]`) at the end of `ramp_time` (then held).
    pub confining_pressure: Option<f64>,
    /// Time over which σ_c goes linearly to `confining_pressure` (default 0: at once).
    pub ramp_time: Option<f64>,
}
