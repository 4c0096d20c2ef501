//! The driver: runs the stages of a built scenario on any kind of particle (`engine::Kind`:
//! SPD cells, modal bodies, both coupled), evaluates stop conditions
//! and servo control every `check_every` steps (at absolute step numbers, so a resumed run makes
//! the same decisions), stops on NaN or runaway motion naming the step, body and node, and hands
//! samples to observers (series, frames, snapshots, checkpoints; `output/`).

// `!(x > 0.0)` on purpose: NaN must fail these checks too.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod coupled;
pub mod measure;
pub mod modal;
pub mod session;
pub mod spheres;

use crate::backend::SavedState;
use crate::engine::{Controls, Kind, Sample};
use crate::model::*;
use crate::scenario::stages::{Action, Side};
use crate::scenario::Built;
use measure::Measures;
use serde::{Deserialize, Serialize};

/// Everything the driver decides from besides the backend state; saved in checkpoints.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DriverState {
    /// Current stage (== stages.len() when finished).
    pub stage: usize,
    pub stage_start: u64,
    /// Step at which the stage ends by `steps`/`time`.
    pub stage_end: Option<u64>,
    /// Step at which the stage ends by `max_steps`.
    pub stage_cap: Option<u64>,
    /// Centroid of the stage's wall at its start ((x, y, 0) in 2D).
    #[serde(deserialize_with = "vector3_of_pair")]
    pub wall_start: [f64; 3],
    /// Strain and stress of the stage's axis at its start (the crossing direction of stops);
    /// NaN (JSON null) where the kind has no such measure.
    #[serde(deserialize_with = "nan_if_null")]
    pub strain_start: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub stress_start: f64,
    /// Sample height and width of the strain's origin.
    pub h0: Option<f64>,
    pub w0: Option<f64>,
    /// Particle area A_p at the strain's origin (for ΔV_s/ΔV, §6).
    #[serde(default)]
    pub a_p0: Option<f64>,
    #[serde(deserialize_with = "vector3_of_pair")]
    pub gravity: [f64; 3],
    /// Forces that outlive their stage (`persist = true`).
    pub forces: Vec<(u32, [f64; 2])>,
    #[serde(deserialize_with = "vector3_of_pair")]
    pub servo_velocity: [f64; 3],
    pub finished: bool,
}

/// serde_json writes a non-finite f64 as null: read null back as NaN.
fn nan_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// A vector of a checkpoint: (x, y, z), or a pair (x, y) as 2D checkpoints wrote it.
fn vector3_of_pair<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[f64; 3], D::Error> {
    let v = Vec::<f64>::deserialize(d)?;
    match v.len() {
        2 | 3 => Ok(crate::scenario::vector3(&v)),
        n => Err(serde::de::Error::invalid_length(n, &"a pair or a triple")),
    }
}

/// One read-back state handed to observers.
pub struct ObserveCtx<'a> {
    pub step: u64,
    pub time: f64,
    /// The stage that ran up to this step.
    pub stage: &'a str,
    pub built: &'a Built,
    pub nodes: &'a [NodeState],
    pub bodies: &'a [BodyState],
    pub m: &'a Measures,
    /// ε = ln(H0/H) (0 before the strain's origin).
    pub strain: f64,
    pub state: &'a DriverState,
    pub backend: &'a mut dyn Kind,
}

/// Something that wants samples at given steps (outputs).
/// The first multiple of `every` after `step` (`u64::MAX` when `every` is 0: never): the
/// `next_due` of an observer that samples every `every` steps.
pub fn next_multiple(step: u64, every: u64) -> u64 {
    step.checked_div(every).map_or(u64::MAX, |q| (q + 1) * every)
}

/// Whether a periodic observer with period `every` (0: never) is due at `step`.
pub fn is_due(step: u64, every: u64) -> bool {
    every > 0 && step.is_multiple_of(every)
}

