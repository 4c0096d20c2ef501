//! Instrumented triaxial runs (issue 25, row `membrane_triaxial`): why MSS_patch and MSS_particle
//! differ (at small strain with freely sliding rims, at large strain with the rim stop). `probe`
//! measures, at one instant of a `TriaxialCell`, what the row's
//! σ_d does not show: the grains' stress tensor in cylindrical components (Love–Weber, every
//! contact of every grain: grains, platens, membrane), the membrane's load on the grains (radial
//! stress by the virial of its contact forces, its net axial force), the membrane contacts, the
//! kinetic energies and the platen's velocity. `diagnose_run` confines and shears one membrane
//! with options (a longer hold, another platen velocity, the membrane's σ scaled) and probes
//! the confinement's hold and the shearing. Findings: docs/membrane.md ("Why the curves differed
//! at small strain with freely sliding rims", "Why the patch curve runs above the particle one at
//! large strain").

use super::model::MembraneContact;
use super::triaxial::{paper_cell, servo_gain, CellSpec, Packing, TriaxialCell};
use crate::laws::patch_contact::closest_on_patch;
use crate::spheres::contact::sphere_pair_geometry;
use crate::spheres::precision::df3_sub;
use crate::spheres::wall::wall_geometry;

/// One instant of a cell (SI; stresses > 0 in compression).
#[derive(Clone, Copy, Debug, Default)]
pub struct Probe {
    pub time: f64,
    pub axial_strain: f64,
    pub height: f64,
    pub volume: f64,
    /// The row's measures: the platens' stresses (bottom, top), σ_p, σ_d = σ_p − σ_c.
    pub platen_stress: [f64; 2],
    pub sigma_p: f64,
    pub sigma_d: f64,
    /// The top platen's velocity (m/s, < 0 down).
    pub platen_velocity: f64,
    /// The grains' mean stress tensor, cylindrical (rr, θθ, zz) about the cell's axis at each
    /// grain's centre: −(1/V) Σ_grains Σ_contacts l_a f_a (V the row's volume).
    pub grain_stress: [f64; 3],
    /// The membrane's radial stress on the grains, −Σ r_c f_r / (2V) over the grain–membrane
    /// contacts (r_c the contact point's distance from the axis): σ_c for a uniform pressure on
    /// the cylinder through the contact points.
    pub membrane_radial_stress: f64,
    /// The membrane's axial force on the grains (N, > 0 up): on the grains whose centre is within
    /// `END_BAND` of the bottom platen, in between, and within `END_BAND` of the top platen.
    pub membrane_axial_force: [f64; 3],
    /// The platens' axial forces on the grains (N, bottom up > 0, top down < 0).
    pub platen_force: [f64; 2],
    /// Mean distance from the axis of the bottom rim's vertices, of the ring above it, and of
    /// the outermost point of the grains within `END_BAND` of the bottom platen.
    pub rim_radius: [f64; 3],
    /// Active grain–membrane contacts, grains touching the membrane, mean normal force (N).
    pub membrane_contacts: usize,
    pub grains_on_membrane: usize,
    pub mean_membrane_force: f64,
    /// Grains touching the bottom and the top platen.
    pub platen_contacts: [usize; 2],
    /// Kinetic energy of the grains and of the membrane's vertices (J).
    pub kinetic: [f64; 2],
    /// Mean |ω| (rad/s) of the grains touching the membrane and of the others.
    pub spin: [f64; 2],
    /// The membrane's mean spring tension (N/m, > 0 stretched), hoop and axial: the edges'
    /// virial Σ k (ρ − ρ⁰) ρ (ρ̂·e)² over the membrane's area 2π r̄ h (r̄ its mean vertex radius).
    pub membrane_tension: [f64; 2],
    /// The rims' areas (bottom, top; what σ_p divides by) and the mean cross-section V/h.
    pub rim_area: [f64; 2],
    pub mean_area: f64,
    /// The rim stop's reaction (N, bottom and top cap): Σ over the rim vertices held on the cap
    /// (ρ ≤ R_cap (1 + 1e-9)) of the inward radial part of their force at the last evaluation,
    /// max(0, −F·ê_r): radial, so outside every platen force.
    pub cap_force: [f64; 2],
    /// The caps' faces: vertices off the rims lying on a platen's plane (within 1e-9 m) and the
    /// sum of their force into it (N; the platen's reaction, not in its force).
    pub face_vertices: usize,
    pub face_force: f64,
    /// Of `face_force`, what grains press onto those vertices (N; the z part of the grain–vertex
    /// contact forces towards the platen, MSS_particle): grain load that bypasses the platen.
    pub face_grain_force: f64,
    /// The caps' axial force on the membrane (N, bottom up > 0, top down < 0: the convention of
    /// `platen_force`): through the rims, −Σ F_z over each rim's vertices (held in z on their
    /// platen, so the constraint's reaction balances the rest of their force), and through the
    /// faces, the push of each face on the vertices lying on it, max(0, ∓F_z). What a load cell
    /// on a cap sealed to the membrane reads besides the grains: `platen_force` + these.
    pub rim_axial: [f64; 2],
    pub face_axial: [f64; 2],
    /// The grains' deviator q = σ_zz − (σ_rr + σ_θθ)/2 (Love–Weber on V) split by the contacts
    /// that carry it: grain–grain, grain–membrane, grain–platen (the three sum to q of
    /// `grain_stress`).
    pub q_split: [f64; 3],
    /// Grain–grain contacts per grain (2 N_c / N).
    pub coordination: f64,
    /// The grains' σ_zz and (σ_rr + σ_θθ)/2 (Love–Weber) of the grains whose centre lies within
    /// `END_BAND` of a platen (both ends) and of those between, each on its share of V
    /// (band height × V/h).
    pub band_stress: [[f64; 2]; 2],
    /// The tangential (friction) part of the membrane's axial force on the grains (N, > 0 up),
    /// bottom band, middle, top band (of `membrane_axial_force`).
    pub membrane_friction_axial: [f64; 3],
    /// Σ |f_t| / Σ |f_n| over the grain–membrane contacts (the friction mobilised; the mixed
    /// μ = 0.725 bounds it) and the membrane vertices' mean |ω| (rad/s: MSS_particle's vertex
    /// spheres spin freely, `system::vertex_spheres`).
    pub membrane_friction_ratio: f64,
    pub vertex_spin: f64,
}

