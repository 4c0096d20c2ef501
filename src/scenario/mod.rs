//! Scenario files: a TOML description of a simulation (materials, geometry, loading stages,
//! outputs) → a validated `Scenario` with units resolved → `Built` (the `Scene` plus the stage
//! list the driver runs). Every problem is reported once, as
//! ``FILE:LINE:COLUMN: key `PATH`: message``.
//!
//! Documented key by key in `docs/scenarios.md`.

// `!(x > 0.0)` on purpose: NaN must fail these checks too.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod beads;
pub mod coupled;
pub mod deposit;
pub mod geometry;
pub mod materials;
pub mod membrane;
pub mod modal;
pub mod schema;
pub mod spans;
pub mod spheres;
pub mod stages;
pub mod tissue;

use crate::model::{Scene, TimeStep};
use geometry::Geometry;
use materials::ResolvedMaterial;
use schema::ScenarioFile;
use spans::SpanIndex;
use stages::{MeasureWalls, Stage};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The embedded default scenario (`softdem run` without a file): a small compaction demo.
pub const DEFAULT_SCENARIO: &str = include_str!("../../scenarios/default.toml");

/// A problem found while resolving a scenario, at a key path (`bodies[2].radius`; "" = the file).
#[derive(Clone, Debug)]
pub struct Problem {
    pub path: String,
    pub message: String,
}

impl Problem {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// A malformed scenario: where (file, line, column, key) and what.
#[derive(Clone, Debug)]
pub struct ScenarioError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub key: Option<String>,
    pub message: String,
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}: ", self.file, self.line, self.column)?;
        if let Some(k) = &self.key {
            write!(f, "key `{k}`: ")?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// Run-wide settings of `[simulation]` and `[output]`, with defaults applied.
#[derive(Clone, Debug)]
pub struct Settings {
    pub check_every: u64,
    pub max_steps: Option<u64>,
    pub max_speed: Option<f64>,
    pub max_kinetic_energy: Option<f64>,
    /// (x, y, 0) in 2D scenarios.
    pub gravity: [f64; 3],
    pub series_every: u64,
    pub frames_every: u64,
    pub snapshots_every: u64,
    pub checkpoint_every: u64,
    pub summary_every: f64,
    pub snapshot_width: u32,
    pub plots: bool,
    /// Write `cells.csv` (the cells as polygons, `file` format) at the end.
    pub polygons: bool,
    /// A snapshot when each stage ends.
    pub stage_snapshots: bool,
    /// `[output] vtk`: the frames' arrays as ASCII text instead of base64 binary.
    pub vtk_ascii: bool,
}

/// A parsed and validated scenario file (materials resolved; nothing generated yet).
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    /// The file as named in messages.
    pub origin: String,
    /// Directory that relative paths (polygon files) are resolved against.
    pub base_dir: PathBuf,
    /// The text the spans refer to.
    pub text: String,
    /// Normalised TOML (relative paths made absolute): what `out/<name>/scenario.toml` holds
    /// and what the checkpoint hash covers.
    pub canonical: String,
    pub hash: u64,
    pub file: ScenarioFile,
    pub spans: SpanIndex,
    /// Materials by name, with their index in the `Scene`'s material table.
    pub materials: BTreeMap<String, (u32, ResolvedMaterial)>,
    /// Cohesive link laws by name (`[link_laws.NAME]`).
    pub link_laws: BTreeMap<String, crate::model::LinkLaw>,
    pub settings: Settings,
}

/// A scenario built into a scene: what the driver runs.
#[derive(Clone, Debug)]
pub struct Built {
    pub scene: Scene,
    pub geometry: Geometry,
    pub measure: MeasureWalls,
    pub stages: Vec<Stage>,
    /// Index of the stage whose start defines H0, W0 of the strain (`[measure] strain_from`).
    pub strain_from: Option<usize>,
    pub settings: Settings,
    /// σ* = F*/(2Rs) (eq 39) of the first cell's material, when it has a reference ring.
    pub sigma_star: Option<f64>,
    /// 2, or 3 for `[spheres]` scenarios (vectors of stages and gravity are then triples, and
    /// the vertical axis of `[measure]` is z).
    pub dimension: u32,
}

