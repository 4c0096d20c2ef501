//! Outputs of a membrane-enclosed cell (`[spheres.membrane]`), added to the sphere outputs:
//! - `series.csv` columns `membrane_volume,axial_strain,volumetric_strain,sigma_1,sigma_d`: the
//!   volume V enclosed by the membrane and the platens (`MembraneMesh::volume_about_z`), the
//!   axial strain (H0 − H)/H0 between the platens, the volumetric strain (V0 − V)/V0, the axial
//!   stress σ_1 = F_top / A on the top platen over the mean cross-section A = V/H (compression
//!   positive) and the deviatoric stress σ_d = σ_1 − σ_c (σ_c now: stages may ramp it);
//! - frames: `frames/membrane_NNNNNN.vtp`, the membrane as a triangle mesh with each vertex's
//!   `force` (everything acting on the vertex particle at the last evaluation: springs,
//!   bending, σ_c, contacts) and `velocity`.
//!
//! The sphere snapshots (`snapshot_*.png`) draw the vertex particles with the grains.

use super::sphere_parts::{data_array, snapshot_of, vtk_head};
use crate::membrane::MembraneMesh;
use crate::run::ObserveCtx;
use crate::scenario::beads::BeadsBuilt;
use crate::scenario::membrane::MembraneBuilt;
use crate::spheres::backend::SphereSnapshot;
use crate::spheres::precision::df3_value;
use std::fmt::Write as _;
use std::rc::Rc;

/// The membrane columns of `series.csv` (starting with a comma).
pub fn series_header() -> &'static str {
    ",membrane_volume,axial_strain,volumetric_strain,sigma_1,sigma_d"
}

/// (V, H, ε_a, ε_v, σ_1, σ_d) of a sample under the confining stress `sigma_c`.
pub fn cell_measures(m: &MembraneBuilt, s: &SphereSnapshot, sigma_c: f64) -> [f64; 6] {
    let pos: Vec<[f64; 3]> = (m.first..m.first + m.n_vertices)
        .map(|i| {
            let st = &s.states[i as usize];
            df3_value(st.pos_hi, st.pos_lo)
        })
        .collect();
    let v = MembraneMesh::volume_about_z(&pos, &m.triangles, m.axis);
    let z = |w: u32| {
        let w = &s.walls[w as usize];
        df3_value(w.point_hi, w.point_lo)[2]
    };
    let h = z(m.top) - z(m.bottom);
    let sigma_1 = s.walls[m.top as usize].force[2] as f64 / (v / h);
    [v, h, (m.h0 - h) / m.h0, (m.v0 - v) / m.v0, sigma_1, sigma_1 - sigma_c]
}

/// The membrane cells of a `series.csv` row.
pub fn series_cells(m: &MembraneBuilt, s: &SphereSnapshot, sigma_c: f64) -> String {
    let [v, _, ea, ev, s1, sd] = cell_measures(m, s, sigma_c);
    format!(",{v:.9e},{ea:.6e},{ev:.6e},{s1:.6e},{sd:.6e}")
}

/// The membrane as a VTK triangle mesh with vertex forces and velocities.
pub fn membrane_polydata(m: &MembraneBuilt, s: &SphereSnapshot, ascii: bool) -> String {
    let n = m.n_vertices as usize;
    let c = m.triangles.len();
    let range = m.first as usize..m.first as usize + n;
    let mut t = String::with_capacity(n * 100 + c * 30);
    t += vtk_head(ascii);
    let _ = writeln!(
        t,
        "<Piece NumberOfPoints=\"{n}\" NumberOfVerts=\"0\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"{c}\">"
    );
    t += "<Points>\n";
    let p: Vec<f64> = s.states[range.clone()]
        .iter()
        .flat_map(|st| df3_value(st.pos_hi, st.pos_lo))
        .collect();
    data_array(&mut t, "Points", 3, &p, ascii);
    t += "</Points>\n<Polys>\n";
    let idx: Vec<i32> = m.triangles.iter().flat_map(|tr| tr.map(|v| v as i32)).collect();
    data_array(&mut t, "connectivity", 1, &idx, ascii);
    let off: Vec<i32> = (1..=c as i32).map(|k| 3 * k).collect();
    data_array(&mut t, "offsets", 1, &off, ascii);
    t += "</Polys>\n<PointData Vectors=\"force\">\n";
    let f: Vec<f32> = s.forces[range.clone()].iter().flat_map(|x| x.force).collect();
    data_array(&mut t, "force", 3, &f, ascii);
    let v: Vec<f32> = s.states[range].iter().flat_map(|st| st.vel).collect();
    data_array(&mut t, "velocity", 3, &v, ascii);
    t += "</PointData>\n</Piece>\n</PolyData>\n</VTKFile>\n";
    t
}

/// The frame maker of a run with a membrane: spheres, contacts, (bonds,) membrane.
pub fn frame_parts(
    m: Rc<MembraneBuilt>,
    beads: Option<Rc<BeadsBuilt>>,
    dt: f32,
) -> (super::vtk::PartsFn, Vec<&'static str>) {
    let mut names = vec!["contacts"];
    if beads.is_some() {
        names.push("bonds");
    }
    names.push("membrane");
    let f: super::vtk::PartsFn = Box::new(move |ctx: &mut ObserveCtx, ascii: bool| {
        let s = snapshot_of(ctx)?;
        let mut parts = vec![
            super::sphere_parts::spheres_polydata(&s, ascii),
            super::sphere_parts::contacts_polydata(&s, ascii),
        ];
        if let Some(bb) = &beads {
            let b = super::beads::beads_of(ctx)?;
            parts.push(super::beads::bonds_polydata(bb, &s, &b, dt, ascii));
        }
        parts.push(membrane_polydata(&m, &s, ascii));
        Ok(parts)
    });
    (f, names)
}