impl Probe {
    /// σ_d from the grains' platen forces alone (before the caps' reactions).
    pub fn sigma_d_grains(&self) -> f64 {
        let sigma_c = self.sigma_p - self.sigma_d;
        0.5 * (self.platen_force[0] / self.rim_area[0] - self.platen_force[1] / self.rim_area[1]) - sigma_c
    }

    /// σ_d as a load cell on each cap would read it: the grains' force on the platen, the
    /// rims' and the faces' axial reactions, over the rim's area, the mean of both, less σ_c
    /// (σ_c = σ_p − σ_d of the row's measure).
    pub fn sigma_d_cell(&self) -> f64 {
        let sigma_c = self.sigma_p - self.sigma_d;
        let f = [0, 1].map(|k| self.platen_force[k] + self.rim_axial[k] + self.face_axial[k]);
        0.5 * (f[0] / self.rim_area[0] - f[1] / self.rim_area[1]) - sigma_c
    }
}

fn dot3(a: [f32; 3], b: [f32; 3]) -> f64 {
    a[0] as f64 * b[0] as f64 + a[1] as f64 * b[1] as f64 + a[2] as f64 * b[2] as f64
}

/// Cylindrical components (rr, θθ, zz) of l ⊗ f at a grain centre x (axis z through 0).
fn cyl(x: [f64; 3], l: [f32; 3], f: [f32; 3]) -> [f64; 3] {
    let rho = x[0].hypot(x[1]).max(1e-12);
    let (er, et) = ([x[0] / rho, x[1] / rho], [-x[1] / rho, x[0] / rho]);
    let c = |e: [f64; 2], v: [f32; 3]| e[0] * v[0] as f64 + e[1] * v[1] as f64;
    [c(er, l) * c(er, f), c(et, l) * c(et, f), l[2] as f64 * f[2] as f64]
}

