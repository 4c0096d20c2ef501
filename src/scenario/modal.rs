//! The `[modal]` section of a scenario file: modal deformable bodies with level-set contact
//! (`crate::modal`, docs/modal.md) and their rigid walls, resolved into a [`ModalScene`] with the
//! same located errors (file, line, column, key) as the rest of the scenario code.
//!
//! The node contact law of walls is the file's `[contact]` table (k_n, k_t, μ, c_n of
//! `modal::contact::contact_law`); body pairs use the law table of `[contact]` and
//! `[contact_materials.NAME]` (`contact_material` of a body, numbered as the SPD bodies number
//! them). Documented key by key in docs/scenarios.md ("Modal bodies").

// `!(x > 0.0)` on purpose: NaN must fail these checks too.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::{check_kind_keys, Problem, Scenario, ScenarioError};
use crate::modal::body::{circle_nodes, rectangle_nodes, LevelSetQuery, ModalBody};
use crate::modal::layout::{ModalState, ModalWallRec};
use crate::modal::level_set::{Grid, LevelSet};
use crate::modal::modes::Mode;
use crate::modal::quadrature::{modal_matrices, Elastic};
use crate::modal::stepper::{circle_wall, line_wall, ContactParams, ModalScene};
use crate::modal::stiffness::ModalStiffness;
use crate::modal::timestep::{critical_time_steps, TimeSteps};
use crate::modal::MAX_MODES;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// `[modal]`: run settings of the modal engine, its bodies and walls.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModalSection {
    /// Fixed time step [time]; default: the critical step of §3.3 (β_r, β_d below).
    pub dt: Option<f64>,
    /// β_r of the rigid/contact criterion Δt = β_r √(m_eff/k_n) (§3.3, default 0.1).
    pub beta_r: Option<f64>,
    /// β_d of the deformation criterion Δt = β_d/ω_max (§3.3, default 0.2).
    pub beta_d: Option<f64>,
    /// Length of the run [time]; exclusive with `steps`.
    pub duration: Option<f64>,
    /// Length of the run in steps; exclusive with `duration`.
    pub steps: Option<u64>,
    /// Steps between body neighbour-list rebuilds (default 500).
    pub rebuild_every: Option<u32>,
    /// Verlet skin of the body neighbour lists [length] (default 2 × the largest grid spacing).
    pub skin: Option<f64>,
    /// One `modal_series.csv` row every this many steps (default: 200 rows over the run).
    pub series_every: Option<u64>,
    /// Scenes with SPD bodies: SPD walls act on modal bodies (default true).
    pub spd_walls: Option<bool>,
    #[serde(default)]
    pub bodies: Vec<ModalBodySpec>,
    #[serde(default)]
    pub walls: Vec<ModalWallSpec>,
}

/// `[[modal.bodies]]`: one modal body, its shape selected by `shape`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModalBodySpec {
    pub name: Option<String>,
    /// disk | rectangle | polygon
    pub shape: String,
    /// disk: radius [length].
    pub radius: Option<f64>,
    /// rectangle: [length along x, thickness along y] [length].
    pub size: Option<[f64; 2]>,
    /// polygon: vertices [[x, y], ...] in order [length]; shifted so that their area centroid is
    /// the body's reference origin (placed at `center`).
    pub points: Option<Vec<Vec<f64>>>,
    /// Level-set grid spacing h [length].
    pub grid_spacing: f64,
    /// disk: number of surface nodes (two straddle each axis point when divisible by 4).
    pub nodes: Option<u32>,
    /// rectangle, polygon: largest surface-node spacing [length] (vertices are nodes).
    pub node_spacing: Option<f64>,
    /// Density ρ [mass/length³]; the areal density is ρ · thickness.
    pub density: f64,
    /// Out-of-plane thickness [length] (default 1).
    pub thickness: Option<f64>,
    /// Young's modulus E [force/length²] (plane stress), for modes with `stiffness = "quadrature"`.
    pub young: Option<f64>,
    /// Poisson's ratio ν (default 0).
    pub poisson: Option<f64>,
    /// Quadrature sub-cells per grid cell side for M and K (eq 4, 8; default 4).
    pub quadrature_subcells: Option<u32>,
    /// Position of the reference origin [length].
    pub center: [f64; 2],
    /// Initial velocity [length/time] (default 0).
    pub velocity: Option<[f64; 2]>,
    /// Initial angle Θ [rad] (default 0).
    pub angle: Option<f64>,
    /// Initial angular velocity [rad/time] (default 0).
    pub angular_velocity: Option<f64>,
    /// Rigid-motion damping rate γ [1/time] (default 0).
    pub rigid_damping: Option<f64>,
    /// pullback (eq 47–48, default) | precomputed (eq 49–50).
    pub level_set_query: Option<String>,
    /// precomputed: sample amplitudes ε_p, increasing, at least two.
    pub query_samples: Option<Vec<f64>>,
    /// `[contact_materials.NAME]` of this body's contacts with other bodies (modal and SPD; the
    /// pair's law mixes the two materials', `model::contact_table`); default `[contact]`.
    pub contact_material: Option<String>,
    #[serde(default)]
    pub modes: Vec<ModalModeSpec>,
}

