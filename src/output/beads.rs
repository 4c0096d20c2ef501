//! Outputs of bead bodies in sphere runs (`[spheres.beads]`), added to the sphere outputs:
//! - `series.csv` columns (after the sphere ones, which hold the walls, the eq-6 walls
//!   included): `bonds_intact,bonds_broken`;
//! - `breaks.csv`: `step,time,bond,bead_i,bead_j,body,stretch,spring_force`, one row per broken
//!   bond in break order (step s is the force evaluation at time s Δt; `spring_force` = k X at
//!   the break, the spring's share of the force the bond carried), rewritten whole from the
//!   bonds' break records at every series sample and at the end (so a resumed run writes the
//!   same file);
//! - frames: the sphere part `frames/frame_NNNNNN.vtp` with, per sphere, `bead_stress` and
//!   `max_shear` (zero for spheres that are not beads); `frames/bonds_NNNNNN.vtp`, the intact bonds as lines between bead centres with
//!   their `tension` (force along the bond, > 0 pulling) and `stretch` X/l₀, and per bead its
//!   virial `stress` (9 components, tension positive, `beads::stress`) and `max_shear`
//!   |σ1 − σ3|/2;
//! - `snapshots/shear_NNNNNN.png`: the slice through the bead bodies' middle (y), each bead a
//!   disc coloured by |σ1 − σ3|/2 (`bead_picture`).

use super::atomic;
use super::series::column_name;
use super::sphere_parts::{data_array, snapshot_of, vtk_head};
use crate::beads::stress::{add_contact_stress, bead_stress, max_shear, Mat3};
use crate::beads::BeadForces;
use crate::run::{ObserveCtx, Observer};
use crate::scenario::beads::BeadsBuilt;
use crate::spheres::backend::SphereSnapshot;
use crate::spheres::precision::{df3_sub, df3_value};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::rc::Rc;

/// The bead source of a sample.
pub fn beads_of(ctx: &mut ObserveCtx) -> anyhow::Result<Rc<BeadForces>> {
    ctx.backend
        .beads()?
        .ok_or_else(|| anyhow::anyhow!("bead outputs on a run without bead bodies"))
}

/// The bead columns of `series.csv` (each starts with a comma).
pub fn series_header() -> &'static str {
    ",bonds_intact,bonds_broken"
}

/// The bead cells of a `series.csv` row.
pub fn series_cells(b: &BeadForces) -> String {
    let intact = b.bonds.intact();
    format!(",{intact},{}", b.bonds.len() - intact)
}

/// Per bead: its virial stress (tension positive) and |σ1 − σ3|/2 at the last evaluation.
pub fn stresses(bb: &BeadsBuilt, s: &SphereSnapshot, b: &BeadForces, dt: f32) -> (Vec<Mat3>, Vec<f64>) {
    let n = bb.n_beads();
    let mut sig = bead_stress(&s.states[..n], b, b.time(dt), 1.0);
    add_contact_stress(&mut sig, s);
    for (m, v) in sig.iter_mut().zip(&bb.bead_volume) {
        m.iter_mut().flatten().for_each(|x| *x /= v);
    }
    let tau = max_shear(&sig);
    (sig, tau)
}

/// The intact bonds as VTK lines between bead centres, with per-bead stress.
pub fn bonds_polydata(bb: &BeadsBuilt, s: &SphereSnapshot, b: &BeadForces, dt: f32, ascii: bool) -> String {
    let n = bb.n_beads();
    let intact: Vec<usize> = (0..b.bonds.len())
        .filter(|&k| b.bonds.bonds[k].broken_step == 0)
        .collect();
    let c = intact.len();
    let mut t = String::with_capacity(n * 120 + c * 40);
    t += vtk_head(ascii);
    let _ = writeln!(
        t,
        "<Piece NumberOfPoints=\"{n}\" NumberOfVerts=\"0\" NumberOfLines=\"{c}\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">"
    );
    t += "<Points>\n";
    let p: Vec<f64> = s.states[..n]
        .iter()
        .flat_map(|st| df3_value(st.pos_hi, st.pos_lo))
        .collect();
    data_array(&mut t, "Points", 3, &p, ascii);
    t += "</Points>\n<Lines>\n";
    let idx: Vec<i32> = intact
        .iter()
        .flat_map(|&k| [b.bonds.bonds[k].i as i32, b.bonds.bonds[k].j as i32])
        .collect();
    data_array(&mut t, "connectivity", 1, &idx, ascii);
    let off: Vec<i32> = (1..=c as i32).map(|k| 2 * k).collect();
    data_array(&mut t, "offsets", 1, &off, ascii);
    t += "</Lines>\n<CellData Scalars=\"tension\">\n";
    let (mut tension, mut stretch) = (Vec::with_capacity(c), Vec::with_capacity(c));
    for &k in &intact {
        let bond = &b.bonds.bonds[k];
        let (a, q) = (&s.states[bond.i as usize], &s.states[bond.j as usize]);
        // d = x_i − x_j; the force on i pulls it towards j in tension.
        let d = df3_sub(a.pos_hi, a.pos_lo, q.pos_hi, q.pos_lo);
        let len = crate::laws::vec3::norm(d);
        let f = b.bond_force[k];
        tension.push(-crate::laws::vec3::dot(f, d) / len.max(f32::MIN_POSITIVE));
        stretch.push((len - bond.rest) / bond.rest);
    }
    data_array(&mut t, "tension", 1, &tension, ascii);
    data_array(&mut t, "stretch", 1, &stretch, ascii);
    t += "</CellData>\n<PointData Scalars=\"max_shear\">\n";
    let (sig, tau) = stresses(bb, s, b, dt);
    let flat: Vec<f64> = sig.iter().flat_map(|m| m.iter().flatten().copied()).collect();
    data_array(&mut t, "stress", 9, &flat, ascii);
    data_array(&mut t, "max_shear", 1, &tau, ascii);
    t += "</PointData>\n</Piece>\n</PolyData>\n</VTKFile>\n";
    t
}