/// A pair or triple of the file as (x, y, z) (z = 0 for a pair; empty = zero).
pub fn vector3(v: &[f64]) -> [f64; 3] {
    [
        v.first().copied().unwrap_or(0.0),
        v.get(1).copied().unwrap_or(0.0),
        v.get(2).copied().unwrap_or(0.0),
    ]
}

/// FNV-1a, 64 bit (the scenario hash stored in checkpoints).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Scenario {
    /// Loads and validates a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        Self::load_with_overrides(path, &[])
    }

    /// As `load`, with key paths replaced first (sweeps).
    pub fn load_with_overrides(path: &Path, overrides: &[(String, toml::Value)]) -> Result<Scenario, ScenarioError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
            file: origin.clone(),
            line: 0,
            column: 0,
            key: None,
            message: format!("cannot read the scenario: {e}"),
        })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("scenario")
            .to_string();
        Self::from_text(&text, &origin, &base, &stem, overrides)
    }

    /// The embedded default scenario.
    pub fn default_scenario() -> Scenario {
        Self::from_text(
            DEFAULT_SCENARIO,
            "<embedded default.toml>",
            Path::new("."),
            "default",
            &[],
        )
        .expect("the embedded default scenario is valid")
    }

    /// Parses scenario text; `origin` names it in messages, `stem` is the default name.
    pub fn from_text(
        text: &str,
        origin: &str,
        base_dir: &Path,
        stem: &str,
        overrides: &[(String, toml::Value)],
    ) -> Result<Scenario, ScenarioError> {
        let (text, origin) = if overrides.is_empty() {
            (text.to_string(), origin.to_string())
        } else {
            let mut doc: toml::Value = toml::Value::Table(
                toml::from_str::<toml::Table>(text).map_err(|e| toml_error(origin, text, None, &e))?,
            );
            for (k, v) in overrides {
                set_value_path(&mut doc, k, v.clone()).map_err(|m| ScenarioError {
                    file: origin.to_string(),
                    line: 0,
                    column: 0,
                    key: Some(k.clone()),
                    message: m,
                })?;
            }
            (
                toml::to_string(&doc).expect("a TOML table serialises"),
                format!("{origin} (with sweep values)"),
            )
        };
        let spans = SpanIndex::new(&text).map_err(|e| toml_error(&origin, &text, None, &e))?;
        let file: ScenarioFile = toml::from_str(&text).map_err(|e| toml_error(&origin, &text, Some(&spans), &e))?;
        let at = |p: Problem| locate(&origin, &spans, p);
        check_kinds(&spans, &file).map_err(at)?;
        // Vectors are pairs (x, y), or triples in a 3D ([spheres]) scenario for the keys that
        // stages and gravity share with it; serde would silently drop a third component.
        let dim = if file.spheres.is_some() { 3 } else { 2 };
        const VEC2: &[&str] = &[
            "gravity",
            "center",
            "min",
            "max",
            "a",
            "b",
            "velocity",
            "force",
            "total_force",
            "size",
        ];
        for (path, len) in &spans.arrays {
            let last = path.rsplit('.').next().unwrap_or("");
            let shared = path == "simulation.gravity"
                || (path.starts_with("stages[") && (last == "gravity" || last == "velocity"));
            let want = if shared || path.starts_with("spheres.") { dim } else { 2 };
            let vector = VEC2.contains(&last) || (path.starts_with("spheres.") && spheres::VEC3.contains(&last));
            if vector && *len != want {
                return Err(at(Problem::new(
                    path.clone(),
                    if want == 3 {
                        format!("invalid length {len}, expected a triple [x, y, z]")
                    } else {
                        format!("invalid length {len}, expected a pair [x, y]")
                    },
                )));
            }
        }
        let g = &file.simulation.gravity;
        if !g.is_empty() && g.len() != dim {
            let what = if dim == 3 {
                "a triple [x, y, z]"
            } else {
                "a pair [x, y]"
            };
            return Err(at(Problem::new(
                "simulation.gravity",
                format!("invalid length {}, expected {what}", g.len()),
            )));
        }
        let mut materials = BTreeMap::new();
        for (id, (name, spec)) in file.materials.iter().enumerate() {
            materials.insert(name.clone(), (id as u32, materials::resolve(name, spec).map_err(at)?));
        }
        let mut link_laws = BTreeMap::new();
        for (name, spec) in &file.link_laws {
            link_laws.insert(name.clone(), materials::resolve_link_law(name, spec).map_err(at)?);
        }
        let sim = &file.simulation;
        let out = &file.output;
        let settings = Settings {
            check_every: sim.check_every.unwrap_or(100).max(1),
            max_steps: sim.max_steps,
            max_speed: sim.max_speed,
            max_kinetic_energy: sim.max_kinetic_energy,
            gravity: vector3(&sim.gravity),
            series_every: out.series_every.unwrap_or(500),
            frames_every: out.frames_every.unwrap_or(5000),
            snapshots_every: out.snapshots_every.unwrap_or(0),
            checkpoint_every: out.checkpoint_every.unwrap_or(10_000),
            summary_every: out.summary_every.unwrap_or(10.0),
            snapshot_width: out.snapshot_width.unwrap_or(800).clamp(64, 8192),
            plots: out.plots.unwrap_or(true),
            polygons: out.polygons.unwrap_or(false),
            stage_snapshots: out.stage_snapshots.unwrap_or(false),
            vtk_ascii: match out.vtk.as_deref().unwrap_or("binary") {
                "binary" => false,
                "ascii" => true,
                other => {
                    return Err(at(Problem::new(
                        "output.vtk",
                        format!("vtk = \"{other}\": expected \"binary\" or \"ascii\""),
                    )))
                }
            },
        };
        if sim.dt.is_some() && sim.dt_fraction.is_some() {
            return Err(at(Problem::new(
                "simulation.dt_fraction",
                "give either dt or dt_fraction, not both",
            )));
        }
        for (key, v) in [
            ("simulation.dt", sim.dt),
            ("simulation.dt_fraction", sim.dt_fraction),
            ("simulation.skin", sim.skin),
            ("simulation.max_speed", sim.max_speed),
        ] {
            if let Some(x) = v {
                if !(x > 0.0) {
                    return Err(at(Problem::new(
                        key,
                        format!("{} = {x} must be > 0", key.rsplit('.').next().unwrap()),
                    )));
                }
            }
        }
        for (key, x) in [
            ("simulation.viscous_damping", sim.viscous_damping),
            ("contact.k_t", file.contact().k_t),
            ("contact.mu", file.contact().mu),
            ("contact.c_n", file.contact().c_n),
        ] {
            if !(x >= 0.0) {
                return Err(at(Problem::new(
                    key,
                    format!("{} = {x} must be ≥ 0", key.rsplit('.').next().unwrap()),
                )));
            }
        }
        if file.contact.is_none() && file.spheres.is_none() {
            return Err(at(Problem::new(
                "contact",
                "missing field `contact`: the table [contact] with the cells' contact law (eq 5–8)",
            )));
        }
        if file.spheres.is_none() && !(file.contact().k_n > 0.0) {
            return Err(at(Problem::new(
                "contact.k_n",
                format!("k_n = {} must be > 0", file.contact().k_n),
            )));
        }
        for (name, c) in &file.contact_materials {
            check_contact_material(&format!("contact_materials.{name}"), c).map_err(at)?;
        }
        for (i, b) in file.bodies.iter().enumerate() {
            if let Some(name) = &b.contact_material {
                if !file.contact_materials.contains_key(name) {
                    let key = format!("bodies[{i}].contact_material");
                    return Err(at(unknown_contact_material(&file, key, name)));
                }
            }
        }
        if !(0.0..1.0).contains(&sim.local_damping) {
            return Err(at(Problem::new(
                "simulation.local_damping",
                "local_damping must be in [0, 1)",
            )));
        }
        // Canonical form: relative polygon paths made absolute.
        let mut doc: toml::Value = toml::Value::Table(toml::from_str::<toml::Table>(&text).expect("parsed above"));
        if let Some(bodies) = doc.get_mut("bodies").and_then(|b| b.as_array_mut()) {
            for b in bodies {
                if let Some(toml::Value::String(p)) = b.get_mut("path") {
                    let abs = base_dir.join(&*p);
                    *p = std::fs::canonicalize(&abs).unwrap_or(abs).display().to_string();
                }
            }
        }
        let canonical = toml::to_string(&doc).expect("a TOML table serialises");
        Ok(Scenario {
            name: file.name.clone().unwrap_or_else(|| stem.to_string()),
            origin,
            base_dir: base_dir.to_path_buf(),
            hash: fnv1a(canonical.as_bytes()),
            canonical,
            text,
            file,
            spans,
            materials,
            link_laws,
            settings,
        })
    }

    /// Turns a problem into an error located in this scenario's file.
    pub fn error(&self, p: Problem) -> ScenarioError {
        locate(&self.origin, &self.spans, p)
    }

    /// Nodes the generators will create (before generating them).
    pub fn planned_nodes(&self) -> Vec<u64> {
        self.file
            .bodies
            .iter()
            .map(|b| geometry::planned_nodes(b, &self.base_dir))
            .collect()
    }

    /// Checks the planned size against a GPU's limits: every per-node array must fit one storage
    /// binding. The largest per node is the node state (40 B); the neighbour list (4 entries per
    /// node at the start, 4 B each) and the slot pool are smaller.
    pub fn check_limits(&self, limits: &wgpu::Limits) -> Result<(), ScenarioError> {
        use std::mem::size_of;
        let planned = self.planned_nodes();
        let total: u64 = planned.iter().sum();
        let (what, per_node) = [
            ("a node state", size_of::<crate::model::NodeState>()),
            ("the neighbour list", 4 * size_of::<crate::model::Entry>()),
        ]
        .into_iter()
        .max_by_key(|(_, b)| *b)
        .unwrap();
        let per_node = per_node as u64;
        let limit = limits.max_storage_buffer_binding_size;
        if total.saturating_mul(per_node) > limit || total >= u32::MAX as u64 / 16 {
            let (i, _) = planned.iter().enumerate().max_by_key(|(_, n)| **n).unwrap();
            let key = if self.file.bodies[i].count.is_some() {
                "count"
            } else {
                "nodes"
            };
            return Err(self.error(Problem::new(
                format!("bodies[{i}].{key}"),
                format!(
                    "the scene would have {total} nodes; the GPU's max_storage_buffer_binding_size of {limit} bytes holds at most {} ({what} needs {per_node} bytes per node)",
                    limit / per_node
                ),
            )));
        }
        Ok(())
    }

    /// Generates the scene and resolves the stages.
    pub fn build(&self) -> Result<Built, ScenarioError> {
        self.build_with_walls(&[])
    }

    /// [`Scenario::build`] whose stages may also move the walls `more` (name, id), which join
    /// `geometry.walls` after the SPD walls: the `[[modal.walls]]` of a coupled scene
    /// (`scenario::coupled`). `[measure]` names SPD walls only.
    pub(crate) fn build_with_walls(&self, more: &[(String, u32)]) -> Result<Built, ScenarioError> {
        let at = |p: Problem| self.error(p);
        let total: u64 = self.planned_nodes().iter().sum();
        if total >= u32::MAX as u64 / 16 {
            return self.check_limits(&wgpu::Limits::default()).map(|_| unreachable!());
        }
        let sim = &self.file.simulation;
        let mut scene = Scene::default();
        for (_, (id, m)) in self.materials.iter() {
            let got = scene.add_material(m.material);
            debug_assert_eq!(got, *id);
        }
        scene.contact = contact_law_of(self.file.contact());
        // Gravity is applied by the driver as a force m·g on free nodes (it changes by stage).
        scene.gravity = [0.0, 0.0];
        scene.viscous_damping = sim.viscous_damping as f32;
        scene.local_damping = sim.local_damping as f32;
        scene.skin = sim.skin.map(|s| s as f32);
        if let Some(e) = sim.self_exclusion {
            scene.self_exclusion = Some(e);
        }
        scene.time_step = match sim.dt {
            Some(dt) => TimeStep::Fixed(dt as f32),
            None => TimeStep::FractionOfCritical(sim.dt_fraction.unwrap_or(0.2) as f32),
        };
        let mut laws = BTreeMap::new();
        for (name, law) in &self.link_laws {
            laws.insert(name.clone(), scene.add_link_law(*law));
        }
        // Contact materials 1, 2, … in name order; every body of an entry naming one uses it.
        let mut contact_ids = BTreeMap::new();
        for (name, c) in &self.file.contact_materials {
            contact_ids.insert(name.as_str(), scene.add_contact_material(contact_law_of(c)));
        }
        let (mut scene, mut geometry) =
            geometry::build(scene, &self.file.bodies, &self.materials, &laws, &self.base_dir).map_err(at)?;
        for (body, &entry) in scene.bodies.iter_mut().zip(&geometry.origin) {
            if let Some(name) = &self.file.bodies[entry].contact_material {
                body.contact_material = contact_ids[name.as_str()];
            }
        }
        if scene.nodes.is_empty() {
            return Err(at(Problem::new(
                "bodies",
                "the scene is empty: add at least one [[bodies]] entry",
            )));
        }
        if !scene.m_min().is_finite() {
            return Err(at(Problem::new("bodies", "every body is frozen: nothing can move")));
        }
        if let Some((a, b)) = geometry::find_overlap(&scene) {
            let (ia, ib) = (geometry.origin[a as usize], geometry.origin[b as usize]);
            return Err(at(Problem::new(
                format!("bodies[{ib}]"),
                format!(
                    "overlapping bodies in the initial state: body {a} (from bodies[{ia}], {}) and body {b} (from bodies[{ib}], {}) are closer than their thicknesses",
                    self.file.bodies[ia].kind, self.file.bodies[ib].kind
                ),
            )));
        }
        let (dt, dtc) = (scene.dt(), scene.critical_dt());
        if dt > dtc {
            let key = if sim.dt.is_some() {
                "simulation.dt"
            } else {
                "simulation.dt_fraction"
            };
            return Err(at(Problem::new(
                key,
                format!("time step dt = {dt:.4e} is above the critical time step δt_c = sqrt(m_min/k_max) = {dtc:.4e} (§2.4)"),
            )));
        }
        scene.validate().map_err(|m| at(Problem::new("", m)))?;
        let measure = self.measure(&geometry).map_err(at)?;
        geometry.walls.extend(more.iter().cloned());
        let stages = stages::resolve(
            &self.file.stages,
            &geometry,
            &measure,
            &scene,
            self.settings.check_every,
        )
        .map_err(at)?;
        stages::refuse_confining(&stages).map_err(at)?;
        let strain_from = match self.file.measure.as_ref().and_then(|m| m.strain_from.as_ref()) {
            None => None,
            Some(name) => Some(stages.iter().position(|s| &s.name == name).ok_or_else(|| {
                at(Problem::new(
                    "measure.strain_from",
                    format!(
                        "no stage named \"{name}\" (stages: {})",
                        stages.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                ))
            })?),
        };
        let sigma_star = scene
            .bodies
            .iter()
            .find(|b| b.flags & crate::model::BODY_FROZEN == 0 && b.flags & crate::model::BODY_CLOSED != 0)
            .and_then(|b| self.materials.values().find(|(id, _)| *id == b.material))
            .and_then(|(_, m)| m.reference.map(|r| r.sigma_star));
        Ok(Built {
            scene,
            geometry,
            measure,
            stages,
            strain_from,
            settings: self.settings.clone(),
            sigma_star,
            dimension: 2,
        })
    }

    fn measure(&self, geo: &Geometry) -> Result<MeasureWalls, Problem> {
        let wall = |side: &str, name: &Option<String>| -> Result<Option<u32>, Problem> {
            match name {
                None => Ok(None),
                Some(n) => geo
                    .walls
                    .iter()
                    .find(|w| &w.0 == n)
                    .map(|w| Some(w.1))
                    .ok_or_else(|| Problem::new(format!("measure.{side}"), format!("no wall named \"{n}\""))),
            }
        };
        if let Some(m) = &self.file.measure {
            return Ok(MeasureWalls {
                top: wall("top", &m.top)?,
                bottom: wall("bottom", &m.bottom)?,
                left: wall("left", &m.left)?,
                right: wall("right", &m.right)?,
            });
        }
        // Default: the first box or tissue.
        let Some(b) = self
            .file
            .bodies
            .iter()
            .enumerate()
            .find(|(_, b)| b.kind == "box" || b.kind == "tissue")
        else {
            return Ok(MeasureWalls::default());
        };
        let name = b.1.name.clone().unwrap_or_else(|| format!("{}{}", b.1.kind, b.0));
        let get = |s: &str| geo.walls.iter().find(|w| w.0 == format!("{name}.{s}")).map(|w| w.1);
        Ok(MeasureWalls {
            top: get("top"),
            bottom: get("bottom"),
            left: get("left"),
            right: get("right"),
        })
    }
}

