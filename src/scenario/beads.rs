//! `[spheres.beads]`: bodies of beads joined by bonds inside a sphere scenario (issue 24; model
//! in docs/beads.md, keys in docs/scenarios.md). The bodies' beads become the first spheres of
//! the run (indices 0..n_beads, in body order), their bonds, the eq-6 planes and the point loads
//! one `beads::BeadForces` source attached to the stepper (`beads::attach`). Beads touch other
//! spheres and the `[[spheres.walls]]` through their material's contact law; beads of a bead
//! material do not touch each other (the paper's bodies interact through their bonds only).

// `!(x > 0.0)` on purpose: NaN must fail these checks too.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::{Problem, Scenario};
use crate::beads::generators::{build_body, parse_body_file, BeadBody, BodyShape, BodySpec, Shell};
use crate::beads::{BeadForces, Bond, BondList, LoadProfile, PointLoad};
use crate::spheres::pair_law::{LawTable, PairLaw, SphereMaterial};
use crate::spheres::SphereState;
use serde::{Deserialize, Serialize};

/// `[spheres.beads]`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BeadsSection {
    /// Stretch X/l₀ above which a bond breaks for good (tension; default: never).
    pub break_stretch: Option<f64>,
    #[serde(default)]
    pub bodies: Vec<BeadBodySpec>,
    /// The former eq-6 planes (any content): refused, see `build`.
    #[serde(default)]
    pub planes: Vec<toml::Table>,
    #[serde(default)]
    pub loads: Vec<BeadLoadSpec>,
}

/// `[[spheres.beads.bodies]]`: one body, selected by `generator`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BeadBodySpec {
    /// lattice | disordered | core_shell | file
    pub generator: String,
    pub name: Option<String>,
    /// Contact law with other spheres and walls; density → bead mass (unless `bead_mass`).
    pub material: Option<String>,
    pub center: Option<[f64; 3]>,
    /// Radius of the body (lattice, disordered, core_shell).
    pub radius: Option<f64>,
    /// Lattice spacing l (the mean spacing of `disordered`).
    pub spacing: Option<f64>,
    /// Contact radius of every bead (default l/100: the paper's law on the centres).
    pub bead_radius: Option<f64>,
    /// Mass of every bead (default: density × the volume a bead stands for).
    pub bead_mass: Option<f64>,
    /// Bond law: "linear" (spring k) or "kelvin_voigt" (spring k and dashpot b, eq 3).
    pub law: Option<String>,
    pub k: Option<f64>,
    pub b: Option<f64>,
    /// disordered: the Poisson-disk seed.
    pub seed: Option<u64>,
    /// core_shell: shell thickness over the radius, h/r in (0, 1], and the shell's bond law.
    pub shell_thickness: Option<f64>,
    pub shell_k: Option<f64>,
    pub shell_b: Option<f64>,
    /// file: `bead x y z` and `bond i j k b` lines (relative to the scenario).
    pub path: Option<String>,
}

/// `[[spheres.beads.loads]]`: a force on one bead of a body: `force` while `on` ≤ t < `off`
/// (creep and recovery), or `force` · sin(`omega` t).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BeadLoadSpec {
    pub body: Option<String>,
    /// Index of the bead within its body.
    pub bead: Option<u64>,
    pub force: Option<[f64; 3]>,
    pub on: Option<f64>,
    pub off: Option<f64>,
    pub omega: Option<f64>,
}

