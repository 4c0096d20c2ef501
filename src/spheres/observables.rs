//! What a sphere sample is measured by: the box the sample walls enclose (height, widths,
//! cross-section, volume), the Love–Weber stress tensor of the packing, the coordination number,
//! and the pressure of each sphere (frames, snapshots). Compression is positive throughout.

use super::backend::SphereSnapshot;
use super::precision::{df3_sub, df3_value};
use super::wall::{wall_geometry, PlaneWall, WALL_CYLINDER};
use crate::laws::vec3::{dot, norm};
use crate::scenario::spheres::SphereMeasure;

/// The sample between its walls: H along z (top–bottom), widths along x and y, cross-section A
/// (the box's, or π R² of the `[spheres.measure] cylinder`), V = A H. NaN where a wall is missing.
#[derive(Clone, Copy, Debug)]
pub struct SampleBox {
    pub height: f64,
    pub width_x: f64,
    pub width_y: f64,
    pub area: f64,
    pub volume: f64,
}

/// Gap between two facing planes a and b, measured along a's normal.
fn gap(walls: &[PlaneWall], a: Option<u32>, b: Option<u32>) -> f64 {
    match (a, b) {
        (Some(a), Some(b)) => {
            let (wa, wb) = (&walls[a as usize], &walls[b as usize]);
            let pa = df3_value(wa.point_hi, wa.point_lo);
            let pb = df3_value(wb.point_hi, wb.point_lo);
            let n = wa.normal.map(|x| x as f64);
            (0..3).map(|k| (pb[k] - pa[k]) * n[k]).sum::<f64>().abs()
        }
        _ => f64::NAN,
    }
}

pub fn sample_box(m: &SphereMeasure, walls: &[PlaneWall]) -> SampleBox {
    let height = gap(walls, m.bottom, m.top);
    let width_x = gap(walls, m.left, m.right);
    let width_y = gap(walls, m.front, m.back);
    let area = match m.cylinder {
        Some(c) => std::f64::consts::PI * (walls[c as usize].size as f64).powi(2),
        None => width_x * width_y,
    };
    SampleBox {
        height,
        width_x,
        width_y,
        area,
        volume: area * height,
    }
}

/// Stress a wall carries, −F·n/A (> 0 in compression) over area `area`.
pub fn wall_stress(w: &PlaneWall, area: f64) -> f64 {
    -(0..3).map(|k| w.force[k] as f64 * w.normal[k] as f64).sum::<f64>() / area
}

/// Love–Weber stress of the packing in volume V, (1/V) Σ_c f_c ⊗ d_c, over the pair contacts
/// (d = x_i − x_j, f the force on i) and the wall contacts (d from the contact point to the
/// centre, f the force on the sphere): [xx, yy, zz, xy, xz, yz].
pub fn love_stress(s: &SphereSnapshot, volume: f64) -> [f64; 6] {
    let mut sig = [0.0f64; 6];
    let mut add = |f: [f32; 3], d: [f32; 3]| {
        let (f, d) = (f.map(|x| x as f64), d.map(|x| x as f64));
        sig[0] += f[0] * d[0];
        sig[1] += f[1] * d[1];
        sig[2] += f[2] * d[2];
        sig[3] += 0.5 * (f[0] * d[1] + f[1] * d[0]);
        sig[4] += 0.5 * (f[0] * d[2] + f[2] * d[0]);
        sig[5] += 0.5 * (f[1] * d[2] + f[2] * d[1]);
    };
    for c in &s.contacts {
        let (a, b) = (&s.states[c.i as usize], &s.states[c.j as usize]);
        add(c.out.force, df3_sub(a.pos_hi, a.pos_lo, b.pos_hi, b.pos_lo));
    }
    for c in &s.wall_contacts {
        let (_, l_i, _) = wall_geometry(&s.walls[c.j as usize], &s.states[c.i as usize]);
        add(c.out.force, l_i.map(|x| -x));
    }
    sig.map(|x| x / volume)
}

/// Pressure of each sphere, p_i = −tr σ_i / 3 = (1/(3 V_i)) Σ_c (r_i − δ_c/2) f_n,c (the
/// particle stress of eq 9 from its contacts' normal forces, positive in compression).
pub fn sphere_pressure(s: &SphereSnapshot) -> Vec<f32> {
    let mut p = vec![0.0f64; s.states.len()];
    for c in &s.contacts {
        let (a, b) = (&s.states[c.i as usize], &s.states[c.j as usize]);
        let dist = norm(df3_sub(a.pos_hi, a.pos_lo, b.pos_hi, b.pos_lo)) as f64;
        let delta = a.radius as f64 + b.radius as f64 - dist;
        let f_n = c.out.f_n as f64;
        p[c.i as usize] += (a.radius as f64 - 0.5 * delta) * f_n;
        p[c.j as usize] += (b.radius as f64 - 0.5 * delta) * f_n;
    }
    for c in &s.wall_contacts {
        let st = &s.states[c.i as usize];
        let (g, _, _) = wall_geometry(&s.walls[c.j as usize], st);
        p[c.i as usize] += (st.radius as f64 - 0.5 * g.delta as f64) * c.out.f_n as f64;
    }
    p.iter()
        .zip(&s.states)
        .map(|(x, st)| (x / (3.0 * 4.0 / 3.0 * std::f64::consts::PI * (st.radius as f64).powi(3))) as f32)
        .collect()
}

/// Mean number of pair contacts per sphere, Z = 2 N_c / N (wall contacts not counted).
pub fn coordination(s: &SphereSnapshot) -> f64 {
    2.0 * s.contacts.len() as f64 / s.states.len().max(1) as f64
}

/// Total volume of the spheres.
pub fn solid_volume(s: &SphereSnapshot) -> f64 {
    s.states
        .iter()
        .map(|st| 4.0 / 3.0 * std::f64::consts::PI * (st.radius as f64).powi(3))
        .sum()
}

/// Whether a wall is a cylinder (no single plane position).
pub fn is_cylinder(w: &PlaneWall) -> bool {
    w.kind == WALL_CYLINDER
}

/// |v| of a vector.
pub fn speed(v: [f32; 3]) -> f64 {
    (dot(v, v) as f64).sqrt()
}