/// The measures of `Probe` now.
pub fn probe(cell: &TriaxialCell) -> Probe {
    let s = cell.sample();
    let sp = &cell.sys.spheres;
    let m = &cell.sys.membrane;
    let n = cell.n_grains;
    let first = m.params.first as usize;
    let h = s.height;
    let z0 = df3_value_z(cell, 0);
    // Love–Weber sums by the kind of contact (0 grain, 1 membrane, 2 platen) and by the
    // grain's band (0 ends, 1 middle).
    let mut lf = [[0.0f64; 3]; 3];
    let mut lb = [[0.0f64; 3]; 2];
    let end_band = |z: f64| z - z0 < END_BAND || z - z0 > h - END_BAND;
    let mut add = |kind: usize, x: [f64; 3], l: [f32; 3], f: [f32; 3]| {
        let c = cyl(x, l, f);
        let b = if end_band(x[2]) { 0 } else { 1 };
        for k in 0..3 {
            lf[kind][k] += c[k];
            lb[b][k] += c[k];
        }
    };
    let mut friction_axial = [0.0f64; 3];
    let mut ft_fn = [0.0f64; 2];
    let mut grain_pairs = 0usize;
    let mut radial_virial = 0.0f64;
    let mut axial = [0.0f64; 3];
    let band = |z: f64| {
        if z - z0 < END_BAND {
            0
        } else if z - z0 > h - END_BAND {
            2
        } else {
            1
        }
    };
    // Vertices off the rims on a cap's face (rims.rs): +1 bottom, −1 top.
    let nv = m.params.n_vertices as usize;
    let z_top = z0 + h;
    let face: Vec<i8> = (0..nv)
        .map(|v| {
            let z = sp.states[first + v].position()[2];
            if v < cell.bottom_rim.len() || v >= nv - cell.top_rim.len() {
                0
            } else if (z - z0).abs() <= 1e-9 {
                1
            } else if (z - z_top).abs() <= 1e-9 {
                -1
            } else {
                0
            }
        })
        .collect();
    let mut face_grain_force = 0.0f64;
    let mut contacts = 0usize;
    let mut fn_sum = 0.0f64;
    let mut touching = vec![false; n];
    // Grain pairs and grain–vertex pairs (MSS_particle: a grain i < a vertex j).
    for (k, o) in sp.pair_out.iter().enumerate() {
        let (i, j) = (sp.owner[k] as usize, sp.list.partner[k] as usize);
        if i >= n || o.f_n == 0.0 {
            continue;
        }
        let (g, l_i, l_j) = sphere_pair_geometry(&sp.states[i], &sp.states[j]);
        if g.delta <= 0.0 {
            continue;
        }
        let xi = sp.states[i].position();
        if j < n {
            add(0, xi, l_i, o.force);
            let mf = [-o.force[0], -o.force[1], -o.force[2]];
            add(0, sp.states[j].position(), l_j, mf);
            grain_pairs += 1;
        } else if j >= first {
            add(1, xi, l_i, o.force);
            let xc = [xi[0] + l_i[0] as f64, xi[1] + l_i[1] as f64, xi[2] + l_i[2] as f64];
            membrane_load(xc, band(xi[2]), o.force, &mut radial_virial, &mut axial);
            friction_axial[band(xi[2])] += tangential_z(l_i, o.force);
            add_ratio(&mut ft_fn, l_i, o.force);
            contacts += 1;
            fn_sum += o.f_n.abs() as f64;
            touching[i] = true;
            // The vertex gets −f: towards the bottom face when f_z > 0, the top when f_z < 0.
            if j - first < nv {
                face_grain_force += match face[j - first] {
                    1 => (o.force[2] as f64).max(0.0),
                    -1 => (-o.force[2] as f64).max(0.0),
                    _ => 0.0,
                };
            }
        }
    }
    // Platens.
    let nw = sp.walls.len();
    let mut platen_contacts = [0usize; 2];
    let mut platen_force = [0.0f64; 2];
    for (g, st) in sp.states[..n].iter().enumerate() {
        for w in 0..nw {
            let o = &sp.wall_out[g * nw + w];
            let (geo, l, _) = wall_geometry(&sp.walls[w], st);
            if geo.delta > 0.0 && o.f_n != 0.0 {
                add(2, st.position(), l, o.force);
                if w < 2 {
                    platen_contacts[w] += 1;
                    platen_force[w] += o.force[2] as f64;
                }
            }
        }
    }
    // Patches (MSS_patch): the nearest point of the patch, force on the grain.
    let rows = n.min(m.list.start.len().saturating_sub(1));
    for (g, st) in sp.states[..rows].iter().enumerate() {
        let xg = st.position();
        for c in m.list.start[g] as usize..m.list.start[g + 1] as usize {
            let o = &m.patch_out[c];
            if o.active == 0 {
                continue;
            }
            let x = m.patches[m.list.patch[c] as usize].v.map(|v| {
                let t = &sp.states[first + v as usize];
                df3_sub(t.pos_hi, t.pos_lo, st.pos_hi, st.pos_lo)
            });
            let q = closest_on_patch([0.0; 3], x[0], x[1], x[2]);
            add(1, xg, q.point, o.force);
            let xc = [0, 1, 2].map(|k| xg[k] + q.point[k] as f64);
            membrane_load(xc, band(xg[2]), o.force, &mut radial_virial, &mut axial);
            friction_axial[band(xg[2])] += tangential_z(q.point, o.force);
            add_ratio(&mut ft_fn, q.point, o.force);
            contacts += 1;
            fn_sum += dot3(o.force, o.force).sqrt();
            touching[g] = true;
        }
    }
    let ke = |r: std::ops::Range<usize>| {
        sp.states[r]
            .iter()
            .map(|s| 0.5 * s.mass as f64 * dot3(s.vel, s.vel))
            .sum::<f64>()
    };
    let v = s.volume;
    let per = cell.bottom_rim.len();
    let ring = |k: usize| {
        (k * per..(k + 1) * per)
            .map(|v| {
                let x = sp.states[first + v].position();
                x[0].hypot(x[1])
            })
            .sum::<f64>()
            / per as f64
    };
    let corner = sp.states[..n]
        .iter()
        .filter(|s| s.position()[2] - z0 < END_BAND)
        .map(|s| {
            let x = s.position();
            x[0].hypot(x[1]) + s.radius as f64
        })
        .fold(0.0, f64::max);
    let mut spin = [(0.0f64, 0usize); 2];
    for (g, st) in sp.states[..n].iter().enumerate() {
        let k = if touching[g] { 0 } else { 1 };
        spin[k].0 += dot3(st.omega, st.omega).sqrt();
        spin[k].1 += 1;
    }
    let xs: Vec<[f64; 3]> = (0..m.params.n_vertices as usize)
        .map(|v| sp.states[first + v].position())
        .collect();
    let r_mean = xs.iter().map(|x| x[0].hypot(x[1])).sum::<f64>() / xs.len() as f64;
    let mut tension = [0.0f64; 2];
    for e in &m.edges {
        let (a, b) = (xs[e.i as usize], xs[e.j as usize]);
        let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let rho = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        let f = m.params.k as f64 * (rho - e.rest as f64);
        let mid = [0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])];
        let rm = mid[0].hypot(mid[1]).max(1e-12);
        let hoop = (-mid[1] * d[0] + mid[0] * d[1]) / rm;
        tension[0] += f * hoop * hoop / rho;
        tension[1] += f * d[2] * d[2] / rho;
    }
    let area = 2.0 * std::f64::consts::PI * r_mean * h;
    // The rim stop's and the faces' reactions (rims.rs).
    let mut cap_force = [0.0f64; 2];
    if let Some(r_cap) = cell.rim_stop {
        for (k, rim) in [&cell.bottom_rim, &cell.top_rim].iter().enumerate() {
            for &v in rim.iter() {
                let i = first + v as usize;
                let x = sp.states[i].position();
                let rho = x[0].hypot(x[1]);
                if rho <= r_cap * (1.0 + 1e-9) && rho > 0.0 {
                    let f = sp.forces[i].force;
                    let f_r = (f[0] as f64 * x[0] + f[1] as f64 * x[1]) / rho;
                    cap_force[k] += (-f_r).max(0.0);
                }
            }
        }
    }
    let (mut face_vertices, mut face_force) = (0usize, 0.0f64);
    let mut face_axial = [0.0f64; 2];
    for (v, &k) in face.iter().enumerate() {
        let f = sp.forces[first + v].force[2] as f64;
        if k != 0 {
            face_vertices += 1;
            let push = (-(k as f64) * f).max(0.0);
            face_force += push;
            face_axial[if k > 0 { 0 } else { 1 }] += k as f64 * push;
        }
    }
    // The rims are held in z on their platens: the cap's reaction is −F_z of the rest.
    let mut rim_axial = [0.0f64; 2];
    for (k, rim) in [&cell.bottom_rim, &cell.top_rim].iter().enumerate() {
        for &v in rim.iter() {
            rim_axial[k] -= sp.forces[first + v as usize].force[2] as f64;
        }
    }
    let q_of = |t: [f64; 3]| -(t[2] - 0.5 * (t[0] + t[1])) / v;
    let band_h = [(2.0 * END_BAND).min(h), (h - 2.0 * END_BAND).max(1e-12)];
    let band_stress = [0, 1].map(|b| {
        let vb = band_h[b] * v / h;
        [-lb[b][2] / vb, -0.5 * (lb[b][0] + lb[b][1]) / vb]
    });
    Probe {
        rim_area: s.rim_area,
        mean_area: s.area,
        cap_force,
        face_vertices,
        face_force,
        face_grain_force,
        rim_axial,
        face_axial,
        q_split: [q_of(lf[0]), q_of(lf[1]), q_of(lf[2])],
        coordination: 2.0 * grain_pairs as f64 / n.max(1) as f64,
        band_stress,
        membrane_friction_axial: friction_axial,
        membrane_friction_ratio: ft_fn[0] / ft_fn[1].max(1e-300),
        vertex_spin: sp.states[first..first + nv]
            .iter()
            .map(|s| dot3(s.omega, s.omega).sqrt())
            .sum::<f64>()
            / nv.max(1) as f64,
        membrane_tension: tension.map(|t| t / area),
        spin: spin.map(|(s, c)| s / c.max(1) as f64),
        platen_force,
        rim_radius: [ring(0), ring(1), corner],
        time: s.time,
        axial_strain: s.axial_strain,
        height: h,
        volume: v,
        platen_stress: s.platen_stress,
        sigma_p: s.sigma_p,
        sigma_d: s.sigma_d,
        platen_velocity: sp.walls[1].velocity[2] as f64,
        grain_stress: [0, 1, 2].map(|k| -(lf[0][k] + lf[1][k] + lf[2][k]) / v),
        membrane_radial_stress: -radial_virial / (2.0 * v),
        membrane_axial_force: axial,
        membrane_contacts: contacts,
        grains_on_membrane: touching.iter().filter(|&&t| t).count(),
        mean_membrane_force: fn_sum / contacts.max(1) as f64,
        platen_contacts,
        kinetic: [ke(0..n), ke(first..sp.states.len())],
    }
}