/// `[[modal.bodies.modes]]`: one deformation mode Φ_α and its stiffness and damping.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModalModeSpec {
    /// bending (2D eq 51 along x over the body's extent) | compaction (Φ = −((x/R)³, (y/R)³),
    /// tabulated on the level-set grid)
    pub shape: String,
    /// compaction: R [length] (default: the disk's radius).
    pub radius: Option<f64>,
    /// quadrature (K by eq 4 from young, poisson) | value (K = `k`) | table (a CSV file of
    /// (ε, F_int) rows, App. B; one mode only).
    pub stiffness: String,
    /// stiffness = "value": K_αα [force/length].
    pub k: Option<f64>,
    /// stiffness = "table": CSV file (relative to the scenario) with rows `eps,force`.
    pub table: Option<String>,
    /// Modal damping C_αα [force·time/length]; exclusive with `damping_ratio`.
    pub damping: Option<f64>,
    /// Modal damping ratio ζ: C_αα = 2ζ√(K_αα M_αα) (a table's K is its first slope).
    pub damping_ratio: Option<f64>,
}

/// `[[modal.walls]]`: a rigid wall with a constant velocity, selected by `kind`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModalWallSpec {
    pub name: Option<String>,
    /// line | circle
    pub kind: String,
    /// line: a point of the line [length].
    pub point: Option<[f64; 2]>,
    /// line: normal towards the bodies (normalised here).
    pub normal: Option<[f64; 2]>,
    /// circle: centre [length].
    pub center: Option<[f64; 2]>,
    /// circle: radius [length].
    pub radius: Option<f64>,
    /// Velocity [length/time] (default 0).
    pub velocity: Option<[f64; 2]>,
}

/// Keys of a modal body that only some shapes take.
const SHAPE_KEYS: &[(&str, &[&str])] = &[
    ("disk", &["radius", "nodes"]),
    ("rectangle", &["size", "node_spacing"]),
    ("polygon", &["points", "node_spacing"]),
];
const ALL_SHAPE_KEYS: &[&str] = &["radius", "nodes", "size", "node_spacing", "points"];
const WALL_KEYS: &[(&str, &[&str])] = &[("line", &["point", "normal"]), ("circle", &["center", "radius"])];
const ALL_WALL_KEYS: &[&str] = &["point", "normal", "center", "radius"];

/// A `[modal]` section built: the scene, the initial states and the run length.
#[derive(Clone, Debug)]
pub struct ModalBuilt {
    pub scene: ModalScene,
    /// Initial state per body (position, velocity, angle, angular velocity; ε = 0).
    pub states: Vec<ModalState>,
    pub steps: u64,
    pub series_every: u64,
    /// The two critical time steps of §3.3 (with β_r, β_d).
    pub critical: TimeSteps,
    pub body_names: Vec<String>,
    pub wall_names: Vec<String>,
    /// Per body: the stiffness kind of its modes, for `softdem check`.
    pub stiffness_kinds: Vec<String>,
}

impl Scenario {
    /// True when the file describes modal bodies only (no `[[bodies]]`): `softdem check` and
    /// `softdem run` then use the modal engine alone.
    pub fn is_modal_only(&self) -> bool {
        self.file.modal.is_some() && self.file.bodies.is_empty()
    }

    /// Resolves the `[modal]` section (an error when there is none).
    /// A modal-only scenario as the driver runs it (`engine::modal`): a `Built` without SPD
    /// points whose walls are the `[[modal.walls]]` (ids: their indices), its `[[stages]]`
    /// resolved against them (`move_wall`, `unload`, `hold`, `deposit`, `gravity`), and the modal
    /// scene. The run stops at `[modal] duration` / `steps` at the latest (`settings.max_steps`).
    pub fn build_modal_run(&self) -> Result<(super::Built, ModalBuilt), ScenarioError> {
        let b = self.build_modal()?;
        let scene = crate::model::Scene {
            time_step: crate::model::TimeStep::Fixed(b.scene.dt),
            ..Default::default()
        };
        let geometry = super::geometry::Geometry {
            walls: b.wall_names.iter().cloned().zip(0..).collect(),
            ..Default::default()
        };
        let measure = super::stages::MeasureWalls::default();
        let stages = super::stages::resolve(
            &self.file.stages,
            &geometry,
            &measure,
            &scene,
            self.settings.check_every,
        )
        .map_err(|p| self.error(p))?;
        super::stages::refuse_confining(&stages).map_err(|p| self.error(p))?;
        let mut settings = self.settings.clone();
        settings.max_steps = Some(settings.max_steps.map_or(b.steps, |m| m.min(b.steps)));
        let built = super::Built {
            scene,
            geometry,
            measure,
            stages,
            strain_from: None,
            settings,
            sigma_star: None,
            dimension: 2,
        };
        Ok((built, b))
    }

