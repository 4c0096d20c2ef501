//! One run as the command line does it: load (or resume) a scenario, build its kind (SPD cells,
//! modal bodies, or both coupled; `engine`) on the chosen backend, attach the outputs to the
//! driver, run, draw the plots. Used by `softdem run`, `softdem sweep`, `softdem compare` and the
//! acceptance tests, for every kind.

use super::{Driver, RunEnd};
use crate::backend::{Backend, BackendKind};
use crate::coupled::stepper::{CoupledBackend, CoupledRun};
use crate::engine::coupled::CoupledKind;
use crate::engine::modal::ModalKind;
use crate::engine::spd::{SpdControls, SpdKind};
use crate::engine::spheres::SphereKind;
use crate::engine::Kind;
use crate::modal::stepper::ModalRun;
use crate::output::modal::OutlineSource;
use crate::output::modal_pictures::ModalPictures;
use crate::output::modal_series::ModalSeries;
use crate::output::{
    self, checkpoint, progress::Progress, series::SeriesWriter, snapshot::SnapshotWriter, vtk::FramesWriter, FinalCsv,
};
use crate::run::Observer;
use crate::scenario::coupled::CoupledBuilt;
use crate::scenario::modal::ModalBuilt;
use crate::scenario::spheres::SphereBuilt;
use crate::scenario::{Built, Scenario};
use anyhow::Context as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What to run.
#[derive(Clone, Debug)]
pub struct RunRequest {
    /// Scenario file; `None`: the embedded default.
    pub scenario: Option<PathBuf>,
    pub backend: BackendKind,
    /// Output directory (default `out/<scenario name>`).
    pub out: Option<PathBuf>,
    /// Stop at this absolute step.
    pub steps: Option<u64>,
    /// Continue the run in this directory from its `checkpoint.bin`.
    pub resume: Option<PathBuf>,
    /// No progress bar or summaries.
    pub quiet: bool,
    /// Key paths replaced in the scenario (sweeps).
    pub overrides: Vec<(String, toml::Value)>,
}

impl RunRequest {
    pub fn new(scenario: Option<PathBuf>, backend: BackendKind) -> RunRequest {
        RunRequest {
            scenario,
            backend,
            out: None,
            steps: None,
            resume: None,
            quiet: false,
            overrides: vec![],
        }
    }
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct RunReport {
    pub out: PathBuf,
    pub end: RunEnd,
    pub steps: u64,
    pub seconds: f64,
    pub backend: String,
}

/// A kind built for a scenario (`engine::Kind`), with what its outputs need.
pub struct Made {
    pub built: Built,
    pub kind: Box<dyn Kind>,
    /// The modal bodies of modal-only and coupled runs (`modal_series.csv` columns).
    pub modal: Option<ModalBuilt>,
    /// Coupled runs: the modal outlines drawn over the cells (snapshots, frames).
    pub outlines: Option<(OutlineSource, OutlineSource)>,
    /// Sphere runs: the resolved `[spheres]` section (their outputs' columns and walls).
    pub spheres: Option<std::rc::Rc<SphereBuilt>>,
    pub warnings: Vec<String>,
}

/// Creates the kind a scenario needs (SPD cells, modal bodies alone, or both coupled) on the
/// backend `kind` (GPU: limits checked first, with a located error).
pub fn make_backend(kind: BackendKind, scenario: &Scenario) -> anyhow::Result<Made> {
    if scenario.is_spheres() {
        return make_spheres(kind, scenario);
    }
    if scenario.is_modal_only() {
        return make_modal(kind, scenario);
    }
    let ctx = match kind {
        BackendKind::Gpu => {
            let ctx = std::sync::Arc::new(crate::gpu::context::GpuContext::new()?);
            scenario.check_limits(&ctx.limits)?;
            Some(ctx)
        }
        BackendKind::Cpu => None,
    };
    if scenario.is_mixed() {
        let cb = scenario.build_coupled()?;
        return Ok(match ctx {
            None => made_coupled(crate::coupled::stepper::cpu(&cb.scene)?, cb),
            Some(ctx) => made_coupled(crate::coupled::stepper::gpu(ctx, &cb.scene)?, cb),
        });
    }
    let built = scenario.build()?;
    let be: Box<dyn Backend> = match ctx {
        None => Box::new(crate::cpu::CpuBackend::new(&built.scene)?),
        Some(ctx) => Box::new(crate::gpu::stepper::GpuBackend::new(ctx, &built.scene)?),
    };
    Ok(Made {
        kind: Box::new(SpdKind::new(&built.scene, be)),
        built,
        modal: None,
        outlines: None,
        spheres: None,
        warnings: vec![],
    })
}

fn made_coupled<B: CoupledBackend + 'static>(run: CoupledRun<B>, cb: CoupledBuilt) -> Made {
    let keeps = keeps_centre(&cb.modal);
    let k = CoupledKind::new(
        run,
        SpdControls::new(&cb.built.scene),
        "coupled modal–SPD".to_string(),
        cb.scene.spd.gravity,
        keeps,
    );
    let outlines = Some((k.outline_source(), k.outline_source()));
    Made {
        built: cb.built,
        kind: Box::new(k),
        modal: Some(cb.modal),
        outlines,
        spheres: None,
        warnings: cb.warnings,
    }
}