fn df3_value_z(cell: &TriaxialCell, w: usize) -> f64 {
    let wl = &cell.sys.spheres.walls[w];
    crate::spheres::precision::df3_value(wl.point_hi, wl.point_lo)[2]
}

/// Height of the end bands of `Probe::membrane_axial_force`: two of the largest grain radii.
pub const END_BAND: f64 = 5.4e-3;

/// Adds a membrane contact force f on a grain at contact point x_c: r_c f_r to the radial
/// virial, f_z to the axial force of its band.
fn membrane_load(xc: [f64; 3], band: usize, f: [f32; 3], radial: &mut f64, axial: &mut [f64; 3]) {
    *radial += xc[0] * f[0] as f64 + xc[1] * f[1] as f64;
    axial[band] += f[2] as f64;
}

/// The z part of the tangential component of a contact force f on a grain whose branch
/// vector to the contact point is l (the normal along l).
fn tangential_z(l: [f32; 3], f: [f32; 3]) -> f64 {
    let ll = dot3(l, l).max(1e-300);
    f[2] as f64 - dot3(l, f) / ll * l[2] as f64
}

/// Adds |f_t| and |f_n| of a contact force f (normal along the branch vector l) to `sums`.
fn add_ratio(sums: &mut [f64; 2], l: [f32; 3], f: [f32; 3]) {
    let ll = dot3(l, l).max(1e-300);
    let fl = dot3(l, f);
    let fn2 = fl * fl / ll;
    sums[0] += (dot3(f, f) - fn2).max(0.0).sqrt();
    sums[1] += fn2.sqrt();
}