    pub fn build_modal(&self) -> Result<ModalBuilt, ScenarioError> {
        let Some(m) = &self.file.modal else {
            return Err(self.error(Problem::new("modal", "the scenario has no [modal] section")));
        };
        build(m, self, !self.file.bodies.is_empty()).map_err(|p| self.error(p))
    }
}

fn positive(path: &str, x: f64) -> Result<f64, Problem> {
    if !(x > 0.0) || !x.is_finite() {
        let key = path.rsplit('.').next().unwrap_or(path);
        return Err(Problem::new(path, format!("{key} = {x} must be > 0")));
    }
    Ok(x)
}

fn need<T: Clone>(v: &Option<T>, path: &str, what: &str) -> Result<T, Problem> {
    v.clone().ok_or_else(|| {
        Problem::new(
            path,
            format!("{what} needs `{}`", path.rsplit('.').next().unwrap_or(path)),
        )
    })
}

/// Reads a force table: rows `eps,force` (the first line that is not a comment may be a
/// header; `#` starts a comment). It must start at (0, 0) with ε increasing.
pub fn read_table(path: &Path) -> Result<Vec<[f32; 2]>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut rows = Vec::new();
    let mut first = true;
    for (i, line) in text.lines().enumerate() {
        let l = line.split('#').next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        let cols: Vec<&str> = l.split(',').map(str::trim).collect();
        let parsed: Option<Vec<f64>> = cols.iter().map(|c| c.parse::<f64>().ok()).collect();
        match parsed {
            Some(v) if v.len() == 2 && v.iter().all(|x| x.is_finite()) => rows.push([v[0] as f32, v[1] as f32]),
            None if first => {} // header
            _ => {
                return Err(format!(
                    "{} line {}: expected two numbers `eps,force`, got `{l}`",
                    path.display(),
                    i + 1
                ))
            }
        }
        first = false;
    }
    if rows.len() < 2 || rows[0] != [0.0, 0.0] {
        return Err(format!(
            "{}: a force table needs at least two rows and must start at 0,0",
            path.display()
        ));
    }
    if let Some(w) = rows.windows(2).position(|w| !(w[1][0] > w[0][0])) {
        return Err(format!(
            "{}: eps must increase (row {} after row {})",
            path.display(),
            w + 2,
            w + 1
        ));
    }
    Ok(rows)
}

/// Area, centroid and polar second moment about the centroid (per unit areal density) of a
/// simple polygon (shoelace).
fn polygon_moments(p: &[[f64; 2]]) -> (f64, [f64; 2], f64) {
    let (mut a, mut cx, mut cy) = (0.0, 0.0, 0.0);
    let (mut ixx, mut iyy) = (0.0, 0.0);
    for k in 0..p.len() {
        let (q, r) = (p[k], p[(k + 1) % p.len()]);
        let c = q[0] * r[1] - r[0] * q[1];
        a += c;
        cx += (q[0] + r[0]) * c;
        cy += (q[1] + r[1]) * c;
        ixx += (q[1] * q[1] + q[1] * r[1] + r[1] * r[1]) * c;
        iyy += (q[0] * q[0] + q[0] * r[0] + r[0] * r[0]) * c;
    }
    a *= 0.5;
    let c = [cx / (6.0 * a), cy / (6.0 * a)];
    let j = (ixx + iyy) / 12.0 - a * (c[0] * c[0] + c[1] * c[1]);
    (a.abs(), c, j.abs())
}

/// Nodes along a closed polygon at spacing ≤ ds, every vertex included.
fn polygon_nodes(p: &[[f64; 2]], ds: f64) -> Vec<[f64; 2]> {
    let mut out = Vec::new();
    for k in 0..p.len() {
        let (q, r) = (p[k], p[(k + 1) % p.len()]);
        let len = ((r[0] - q[0]).powi(2) + (r[1] - q[1]).powi(2)).sqrt();
        let n = ((len / ds).ceil() as usize).max(1);
        for s in 0..n {
            let t = s as f64 / n as f64;
            out.push([q[0] + t * (r[0] - q[0]), q[1] + t * (r[1] - q[1])]);
        }
    }
    out
}

