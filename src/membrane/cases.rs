//! The validation cases of issue 25 built from plain parameters, shared by `softdem validate`
//! (rows `membrane_*`), the tests and the GPU comparison. Membrane parameters of Table 2 unless
//! stated: thickness 0.3 mm, E = 1.25 MPa, ν = 1/3, μ = 1.2.

use super::mesh::MembraneMesh;
use super::model::{MembraneContact, MembraneSpec};
use super::system::MembraneSpheres;
use crate::spheres::pair_law::SphereMaterial;
use crate::spheres::{SphereParams, SphereState};

/// Table 2's membrane on `mesh` (density 1000 kg/m³, γ = 0.15, no bending stiffness unless set).
pub fn table2_membrane(mesh: MembraneMesh, contact: MembraneContact, vertex_radius: f64) -> MembraneSpec {
    MembraneSpec {
        mesh,
        young: 1.25e6,
        poisson: 1.0 / 3.0,
        thickness: 0.3e-3,
        density: 1000.0,
        friction: 1.2,
        restitution: 0.5,
        damping_ratio: 0.15,
        k_el: 0.0,
        k_diss: 0.0,
        sigma: 0.0,
        contact,
        vertex_radius,
        self_contact: false,
    }
}

/// Table 2's grains: E = 46 GPa, ν = 0.245, μ = 0.25 (density 2650 kg/m³, e = 0.5).
pub const TABLE2_GRAIN: SphereMaterial = SphereMaterial {
    young: 4.6e10,
    poisson: 0.245,
    restitution: 0.5,
    friction: 0.25,
    rolling_friction: 0.0,
    density: 2650.0,
};

/// Result of `cylinder_under_pressure`.
#[derive(Clone, Debug)]
pub struct CylinderPressure {
    /// p r²/(E h), the thin-shell radial expansion of an open cylinder (no axial stress).
    pub expected: f64,
    /// Mean radial displacement of the vertices off the two rims, and the largest deviation of
    /// one of them from it. A rim vertex carries the pressure of half the area of an interior one
    /// but has a full hoop spring on each side, so a free rim expands by half (`rings`).
    pub mean: f64,
    pub spread: f64,
    /// Mean radial velocity at the end (settled when ≪ expected/time).
    pub mean_speed: f64,
    pub n_vertices: usize,
    /// Mean radial displacement of each ring, bottom to top.
    pub rings: Vec<f64>,
}

/// Case 4 of the issue: an open membrane cylinder (radius R, patches of side ≈ s, height 12
/// rows), free ends, internal pressure p (σ = −p), damped to rest over `steps` steps of Δt.
pub fn cylinder_under_pressure(
    radius: f64,
    spacing: f64,
    p: f64,
    k_el: f64,
    dt: f64,
    steps: usize,
) -> CylinderPressure {
    let n = (2.0 * std::f64::consts::PI * radius / spacing).round();
    let chord = 2.0 * radius * (std::f64::consts::PI / n).sin();
    let height = 12.0 * 0.5 * 3f64.sqrt() * chord;
    let mesh = MembraneMesh::cylinder([0.0; 3], radius, height, chord);
    let mut spec = table2_membrane(mesh, MembraneContact::Patches, 0.15e-3);
    spec.sigma = -p;
    spec.k_el = k_el;
    // Breathing mode ω = sqrt(E/ρ)/R: global damping of the same order settles it in a few periods.
    let omega = (spec.young / spec.density).sqrt() / radius;
    let params = SphereParams {
        dt: dt as f32,
        skin: 1e-3,
        global_damping: omega as f32,
        ..Default::default()
    };
    let mut sys = MembraneSpheres::new(params, Vec::new(), &[TABLE2_GRAIN], Vec::new(), &spec);
    for _ in 0..steps {
        sys.step();
    }
    let x = sys.vertex_positions();
    let dr: Vec<f64> = x.iter().map(|p| (p[0] * p[0] + p[1] * p[1]).sqrt() - radius).collect();
    let per_ring = n as usize;
    let inner = &dr[per_ring..dr.len() - per_ring];
    let mean = inner.iter().sum::<f64>() / inner.len() as f64;
    let spread = inner.iter().map(|d| (d - mean).abs()).fold(0.0, f64::max);
    let mean_speed = (0..x.len())
        .map(|v| {
            let s = &sys.spheres.states[sys.vertex_sphere(v as u32)];
            let (px, py) = (x[v][0], x[v][1]);
            (s.vel[0] as f64 * px + s.vel[1] as f64 * py) / (px * px + py * py).sqrt()
        })
        .sum::<f64>()
        / x.len() as f64;
    let rings = dr
        .chunks(per_ring)
        .map(|c| c.iter().sum::<f64>() / c.len() as f64)
        .collect();
    CylinderPressure {
        rings,
        expected: p * radius * radius / (spec.young * spec.thickness),
        mean,
        spread,
        mean_speed,
        n_vertices: x.len(),
    }
}

