//! Modal bodies in the pictures and frames: each body's deformed outline, its surface nodes at
//! their current positions x = X + R(Θ)(p + ε_α Φ_α(p)) (eq 1, `modal::cpu::node_kinematics`),
//! in node order (the order they were placed along the boundary). Snapshots fill them in
//! [`MODAL_FILL`] (`snapshot.rs`); frames write them as `frames/modal_NNNNNN.vtp`, one polygon per
//! body, listed in `run.pvd` as part 1 beside the cells' frame (`vtk.rs`).

use crate::modal::cpu::node_kinematics;
use crate::modal::layout::ModalState;
use crate::modal::stepper::Packed;
use plotters::style::RGBColor;
use std::fmt::Write as _;

/// One body's surface nodes, current positions in node order.
pub type Outline = Vec<[f64; 2]>;

/// Where a snapshot or frame writer gets the modal outlines of the state it draws (a coupled
/// run reads its modal states through this).
pub type OutlineSource = Box<dyn FnMut() -> anyhow::Result<Vec<Outline>>>;

/// Fill colour of modal bodies in snapshots (blue: apart from the cells' white → dark red scale
/// and the walls' grey).
pub const MODAL_FILL: RGBColor = RGBColor(70, 130, 200);
/// Their outline colour.
pub const MODAL_EDGE: RGBColor = RGBColor(15, 40, 100);

/// Current surface-node positions of every body: X (double-f32 hi + lo, summed in f64) plus the
/// node's offset R(Θ)(p + ε_α Φ_α) of eq 1.
pub fn outlines(packed: &Packed, states: &[ModalState]) -> Vec<Outline> {
    packed
        .bodies
        .iter()
        .zip(states)
        .map(|(b, st)| {
            (b.node_first..b.node_first + b.node_count)
                .map(|k| {
                    let (rel, _) = node_kinematics(packed, st, k as usize);
                    [
                        st.x_hi[0] as f64 + (st.x_lo[0] as f64 + rel[0] as f64),
                        st.x_hi[1] as f64 + (st.x_lo[1] as f64 + rel[1] as f64),
                    ]
                })
                .collect()
        })
        .collect()
}

/// The `.vtp` text of the outlines: every surface node a point (point data `modal_body`,
/// `node`), every body one polygon (cell data `modal_body`).
pub fn polydata(outlines: &[Outline]) -> String {
    let n: usize = outlines.iter().map(Vec::len).sum();
    let nb = outlines.len();
    let mut s = String::with_capacity(n * 48 + 512);
    s += "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n<PolyData>\n";
    let _ = writeln!(s, "<Piece NumberOfPoints=\"{n}\" NumberOfVerts=\"0\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"{nb}\">");
    s += "<Points>\n<DataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\" format=\"ascii\">\n";
    for p in outlines.iter().flatten() {
        let _ = writeln!(s, "{} {} 0", p[0], p[1]);
    }
    s += "</DataArray>\n</Points>\n<PointData>\n<DataArray type=\"Int32\" Name=\"modal_body\" format=\"ascii\">\n";
    for (b, o) in outlines.iter().enumerate() {
        for _ in o {
            let _ = write!(s, "{b} ");
        }
    }
    s += "\n</DataArray>\n<DataArray type=\"Int32\" Name=\"node\" format=\"ascii\">\n";
    for o in outlines {
        for k in 0..o.len() {
            let _ = write!(s, "{k} ");
        }
    }
    s += "\n</DataArray>\n</PointData>\n<CellData Scalars=\"modal_body\">\n";
    s += "<DataArray type=\"Int32\" Name=\"modal_body\" format=\"ascii\">\n";
    for b in 0..nb {
        let _ = write!(s, "{b} ");
    }
    s += "\n</DataArray>\n</CellData>\n<Polys>\n<DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n";
    let (mut first, mut offsets) = (0usize, Vec::with_capacity(nb));
    for o in outlines {
        for k in first..first + o.len() {
            let _ = write!(s, "{k} ");
        }
        s.push('\n');
        first += o.len();
        offsets.push(first);
    }
    s += "</DataArray>\n<DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n";
    for o in offsets {
        let _ = write!(s, "{o} ");
    }
    s += "\n</DataArray>\n</Polys>\n</Piece>\n</PolyData>\n</VTKFile>\n";
    s
}
