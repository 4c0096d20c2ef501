//! A scenario with modal bodies only (`[modal]`, no `[[bodies]]`): `softdem check` prints what it
//! resolves to; `softdem run` steps it under the one driver (`engine::modal::ModalKind`: stages,
//! checkpoints, resume) and writes, besides `checkpoint.bin`, `modal_series.csv` (time, body
//! positions, angles and modal amplitudes, wall forces; also in coupled runs) with
//! [`ModalSeries`], and snapshots and frames of the bodies' outlines with [`ModalPictures`].

use crate::modal::stiffness::ModalStiffness;
use crate::output::{self, atomic};
use crate::run::{is_due, next_multiple, ObserveCtx, Observer};
use crate::scenario::modal::ModalBuilt;
use crate::scenario::{Scenario, Settings};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Rows between rewrites of the series file during a run.
const FLUSH_EVERY: usize = 50;

/// Prints the resolved modal scene (`softdem check`).
pub fn check(sc: &Scenario) -> anyhow::Result<()> {
    let (built, b) = sc.build_modal_run()?;
    println!("scenario {} ({}): OK (modal bodies)", sc.name, sc.origin);
    if let Some(d) = &sc.file.description {
        println!("  {d}");
    }
    let packed = b.scene.pack()?;
    for (i, body) in b.scene.bodies.iter().enumerate() {
        println!(
            "body {}, inertia {:.6e}, query {}",
            body_line(sc, &b, i),
            body.inertia,
            match &body.query {
                crate::modal::body::LevelSetQuery::Pullback => "pullback (eq 47–48)".to_string(),
                crate::modal::body::LevelSetQuery::Precomputed { samples } =>
                    format!("precomputed (eq 49–50) at ε = {samples:?}"),
            }
        );
        println!(
            "  {} mode(s), stiffness {}: M (eq 8) = {:?}, C = {:?}",
            body.n_modes(),
            b.stiffness_kinds[i],
            body.modal_mass,
            body.modal_damping
        );
        match &body.stiffness {
            ModalStiffness::Linear(k) => println!("  K = {k:?}"),
            ModalStiffness::Table(t) => println!(
                "  force table: {} rows, ε up to {}, F up to {}",
                t.len(),
                t[t.len() - 1][0],
                t[t.len() - 1][1]
            ),
        }
    }
    for i in 0..b.scene.walls.len() {
        println!("wall {}", wall_line(&b, i));
    }
    println!(
        "time step: dt = {:.6e}; §3.3: rigid/contact β_r √(m_eff/k_n) = {:.6e}, deformation β_d/ω_max = {:.6e}",
        b.scene.dt, b.critical.rigid, b.critical.deform
    );
    println!(
        "run: {} steps ({:.4e} time units), series every {} steps, neighbour lists every {} steps (skin {})",
        b.steps,
        b.steps as f64 * b.scene.dt as f64,
        b.series_every,
        b.scene.rebuild_every,
        b.scene.skin
    );
    let bytes = 4 * (packed.phi0.len() + packed.mode_grid.len() + packed.pre_ls.len() + packed.tables.len())
        + std::mem::size_of_val(packed.nodes.as_slice())
        + std::mem::size_of_val(packed.bodies.as_slice())
        + packed.nodes.len() * packed.params.slots as usize * std::mem::size_of::<crate::modal::layout::ModalSlot>();
    println!(
        "sizes: {} bodies, {} surface nodes, {} walls; GPU memory about {:.2} MiB",
        packed.bodies.len(),
        packed.nodes.len(),
        packed.walls.len(),
        bytes as f64 / 1048576.0
    );
    if !built.stages.is_empty() {
        println!("stages:");
        for (i, st) in built.stages.iter().enumerate() {
            println!("  {i}: {} ({})", st.name, st.kind);
        }
    }
    Ok(())
}

/// What `softdem check` says of modal body `i`: name (shape), surface nodes, level-set grid, mass.
pub(super) fn body_line(sc: &Scenario, b: &ModalBuilt, i: usize) -> String {
    let body = &b.scene.bodies[i];
    let g = &body.level_set.grid;
    format!(
        "{} ({}): {} surface nodes, level set {}×{} (h = {}), mass {:.6e}",
        b.body_names[i],
        sc.file.modal.as_ref().unwrap().bodies[i].shape,
        body.nodes.len(),
        g.nx,
        g.ny,
        g.h,
        body.mass
    )
}