fn body(sc: &Scenario, i: usize, b: &ModalBodySpec) -> Result<(ModalBody, ModalState, String), Problem> {
    let pre = format!("modal.bodies[{i}]");
    check_kind_keys(sc, &pre, "shape", &b.shape, SHAPE_KEYS, ALL_SHAPE_KEYS)?;
    let h = positive(&format!("{pre}.grid_spacing"), b.grid_spacing)?;
    let density = positive(&format!("{pre}.density"), b.density)?;
    let thickness = positive(&format!("{pre}.thickness"), b.thickness.unwrap_or(1.0))?;
    let areal = density * thickness;
    let sub = b.quadrature_subcells.unwrap_or(4);
    if !(1..=64).contains(&sub) {
        return Err(Problem::new(
            format!("{pre}.quadrature_subcells"),
            format!("quadrature_subcells = {sub} must be in 1..=64"),
        ));
    }
    // Geometry: level set φ0, surface nodes, mass and inertia about the reference origin.
    let (level_set, nodes, mass, inertia) = match b.shape.as_str() {
        "disk" => {
            let r = positive(
                &format!("{pre}.radius"),
                need(&b.radius, &format!("{pre}.radius"), "a disk")?,
            )?;
            let n = need(&b.nodes, &format!("{pre}.nodes"), "a disk")?;
            if n < 8 {
                return Err(Problem::new(format!("{pre}.nodes"), format!("nodes = {n} must be ≥ 8")));
            }
            if !(h <= 0.5 * r) {
                return Err(Problem::new(
                    format!("{pre}.grid_spacing"),
                    format!("grid_spacing = {h} must be ≤ radius/2 = {}", 0.5 * r),
                ));
            }
            let grid = Grid::covering([-r, -r], [r, r], h, 3);
            let ls = LevelSet::from_fn(grid, |p| (p[0] * p[0] + p[1] * p[1]).sqrt() - r);
            let m = areal * std::f64::consts::PI * r * r;
            // Offset by half a spacing: two nodes straddle each axis point (body::disk).
            (ls, circle_nodes(r, n as usize, 0.5), m, 0.5 * m * r * r)
        }
        "rectangle" | "polygon" => {
            let ds_key = format!("{pre}.node_spacing");
            let ds = positive(&ds_key, need(&b.node_spacing, &ds_key, &format!("a {}", b.shape))?)?;
            let poly: Vec<[f64; 2]> = if b.shape == "rectangle" {
                let s = need(&b.size, &format!("{pre}.size"), "a rectangle")?;
                positive(&format!("{pre}.size"), s[0].min(s[1]))?;
                let (a, c) = (0.5 * s[0], 0.5 * s[1]);
                vec![[-a, -c], [a, -c], [a, c], [-a, c]]
            } else {
                let key = format!("{pre}.points");
                let pts = need(&b.points, &key, "a polygon")?;
                if pts.len() < 3 {
                    return Err(Problem::new(
                        key,
                        format!("{} points: a polygon needs at least 3", pts.len()),
                    ));
                }
                let mut v = Vec::new();
                for (k, p) in pts.iter().enumerate() {
                    if p.len() != 2 || !p.iter().all(|x| x.is_finite()) {
                        return Err(Problem::new(
                            key,
                            format!("point {k} has {} components, expected a pair [x, y]", p.len()),
                        ));
                    }
                    v.push([p[0], p[1]]);
                }
                v
            };
            let (area, c, j) = polygon_moments(&poly);
            if !(area > 0.0) {
                return Err(Problem::new(format!("{pre}.points"), "the polygon has zero area"));
            }
            let poly: Vec<[f64; 2]> = poly.iter().map(|p| [p[0] - c[0], p[1] - c[1]]).collect();
            let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
            for p in &poly {
                for d in 0..2 {
                    lo[d] = lo[d].min(p[d]);
                    hi[d] = hi[d].max(p[d]);
                }
            }
            let thin = (hi[0] - lo[0]).min(hi[1] - lo[1]);
            if !(h <= 0.5 * thin) {
                return Err(Problem::new(
                    format!("{pre}.grid_spacing"),
                    format!(
                        "grid_spacing = {h} must be ≤ half the body's smallest extent ({})",
                        0.5 * thin
                    ),
                ));
            }
            let grid = Grid::covering(lo, hi, h, 3);
            let ls = LevelSet::from_polygon(grid, &poly);
            let nodes = if b.shape == "rectangle" {
                rectangle_nodes(hi[0], hi[1], ds)
            } else {
                polygon_nodes(&poly, ds)
            };
            (ls, nodes, areal * area, areal * j)
        }
        _ => unreachable!("checked by check_kind_keys"),
    };
    let grid = level_set.grid.clone();
    // Modes and their stiffness.
    if b.modes.is_empty() || b.modes.len() > MAX_MODES {
        return Err(Problem::new(
            format!("{pre}.modes"),
            format!(
                "{} modes: a modal body needs 1 to {MAX_MODES} [[modal.bodies.modes]]",
                b.modes.len()
            ),
        ));
    }
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for p in &nodes {
        for d in 0..2 {
            lo[d] = lo[d].min(p[d]);
            hi[d] = hi[d].max(p[d]);
        }
    }
    let mut modes = Vec::new();
    for (a, ms) in b.modes.iter().enumerate() {
        let mp = format!("{pre}.modes[{a}]");
        modes.push(match ms.shape.as_str() {
            "bending" => Mode::Bending {
                length: (hi[0] - lo[0]) as f32,
                x_left: lo[0] as f32,
                y_mid: (0.5 * (lo[1] + hi[1])) as f32,
            },
            "compaction" => {
                let r = match (ms.radius, b.radius) {
                    (Some(r), _) => positive(&format!("{mp}.radius"), r)?,
                    (None, Some(r)) => r,
                    (None, None) => {
                        return Err(Problem::new(
                            format!("{mp}.radius"),
                            "a compaction mode on a body that is not a disk needs `radius`",
                        ))
                    }
                };
                Mode::tabulate(&grid, |p| [-(p[0] / r).powi(3), -(p[1] / r).powi(3)])
            }
            other => {
                return Err(Problem::new(
                    format!("{mp}.shape"),
                    format!("shape = \"{other}\" is not one of bending, compaction"),
                ))
            }
        });
    }
    let kinds: Vec<&str> = b.modes.iter().map(|m| m.stiffness.as_str()).collect();
    for (a, k) in kinds.iter().enumerate() {
        let mp = format!("{pre}.modes[{a}]");
        if !["quadrature", "value", "table"].contains(k) {
            return Err(Problem::new(
                format!("{mp}.stiffness"),
                format!("stiffness = \"{k}\" is not one of quadrature, value, table"),
            ));
        }
        if *k != kinds[0] {
            return Err(Problem::new(
                format!("{mp}.stiffness"),
                format!(
                    "every mode of a body has the same stiffness kind (mode 0: \"{}\")",
                    kinds[0]
                ),
            ));
        }
        for (key, v, wanted) in [
            ("k", b.modes[a].k.is_some(), "value"),
            ("table", b.modes[a].table.is_some(), "table"),
        ] {
            if v && *k != wanted {
                return Err(Problem::new(
                    format!("{mp}.{key}"),
                    format!("`{key}` belongs to stiffness = \"{wanted}\", not \"{k}\""),
                ));
            }
        }
    }
    let young = match (kinds[0], b.young) {
        ("quadrature", None) => {
            return Err(Problem::new(
                format!("{pre}.young"),
                "modes with stiffness = \"quadrature\" need the body's `young`",
            ))
        }
        (_, Some(e)) => positive(&format!("{pre}.young"), e)?,
        (_, None) => 1.0, // only M is used
    };
    let poisson = b.poisson.unwrap_or(0.0);
    if !(-1.0 < poisson && poisson < 0.5) {
        return Err(Problem::new(
            format!("{pre}.poisson"),
            format!("poisson = {poisson} must be in (−1, 0.5)"),
        ));
    }
    // eq 8 and eq 4 (plane stress, per unit thickness, scaled by the thickness).
    let (mm, kq) = modal_matrices(
        &level_set,
        &modes,
        areal,
        Elastic {
            young: young * thickness,
            poisson,
        },
        sub,
    );
    let n = modes.len();
    let stiffness = match kinds[0] {
        "quadrature" => ModalStiffness::Linear(kq.iter().map(|x| *x as f32).collect()),
        "value" => {
            let mut k = vec![0.0f32; n * n];
            for (a, ms) in b.modes.iter().enumerate() {
                let key = format!("{pre}.modes[{a}].k");
                k[a * n + a] = positive(&key, need(&ms.k, &key, "stiffness = \"value\"")?)? as f32;
            }
            ModalStiffness::Linear(k)
        }
        _ => {
            if n != 1 {
                return Err(Problem::new(
                    format!("{pre}.modes"),
                    "a force table (stiffness = \"table\") needs exactly one mode",
                ));
            }
            let key = format!("{pre}.modes[0].table");
            let file = need(&b.modes[0].table, &key, "stiffness = \"table\"")?;
            ModalStiffness::Table(read_table(&sc.base_dir.join(&file)).map_err(|m| Problem::new(key, m))?)
        }
    };
    let mut damping = vec![0.0f32; n * n];
    for (a, ms) in b.modes.iter().enumerate() {
        let mp = format!("{pre}.modes[{a}]");
        let k_aa = match &stiffness {
            ModalStiffness::Linear(k) => k[a * n + a] as f64,
            ModalStiffness::Table(t) => (t[1][1] / t[1][0]) as f64,
        };
        damping[a * n + a] = match (ms.damping, ms.damping_ratio) {
            (Some(_), Some(_)) => {
                return Err(Problem::new(
                    format!("{mp}.damping_ratio"),
                    "give either damping or damping_ratio, not both",
                ))
            }
            (Some(c), None) => nonneg(&format!("{mp}.damping"), c)?,
            (None, Some(z)) => {
                2.0 * nonneg(&format!("{mp}.damping_ratio"), z)? * (k_aa.max(0.0) * mm[a * n + a]).sqrt()
            }
            (None, None) => 0.0,
        } as f32;
    }
    let query = match b.level_set_query.as_deref().unwrap_or("pullback") {
        "pullback" => {
            if b.query_samples.is_some() {
                return Err(Problem::new(
                    format!("{pre}.query_samples"),
                    "query_samples belongs to level_set_query = \"precomputed\"",
                ));
            }
            LevelSetQuery::Pullback
        }
        "precomputed" => {
            let key = format!("{pre}.query_samples");
            let s = need(&b.query_samples, &key, "level_set_query = \"precomputed\"")?;
            if s.len() < 2 || !s.windows(2).all(|w| w[0] < w[1]) || !s.iter().all(|x| x.is_finite()) {
                return Err(Problem::new(
                    key,
                    "query_samples must hold at least two increasing amplitudes",
                ));
            }
            LevelSetQuery::Precomputed {
                samples: s.iter().map(|x| *x as f32).collect(),
            }
        }
        other => {
            return Err(Problem::new(
                format!("{pre}.level_set_query"),
                format!("level_set_query = \"{other}\" is not one of pullback, precomputed"),
            ))
        }
    };
    let rigid_damping = nonneg(&format!("{pre}.rigid_damping"), b.rigid_damping.unwrap_or(0.0))?;
    let body = ModalBody {
        level_set,
        nodes: nodes.iter().map(|p| [p[0] as f32, p[1] as f32]).collect(),
        modes,
        mass: mass as f32,
        inertia: inertia as f32,
        modal_mass: mm.iter().map(|x| *x as f32).collect(),
        stiffness,
        modal_damping: damping,
        rigid_damping: rigid_damping as f32,
        position: b.center,
        theta: b.angle.unwrap_or(0.0) as f32,
        query,
        contact_material: contact_material_id(sc, &format!("{pre}.contact_material"), &b.contact_material)?,
    };
    body.validate().map_err(|e| Problem::new(pre.clone(), e.to_string()))?;
    let mut st = body.initial_state();
    st.v = b.velocity.map(|v| [v[0] as f32, v[1] as f32]).unwrap_or([0.0; 2]);
    st.omega = b.angular_velocity.unwrap_or(0.0) as f32;
    let name = b.name.clone().unwrap_or_else(|| format!("body{i}"));
    Ok((body, st, name))
}

