//! A scenario that mixes SPD bodies and modal bodies (`scenario::coupled`): `softdem check` prints
//! what it resolves to, `softdem run` steps it through `coupled::stepper::CoupledRun` (CPU twin or
//! GPU) under the usual driver (stages, stop conditions, runaway check, progress) with the usual
//! SPD outputs (`series.csv`, frames and snapshots, both with the modal bodies' outlines, `final.csv`, `breaks.csv`, `cells.csv`, plots),
//! plus `modal_series.csv` (modal body positions, angles, amplitudes, modal wall forces; the
//! columns of `run::modal`), written atomically every `FLUSH_EVERY` rows and at the end.
//!
//! Not available for coupled runs, refused before any step: checkpoints and `--resume`
//! (`export_state` is not implemented for `CoupledRun`), hence also the runaway replay (the error
//! names the step it was detected at); `softdem compare` and sweeps (`session::make_backend`).

use super::session::RunReport;
use super::{next_multiple, Driver, ObserveCtx, Observer};
use crate::backend::{Backend, BackendKind, ContactSnapshot, SavedState};
use crate::coupled::stepper::{CoupledBackend, CoupledRun};
use crate::model::{BodyState, LinkState, Node, NodeState, BODY_CLOSED, BODY_FROZEN};
use crate::output::{self, atomic, progress::Progress, series::SeriesWriter, snapshot::SnapshotWriter};
use crate::output::{modal::OutlineSource, vtk::FramesWriter, FinalCsv};
use crate::scenario::coupled::CoupledBuilt;
use crate::scenario::modal::ModalBuilt;
use crate::scenario::Scenario;
use anyhow::Context as _;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

/// Rows between rewrites of `modal_series.csv` during a run.
const FLUSH_EVERY: usize = 50;

/// A coupled run shared by the driver (as its `Backend`) and the modal series (which reads the
/// modal states): the driver never holds a borrow across an observer call.
struct Shared<B: CoupledBackend>(Rc<RefCell<CoupledRun<B>>>);

impl<B: CoupledBackend> Backend for Shared<B> {
    fn name(&self) -> String {
        self.0.borrow().name()
    }
    fn step(&mut self, steps: u32) -> anyhow::Result<()> {
        self.0.borrow_mut().step(steps)
    }
    fn steps_done(&self) -> u64 {
        Backend::steps_done(&*self.0.borrow())
    }
    fn read_nodes(&mut self) -> anyhow::Result<Vec<NodeState>> {
        self.0.borrow_mut().read_nodes()
    }
    fn read_bodies(&mut self) -> anyhow::Result<Vec<BodyState>> {
        self.0.borrow_mut().read_bodies()
    }
    fn read_contacts(&mut self) -> anyhow::Result<ContactSnapshot> {
        self.0.borrow_mut().read_contacts()
    }
    fn read_links(&mut self) -> anyhow::Result<Vec<LinkState>> {
        self.0.borrow_mut().read_links()
    }
    fn export_state(&mut self) -> anyhow::Result<SavedState> {
        self.0.borrow_mut().export_state()
    }
    fn import_state(&mut self, saved: &SavedState) -> anyhow::Result<()> {
        self.0.borrow_mut().import_state(saved)
    }
    fn set_boundary_conditions(&mut self, nodes: &[Node]) -> anyhow::Result<()> {
        self.0.borrow_mut().set_boundary_conditions(nodes)
    }
}

/// `modal_series.csv` as a driver observer: a row every `every` steps (0: only the first and the
/// last) and at the end.
struct ModalSeries<B: CoupledBackend> {
    run: Rc<RefCell<CoupledRun<B>>>,
    path: PathBuf,
    modal: ModalBuilt,
    every: u64,
    csv: String,
    rows: usize,
    last: Option<u64>,
}

impl<B: CoupledBackend> ModalSeries<B> {
    fn row(&mut self, step: u64, time: f64) -> anyhow::Result<()> {
        if self.last == Some(step) {
            return Ok(());
        }
        let (states, wf) = {
            let mut r = self.run.borrow_mut();
            (r.modal_states()?, r.modal_wall_forces()?)
        };
        super::modal::series_row(&mut self.csv, &self.modal, step, time, &states, &wf);
        self.rows += 1;
        self.last = Some(step);
        if self.rows.is_multiple_of(FLUSH_EVERY) {
            atomic::write(&self.path, self.csv.as_bytes())?;
        }
        Ok(())
    }
}

