//! `[spheres.membrane]`: a membrane-enclosed triaxial cell inside a sphere scenario (issue 25;
//! model in docs/membrane.md, keys in docs/scenarios.md): a cylindrical membrane of vertex
//! particles (the membrane library's `MembraneSpec`), its rims pinned to two platens of
//! `[[spheres.walls]]` (they move with them, by stages), a confining stress σ_c on it, and the
//! grains of `[[spheres.particles]]` inside. The vertices are the last spheres of the run; the
//! membrane is a force source of either stepper (`spheres::extra_force`, `membrane::attach`).
//!
//! **Dense preparation** (`[spheres.membrane.packing]`): the grains are grown in the rigid
//! cylinder of the membrane's `radius` × `height` and compacted by a servo plane at a stress
//! (`membrane::triaxial::grow_packing`, the validation's preparation, called as is); the
//! membrane is then built where the grains meet it (`triaxial::membrane_radius`) with the
//! compacted height, and the top platen put at that height.
//!
//! **Servo top platen**: a `servo` wall as `top_platen` acts on the rim's cross-section
//! (`rims::rim_area_of`, constant: the rims are pinned) with σ_c as its target, so σ_p = σ_c
//! while the stages ramp σ_c (`engine::spheres`); a stage that moves it makes it a plane wall.

// `!(x > 0.0)` on purpose: NaN must fail these checks too.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::Problem;
use crate::membrane::system::{patch_laws, vertex_masses, vertex_spheres, with_membrane_material};
use crate::membrane::triaxial::{grow_packing, membrane_radius, rim_area_of, CellSpec};
use crate::membrane::{Membrane, MembraneContact, MembraneMesh, MembraneSpec};
use crate::spheres::pair_law::{LawTable, SphereMaterial};
use crate::spheres::{PlaneWall, SphereParams, SphereState, WALL_PLANE, WALL_SERVO};
use serde::{Deserialize, Serialize};

/// `[spheres.membrane]`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MembraneSection {
    /// Centre of the lower rim; the axis is z.
    pub center: Option<[f64; 3]>,
    pub radius: Option<f64>,
    pub height: Option<f64>,
    /// Vertex spacing s (patches of side ≈ s).
    pub spacing: Option<f64>,
    pub thickness: Option<f64>,
    pub young: Option<f64>,
    /// Contacts only (the springs give ν = 1/3); default 1/3.
    pub poisson: Option<f64>,
    pub friction: Option<f64>,
    /// Default 1000 kg/m³ (vertex mass = density · thickness · A/3 per patch).
    pub density: Option<f64>,
    /// Default 0.5.
    pub restitution: Option<f64>,
    /// γ of eq 6 (default 0.15).
    pub damping_ratio: Option<f64>,
    /// k^el, k^diss of eq 11–12 (default 0: no bending stiffness).
    pub bending_stiffness: Option<f64>,
    pub bending_damping: Option<f64>,
    /// "patch" (MSS_patch, default) or "particle" (MSS_particle).
    pub contact: Option<String>,
    /// Vertex particles' radius (default s/2 with particle contacts, s/20 with patches).
    pub vertex_radius: Option<f64>,
    /// Vertex–patch self-contact of the membrane (patches only; default false).
    pub self_contact: Option<bool>,
    /// σ_c (> 0 presses inward).
    pub confining_pressure: Option<f64>,
    /// The plane walls the lower and upper rims are pinned to.
    pub bottom_platen: Option<String>,
    pub top_platen: Option<String>,
    /// The dense preparation of the grains (`[spheres.membrane.packing]`).
    pub packing: Option<PackingSection>,
}