fn nonneg(path: &str, x: f64) -> Result<f64, Problem> {
    if !(x >= 0.0) || !x.is_finite() {
        let key = path.rsplit('.').next().unwrap_or(path);
        return Err(Problem::new(path, format!("{key} = {x} must be ≥ 0")));
    }
    Ok(x)
}

fn wall(sc: &Scenario, i: usize, w: &ModalWallSpec) -> Result<(ModalWallRec, String), Problem> {
    let pre = format!("modal.walls[{i}]");
    check_kind_keys(sc, &pre, "kind", &w.kind, WALL_KEYS, ALL_WALL_KEYS)?;
    let v = w.velocity.unwrap_or([0.0; 2]);
    let v = [v[0] as f32, v[1] as f32];
    let rec = if w.kind == "line" {
        let p = need(&w.point, &format!("{pre}.point"), "a line wall")?;
        let key = format!("{pre}.normal");
        let n = need(&w.normal, &key, "a line wall")?;
        let l = n[0].hypot(n[1]);
        if !(l > 0.0) || !l.is_finite() {
            return Err(Problem::new(key, "the normal must be a non-zero vector"));
        }
        line_wall([p[0] as f32, p[1] as f32], [(n[0] / l) as f32, (n[1] / l) as f32], v)
    } else {
        let c = need(&w.center, &format!("{pre}.center"), "a circle wall")?;
        let key = format!("{pre}.radius");
        let r = positive(&key, need(&w.radius, &key, "a circle wall")?)?;
        circle_wall([c[0] as f32, c[1] as f32], r as f32, v)
    };
    Ok((rec, w.name.clone().unwrap_or_else(|| format!("wall{i}"))))
}