/// Time series of `sliding`: horizontal position x, height z, horizontal (friction) and
/// vertical force on the sphere from the membrane, sampled every step of the dragging phase.
#[derive(Clone, Debug, Default)]
pub struct Sliding {
    pub x: Vec<f64>,
    pub z: Vec<f64>,
    pub friction: Vec<f64>,
    pub normal: Vec<f64>,
}

/// (max − min)/|mean| of a series.
pub fn relative_fluctuation(v: &[f64]) -> f64 {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let (lo, hi) = v.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    (hi - lo) / mean.abs()
}

/// Case 1 of the issue (the paper's friction test, §3.2): a grain (r = 2.5 mm, Table 2, rotation
/// suppressed) pressed on a flat membrane of side 1.33 mm by gravity (`g` m/s²) and dragged along
/// x at `speed` over `distance`. MSS_patch: patches; MSS_particle: vertex particles of radius
/// 0.67 mm. The membrane's vertices are pinned (a flat, rigid sheet: the test is about how
/// smooth the contact surface is, not about the sheet's deflection).
pub fn sliding(contact: MembraneContact, g: f64, speed: f64, distance: f64, dt: f64) -> Sliding {
    let mut sys = sliding_system(contact, g, dt);
    let mut out = Sliding::default();
    let steps = (distance / (speed * dt)) as usize;
    for _ in 0..steps {
        drag_step(&mut sys, speed);
        let st = &sys.spheres.states[0];
        let f = sys.spheres.forces[0].force;
        let x = st.position();
        out.x.push(x[0]);
        out.z.push(x[2]);
        out.friction.push(f[0] as f64);
        out.normal.push(f[2] as f64 + g * st.mass as f64);
    }
    out
}

/// One step of `sliding`'s dragging phase: the grain (sphere 0) moved at `speed` along x,
/// rotation suppressed.
pub fn drag_step(sys: &mut MembraneSpheres, speed: f64) {
    sys.spheres.states[0].vel[0] = speed as f32;
    sys.spheres.states[0].vel[1] = 0.0;
    sys.spheres.states[0].omega = [0.0; 3];
    sys.step();
}

/// `sliding`'s system: the pinned sheet and the grain (sphere 0) settled on it under g.
pub fn sliding_system(contact: MembraneContact, g: f64, dt: f64) -> MembraneSpheres {
    let s = 1.33e-3;
    let (nx, ny) = (20usize, 16usize);
    let mesh = MembraneMesh::sheet([0.0; 3], nx, ny, s);
    let vr = if contact == MembraneContact::Patches {
        0.15e-3
    } else {
        0.67e-3
    };
    let mut spec = table2_membrane(mesh, contact, vr);
    // Pinned vertices are a rigid sheet; their mass only enters the contacts' effective mass
    // (and so the dashpots): heavy enough that the grain's own mass sets it, as on a wall.
    spec.density = 1e6;
    let r = 2.5e-3;
    let z0 = if contact == MembraneContact::Patches {
        r
    } else {
        r + vr + 0.2e-3
    };
    let x0 = 5.3 * s;
    let y0 = 0.5 * 3f64.sqrt() * s * 7.3;
    let grain = SphereState::solid([x0, y0, z0], r, TABLE2_GRAIN.density, 0);
    let params = SphereParams {
        gravity: [0.0, 0.0, -g as f32],
        dt: dt as f32,
        skin: 0.3e-3,
        ..Default::default()
    };
    let mut sys = MembraneSpheres::new(params, vec![grain], &[TABLE2_GRAIN], Vec::new(), &spec);
    let all: Vec<u32> = (0..(nx * ny) as u32).collect();
    sys.pin(&all, [0.0; 3]);
    // Settle under g with damping, then drag.
    sys.spheres.params.global_damping = 2000.0;
    for _ in 0..(0.02 / dt) as usize {
        sys.step();
        sys.spheres.states[0].omega = [0.0; 3];
    }
    sys.spheres.params.global_damping = 0.0;
    sys
}