/// `[spheres.membrane.packing]`: grains grown in the membrane's cylinder and compacted
/// (`membrane::triaxial::grow_packing`; docs/membrane.md, "Packing").
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PackingSection {
    pub name: Option<String>,
    pub material: Option<String>,
    pub count: Option<usize>,
    pub r_min: Option<f64>,
    pub r_max: Option<f64>,
    pub seed: Option<u64>,
    /// dλ per step at zero mean stress (default 5e-5).
    pub growth_rate: Option<f64>,
    /// The growth slows to 0 at this mean stress (default 0.05 × compact_stress).
    pub stop_stress: Option<f64>,
    pub relax_steps: Option<usize>,
    pub compact_steps: Option<usize>,
    /// The servo plane's stress in the compaction (default: `confining_pressure`).
    pub compact_stress: Option<f64>,
    /// Global damping of the preparation (default 200 1/s).
    pub damping: Option<f64>,
    /// Time step of the preparation (default: the run's rule on r_min, `dt` or `dt_fraction`).
    pub dt: Option<f64>,
}

/// Resolves a material name (with the path of the table naming it) to its index.
pub type MaterialOf<'a> = &'a dyn Fn(&str, &Option<String>) -> Result<u32, Problem>;

/// A grown packing (`grow`): its grains and the cylinder they fill.
#[derive(Clone, Debug)]
pub struct Grown {
    pub name: String,
    pub grains: Vec<SphereState>,
    /// The mould's radius and the compacted height.
    pub radius: f64,
    pub height: f64,
    /// λ, the solid fraction and the mean stress at the end (for `check`).
    pub scale: f64,
    pub solid_fraction: f64,
}

/// Grows the grains of `[spheres.membrane.packing]` (None without one). `material` resolves a
/// material name to its index (with the path for errors); `dt_rule` gives the run's time step
/// for a smallest radius.
pub fn grow(
    m: &MembraneSection,
    mats: &[SphereMaterial],
    material: MaterialOf,
    dt_rule: &dyn Fn(f64, &SphereMaterial) -> Result<f64, Problem>,
) -> Result<Option<Grown>, Problem> {
    let Some(pk) = &m.packing else { return Ok(None) };
    let p = "spheres.membrane.packing";
    let key = |k: &str| format!("{p}.{k}");
    let center = m
        .center
        .ok_or_else(|| Problem::new("spheres.membrane", "missing field `center` (centre of the lower rim)"))?;
    let radius = positive("spheres.membrane.radius", m.radius, "the cylinder's radius")?;
    let height = positive("spheres.membrane.height", m.height, "the cylinder's height")?;
    let mat = material(p, &pk.material)?;
    let grain = mats[mat as usize];
    if !(grain.density > 0.0) || !grain.young.is_finite() {
        return Err(Problem::new(
            key("material"),
            "the grains' material needs a density and a finite young",
        ));
    }
    let count = match pk.count {
        Some(c) if c > 0 => c,
        _ => return Err(Problem::new(key("count"), "count must be ≥ 1 (missing field `count`?)")),
    };
    let r_min = positive(&key("r_min"), pk.r_min, "smallest grain radius")?;
    let r_max = positive(&key("r_max"), pk.r_max, "largest grain radius")?;
    if r_max < r_min {
        return Err(Problem::new(
            key("r_max"),
            format!("r_max = {r_max} is below r_min = {r_min}"),
        ));
    }
    if 2.0 * r_max >= radius.min(height) {
        return Err(Problem::new(
            key("r_max"),
            format!("grains of radius {r_max} do not fit a cylinder of radius {radius} and height {height}"),
        ));
    }
    // Placed at half their radii without overlap (`grow_packing`): refuse what cannot fit.
    let placed: f64 = 4.0 / 3.0 * std::f64::consts::PI * (0.5 * r_max).powi(3) * count as f64;
    let room = std::f64::consts::PI * radius * radius * height;
    if placed > 0.3 * room {
        return Err(Problem::new(
            key("count"),
            format!(
                "{count} grains at half their radii fill {:.0} % of the cylinder: too many to place at random (≤ 30 %)",
                100.0 * placed / room
            ),
        ));
    }
    let sigma = match pk.compact_stress.or(m.confining_pressure) {
        Some(x) => positive(&key("compact_stress"), Some(x), "")?,
        None => {
            return Err(Problem::new(
                key("compact_stress"),
                "missing field `compact_stress` (the servo's stress; default confining_pressure, not given)",
            ))
        }
    };
    let rate = positive(&key("growth_rate"), Some(pk.growth_rate.unwrap_or(5e-5)), "")?;
    if rate >= 0.5 {
        return Err(Problem::new(
            key("growth_rate"),
            format!("growth_rate = {rate} must be < 0.5"),
        ));
    }
    let p_stop = positive(&key("stop_stress"), Some(pk.stop_stress.unwrap_or(0.05 * sigma)), "")?;
    let damping = pk.damping.unwrap_or(200.0);
    if !(damping >= 0.0) {
        return Err(Problem::new(key("damping"), format!("damping = {damping} must be ≥ 0")));
    }
    let dt = match pk.dt {
        Some(d) => positive(&key("dt"), Some(d), "")?,
        None => dt_rule(r_min, &grain)?,
    };
    let spec = CellSpec {
        radius,
        height,
        r_min,
        r_max,
        n_grains: count,
        grain,
        membrane_friction: 0.0,
        sigma_c: sigma,
        dt,
        damping,
        shear_damping: damping,
        seed: pk.seed.unwrap_or(0),
    };
    let packing = grow_packing(
        &spec,
        rate,
        p_stop,
        pk.relax_steps.unwrap_or(2000),
        pk.compact_steps.unwrap_or(20_000),
    );
    if packing
        .grains
        .iter()
        .any(|g| !g.position().iter().all(|x| x.is_finite()))
    {
        return Err(Problem::new(
            p,
            "the preparation diverged (a smaller dt or a slower growth_rate)",
        ));
    }
    let grains = packing
        .grains
        .iter()
        .map(|g| {
            let x = g.position();
            let mut st = *g;
            (st.pos_hi, st.pos_lo) =
                crate::spheres::precision::df3_split([x[0] + center[0], x[1] + center[1], x[2] + center[2]]);
            st.material = mat;
            st
        })
        .collect();
    Ok(Some(Grown {
        name: pk.name.clone().unwrap_or_else(|| "grains".into()),
        grains,
        radius,
        height: packing.height,
        scale: packing.scale,
        solid_fraction: packing.solid_fraction,
    }))
}