/// Options of `diagnose_run` (the row's: `DiagOptions::row()`).
#[derive(Clone, Copy, Debug)]
pub struct DiagOptions {
    /// Confinement: ramp and hold (ms), then an extra hold (ms) before shearing.
    pub ramp_ms: f64,
    pub hold_ms: f64,
    /// The membrane's σ over σ_c (1: the row; the platen's servo target stays σ_c).
    pub membrane_sigma_factor: f64,
    /// Platen velocity (m/s) and the strain sheared to.
    pub v_p: f64,
    pub strain: f64,
    /// Probes during the hold, every `hold_every` ms, and while shearing, every `shear_every`
    /// of axial strain.
    pub hold_every_ms: f64,
    pub shear_every: f64,
    /// Vertex spacing (m) of the membrane; 0: the paper's (`paper_cell`: 4.0 mm patches,
    /// 1.33 mm particles of radius 0.67 mm).
    pub spacing: f64,
    /// Rims sliding freely (`TriaxialCell::set_rim_stop(None)`), as before the rim stop; false:
    /// the row's cell (the stop at the membrane's initial radius).
    pub free_rims: bool,
    /// σ_p and the servo on the load cell's measure (`TriaxialCell::load_cell`, the row's);
    /// false: the grains' platen force alone, as before.
    pub load_cell: bool,
    /// The membrane vertices' moment of inertia scaled (1: as built, 0.4 m r²; 1e9: their spin
    /// held near 0, as the patch membrane's vertices, which take no torque): MSS_particle's
    /// vertex spheres shed the friction by spinning freely (docs/membrane.md).
    pub vertex_inertia_factor: f64,
}

