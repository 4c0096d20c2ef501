//! `[spheres]`: a 3D scenario of spheres (issue 23; model in docs/spheres.md) — materials and
//! the law table, particle generators (lattice, random packing, CSV file, single spheres),
//! walls (planes, boxes, cylinders, servo planes) and the walls that bound the sample. The rest
//! of the file is shared with every kind: `[simulation]` (gravity is a triple here), `[output]`
//! and `[[stages]]` (velocities are triples; stages move `[[spheres.walls]]` by name). A sphere
//! scenario has no `[[bodies]]`, `[modal]` or `[contact]`. Keys in docs/scenarios.md.

// `!(x > 0.0)` on purpose: NaN must fail these checks too.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::{Problem, Scenario, ScenarioError};
use crate::laws::mc_stress::{
    MC_CAP_HERTZ, MC_EQ11, MC_EXCLUDE_WALLS, MC_INCLUDE_SELF, MC_PRESSURE_EQ10, MC_PRESSURE_EQ11,
};
use crate::spheres::generators::{self, Lattice, RandomPacking, Region, Sphere};
use crate::spheres::pair_law::{LawTable, PairLaw, SphereMaterial};
use crate::spheres::{PlaneWall, SphereParams, SphereState};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Keys of `[spheres]` tables that are triples (x, y, z).
pub const VEC3: &[&str] = &["point", "normal", "center", "min", "max", "velocity", "axis", "omega"];

/// `[spheres]`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SpheresSection {
    /// Time step [time]; exclusive with `dt_fraction`.
    pub dt: Option<f64>,
    /// Time step as a fraction of the Rayleigh time of the smallest sphere (default 0.2).
    pub dt_fraction: Option<f64>,
    /// Verlet skin [length] (default a tenth of the mean radius).
    pub skin: Option<f64>,
    /// Global viscous damping α_g [1/time].
    pub global_damping: Option<f64>,
    /// Local (Cundall) damping α_l, 0 ≤ α_l < 1.
    pub local_damping: Option<f64>,
    /// "hertz_mindlin" (default) or "linear" (spring–dashpot with `k_n`, `k_t`).
    pub law: Option<String>,
    pub k_n: Option<f64>,
    pub k_t: Option<f64>,
    /// "none" (default), "stress" (MC-stress, eq 9–10, prefactor `beta`) or "strain"
    /// (MC-strain, eq 7–8, prefactor `gamma`).
    pub multi_contact: Option<String>,
    pub beta: Option<f64>,
    pub gamma: Option<f64>,
    /// MC-stress pressure convention: "appendix" (k = 1/6, default), "eq10" (k = 1/3) or
    /// "eq11" (eq 11 as printed: k = 1/2, contact ij included, branch |l| = the diameter).
    pub pressure: Option<String>,
    /// MC-stress: whether contact ij itself enters σ_i and σ_j (default false).
    pub include_self: Option<bool>,
    /// MC-stress: whether wall contacts are left out of σ (default false: they count).
    pub exclude_walls: Option<bool>,
    /// MC-stress: whether Coulomb friction is capped by the Hertz force (default false: by the
    /// corrected force).
    pub cap_hertz: Option<bool>,
    #[serde(default)]
    pub materials: BTreeMap<String, SphereMaterialSpec>,
    #[serde(default)]
    pub particles: Vec<ParticlesSpec>,
    #[serde(default)]
    pub walls: Vec<SphereWallSpec>,
    /// The walls that bound the sample (stress, strain, packing fraction).
    pub measure: Option<SphereMeasureSpec>,
    /// Bodies of bonded beads, eq-6 planes and point loads (`super::beads`).
    pub beads: Option<super::beads::BeadsSection>,
    /// A membrane-enclosed triaxial cell (`super::membrane`).
    pub membrane: Option<super::membrane::MembraneSection>,
}

/// `[spheres.materials.NAME]`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SphereMaterialSpec {
    /// Young's modulus E [pressure]; omit with `rigid = true` (walls).
    pub young: Option<f64>,
    /// A rigid material (E = ∞): the law's E* and G* are the other partner's.
    pub rigid: Option<bool>,
    pub poisson: Option<f64>,
    /// Density ρ [mass/length³] (spheres' materials).
    pub density: Option<f64>,
    /// Coefficient of restitution e (0 < e ≤ 1) from which the normal damping is set.
    pub restitution: Option<f64>,
    /// Coulomb friction μ.
    pub friction: Option<f64>,
    /// Rolling friction μ_r (default 0: off).
    pub rolling_friction: Option<f64>,
}

/// `[[spheres.particles]]`: one generator, selected by `kind`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ParticlesSpec {
    /// lattice | random | file | sphere
    pub kind: String,
    pub name: Option<String>,
    pub material: Option<String>,
    /// lattice, sphere: the radius.
    pub radius: Option<f64>,
    /// random: radii uniform in [r_min, r_max].
    pub r_min: Option<f64>,
    pub r_max: Option<f64>,
    pub count: Option<u64>,
    pub seed: Option<u64>,
    /// lattice: "simple_cubic" (default), "fcc" or "hcp".
    pub lattice: Option<String>,
    /// lattice: nearest-neighbour distance (default 2 radius).
    pub spacing: Option<f64>,
    /// Region of lattice and random: a box [min, max], or a cylinder (`center` of its base,
    /// `radius_region`, `height`, axis z).
    pub min: Option<[f64; 3]>,
    pub max: Option<[f64; 3]>,
    pub center: Option<[f64; 3]>,
    pub cylinder_radius: Option<f64>,
    pub height: Option<f64>,
    /// file: a CSV with columns x, y, z, r (relative to the scenario).
    pub path: Option<String>,
    /// Initial velocity and angular velocity of every sphere of the group.
    pub velocity: Option<[f64; 3]>,
    pub omega: Option<[f64; 3]>,
}