/// What `softdem check` says of modal wall `i`: name, kind and place, velocity.
pub(super) fn wall_line(b: &ModalBuilt, i: usize) -> String {
    let w = &b.scene.walls[i];
    format!(
        "{}: {} at {:?}, velocity {:?}",
        b.wall_names[i],
        if w.kind == crate::modal::layout::WALL_LINE {
            format!("line, normal {:?}", w.normal)
        } else {
            format!("circle, radius {}", w.radius)
        },
        w.p0,
        w.velocity
    )
}

/// Header of `modal_series.csv`: step, time, per body `NAME.x, NAME.y, NAME.theta, NAME.eps0…`,
/// per wall `NAME.fx, NAME.fy` (the force on the wall).
pub fn series_header(b: &ModalBuilt) -> String {
    let mut h = String::from("step,time");
    for (i, n) in b.body_names.iter().enumerate() {
        write!(h, ",{n}.x,{n}.y,{n}.theta").unwrap();
        for a in 0..b.scene.bodies[i].n_modes() {
            write!(h, ",{n}.eps{a}").unwrap();
        }
    }
    for n in &b.wall_names {
        write!(h, ",{n}.fx,{n}.fy").unwrap();
    }
    h.push('\n');
    h
}

/// One `modal_series.csv` row (the columns of [`series_header`]).
pub fn series_row(
    csv: &mut String,
    b: &ModalBuilt,
    step: u64,
    time: f64,
    states: &[crate::modal::layout::ModalState],
    wall_forces: &[[f32; 2]],
) {
    write!(csv, "{step},{time:.9e}").unwrap();
    for (i, s) in states.iter().enumerate() {
        let x = s.x_hi[0] as f64 + s.x_lo[0] as f64;
        let y = s.x_hi[1] as f64 + s.x_lo[1] as f64;
        write!(csv, ",{x:.9e},{y:.9e},{:.9e}", s.theta).unwrap();
        for a in 0..b.scene.bodies[i].n_modes() {
            write!(csv, ",{:.9e}", s.eps[a]).unwrap();
        }
    }
    for f in wall_forces {
        write!(csv, ",{:.9e},{:.9e}", f[0], f[1]).unwrap();
    }
    csv.push('\n');
}

/// `modal_series.csv` as a driver observer: a row every `every` steps (0: only the first and
/// the last) and at the end, rewritten atomically every `FLUSH_EVERY` rows and at the end. A
/// resumed run keeps the rows of the interval up to its checkpoint.
pub struct ModalSeries {
    path: PathBuf,
    modal: ModalBuilt,
    every: u64,
    csv: String,
    rows: usize,
    last: Option<u64>,
}

impl ModalSeries {
    pub fn new(path: PathBuf, modal: ModalBuilt, resume_step: Option<u64>) -> anyhow::Result<ModalSeries> {
        let header = series_header(&modal);
        let mut csv = header.clone();
        let every = modal.series_every;
        let mut last = None;
        if let Some(s) = resume_step {
            if let Ok(text) = std::fs::read_to_string(&path) {
                let mut lines = text.lines();
                anyhow::ensure!(
                    lines.next() == header.strip_suffix('\n'),
                    "{} has another header than this scenario's",
                    path.display()
                );
                for l in lines {
                    let step: u64 = l.split(',').next().and_then(|x| x.parse().ok()).unwrap_or(u64::MAX);
                    // Rows on the interval only: an end-of-run row is redone by the resumed run.
                    if step <= s && (step == 0 || is_due(step, every)) {
                        csv += l;
                        csv.push('\n');
                        last = Some(step);
                    }
                }
            }
        }
        Ok(ModalSeries {
            path,
            modal,
            every,
            csv,
            rows: 0,
            last,
        })
    }

