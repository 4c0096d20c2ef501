//! A scenario with modal bodies only (`[modal]`, no `[[bodies]]`): `softdem check` prints what it
//! resolves to, `softdem run` steps it with the modal engine (`modal::stepper::ModalRun`) on the
//! CPU twin or the GPU and writes `modal_series.csv` (time, body positions, angles and modal
//! amplitudes, wall forces), atomically (rewritten whole every `FLUSH_EVERY` rows and at the end),
//! with snapshots and frames of the bodies' outlines (`Outputs`, `output::modal`).

use crate::backend::BackendKind;
use crate::modal::cpu::CpuModal;
use crate::modal::gpu::GpuModal;
use crate::modal::stepper::{ModalBackend, ModalRun};
use crate::modal::stiffness::ModalStiffness;
use crate::output::{self, atomic};
use crate::run::{is_due, next_multiple};
use crate::scenario::modal::ModalBuilt;
use crate::scenario::{Scenario, Settings};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Rows between rewrites of the series file during a run.
const FLUSH_EVERY: usize = 50;

/// Prints the resolved modal scene (`softdem check`).
pub fn check(sc: &Scenario) -> anyhow::Result<()> {
    let b = sc.build_modal()?;
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

/// Runs a modal-only scenario; `steps` caps the step count. Returns the output directory.
pub fn run(
    sc: &Scenario,
    kind: BackendKind,
    out: Option<&Path>,
    steps: Option<u64>,
    quiet: bool,
) -> anyhow::Result<PathBuf> {
    let t0 = Instant::now();
    let b = sc.build_modal()?;
    let out = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("out").join(&sc.name));
    std::fs::create_dir_all(&out)?;
    let total = steps.map_or(b.steps, |s| s.min(b.steps));
    let packed = b.scene.pack()?;
    if !quiet {
        eprintln!(
            "softdem run: {} ({}), {} modal bodies, {} surface nodes, {} walls, dt = {:.4e}, {total} steps, backend {kind:?}, writing {}",
            sc.name,
            sc.origin,
            packed.bodies.len(),
            packed.nodes.len(),
            packed.walls.len(),
            b.scene.dt,
            out.display()
        );
    }
    let outputs = Outputs::new(&out, &sc.settings, total);
    match kind {
        BackendKind::Cpu => drive(
            ModalRun::new(
                CpuModal::new(packed, b.states.clone()),
                b.scene.rebuild_every,
                b.scene.skin,
            ),
            &b,
            outputs,
        )?,
        BackendKind::Gpu => {
            let ctx = crate::gpu::context::GpuContext::new()?;
            drive(
                ModalRun::new(
                    GpuModal::new(ctx, packed, b.states.clone())?,
                    b.scene.rebuild_every,
                    b.scene.skin,
                ),
                &b,
                outputs,
            )?
        }
    }
    if !quiet {
        eprintln!(
            "softdem run: {total} steps in {:.1} s; {}",
            t0.elapsed().as_secs_f64(),
            out.join("modal_series.csv").display()
        );
    }
    Ok(out)
}

/// What a modal-only run writes: `modal_series.csv` every `series_every` steps, and as SPD runs
/// do (`[output]`), `snapshots/snapshot_NNNNNN.png` every `snapshots_every` steps and
/// `frames/modal_NNNNNN.vtp` (listed in `run.pvd`) every `frames_every` steps (0: only the last
/// step), all atomically.
struct Outputs {
    dir: PathBuf,
    total: u64,
    snapshots_every: u64,
    frames_every: u64,
    width: u32,
    /// Frames written: time, relative file name.
    frames: Vec<(f64, String)>,
}

impl Outputs {
    fn new(dir: &Path, settings: &Settings, total: u64) -> Outputs {
        Outputs {
            dir: dir.to_path_buf(),
            total,
            snapshots_every: settings.snapshots_every,
            frames_every: settings.frames_every,
            width: settings.snapshot_width,
            frames: vec![],
        }
    }

    /// The next step after `step` at which a picture or frame is due.
    fn next_due(&self, step: u64) -> u64 {
        next_multiple(step, self.snapshots_every).min(next_multiple(step, self.frames_every))
    }

    /// The snapshot and frame due at `step`, if any.
    fn write<B: ModalBackend>(&mut self, run: &mut ModalRun<B>, step: u64, time: f64) -> anyhow::Result<()> {
        let last = step == self.total;
        let snap = is_due(step, self.snapshots_every) || last;
        let frame = is_due(step, self.frames_every) || last;
        if !snap && !frame {
            return Ok(());
        }
        let states = run.backend.states()?;
        let outlines = output::modal::outlines(run.backend.packed(), &states);
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
        Ok(())
    }
}

fn drive<B: ModalBackend>(mut run: ModalRun<B>, b: &ModalBuilt, mut outputs: Outputs) -> anyhow::Result<()> {
    let path = outputs.dir.join("modal_series.csv");
    let total = outputs.total;
    let mut csv = series_header(b);
    let mut done = 0u64;
    let mut rows = 0usize;
    let dt = b.scene.dt as f64;
    let row = |run: &mut ModalRun<B>, step: u64, csv: &mut String| -> anyhow::Result<()> {
        let states = run.backend.states()?;
        let wf = run.backend.wall_forces()?;
        series_row(csv, b, step, step as f64 * dt, &states, &wf);
        Ok(())
    };
    row(&mut run, 0, &mut csv)?;
    outputs.write(&mut run, 0, 0.0)?;
    while done < total {
        let next = next_multiple(done, b.series_every)
            .min(outputs.next_due(done))
            .min(total);
        run.run(next - done)?;
        done = next;
        outputs.write(&mut run, done, done as f64 * dt)?;
        if !is_due(done, b.series_every) && done != total {
            continue;
        }
        row(&mut run, done, &mut csv)?;
        rows += 1;
        if rows.is_multiple_of(FLUSH_EVERY) {
            atomic::write(&path, csv.as_bytes())?;
        }
    }
    atomic::write(&path, csv.as_bytes())
}

/// The scenario of a `softdem run` request when it has modal bodies only (no resume).
pub fn modal_only(req: &super::session::RunRequest) -> anyhow::Result<Option<Scenario>> {
    let (None, Some(p)) = (&req.resume, &req.scenario) else {
        return Ok(None);
    };
    let sc = Scenario::load_with_overrides(p, &req.overrides)?;
    Ok(sc.is_modal_only().then_some(sc))
}
