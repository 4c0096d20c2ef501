//! Geometry generators: regular-polygon cells, polydisperse random packings without overlaps,
//! boxes of wall lines, single walls, beams with clamped nodes, and cells read from CSV/JSON
//! polygon files. Each `[[bodies]]` entry adds bodies to the `Scene` and registers its name.

use super::deposit::drop_and_roll;
use super::materials::ResolvedMaterial;
use super::Problem;
use crate::model::*;
use crate::scenes::SplitMix;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::f64::consts::PI;
use std::path::Path;

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

/// What the generators built besides the `Scene`.
#[derive(Clone, Debug, Default)]
pub struct Geometry {
    /// Named groups of bodies (a box registers `NAME.bottom`, `.top`, `.left`, `.right` and `NAME`).
    pub groups: BTreeMap<String, Vec<u32>>,
    /// Frozen lines (box sides and walls) in order, with their names: the series columns.
    pub walls: Vec<(String, u32)>,
    /// Index of the `[[bodies]]` entry that made each body.
    pub origin: Vec<usize>,
}

/// Allowed keys of each generator kind (besides `kind` and `name`).
pub const BODY_KINDS: &[(&str, &[&str])] = &[
    (
        "ring",
        &[
            "material",
            "center",
            "radius",
            "nodes",
            "half_thickness",
            "core",
            "p0",
            "self_contact",
            "velocity",
        ],
    ),
    (
        "packing",
        &[
            "material",
            "min",
            "max",
            "count",
            "radius",
            "spread",
            "nodes",
            "seed",
            "gap",
            "placement",
            "half_thickness",
            "core",
            "p0",
            "self_contact",
            "velocity",
        ],
    ),
    ("box", &["min", "max", "segment", "half_thickness"]),
    ("wall", &["a", "b", "nodes", "segment", "half_thickness"]),
    (
        "beam",
        &[
            "material",
            "a",
            "b",
            "nodes",
            "half_thickness",
            "clamp",
            "clamp_nodes",
            "self_contact",
        ],
    ),
    (
        "file",
        &[
            "material",
            "path",
            "scale",
            "half_thickness",
            "core",
            "p0",
            "self_contact",
            "velocity",
        ],
    ),
    (
        "tissue",
        &[
            "material",
            "size",
            "radius",
            "spread",
            "jitter",
            "minkowski_radius",
            "segment",
            "seed",
            "link_law",
            "wall_link_law",
            "bond_walls",
            "side_walls",
            "core",
            "p0",
        ],
    ),
];

fn need<T: Copy>(i: usize, key: &str, v: Option<T>, kind: &str) -> Result<T, Problem> {
    v.ok_or_else(|| {
        Problem::new(
            format!("bodies[{i}]"),
            format!("missing field `{key}` (needed by kind `{kind}`)"),
        )
    })
}

fn positive(i: usize, key: &str, v: f64) -> Result<f64, Problem> {
    if v > 0.0 && v.is_finite() {
        Ok(v)
    } else {
        Err(Problem::new(
            format!("bodies[{i}].{key}"),
            format!("{key} = {v} must be > 0"),
        ))
    }
}

/// Number of nodes a `[[bodies]]` entry will create (checked against limits before generating).
pub fn planned_nodes(spec: &BodySpec, base: &Path) -> u64 {
    let n = spec.nodes.unwrap_or(0) as u64;
    match spec.kind.as_str() {
        "ring" | "beam" => n,
        "packing" => spec.count.unwrap_or(0) * n,
        "wall" => n.max(2),
        "box" => 400,
        "tissue" => match (spec.size, spec.radius) {
            (Some([w, h]), Some(r)) if r > 0.0 && w > 0.0 && h > 0.0 => {
                let cells = (w * h / (PI * r * r)).ceil().min(1e9);
                let seg = spec.segment.filter(|s| *s > 0.0).unwrap_or(0.3 * r);
                (cells * (8.0 * r / seg).ceil() + 4.0 * (w + h) / seg) as u64
            }
            _ => 0,
        },
        "file" => spec
            .path
            .as_ref()
            .and_then(|p| std::fs::metadata(base.join(p)).ok())
            .map(|m| m.len() / 8)
            .unwrap_or(0),
        _ => 0,
    }
}