impl<B: CoupledBackend> Observer for ModalSeries<B> {
    fn next_due(&self, step: u64) -> u64 {
        next_multiple(step, self.every)
    }
    fn observe(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        self.row(ctx.step, ctx.time)
    }
    fn finish(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        self.row(ctx.step, ctx.time)?;
        atomic::write(&self.path, self.csv.as_bytes())
    }
}

/// The modal bodies' current outlines (eq 1 at the run's modal states), for snapshots and frames.
fn outline_source<B: CoupledBackend + 'static>(run: &Rc<RefCell<CoupledRun<B>>>) -> OutlineSource {
    let run = run.clone();
    Box::new(move || {
        let mut r = run.borrow_mut();
        let states = r.modal_states()?;
        Ok(output::modal::outlines(r.backend.packed(), &states))
    })
}

/// Prints what a mixed scenario resolves to (`softdem check`); builds the CPU coupled run once
/// (first lists, dt = 0 force pass) so that list capacities are checked too.
pub fn check(sc: &Scenario, kind: BackendKind) -> anyhow::Result<()> {
    if kind == BackendKind::Gpu {
        match crate::gpu::context::GpuContext::new() {
            Ok(ctx) => sc.check_limits(&ctx.limits)?,
            Err(e) => println!("no GPU adapter ({e:#}): GPU limits not checked"),
        }
    }
    let cb = sc.build_coupled()?;
    let (spd, m) = (&cb.built.scene, &cb.modal);
    println!(
        "scenario {} ({}): OK (coupled SPD cells + modal bodies)",
        sc.name, sc.origin
    );
    if let Some(d) = &sc.file.description {
        println!("  {d}");
    }
    if let Some(u) = &sc.file.units {
        println!("units: {u}");
    }
    for (_, mat) in sc.materials.values() {
        print!("{}", mat.describe());
    }
    let free = spd.bodies.iter().filter(|b| b.flags & BODY_FROZEN == 0).count();
    let coupled = spd
        .bodies
        .iter()
        .filter(|b| b.flags & BODY_CLOSED != 0 && b.flags & BODY_FROZEN == 0)
        .count();
    println!(
        "SPD bodies: {} ({free} free, {coupled} closed cells in contact with modal bodies, {} walls), nodes: {}",
        spd.bodies.len(),
        cb.built.geometry.walls.len(),
        spd.nodes.len()
    );
    for (i, b) in m.scene.bodies.iter().enumerate() {
        println!(
            "modal body {}, {} mode(s) ({}), stiffness {}",
            super::modal::body_line(sc, m, i),
            b.n_modes(),
            sc.file.modal.as_ref().unwrap().bodies[i]
                .modes
                .iter()
                .map(|x| x.shape.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            m.stiffness_kinds[i]
        );
    }
    for i in 0..m.scene.walls.len() {
        println!("modal wall {}", super::modal::wall_line(m, i));
    }
    let mut spd_alone = sc.build()?.scene;
    spd_alone.gravity = spd.gravity;
    let mixed = crate::coupled::stepper::COUPLING_DT_FRACTION * (spd.m_min() / m.scene.contact.k_n).sqrt();
    println!(
        "time step: dt = {:.6e} = min(SPD {:.6e}, modal §3.3 {:.6e} (β_r √(m_eff/k_n) {:.6e}, β_d/ω_max {:.6e}), mixed contacts {} √(m_min/k_n) = {:.6e})",
        cb.scene.dt(),
        spd_alone.dt(),
        m.scene.dt,
        m.critical.rigid,
        m.critical.deform,
        crate::coupled::stepper::COUPLING_DT_FRACTION,
        mixed
    );
    println!(
        "gravity: {:?} on SPD nodes and on the modal bodies' rigid part; modal lists every {} steps (skin {})",
        spd.gravity, m.scene.rebuild_every, m.scene.skin
    );
    println!(
        "walls: the {} SPD walls act on SPD bodies{}; the {} modal walls on modal bodies only",
        cb.built.geometry.walls.len(),
        if cb.scene.directions & crate::coupled::DIR_SPD_WALLS != 0 {
            " and on modal bodies (at most 4 modal bodies near one wall)"
        } else {
            " only ([modal] spd_walls = false)"
        },
        m.scene.walls.len()
    );
    let mut run = crate::coupled::stepper::cpu(&cb.scene)?;
    let l = run.lists();
    let pairs = l
        .mb_cells
        .chunks(2)
        .filter(|p| p[0] != crate::modal::layout::NONE)
        .count();
    let c = Backend::read_contacts(&mut run)?;
    println!(
        "initial state: {pairs} cell–modal body pairs listed, {} SPD contacts",
        c.active_count()
    );
    println!("stages:");
    for (i, st) in cb.built.stages.iter().enumerate() {
        println!("  {i}: {} ({})", st.name, st.kind);
    }
    for w in &cb.warnings {
        println!("warning: {w}");
    }
    Ok(())
}

/// Runs a mixed scenario; `steps` caps the run (absolute step).
pub fn run(
    sc: &Scenario,
    kind: BackendKind,
    out: Option<&Path>,
    steps: Option<u64>,
    quiet: bool,
) -> anyhow::Result<RunReport> {
    let t0 = Instant::now();
    let ctx = match kind {
        BackendKind::Gpu => {
            let ctx = std::sync::Arc::new(crate::gpu::context::GpuContext::new()?);
            sc.check_limits(&ctx.limits)?;
            Some(ctx)
        }
        BackendKind::Cpu => None,
    };
    let cb = sc.build_coupled()?;
    let out = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("out").join(&sc.name));
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    output::atomic::write(&out.join("scenario.toml"), sc.canonical.as_bytes())?;
    for w in &cb.warnings {
        eprintln!("warning: {w}");
    }
    match ctx {
        None => drive(crate::coupled::stepper::cpu(&cb.scene)?, sc, cb, out, steps, quiet, t0),
        Some(ctx) => drive(
            crate::coupled::stepper::gpu(ctx, &cb.scene)?,
            sc,
            cb,
            out,
            steps,
            quiet,
            t0,
        ),
    }
}

