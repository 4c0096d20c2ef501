//! ParaView output: one VTK XML PolyData file per frame (`frames/frame_NNNNNN.vtp`, arrays in
//! base64 binary by default or as text with `[output] vtk = "ascii"`: every body
//! as a polyline, closed shells repeating their first node; per-node velocity and force, per-body
//! pressure, area, elastic energy and normalised elastic energy) and `run.pvd`, the collection
//! listing the frames with their times; in coupled runs also `frames/modal_NNNNNN.vtp`, the
//! modal bodies' outlines (`output::modal`), part 1 of each time in `run.pvd`.

use super::atomic;
use super::modal::OutlineSource;
use crate::model::*;
use crate::run::measure::body_energies;
use crate::run::{ObserveCtx, Observer};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A per-body data array: VTK type, name, value of body b.
type CellArray<'a> = (&'static str, &'static str, Box<dyn Fn(usize) -> String + 'a>);

/// Standard base64 (RFC 4648, with padding) of `bytes`.
pub fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let w = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= c.len() {
                out.push(ABC[(w >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A binary `DataArray` (format="binary"): base64 of a UInt64 byte count followed by the
/// little-endian values, in one stream (the file declares header_type="UInt64").
pub(crate) fn binary_array(s: &mut String, ty: &str, name: &str, components: usize, bytes: &[u8]) {
    let comps = if components > 1 {
        format!(" NumberOfComponents=\"{components}\"")
    } else {
        String::new()
    };
    let mut data = (bytes.len() as u64).to_le_bytes().to_vec();
    data.extend_from_slice(bytes);
    let _ = writeln!(s, "<DataArray type=\"{ty}\" Name=\"{name}\"{comps} format=\"binary\">");
    *s += &base64(&data);
    *s += "\n</DataArray>\n";
}

fn le_f64(v: impl IntoIterator<Item = f64>) -> Vec<u8> {
    v.into_iter().flat_map(f64::to_le_bytes).collect()
}

fn le_f32(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(f32::to_le_bytes).collect()
}

fn le_i32(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
    v.into_iter().flat_map(i32::to_le_bytes).collect()
}

/// The `.vtp` text of one state, its arrays in base64 binary (`polydata_ascii`: as text).
pub fn polydata(scene: &Scene, nodes: &[NodeState], bodies: &[BodyState]) -> String {
    polydata_as(scene, nodes, bodies, false)
}

/// The `.vtp` text of one state with every array as ASCII text (`[output] vtk = "ascii"`).
pub fn polydata_ascii(scene: &Scene, nodes: &[NodeState], bodies: &[BodyState]) -> String {
    polydata_as(scene, nodes, bodies, true)
}

fn polydata_as(scene: &Scene, nodes: &[NodeState], bodies: &[BodyState], ascii: bool) -> String {
    let n = nodes.len();
    let nb = scene.bodies.len();
    let energy = body_energies(scene, nodes, bodies);
    let mean = mean_cell_energy(scene, &energy);
    let mut s = String::with_capacity(n * 120 + nb * 64);
    s += if ascii {
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n<PolyData>\n"
    } else {
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n<PolyData>\n"
    };
    let _ = writeln!(s, "<Piece NumberOfPoints=\"{n}\" NumberOfVerts=\"0\" NumberOfLines=\"{nb}\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">");
    if !ascii {
        s += "<Points>\n";
        let p = le_f64(nodes.iter().flat_map(|st| {
            let p = st.pos();
            [p[0], p[1], 0.0]
        }));
        binary_array(&mut s, "Float64", "Points", 3, &p);
        s += "</Points>\n<PointData Vectors=\"velocity\">\n";
        for (name, get) in [("velocity", 0usize), ("force", 1)] {
            let v = le_f32(nodes.iter().flat_map(|st| {
                let v = if get == 0 { st.vel } else { st.force };
                [v[0], v[1], 0.0]
            }));
            binary_array(&mut s, "Float32", name, 3, &v);
        }
        binary_array(
            &mut s,
            "Int32",
            "body",
            1,
            &le_i32(scene.nodes.iter().map(|nd| nd.body as i32)),
        );
        s += "</PointData>\n";
    } else {
        s += "<Points>\n<DataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\" format=\"ascii\">\n";
        for st in nodes {
            let p = st.pos();
            let _ = writeln!(s, "{} {} 0", p[0], p[1]);
        }
        s += "</DataArray>\n</Points>\n";
        s += "<PointData Vectors=\"velocity\">\n";
        for (name, get) in [("velocity", 0usize), ("force", 1)] {
            let _ = writeln!(
                s,
                "<DataArray type=\"Float32\" Name=\"{name}\" NumberOfComponents=\"3\" format=\"ascii\">"
            );
            for st in nodes {
                let v = if get == 0 { st.vel } else { st.force };
                let _ = writeln!(s, "{} {} 0", v[0], v[1]);
            }
            s += "</DataArray>\n";
        }
        s += "<DataArray type=\"Int32\" Name=\"body\" format=\"ascii\">\n";
        for nd in &scene.nodes {
            let _ = write!(s, "{} ", nd.body);
        }
        s += "\n</DataArray>\n</PointData>\n";
    }
    s += "<CellData Scalars=\"elastic_energy_normalised\">\n";
    let cell_arrays: [CellArray; 6] = [
        ("Int32", "body", Box::new(|b| b.to_string())),
        ("Float32", "pressure", Box::new(|b| bodies[b].pressure.to_string())),
        ("Float32", "area", Box::new(|b| bodies[b].area.abs().to_string())),
        ("Float64", "elastic_energy", Box::new(|b| energy[b].to_string())),
        (
            "Float64",
            "elastic_energy_normalised",
            Box::new(|b| {
                if mean > 0.0 {
                    (energy[b] / mean).to_string()
                } else {
                    "0".into()
                }
            }),
        ),
        (
            "Int32",
            "frozen",
            Box::new(|b| ((scene.bodies[b].flags & BODY_FROZEN != 0) as u8).to_string()),
        ),
    ];
    for (ty, name, f) in &cell_arrays {
        if !ascii {
            // The same values as the text: parsed from it, so both encodings hold one number.
            let bytes = match *ty {
                "Int32" => le_i32((0..nb).map(|b| f(b).parse::<i32>().unwrap_or(0))),
                "Float32" => le_f32((0..nb).map(|b| f(b).parse::<f32>().unwrap_or(f32::NAN))),
                _ => le_f64((0..nb).map(|b| f(b).parse::<f64>().unwrap_or(f64::NAN))),
            };
            binary_array(&mut s, ty, name, 1, &bytes);
            continue;
        }
        let _ = writeln!(s, "<DataArray type=\"{ty}\" Name=\"{name}\" format=\"ascii\">");
        for b in 0..nb {
            s += &f(b);
            s.push(' ');
        }
        s += "\n</DataArray>\n";
    }
    if !ascii {
        let mut conn = vec![];
        let mut offsets = vec![];
        for b in &scene.bodies {
            conn.extend((b.first..b.first + b.count).map(|i| i as i32));
            if b.flags & BODY_CLOSED != 0 {
                conn.push(b.first as i32);
            }
            offsets.push(conn.len() as i32);
        }
        s += "</CellData>\n<Lines>\n";
        binary_array(&mut s, "Int32", "connectivity", 1, &le_i32(conn));
        binary_array(&mut s, "Int32", "offsets", 1, &le_i32(offsets));
        s += "</Lines>\n</Piece>\n</PolyData>\n</VTKFile>\n";
        return s;
    }
    s += "</CellData>\n<Lines>\n<DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n";
    let mut offsets = Vec::with_capacity(nb);
    let mut off = 0u64;
    for b in &scene.bodies {
        for i in b.first..b.first + b.count {
            let _ = write!(s, "{i} ");
        }
        off += b.count as u64;
        if b.flags & BODY_CLOSED != 0 {
            let _ = write!(s, "{} ", b.first);
            off += 1;
        }
        s.push('\n');
        offsets.push(off);
    }
    s += "</DataArray>\n<DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n";
    for o in offsets {
        let _ = write!(s, "{o} ");
    }
    s += "\n</DataArray>\n</Lines>\n</Piece>\n</PolyData>\n</VTKFile>\n";
    s
}

/// Mean elastic energy ⟨W⟩ over the free closed bodies (cells).
pub fn mean_cell_energy(scene: &Scene, energy: &[f64]) -> f64 {
    let cells: Vec<f64> = scene
        .bodies
        .iter()
        .zip(energy)
        .filter(|(b, _)| b.flags & BODY_FROZEN == 0 && b.flags & BODY_CLOSED != 0)
        .map(|(_, e)| *e)
        .collect();
    cells.iter().sum::<f64>() / cells.len().max(1) as f64
}

/// The `run.pvd` text for frames (time, relative file name).
pub fn collection(frames: &[(f64, String)]) -> String {
    let parts: Vec<(f64, Vec<&str>)> = frames.iter().map(|(t, f)| (*t, vec![f.as_str()])).collect();
    collection_parts(&parts)
}

/// The `run.pvd` text for frames of several files each (time, relative file names: part 0, 1, …;
/// ParaView loads the parts of one time as one multiblock data set).
pub fn collection_parts(frames: &[(f64, Vec<&str>)]) -> String {
    let mut s = String::from("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n<Collection>\n");
    for (t, files) in frames {
        for (part, f) in files.iter().enumerate() {
            let _ = writeln!(
                s,
                "<DataSet timestep=\"{t:e}\" group=\"\" part=\"{part}\" file=\"{f}\"/>"
            );
        }
    }
    s += "</Collection>\n</VTKFile>\n";
    s
}

/// A kind's own frame maker (`FramesWriter::parts`): the `.vtp` texts of a sample (ASCII arrays
/// when the flag is set), the first as `frame_NNNNNN.vtp`, the others named by the prefixes.
pub type PartsFn = Box<dyn FnMut(&mut ObserveCtx, bool) -> anyhow::Result<Vec<String>>>;

/// Writes `frames/frame_NNNNNN.vtp` every `every` steps (and at the end) and keeps `run.pvd`
/// up to date; with modal bodies also `frames/modal_NNNNNN.vtp` (part 1 of the frame).
pub struct FramesWriter {
    dir: PathBuf,
    every: u64,
    /// Step, time, relative file names (cells, then modal bodies when drawn).
    frames: Vec<(u64, f64, Vec<String>)>,
    /// Modal bodies of the frame (coupled runs).
    pub modal: Option<OutlineSource>,
    /// `[output] vtk = "ascii"`: arrays as text (default base64 binary; the modal outlines are
    /// always text).
    pub ascii: bool,
    /// A kind with its own frames (spheres): the maker and the file prefixes of its parts
    /// after the first (`contacts` → `frames/contacts_NNNNNN.vtp`).
    pub parts: Option<(PartsFn, Vec<&'static str>)>,
}

impl FramesWriter {
    /// With `resume_step`, the frames already in `dir/frames` up to that step are kept.
    pub fn new(dir: PathBuf, every: u64, dt: f64, resume_step: Option<u64>) -> FramesWriter {
        let mut frames = vec![];
        if let Some(s) = resume_step {
            if let Ok(rd) = std::fs::read_dir(dir.join("frames")) {
                for e in rd.flatten() {
                    let name = e.file_name().to_string_lossy().to_string();
                    // frame_, modal_ (coupled runs), contacts_ (sphere runs), bonds_ (bead bodies) or
                    // membrane_ NNNNNN.vtp.
                    let Some((prefix, step)) = ["frame_", "modal_", "contacts_", "bonds_", "membrane_"]
                        .iter()
                        .find_map(|p| {
                            let step = name.strip_prefix(p)?.strip_suffix(".vtp")?.parse::<u64>().ok()?;
                            Some((*p, step))
                        })
                    else {
                        continue;
                    };
                    if step > s || (every != 0 && step % every != 0) {
                        // Past the checkpoint or the end frame of the interrupted run: redone.
                        std::fs::remove_file(e.path()).ok();
                        continue;
                    }
                    if prefix == "frame_" {
                        let mut files = vec![format!("frames/{name}")];
                        for other in ["modal", "contacts", "bonds", "membrane"] {
                            let part = format!("{other}_{step:06}.vtp");
                            if dir.join("frames").join(&part).exists() {
                                files.push(format!("frames/{part}"));
                            }
                        }
                        frames.push((step, step as f64 * dt, files));
                    }
                }
            }
            frames.sort_by_key(|f| f.0);
        }
        FramesWriter {
            dir,
            every,
            frames,
            modal: None,
            ascii: false,
            parts: None,
        }
    }

    fn write(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        if self.frames.last().is_some_and(|f| f.0 >= ctx.step) {
            return Ok(());
        }
        let rel = format!("frames/frame_{:06}.vtp", ctx.step);
        let mut files = vec![rel.clone()];
        match &mut self.parts {
            None => atomic::write(
                &self.dir.join(&rel),
                polydata_as(&ctx.built.scene, ctx.nodes, ctx.bodies, self.ascii).as_bytes(),
            )?,
            Some((make, prefixes)) => {
                let texts = make(ctx, self.ascii)?;
                atomic::write(&self.dir.join(&rel), texts[0].as_bytes())?;
                for (text, prefix) in texts[1..].iter().zip(prefixes.iter()) {
                    let rel = format!("frames/{prefix}_{:06}.vtp", ctx.step);
                    atomic::write(&self.dir.join(&rel), text.as_bytes())?;
                    files.push(rel);
                }
            }
        }
        if let Some(source) = &mut self.modal {
            let rel = format!("frames/modal_{:06}.vtp", ctx.step);
            atomic::write(&self.dir.join(&rel), super::modal::polydata(&source()?).as_bytes())?;
            files.push(rel);
        }
        self.frames.push((ctx.step, ctx.time, files));
        let list: Vec<(f64, Vec<&str>)> = self
            .frames
            .iter()
            .map(|f| (f.1, f.2.iter().map(String::as_str).collect()))
            .collect();
        atomic::write(&self.dir.join("run.pvd"), collection_parts(&list).as_bytes())
    }

    pub fn pvd_path(dir: &Path) -> PathBuf {
        dir.join("run.pvd")
    }
}

impl Observer for FramesWriter {
    fn next_due(&self, step: u64) -> u64 {
        crate::run::next_multiple(step, self.every)
    }

    fn observe(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        if crate::run::is_due(ctx.step, self.every) {
            self.write(ctx)?;
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        self.write(ctx)
    }
}