fn core_of(i: usize, spec: &BodySpec) -> Result<Core, Problem> {
    let p0 = spec.p0.unwrap_or(0.0) as f32;
    Ok(match spec.core.as_deref().unwrap_or("undrained") {
        "none" => Core::None,
        "undrained" => Core::Undrained { p0 },
        "drained" => Core::Drained { p0 },
        "gas" => Core::Gas { p0 },
        other => {
            return Err(Problem::new(
                format!("bodies[{i}].core"),
                format!("core = \"{other}\" is not one of none, undrained, drained, gas"),
            ))
        }
    })
}

struct Ctx<'a> {
    scene: Scene,
    geo: Geometry,
    materials: &'a BTreeMap<String, (u32, ResolvedMaterial)>,
    wall_material: u32,
    /// Half-thickness of the first cells (default for walls).
    first_r: Option<f64>,
    /// Mean segment length of the cells so far (default wall segment).
    seg_sum: f64,
    seg_n: f64,
}

impl Ctx<'_> {
    fn material(&self, i: usize, spec: &BodySpec) -> Result<(u32, &ResolvedMaterial), Problem> {
        let name = spec.material.as_ref().ok_or_else(|| {
            Problem::new(
                format!("bodies[{i}]"),
                format!("missing field `material` (needed by kind `{}`)", spec.kind),
            )
        })?;
        self.materials.get(name).map(|(id, m)| (*id, m)).ok_or_else(|| {
            Problem::new(
                format!("bodies[{i}].material"),
                format!(
                    "unknown material \"{name}\" (defined: {})",
                    self.materials.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            )
        })
    }

    fn register(&mut self, name: &str, body: u32) {
        self.geo.groups.entry(name.to_string()).or_default().push(body);
    }

    fn cell_options(&self, i: usize, spec: &BodySpec, radius: f64) -> Result<(u32, BodyOptions, f64), Problem> {
        let (mat, _) = self.material(i, spec)?;
        let r = match spec.half_thickness {
            Some(h) => positive(i, "half_thickness", h)?,
            None => 0.05 * radius,
        };
        Ok((
            mat,
            BodyOptions {
                material: mat,
                radius: r as f32,
                node_mass: 1.0,
                frozen: false,
                self_contact: spec.self_contact.unwrap_or(true),
                core: core_of(i, spec)?,
            },
            r,
        ))
    }

    fn add_cell(&mut self, i: usize, spec: &BodySpec, name: &str, pts: &[[f64; 2]], mut o: BodyOptions) -> u32 {
        let mat = &self.materials.values().find(|(id, _)| *id == o.material).unwrap().1;
        o.node_mass = mat.node_mass_for(pts.len());
        let b = self.scene.add_body(pts, true, o);
        if let Some(v) = spec.velocity {
            self.scene
                .set_initial_velocity(&NodeSet::Body(b), [v[0] as f32, v[1] as f32]);
        }
        self.first_r.get_or_insert(o.radius as f64);
        let n = pts.len();
        for k in 0..n {
            let (a, c) = (pts[k], pts[(k + 1) % n]);
            self.seg_sum += (c[0] - a[0]).hypot(c[1] - a[1]);
            self.seg_n += 1.0;
        }
        self.geo.origin.push(i);
        self.register(name, b);
        b
    }

    fn wall_line(
        &mut self,
        i: usize,
        spec: &BodySpec,
        name: &str,
        a: [f64; 2],
        b: [f64; 2],
        nodes: Option<u32>,
    ) -> Result<u32, Problem> {
        let r = match spec.half_thickness {
            Some(h) => positive(i, "half_thickness", h)?,
            None => self.first_r.ok_or_else(|| {
                Problem::new(
                    format!("bodies[{i}]"),
                    "missing field `half_thickness` (no cell defined before it to take it from)",
                )
            })?,
        };
        let len = (b[0] - a[0]).hypot(b[1] - a[1]);
        let n = match (nodes, spec.segment) {
            (Some(n), _) => n as usize,
            (None, Some(s)) => (len / positive(i, "segment", s)?).ceil() as usize + 1,
            (None, None) if self.seg_n > 0.0 => (len / (self.seg_sum / self.seg_n)).ceil() as usize + 1,
            (None, None) => 21,
        };
        if n < 2 {
            return Err(Problem::new(format!("bodies[{i}].nodes"), "a line needs nodes ≥ 2"));
        }
        let o = BodyOptions {
            material: self.wall_material,
            radius: r as f32,
            node_mass: 1.0,
            frozen: true,
            self_contact: false,
            core: Core::None,
        };
        let id = self.scene.add_line(a, b, n, o);
        self.geo.origin.push(i);
        self.geo.walls.push((name.to_string(), id));
        self.register(name, id);
        Ok(id)
    }
}

