//! Outputs of sphere runs (`[spheres]`), on the shared writers where the format allows:
//! - `series.csv` (`series::SeriesWriter` with these columns): `step,time,stage`, per wall
//!   `<wall>_x,_y,_z,_fx,_fy,_fz,_tx,_ty,_tz` (the wall's point, the spheres' force on it and
//!   their torque about the point), then
//!   `height,strain,stress_zz,stress_xx` (the sample walls: σ_zz on the top wall over the
//!   cross-section, compression positive), `love_xx,love_yy,love_zz,love_xy,love_xz,love_yz`
//!   (Love–Weber stress of the contacts over the sample volume), `packing_fraction,
//!   coordination,e_kinetic,e_contact,contacts,wall_contacts`;
//! - frames (`vtk::FramesWriter` with these parts): `frames/frame_NNNNNN.vtp`, the spheres as
//!   points with radius, velocity, angular velocity, force, pressure (−tr σ_i/3) and material
//!   (ParaView: Glyph filter, sphere glyph scaled by `radius`, scale factor 1); and
//!   `frames/contacts_NNNNNN.vtp`, the contact network as lines between centres with the
//!   normal force;
//! - `final.csv`: every sphere at the end; `snapshots/*.png`: an orthographic view along +y
//!   shaded by pressure, next to the slice through the sample's middle (y);
//! - `plots/stress_strain.png` at the end.

use super::atomic;
use super::series::{column_name, RowFn};
use super::vtk::binary_array;
use crate::run::{ObserveCtx, Observer};
use crate::scenario::spheres::SphereBuilt;
use crate::spheres::backend::SphereSnapshot;
use crate::spheres::observables::{coordination, love_stress, sample_box, sphere_pressure};
use crate::spheres::precision::df3_value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The series header of a sphere run.
pub fn series_header(sb: &SphereBuilt) -> String {
    let mut h = String::from("step,time,stage");
    for name in &sb.wall_names {
        let c = column_name(name);
        h += &format!(",{c}_x,{c}_y,{c}_z,{c}_fx,{c}_fy,{c}_fz,{c}_tx,{c}_ty,{c}_tz");
    }
    h += ",height,strain,stress_zz,stress_xx,love_xx,love_yy,love_zz,love_xy,love_xz,love_yz,packing_fraction,coordination,e_kinetic,e_contact,contacts,wall_contacts";
    if sb.beads.is_some() {
        h += super::beads::series_header();
    }
    if sb.membrane.is_some() {
        h += super::membrane::series_header();
    }
    h
}

pub(crate) fn snapshot_of(ctx: &mut ObserveCtx) -> anyhow::Result<Rc<SphereSnapshot>> {
    ctx.backend
        .spheres()?
        .ok_or_else(|| anyhow::anyhow!("sphere outputs on a kind without spheres"))
}