/// The checks of `[modal]` in a mixed scene that need no SPD scene (called by the modal build,
/// so that `build_modal` already refuses them; here, not in `scenario::coupled`, which builds on
/// this module).
fn mixed_checks(sc: &Scenario, m: &ModalSection, bodies: &[crate::modal::body::ModalBody]) -> Result<(), Problem> {
    let why = "in a scene with SPD bodies the time step is the smallest of the SPD, modal and mixed-contact \
               steps and the run length is [[stages]] (or [simulation] max_steps)";
    for (key, given) in [
        ("modal.dt", m.dt.is_some()),
        ("modal.duration", m.duration.is_some()),
        ("modal.steps", m.steps.is_some()),
    ] {
        if given {
            return Err(Problem::new(
                key,
                format!("`{}` is for modal-only scenes: {why}", &key[6..]),
            ));
        }
    }
    for (i, b) in m.bodies.iter().enumerate() {
        for (key, given) in [
            ("velocity", b.velocity.is_some_and(|v| v != [0.0, 0.0])),
            ("angular_velocity", b.angular_velocity.is_some_and(|w| w != 0.0)),
        ] {
            if given {
                return Err(Problem::new(
                    format!("modal.bodies[{i}].{key}"),
                    format!(
                        "a coupled SPD + modal run starts modal bodies at rest (src/coupled/stepper.rs): \
                         `{key}` is for modal-only scenes"
                    ),
                ));
            }
        }
    }
    // Gravity, from [simulation] or a stage, acts on the modal bodies' rigid part only.
    let staged = sc
        .file
        .stages
        .iter()
        .any(|st| st.gravity.as_ref().is_some_and(|g| g.iter().any(|&x| x != 0.0)));
    if sc.settings.gravity != [0.0; 3] || staged {
        for (i, b) in bodies.iter().enumerate() {
            for a in 0..b.modes.len() {
                if !crate::coupled::stepper::mode_keeps_centre(b, a) {
                    return Err(Problem::new(
                        format!("modal.bodies[{i}].modes[{a}].shape"),
                        format!(
                            "mode \"{}\" moves the centre of mass (∫ρ Φ ≠ 0): under gravity the coupled \
                             stepper applies M g to the rigid part only, which is exact only for modes \
                             that keep the centre of mass (e.g. compaction); set [simulation] gravity = \
                             [0, 0] or use such a mode",
                            m.bodies[i].modes[a].shape
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `mixed`: the file also has SPD bodies (`[[bodies]]`); the run length and the time step then
/// come from `[simulation]` and `[[stages]]`, and the keys the coupled stepper refuses are
/// checked (`mixed_checks`).
fn build(m: &ModalSection, sc: &Scenario, mixed: bool) -> Result<ModalBuilt, Problem> {
    // Pairs that serde would silently truncate (the scenario's VEC2 check covers center,
    // velocity and size).
    for (path, len) in &sc.spans.arrays {
        let last = path.rsplit('.').next().unwrap_or("");
        if path.starts_with("modal.") && ["point", "normal"].contains(&last) && *len != 2 {
            return Err(Problem::new(
                path.clone(),
                format!("invalid length {len}, expected a pair [x, y]"),
            ));
        }
    }
    if m.bodies.is_empty() {
        return Err(Problem::new(
            "modal",
            "the [modal] section has no bodies: add at least one [[modal.bodies]] entry",
        ));
    }
    let (mut bodies, mut states, mut body_names, mut kinds) = (vec![], vec![], vec![], vec![]);
    for (i, b) in m.bodies.iter().enumerate() {
        let (body, st, name) = self::body(sc, i, b)?;
        bodies.push(body);
        states.push(st);
        body_names.push(name);
        kinds.push(b.modes[0].stiffness.clone());
    }
    let (mut walls, mut wall_names) = (vec![], vec![]);
    for (i, w) in m.walls.iter().enumerate() {
        let (rec, name) = wall(sc, i, w)?;
        walls.push(rec);
        wall_names.push(name);
    }
    let c = sc.file.contact();
    if c.mu > 0.0 && !(c.k_t > 0.0) {
        return Err(Problem::new(
            "contact.k_t",
            "friction (mu > 0) on modal bodies needs k_t > 0",
        ));
    }
    let mut contact_materials = vec![];
    for (name, c) in &sc.file.contact_materials {
        super::check_contact_material(&format!("contact_materials.{name}"), c)?;
        if c.mu > 0.0 && !(c.k_t > 0.0) {
            return Err(Problem::new(
                format!("contact_materials.{name}.k_t"),
                "friction (mu > 0) on modal bodies needs k_t > 0",
            ));
        }
        contact_materials.push(contact_params(c));
    }
    // The stiffest law a modal body meets (a mixed pair's k_n is at most the larger of the two):
    // `[contact]` (walls) and the materials of the modal bodies.
    let k_n_max = bodies
        .iter()
        .filter(|b| b.contact_material > 0)
        .map(|b| contact_materials[b.contact_material as usize - 1].k_n as f64)
        .fold(c.k_n, f64::max);
    let beta_r = positive("modal.beta_r", m.beta_r.unwrap_or(0.1))?;
    let beta_d = positive("modal.beta_d", m.beta_d.unwrap_or(0.2))?;
    let critical =
        critical_time_steps(&bodies, k_n_max, beta_r, beta_d).map_err(|e| Problem::new("modal", e.to_string()))?;
    if mixed {
        mixed_checks(sc, m, &bodies)?;
    } else if m.spd_walls.is_some() {
        return Err(Problem::new(
            "modal.spd_walls",
            "spd_walls is for scenes with SPD bodies ([[bodies]])",
        ));
    }
    let dt = match m.dt {
        Some(dt) => {
            positive("modal.dt", dt)?;
            if dt > critical.dt() {
                return Err(Problem::new(
                    "modal.dt",
                    format!(
                        "dt = {dt:.4e} is above the critical time step of §3.3, min(β_r √(m_eff/k_n), β_d/ω_max) = {:.4e}",
                        critical.dt()
                    ),
                ));
            }
            dt
        }
        None => critical.dt(),
    };
    let steps = match (m.duration, m.steps) {
        // Mixed scenes: the stages decide (mixed_checks refused these keys).
        _ if mixed => 0,
        (Some(_), Some(_)) => return Err(Problem::new("modal.steps", "give either duration or steps, not both")),
        (Some(t), None) => (positive("modal.duration", t)? / dt as f32 as f64).ceil() as u64,
        (None, Some(n)) => {
            if n == 0 {
                return Err(Problem::new("modal.steps", "steps must be ≥ 1"));
            }
            n
        }
        (None, None) => return Err(Problem::new("modal", "the run needs `duration` or `steps`")),
    };
    let h_max = bodies.iter().map(|b| b.level_set.grid.h as f64).fold(0.0, f64::max);
    let skin = positive("modal.skin", m.skin.unwrap_or(2.0 * h_max))?;
    let rebuild_every = m.rebuild_every.unwrap_or(500);
    if rebuild_every == 0 {
        return Err(Problem::new("modal.rebuild_every", "rebuild_every must be ≥ 1"));
    }
    let series_every = match m.series_every {
        Some(n) => n,
        // Mixed scenes: with `[output] series_every` (0: only at the end).
        None if mixed => sc.settings.series_every,
        None => (steps / 200).max(1),
    };
    if series_every == 0 && m.series_every.is_some() {
        return Err(Problem::new("modal.series_every", "series_every must be ≥ 1"));
    }
    let scene = ModalScene {
        bodies,
        walls,
        contact: contact_params(c),
        contact_materials,
        dt: dt as f32,
        rebuild_every,
        skin: skin as f32,
    };
    scene.pack().map_err(|e| Problem::new("modal", e.to_string()))?;
    Ok(ModalBuilt {
        scene,
        states,
        steps,
        series_every,
        critical,
        body_names,
        wall_names,
        stiffness_kinds: kinds,
    })
}

/// A contact table (`[contact]`, `[contact_materials.NAME]`) as the modal contact law.
fn contact_params(c: &super::materials::Contact) -> ContactParams {
    ContactParams {
        k_n: c.k_n as f32,
        c_n: c.c_n as f32,
        k_t: c.k_t as f32,
        mu: c.mu as f32,
    }
}

/// The index of contact material `name` (at `key`): 0 for none (`[contact]`), else 1 + its place
/// in `[contact_materials]` (name order, as the SPD bodies number them).
fn contact_material_id(sc: &Scenario, key: &str, name: &Option<String>) -> Result<u32, Problem> {
    let Some(name) = name else { return Ok(0) };
    match sc.file.contact_materials.keys().position(|k| k == name) {
        Some(i) => Ok(1 + i as u32),
        None => Err(super::unknown_contact_material(&sc.file, key.to_string(), name)),
    }
}