/// The spheres part of a run with bead bodies: the sphere frame with, per sphere, the beads'
/// virial `bead_stress` (9 components) and `max_shear` |σ1 − σ3|/2 (the bonds part's values;
/// zero for the spheres that are not beads), so that one Glyph filter shows both.
pub fn spheres_polydata(bb: &BeadsBuilt, s: &SphereSnapshot, b: &BeadForces, dt: f32, ascii: bool) -> String {
    let mut t = super::sphere_parts::spheres_polydata(s, ascii);
    let (sig, tau) = stresses(bb, s, b, dt);
    let n = s.states.len();
    let mut flat: Vec<f64> = sig.iter().flat_map(|m| m.iter().flatten().copied()).collect();
    flat.resize(9 * n, 0.0);
    let mut shear = tau;
    shear.resize(n, 0.0);
    let mut extra = String::new();
    data_array(&mut extra, "bead_stress", 9, &flat, ascii);
    data_array(&mut extra, "max_shear", 1, &shear, ascii);
    let at = t.find("</PointData>").expect("the sphere frame has point data");
    t.insert_str(at, &extra);
    t
}

/// The frame maker of a sphere run with bead bodies: spheres (with the beads' stress),
/// contacts, bonds.
pub fn frame_parts(bb: Rc<BeadsBuilt>, dt: f32) -> (super::vtk::PartsFn, Vec<&'static str>) {
    let f: super::vtk::PartsFn = Box::new(move |ctx: &mut ObserveCtx, ascii: bool| {
        let s = snapshot_of(ctx)?;
        let b = beads_of(ctx)?;
        Ok(vec![
            spheres_polydata(&bb, &s, &b, dt, ascii),
            super::sphere_parts::contacts_polydata(&s, ascii),
            bonds_polydata(&bb, &s, &b, dt, ascii),
        ])
    });
    (f, vec!["contacts", "bonds"])
}

/// `breaks.csv` of bead bodies (see the module doc).
pub struct BeadBreaks {
    pub path: PathBuf,
    pub every: u64,
    pub built: Rc<BeadsBuilt>,
    pub dt: f32,
    /// Breaks written so far (the file is rewritten when this grows).
    written: Option<usize>,
}

impl BeadBreaks {
    pub fn new(path: PathBuf, every: u64, built: Rc<BeadsBuilt>, dt: f32) -> BeadBreaks {
        BeadBreaks {
            path,
            every,
            built,
            dt,
            written: None,
        }
    }

    fn update(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        let b = beads_of(ctx)?;
        let log = b.bonds.break_log();
        if self.written == Some(log.len()) {
            return Ok(());
        }
        let mut t = String::from("step,time,bond,bead_i,bead_j,body,stretch,spring_force\n");
        for e in &log {
            let bond = &b.bonds.bonds[e.bond as usize];
            let body = self
                .built
                .body_of(e.i)
                .map_or("?", |k| self.built.bodies[k].0.as_str())
                .replace([',', '"'], ";");
            let _ = writeln!(
                t,
                "{},{:.9e},{},{},{},{body},{:.6e},{:.6e}",
                e.evaluation - 1,
                BeadForces::time_of(e.evaluation, self.dt),
                e.bond,
                e.i,
                e.j,
                e.stretch,
                bond.k as f64 * e.stretch as f64 * bond.rest as f64
            );
        }
        atomic::write(&self.path, t.as_bytes())?;
        self.written = Some(log.len());
        Ok(())
    }
}