/// The row maker of `series.csv`.
pub fn series_row(sb: Rc<SphereBuilt>) -> RowFn {
    Box::new(move |ctx: &mut ObserveCtx| {
        let s = snapshot_of(ctx)?;
        let m = ctx.m;
        let mut r = format!("{},{:.9e},{}", ctx.step, ctx.time, ctx.stage.replace([',', '"'], ";"));
        for ((p, f), w) in m.walls.iter().zip(&s.walls) {
            let t = w.torque;
            r += &format!(
                ",{:.9e},{:.9e},{:.9e},{:.6e},{:.6e},{:.6e},{:.6e},{:.6e},{:.6e}",
                p[0], p[1], p[2], f[0], f[1], f[2], t[0], t[1], t[2]
            );
        }
        let b = sample_box(&sb.measure, &s.walls);
        let love = love_stress(&s, b.volume);
        r += &format!(
            ",{:.9e},{:.6e},{:.6e},{:.6e}",
            m.height, ctx.strain, m.stress_yy, m.stress_xx
        );
        for x in love {
            r += &format!(",{x:.6e}");
        }
        r += &format!(
            ",{:.6e},{:.6e},{:.6e},{:.6e},{},{}",
            m.particle_area / b.volume,
            coordination(&s),
            m.energies.kinetic,
            m.energies.contact,
            s.contacts.len(),
            s.wall_contacts.len()
        );
        if sb.beads.is_some() {
            let b = super::beads::beads_of(ctx)?;
            r += &super::beads::series_cells(&b);
        }
        if let Some(mb) = &sb.membrane {
            let sigma_c = ctx.backend.confining_pressure().unwrap_or(mb.sigma_c);
            r += &super::membrane::series_cells(mb, &s, sigma_c);
        }
        Ok(r)
    })
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

/// The frame maker of `vtk::FramesWriter` for spheres (parts: spheres, contacts).
pub fn frame_parts() -> (super::vtk::PartsFn, Vec<&'static str>) {
    let f: super::vtk::PartsFn = Box::new(|ctx: &mut ObserveCtx, ascii: bool| {
        let s = snapshot_of(ctx)?;
        Ok(vec![spheres_polydata(&s, ascii), contacts_polydata(&s, ascii)])
    });
    (f, vec!["contacts"])
}

/// `final.csv`: `sphere,material,x,y,z,r,vx,vy,vz,wx,wy,wz,fx,fy,fz,pressure` at the end
/// (positions exact in f64).
pub struct SphereFinalCsv {
    pub path: PathBuf,
}

impl Observer for SphereFinalCsv {
    fn next_due(&self, _step: u64) -> u64 {
        u64::MAX
    }
    fn observe(&mut self, _ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        Ok(())
    }
    fn finish(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        let s = snapshot_of(ctx)?;
        let p = sphere_pressure(&s);
        let mut t = String::from("sphere,material,x,y,z,r,vx,vy,vz,wx,wy,wz,fx,fy,fz,pressure\n");
        for (i, st) in s.states.iter().enumerate() {
            let x = df3_value(st.pos_hi, st.pos_lo);
            let f = s.forces[i].force;
            let _ = writeln!(
                t,
                "{i},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                st.material,
                x[0],
                x[1],
                x[2],
                st.radius,
                st.vel[0],
                st.vel[1],
                st.vel[2],
                st.omega[0],
                st.omega[1],
                st.omega[2],
                f[0],
                f[1],
                f[2],
                p[i]
            );
        }
        atomic::write(&self.path, t.as_bytes())
    }
}

/// `snapshots/snapshot_NNNNNN.png` every `every` steps (0: the end only) and, with
/// `at_stage_end`, when each stage ends.
pub struct SphereSnapshots {
    pub dir: PathBuf,
    pub every: u64,
    pub width: u32,
    pub at_stage_end: bool,
    /// A membrane to draw with the spheres (`sphere_picture::render_with`).
    pub membrane: Option<Rc<crate::scenario::membrane::MembraneBuilt>>,
    last: Option<u64>,
}

impl SphereSnapshots {
    pub fn new(dir: PathBuf, every: u64, width: u32) -> SphereSnapshots {
        SphereSnapshots {
            dir,
            every,
            width,
            at_stage_end: false,
            membrane: None,
            last: None,
        }
    }

    fn write_to(&mut self, ctx: &mut ObserveCtx, path: &Path) -> anyhow::Result<()> {
        let s = snapshot_of(ctx)?;
        let caption = format!(
            "step {}   t = {:.4e}   {}   strain {:.4}   stress_zz {:.4e}",
            ctx.step, ctx.time, ctx.stage, ctx.strain, ctx.m.stress_yy
        );
        let view = self.membrane.as_ref().map(|m| super::sphere_picture::MembraneView {
            first: m.first as usize,
            triangles: &m.triangles,
        });
        super::sphere_picture::render_with(path, &s, self.width, &caption, view)?;
        self.last = Some(ctx.step);
        Ok(())
    }
}

impl Observer for SphereSnapshots {
    fn next_due(&self, step: u64) -> u64 {
        crate::run::next_multiple(step, self.every)
    }
    fn observe(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        if crate::run::is_due(ctx.step, self.every) && self.last != Some(ctx.step) {
            let path = self.dir.join(format!("snapshot_{:06}.png", ctx.step));
            self.write_to(ctx, &path)?;
        }
        Ok(())
    }
    fn finish(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        if self.last != Some(ctx.step) {
            let path = self.dir.join(format!("snapshot_{:06}.png", ctx.step));
            self.write_to(ctx, &path)?;
        }
        Ok(())
    }
    fn stage_done(&mut self, ctx: &mut ObserveCtx, stage: &str) -> anyhow::Result<()> {
        if !self.at_stage_end {
            return Ok(());
        }
        let tag = column_name(stage);
        let path = self.dir.join(format!("snapshot_{:06}_{tag}.png", ctx.step));
        self.write_to(ctx, &path)
    }
}

/// `plots/stress_strain.png` (σ_zz against ε) and `plots/energies.png` from `series.csv`.
pub fn write_plots(series: &Path, dir: &Path) -> anyhow::Result<()> {
    use crate::plot::{line_plot, PlotSpec, Series, Style};
    let line = |name: &str, points: Vec<(f64, f64)>| Series {
        name: name.into(),
        points,
        style: Style::Line,
    };
    let t = super::plots::Table::read(series)?;
    let col = |n: &str| t.column(n).unwrap_or_default();
    let (strain, stress, time) = (col("strain"), col("stress_zz"), col("time"));
    std::fs::create_dir_all(dir)?;
    let pts = |x: &[f64], y: &[f64]| -> Vec<(f64, f64)> {
        x.iter()
            .zip(y)
            .filter(|(a, b)| a.is_finite() && b.is_finite())
            .map(|(a, b)| (*a, *b))
            .collect()
    };
    let ss = pts(&strain, &stress);
    if ss.len() >= 2 {
        atomic::write_with(&dir.join("stress_strain.png"), |tmp| {
            line_plot(
                tmp,
                &PlotSpec {
                    title: "axial stress against strain".into(),
                    x_label: "strain ln(H0/H)".into(),
                    y_label: "stress_zz".into(),
                    series: vec![line("stress_zz", ss)],
                },
            )
        })?;
    }
    let ke = pts(&time, &col("e_kinetic"));
    let ec = pts(&time, &col("e_contact"));
    if ke.len() >= 2 {
        atomic::write_with(&dir.join("energies.png"), |tmp| {
            line_plot(
                tmp,
                &PlotSpec {
                    title: "energies".into(),
                    x_label: "time".into(),
                    y_label: "energy".into(),
                    series: vec![line("kinetic", ke), line("contact (elastic)", ec)],
                },
            )
        })?;
    }
    Ok(())
}
