//! `modal_series.csv` (modal-only and coupled runs): time, body positions, angles and modal
//! amplitudes, wall forces, as a driver observer ([`ModalSeries`]).

use super::atomic;
use crate::run::{is_due, next_multiple, ObserveCtx, Observer};
use crate::scenario::modal::ModalBuilt;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Rows between rewrites of the series file during a run.
const FLUSH_EVERY: usize = 50;

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
