//! What every output of a sphere run reads (`output::spheres`, and the bead and membrane
//! sections' `output::beads`, `output::membrane`): the step's read-back (`snapshot_of`) and the
//! VTK pieces of the spheres and their contact network. Below those three files, so a section
//! draws the spheres without importing the file that composes the sections.

use super::vtk::binary_array;
use crate::run::ObserveCtx;
use crate::spheres::backend::SphereSnapshot;
use crate::spheres::observables::sphere_pressure;
use crate::spheres::precision::df3_value;
use std::fmt::Write as _;
use std::rc::Rc;

/// The spheres' read-back of this step (cached by the kind: one read per step).
pub(crate) fn snapshot_of(ctx: &mut ObserveCtx) -> anyhow::Result<Rc<SphereSnapshot>> {
    ctx.backend
        .spheres()?
        .ok_or_else(|| anyhow::anyhow!("sphere outputs on a kind without spheres"))
}

/// A value type of a VTK `DataArray`.
pub(crate) trait VtkScalar: Copy + std::fmt::Display {
    const TYPE: &'static str;
    fn le(self, out: &mut Vec<u8>);
}

impl VtkScalar for f32 {
    const TYPE: &'static str = "Float32";
    fn le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl VtkScalar for f64 {
    const TYPE: &'static str = "Float64";
    fn le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl VtkScalar for i32 {
    const TYPE: &'static str = "Int32";
    fn le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

/// One `DataArray` of `values` (`comps` per tuple), base64 binary or ASCII.
pub(crate) fn data_array<T: VtkScalar>(s: &mut String, name: &str, comps: usize, values: &[T], ascii: bool) {
    if ascii {
        let _ = writeln!(
            s,
            "<DataArray type=\"{}\" Name=\"{name}\" NumberOfComponents=\"{comps}\" format=\"ascii\">",
            T::TYPE
        );
        for v in values {
            let _ = write!(s, "{v} ");
        }
        s.push_str("\n</DataArray>\n");
    } else {
        let mut bytes = Vec::with_capacity(std::mem::size_of_val(values));
        values.iter().for_each(|v| v.le(&mut bytes));
        binary_array(s, T::TYPE, name, comps, &bytes);
    }
}

pub(crate) fn vtk_head(ascii: bool) -> &'static str {
    if ascii {
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n<PolyData>\n"
    } else {
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n<PolyData>\n"
    }
}

/// The spheres as VTK points (one vertex cell each) with their arrays.
pub fn spheres_polydata(s: &SphereSnapshot, ascii: bool) -> String {
    let n = s.states.len();
    let mut t = String::with_capacity(n * 160);
    t += vtk_head(ascii);
    let _ = writeln!(
        t,
        "<Piece NumberOfPoints=\"{n}\" NumberOfVerts=\"{n}\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">"
    );
    t += "<Points>\n";
    let p: Vec<f64> = s.states.iter().flat_map(|st| df3_value(st.pos_hi, st.pos_lo)).collect();
    data_array(&mut t, "Points", 3, &p, ascii);
    t += "</Points>\n<Verts>\n";
    let idx: Vec<i32> = (0..n as i32).collect();
    data_array(&mut t, "connectivity", 1, &idx, ascii);
    let off: Vec<i32> = (1..=n as i32).collect();
    data_array(&mut t, "offsets", 1, &off, ascii);
    t += "</Verts>\n<PointData Scalars=\"radius\" Vectors=\"velocity\">\n";
    let radius: Vec<f32> = s.states.iter().map(|st| st.radius).collect();
    data_array(&mut t, "radius", 1, &radius, ascii);
    let v: Vec<f32> = s.states.iter().flat_map(|st| st.vel).collect();
    data_array(&mut t, "velocity", 3, &v, ascii);
    let w: Vec<f32> = s.states.iter().flat_map(|st| st.omega).collect();
    data_array(&mut t, "angular_velocity", 3, &w, ascii);
    let f: Vec<f32> = s.forces.iter().flat_map(|x| x.force).collect();
    data_array(&mut t, "force", 3, &f, ascii);
    data_array(&mut t, "pressure", 1, &sphere_pressure(s), ascii);
    let mat: Vec<i32> = s.states.iter().map(|st| st.material as i32).collect();
    data_array(&mut t, "material", 1, &mat, ascii);
    t += "</PointData>\n</Piece>\n</PolyData>\n</VTKFile>\n";
    t
}

/// The contact network: one line per pair in contact between the centres, with f_n.
pub fn contacts_polydata(s: &SphereSnapshot, ascii: bool) -> String {
    let n = s.states.len();
    let c = s.contacts.len();
    let mut t = String::with_capacity(n * 40 + c * 40);
    t += vtk_head(ascii);
    let _ = writeln!(
        t,
        "<Piece NumberOfPoints=\"{n}\" NumberOfVerts=\"0\" NumberOfLines=\"{c}\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">"
    );
    t += "<Points>\n";
    let p: Vec<f64> = s.states.iter().flat_map(|st| df3_value(st.pos_hi, st.pos_lo)).collect();
    data_array(&mut t, "Points", 3, &p, ascii);
    t += "</Points>\n<Lines>\n";
    let idx: Vec<i32> = s.contacts.iter().flat_map(|k| [k.i as i32, k.j as i32]).collect();
    data_array(&mut t, "connectivity", 1, &idx, ascii);
    let off: Vec<i32> = (1..=c as i32).map(|k| 2 * k).collect();
    data_array(&mut t, "offsets", 1, &off, ascii);
    t += "</Lines>\n<CellData Scalars=\"normal_force\">\n";
    let fnrm: Vec<f32> = s.contacts.iter().map(|k| k.out.f_n).collect();
    data_array(&mut t, "normal_force", 1, &fnrm, ascii);
    let f: Vec<f32> = s.contacts.iter().flat_map(|k| k.out.force).collect();
    data_array(&mut t, "force", 3, &f, ascii);
    t += "</CellData>\n</Piece>\n</PolyData>\n</VTKFile>\n";
    t
}