fn ring_points(c: [f64; 2], r: f64, n: usize, phase: f64) -> Vec<[f64; 2]> {
    (0..n)
        .map(|k| {
            let a = phase + 2.0 * PI * k as f64 / n as f64;
            [c[0] + r * a.cos(), c[1] + r * a.sin()]
        })
        .collect()
}

/// Builds every `[[bodies]]` entry into `scene`.
pub fn build(
    scene: Scene,
    specs: &[BodySpec],
    materials: &BTreeMap<String, (u32, ResolvedMaterial)>,
    link_laws: &BTreeMap<String, u32>,
    base: &Path,
) -> Result<(Scene, Geometry), Problem> {
    let mut scene = scene;
    let wall_material = scene.add_material(Material {
        depth: 1.0,
        ..Default::default()
    });
    let mut cx = Ctx {
        scene,
        geo: Geometry::default(),
        materials,
        wall_material,
        first_r: None,
        seg_sum: 0.0,
        seg_n: 0.0,
    };
    for (i, spec) in specs.iter().enumerate() {
        let kind = spec.kind.as_str();
        let name = spec.name.clone().unwrap_or_else(|| format!("{kind}{i}"));
        match kind {
            "ring" => {
                let c = need(i, "center", spec.center, kind)?;
                let r = positive(i, "radius", need(i, "radius", spec.radius, kind)?)?;
                let n = need(i, "nodes", spec.nodes, kind)? as usize;
                if n < 3 {
                    return Err(Problem::new(format!("bodies[{i}].nodes"), "a ring needs nodes ≥ 3"));
                }
                let (_, o, _) = cx.cell_options(i, spec, r)?;
                cx.add_cell(i, spec, &name, &ring_points(c, r, n, 0.0), o);
            }
            "packing" => packing(&mut cx, i, spec, &name)?,
            "tissue" => tissue(&mut cx, i, spec, &name, link_laws)?,
            "box" => {
                let lo = need(i, "min", spec.min, kind)?;
                let hi = need(i, "max", spec.max, kind)?;
                if !(hi[0] > lo[0] && hi[1] > lo[1]) {
                    return Err(Problem::new(
                        format!("bodies[{i}].max"),
                        "max must be above and right of min",
                    ));
                }
                let r = match spec.half_thickness {
                    Some(h) => h,
                    None => cx.first_r.unwrap_or(0.0),
                };
                // Wall centrelines one half-thickness outside [min, max]; corners closed by a margin.
                let (x0, y0, x1, y1) = (lo[0] - r, lo[1] - r, hi[0] + r, hi[1] + r);
                let m = 2.0 * r;
                cx.wall_line(i, spec, &format!("{name}.bottom"), [x0 - m, y0], [x1 + m, y0], None)?;
                cx.wall_line(i, spec, &format!("{name}.top"), [x1 + m, y1], [x0 - m, y1], None)?;
                cx.wall_line(i, spec, &format!("{name}.left"), [x0, y1 + m], [x0, y0 - m], None)?;
                cx.wall_line(i, spec, &format!("{name}.right"), [x1, y0 - m], [x1, y1 + m], None)?;
                let ids: Vec<u32> = ["bottom", "top", "left", "right"]
                    .iter()
                    .map(|s| cx.geo.groups[&format!("{name}.{s}")][0])
                    .collect();
                cx.geo.groups.insert(name.clone(), ids);
            }
            "wall" => {
                let a = need(i, "a", spec.a, kind)?;
                let b = need(i, "b", spec.b, kind)?;
                if spec.nodes.is_none() && spec.segment.is_none() && cx.seg_n == 0.0 {
                    return Err(Problem::new(
                        format!("bodies[{i}]"),
                        "missing field `nodes` (or `segment`)",
                    ));
                }
                cx.wall_line(i, spec, &name, a, b, spec.nodes)?;
            }
            "beam" => {
                let a = need(i, "a", spec.a, kind)?;
                let b = need(i, "b", spec.b, kind)?;
                let n = need(i, "nodes", spec.nodes, kind)? as usize;
                if n < 2 {
                    return Err(Problem::new(format!("bodies[{i}].nodes"), "a beam needs nodes ≥ 2"));
                }
                let (mat, m) = cx.material(i, spec)?;
                let node_mass = m.node_mass_for(n);
                let len = (b[0] - a[0]).hypot(b[1] - a[1]);
                let r = match spec.half_thickness {
                    Some(h) => positive(i, "half_thickness", h)?,
                    None => 0.05 * len / (n - 1) as f64,
                };
                let o = BodyOptions {
                    material: mat,
                    radius: r as f32,
                    node_mass,
                    frozen: false,
                    self_contact: spec.self_contact.unwrap_or(false),
                    core: Core::None,
                };
                let id = cx.scene.add_line(a, b, n, o);
                cx.geo.origin.push(i);
                cx.register(&name, id);
                let k = spec.clamp_nodes.unwrap_or(2) as usize;
                if k > n {
                    return Err(Problem::new(
                        format!("bodies[{i}].clamp_nodes"),
                        format!("clamp_nodes = {k} exceeds nodes = {n}"),
                    ));
                }
                let first = cx.scene.bodies[id as usize].first;
                let clamped: Vec<u32> = match spec.clamp.as_deref().unwrap_or("start") {
                    "start" => (0..k as u32).collect(),
                    "end" => ((n - k) as u32..n as u32).collect(),
                    "both" => (0..k as u32).chain((n - k) as u32..n as u32).collect(),
                    "none" => vec![],
                    other => {
                        return Err(Problem::new(
                            format!("bodies[{i}].clamp"),
                            format!("clamp = \"{other}\" is not one of start, end, both, none"),
                        ))
                    }
                };
                let set = NodeSet::Indices(clamped.iter().map(|&j| first + j).collect());
                cx.scene.impose_velocity(&set, Some(0.0), Some(0.0));
            }
            "file" => {
                let rel = spec.path.as_ref().ok_or_else(|| {
                    Problem::new(format!("bodies[{i}]"), "missing field `path` (needed by kind `file`)")
                })?;
                let path = base.join(rel);
                let polys = read_polygons(&path)
                    .map_err(|e| Problem::new(format!("bodies[{i}].path"), format!("{}: {e}", path.display())))?;
                let scale = match spec.scale {
                    Some(f) if !(f > 0.0 && f.is_finite()) => {
                        return Err(Problem::new(
                            format!("bodies[{i}].scale"),
                            format!("scale = {f} must be a finite number > 0"),
                        ))
                    }
                    Some(f) => f,
                    None => 1.0,
                };
                for (k, mut p) in polys.into_iter().enumerate() {
                    if scale != 1.0 && !p.is_empty() {
                        let n = p.len() as f64;
                        let c = [
                            p.iter().map(|q| q[0]).sum::<f64>() / n,
                            p.iter().map(|q| q[1]).sum::<f64>() / n,
                        ];
                        for q in p.iter_mut() {
                            *q = [c[0] + scale * (q[0] - c[0]), c[1] + scale * (q[1] - c[1])];
                        }
                    }
                    if p.len() < 3 {
                        return Err(Problem::new(
                            format!("bodies[{i}].path"),
                            format!("{}: cell {k} has {} nodes (needs ≥ 3)", path.display(), p.len()),
                        ));
                    }
                    if signed_area(&p) < 0.0 {
                        p.reverse();
                    }
                    let rad = (signed_area(&p) / PI).sqrt();
                    let (_, o, _) = cx.cell_options(i, spec, rad)?;
                    cx.add_cell(i, spec, &name, &p, o);
                }
            }
            other => {
                return Err(Problem::new(
                    format!("bodies[{i}].kind"),
                    format!(
                        "kind = \"{other}\" is not one of {}",
                        BODY_KINDS.iter().map(|k| k.0).collect::<Vec<_>>().join(", ")
                    ),
                ))
            }
        }
    }
    Ok((cx.scene, cx.geo))
}

