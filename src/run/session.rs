//! One run as the command line does it: load (or resume) a scenario, pick the backend, attach
//! the outputs to the driver, run, draw the plots. Used by `softdem run`, `softdem sweep` and the
//! acceptance tests.

use super::{Driver, RunEnd};
use crate::backend::{Backend, BackendKind};
use crate::output::{
    self, checkpoint, progress::Progress, series::SeriesWriter, snapshot::SnapshotWriter, vtk::FramesWriter, FinalCsv,
};
use crate::run::Observer;
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

/// Creates the backend for a built scene (GPU: limits checked first, with a located error).
pub fn make_backend(kind: BackendKind, scenario: &Scenario) -> anyhow::Result<(Built, Box<dyn Backend>)> {
    refuse_mixed(scenario, "this command")?;
    Ok(match kind {
        BackendKind::Cpu => {
            let built = scenario.build()?;
            let be = Box::new(crate::cpu::CpuBackend::new(&built.scene)?);
            (built, be)
        }
        BackendKind::Gpu => {
            let ctx = std::sync::Arc::new(crate::gpu::context::GpuContext::new()?);
            scenario.check_limits(&ctx.limits)?;
            let built = scenario.build()?;
            let be = Box::new(crate::gpu::stepper::GpuBackend::new(ctx, &built.scene)?);
            (built, be)
        }
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
    let t0 = Instant::now();
    let scenario = load(req)?;
    refuse_mixed(
        &scenario,
        if req.resume.is_some() {
            "--resume (coupled runs write no checkpoint)"
        } else {
            "this run path (sweeps)"
        },
    )?;
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
    let (built, backend) = make_backend(req.backend, &scenario)?;
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    if resume.is_none() {
        output::atomic::write(&out.join("scenario.toml"), scenario.canonical.as_bytes())?;
    }
    let backend_name = backend.name();
    let settings = built.settings.clone();
    let n_nodes = built.scene.nodes.len();
    let n_bodies = built.scene.bodies.len();
    let mut driver = match &resume {
        Some(c) => Driver::resume(built, backend, &c.saved, c.driver.clone())?,
        None => Driver::new(built, backend)?,
    };
    let resume_step = resume.as_ref().map(|c| c.saved.steps);
    let mut progress = Progress::new(settings.summary_every, req.quiet);
    if !req.quiet {
        eprintln!(
            "softdem run: {} ({}), {n_bodies} bodies, {n_nodes} nodes, dt = {:.4e}, backend {backend_name}{}, writing {}",
            scenario.name,
            scenario.origin,
            driver.dt(),
            resume_step.map(|s| format!(", resuming at step {s}")).unwrap_or_default(),
            out.display()
        );
    }
    let mut series = SeriesWriter::new(out.join("series.csv"), &driver.built, resume_step)?;
    let mut frames = FramesWriter::new(out.clone(), settings.frames_every, driver.dt(), resume_step);
    frames.ascii = settings.vtk_ascii;
    let mut snaps = SnapshotWriter::new(out.join("snapshots"), settings.snapshots_every, settings.snapshot_width);
    snaps.at_stage_end = settings.stage_snapshots;
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
    let mut observers: Vec<&mut dyn Observer> =
        vec![&mut series, &mut frames, &mut snaps, &mut ckpt, &mut fin, &mut breaks];
    if settings.polygons {
        observers.push(&mut polygons);
    }
    let start_step = driver.backend.steps_done();
    let end = driver.run(req.steps, &mut observers, &mut progress);
    progress.finish();
    let end = end?;
    finish(&driver, end, start_step, out, t0, req.quiet, backend_name, "")
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
    if driver.built.settings.plots {
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

/// SPD + modal scenarios run only through `softdem run` / `softdem check`
/// (`run::coupled`): refused here, before anything is stepped, naming what is unsupported.
fn refuse_mixed(scenario: &Scenario, what: &str) -> anyhow::Result<()> {
    anyhow::ensure!(
        !scenario.is_mixed(),
        "{}: SPD cells with modal bodies ([modal]) run only by `softdem run` and `softdem check` \
         (src/run/coupled.rs); {what} does not support coupled scenes",
        scenario.origin
    );
    Ok(())
}
