//! Outputs of runs with cohesive links (§7): the crack log `breaks.csv`
//! (`step,time,body_a,body_b,x,y,mode,energy`, one row per broken link, in break order) and the
//! link summary behind the `broken_links,crack_length,released_energy` columns of `series.csv`.
//!
//! A link's row is added at the first output after its break (the links are read back with
//! `Backend::read_links` and compared with the previous read): `step` is the break step itself,
//! `x, y` the midpoint of its two nodes at that output, `mode` the `LINK_BROKE_*` code
//! (1 tension, 2 shear, 3 energy) and `energy` = f_n²/2k_n + f_t²/2k_t of the forces at the
//! break (the elastic energy the link released). The file is rewritten atomically at every
//! output that found new breaks and at the end. A resumed run starts with no link logged: its
//! first output lists every link broken so far again (complete, in order), with the midpoints of
//! the links broken before the checkpoint taken at that output.

use super::atomic;
use crate::model::{LinkState, Scene};
use crate::run::{ObserveCtx, Observer};
use std::path::PathBuf;

/// Elastic energy f_n²/2k_n + f_t²/2k_t of a link in state `s` under its law.
pub fn link_energy(scene: &Scene, link: usize, s: &LinkState) -> f64 {
    let law = &scene.link_laws[scene.links[link].law as usize];
    let term = |f: f32, k: f32| {
        if k > 0.0 {
            (f as f64).powi(2) / (2.0 * k as f64)
        } else {
            0.0
        }
    };
    term(s.f_n, law.k_n) + term(s.f_t, law.k_t)
}

/// Broken-link count, crack length (sum of the broken links' `interface_length`) and released
/// energy (sum of their energies at the break).
pub fn link_summary(scene: &Scene, links: &[LinkState]) -> (u64, f64, f64) {
    let (mut n, mut len, mut e) = (0u64, 0.0, 0.0);
    for (i, s) in links.iter().enumerate() {
        if s.broken_step > 0 {
            n += 1;
            len += scene.links[i].interface_length as f64;
            e += link_energy(scene, i, s);
        }
    }
    (n, len, e)
}

/// W0 = (f_n0)²/2k_n of the first link law: the energy scale of tissue snapshots (Figs 33, 35).
pub fn link_energy_scale(scene: &Scene) -> Option<f64> {
    let law = scene.link_laws.first()?;
    (!scene.links.is_empty() && law.k_n > 0.0).then(|| (law.f_n0 as f64).powi(2) / (2.0 * law.k_n as f64))
}

/// Writes `breaks.csv` for a scene with links (a no-op observer otherwise).
pub struct BreaksWriter {
    path: PathBuf,
    every: u64,
    /// Links already logged.
    seen: Vec<bool>,
    rows: Vec<((u32, u32), String)>,
    dirty: bool,
}

pub const HEADER: &str = "step,time,body_a,body_b,x,y,mode,energy";

impl BreaksWriter {
    /// One check every `every` steps (the series interval).
    pub fn new(path: PathBuf, every: u64, scene: &Scene) -> BreaksWriter {
        BreaksWriter {
            path,
            // 0: checked only at the end (`finish`); the link state keeps each break's step.
            every,
            seen: vec![false; scene.links.len()],
            rows: vec![],
            dirty: true,
        }
    }

    fn update(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        if self.seen.is_empty() {
            return Ok(());
        }
        let links = ctx.backend.read_links()?;
        let scene = &ctx.built.scene;
        let dt = if ctx.step > 0 { ctx.time / ctx.step as f64 } else { 0.0 };
        for (i, s) in links.iter().enumerate() {
            if s.broken_step == 0 || self.seen[i] {
                continue;
            }
            self.seen[i] = true;
            let l = &scene.links[i];
            let (pa, pb) = (ctx.nodes[l.a as usize].pos(), ctx.nodes[l.b as usize].pos());
            let (ba, bb) = (scene.nodes[l.a as usize].body, scene.nodes[l.b as usize].body);
            self.rows.push((
                (s.broken_step, i as u32),
                format!(
                    "{},{:.9e},{},{},{:.9e},{:.9e},{},{:.6e}",
                    s.broken_step,
                    s.broken_step as f64 * dt,
                    ba,
                    bb,
                    0.5 * (pa[0] + pb[0]),
                    0.5 * (pa[1] + pb[1]),
                    s.mode,
                    link_energy(scene, i, s)
                ),
            ));
            self.dirty = true;
        }
        if self.dirty {
            self.rows.sort_by_key(|r| r.0);
            let mut text = String::from(HEADER);
            text.push('\n');
            for (_, r) in &self.rows {
                text += r;
                text.push('\n');
            }
            atomic::write(&self.path, text.as_bytes())?;
            self.dirty = false;
        }
        Ok(())
    }
}

impl Observer for BreaksWriter {
    fn next_due(&self, step: u64) -> u64 {
        if self.seen.is_empty() {
            return u64::MAX;
        }
        crate::run::next_multiple(step, self.every)
    }

    fn observe(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        self.update(ctx)
    }

    fn finish(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        self.update(ctx)
    }
}