impl DiagOptions {
    /// The row's run: 5 ms ramp, 10 ms hold, v_p = 0.05 m/s.
    pub fn row(strain: f64) -> DiagOptions {
        DiagOptions {
            ramp_ms: 5.0,
            hold_ms: 10.0,
            membrane_sigma_factor: 1.0,
            v_p: 0.05,
            strain,
            hold_every_ms: 1.0,
            shear_every: 2.5e-4,
            spacing: 0.0,
            free_rims: false,
            load_cell: true,
            vertex_inertia_factor: 1.0,
        }
    }
}

/// The row's cell of `contact` (`paper_cell`) confined as `TriaxialCell::confine` does (σ_c on
/// the membrane scaled by `membrane_sigma_factor`) and sheared at `v_p` to `strain`: the probes
/// of the hold and of the shearing (the first at its start).
pub fn diagnose_run(
    spec: &CellSpec,
    packing: &Packing,
    contact: MembraneContact,
    o: DiagOptions,
) -> (Vec<Probe>, Vec<Probe>) {
    let mut cell = if o.spacing > 0.0 {
        let rv = if contact == MembraneContact::Patches {
            0.15e-3
        } else {
            0.5 * o.spacing
        };
        TriaxialCell::new(spec, packing, contact, o.spacing, rv)
    } else {
        paper_cell(spec, packing, contact)
    };
    if o.vertex_inertia_factor != 1.0 {
        let first = cell.sys.membrane.params.first as usize;
        let nv = cell.sys.membrane.params.n_vertices as usize;
        for st in &mut cell.sys.spheres.states[first..first + nv] {
            st.inertia = (st.inertia as f64 * o.vertex_inertia_factor) as f32;
        }
    }
    cell.load_cell = o.load_cell;
    cell.servo_on_load_cell = o.load_cell;
    if o.free_rims {
        cell.set_rim_stop(None);
    }
    let per_ms = (1e-3 / spec.dt).round() as usize;
    let (ramp, hold) = (
        (o.ramp_ms * per_ms as f64) as usize,
        (o.hold_ms * per_ms as f64) as usize,
    );
    let every = ((o.hold_every_ms * per_ms as f64) as usize).max(1);
    {
        let w = &mut cell.sys.spheres.walls[1];
        w.gain = servo_gain(spec) as f32;
        w.max_speed = 0.05;
    }
    let mut held = Vec::new();
    for k in 0..ramp + hold {
        let s = spec.sigma_c * ((k + 1) as f64 / ramp.max(1) as f64).min(1.0);
        cell.sys.membrane.params.sigma = (s * o.membrane_sigma_factor) as f32;
        cell.set_servo_stress(s);
        cell.step();
        if k + 1 >= ramp && (k + 1 - ramp).is_multiple_of(every) {
            held.push(probe(&cell));
        }
    }
    cell.start_shear(o.v_p);
    let mut sheared = vec![probe(&cell)];
    let steps = ((1.0 - (-o.strain).exp()) * cell.h0 / (o.v_p * spec.dt)).round() as usize;
    let every = (((1.0 - (-o.shear_every).exp()) * cell.h0 / (o.v_p * spec.dt)).round() as usize).max(1);
    for k in 1..=steps {
        cell.step();
        if k.is_multiple_of(every) {
            sheared.push(probe(&cell));
        }
    }
    (held, sheared)
}

