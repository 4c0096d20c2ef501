//! `series.csv`: one row per output interval (and one at the end), header first:
//! `step,time,stage`, then per wall `<wall>_x,<wall>_y,<wall>_fx,<wall>_fy`, then
//! `height,width,stress,stress_xx,strain,void_ratio,particle_area,e_stretch,e_bending,e_core,
//! e_contact,e_kinetic,contacts,stress_norm,solid_volume_ratio` (σ/σ* with σ* of eq 39, and
//! ΔV_s/ΔV of §6: particle area change over sample area change since the strain's origin), and with cohesive links (§7) `broken_links,crack_length,
//! released_energy` (`breaks::link_summary`). Rewritten atomically every few seconds, at every checkpoint
//! step and at the end.

use super::atomic;
use crate::run::{ObserveCtx, Observer};
use crate::scenario::Built;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Column-safe form of a wall name (`box.top` → `box_top`).
pub fn column_name(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The header line (without newline).
pub fn header(built: &Built) -> String {
    let mut h = String::from("step,time,stage");
    for (name, _) in &built.geometry.walls {
        let c = column_name(name);
        h += &format!(",{c}_x,{c}_y,{c}_fx,{c}_fy");
    }
    h += ",height,width,stress,stress_xx,strain,void_ratio,particle_area,e_stretch,e_bending,e_core,e_contact,e_kinetic,contacts,stress_norm,solid_volume_ratio";
    if !built.scene.links.is_empty() {
        h += ",broken_links,crack_length,released_energy";
    }
    h
}

/// σ/σ* (eq 39; NaN without a reference ring) and ΔV_s/ΔV = (A_p0 − A_p)/(W0 H0 − W H) (§6;
/// NaN before the strain's origin and while the sample has not changed volume).
pub fn compaction_columns(ctx: &ObserveCtx) -> (f64, f64) {
    let m = ctx.m;
    let norm = ctx.built.sigma_star.map_or(f64::NAN, |s| m.stress_yy / s);
    let st = ctx.state;
    let ratio = match (st.h0, st.w0, st.a_p0) {
        (Some(h0), Some(w0), Some(a0)) => {
            let dv = w0 * h0 - m.width * m.height;
            if dv != 0.0 {
                (a0 - m.particle_area) / dv
            } else {
                f64::NAN
            }
        }
        _ => f64::NAN,
    };
    (norm, ratio)
}

/// A kind's own row maker (`SeriesWriter::with_columns`): the line for a sample.
pub type RowFn = Box<dyn FnMut(&mut ObserveCtx) -> anyhow::Result<String>>;

pub struct SeriesWriter {
    path: PathBuf,
    header: String,
    /// The row maker of a kind with its own columns (spheres); `None`: the 2D columns above.
    row: Option<RowFn>,
    rows: Vec<(u64, String)>,
    every: u64,
    flush_every_step: u64,
    last_flush: Instant,
    dirty: bool,
}

impl SeriesWriter {
    /// A writer for `built`; with `resume_step`, the rows of an existing file up to that step are
    /// kept (a resumed run continues the same table).
    pub fn new(path: PathBuf, built: &Built, resume_step: Option<u64>) -> anyhow::Result<SeriesWriter> {
        Self::with_columns(path, header(built), None, built, resume_step)
    }

    /// A writer with a kind's own header and row maker (`None`: the 2D columns).
    pub fn with_columns(
        path: PathBuf,
        header: String,
        row: Option<RowFn>,
        built: &Built,
        resume_step: Option<u64>,
    ) -> anyhow::Result<SeriesWriter> {
        let mut rows = vec![];
        if let Some(s) = resume_step {
            if let Ok(text) = std::fs::read_to_string(&path) {
                let mut lines = text.lines();
                anyhow::ensure!(
                    lines.next() == Some(header.as_str()),
                    "{} has another header than this scenario's",
                    path.display()
                );
                for l in lines {
                    let step: u64 = l.split(',').next().and_then(|x| x.parse().ok()).unwrap_or(u64::MAX);
                    // Rows on the interval only: an end-of-run row is redone by the resumed run.
                    if step <= s && crate::run::is_due(step, built.settings.series_every) {
                        rows.push((step, l.to_string()));
                    }
                }
            }
        }
        Ok(SeriesWriter {
            path,
            header,
            row,
            rows,
            // 0: only the end row (`finish`), as docs/scenarios.md says.
            every: built.settings.series_every,
            flush_every_step: built.settings.checkpoint_every,
            last_flush: Instant::now(),
            dirty: false,
        })
    }

    fn row(ctx: &mut ObserveCtx) -> anyhow::Result<String> {
        let m = ctx.m;
        let e = &m.energies;
        let mut r = format!("{},{:.9e},{}", ctx.step, ctx.time, ctx.stage.replace([',', '"'], ";"));
        for (p, f) in &m.walls {
            r += &format!(",{:.9e},{:.9e},{:.6e},{:.6e}", p[0], p[1], f[0], f[1]);
        }
        r += &format!(
            ",{:.9e},{:.9e},{:.6e},{:.6e},{:.6e},{:.6e},{:.9e},{:.6e},{:.6e},{:.6e},{:.6e},{:.6e},{}",
            m.height,
            m.width,
            m.stress_yy,
            m.stress_xx,
            ctx.strain,
            m.void_ratio,
            m.particle_area,
            e.stretch,
            e.bending,
            e.core,
            e.contact,
            e.kinetic,
            m.contacts
        );
        let (norm, ratio) = compaction_columns(ctx);
        r += &format!(",{norm:.6e},{ratio:.6e}");
        if !ctx.built.scene.links.is_empty() {
            let links = ctx.backend.read_links()?;
            let (n, len, e) = super::breaks::link_summary(&ctx.built.scene, &links);
            r += &format!(",{n},{len:.6e},{e:.6e}");
        }
        Ok(r)
    }

    fn push(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        if self.rows.last().is_some_and(|r| r.0 >= ctx.step) {
            return Ok(());
        }
        let row = match &mut self.row {
            Some(f) => f(ctx)?,
            None => Self::row(ctx)?,
        };
        self.rows.push((ctx.step, row));
        self.dirty = true;
        Ok(())
    }

    /// Rewrites the file atomically.
    pub fn flush(&mut self) -> anyhow::Result<()> {
        let mut s = String::with_capacity(self.rows.len() * 200);
        s += &self.header;
        s.push('\n');
        for (_, r) in &self.rows {
            s += r;
            s.push('\n');
        }
        atomic::write(&self.path, s.as_bytes())?;
        self.last_flush = Instant::now();
        self.dirty = false;
        Ok(())
    }

    /// Rows so far (step, line).
    pub fn rows(&self) -> &[(u64, String)] {
        &self.rows
    }
}

impl Observer for SeriesWriter {
    fn next_due(&self, step: u64) -> u64 {
        let a = crate::run::next_multiple(step, self.every);
        step.checked_div(self.flush_every_step)
            .map_or(a, |q| a.min((q + 1) * self.flush_every_step))
    }

    fn observe(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        if crate::run::is_due(ctx.step, self.every) {
            self.push(ctx)?;
        }
        let at_checkpoint = self.flush_every_step > 0 && ctx.step.is_multiple_of(self.flush_every_step);
        if self.dirty && (at_checkpoint || self.last_flush.elapsed() > Duration::from_secs(2)) {
            self.flush()?;
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        self.push(ctx)?;
        self.flush()
    }
}