    fn row(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        if self.last.is_some_and(|l| l >= ctx.step) {
            return Ok(());
        }
        let states = ctx.backend.modal_states()?;
        let wf = ctx.backend.modal_wall_forces()?;
        series_row(&mut self.csv, &self.modal, ctx.step, ctx.time, &states, &wf);
        self.rows += 1;
        self.last = Some(ctx.step);
        if self.rows.is_multiple_of(FLUSH_EVERY) {
            atomic::write(&self.path, self.csv.as_bytes())?;
        }
        Ok(())
    }
}

impl Observer for ModalSeries {
    fn next_due(&self, step: u64) -> u64 {
        next_multiple(step, self.every)
    }
    fn observe(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        self.row(ctx)
    }
    fn finish(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        self.row(ctx)?;
        atomic::write(&self.path, self.csv.as_bytes())
    }
}

/// What a modal-only run draws, as SPD runs do (`[output]`):
/// `snapshots/snapshot_NNNNNN.png` every `snapshots_every` steps and `frames/modal_NNNNNN.vtp`
/// (listed in `run.pvd`) every `frames_every` steps (0: only the last step), all atomically.
pub struct ModalPictures {
    dir: PathBuf,
    snapshots_every: u64,
    frames_every: u64,
    width: u32,
    /// Frames written: time, relative file name.
    frames: Vec<(f64, String)>,
    /// The last step drawn, and whether a snapshot and a frame were written there.
    drawn: Option<(u64, bool, bool)>,
}

impl ModalPictures {
    /// With `resume_step`, the frames already in `dir/frames` up to that step are kept.
    pub fn new(dir: &Path, settings: &Settings, dt: f64, resume_step: Option<u64>) -> ModalPictures {
        let mut frames = vec![];
        if let Some(s) = resume_step {
            let mut steps: Vec<u64> = std::fs::read_dir(dir.join("frames"))
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|e| {
                    let n = e.file_name().into_string().ok()?;
                    n.strip_prefix("modal_")?.strip_suffix(".vtp")?.parse().ok()
                })
                .filter(|&k| k <= s && is_due(k, settings.frames_every))
                .collect();
            steps.sort_unstable();
            frames = steps
                .into_iter()
                .map(|k| (k as f64 * dt, format!("frames/modal_{k:06}.vtp")))
                .collect();
        }
        ModalPictures {
            dir: dir.to_path_buf(),
            snapshots_every: settings.snapshots_every,
            frames_every: settings.frames_every,
            width: settings.snapshot_width,
            frames,
            drawn: None,
        }
    }

    /// A snapshot and/or a frame of the state at `ctx.step`.
    fn write(&mut self, ctx: &mut ObserveCtx, snap: bool, frame: bool) -> anyhow::Result<()> {
        let (step, time) = (ctx.step, ctx.time);
        let (snap, frame) = match self.drawn {
            Some((s, a, b)) if s == step => (snap && !a, frame && !b),
            _ => (snap, frame),
        };
        if !snap && !frame {
            return Ok(());
        }
        let outlines = ctx.backend.modal_outlines()?;
        if snap {
            let path = self.dir.join(format!("snapshots/snapshot_{step:06}.png"));
            let caption = format!("step {step}   t = {time:.4}   modal bodies");
            output::snapshot::render_with_modal(&path, None, &outlines, self.width, &caption)?;
        }
        if frame {
            let rel = format!("frames/modal_{step:06}.vtp");
            atomic::write(&self.dir.join(&rel), output::modal::polydata(&outlines).as_bytes())?;
            self.frames.push((time, rel));
            let pvd = output::vtk::collection(&self.frames);
            atomic::write(&self.dir.join("run.pvd"), pvd.as_bytes())?;
        }
        let prev = self
            .drawn
            .filter(|d| d.0 == step)
            .map_or((false, false), |d| (d.1, d.2));
        self.drawn = Some((step, snap || prev.0, frame || prev.1));
        Ok(())
    }
}

impl Observer for ModalPictures {
    fn next_due(&self, step: u64) -> u64 {
        next_multiple(step, self.snapshots_every).min(next_multiple(step, self.frames_every))
    }
    fn observe(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        let step = ctx.step;
        self.write(ctx, is_due(step, self.snapshots_every), is_due(step, self.frames_every))
    }
    fn finish(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        self.write(ctx, true, true)
    }
}