/// CSV header of `csv_row`.
pub const CSV_HEADER: &str = "run,phase,t_ms,eps,sigma_d,sigma_bottom,sigma_top,v_platen,sig_rr,sig_tt,sig_zz,\
sig_r_membrane,fz_membrane_bottom,fz_membrane_middle,fz_membrane_top,f_platen_bottom,f_platen_top,\
r_rim,r_ring1,r_corner_grains,contacts,grains_on_membrane,mean_fn,platen_contacts_bottom,\
platen_contacts_top,ke_grains,ke_membrane,volume,height,spin_membrane_grains,spin_inner_grains,tension_hoop,tension_axial,\
rim_area_bottom,rim_area_top,mean_area,cap_force_bottom,cap_force_top,face_vertices,face_force,face_grain_force,\
rim_axial_bottom,rim_axial_top,face_axial_bottom,face_axial_top,sigma_d_cell,q_grain,q_membrane,q_platen,coordination,\
sig_zz_ends,sig_r_ends,sig_zz_mid,sig_r_mid,fz_friction_bottom,fz_friction_middle,fz_friction_top,\
friction_ratio,vertex_spin,sigma_d_grains";

/// One CSV line of a probe (kPa for stresses, mm for the height, µJ for energies).
pub fn csv_row(run: &str, phase: &str, p: &Probe) -> String {
    format!(
        "{run},{phase},{:.3},{:.5},{:.2},{:.2},{:.2},{:.4},{:.2},{:.2},{:.2},{:.2},{:.3},{:.3},{:.3},{:.3},{:.3},{:.4},{:.4},{:.4},{},{},{:.4},{},{},{:.3},{:.3},{:.5e},{:.4},{:.4},{:.4},{:.3},{:.3},{:.5e},{:.5e},{:.5e},{:.3},{:.3},{},{:.3},{:.3},{:.3},{:.3},{:.3},{:.3},{:.2},{:.2},{:.2},{:.2},{:.4},{:.2},{:.2},{:.2},{:.2},{:.3},{:.3},{:.3},{:.4},{:.3},{:.2}",
        p.time * 1e3,
        p.axial_strain * 100.0,
        p.sigma_d * 1e-3,
        p.platen_stress[0] * 1e-3,
        p.platen_stress[1] * 1e-3,
        p.platen_velocity,
        p.grain_stress[0] * 1e-3,
        p.grain_stress[1] * 1e-3,
        p.grain_stress[2] * 1e-3,
        p.membrane_radial_stress * 1e-3,
        p.membrane_axial_force[0],
        p.membrane_axial_force[1],
        p.membrane_axial_force[2],
        p.platen_force[0],
        p.platen_force[1],
        p.rim_radius[0] * 1e3,
        p.rim_radius[1] * 1e3,
        p.rim_radius[2] * 1e3,
        p.membrane_contacts,
        p.grains_on_membrane,
        p.mean_membrane_force,
        p.platen_contacts[0],
        p.platen_contacts[1],
        p.kinetic[0] * 1e6,
        p.kinetic[1] * 1e6,
        p.volume,
        p.height * 1e3,
        p.spin[0],
        p.spin[1],
        p.membrane_tension[0],
        p.membrane_tension[1],
        p.rim_area[0],
        p.rim_area[1],
        p.mean_area,
        p.cap_force[0],
        p.cap_force[1],
        p.face_vertices,
        p.face_force,
        p.face_grain_force,
        p.rim_axial[0],
        p.rim_axial[1],
        p.face_axial[0],
        p.face_axial[1],
        p.sigma_d_cell() * 1e-3,
        p.q_split[0] * 1e-3,
        p.q_split[1] * 1e-3,
        p.q_split[2] * 1e-3,
        p.coordination,
        p.band_stress[0][0] * 1e-3,
        p.band_stress[0][1] * 1e-3,
        p.band_stress[1][0] * 1e-3,
        p.band_stress[1][1] * 1e-3,
        p.membrane_friction_axial[0],
        p.membrane_friction_axial[1],
        p.membrane_friction_axial[2],
        p.membrane_friction_ratio,
        p.vertex_spin,
        p.sigma_d_grains() * 1e-3
    )
}