/// A `tissue` entry (§7): `tissue::tissue` on the box [0, size_x] × [0, size_y]; cells are named
/// NAME, the walls NAME.bottom, NAME.top (and NAME.left, NAME.right with `side_walls`).
fn tissue(
    cx: &mut Ctx,
    i: usize,
    spec: &BodySpec,
    name: &str,
    link_laws: &BTreeMap<String, u32>,
) -> Result<(), Problem> {
    use super::tissue::{NodeMass, TissueSpec};
    let kind = "tissue";
    let [w, h] = need(i, "size", spec.size, kind)?;
    positive(i, "size", w.min(h))?;
    let r_mean = positive(i, "radius", need(i, "radius", spec.radius, kind)?)?;
    let (mat, m) = cx.material(i, spec)?;
    let law = |key: &str, v: &Option<String>| -> Result<Option<u32>, Problem> {
        match v {
            None => Ok(None),
            Some(n) => link_laws.get(n).map(|id| Some(*id)).ok_or_else(|| {
                Problem::new(
                    format!("bodies[{i}].{key}"),
                    format!(
                        "unknown link law \"{n}\" (defined: {})",
                        link_laws.keys().cloned().collect::<Vec<_>>().join(", ")
                    ),
                )
            }),
        }
    };
    let link_law = law("link_law", &spec.link_law)?.ok_or_else(|| {
        Problem::new(
            format!("bodies[{i}]"),
            "missing field `link_law` (needed by kind `tissue`)",
        )
    })?;
    let node_mass = match (m.node_mass, m.cell_mass) {
        (Some(nm), _) => NodeMass::PerNode(nm),
        (None, Some(_)) => {
            return Err(Problem::new(
                format!("bodies[{i}].material"),
                "a tissue needs the material's node_mass (its cells differ in size: cell_mass is not used)",
            ))
        }
        _ => NodeMass::PerLength(1.0),
    };
    let mut t = TissueSpec::new(w, h, r_mean, mat, link_law);
    if let Some(x) = spec.spread {
        if !(0.0..1.0).contains(&x) {
            return Err(Problem::new(
                format!("bodies[{i}].spread"),
                format!("spread = {x} must be in [0, 1)"),
            ));
        }
        t.radius_spread = x;
    }
    if let Some(x) = spec.jitter {
        if !(x >= 0.0) {
            return Err(Problem::new(
                format!("bodies[{i}].jitter"),
                format!("jitter = {x} must be ≥ 0"),
            ));
        }
        t.jitter = x;
    }
    if let Some(x) = spec.minkowski_radius {
        t.minkowski_radius = positive(i, "minkowski_radius", x)?;
    }
    if let Some(x) = spec.segment {
        t.segment_length = positive(i, "segment", x)?;
    }
    t.seed = spec.seed.unwrap_or(1);
    t.node_mass = node_mass;
    t.core = core_of(i, spec)?;
    t.bond_walls = spec.bond_walls.unwrap_or(true);
    t.wall_link_law = law("wall_link_law", &spec.wall_link_law)?;
    t.side_walls = spec.side_walls.unwrap_or(false);
    let first = cx.scene.bodies.len() as u32;
    let made =
        super::tissue::tissue(&mut cx.scene, &t).map_err(|e| Problem::new(format!("bodies[{i}]"), e.to_string()))?;
    for _ in first..cx.scene.bodies.len() as u32 {
        cx.geo.origin.push(i);
    }
    for &c in &made.cells {
        cx.register(name, c);
    }
    let mut walls = vec![("bottom", made.walls.bottom), ("top", made.walls.top)];
    walls.extend(made.walls.left.map(|b| ("left", b)));
    walls.extend(made.walls.right.map(|b| ("right", b)));
    for (side, b) in walls {
        let wname = format!("{name}.{side}");
        cx.geo.walls.push((wname.clone(), b));
        cx.register(&wname, b);
    }
    cx.first_r.get_or_insert(0.5 * t.minkowski_radius);
    Ok(())
}