/// Per modal body: whether every mode keeps the centre of mass (gravity acts on the rigid part).
fn keeps_centre(mb: &ModalBuilt) -> Vec<bool> {
    mb.scene
        .bodies
        .iter()
        .map(|b| (0..b.modes.len()).all(|a| crate::coupled::stepper::mode_keeps_centre(b, a)))
        .collect()
}

fn make_modal(kind: BackendKind, scenario: &Scenario) -> anyhow::Result<Made> {
    let (built, mb) = scenario.build_modal_run()?;
    let packed = mb.scene.pack()?;
    let keeps = keeps_centre(&mb);
    let (every, skin) = (mb.scene.rebuild_every, mb.scene.skin);
    let k: Box<dyn Kind> = match kind {
        BackendKind::Cpu => {
            let be = crate::modal::cpu::CpuModal::new(packed, mb.states.clone());
            Box::new(ModalKind::new(
                ModalRun::new(be, every, skin),
                keeps,
                "cpu (modal bodies)".into(),
            ))
        }
        BackendKind::Gpu => {
            let ctx = crate::gpu::context::GpuContext::new()?;
            let be = crate::modal::gpu::GpuModal::new(ctx, packed, mb.states.clone())?;
            Box::new(ModalKind::new(
                ModalRun::new(be, every, skin),
                keeps,
                "gpu (modal bodies)".into(),
            ))
        }
    };
    Ok(Made {
        built,
        kind: k,
        modal: Some(mb),
        outlines: None,
        spheres: None,
        warnings: vec![],
    })
}

/// The sphere kind of a `[spheres]` scenario on the CPU twin or the GPU.
fn make_spheres(kind: BackendKind, scenario: &Scenario) -> anyhow::Result<Made> {
    use crate::spheres::backend::{CpuSphereBackend, GpuSphereBackend};
    use crate::spheres::cpu_stepper::CpuSpheres;
    use crate::spheres::gpu_stepper::GpuSpheres;
    let (built, sb) = scenario.build_sphere_run()?;
    let sb = std::rc::Rc::new(sb);
    let k: Box<dyn Kind> = match kind {
        BackendKind::Cpu => {
            let mut sys = CpuSpheres::new(sb.params, sb.states.clone(), sb.laws.clone(), sb.walls.clone());
            if let Some(b) = &sb.beads {
                crate::beads::attach::attach_cpu(&mut sys, b.forces.clone());
            }
            if let Some(m) = &sb.membrane {
                crate::membrane::attach::attach_cpu(&mut sys, m.membrane.clone());
            }
            Box::new(SphereKind::new(CpuSphereBackend(sys), sb.clone()))
        }
        BackendKind::Gpu => {
            let ctx = crate::gpu::context::GpuContext::new()?;
            let mut sys = GpuSpheres::new(&ctx, sb.params, &sb.states, &sb.laws, &sb.walls)?;
            if let Some(b) = &sb.beads {
                crate::beads::attach::attach_gpu(&ctx, &mut sys, b.forces.clone())?;
            }
            if let Some(m) = &sb.membrane {
                crate::membrane::attach::attach_gpu(&ctx, &mut sys, m.membrane.clone())?;
                crate::membrane::attach::attach_gpu_rims(&ctx, &mut sys, &m.pins, &sb.states, &sb.walls)?;
            }
            Box::new(SphereKind::new(GpuSphereBackend { ctx, sys }, sb.clone()))
        }
    };
    Ok(Made {
        built,
        kind: k,
        modal: None,
        outlines: None,
        spheres: Some(sb),
        warnings: vec![],
    })
}

/// Loads the scenario of a request (or of the run directory it resumes).
pub fn load(req: &RunRequest) -> anyhow::Result<Scenario> {
    Ok(match (&req.resume, &req.scenario) {
        (Some(dir), _) => Scenario::load(&dir.join("scenario.toml"))?,
        (None, Some(p)) => Scenario::load_with_overrides(p, &req.overrides)?,
        (None, None) if req.overrides.is_empty() => Scenario::default_scenario(),
        (None, None) => Scenario::from_text(
            crate::scenario::DEFAULT_SCENARIO,
            "<embedded default.toml>",
            Path::new("."),
            "default",
            &req.overrides,
        )?,
    })
}

