//! `[spheres.membrane]`: a membrane-enclosed triaxial cell inside a sphere scenario (issue 25;
//! model in docs/membrane.md, keys in docs/scenarios.md): a cylindrical membrane of vertex
//! particles (the membrane library's `MembraneSpec`), its rims pinned to two platens of
//! `[[spheres.walls]]` (they move with them, by stages), a confining stress σ_c on it, and the
//! grains of `[[spheres.particles]]` inside. The vertices are the last spheres of the run; the
//! membrane is a force source of the CPU stepper (`spheres::extra_force`). The GPU backend
//! refuses these scenarios: the membrane's GPU source is not written yet.

// `!(x > 0.0)` on purpose: NaN must fail these checks too.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::Problem;
use crate::membrane::system::{patch_laws, vertex_masses, vertex_spheres, with_membrane_material};
use crate::membrane::{Membrane, MembraneContact, MembraneMesh, MembraneSpec};
use crate::spheres::pair_law::{LawTable, SphereMaterial};
use crate::spheres::{PlaneWall, SphereParams, SphereState, WALL_PLANE};
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
    walls: &[PlaneWall],
    wall_names: &[String],
    params: &SphereParams,
) -> Result<(LawTable, MembraneBuilt), Problem> {
    let p = "spheres.membrane";
    let key = |k: &str| format!("{p}.{k}");
    let center = m
        .center
        .ok_or_else(|| Problem::new(p, "missing field `center` (centre of the lower rim)"))?;
    let radius = positive(&key("radius"), m.radius, "the cylinder's radius")?;
    let height = positive(&key("height"), m.height, "the cylinder's height")?;
    let spacing = positive(&key("spacing"), m.spacing, "vertex spacing")?;
    if spacing > 0.5 * radius.min(height) {
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
        vertex_radius: match m.vertex_radius {
            Some(r) => positive(&key("vertex_radius"), Some(r), "")?,
            None if contact == MembraneContact::Particles => 0.5 * spacing,
            None => 0.05 * spacing,
        },
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
        if walls[w].kind != WALL_PLANE {
            return Err(Problem::new(key(k), format!("wall \"{n}\" is not a plane wall")));
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