fn packing(cx: &mut Ctx, i: usize, spec: &BodySpec, name: &str) -> Result<(), Problem> {
    let kind = "packing";
    let lo = need(i, "min", spec.min, kind)?;
    let hi = need(i, "max", spec.max, kind)?;
    let count = need(i, "count", spec.count, kind)? as usize;
    let r_mean = positive(i, "radius", need(i, "radius", spec.radius, kind)?)?;
    let n = need(i, "nodes", spec.nodes, kind)? as usize;
    if n < 3 {
        return Err(Problem::new(format!("bodies[{i}].nodes"), "a cell needs nodes ≥ 3"));
    }
    let spread = spec.spread.unwrap_or(0.0);
    if !(0.0..1.0).contains(&spread) {
        return Err(Problem::new(
            format!("bodies[{i}].spread"),
            format!("spread = {spread} must be in [0, 1)"),
        ));
    }
    let (_, o, r) = cx.cell_options(i, spec, r_mean)?;
    let gap = spec.gap.unwrap_or(0.1 * r_mean);
    let mut rng = SplitMix(spec.seed.unwrap_or(1));
    let mut radii: Vec<f64> = (0..count)
        .map(|_| r_mean * (1.0 + spread * (2.0 * rng.next_f64() - 1.0)))
        .collect();
    match spec.placement.as_deref().unwrap_or("random") {
        "random" => {}
        "drop" => {
            // Dropped in the order drawn, each one's clearance included in its radius.
            let outer: Vec<f64> = radii.iter().map(|ri| ri + r + 0.5 * gap).collect();
            if let Some(o) = outer.iter().find(|&&o| 2.0 * o > hi[0] - lo[0]) {
                return Err(Problem::new(
                    format!("bodies[{i}].max"),
                    format!("the region is narrower than one cell of outer radius {o:.4}"),
                ));
            }
            let centres = drop_and_roll(&outer, lo, hi, || rng.next_f64()).map_err(|k| {
                Problem::new(
                    format!("bodies[{i}].max"),
                    format!(
                        "cell {} of {count} comes to rest above max[1] = {} (packing fraction so far {:.2}): raise max[1] or lower count",
                        k + 1,
                        hi[1],
                        fraction_of(&radii[..k], lo, hi)
                    ),
                )
            })?;
            for (p, ri) in centres.into_iter().zip(radii) {
                let phase = 2.0 * PI * rng.next_f64() / n as f64;
                cx.add_cell(i, spec, name, &ring_points(p, ri, n, phase), o);
            }
            return Ok(());
        }
        other => {
            return Err(Problem::new(
                format!("bodies[{i}].placement"),
                format!("placement = \"{other}\": expected \"random\" or \"drop\""),
            ))
        }
    }
    // Large cells first: random sequential addition fills better that way.
    radii.sort_by(|a, b| b.partial_cmp(a).unwrap());
    let r_max = radii.first().copied().unwrap_or(r_mean);
    // Hashed grid of placed discs (outer radius R + r + gap/2), cell = largest diameter.
    let cell = 2.0 * (r_max + r + 0.5 * gap);
    let mut grid: std::collections::HashMap<(i64, i64), Vec<usize>> = Default::default();
    let mut placed: Vec<([f64; 2], f64)> = Vec::with_capacity(count);
    let key = |p: [f64; 2]| ((p[0] / cell).floor() as i64, (p[1] / cell).floor() as i64);
    for (k, &ri) in radii.iter().enumerate() {
        let outer = ri + r + 0.5 * gap;
        let edge = ri + r + 0.5 * gap;
        let (x0, x1) = (lo[0] + edge, hi[0] - edge);
        let (y0, y1) = (lo[1] + edge, hi[1] - edge);
        if x1 < x0 || y1 < y0 {
            return Err(Problem::new(
                format!("bodies[{i}].max"),
                format!("the region is smaller than one cell of radius {ri:.4}"),
            ));
        }
        let mut ok = None;
        let mut found = 0;
        const CANDIDATES: usize = 32;
        for _ in 0..20_000 {
            let p = [x0 + (x1 - x0) * rng.next_f64(), y0 + (y1 - y0) * rng.next_f64()];
            let (gx, gy) = key(p);
            let clear = (gx - 1..=gx + 1).all(|a| {
                (gy - 1..=gy + 1).all(|b| {
                    grid.get(&(a, b)).is_none_or(|v| {
                        v.iter().all(|&j| {
                            let (q, oq) = placed[j];
                            (p[0] - q[0]).hypot(p[1] - q[1]) >= outer + oq
                        })
                    })
                })
            });
            // Of the first free candidates, keep the lowest (a bottom-up, denser packing).
            if clear {
                found += 1;
                if ok.is_none_or(|q: [f64; 2]| p[1] < q[1]) {
                    ok = Some(p);
                }
                if found == CANDIDATES {
                    break;
                }
            }
        }
        let Some(p) = ok else {
            return Err(Problem::new(
                format!("bodies[{i}].count"),
                format!(
                    "could not place cell {} of {count} without overlap (packing fraction so far {:.2}): enlarge min/max or lower count",
                    k + 1,
                    fraction_of(&radii[..k], lo, hi)
                ),
            ));
        };
        grid.entry(key(p)).or_default().push(placed.len());
        placed.push((p, outer));
        let phase = 2.0 * PI * rng.next_f64() / n as f64;
        cx.add_cell(i, spec, name, &ring_points(p, ri, n, phase), o);
    }
    Ok(())
}