const GENERATORS: &[(&str, &[&str])] = &[
    (
        "lattice",
        &[
            "material",
            "center",
            "bead_radius",
            "bead_mass",
            "law",
            "k",
            "b",
            "spacing",
            "radius",
        ],
    ),
    (
        "disordered",
        &[
            "material",
            "center",
            "bead_radius",
            "bead_mass",
            "law",
            "k",
            "b",
            "spacing",
            "radius",
            "seed",
        ],
    ),
    (
        "core_shell",
        &[
            "material",
            "center",
            "bead_radius",
            "bead_mass",
            "law",
            "k",
            "b",
            "spacing",
            "radius",
            "shell_thickness",
            "shell_k",
            "shell_b",
        ],
    ),
    ("file", &["material", "bead_radius", "bead_mass", "path"]),
];
const ALL_KEYS: &[&str] = &[
    "material",
    "center",
    "bead_radius",
    "bead_mass",
    "law",
    "k",
    "b",
    "spacing",
    "radius",
    "seed",
    "shell_thickness",
    "shell_k",
    "shell_b",
    "path",
];

/// The bead bodies of a scenario resolved.
#[derive(Clone, Debug)]
pub struct BeadsBuilt {
    /// The source as attached at the start (bonds, loads, break threshold; the eq-6 planes are
    /// walls of the sphere engine, `[[spheres.walls]]` with `law = "eq6"`).
    pub forces: BeadForces,
    /// The beads (spheres 0..n of the run).
    pub states: Vec<SphereState>,
    /// Per body: its name and its beads.
    pub bodies: Vec<(String, std::ops::Range<u32>)>,
    /// Per bead: the volume it stands for (its virial stress divides by it).
    pub bead_volume: Vec<f64>,
    /// Per bead: its body's lattice spacing (the PNG slice's disc size).
    pub spacing: Vec<f64>,
    /// Materials of the bead bodies (their self-pairs have no contact).
    pub materials: Vec<u32>,
    /// Stability bound of the bonds: the largest Δt allowed (see `check_dt`).
    pub dt_max: f64,
}

impl BeadsBuilt {
    /// Refuses a time step above the bonds' stability bound (`dt_max`), at `key`.
    pub fn check_dt(&self, dt: f64, key: &str) -> Result<(), Problem> {
        if dt > self.dt_max {
            return Err(Problem::new(
                key,
                format!(
                    "time step dt = {dt:.4e} is above the bonds' stability bound {:.4e} \
                     (0.5 sqrt(m/Σk) and m/Σb of the stiffest bead; docs/beads.md)",
                    self.dt_max
                ),
            ));
        }
        Ok(())
    }

    pub fn n_beads(&self) -> usize {
        self.states.len()
    }

    /// Which body bead `i` is in.
    pub fn body_of(&self, i: u32) -> Option<usize> {
        self.bodies.iter().position(|(_, r)| r.contains(&i))
    }
}

fn positive(path: &str, x: Option<f64>, what: &str) -> Result<f64, Problem> {
    let key = path.rsplit('.').next().unwrap_or(path);
    match x {
        None => Err(Problem::new(path, format!("missing field `{key}` ({what})"))),
        Some(v) if !(v > 0.0) || !v.is_finite() => Err(Problem::new(path, format!("{key} = {v} must be > 0"))),
        Some(v) => Ok(v),
    }
}

/// The bond law of a body: (k, b), "linear" refusing b.
fn bond_law(p: &str, law: &Option<String>, k: Option<f64>, b: Option<f64>) -> Result<(f64, f64), Problem> {
    let k = positive(&format!("{p}.k"), k, "bond spring constant")?;
    match law.as_deref().unwrap_or("linear") {
        "linear" => {
            if b.is_some() {
                return Err(Problem::new(
                    format!("{p}.b"),
                    "`b` (the dashpot) belongs to law = \"kelvin_voigt\"",
                ));
            }
            Ok((k, 0.0))
        }
        "kelvin_voigt" => Ok((k, positive(&format!("{p}.b"), b, "the bond's dashpot")?)),
        other => Err(Problem::new(
            format!("{p}.law"),
            format!("law = \"{other}\" is not one of linear, kelvin_voigt"),
        )),
    }
}