fn drive<B: CoupledBackend + 'static>(
    run: CoupledRun<B>,
    sc: &Scenario,
    cb: CoupledBuilt,
    out: PathBuf,
    cap: Option<u64>,
    quiet: bool,
    t0: Instant,
) -> anyhow::Result<RunReport> {
    let run = Rc::new(RefCell::new(run));
    let backend_name = run.borrow().name();
    let CoupledBuilt { built, modal, .. } = cb;
    let settings = built.settings.clone();
    let (n_nodes, n_bodies) = (built.scene.nodes.len(), built.scene.bodies.len());
    let mut driver = Driver::new(built, Box::new(Shared(run.clone())))?;
    driver.replay = false;
    if !quiet {
        eprintln!(
            "softdem run: {} ({}), {n_bodies} SPD bodies, {n_nodes} nodes, {} modal bodies, dt = {:.4e}, backend {backend_name}, writing {}",
            sc.name,
            sc.origin,
            modal.scene.bodies.len(),
            driver.dt(),
            out.display()
        );
    }
    let mut progress = Progress::new(settings.summary_every, quiet);
    let mut series = SeriesWriter::new(out.join("series.csv"), &driver.built, None)?;
    let mut frames = FramesWriter::new(out.clone(), settings.frames_every, driver.dt(), None);
    frames.ascii = settings.vtk_ascii;
    let mut snaps = SnapshotWriter::new(out.join("snapshots"), settings.snapshots_every, settings.snapshot_width);
    snaps.at_stage_end = settings.stage_snapshots;
    snaps.modal = Some(outline_source(&run));
    frames.modal = Some(outline_source(&run));
    let mut fin = FinalCsv {
        path: out.join("final.csv"),
    };
    let mut breaks =
        output::breaks::BreaksWriter::new(out.join("breaks.csv"), settings.series_every, &driver.built.scene);
    let mut polygons = output::PolygonsCsv {
        path: out.join("cells.csv"),
    };
    let mut modal_series = ModalSeries {
        run: run.clone(),
        path: out.join("modal_series.csv"),
        csv: super::modal::series_header(&modal),
        every: modal.series_every,
        modal,
        rows: 0,
        last: None,
    };
    let mut observers: Vec<&mut dyn Observer> = vec![
        &mut series,
        &mut frames,
        &mut snaps,
        &mut fin,
        &mut breaks,
        &mut modal_series,
    ];
    if settings.polygons {
        observers.push(&mut polygons);
    }
    let end = driver.run(cap, &mut observers, &mut progress);
    progress.finish();
    let end = end?;
    super::session::finish(
        &driver,
        end,
        0,
        out,
        t0,
        quiet,
        backend_name,
        " (modal bodies: modal_series.csv)",
    )
}

/// The scenario of a `softdem run` request when it mixes SPD and modal bodies (no resume).
pub fn mixed(req: &super::session::RunRequest) -> anyhow::Result<Option<Scenario>> {
    let (None, Some(p)) = (&req.resume, &req.scenario) else {
        return Ok(None);
    };
    let sc = Scenario::load_with_overrides(p, &req.overrides)?;
    Ok(sc.is_mixed().then_some(sc))
}