/// Runs a request to the end (or its step cap).
pub fn run(req: &RunRequest) -> anyhow::Result<RunReport> {
    let scenario = load(req)?;
    run_loaded(&scenario, req)
}

/// Runs a loaded scenario (of any kind) as `req` says; `req.scenario` is not read again.
pub fn run_loaded(scenario: &Scenario, req: &RunRequest) -> anyhow::Result<RunReport> {
    let t0 = Instant::now();
    let out = match (&req.resume, &req.out) {
        (Some(d), _) => d.clone(),
        (None, Some(o)) => o.clone(),
        (None, None) => PathBuf::from("out").join(&scenario.name),
    };
    let resume = match &req.resume {
        Some(dir) => {
            let c = checkpoint::read(&dir.join("checkpoint.bin"))?;
            anyhow::ensure!(
                c.scenario_hash == scenario.hash,
                "{}/checkpoint.bin was written for another scenario (hash {:016x}, {}/scenario.toml has {:016x})",
                dir.display(),
                c.scenario_hash,
                dir.display(),
                scenario.hash
            );
            Some(c)
        }
        None => None,
    };
    let Made {
        built,
        kind: backend,
        modal,
        outlines,
        spheres,
        warnings,
    } = make_backend(req.backend, scenario)?;
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    if resume.is_none() {
        output::atomic::write(&out.join("scenario.toml"), scenario.canonical.as_bytes())?;
    }
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let backend_name = backend.name();
    let settings = built.settings.clone();
    let n_nodes = built.scene.nodes.len();
    let n_bodies = built.scene.bodies.len();
    // Modal bodies alone: no SPD outputs, and the run ends at [modal] duration / steps.
    let spd = n_nodes > 0;
    let cap = match (spd || spheres.is_some(), settings.max_steps) {
        (false, Some(max)) => Some(req.steps.map_or(max, |s| s.min(max))),
        _ => req.steps,
    };
    let mut driver = match &resume {
        Some(c) => Driver::resume(built, backend, &c.saved, c.driver.clone())?,
        None => Driver::new(built, backend)?,
    };
    let resume_step = resume.as_ref().map(|c| c.saved.steps);
    let mut progress = Progress::new(settings.summary_every, req.quiet);
    if !req.quiet {
        eprintln!(
            "softdem run: {} ({}), {}{}, dt = {:.4e}, backend {backend_name}{}, writing {}",
            scenario.name,
            scenario.origin,
            if spheres.is_some() {
                String::new()
            } else {
                format!("{n_bodies} bodies, {n_nodes} nodes")
            },
            modal
                .as_ref()
                .map(|m| format!(", {} modal bodies", m.scene.bodies.len()))
                .or(spheres
                    .as_ref()
                    .map(|s| format!("{} spheres, {} walls", s.states.len(), s.walls.len())))
                .unwrap_or_default(),
            driver.dt(),
            resume_step
                .map(|s| format!(", resuming at step {s}"))
                .unwrap_or_default(),
            out.display()
        );
    }
    let mut series = match &spheres {
        None => SeriesWriter::new(out.join("series.csv"), &driver.built, resume_step)?,
        Some(sb) => SeriesWriter::with_columns(
            out.join("series.csv"),
            output::spheres::series_header(sb),
            Some(output::spheres::series_row(sb.clone())),
            &driver.built,
            resume_step,
        )?,
    };
    let mut frames = FramesWriter::new(out.clone(), settings.frames_every, driver.dt(), resume_step);
    frames.ascii = settings.vtk_ascii;
    if let Some(sb) = &spheres {
        frames.parts = Some(match (&sb.beads, &sb.membrane) {
            (None, None) => output::spheres::frame_parts(),
            (Some(b), None) => output::beads::frame_parts(b.clone(), sb.params.dt),
            (b, Some(m)) => output::membrane::frame_parts(m.clone(), b.clone(), sb.params.dt),
        });
    }
    // Bead bodies: breaks.csv and the shear slices.
    let mut bead_outputs = spheres.as_ref().and_then(|sb| sb.beads.clone()).map(|b| {
        let dt = spheres.as_ref().expect("beads are spheres").params.dt;
        let breaks = output::beads::BeadBreaks::new(out.join("breaks.csv"), settings.series_every, b.clone(), dt);
        let mut pics = output::beads::BeadPictures::new(
            out.join("snapshots"),
            settings.snapshots_every,
            settings.snapshot_width,
            b,
            dt,
        );
        pics.at_stage_end = settings.stage_snapshots;
        (breaks, pics)
    });
    let mut sphere_final = output::spheres::SphereFinalCsv {
        path: out.join("final.csv"),
    };
    let mut sphere_snaps =
        output::spheres::SphereSnapshots::new(out.join("snapshots"), settings.snapshots_every, settings.snapshot_width);
    sphere_snaps.at_stage_end = settings.stage_snapshots;
    sphere_snaps.membrane = spheres.as_ref().and_then(|sb| sb.membrane.clone());
    let mut snaps = SnapshotWriter::new(out.join("snapshots"), settings.snapshots_every, settings.snapshot_width);
    snaps.at_stage_end = settings.stage_snapshots;
    if let Some((a, b)) = outlines {
        frames.modal = Some(a);
        snaps.modal = Some(b);
    }
    let mut ckpt =
        checkpoint::CheckpointWriter::new(out.join("checkpoint.bin"), settings.checkpoint_every, scenario.hash);
    let mut fin = FinalCsv {
        path: out.join("final.csv"),
    };
    let mut breaks =
        crate::output::breaks::BreaksWriter::new(out.join("breaks.csv"), settings.series_every, &driver.built.scene);
    let mut polygons = output::PolygonsCsv {
        path: out.join("cells.csv"),
    };
    let mut modal_series = match &modal {
        Some(m) => Some(ModalSeries::new(out.join("modal_series.csv"), m.clone(), resume_step)?),
        None => None,
    };
    let mut pictures = ModalPictures::new(&out, &settings, driver.dt(), resume_step);
    let mut observers: Vec<&mut dyn Observer> = if spd {
        vec![&mut series, &mut frames, &mut snaps, &mut ckpt, &mut fin, &mut breaks]
    } else if spheres.is_some() {
        vec![
            &mut series,
            &mut frames,
            &mut sphere_snaps,
            &mut ckpt,
            &mut sphere_final,
        ]
    } else {
        vec![&mut pictures, &mut ckpt]
    };
    if let Some(m) = &mut modal_series {
        observers.push(m);
    }
    if let Some((breaks, pics)) = &mut bead_outputs {
        observers.push(breaks);
        observers.push(pics);
    }
    if settings.polygons && spd {
        observers.push(&mut polygons);
    }
    let start_step = driver.backend.steps_done();
    let end = driver.run(cap, &mut observers, &mut progress);
    progress.finish();
    let end = end?;
    let note = if modal.is_some() {
        " (modal bodies: modal_series.csv)"
    } else {
        ""
    };
    if spheres.is_some() && settings.plots {
        output::spheres::write_plots(&out.join("series.csv"), &out.join("plots"))?;
    }
    finish(&driver, end, start_step, out, t0, req.quiet, backend_name, note)
}