/// Sets `value` at a dotted key path (`materials.shell.eta`, `stages[1].velocity`).
pub fn set_value_path(doc: &mut toml::Value, path: &str, value: toml::Value) -> Result<(), String> {
    let mut cur = doc;
    let parts: Vec<&str> = path.split('.').collect();
    for (n, part) in parts.iter().enumerate() {
        let (key, index) = match part.find('[') {
            Some(b) if part.ends_with(']') => {
                let idx: usize = part[b + 1..part.len() - 1]
                    .parse()
                    .map_err(|_| format!("bad index in `{part}`"))?;
                (&part[..b], Some(idx))
            }
            _ => (*part, None),
        };
        let last = n + 1 == parts.len();
        let t = cur
            .as_table_mut()
            .ok_or_else(|| format!("`{key}` is not inside a table"))?;
        if last && index.is_none() {
            t.insert(key.to_string(), value);
            return Ok(());
        }
        let next = t
            .entry(key.to_string())
            .or_insert_with(|| toml::Value::Table(Default::default()));
        cur = match index {
            Some(i) => next
                .as_array_mut()
                .and_then(|a| a.get_mut(i))
                .ok_or_else(|| format!("`{key}` has no element {i}"))?,
            None => next,
        };
        if last {
            *cur = value;
            return Ok(());
        }
    }
    Ok(())
}