impl Scenario {
    /// Resolves `[spheres.beads]` (None without it). `mats`/`names`: the sphere materials;
    /// `particle_materials`: the `material` of each `[[spheres.particles]]` entry.
    pub(super) fn build_beads(
        &self,
        beads: Option<&BeadsSection>,
        particle_materials: &[Option<&str>],
        mats: &[SphereMaterial],
        names: &[String],
    ) -> Result<Option<BeadsBuilt>, Problem> {
        let Some(bs) = beads else { return Ok(None) };
        if bs.bodies.is_empty() {
            return Err(Problem::new(
                "spheres.beads",
                "no [[spheres.beads.bodies]]: define at least one body",
            ));
        }
        let mut states: Vec<SphereState> = vec![];
        let mut bonds: Vec<Bond> = vec![];
        let mut bodies = vec![];
        let (mut bead_volume, mut spacing_of) = (vec![], vec![]);
        let mut materials = vec![];
        for (i, s) in bs.bodies.iter().enumerate() {
            let p = format!("spheres.beads.bodies[{i}]");
            super::check_kind_keys(self, &p, "generator", &s.generator, GENERATORS, ALL_KEYS)?;
            let mname = s
                .material
                .as_ref()
                .ok_or_else(|| Problem::new(p.clone(), "missing field `material`"))?;
            let mat = names.iter().position(|x| x == mname).ok_or_else(|| {
                Problem::new(
                    format!("{p}.material"),
                    format!("no material named \"{mname}\" (materials: {})", names.join(", ")),
                )
            })? as u32;
            for (j, pm) in particle_materials.iter().enumerate() {
                if *pm == Some(mname.as_str()) {
                    return Err(Problem::new(
                        format!("spheres.particles[{j}].material"),
                        format!(
                            "material \"{mname}\" is a bead material (its beads do not touch each other): give the particles another one"
                        ),
                    ));
                }
            }
            let m = &mats[mat as usize];
            if !m.young.is_finite() {
                return Err(Problem::new(
                    format!("{p}.material"),
                    format!("material \"{mname}\" is rigid: beads need a finite young for their contacts"),
                ));
            }
            let body = self.generate_body(&p, s, mat)?;
            if body.states.is_empty() {
                return Err(Problem::new(
                    p,
                    "the generator made no bead (radius below the spacing?)",
                ));
            }
            let mass = match s.bead_mass {
                Some(x) => positive(&format!("{p}.bead_mass"), Some(x), "")?,
                None => {
                    if !(m.density > 0.0) {
                        return Err(Problem::new(
                            format!("{p}.material"),
                            format!("material \"{mname}\" has no density: give it one, or bead_mass"),
                        ));
                    }
                    m.density * body.bead_volume
                }
            };
            let first = states.len() as u32;
            for mut st in body.states {
                let r = st.radius as f64;
                st.mass = mass as f32;
                st.inertia = (0.4 * mass * r * r) as f32;
                states.push(st);
            }
            for mut b in body.bonds.bonds {
                b.i += first;
                b.j += first;
                bonds.push(b);
            }
            let n = states.len() as u32;
            let name = s.name.clone().unwrap_or_else(|| format!("{}{i}", s.generator));
            if bodies.iter().any(|(x, _)| x == &name) {
                return Err(Problem::new(
                    format!("{p}.name"),
                    format!("two bodies are named \"{name}\""),
                ));
            }
            bodies.push((name, first..n));
            let l = s.spacing.unwrap_or(2.0 * states[first as usize].radius as f64);
            bead_volume.extend(std::iter::repeat_n(body.bead_volume, (n - first) as usize));
            spacing_of.extend(std::iter::repeat_n(l, (n - first) as usize));
            if !materials.contains(&mat) {
                materials.push(mat);
            }
        }
        let n_beads = states.len();
        let list = BondList::new(n_beads, bonds);
        // The eq-6 planes are walls now (`[[spheres.walls]]` with `law = "eq6"`, moved by stages).
        if !bs.planes.is_empty() {
            return Err(Problem::new(
                "spheres.beads.planes[0]",
                "[[spheres.beads.planes]] was replaced by eq-6 walls that stages move: write \
                 [[spheres.walls]] kind = \"plane\", name, point, normal, law = \"eq6\", stiffness = S, \
                 then a [[stages]] kind = \"move_wall\" (wall, velocity, time = travel/speed) and a \
                 kind = \"hold\" stage (docs/beads.md)",
            ));
        }
        // Point loads.
        let mut loads: Vec<PointLoad> = vec![];
        for (i, ls) in bs.loads.iter().enumerate() {
            let p = format!("spheres.beads.loads[{i}]");
            let body = ls
                .body
                .as_ref()
                .ok_or_else(|| Problem::new(p.clone(), "missing field `body`"))?;
            let r = &bodies
                .iter()
                .find(|(n, _)| n == body)
                .ok_or_else(|| {
                    Problem::new(
                        format!("{p}.body"),
                        format!(
                            "no body named \"{body}\" (bodies: {})",
                            bodies.iter().map(|b| b.0.as_str()).collect::<Vec<_>>().join(", ")
                        ),
                    )
                })?
                .1;
            let k = ls.bead.ok_or_else(|| Problem::new(p.clone(), "missing field `bead`"))?;
            if k >= r.len() as u64 {
                return Err(Problem::new(
                    format!("{p}.bead"),
                    format!("bead {k} past the {} beads of body \"{body}\"", r.len()),
                ));
            }
            let bead = r.start + k as u32;
            if loads.iter().any(|l| l.bead == bead) {
                return Err(Problem::new(format!("{p}.bead"), "this bead already has a load"));
            }
            let force = ls
                .force
                .ok_or_else(|| Problem::new(p.clone(), "missing field `force`"))?;
            let profile = match ls.omega {
                Some(w) => {
                    for (key, v) in [("on", ls.on), ("off", ls.off)] {
                        if v.is_some() {
                            return Err(Problem::new(
                                format!("{p}.{key}"),
                                format!("`{key}` belongs to a step load; a sine load (omega) has none"),
                            ));
                        }
                    }
                    LoadProfile::Sine {
                        omega: positive(&format!("{p}.omega"), Some(w), "")?,
                    }
                }
                None => {
                    let on = ls.on.unwrap_or(0.0);
                    let off = ls.off.unwrap_or(f64::INFINITY);
                    if !(on >= 0.0) || !(off > on) {
                        return Err(Problem::new(
                            format!("{p}.off"),
                            format!("need 0 ≤ on < off (on = {on}, off = {off})"),
                        ));
                    }
                    LoadProfile::Step { on, off }
                }
            };
            loads.push(PointLoad { bead, force, profile });
        }
        let brk = match bs.break_stretch {
            None => f32::INFINITY,
            Some(x) => positive("spheres.beads.break_stretch", Some(x), "")? as f32,
        };
        // Bond stability: per bead Σk and Σb of its bonds. Gershgorin on the stiffness matrix
        // gives ω_max² ≤ 2 Σk/m; the velocity Verlet is stable for Δt < 2/ω_max = sqrt(2m/Σk).
        // Allowed: Δt ≤ 0.5 sqrt(m/Σk) (a factor ≈ 2.8 of margin for the planes' stiffening
        // eq 6), and Δt ≤ m/Σb (the explicit dashpot's own limit, 2m/Σb, halved).
        let mut dt_max = f64::INFINITY;
        for (b, st) in states.iter().enumerate() {
            let inc = &list.incident[list.start[b] as usize..list.start[b + 1] as usize];
            let (sk, sb) = inc.iter().fold((0.0f64, 0.0f64), |(k, d), &e| {
                let bond = &list.bonds[(e >> 1) as usize];
                (k + bond.k as f64, d + bond.b as f64)
            });
            let m = st.mass as f64;
            if sk > 0.0 {
                dt_max = dt_max.min(0.5 * (m / sk).sqrt());
            }
            if sb > 0.0 {
                dt_max = dt_max.min(m / sb);
            }
        }
        Ok(Some(BeadsBuilt {
            forces: BeadForces::new(list, Vec::new(), loads, brk),
            states,
            bodies,
            bead_volume,
            spacing: spacing_of,
            materials,
            dt_max,
        }))
    }