/// Area fraction of the rectangle [lo, hi] that discs of these radii cover (error messages).
fn fraction_of(radii: &[f64], lo: [f64; 2], hi: [f64; 2]) -> f64 {
    radii.iter().map(|r| PI * r * r).sum::<f64>() / ((hi[0] - lo[0]) * (hi[1] - lo[1]))
}

fn signed_area(p: &[[f64; 2]]) -> f64 {
    let mut a = 0.0;
    for k in 0..p.len() {
        let (u, v) = (p[k], p[(k + 1) % p.len()]);
        a += u[0] * v[1] - u[1] * v[0];
    }
    0.5 * a
}

/// Reads cell polygons: CSV with a header `cell,x,y` (rows grouped by cell id, in node order), or
/// JSON `{"cells": [[[x, y], ...], ...]}` (or the bare array).
pub fn read_polygons(path: &Path) -> Result<Vec<Vec<[f64; 2]>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "json" => {
            let v: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| format!("line {}, column {}: {e}", e.line(), e.column()))?;
            let cells = v.get("cells").unwrap_or(&v);
            serde_json::from_value::<Vec<Vec<[f64; 2]>>>(cells.clone())
                .map_err(|e| format!("expected {{\"cells\": [[[x, y], ...], ...]}}: {e}"))
        }
        "csv" => {
            let mut lines = text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
            let (_, header) = lines.next().ok_or("empty file")?;
            let cols: Vec<&str> = header.split(',').map(|s| s.trim()).collect();
            if cols != ["cell", "x", "y"] {
                return Err(format!("line 1: header must be `cell,x,y`, found `{header}`"));
            }
            let mut out: Vec<Vec<[f64; 2]>> = vec![];
            let mut last: Option<String> = None;
            for (ln, l) in lines {
                let f: Vec<&str> = l.split(',').map(|s| s.trim()).collect();
                if f.len() != 3 {
                    return Err(format!("line {}: expected 3 fields `cell,x,y`", ln + 1));
                }
                let num = |s: &str| {
                    s.parse::<f64>()
                        .map_err(|_| format!("line {}: `{s}` is not a number", ln + 1))
                };
                let p = [num(f[1])?, num(f[2])?];
                if last.as_deref() != Some(f[0]) {
                    out.push(vec![]);
                    last = Some(f[0].to_string());
                }
                out.last_mut().unwrap().push(p);
            }
            Ok(out)
        }
        _ => Err("polygon files must end in .csv or .json".into()),
    }
}