/// The end of a run: the plots (`[output] plots`), the closing line (unless `quiet`; `note` ends
/// it) and the report. `start_step`: where this process began (a resumed run's checkpoint).
#[allow(clippy::too_many_arguments)]
pub(super) fn finish(
    driver: &Driver,
    end: RunEnd,
    start_step: u64,
    out: PathBuf,
    t0: Instant,
    quiet: bool,
    backend: String,
    note: &str,
) -> anyhow::Result<RunReport> {
    let steps = driver.backend.steps_done();
    if driver.built.settings.plots && !driver.built.scene.nodes.is_empty() {
        output::plots::write_plots(&out.join("series.csv"), &out.join("plots"))?;
    }
    let seconds = t0.elapsed().as_secs_f64();
    if !quiet {
        eprintln!(
            "softdem run: {} at step {steps} ({}) in {seconds:.1} s ({:.0} steps/s); outputs in {}{note}",
            match end {
                RunEnd::Done => "all stages done",
                RunEnd::Cap => "step limit reached",
            },
            driver.stage_name(),
            (steps - start_step) as f64 / seconds.max(1e-9),
            out.display()
        );
    }
    Ok(RunReport {
        out,
        end,
        steps,
        seconds,
        backend,
    })
}

/// Runs a modal-only scenario under the driver (`run_loaded`; stages, checkpoints; here, not in `run::modal`, whose observers this module uses);
/// `steps` caps the step count. Returns the output directory.
pub fn run_modal(
    sc: &Scenario,
    kind: BackendKind,
    out: Option<&Path>,
    steps: Option<u64>,
    quiet: bool,
) -> anyhow::Result<PathBuf> {
    let req = RunRequest {
        out: out.map(Path::to_path_buf),
        steps,
        quiet,
        ..RunRequest::new(None, kind)
    };
    Ok(run_loaded(sc, &req)?.out)
}