    fn generate_body(&self, p: &str, s: &BeadBodySpec, mat: u32) -> Result<BeadBody, Problem> {
        let bead_radius = |l: f64| match s.bead_radius {
            Some(r) => positive(&format!("{p}.bead_radius"), Some(r), ""),
            None => Ok(0.01 * l),
        };
        if s.generator == "file" {
            let path = s.path.as_ref().ok_or_else(|| Problem::new(p, "missing field `path`"))?;
            let r = positive(&format!("{p}.bead_radius"), s.bead_radius, "the beads' contact radius")?;
            return parse_body_file(&self.base_dir.join(path), 1.0, r, mat)
                .map_err(|m| Problem::new(format!("{p}.path"), m));
        }
        let l = positive(&format!("{p}.spacing"), s.spacing, "lattice spacing l")?;
        let radius = positive(&format!("{p}.radius"), s.radius, "the body's radius")?;
        if radius < l {
            return Err(Problem::new(
                format!("{p}.radius"),
                format!("radius = {radius} is below the spacing {l}: the body would be one bead"),
            ));
        }
        if (radius / l).powi(3) > 4.0e6 {
            return Err(Problem::new(
                format!("{p}.radius"),
                format!("radius/spacing = {:.0} makes more than 1.7e7 beads", radius / l),
            ));
        }
        let (k, b) = bond_law(p, &s.law, s.k, s.b)?;
        let (shape, shell) = match s.generator.as_str() {
            "lattice" => (BodyShape::CubicSphere { radius }, None),
            "disordered" => (
                BodyShape::Disordered {
                    radius,
                    seed: s.seed.unwrap_or(1),
                },
                None,
            ),
            "core_shell" => {
                let h = positive(&format!("{p}.shell_thickness"), s.shell_thickness, "h/r of the shell")?;
                if h > 1.0 {
                    return Err(Problem::new(
                        format!("{p}.shell_thickness"),
                        format!("shell_thickness = {h} is h/r: at most 1"),
                    ));
                }
                let (sk, sb) = bond_law(&format!("{p}.shell"), &s.law, s.shell_k, s.shell_b)
                    .map_err(|e| Problem::new(e.path.replace(".shell.", ".shell_"), e.message))?;
                (
                    BodyShape::CubicSphere { radius },
                    Some(Shell {
                        h_over_r: h,
                        k: sk,
                        b: sb,
                    }),
                )
            }
            _ => unreachable!("checked by check_kind_keys"),
        };
        Ok(build_body(&BodySpec {
            shape,
            spacing: l,
            k,
            b,
            shell,
            bead_mass: 1.0,
            contact_radius: bead_radius(l)?,
            material: mat,
            center: s.center.unwrap_or([0.0; 3]),
        }))
    }
}

