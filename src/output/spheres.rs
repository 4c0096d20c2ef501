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
use super::sphere_parts::{contacts_polydata, snapshot_of, spheres_polydata};
use crate::run::{ObserveCtx, Observer};
use crate::scenario::spheres::SphereBuilt;
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