/// `[[spheres.walls]]`: one wall or a box of six, selected by `kind`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SphereWallSpec {
    /// plane | box | cylinder | servo
    pub kind: String,
    /// Stages and `[spheres.measure]` name walls; a box adds `.left` (−x), `.right` (+x),
    /// `.front` (−y), `.back` (+y), `.bottom` (−z), `.top` (+z).
    pub name: Option<String>,
    pub material: Option<String>,
    /// plane, servo: a point of the plane and its normal into the domain.
    pub point: Option<[f64; 3]>,
    pub normal: Option<[f64; 3]>,
    /// plane: velocity (default at rest).
    pub velocity: Option<[f64; 3]>,
    /// box: the inner corners.
    pub min: Option<[f64; 3]>,
    pub max: Option<[f64; 3]>,
    /// cylinder: a point of the axis, its direction and the radius (spheres inside).
    pub center: Option<[f64; 3]>,
    pub axis: Option<[f64; 3]>,
    pub radius: Option<f64>,
    /// servo: target stress (> 0 compression), gain [(length/time)/pressure], largest speed and
    /// the area the stress is measured over.
    pub target_stress: Option<f64>,
    pub gain: Option<f64>,
    pub max_speed: Option<f64>,
    pub area: Option<f64>,
    /// The wall's law with every sphere: "contact" (default: its `material`'s contact law) or
    /// "eq6", the bonded beads' rigid plane F = S p² (`stiffness` = S; no `material`).
    pub law: Option<String>,
    pub stiffness: Option<f64>,
}

/// `[spheres.measure]`: walls by name; the vertical axis is z.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SphereMeasureSpec {
    pub top: Option<String>,
    pub bottom: Option<String>,
    pub left: Option<String>,
    pub right: Option<String>,
    pub front: Option<String>,
    pub back: Option<String>,
    /// A cylinder wall: the sample's cross-section is π R² instead of the box's.
    pub cylinder: Option<String>,
    /// Name of the stage whose start defines H0 (default: the first that moves a wall).
    pub strain_from: Option<String>,
}

const PARTICLE_KINDS: &[(&str, &[&str])] = &[
    (
        "lattice",
        &[
            "material",
            "radius",
            "lattice",
            "spacing",
            "min",
            "max",
            "center",
            "cylinder_radius",
            "height",
            "velocity",
            "omega",
        ],
    ),
    (
        "random",
        &[
            "material",
            "r_min",
            "r_max",
            "count",
            "seed",
            "min",
            "max",
            "center",
            "cylinder_radius",
            "height",
            "velocity",
            "omega",
        ],
    ),
    ("file", &["material", "path", "velocity", "omega"]),
    ("sphere", &["material", "radius", "center", "velocity", "omega"]),
];
const WALL_KINDS: &[(&str, &[&str])] = &[
    (
        "plane",
        &["material", "law", "stiffness", "point", "normal", "velocity"],
    ),
    ("box", &["material", "law", "stiffness", "min", "max"]),
    (
        "cylinder",
        &["material", "law", "stiffness", "center", "axis", "radius"],
    ),
    (
        "servo",
        &[
            "material",
            "law",
            "stiffness",
            "point",
            "normal",
            "target_stress",
            "gain",
            "max_speed",
            "area",
        ],
    ),
];