/// The law table with no contact between beads of one bead material (they interact through
/// their bonds only): a zero-stiffness linear law gives exactly zero force.
/// The law of `[[spheres.walls]]` entry `p`: `None` for "contact" (its material's contact law),
/// `Some(S)` for "eq6" (F = S p², the bonded beads' rigid plane), which takes `stiffness` and no
/// `material`.
pub fn wall_law(
    p: &str,
    law: &Option<String>,
    stiffness: Option<f64>,
    has_material: bool,
) -> Result<Option<f64>, Problem> {
    match law.as_deref().unwrap_or("contact") {
        "contact" => {
            if stiffness.is_some() {
                return Err(Problem::new(
                    format!("{p}.stiffness"),
                    "`stiffness` belongs to law = \"eq6\" (S of F = S p²)",
                ));
            }
            Ok(None)
        }
        "eq6" => {
            if has_material {
                return Err(Problem::new(
                    format!("{p}.material"),
                    "an eq-6 wall has no material: it pushes every sphere by F = S p² (give `stiffness` = S)",
                ));
            }
            positive(&format!("{p}.stiffness"), stiffness, "S of eq 6, F = S p²").map(Some)
        }
        other => Err(Problem::new(
            format!("{p}.law"),
            format!("law = \"{other}\" is not one of contact, eq6"),
        )),
    }
}