/// The membrane of a scenario resolved.
#[derive(Clone, Debug)]
pub struct MembraneBuilt {
    /// The source as built (vertex spheres `first ..`).
    pub membrane: Membrane,
    pub first: u32,
    pub n_vertices: u32,
    pub triangles: Vec<[u32; 3]>,
    /// Pinned vertices (sphere index) and the wall each follows.
    pub pins: Vec<(u32, u32)>,
    pub bottom: u32,
    pub top: u32,
    /// The cell's axis (x, y) and σ_c.
    pub axis: [f64; 2],
    pub sigma_c: f64,
    /// Initial height between the platens and enclosed volume.
    pub h0: f64,
    pub v0: f64,
}

fn positive(path: &str, x: Option<f64>, what: &str) -> Result<f64, Problem> {
    let key = path.rsplit('.').next().unwrap_or(path);
    match x {
        None => Err(Problem::new(path, format!("missing field `{key}` ({what})"))),
        Some(v) if !(v > 0.0) || !v.is_finite() => Err(Problem::new(path, format!("{key} = {v} must be > 0"))),
        Some(v) => Ok(v),
    }
}

/// What `build` adds to the sphere scene: the vertices (appended to `states`), the law table
/// with the membrane's material (index `mats.len()`), and the membrane.
#[allow(clippy::too_many_arguments)]
pub fn build(
    m: &MembraneSection,
    mats: &[SphereMaterial],
    laws: &LawTable,
    states: &mut Vec<SphereState>,
    walls: &mut [PlaneWall],
    wall_names: &[String],
    params: &SphereParams,
    grown: Option<&Grown>,
) -> Result<(LawTable, MembraneBuilt), Problem> {
    let p = "spheres.membrane";
    let key = |k: &str| format!("{p}.{k}");
    let center = m
        .center
        .ok_or_else(|| Problem::new(p, "missing field `center` (centre of the lower rim)"))?;
    let radius = positive(&key("radius"), m.radius, "the cylinder's radius")?;
    let height = positive(&key("height"), m.height, "the cylinder's height")?;
    let spacing = positive(&key("spacing"), m.spacing, "vertex spacing")?;
    if spacing > 0.5 * radius.min(height.min(grown.map_or(height, |g| g.height))) {
        return Err(Problem::new(
            key("spacing"),
            format!("spacing = {spacing} is too coarse for a cylinder of radius {radius} and height {height}"),
        ));
    }
    let contact = match m.contact.as_deref().unwrap_or("patch") {
        "patch" => MembraneContact::Patches,
        "particle" => MembraneContact::Particles,
        other => {
            return Err(Problem::new(
                key("contact"),
                format!("contact = \"{other}\" is not one of patch, particle"),
            ))
        }
    };
    let poisson = m.poisson.unwrap_or(1.0 / 3.0);
    if !(poisson > -1.0 && poisson <= 0.5) {
        return Err(Problem::new(
            key("poisson"),
            format!("poisson = {poisson} must be in (−1, 0.5]"),
        ));
    }
    let nonneg = |k: &str, v: Option<f64>, d: f64| -> Result<f64, Problem> {
        let x = v.unwrap_or(d);
        if !(x >= 0.0) || !x.is_finite() {
            return Err(Problem::new(key(k), format!("{k} = {x} must be ≥ 0")));
        }
        Ok(x)
    };
    let restitution = m.restitution.unwrap_or(0.5);
    if !(restitution > 0.0 && restitution <= 1.0) {
        return Err(Problem::new(
            key("restitution"),
            format!("restitution = {restitution} must be in (0, 1]"),
        ));
    }
    let vertex_radius = match m.vertex_radius {
        Some(r) => positive(&key("vertex_radius"), Some(r), "")?,
        None if contact == MembraneContact::Particles => 0.5 * spacing,
        None => 0.05 * spacing,
    };
    // Around a grown packing: where the grains meet the membrane, at the compacted height, the
    // spacing adjusted so that a ring keeps round(2πR/s) vertices (`TriaxialCell::new`).
    let (radius, height, spacing) = match grown {
        None => (radius, height, spacing),
        Some(g) => {
            let rm = membrane_radius(contact, g.radius, spacing, vertex_radius);
            let n = (2.0 * std::f64::consts::PI * rm / spacing).round();
            (rm, g.height, 2.0 * std::f64::consts::PI * rm / n)
        }
    };
    let spec = MembraneSpec {
        mesh: MembraneMesh::cylinder(center, radius, height, spacing),
        young: positive(&key("young"), m.young, "the membrane's Young's modulus")?,
        poisson,
        thickness: positive(&key("thickness"), m.thickness, "the membrane's thickness")?,
        density: positive(&key("density"), Some(m.density.unwrap_or(1000.0)), "")?,
        friction: nonneg("friction", m.friction, 0.0)?,
        restitution,
        damping_ratio: nonneg("damping_ratio", m.damping_ratio, 0.15)?,
        k_el: nonneg("bending_stiffness", m.bending_stiffness, 0.0)?,
        k_diss: nonneg("bending_damping", m.bending_damping, 0.0)?,
        sigma: nonneg("confining_pressure", m.confining_pressure, 0.0)?,
        contact,
        vertex_radius,
        self_contact: match (m.self_contact.unwrap_or(false), contact) {
            (true, MembraneContact::Particles) => {
                return Err(Problem::new(
                    key("self_contact"),
                    "self-contact is modelled with patch contacts only (contact = \"patch\")",
                ))
            }
            (on, _) => on,
        },
    };
    // The platens.
    let platen = |k: &str, name: &Option<String>| -> Result<u32, Problem> {
        let n = name
            .as_ref()
            .ok_or_else(|| Problem::new(p, format!("missing field `{k}` (the wall its rim is pinned to)")))?;
        let w = wall_names.iter().position(|x| x == n).ok_or_else(|| {
            Problem::new(
                key(k),
                format!("no wall named \"{n}\" (walls: {})", wall_names.join(", ")),
            )
        })?;
        let servo_ok = k == "top_platen" && walls[w].kind == WALL_SERVO;
        if walls[w].kind != WALL_PLANE && !servo_ok {
            return Err(Problem::new(
                key(k),
                format!("wall \"{n}\" is not a plane wall (the top platen may also be a servo wall)"),
            ));
        }
        Ok(w as u32)
    };
    let (bottom, top) = (
        platen("bottom_platen", &m.bottom_platen)?,
        platen("top_platen", &m.top_platen)?,
    );
    // The law table with the membrane's material (as `membrane::system::MembraneSpheres`).
    let n = mats.len();
    let table = with_membrane_material(laws, mats, &spec);
    let mesh = &spec.mesh;
    let mass = vertex_masses(&spec);
    // Stability of the stretching springs: k = (√3/2) E d on ≤ 6 edges a vertex; Δt ≤
    // 0.5 sqrt(m/Σk) as for the bead bonds (docs/beads.md).
    let k = crate::laws::membrane_stretch::stretch_stiffness(spec.young, spec.thickness);
    let m_min = mass.iter().copied().fold(f64::INFINITY, f64::min);
    let dt_max = 0.5 * (m_min / (6.0 * k)).sqrt();
    if params.dt as f64 > dt_max {
        return Err(Problem::new(
            key("spacing"),
            format!(
                "the lightest vertex ({m_min:.3e} kg) on springs k = {k:.3e} N/m needs dt ≤ {dt_max:.3e} \
                 (0.5 sqrt(m/6k)); dt = {:.3e}: a coarser spacing, a thicker or denser membrane, or a smaller dt",
                params.dt
            ),
        ));
    }
    let first = states.len();
    states.extend(vertex_spheres(&spec, n as u32));
    // Rims: the first and last rings (`MembraneMesh::cylinder`).
    let ring = ((2.0 * std::f64::consts::PI * radius / spacing).round() as usize).max(3);
    let nv = mesh.vertices.len();
    let mut pins: Vec<(u32, u32)> = (0..ring).map(|v| ((first + v) as u32, bottom)).collect();
    pins.extend((nv - ring..nv).map(|v| ((first + v) as u32, top)));
    let membrane = Membrane::new(
        &spec,
        first,
        states,
        patch_laws(mats, &spec),
        params.dt,
        params.skin as f64,
    );
    // A grown packing's top platen at the compacted height.
    if grown.is_some() {
        let w = &mut walls[top as usize];
        let x = crate::spheres::precision::df3_value(w.point_hi, w.point_lo);
        (w.point_hi, w.point_lo) = crate::spheres::precision::df3_split([x[0], x[1], center[2] + height]);
    }
    // A servo top platen holds σ_c on the rim's cross-section (constant: the rims are pinned).
    if walls[top as usize].kind == WALL_SERVO {
        let rim: Vec<[f64; 3]> = mesh.vertices[nv - ring..].to_vec();
        let w = &mut walls[top as usize];
        w.size = rim_area_of(&rim, contact, spec.vertex_radius) as f32;
        w.target_stress = spec.sigma as f32;
    }
    let wz = |w: u32| crate::spheres::precision::df3_value(walls[w as usize].point_hi, walls[w as usize].point_lo)[2];
    let axis = [center[0], center[1]];
    let v0 = MembraneMesh::volume_about_z(&mesh.vertices, &mesh.triangles, axis);
    Ok((
        table,
        MembraneBuilt {
            membrane,
            first: first as u32,
            n_vertices: nv as u32,
            triangles: mesh.triangles.clone(),
            pins,
            bottom,
            top,
            axis,
            sigma_c: spec.sigma,
            h0: wz(top) - wz(bottom),
            v0,
        },
    ))
}