/// Every key of any kind of a table (what `check_kind_keys` refuses for the other kinds).
fn all_keys(table: &[(&str, &[&'static str])]) -> Vec<&'static str> {
    let mut keys: Vec<&'static str> = table.iter().flat_map(|(_, k)| k.iter().copied()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// Names of a box's six walls, in `box_walls` order (−x, +x, −y, +y, −z, +z).
pub const BOX_SIDES: [&str; 6] = ["left", "right", "front", "back", "bottom", "top"];

/// Which walls bound the sample (indices of `SphereBuilt::walls`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SphereMeasure {
    pub top: Option<u32>,
    pub bottom: Option<u32>,
    pub left: Option<u32>,
    pub right: Option<u32>,
    pub front: Option<u32>,
    pub back: Option<u32>,
    pub cylinder: Option<u32>,
}

/// A `[spheres]` scenario resolved: what the sphere kind is built from.
#[derive(Clone, Debug)]
pub struct SphereBuilt {
    pub params: SphereParams,
    pub states: Vec<SphereState>,
    pub laws: LawTable,
    pub walls: Vec<PlaneWall>,
    pub wall_names: Vec<String>,
    pub material_names: Vec<String>,
    /// Per `[[spheres.particles]]` entry: its name and its spheres.
    pub groups: Vec<(String, std::ops::Range<u32>)>,
    pub measure: SphereMeasure,
    /// Rayleigh time of the smallest sphere (the time-step reference).
    pub rayleigh_dt: f64,
    pub mean_radius: f64,
    pub min_radius: f64,
    /// Bead bodies (spheres 0..n_beads; `super::beads`).
    pub beads: Option<std::rc::Rc<super::beads::BeadsBuilt>>,
    /// The membrane (its vertices are the last spheres; `super::membrane`).
    pub membrane: Option<std::rc::Rc<super::membrane::MembraneBuilt>>,
}

impl SphereBuilt {
    /// The group and index within it of sphere `i`, for messages.
    pub fn describe(&self, i: u32) -> String {
        match self.groups.iter().find(|(_, r)| r.contains(&i)) {
            Some((name, r)) => format!("sphere {i} (\"{name}\", number {} of the group)", i - r.start),
            None => format!("sphere {i}"),
        }
    }
}

/// Rayleigh time π r sqrt(ρ/G)/(0.1631 ν + 0.8766) of a sphere (the usual DEM time-step
/// reference for Hertz contacts; a fraction 0.1–0.3 of it is customary).
pub fn rayleigh_time(radius: f64, m: &SphereMaterial) -> f64 {
    let g = m.young / (2.0 * (1.0 + m.poisson));
    std::f64::consts::PI * radius * (m.density / g).sqrt() / (0.1631 * m.poisson + 0.8766)
}

fn positive(path: &str, x: Option<f64>, what: &str) -> Result<f64, Problem> {
    match x {
        None => Err(Problem::new(
            path,
            format!("missing field `{}` ({what})", path.rsplit('.').next().unwrap()),
        )),
        Some(v) if !(v > 0.0) || !v.is_finite() => Err(Problem::new(
            path,
            format!("{} = {v} must be > 0", path.rsplit('.').next().unwrap()),
        )),
        Some(v) => Ok(v),
    }
}

fn unit(path: &str, v: [f64; 3]) -> Result<[f64; 3], Problem> {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if !(n > 0.0) || !n.is_finite() {
        return Err(Problem::new(path, "the direction must be a non-zero finite vector"));
    }
    Ok(v.map(|x| x / n))
}

impl Scenario {
    /// True when the file describes 3D spheres (`[spheres]`).
    pub fn is_spheres(&self) -> bool {
        self.file.spheres.is_some()
    }

    /// A `[spheres]` scenario as the driver runs it (`engine::spheres`): a `Built` without SPD
    /// points whose walls are the `[[spheres.walls]]` (ids: their indices), stages resolved
    /// against them, and the spheres.
    pub fn build_sphere_run(&self) -> Result<(super::Built, SphereBuilt), ScenarioError> {
        let at = |p: Problem| self.error(p);
        let sb = self.build_spheres().map_err(at)?;
        let scene = crate::model::Scene {
            time_step: crate::model::TimeStep::Fixed(sb.params.dt),
            ..Default::default()
        };
        let geometry = super::geometry::Geometry {
            walls: sb.wall_names.iter().cloned().zip(0..).collect(),
            ..Default::default()
        };
        let measure = super::stages::MeasureWalls {
            top: sb.measure.top,
            bottom: sb.measure.bottom,
            left: sb.measure.left,
            right: sb.measure.right,
        };
        let stages = super::stages::resolve(
            &self.file.stages,
            &geometry,
            &measure,
            &scene,
            self.settings.check_every,
        )
        .map_err(at)?;
        if sb.membrane.is_none() {
            super::stages::refuse_confining(&stages).map_err(at)?;
        }
        // A servo wall moves by its own law (on the device); a stage cannot move it, except a
        // membrane's servo top platen, which a stage turns into a plane wall (`engine::spheres`).
        let servo_platen = sb.membrane.as_ref().map(|m| m.top);
        for (i, st) in stages.iter().enumerate() {
            if let Some(w) = st.wall() {
                if sb.walls[w as usize].kind == crate::spheres::WALL_SERVO && Some(w) != servo_platen {
                    return Err(at(Problem::new(
                        format!("stages[{i}].wall"),
                        format!(
                            "wall \"{}\" is a servo wall: it moves by its own law (target_stress, gain); \
                             a stage can move plane, box and cylinder walls",
                            sb.wall_names[w as usize]
                        ),
                    )));
                }
            }
        }
        let sec = self.file.spheres.as_ref().expect("a [spheres] scenario");
        let strain_from = match sec.measure.as_ref().and_then(|m| m.strain_from.as_ref()) {
            None => None,
            Some(name) => Some(stages.iter().position(|s| &s.name == name).ok_or_else(|| {
                at(Problem::new(
                    "spheres.measure.strain_from",
                    format!(
                        "no stage named \"{name}\" (stages: {})",
                        stages.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                ))
            })?),
        };
        let mut settings = self.settings.clone();
        // Runaway: a sphere faster than a quarter of the smallest radius per step.
        settings.max_speed = Some(settings.max_speed.unwrap_or(0.25 * sb.min_radius / sb.params.dt as f64));
        let built = super::Built {
            scene,
            geometry,
            measure,
            stages,
            strain_from,
            settings,
            sigma_star: None,
            dimension: 3,
        };
        Ok((built, sb))
    }

    fn build_spheres(&self) -> Result<SphereBuilt, Problem> {
        let sec = self.file.spheres.as_ref().expect("a [spheres] scenario");
        if !self.file.bodies.is_empty() || self.file.modal.is_some() || self.file.contact.is_some() {
            let key = if !self.file.bodies.is_empty() {
                "bodies"
            } else if self.file.modal.is_some() {
                "modal"
            } else {
                "contact"
            };
            return Err(Problem::new(
                key,
                format!("a [spheres] scenario is 3D: it cannot have [{key}] (2D cells and modal bodies do not couple with spheres)"),
            ));
        }
        // Materials, in name order (their index in the law table).
        if sec.materials.is_empty() {
            return Err(Problem::new(
                "spheres",
                "no [spheres.materials.NAME]: define at least one",
            ));
        }
        let mut mats = vec![];
        let mut names = vec![];
        for (name, m) in &sec.materials {
            let p = format!("spheres.materials.{name}");
            let rigid = m.rigid.unwrap_or(false);
            let young = match (rigid, m.young) {
                (true, Some(_)) => return Err(Problem::new(format!("{p}.young"), "a rigid material has no young")),
                (true, None) => f64::INFINITY,
                (false, y) => positive(&format!("{p}.young"), y, "Young's modulus, or rigid = true")?,
            };
            let poisson = m.poisson.unwrap_or(0.3);
            if !(poisson > -1.0 && poisson <= 0.5) {
                return Err(Problem::new(
                    format!("{p}.poisson"),
                    format!("poisson = {poisson} must be in (−1, 0.5]"),
                ));
            }
            let restitution = m.restitution.unwrap_or(0.5);
            if !(restitution > 0.0 && restitution <= 1.0) {
                return Err(Problem::new(
                    format!("{p}.restitution"),
                    format!("restitution = {restitution} must be in (0, 1]"),
                ));
            }
            for (k, v) in [("friction", m.friction), ("rolling_friction", m.rolling_friction)] {
                if let Some(x) = v {
                    if !(x >= 0.0) {
                        return Err(Problem::new(format!("{p}.{k}"), format!("{k} = {x} must be ≥ 0")));
                    }
                }
            }
            let density = match m.density {
                Some(d) => positive(&format!("{p}.density"), Some(d), "")?,
                None => 0.0,
            };
            mats.push(SphereMaterial {
                young,
                poisson,
                restitution,
                friction: m.friction.unwrap_or(0.0),
                rolling_friction: m.rolling_friction.unwrap_or(0.0),
                density,
            });
            names.push(name.clone());
        }
        let material = |path: &str, name: &Option<String>| -> Result<u32, Problem> {
            let n = name
                .as_ref()
                .ok_or_else(|| Problem::new(path, "missing field `material`"))?;
            names.iter().position(|x| x == n).map(|i| i as u32).ok_or_else(|| {
                Problem::new(
                    format!("{path}.material"),
                    format!("no material named \"{n}\" (materials: {})", names.join(", ")),
                )
            })
        };
        let laws = self.law_table(sec, &mats)?;
        // Particles.
        let mut states = vec![];
        let mut groups = vec![];
        for (i, ps) in sec.particles.iter().enumerate() {
            let p = format!("spheres.particles[{i}]");
            super::check_kind_keys(self, &p, "kind", &ps.kind, PARTICLE_KINDS, &all_keys(PARTICLE_KINDS))?;
            let mat = material(&p, &ps.material)?;
            let m = &mats[mat as usize];
            if !(m.density > 0.0) || !m.young.is_finite() {
                return Err(Problem::new(
                    format!("{p}.material"),
                    format!(
                        "material \"{}\" needs a density and a finite young to make spheres",
                        names[mat as usize]
                    ),
                ));
            }
            let spheres = self.generate(&p, ps)?;
            if spheres.is_empty() {
                return Err(Problem::new(p, "the generator made no sphere (region too small?)"));
            }
            let first = states.len() as u32;
            let v = ps.velocity.unwrap_or([0.0; 3]);
            let w = ps.omega.unwrap_or([0.0; 3]);
            for s in spheres {
                let mut st = SphereState::solid(s.center, s.radius, m.density, mat);
                st.vel = v.map(|x| x as f32);
                st.omega = w.map(|x| x as f32);
                states.push(st);
            }
            let name = ps.name.clone().unwrap_or_else(|| format!("{}{i}", ps.kind));
            groups.push((name, first..states.len() as u32));
        }
        // A membrane's dense preparation: its grains follow the particles (`super::membrane::grow`).
        let grown = match &sec.membrane {
            None => None,
            Some(m) => {
                let dt_rule = |r: f64, mat: &SphereMaterial| -> Result<f64, Problem> {
                    Ok(match sec.dt {
                        Some(dt) => positive("spheres.dt", Some(dt), "")?,
                        None => sec.dt_fraction.unwrap_or(0.2) * rayleigh_time(r, mat),
                    })
                };
                super::membrane::grow(m, &mats, &material, &dt_rule)?
            }
        };
        if let Some(g) = &grown {
            if !sec.particles.is_empty() {
                return Err(Problem::new(
                    "spheres.membrane.packing",
                    "the packing makes the grains: a scenario with it has no [[spheres.particles]]",
                ));
            }
            let first = states.len() as u32;
            states.extend(g.grains.iter().copied());
            groups.push((g.name.clone(), first..states.len() as u32));
        }
        // Bead bodies: their beads first (the bond source's spheres 0..n_beads).
        let particle_materials: Vec<Option<&str>> = sec.particles.iter().map(|ps| ps.material.as_deref()).collect();
        let beads = self.build_beads(sec.beads.as_ref(), &particle_materials, &mats, &names)?;
        let n_beads = beads.as_ref().map_or(0, |b| b.n_beads());
        if let Some(b) = &beads {
            states.splice(0..0, b.states.iter().copied());
            for g in &mut groups {
                g.1 = g.1.start + n_beads as u32..g.1.end + n_beads as u32;
            }
            groups.splice(0..0, b.bodies.iter().cloned());
        }
        let mut laws = laws;
        if let Some(b) = &beads {
            super::beads::separate_bead_materials(&mut laws, &b.materials);
        }
        if states.is_empty() {
            return Err(Problem::new("spheres", "no spheres: add a [[spheres.particles]] entry"));
        }
        if states.len() >= (u32::MAX / 64) as usize {
            return Err(Problem::new(
                "spheres.particles",
                format!("{} spheres is too many", states.len()),
            ));
        }
        // Walls.
        let mut walls = vec![];
        let mut wall_names = vec![];
        let mut eq6_walls = vec![];
        for (i, ws) in sec.walls.iter().enumerate() {
            let p = format!("spheres.walls[{i}]");
            super::check_kind_keys(self, &p, "kind", &ws.kind, WALL_KINDS, &all_keys(WALL_KINDS))?;
            // An eq-6 wall gets a material of its own after the loop (`beads::add_eq6_material`).
            let eq6 = super::beads::wall_law(&p, &ws.law, ws.stiffness, ws.material.is_some())?;
            let mat = match eq6 {
                Some(_) => u32::MAX,
                None => material(&p, &ws.material)?,
            };
            let first_wall = walls.len();
            let name = ws.name.clone().unwrap_or_else(|| format!("{}{i}", ws.kind));
            let need =
                |k: &str, v: Option<[f64; 3]>| v.ok_or_else(|| Problem::new(p.clone(), format!("missing field `{k}`")));
            match ws.kind.as_str() {
                "plane" => {
                    let n = unit(&format!("{p}.normal"), need("normal", ws.normal)?)?;
                    walls.push(PlaneWall::new(
                        need("point", ws.point)?,
                        n,
                        ws.velocity.unwrap_or([0.0; 3]),
                        mat,
                    ));
                    wall_names.push(name);
                }
                "servo" => {
                    let n = unit(&format!("{p}.normal"), need("normal", ws.normal)?)?;
                    let target = positive(&format!("{p}.target_stress"), ws.target_stress, "stress to hold")?;
                    let gain = positive(&format!("{p}.gain"), ws.gain, "(length/time)/pressure")?;
                    let area = positive(&format!("{p}.area"), ws.area, "area the stress is measured over")?;
                    let vmax = positive(&format!("{p}.max_speed"), ws.max_speed, "largest speed")?;
                    walls.push(PlaneWall::servo(
                        need("point", ws.point)?,
                        n,
                        area,
                        target,
                        gain,
                        vmax,
                        mat,
                    ));
                    wall_names.push(name);
                }
                "cylinder" => {
                    let axis = unit(&format!("{p}.axis"), ws.axis.unwrap_or([0.0, 0.0, 1.0]))?;
                    let r = positive(&format!("{p}.radius"), ws.radius, "radius")?;
                    walls.push(PlaneWall::cylinder(need("center", ws.center)?, axis, r, mat));
                    wall_names.push(name);
                }
                "box" => {
                    let (lo, hi) = (need("min", ws.min)?, need("max", ws.max)?);
                    if !(0..3).all(|k| hi[k] > lo[k]) {
                        return Err(Problem::new(format!("{p}.max"), "max must exceed min on every axis"));
                    }
                    walls.extend(crate::spheres::box_walls(lo, hi, mat));
                    wall_names.extend(BOX_SIDES.iter().map(|s| format!("{name}.{s}")));
                }
                _ => unreachable!("checked by check_kind_keys"),
            }
            if let Some(stiffness) = eq6 {
                eq6_walls.push((
                    first_wall..walls.len(),
                    stiffness,
                    ws.name.clone().unwrap_or_else(|| format!("{}{i}", ws.kind)),
                ));
            }
        }
        for (r, stiffness, name) in eq6_walls {
            let m = super::beads::add_eq6_material(&mut laws, stiffness);
            names.push(format!("{name} (eq 6)"));
            for w in &mut walls[r] {
                w.material = m;
            }
        }
        for (i, n) in wall_names.iter().enumerate() {
            if wall_names[..i].contains(n) {
                return Err(Problem::new("spheres.walls", format!("two walls are named \"{n}\"")));
            }
        }
        // Sample walls: [spheres.measure], else the first box.
        let find = |key: &str, n: &Option<String>| -> Result<Option<u32>, Problem> {
            match n {
                None => Ok(None),
                Some(n) => wall_names
                    .iter()
                    .position(|w| w == n)
                    .map(|i| Some(i as u32))
                    .ok_or_else(|| {
                        Problem::new(
                            format!("spheres.measure.{key}"),
                            format!("no wall named \"{n}\" (walls: {})", wall_names.join(", ")),
                        )
                    }),
            }
        };
        // The first box's sides unless [spheres.measure] names others.
        let mut measure = match sec.walls.iter().position(|w| w.kind == "box") {
            None => SphereMeasure::default(),
            Some(b) => {
                let first = sec.walls[..b]
                    .iter()
                    .map(|w| if w.kind == "box" { 6 } else { 1 })
                    .sum::<u32>();
                SphereMeasure {
                    left: Some(first),
                    right: Some(first + 1),
                    front: Some(first + 2),
                    back: Some(first + 3),
                    bottom: Some(first + 4),
                    top: Some(first + 5),
                    cylinder: None,
                }
            }
        };
        if let Some(m) = &sec.measure {
            for (key, name, slot) in [
                ("top", &m.top, &mut measure.top),
                ("bottom", &m.bottom, &mut measure.bottom),
                ("left", &m.left, &mut measure.left),
                ("right", &m.right, &mut measure.right),
                ("front", &m.front, &mut measure.front),
                ("back", &m.back, &mut measure.back),
                ("cylinder", &m.cylinder, &mut measure.cylinder),
            ] {
                if let Some(w) = find(key, name)? {
                    *slot = Some(w);
                }
            }
        }
        if let Some(c) = measure.cylinder {
            if walls[c as usize].kind != crate::spheres::WALL_CYLINDER {
                return Err(Problem::new("spheres.measure.cylinder", "this wall is not a cylinder"));
            }
        }
        // Overlaps at the start are allowed (a compressed packing) but not by more than 1 % of
        // the smaller radius: beyond that it is usually a generator mistake.
        check_initial_overlaps(&states, &groups, n_beads)?;
        // Time step and skin.
        let r_min = states.iter().map(|s| s.radius as f64).fold(f64::INFINITY, f64::min);
        // The Rayleigh time and the default skin from the particles (beads: their bonds' bound
        // and half their spacing, `super::beads`).
        let particles = &states[n_beads..];
        let r_mean = particles.iter().map(|s| s.radius as f64).sum::<f64>() / particles.len() as f64;
        if particles.is_empty() && sec.dt.is_none() {
            return Err(Problem::new(
                "spheres.dt",
                "missing field `dt`: a scenario of bead bodies alone has no Rayleigh time to take a fraction of",
            ));
        }
        let rayleigh = particles
            .iter()
            .map(|s| rayleigh_time(s.radius as f64, &mats[s.material as usize]))
            .fold(f64::INFINITY, f64::min);
        if sec.dt.is_some() && sec.dt_fraction.is_some() {
            return Err(Problem::new(
                "spheres.dt_fraction",
                "give either dt or dt_fraction, not both",
            ));
        }
        let dt = match (sec.dt, sec.dt_fraction) {
            (Some(dt), _) => positive("spheres.dt", Some(dt), "")?,
            (None, f) => positive("spheres.dt_fraction", Some(f.unwrap_or(0.2)), "")? * rayleigh,
        };
        if let Some(b) = &beads {
            b.check_dt(
                dt,
                if sec.dt.is_some() {
                    "spheres.dt"
                } else {
                    "spheres.dt_fraction"
                },
            )?;
        }
        let law_linear = sec.law.as_deref() == Some("linear");
        if !law_linear && dt > rayleigh {
            let key = if sec.dt.is_some() {
                "spheres.dt"
            } else {
                "spheres.dt_fraction"
            };
            return Err(Problem::new(
                key,
                format!("time step dt = {dt:.4e} is above the Rayleigh time {rayleigh:.4e} of the smallest sphere (0.1–0.3 of it is customary)"),
            ));
        }
        let skin = match (sec.skin, &beads) {
            (Some(s), _) => positive("spheres.skin", Some(s), "")?,
            (None, Some(b)) if particles.is_empty() => 0.5 * b.spacing.iter().copied().fold(f64::INFINITY, f64::min),
            (None, _) => 0.1 * r_mean,
        };
        let (global_damping, local_damping) = (sec.global_damping.unwrap_or(0.0), sec.local_damping.unwrap_or(0.0));
        if !(global_damping >= 0.0) {
            return Err(Problem::new("spheres.global_damping", "global_damping must be ≥ 0"));
        }
        if !(0.0..1.0).contains(&local_damping) {
            return Err(Problem::new("spheres.local_damping", "local_damping must be in [0, 1)"));
        }
        let params = SphereParams {
            dt: dt as f32,
            skin: skin as f32,
            global_damping: global_damping as f32,
            local_damping: local_damping as f32,
            ..Default::default()
        };
        // The membrane's vertices come last (not in the overlap check nor the Rayleigh time).
        let (laws, membrane) = match &sec.membrane {
            None => (laws, None),
            Some(m) => {
                let (t, mb) = super::membrane::build(
                    m,
                    &mats,
                    &laws,
                    &mut states,
                    &mut walls,
                    &wall_names,
                    &params,
                    grown.as_ref(),
                )?;
                groups.push(("membrane".into(), mb.first..mb.first + mb.n_vertices));
                names.push("membrane".into());
                (t, Some(std::rc::Rc::new(mb)))
            }
        };
        Ok(SphereBuilt {
            params,
            states,
            laws,
            walls,
            wall_names,
            material_names: names,
            groups,
            measure,
            rayleigh_dt: rayleigh,
            mean_radius: r_mean,
            min_radius: r_min,
            beads: beads.map(std::rc::Rc::new),
            membrane,
        })
    }

    fn law_table(&self, sec: &SpheresSection, mats: &[SphereMaterial]) -> Result<LawTable, Problem> {
        let table = match sec.law.as_deref().unwrap_or("hertz_mindlin") {
            "hertz_mindlin" => {
                for (k, v) in [("k_n", sec.k_n), ("k_t", sec.k_t)] {
                    if v.is_some() {
                        return Err(Problem::new(
                            format!("spheres.{k}"),
                            format!("`{k}` belongs to law = \"linear\""),
                        ));
                    }
                }
                LawTable::hertz_mindlin(mats)
            }
            "linear" => {
                let k_n = positive("spheres.k_n", sec.k_n, "normal stiffness of law = \"linear\"")?;
                let k_t = sec.k_t.unwrap_or(0.0);
                let n = mats.len();
                let mut laws = vec![];
                for a in mats {
                    for b in mats {
                        let e = crate::laws::mixing::mix_mean(a.restitution, b.restitution);
                        let mu = crate::laws::mixing::mix_mean(a.friction, b.friction);
                        laws.push(PairLaw::linear(k_n, k_t, e, mu));
                    }
                }
                LawTable { n_materials: n, laws }
            }
            other => {
                return Err(Problem::new(
                    "spheres.law",
                    format!("law = \"{other}\" is not one of hertz_mindlin, linear"),
                ))
            }
        };
        let mut options = 0;
        if sec.include_self.unwrap_or(false) {
            options |= MC_INCLUDE_SELF;
        }
        if sec.exclude_walls.unwrap_or(false) {
            options |= MC_EXCLUDE_WALLS;
        }
        if sec.cap_hertz.unwrap_or(false) {
            options |= MC_CAP_HERTZ;
        }
        let mc = sec.multi_contact.as_deref().unwrap_or("none");
        let stray = |k: &str, v: bool| -> Result<(), Problem> {
            if v {
                return Err(Problem::new(
                    format!("spheres.{k}"),
                    format!("`{k}` does not apply to multi_contact = \"{mc}\""),
                ));
            }
            Ok(())
        };
        let mc_keys = sec.include_self.is_some() || sec.exclude_walls.is_some() || sec.cap_hertz.is_some();
        Ok(match mc {
            "none" => {
                stray("beta", sec.beta.is_some())?;
                stray("gamma", sec.gamma.is_some())?;
                stray("pressure", sec.pressure.is_some())?;
                stray("include_self", mc_keys)?;
                table
            }
            "stress" => {
                stray("gamma", sec.gamma.is_some())?;
                if sec.law.as_deref() == Some("linear") {
                    return Err(Problem::new(
                        "spheres.multi_contact",
                        "MC-stress is an option of the Hertz law",
                    ));
                }
                let beta = positive("spheres.beta", sec.beta, "MC-stress prefactor β of eq 10")?;
                let mut t = table.with_mc_stress(beta, options);
                match sec.pressure.as_deref().unwrap_or("appendix") {
                    "appendix" => {}
                    "eq10" => t.laws.iter_mut().for_each(|l| l.mc.pressure_factor = MC_PRESSURE_EQ10),
                    "eq11" => {
                        if sec.include_self == Some(false) {
                            return Err(Problem::new(
                                "spheres.include_self",
                                "pressure = \"eq11\" includes contact ij in σ_i and σ_j (eq 11's P_4 sums all \
                                 four contacts): include_self = false contradicts it",
                            ));
                        }
                        t.laws.iter_mut().for_each(|l| {
                            l.mc.pressure_factor = MC_PRESSURE_EQ11;
                            l.mc.options |= MC_EQ11;
                        })
                    }
                    other => {
                        return Err(Problem::new(
                            "spheres.pressure",
                            format!(
                                "pressure = \"{other}\" is not one of appendix (k = 1/6), eq10 (k = 1/3), \
                                 eq11 (eq 11 as printed: k = 1/2, self included, |l| = d)"
                            ),
                        ))
                    }
                }
                t
            }
            "strain" => {
                stray("beta", sec.beta.is_some())?;
                stray("pressure", sec.pressure.is_some())?;
                if sec.law.as_deref() == Some("linear") {
                    return Err(Problem::new(
                        "spheres.multi_contact",
                        "MC-strain is an option of the Hertz law",
                    ));
                }
                let gamma = positive("spheres.gamma", sec.gamma, "MC-strain prefactor γ of eq 7")?;
                table.with_mc_strain(gamma, options)
            }
            other => {
                return Err(Problem::new(
                    "spheres.multi_contact",
                    format!("multi_contact = \"{other}\" is not one of none, stress, strain"),
                ))
            }
        })
    }

    fn generate(&self, p: &str, ps: &ParticlesSpec) -> Result<Vec<Sphere>, Problem> {
        let region = || -> Result<Region, Problem> {
            match (ps.min, ps.max, ps.center) {
                (Some(min), Some(max), None) => {
                    if !(0..3).all(|k| max[k] > min[k]) {
                        return Err(Problem::new(format!("{p}.max"), "max must exceed min on every axis"));
                    }
                    Ok(Region::Box { min, max })
                }
                (None, None, Some(c)) => {
                    let r = positive(&format!("{p}.cylinder_radius"), ps.cylinder_radius, "the region's radius")?;
                    let h = positive(&format!("{p}.height"), ps.height, "the region's height")?;
                    Ok(Region::Cylinder {
                        axis: [c[0], c[1]],
                        radius: r,
                        z: [c[2], c[2] + h],
                    })
                }
                _ => Err(Problem::new(
                    p,
                    "give the region as min and max (a box), or center, cylinder_radius and height (a cylinder along z)",
                )),
            }
        };
        match ps.kind.as_str() {
            "lattice" => {
                let r = positive(&format!("{p}.radius"), ps.radius, "radius")?;
                let kind = match ps.lattice.as_deref().unwrap_or("simple_cubic") {
                    "simple_cubic" => Lattice::SimpleCubic,
                    "fcc" => Lattice::Fcc,
                    "hcp" => Lattice::Hcp,
                    other => {
                        return Err(Problem::new(
                            format!("{p}.lattice"),
                            format!("lattice = \"{other}\" is not one of simple_cubic, fcc, hcp"),
                        ))
                    }
                };
                let spacing = match ps.spacing {
                    Some(s) => positive(&format!("{p}.spacing"), Some(s), "")?,
                    None => 2.0 * r,
                };
                Ok(generators::lattice(kind, r, spacing, &region()?))
            }
            "random" => {
                let r_min = positive(&format!("{p}.r_min"), ps.r_min, "smallest radius")?;
                let r_max = positive(&format!("{p}.r_max"), ps.r_max, "largest radius")?;
                if r_max < r_min {
                    return Err(Problem::new(format!("{p}.r_max"), "r_max must be ≥ r_min"));
                }
                let count = ps.count.ok_or_else(|| Problem::new(p, "missing field `count`"))?;
                generators::random_packing(&RandomPacking {
                    region: region()?,
                    count: count as usize,
                    r_min,
                    r_max,
                    seed: ps.seed.unwrap_or(1),
                    attempts: 10_000,
                })
                .map_err(|m| Problem::new(format!("{p}.count"), m))
            }
            "file" => {
                let path = ps
                    .path
                    .as_ref()
                    .ok_or_else(|| Problem::new(p, "missing field `path`"))?;
                generators::read_spheres_csv(&self.base_dir.join(path))
                    .map_err(|m| Problem::new(format!("{p}.path"), m))
            }
            "sphere" => {
                let r = positive(&format!("{p}.radius"), ps.radius, "radius")?;
                let c = ps.center.ok_or_else(|| Problem::new(p, "missing field `center`"))?;
                Ok(vec![Sphere { center: c, radius: r }])
            }
            _ => unreachable!("checked by check_kind_keys"),
        }
    }
}

/// Errors when two spheres overlap by more than 1 % of the smaller radius (cell list, no
/// all-pairs), naming both.
/// Beads (the first `n_beads`) do not touch each other: their overlaps are not checked.
fn check_initial_overlaps(
    states: &[SphereState],
    groups: &[(String, std::ops::Range<u32>)],
    n_beads: usize,
) -> Result<(), Problem> {
    let mut params = SphereParams {
        n_spheres: states.len() as u32,
        ..Default::default()
    };
    crate::spheres::cell_list::fit_grid(&mut params, states);
    let list = crate::spheres::cell_list::build_neighbor_list(&params, states);
    let group = |i: u32| groups.iter().position(|(_, r)| r.contains(&i)).unwrap_or(0);
    for i in 0..states.len() {
        for k in list.start[i]..list.start[i + 1] {
            let j = list.partner[k as usize] as usize;
            if j < n_beads {
                continue;
            }
            let (a, b) = (&states[i], &states[j]);
            let d = crate::laws::vec3::norm(crate::spheres::precision::df3_sub(
                a.pos_hi, a.pos_lo, b.pos_hi, b.pos_lo,
            ));
            let delta = a.radius + b.radius - d;
            if delta > 0.01 * a.radius.min(b.radius) {
                let (gi, gj) = (group(i as u32), group(j as u32));
                return Err(Problem::new(
                    format!("spheres.particles[{gj}]"),
                    format!(
                        "spheres {i} (\"{}\") and {j} (\"{}\") overlap by {delta:.3e}, more than 1 % of the smaller radius",
                        groups[gi].0, groups[gj].0
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::laws::mc_strain::MC_STRAIN;
    use crate::laws::mc_stress::MC_PRESSURE_APPENDIX;

    fn build(extra: &str) -> Result<SphereBuilt, String> {
        let text = format!(
            "[spheres]\ndt = 1e-5\n{extra}\n[spheres.materials.a]\nyoung = 1e6\ndensity = 1000.0\n\
             [[spheres.particles]]\nkind = \"sphere\"\nmaterial = \"a\"\nradius = 0.01\ncenter = [0.0, 0.0, 0.0]\n"
        );
        let sc =
            Scenario::from_text(&text, "t.toml", std::path::Path::new("."), "t", &[]).map_err(|e| e.to_string())?;
        sc.build_sphere_run().map(|(_, b)| b).map_err(|e| e.to_string())
    }

    /// Each documented multi-contact choice reaches the law table (docs/spheres.md, *Choices*).
    #[test]
    fn multi_contact_options_reach_the_law_table() {
        let law = |extra: &str| *build(extra).unwrap().laws.get(0, 0);
        assert_eq!(law("").mc.beta, 0.0);
        let s = law("multi_contact = \"stress\"\nbeta = 1.71");
        assert_eq!(
            (s.mc.beta, s.mc.options, s.mc.pressure_factor),
            (1.71, 0, MC_PRESSURE_APPENDIX)
        );
        assert_eq!(
            law("multi_contact = \"stress\"\nbeta = 1.0\npressure = \"eq10\"")
                .mc
                .pressure_factor,
            MC_PRESSURE_EQ10
        );
        let o =
            law("multi_contact = \"stress\"\nbeta = 1.0\ninclude_self = true\nexclude_walls = true\ncap_hertz = true")
                .mc
                .options;
        assert_eq!(o, MC_INCLUDE_SELF | MC_EXCLUDE_WALLS | MC_CAP_HERTZ);
        let e = law("multi_contact = \"stress\"\nbeta = 1.65\npressure = \"eq11\"\nexclude_walls = true");
        assert_eq!(
            (e.mc.pressure_factor, e.mc.options),
            (MC_PRESSURE_EQ11, MC_EQ11 | MC_EXCLUDE_WALLS)
        );
        let err =
            build("multi_contact = \"stress\"\nbeta = 1.0\npressure = \"eq11\"\ninclude_self = false").unwrap_err();
        assert!(err.contains("spheres.include_self") && err.contains("t.toml"), "{err}");
        let err = build("multi_contact = \"stress\"\nbeta = 1.0\npressure = \"eq12\"").unwrap_err();
        assert!(
            err.contains("spheres.pressure") && err.contains("eq11") && err.contains("t.toml"),
            "{err}"
        );
        let g = law("multi_contact = \"strain\"\ngamma = 0.55");
        assert_eq!((g.mc.beta, g.mc.options), (0.55, MC_STRAIN));
        assert!(build("multi_contact = \"stress\"")
            .unwrap_err()
            .contains("spheres.beta"));
        assert!(build("multi_contact = \"strain\"\ngamma = 1.0\npressure = \"eq10\"")
            .unwrap_err()
            .contains("spheres.pressure"));
        assert!(build("law = \"linear\"").unwrap_err().contains("spheres.k_n"));
    }

    /// The Rayleigh time and the default dt_fraction of 0.2.
    #[test]
    fn default_time_step_is_a_fifth_of_the_rayleigh_time() {
        let text = "[spheres]\n[spheres.materials.a]\nyoung = 1.85e6\npoisson = 0.46\ndensity = 2000.0\n\
                    [[spheres.particles]]\nkind = \"sphere\"\nmaterial = \"a\"\nradius = 0.01\ncenter = [0.0, 0.0, 0.0]\n";
        let sc = Scenario::from_text(text, "t.toml", std::path::Path::new("."), "t", &[]).unwrap();
        let (_, b) = sc.build_sphere_run().unwrap();
        // π r sqrt(ρ/G) / (0.1631 ν + 0.8766), G = E / (2 (1 + ν)).
        let g = 1.85e6 / (2.0 * 1.46);
        let t_r = std::f64::consts::PI * 0.01 * (2000.0f64 / g).sqrt() / (0.1631 * 0.46 + 0.8766);
        // (The radius is stored as f32.)
        assert!((b.rayleigh_dt / t_r - 1.0).abs() < 1e-7);
        assert!((b.params.dt as f64 / (0.2 * t_r) - 1.0).abs() < 1e-6);
    }
}
