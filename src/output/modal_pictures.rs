//! Snapshots and frames of the modal bodies' outlines (modal-only runs) as a driver observer
//! ([`ModalPictures`]); the outlines themselves are drawn by `output::modal`.

use super::atomic;
use crate::output;
use crate::run::{is_due, next_multiple, ObserveCtx, Observer};
use crate::scenario::Settings;
use std::path::{Path, PathBuf};

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