/// Places a problem at its key (or, for "" or an absent key, at the start of the file).
fn locate(origin: &str, spans: &SpanIndex, p: Problem) -> ScenarioError {
    // The key itself, or the closest enclosing table that the file has.
    let mut path = p.path.as_str();
    let span = loop {
        if let Some(k) = spans.get(path) {
            break Some(k.key.clone());
        }
        match path.rfind(['.', '[']) {
            Some(i) => path = &path[..i],
            None => break None,
        }
    };
    let (line, column) = span.map(|s| spans.line_col(s.start)).unwrap_or((1, 1));
    ScenarioError {
        file: origin.to_string(),
        line,
        column,
        key: (!p.path.is_empty()).then(|| p.path.clone()),
        message: p.message,
    }
}

/// A toml/serde error with its file, line, column and key.
pub fn toml_error(origin: &str, text: &str, spans: Option<&SpanIndex>, e: &toml::de::Error) -> ScenarioError {
    let span = e.span();
    let (line, column) = match &span {
        Some(s) => {
            let before = &text[..s.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            (line, s.start - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1)
        }
        None => (1, 1),
    };
    let mut key = span
        .as_ref()
        .and_then(|s| spans.and_then(|x| x.key_at(s)))
        .map(|k| k.path.clone());
    if key.is_none() {
        key = key_on_line(text, line);
    }
    let msg = e.message().trim().to_string();
    // "unknown field `x`" / "missing field `x`" name a key inside the table the span covers.
    for pat in ["unknown field `", "missing field `"] {
        if let Some(i) = msg.find(pat) {
            let rest = &msg[i + pat.len()..];
            if let Some(j) = rest.find('`') {
                let field = &rest[..j];
                key = Some(match key {
                    Some(k) if !k.ends_with(field) && pat.starts_with('m') => format!("{k}.{field}"),
                    Some(k)
                        if !k.ends_with(field)
                            && !k.contains('.')
                            && !k.contains('[')
                            && spans.is_some_and(|s| s.get(&format!("{k}.{field}")).is_some()) =>
                    {
                        format!("{k}.{field}")
                    }
                    Some(k) => k,
                    None => field.to_string(),
                });
            }
        }
    }
    ScenarioError {
        file: origin.to_string(),
        line,
        column,
        key,
        message: if span.is_none() && spans.is_none() {
            msg
        } else {
            msg.lines().next().unwrap_or("").to_string()
        },
    }
}

/// The key written on line `line` (1-based) of a document that does not parse, prefixed by the
/// table header above it: `k_n = = 3` under `[contact]` gives `contact.k_n`.
fn key_on_line(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let l = lines.get(line.checked_sub(1)?)?.trim();
    let key = l.split('=').next()?.trim();
    if l.starts_with('#')
        || !l.contains('=')
        || key.is_empty()
        || !key.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
    {
        return None;
    }
    let header = lines[..line - 1].iter().rev().find_map(|h| {
        let h = h.trim();
        (h.starts_with('[') && h.ends_with(']')).then(|| h.trim_matches(['[', ']']).trim().to_string())
    });
    Some(match header {
        Some(h) => format!("{h}.{key}"),
        None => key.to_string(),
    })
}

/// A contact table (`[contact]` or `[contact_materials.NAME]`) as the model's law.
fn contact_law_of(c: &schema::Contact) -> crate::model::ContactLaw {
    crate::model::ContactLaw {
        k_n: c.k_n as f32,
        k_t: c.k_t as f32,
        mu: c.mu as f32,
        c_n: c.c_n as f32,
    }
}

/// The error of a `contact_material` key (at `key`) that names no `[contact_materials.NAME]`.
fn unknown_contact_material(file: &schema::ScenarioFile, key: String, name: &str) -> Problem {
    let defined: Vec<&str> = file.contact_materials.keys().map(String::as_str).collect();
    Problem::new(
        key,
        format!(
            "unknown contact material \"{name}\" (defined in [contact_materials]: {})",
            if defined.is_empty() {
                "none".to_string()
            } else {
                defined.join(", ")
            }
        ),
    )
}

/// `[contact_materials.NAME]` (at `path`): k_n > 0, k_t, μ, c_n ≥ 0.
fn check_contact_material(path: &str, c: &schema::Contact) -> Result<(), Problem> {
    if !(c.k_n > 0.0) {
        return Err(Problem::new(
            format!("{path}.k_n"),
            format!("k_n = {} must be > 0", c.k_n),
        ));
    }
    for (key, x) in [("k_t", c.k_t), ("mu", c.mu), ("c_n", c.c_n)] {
        if !(x >= 0.0) {
            return Err(Problem::new(
                format!("{path}.{key}"),
                format!("{key} = {x} must be ≥ 0"),
            ));
        }
    }
    Ok(())
}

/// Only the keys of the chosen kind (`table[i].kind_key`) among `all`.
fn check_kind_keys(
    sc: &Scenario,
    prefix: &str,
    kind_key: &str,
    kind: &str,
    table: &[(&str, &[&str])],
    all: &[&str],
) -> Result<(), Problem> {
    let Some((_, keys)) = table.iter().find(|(k, _)| *k == kind) else {
        return Err(Problem::new(
            format!("{prefix}.{kind_key}"),
            format!(
                "{kind_key} = \"{kind}\" is not one of {}",
                table.iter().map(|k| k.0).collect::<Vec<_>>().join(", ")
            ),
        ));
    };
    for k in &sc.spans.keys {
        if let Some(key) = k.path.strip_prefix(&format!("{prefix}.")) {
            if all.contains(&key) && !keys.contains(&key) {
                return Err(Problem::new(
                    k.path.clone(),
                    format!(
                        "`{key}` is not a key of {kind_key} \"{kind}\" (its keys: {})",
                        keys.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Each kind with its allowed keys.
type KindKeys = &'static [(&'static str, &'static [&'static str])];

/// Keys of `[[bodies]]` and `[[stages]]` entries must belong to their `kind`.
fn check_kinds(spans: &SpanIndex, file: &ScenarioFile) -> Result<(), Problem> {
    let groups: [(&str, Vec<&str>, KindKeys); 2] = [
        (
            "bodies",
            file.bodies.iter().map(|b| b.kind.as_str()).collect(),
            geometry::BODY_KINDS,
        ),
        (
            "stages",
            file.stages.iter().map(|s| s.kind.as_str()).collect(),
            stages::STAGE_KINDS,
        ),
    ];
    for (table, kinds, allowed) in groups {
        for (i, kind) in kinds.iter().enumerate() {
            let Some((_, keys)) = allowed.iter().find(|(k, _)| k == kind) else {
                return Err(Problem::new(
                    format!("{table}[{i}].kind"),
                    format!(
                        "kind = \"{kind}\" is not one of {}",
                        allowed.iter().map(|k| k.0).collect::<Vec<_>>().join(", ")
                    ),
                ));
            };
            let prefix = format!("{table}[{i}].");
            for k in &spans.keys {
                if let Some(key) = k.path.strip_prefix(&prefix) {
                    if !key.contains(['.', '['])
                        && key != "kind"
                        && key != "name"
                        && !keys.contains(&key)
                        && !(table == "bodies" && key == "contact_material")
                    {
                        return Err(Problem::new(
                            k.path.clone(),
                            format!(
                                "`{key}` is not a key of {table} of kind \"{kind}\" (its keys: kind, name, {}{})",
                                if table == "bodies" { "contact_material, " } else { "" },
                                keys.join(", ")
                            ),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}