/// A membrane cylinder (radius R, patches of side ≈ s, 8 rings, rims pinned) under confining
/// stress σ around a ring of grains of radius r pressed into it by δ0 (Table 2 materials, grains
/// softened to E = 1e8 Pa so the contact steps stay few), bending on: every kind of membrane
/// force at once, for the CPU/GPU comparison.
pub fn confined_ring(radius: f64, spacing: f64, sigma: f64, r: f64, delta0: f64, n_grains: usize) -> MembraneSpheres {
    let c = confined_ring_parts(radius, spacing, sigma, r, delta0, n_grains);
    let mut sys = MembraneSpheres::new(c.params, c.grains, &c.materials, Vec::new(), &c.spec);
    sys.pin(&c.pinned, [0.0; 3]);
    sys
}

/// The inputs of a membrane case for either façade (`MembraneSpheres::new`,
/// `GpuMembraneSpheres::new`) and the vertices it pins at rest.
#[derive(Clone, Debug)]
pub struct MembraneCase {
    pub params: SphereParams,
    pub grains: Vec<SphereState>,
    pub materials: Vec<SphereMaterial>,
    pub spec: MembraneSpec,
    pub pinned: Vec<u32>,
}

/// `confined_ring`'s inputs.
pub fn confined_ring_parts(
    radius: f64,
    spacing: f64,
    sigma: f64,
    r: f64,
    delta0: f64,
    n_grains: usize,
) -> MembraneCase {
    let mesh = MembraneMesh::cylinder([0.0; 3], radius, 7.0 * 0.5 * 3f64.sqrt() * spacing, spacing);
    let height = mesh.vertices.iter().map(|v| v[2]).fold(0.0, f64::max);
    let nv = mesh.vertices.len() as u32;
    let mut spec = table2_membrane(mesh, MembraneContact::Patches, 0.15e-3);
    spec.sigma = sigma;
    spec.k_el = 1e-5;
    spec.k_diss = 1e-7;
    let grain = SphereMaterial {
        young: 1e8,
        ..TABLE2_GRAIN
    };
    let grains: Vec<SphereState> = (0..n_grains)
        .map(|k| {
            let phi = 2.0 * std::f64::consts::PI * (k as f64 + 0.3) / n_grains as f64;
            let rr = radius - r + delta0;
            let z = 0.5 * height + 0.3 * r * (3.0 * phi).sin();
            SphereState::solid([rr * phi.cos(), rr * phi.sin(), z], r, grain.density, 0)
        })
        .collect();
    let params = SphereParams {
        dt: 1e-6,
        skin: 0.5e-3,
        ..Default::default()
    };
    let per_ring = (2.0 * std::f64::consts::PI * radius / spacing).round() as u32;
    MembraneCase {
        params,
        grains,
        materials: vec![grain],
        spec,
        pinned: (0..per_ring).chain(nv - per_ring..nv).collect(),
    }
}

/// A sheet folded onto itself (self-contact): `folded_sheet`'s inputs, the upper part's vertices
/// and their initial velocities (a rotation closing the fold).
#[derive(Clone, Debug)]
pub struct FoldedSheet {
    pub case: MembraneCase,
    pub upper: Vec<u32>,
    pub velocity: Vec<[f64; 3]>,
}