impl Observer for BeadBreaks {
    fn next_due(&self, step: u64) -> u64 {
        crate::run::next_multiple(step, self.every)
    }
    fn observe(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        self.update(ctx)
    }
    fn finish(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        self.update(ctx)
    }
}

/// `snapshots/shear_NNNNNN.png` every `every` steps (0: the end only) and at stage ends with
/// `at_stage_end`.
pub struct BeadPictures {
    pub dir: PathBuf,
    pub every: u64,
    pub width: u32,
    pub at_stage_end: bool,
    pub built: Rc<BeadsBuilt>,
    pub dt: f32,
    last: Option<u64>,
}

impl BeadPictures {
    pub fn new(dir: PathBuf, every: u64, width: u32, built: Rc<BeadsBuilt>, dt: f32) -> BeadPictures {
        BeadPictures {
            dir,
            every,
            width,
            at_stage_end: false,
            built,
            dt,
            last: None,
        }
    }

    fn write(&mut self, ctx: &mut ObserveCtx, tag: &str) -> anyhow::Result<()> {
        let s = snapshot_of(ctx)?;
        let b = beads_of(ctx)?;
        let (_, tau) = stresses(&self.built, &s, &b, self.dt);
        let caption = format!(
            "step {}   t = {:.4e}   {}   bonds broken {}",
            ctx.step,
            ctx.time,
            ctx.stage,
            b.bonds.len() - b.bonds.intact()
        );
        let path = self.dir.join(format!("shear_{:06}{tag}.png", ctx.step));
        super::bead_picture::render(&path, &self.built, &s.states, &tau, self.width, &caption)?;
        self.last = Some(ctx.step);
        Ok(())
    }
}

impl Observer for BeadPictures {
    fn next_due(&self, step: u64) -> u64 {
        crate::run::next_multiple(step, self.every)
    }
    fn observe(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        if crate::run::is_due(ctx.step, self.every) && self.last != Some(ctx.step) {
            self.write(ctx, "")?;
        }
        Ok(())
    }
    fn finish(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        if self.last != Some(ctx.step) {
            self.write(ctx, "")?;
        }
        Ok(())
    }
    fn stage_done(&mut self, ctx: &mut ObserveCtx, stage: &str) -> anyhow::Result<()> {
        if self.at_stage_end {
            self.write(ctx, &format!("_{}", column_name(stage)))?;
        }
        Ok(())
    }
}

/// Rows `quantity, a, b` comparing the bead sources of two runs (`softdem compare`): bonds
/// broken, the largest bond-force deviation (the eq-6 walls' forces are the sphere rows).
pub fn compare_rows(a: &BeadForces, b: &BeadForces) -> Vec<(String, f64, f64)> {
    let broken = |x: &BeadForces| (x.bonds.len() - x.bonds.intact()) as f64;
    let dev = a
        .bond_force
        .iter()
        .zip(&b.bond_force)
        .map(|(p, q)| (0..3).map(|k| ((p[k] - q[k]) as f64).powi(2)).sum::<f64>().sqrt())
        .fold(0.0, f64::max);
    vec![
        ("max |df| over bonds".to_string(), 0.0, dev),
        ("bonds_broken".to_string(), broken(a), broken(b)),
    ]
}

/// The lines `softdem check` prints for the bead bodies.
pub fn check_lines(bb: &BeadsBuilt) -> Vec<String> {
    let mut out = vec![];
    for (name, r) in &bb.bodies {
        let bonds = bb
            .forces
            .bonds
            .bonds
            .iter()
            .filter(|b| r.contains(&b.i))
            .collect::<Vec<_>>();
        let (kmin, kmax) = bonds
            .iter()
            .fold((f32::INFINITY, 0.0f32), |(a, c), b| (a.min(b.k), c.max(b.k)));
        let bmax = bonds.iter().map(|b| b.b).fold(0.0f32, f32::max);
        out.push(format!(
            "bead body \"{name}\": {} beads, {} bonds, k {kmin:.4e} … {kmax:.4e}, b up to {bmax:.4e}",
            r.len(),
            bonds.len()
        ));
    }
    let brk = bb.forces.break_stretch;
    out.push(format!(
        "bonds break at stretch {}; bond stability bound dt ≤ {:.4e}",
        if brk.is_finite() {
            format!("{brk}")
        } else {
            "never".into()
        },
        bb.dt_max
    ));
    out
}