fn seg_dist2(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let l2 = dx * dx + dy * dy;
    let t = if l2 > 0.0 {
        (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (x, y) = (a[0] + t * dx - p[0], a[1] + t * dy - p[1]);
    x * x + y * y
}

fn segments_cross(a: [f64; 2], b: [f64; 2], c: [f64; 2], d: [f64; 2]) -> bool {
    let o = |p: [f64; 2], q: [f64; 2], r: [f64; 2]| (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
    (o(a, b, c) > 0.0) != (o(a, b, d) > 0.0) && (o(c, d, a) > 0.0) != (o(c, d, b) > 0.0)
}

fn inside(p: [f64; 2], poly: &[[f64; 2]]) -> bool {
    let mut c = false;
    let n = poly.len();
    for k in 0..n {
        let (a, b) = (poly[k], poly[(k + 1) % n]);
        if (a[1] > p[1]) != (b[1] > p[1]) && p[0] < a[0] + (p[1] - a[1]) / (b[1] - a[1]) * (b[0] - a[0]) {
            c = !c;
        }
    }
    c
}

/// Finds two bodies (not both frozen) whose sphero-polygons overlap in the initial state: a
/// segment of one closer than r_a + r_b to a segment of the other, or one inside the other.
pub fn find_overlap(scene: &Scene) -> Option<(u32, u32)> {
    let pts = |b: &Body| -> Vec<[f64; 2]> {
        (b.first..b.first + b.count)
            .map(|i| scene.init[i as usize].pos())
            .collect()
    };
    let segs = |b: &Body, p: &[[f64; 2]]| -> Vec<([f64; 2], [f64; 2])> {
        let n = p.len();
        let m = if b.flags & BODY_CLOSED != 0 { n } else { n - 1 };
        (0..m).map(|k| (p[k], p[(k + 1) % n])).collect()
    };
    // Each body's points and bounding box (grown by its half-thickness).
    type PointsAndBox = (Vec<[f64; 2]>, [f64; 2], [f64; 2]);
    let all: Vec<PointsAndBox> = scene
        .bodies
        .iter()
        .map(|b| {
            let p = pts(b);
            let r = b.radius as f64;
            let lo = p
                .iter()
                .fold([f64::INFINITY; 2], |m, q| [m[0].min(q[0] - r), m[1].min(q[1] - r)]);
            let hi = p
                .iter()
                .fold([f64::NEG_INFINITY; 2], |m, q| [m[0].max(q[0] + r), m[1].max(q[1] + r)]);
            (p, lo, hi)
        })
        .collect();
    // Candidate pairs by bounding boxes on a grid whose cell is the largest box of a free body
    // (long frozen walls span many cells instead of making the cell huge: with one cell per
    // wall, 10,000 cells in a box took 45 s to check, all pairs).
    let extent = |bi: usize| (all[bi].2[0] - all[bi].1[0]).max(all[bi].2[1] - all[bi].1[1]);
    let free_big = (0..all.len())
        .filter(|&bi| scene.bodies[bi].flags & BODY_FROZEN == 0)
        .map(extent)
        .fold(0.0, f64::max);
    // No body spans more than 1000 × 1000 cells (a huge frozen container around tiny cells).
    let biggest = (0..all.len()).map(extent).fold(1e-12, f64::max);
    let cell = free_big.max(biggest / 1000.0);
    let mut grid: BTreeMap<(i64, i64), Vec<u32>> = Default::default();
    for (bi, (_, lo, hi)) in all.iter().enumerate() {
        let (x0, x1) = ((lo[0] / cell).floor() as i64, (hi[0] / cell).floor() as i64);
        let (y0, y1) = ((lo[1] / cell).floor() as i64, (hi[1] / cell).floor() as i64);
        for x in x0..=x1 {
            for y in y0..=y1 {
                grid.entry((x, y)).or_default().push(bi as u32);
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    for v in grid.values() {
        for (x, &a) in v.iter().enumerate() {
            for &b in &v[x + 1..] {
                let (ba, bb) = (&scene.bodies[a as usize], &scene.bodies[b as usize]);
                if ba.flags & bb.flags & BODY_FROZEN != 0 {
                    continue;
                }
                let (pa, la, ha) = &all[a as usize];
                let (pb, lb, hb) = &all[b as usize];
                if la[0] > hb[0] || lb[0] > ha[0] || la[1] > hb[1] || lb[1] > ha[1] {
                    continue;
                }
                if !seen.insert((a.min(b), a.max(b))) {
                    continue;
                }
                let reach = (ba.radius + bb.radius) as f64;
                let (sa, sb) = (segs(ba, pa), segs(bb, pb));
                let touch = sa.iter().any(|&(p, q)| {
                    sb.iter().any(|&(u, w)| {
                        segments_cross(p, q, u, w)
                            || [
                                seg_dist2(p, u, w),
                                seg_dist2(q, u, w),
                                seg_dist2(u, p, q),
                                seg_dist2(w, p, q),
                            ]
                            .iter()
                            .any(|&d| d < reach * reach)
                    })
                });
                let nested = (ba.flags & BODY_CLOSED != 0 && inside(pb[0], pa))
                    || (bb.flags & BODY_CLOSED != 0 && inside(pa[0], pb));
                if touch || nested {
                    return Some((a.min(b), a.max(b)));
                }
            }
        }
    }
    None
}