/// A strip of Table 2 membrane (`MembraneMesh::sheet`, nx × ny vertices of side s, Δt = 2 µs, no
/// bending stiffness, no gravity) folded about row `fold` (the line y = fold · √3/2 s): the rows
/// above it are turned onto a plane at angle θ0 above the rows below, which are pinned (the fold
/// row with them); the upper part closes onto the lower at ω (rad/s) about the fold line. Vertex
/// radius `r_v` (the self-contact radius).
#[allow(clippy::too_many_arguments)]
pub fn folded_sheet(
    nx: usize,
    ny: usize,
    fold: usize,
    s: f64,
    theta0: f64,
    omega: f64,
    r_v: f64,
    self_contact: bool,
) -> FoldedSheet {
    let mut mesh = MembraneMesh::sheet([0.0; 3], nx, ny, s);
    let y_f = fold as f64 * 0.5 * 3f64.sqrt() * s;
    let mut upper = Vec::new();
    let mut velocity = Vec::new();
    for (v, x) in mesh.vertices.iter_mut().enumerate() {
        let d = x[1] - y_f;
        if d > 1e-12 {
            *x = [x[0], y_f - d * theta0.cos(), d * theta0.sin()];
            upper.push(v as u32);
            // d/dt of (y_f − d cos θ, d sin θ) with dθ/dt = −ω.
            velocity.push([0.0, -omega * d * theta0.sin(), -omega * d * theta0.cos()]);
        }
    }
    let n = mesh.vertices.len() as u32;
    let mut spec = table2_membrane(mesh, MembraneContact::Patches, r_v);
    spec.self_contact = self_contact;
    let params = SphereParams {
        dt: 2e-6,
        skin: (0.5 * r_v) as f32,
        ..Default::default()
    };
    FoldedSheet {
        case: MembraneCase {
            params,
            grains: Vec::new(),
            materials: vec![TABLE2_GRAIN],
            spec,
            pinned: (0..n).filter(|v| !upper.contains(v)).collect(),
        },
        upper,
        velocity,
    }
}

/// The escape's pocket (docs/membrane.md, "Grains pushed through the membrane"): a grain of
/// r = 2.5 mm at the origin with two edge contacts on patches sharing only vertex 0: patch 0
/// shallow (its edge x = 0.9 r, δ = 0.1 r), patch 1 deep (its edge y = 0.3 r, δ = 0.7 r): two
/// separate points, both kept by Table 1 (the lower-index reading dropped the deep one).
/// Vertices heavy (a wall), at rest; forces evaluated once by `new`.
pub fn pocket_system() -> MembraneSpheres {
    let r = 2.5e-3;
    let v = |x: f64, y: f64| [x * r, y * r, 0.0];
    let mesh = MembraneMesh {
        vertices: vec![v(0.9, 0.3), v(0.9, -0.3), v(1.8, 0.0), v(-1.5, 0.3), v(-0.3, 1.5)],
        triangles: vec![[0, 1, 2], [0, 3, 4]],
    };
    let mut spec = table2_membrane(mesh, MembraneContact::Patches, 0.15e-3);
    spec.density = 1e6;
    let grain = SphereState::solid([0.0; 3], r, TABLE2_GRAIN.density, 0);
    let params = SphereParams {
        dt: 1e-6,
        skin: 0.3e-3,
        ..Default::default()
    };
    MembraneSpheres::new(params, vec![grain], &[TABLE2_GRAIN], Vec::new(), &spec)
}

/// Largest δ/r over the selected patch contacts of grains 0..n (δ = r − |x − x_c|, x_c the
/// nearest point of the patch): a grain's centre passes the zero-thickness patch at δ = r.
pub fn max_patch_overlap(sys: &MembraneSpheres, n: usize) -> f64 {
    use crate::laws::patch_contact::closest_on_patch;
    use crate::laws::vec3::norm;
    use crate::spheres::precision::df3_sub;
    let (sp, m) = (&sys.spheres, &sys.membrane);
    let first = m.params.first as usize;
    let mut worst = 0.0f64;
    for s in 0..n.min(m.list.start.len().saturating_sub(1)) {
        let g = &sp.states[s];
        for c in m.list.start[s] as usize..m.list.start[s + 1] as usize {
            if m.patch_out[c].active == 0 {
                continue;
            }
            let x = m.patches[m.list.patch[c] as usize].v.map(|v| {
                let t = &sp.states[first + v as usize];
                df3_sub(t.pos_hi, t.pos_lo, g.pos_hi, g.pos_lo)
            });
            let q = closest_on_patch([0.0; 3], x[0], x[1], x[2]);
            worst = worst.max(1.0 - norm(q.point) as f64 / g.radius as f64);
        }
    }
    worst
}