pub trait Observer {
    /// The next step after `step` at which it wants a sample (`u64::MAX`: none).
    fn next_due(&self, step: u64) -> u64;
    fn observe(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()>;
    /// Called once with the last state of the run.
    fn finish(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()>;
    /// Called with the state at which stage `stage` ended (after `observe`, if that was due).
    fn stage_done(&mut self, _ctx: &mut ObserveCtx, _stage: &str) -> anyhow::Result<()> {
        Ok(())
    }
}

/// Progress reporting (`output::progress`): told about every sample.
pub trait ProgressSink {
    fn update(&mut self, step: u64, estimated_total: u64, ctx: &ObserveCtx);
    fn message(&mut self, line: &str);
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Every stage finished.
    Done,
    /// The step cap was reached.
    Cap,
}

/// Runs a built scenario on a kind (the seam, `engine::Kind`).
pub struct Driver {
    pub built: Built,
    pub backend: Box<dyn Kind>,
    pub state: DriverState,
    dt: f64,
    last_good: Option<SavedState>,
}

fn ceil_steps(time: f64, dt: f64) -> u64 {
    (time / dt - 1e-9).ceil().max(0.0) as u64
}

impl Driver {
    /// A new run from the scene's initial state; enters the first stage.
    pub fn new(built: Built, backend: Box<dyn Kind>) -> anyhow::Result<Driver> {
        let dt = built.scene.dt() as f64;
        let mut d = Driver {
            state: DriverState {
                gravity: built.settings.gravity,
                ..Default::default()
            },
            built,
            backend,
            dt,
            last_good: None,
        };
        let m = d.sample()?.3;
        d.enter(0, 0, &m)?;
        Ok(d)
    }

    /// Continues a run from a checkpoint.
    pub fn resume(
        built: Built,
        mut backend: Box<dyn Kind>,
        saved: &SavedState,
        state: DriverState,
    ) -> anyhow::Result<Driver> {
        backend.import_state(saved)?;
        let dt = built.scene.dt() as f64;
        let mut d = Driver {
            built,
            backend,
            state,
            dt,
            last_good: Some(saved.clone()),
        };
        // The controls of the saved stage (SPD: the same boundary conditions as saved).
        let c = d.controls();
        d.backend.apply(&c)?;
        Ok(d)
    }

    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// Name of the current stage.
    pub fn stage_name(&self) -> &str {
        self.built
            .stages
            .get(self.state.stage)
            .map(|s| s.name.as_str())
            .unwrap_or("end")
    }

    /// Reads back the state and measures it.
    pub fn sample(
        &mut self,
    ) -> anyhow::Result<(
        Vec<NodeState>,
        Vec<BodyState>,
        crate::backend::ContactSnapshot,
        Measures,
    )> {
        let Sample {
            nodes,
            bodies,
            contacts,
            measures,
        } = self.backend.sample(&self.built)?;
        Ok((nodes, bodies, contacts, measures))
    }

    /// ε = ln(H0/H) on the vertical (or, with `horizontal`, ln(W0/W)).
    pub fn strain(&self, m: &Measures, horizontal: bool) -> f64 {
        let (r, x) = if horizontal {
            (self.state.w0, m.width)
        } else {
            (self.state.h0, m.height)
        };
        match r {
            Some(r0) if x > 0.0 => (r0 / x).ln(),
            _ => 0.0,
        }
    }

    fn stage_axis_horizontal(&self) -> bool {
        let st = &self.built.stages[self.state.stage];
        st.wall()
            .and_then(|w| self.built.measure.side_of(w))
            .is_some_and(|s| !s.vertical())
    }

    fn stress_on_axis(m: &Measures, horizontal: bool) -> f64 {
        if horizontal {
            m.stress_xx
        } else {
            m.stress_yy
        }
    }

    /// Enters stage `idx` at `step` (running instant stages at once) and applies its loads.
    fn enter(&mut self, idx: usize, step: u64, m: &Measures) -> anyhow::Result<()> {
        let mut idx = idx;
        loop {
            let s = &mut self.state;
            s.stage = idx;
            s.stage_start = step;
            s.servo_velocity = [0.0; 3];
            if idx >= self.built.stages.len() {
                s.finished = !self.built.stages.is_empty();
                s.stage_end = None;
                s.stage_cap = None;
                break;
            }
            let st = self.built.stages[idx].clone();
            match &st.action {
                Action::Gravity(g) => {
                    s.gravity = *g;
                    idx += 1;
                    continue;
                }
                Action::Deposit { gravity: Some(g) } => s.gravity = *g,
                _ => {}
            }
            let moves = st.wall().is_some();
            let origin = match self.built.strain_from {
                Some(k) => k == idx,
                None => moves && s.h0.is_none(),
            };
            if origin {
                s.h0 = m.height.is_finite().then_some(m.height);
                s.w0 = m.width.is_finite().then_some(m.width);
                s.a_p0 = (m.particle_area > 0.0).then_some(m.particle_area);
            }
            let end_steps = st.stop.steps.map(|n| step + n);
            let end_time = st.stop.time.map(|t| step + ceil_steps(t, self.dt));
            s.stage_end = match (end_steps, end_time) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            s.stage_cap = st.stop.max_steps.map(|n| step + n);
            let wall_start = st.wall().map(|w| m.walls[self.wall_index(w)].0).unwrap_or_default();
            self.state.wall_start = wall_start;
            let horizontal = self.stage_axis_horizontal();
            self.state.strain_start = self.strain(m, horizontal);
            self.state.stress_start = Self::stress_on_axis(m, horizontal);
            break;
        }
        let c = self.controls();
        self.backend.apply(&c)?;
        Ok(())
    }

    fn wall_index(&self, body: u32) -> usize {
        self.built
            .geometry
            .walls
            .iter()
            .position(|w| w.1 == body)
            .expect("a wall")
    }

    /// What the driver imposes now: gravity, forces and the current stage's wall velocity (each
    /// kind turns them into its boundary conditions, `Kind::apply`).
    pub fn controls(&self) -> Controls {
        let mut c = Controls {
            gravity: self.state.gravity,
            forces: self.state.forces.clone(),
            ..Default::default()
        };
        let Some(st) = self.built.stages.get(self.state.stage) else {
            return c;
        };
        c.confining = st.confining.map(|k| (k, self.state.stage_start));
        match &st.action {
            Action::MoveWall { wall, velocity } | Action::Unload { wall, velocity } => {
                c.wall = Some((*wall, *velocity))
            }
            Action::Servo { wall, .. } => c.wall = Some((*wall, self.state.servo_velocity)),
            Action::Force {
                nodes: set,
                force,
                persist: false,
            } => c.stage_force = Some((set.clone(), *force)),
            _ => {}
        }
        c
    }

    /// Evaluates the current stage's stop conditions (and servo) at `step`; true when it moved on.
    fn check(&mut self, step: u64, m: &Measures, progress: &mut dyn ProgressSink) -> anyhow::Result<bool> {
        let Some(st) = self.built.stages.get(self.state.stage).cloned() else {
            return Ok(false);
        };
        let s = &self.state;
        let since = step - s.stage_start;
        let horizontal = self.stage_axis_horizontal();
        let ke = m.energies.kinetic;
        let strain = self.strain(m, horizontal);
        let stress = Self::stress_on_axis(m, horizontal);
        let crossed = |start: f64, now: f64, target: f64| if start < target { now >= target } else { now <= target };
        let stop = &st.stop;
        let mut done = s.stage_end.is_some_and(|e| step >= e);
        if since >= stop.min_steps {
            let servo_ok = match (&st.action, stop.tolerance) {
                (Action::Servo { target, .. }, Some(tol)) => Some((stress - target).abs() <= tol * target),
                _ => None,
            };
            let ke_ok = stop.ke_below.map(|t| ke < t);
            done |= match servo_ok {
                Some(ok) => ok && ke_ok.unwrap_or(true),
                None => ke_ok.unwrap_or(false),
            };
            if let Some(t) = stop.strain {
                done |= crossed(s.strain_start, strain, t);
            }
            if let Some(t) = stop.stress {
                done |= stress.is_finite()
                    && crossed(
                        if s.stress_start.is_finite() {
                            s.stress_start
                        } else {
                            0.0
                        },
                        stress,
                        t,
                    );
            }
            if let (true, Some(w)) = (stop.touch, st.wall()) {
                // First contact: any contact force on the wall (cells are otherwise free of it).
                let f = m.walls[self.wall_index(w)].1;
                done |= f.iter().any(|&x| x != 0.0);
            }
            if let (Some(d), Some(w)) = (stop.displacement, st.wall()) {
                let c = m.walls[self.wall_index(w)].0;
                let moved = (0..3).map(|k| (c[k] - s.wall_start[k]).powi(2)).sum::<f64>().sqrt();
                done |= moved >= d;
            }
        }
        if !done && s.stage_cap.is_some_and(|c| step >= c) {
            progress.message(&format!(
                "warning: stage \"{}\" reached max_steps = {} at step {step} before its stop condition; going on",
                st.name,
                stop.max_steps.unwrap_or(0)
            ));
            done = true;
        }
        if done {
            if let Action::Force {
                nodes,
                force,
                persist: true,
            } = &st.action
            {
                self.state.forces.extend(nodes.iter().map(|&i| (i, *force)));
            }
            self.enter(self.state.stage + 1, step, m)?;
            return Ok(true);
        }
        if let Action::Servo {
            side,
            target,
            gain,
            max_speed,
            ..
        } = st.action
        {
            let err = (target - stress) / target;
            let speed = (gain * err).clamp(-max_speed, max_speed);
            let n = Side::inward(side, self.built.dimension);
            let v = if stress.is_finite() {
                n.map(|x| x * speed)
            } else {
                [0.0; 3]
            };
            if v != self.state.servo_velocity {
                self.state.servo_velocity = v;
                let c = self.controls();
                self.backend.apply(&c)?;
            }
        }
        Ok(false)
    }

    /// A rough number of steps left (for the progress bar's ETA).
    pub fn estimate_total(&self, step: u64, m: &Measures, cap: Option<u64>) -> u64 {
        let mut total = step;
        for (k, st) in self.built.stages.iter().enumerate().skip(self.state.stage) {
            let from = if k == self.state.stage {
                self.state.stage_start
            } else {
                total
            };
            let by_time = st.stop.time.map(|t| ceil_steps(t, self.dt));
            let by_steps = st.stop.steps.or(by_time);
            let by_strain = match (st.stop.strain, &st.action) {
                (Some(e), Action::MoveWall { velocity, .. } | Action::Unload { velocity, .. })
                    if m.height.is_finite() =>
                {
                    let dh = (self.state.h0.unwrap_or(m.height) * (e - self.strain(m, false)).abs()).abs();
                    let v = velocity.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-30);
                    Some(step.saturating_sub(from) + (dh / v / self.dt) as u64)
                }
                _ => None,
            };
            let est = by_steps
                .or(by_strain)
                .or(st.stop.max_steps)
                .unwrap_or(10_000)
                .max(st.stop.min_steps);
            total = (from + est).max(total);
        }
        match cap {
            Some(c) if self.built.stages.is_empty() || c < total => c,
            _ => total,
        }
    }

    /// Keeps the current state as the replay point of the runaway diagnosis.
    fn keep_good(&mut self) -> anyhow::Result<()> {
        self.last_good = Some(self.backend.export_state()?);
        Ok(())
    }

    fn runaway(&self, m: &Measures) -> Option<String> {
        let max_speed = self
            .built
            .settings
            .max_speed
            .unwrap_or(0.25 * self.built.scene.mean_segment() as f64 / self.dt);
        if let Some(i) = m.non_finite {
            return Some(format!(
                "node {} has a non-finite position, velocity or force",
                self.describe_node(i)
            ));
        }
        if m.fastest.1 > max_speed {
            return Some(format!(
                "node {} moves at {:.3e} > max_speed {:.3e} (a quarter of the mean segment per step, or [simulation] max_speed)",
                self.describe_node(m.fastest.0),
                m.fastest.1,
                max_speed
            ));
        }
        if let Some(k) = self.built.settings.max_kinetic_energy {
            if !(m.energies.kinetic <= k) {
                return Some(format!(
                    "kinetic energy {:.3e} > max_kinetic_energy {k:.3e}; fastest node {}",
                    m.energies.kinetic,
                    self.describe_node(m.fastest.0)
                ));
            }
        }
        None
    }

    fn describe_node(&self, i: u32) -> String {
        self.backend.describe_point(i)
    }

    /// Replays from the last good state one step at a time to name the first bad step and node.
    fn diagnose(&mut self, detected_at: u64, first: String) -> anyhow::Error {
        let Some(good) = self.last_good.clone() else {
            return anyhow::anyhow!("runaway detected at step {detected_at}: {first}");
        };
        if self.backend.import_state(&good).is_err() {
            return anyhow::anyhow!("runaway detected at step {detected_at}: {first}");
        }
        let mut step = good.steps;
        while step < detected_at {
            if self.backend.step(1).is_err() {
                break;
            }
            step += 1;
            let Ok((_, _, _, m)) = self.sample() else {
                break;
            };
            if let Some(why) = self.runaway(&m) {
                return anyhow::anyhow!(
                    "the run stopped: NaN or runaway motion began at step {step} (t = {:.6e}): {why}; kinetic energy {:.3e}",
                    step as f64 * self.dt,
                    m.energies.kinetic
                );
            }
        }
        anyhow::anyhow!("the run stopped: NaN or runaway motion detected at step {detected_at}: {first}")
    }

    /// The observers' view of a sample taken at `step`.
    fn observe_ctx<'a>(
        &'a mut self,
        step: u64,
        stage: &'a str,
        nodes: &'a [NodeState],
        bodies: &'a [BodyState],
        m: &'a Measures,
        strain: f64,
    ) -> ObserveCtx<'a> {
        ObserveCtx {
            step,
            time: step as f64 * self.dt,
            stage,
            built: &self.built,
            nodes,
            bodies,
            m,
            strain,
            state: &self.state,
            backend: &mut *self.backend,
        }
    }

    /// Runs until every stage is done or `cap` steps (absolute) are reached.
    pub fn run(
        &mut self,
        cap: Option<u64>,
        observers: &mut [&mut dyn Observer],
        progress: &mut dyn ProgressSink,
    ) -> anyhow::Result<RunEnd> {
        let ce = self.built.settings.check_every;
        let cap = cap.or(self.built.settings.max_steps);
        anyhow::ensure!(
            !self.built.stages.is_empty() || cap.is_some(),
            "the scenario has no [[stages]]: give --steps N (or [simulation] max_steps) to run it freely"
        );
        let keep_every = 10 * ce;
        let mut step = self.backend.steps_done();
        if self.last_good.is_none() {
            self.keep_good()?;
        }
        if step == 0 {
            let (nodes, bodies, _c, m) = self.sample()?;
            let stage_name = self.stage_name().to_string();
            let mut ctx = self.observe_ctx(step, &stage_name, &nodes, &bodies, &m, 0.0);
            for o in observers.iter_mut() {
                o.observe(&mut ctx)?;
            }
        }
        let end = loop {
            if self.state.finished {
                break RunEnd::Done;
            }
            if cap.is_some_and(|c| step >= c) {
                break RunEnd::Cap;
            }
            let mut next = (step / ce + 1) * ce;
            for e in [self.state.stage_end, self.state.stage_cap, cap].into_iter().flatten() {
                if e > step {
                    next = next.min(e);
                }
            }
            for o in observers.iter() {
                next = next.min(o.next_due(step));
            }
            let due: Vec<bool> = observers.iter().map(|o| o.next_due(step) <= next).collect();
            let mut left = next - step;
            while left > 0 {
                let n = left.min(u32::MAX as u64) as u32;
                self.backend.step(n)?;
                left -= n as u64;
            }
            step = next;
            let (nodes, bodies, _contacts, m) = self.sample()?;
            if let Some(why) = self.runaway(&m) {
                return Err(self.diagnose(step, why));
            }
            let stage_name = self.stage_name().to_string();
            let is_check =
                step.is_multiple_of(ce) || Some(step) == self.state.stage_end || Some(step) == self.state.stage_cap;
            let moved = is_check && self.check(step, &m, progress)?;
            if moved || step.is_multiple_of(keep_every) {
                self.keep_good()?;
            }
            let strain = self.strain(&m, false);
            let est = self.estimate_total(step, &m, cap);
            let mut ctx = self.observe_ctx(step, &stage_name, &nodes, &bodies, &m, strain);
            for (o, d) in observers.iter_mut().zip(&due) {
                if *d {
                    o.observe(&mut ctx)?;
                }
            }
            if moved {
                for o in observers.iter_mut() {
                    o.stage_done(&mut ctx, &stage_name)?;
                }
            }
            progress.update(step, est, &ctx);
            if moved {
                progress.message(&format!(
                    "step {step}: stage \"{stage_name}\" done → \"{}\"",
                    self.stage_name()
                ));
            }
        };
        let (nodes, bodies, _c, m) = self.sample()?;
        let stage_name = self.stage_name().to_string();
        let strain = self.strain(&m, false);
        let mut ctx = self.observe_ctx(step, &stage_name, &nodes, &bodies, &m, strain);
        for o in observers.iter_mut() {
            o.finish(&mut ctx)?;
        }
        Ok(end)
    }
}