/// Appends a material whose law with every material (itself included) is eq 6 with S =
/// `stiffness` (`PairLaw::plane_repulsion`); returns its index. The table's other entries keep
/// their places.
pub fn add_eq6_material(laws: &mut LawTable, stiffness: f64) -> u32 {
    let n = laws.n_materials;
    let law = PairLaw::plane_repulsion(stiffness);
    let mut out = Vec::with_capacity((n + 1) * (n + 1));
    for a in 0..n {
        out.extend_from_slice(&laws.laws[a * n..(a + 1) * n]);
        out.push(law);
    }
    out.extend(std::iter::repeat_n(law, n + 1));
    *laws = LawTable {
        n_materials: n + 1,
        laws: out,
    };
    n as u32
}

pub fn separate_bead_materials(laws: &mut LawTable, materials: &[u32]) {
    let n = laws.n_materials;
    for &m in materials {
        laws.laws[m as usize * n + m as usize] = PairLaw::linear(0.0, 0.0, 1.0, 0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::super::Scenario;

    fn build(body: &str, extra: &str) -> Result<super::super::spheres::SphereBuilt, String> {
        let text = format!(
            "[spheres]\ndt = 2e-9\n[spheres.materials.bead]\nyoung = 4e7\ndensity = 1000.0\n\
             [spheres.materials.grain]\nyoung = 4e7\ndensity = 1000.0\n{extra}\n\
             [[spheres.beads.bodies]]\nmaterial = \"bead\"\nname = \"b\"\n{body}\n"
        );
        let sc =
            Scenario::from_text(&text, "t.toml", std::path::Path::new("."), "t", &[]).map_err(|e| e.to_string())?;
        sc.build_sphere_run().map(|(_, b)| b).map_err(|e| e.to_string())
    }

    /// An eq-6 wall (`law = "eq6"`) gets a material of its own whose law with every material is
    /// F = S p² (`LAW_PLANE_REPULSION`, S in `linear.k_n`); the other pairs keep their laws.
    #[test]
    fn eq6_walls_get_their_own_plane_repulsion_material() {
        use crate::spheres::pair_law::{LAW_HERTZ_MINDLIN, LAW_PLANE_REPULSION};
        let walls = "[[spheres.walls]]\nkind = \"plane\"\nname = \"top\"\npoint = [0.0, 0.0, 4e-5]\n\
                     normal = [0.0, 0.0, -1.0]\nlaw = \"eq6\"\nstiffness = 1e10\n\
                     [[spheres.walls]]\nkind = \"plane\"\nname = \"floor\"\nmaterial = \"grain\"\n\
                     point = [0.0, 0.0, -4e-5]\nnormal = [0.0, 0.0, 1.0]\n";
        let b = build(
            "generator = \"lattice\"\nradius = 3.75e-5\nspacing = 12.5e-6\nk = 200.0",
            walls,
        )
        .unwrap();
        assert_eq!(b.laws.n_materials, 3);
        assert_eq!(b.material_names[2], "top (eq 6)");
        assert_eq!(b.walls[0].material, 2);
        assert_eq!(b.walls[1].material, 1);
        for m in 0..3 {
            let l = b.laws.get(m, 2);
            assert!(l.kind == LAW_PLANE_REPULSION && l.linear.k_n == 1e10 && l.linear.k_t == 0.0);
            assert_eq!(l, b.laws.get(2, m));
        }
        // The materials' own pairs are unchanged: the bead self-pair has no contact, grain–bead
        // is Hertz–Mindlin.
        assert_eq!(b.laws.get(0, 0).linear.k_n, 0.0);
        assert_eq!(b.laws.get(0, 1).kind, LAW_HERTZ_MINDLIN);
        assert_eq!(b.laws.get(1, 1).kind, LAW_HERTZ_MINDLIN);
    }

    /// Beads come first (particles after, their group shifted), weigh density × l³, never touch
    /// each other, and the particles keep their law with themselves.
    #[test]
    fn beads_first_with_their_mass_and_no_self_contact() {
        let sb = build(
            "generator = \"lattice\"\nradius = 2.6e-5\nspacing = 12.5e-6\nk = 200.0",
            "[[spheres.particles]]\nkind = \"sphere\"\nname = \"g\"\nmaterial = \"grain\"\nradius = 1e-5\ncenter = [0.0, 0.0, 1e-4]",
        )
        .unwrap();
        let bb = sb.beads.as_ref().unwrap();
        let n = bb.n_beads() as u32;
        assert_eq!(n, 33, "the lattice points within 2.08 l");
        assert_eq!(sb.groups[0], ("b".to_string(), 0..n));
        assert_eq!(sb.groups[1], ("g".to_string(), n..n + 1));
        assert_eq!(sb.states[n as usize].radius, 1e-5);
        let m = 1000.0 * 12.5e-6f64.powi(3);
        assert!(sb.states[..n as usize]
            .iter()
            .all(|s| (s.mass as f64 / m - 1.0).abs() < 1e-6));
        let (bead, grain) = (sb.states[0].material, sb.states[n as usize].material);
        assert_eq!(sb.laws.get(bead, bead).hertz.e_star, 0.0);
        assert!(sb.laws.get(grain, grain).hertz.e_star > 0.0);
        assert!(sb.laws.get(bead, grain).hertz.e_star > 0.0, "beads touch the grain");
        // Every bond of the body, CSR over the beads only.
        assert_eq!(bb.forces.bonds.n_beads(), n as usize);
    }

    /// The disordered and core–shell generators through the keys.
    #[test]
    fn disordered_and_core_shell_bodies() {
        let d = build(
            "generator = \"disordered\"\nradius = 5e-5\nspacing = 12.5e-6\nk = 200.0\nseed = 4",
            "",
        )
        .unwrap();
        let bb = d.beads.as_ref().unwrap();
        let per_bead = 2.0 * bb.forces.bonds.len() as f64 / bb.n_beads() as f64;
        assert!(
            bb.n_beads() > 150 && per_bead > 6.0,
            "{} beads, {per_bead} bonds each",
            bb.n_beads()
        );
        let cs = build(
            "generator = \"core_shell\"\nradius = 5e-5\nspacing = 12.5e-6\nlaw = \"kelvin_voigt\"\nk = 200.0\nb = 1e-5\n\
             shell_thickness = 0.5\nshell_k = 20.0\nshell_b = 2e-6",
            "",
        )
        .unwrap();
        let bonds = &cs.beads.as_ref().unwrap().forces.bonds.bonds;
        let soft = bonds.iter().filter(|b| b.k == 20.0 && b.b == 2e-6).count();
        let hard = bonds.iter().filter(|b| b.k == 200.0 && b.b == 1e-5).count();
        assert!(
            soft > 0 && hard > 0 && soft + hard == bonds.len(),
            "{soft} + {hard} of {}",
            bonds.len()
        );
        let e = build(
            "generator = \"core_shell\"\nradius = 5e-5\nspacing = 12.5e-6\nk = 200.0\nshell_thickness = 0.5\nshell_k = 20.0\nshell_b = 1e-6",
            "",
        )
        .unwrap_err();
        assert!(e.contains("spheres.beads.bodies[0].shell_b"), "{e}");
    }
}
