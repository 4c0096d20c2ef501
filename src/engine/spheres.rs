//! 3D spheres as a kind (`spheres::backend::SphereBackend` on the CPU twin or the GPU). The
//! driver's controls become: gravity (a triple) on every sphere, and a stage's velocity on a
//! `[[spheres.walls]]` wall (the others keep the file's velocity; a servo wall keeps its own
//! law). A wall integrates its own position, so a new velocity never makes it jump.
//! Measures: the sample walls' positions and forces, the height H between top and bottom
//! (vertical axis z), σ_zz on the top wall over the cross-section, σ_xx on the right wall,
//! e = V/V_s − 1, energies, contacts and the fastest sphere (`spheres::observables`).

use super::{Controls, Kind, KindBytes, KindReader, Sample};
use crate::backend::SavedState;
use crate::beads::{attach, BeadForces, Bond};
use crate::membrane::attach as membrane_attach;
use crate::run::measure::Measures;
use crate::scenario::spheres::SphereBuilt;
use crate::scenario::Built;
use crate::spheres::backend::{SphereBackend, SphereSaved, SphereSnapshot};
use crate::spheres::contact::ContactHistory;
use crate::spheres::observables::{sample_box, solid_volume, speed, wall_stress};
use crate::spheres::precision::df3_value;
use crate::spheres::{PlaneWall, WALL_PLANE, WALL_SERVO};
use std::rc::Rc;

/// Tag of a sphere checkpoint (`SavedState::kind`, first word).
const TAG: u64 = 0x5350_4845_5231; // "SPHER1"

pub struct SphereKind<B: SphereBackend> {
    pub backend: B,
    pub built: Rc<SphereBuilt>,
    /// The last read-back and the step it was taken at (outputs reuse the driver's sample).
    last: Option<(u64, Rc<SphereSnapshot>)>,
    /// The same for the bead source (`[spheres.beads]`).
    last_beads: Option<(u64, Rc<BeadForces>)>,
    /// The membrane's confining stress σ_c now and the stage ramp it follows.
    sigma: f64,
    ramp: Option<Ramp>,
}

/// σ_c of a stage (`stages::Confining`): linear from `from` at step `start` to `to` over `time`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ramp {
    from: f64,
    to: f64,
    time: f64,
    start: u64,
}

impl Ramp {
    /// σ_c for the step that follows `done` steps (the step's force evaluations see it).
    fn at(&self, done: u64, dt: f64) -> f64 {
        if self.time <= 0.0 {
            return self.to;
        }
        let k = done.saturating_sub(self.start) + 1;
        self.from + (self.to - self.from) * (k as f64 * dt / self.time).min(1.0)
    }
}

impl<B: SphereBackend> SphereKind<B> {
    pub fn new(backend: B, built: Rc<SphereBuilt>) -> SphereKind<B> {
        SphereKind {
            sigma: built.membrane.as_ref().map_or(0.0, |m| m.sigma_c),
            backend,
            built,
            last: None,
            last_beads: None,
            ramp: None,
        }
    }

    /// Follows the stage's σ_c ramp before a step: the membrane's σ and, where the top platen is
    /// a servo wall, its target (σ_p = σ_c).
    fn follow_ramp(&mut self) -> anyhow::Result<()> {
        let (Some(r), Some(mb)) = (self.ramp, self.built.membrane.clone()) else {
            return Ok(());
        };
        let sigma = r.at(self.backend.steps_done(), self.built.params.dt as f64);
        if sigma == self.sigma {
            return Ok(());
        }
        self.sigma = sigma;
        membrane_attach::set_sigma(self.backend.cpu(), None, sigma)?;
        if let Some((_, sys)) = self.backend.gpu() {
            membrane_attach::set_sigma(None, Some(sys), sigma)?;
        }
        if self.built.walls[mb.top as usize].kind != WALL_SERVO {
            return Ok(());
        }
        let mut walls = self.backend.walls()?;
        let top = &mut walls[mb.top as usize];
        if top.kind == WALL_SERVO {
            top.target_stress = sigma as f32;
            self.backend.set_walls(&walls)?;
        }
        Ok(())
    }

    /// The bead source at the current step (read back once per step); None without bead bodies.
    pub fn bead_state(&mut self) -> anyhow::Result<Option<Rc<BeadForces>>> {
        if self.built.beads.is_none() {
            return Ok(None);
        }
        let step = self.backend.steps_done();
        if let Some((s, b)) = &self.last_beads {
            if *s == step {
                return Ok(Some(b.clone()));
            }
        }
        let read = if let Some(sys) = self.backend.cpu() {
            attach::read_cpu(sys)
        } else if let Some((ctx, sys)) = self.backend.gpu() {
            attach::read_gpu(ctx, sys)
        } else {
            None
        };
        let b = Rc::new(read.ok_or_else(|| anyhow::anyhow!("a bead scenario without its bond source"))?);
        self.last_beads = Some((step, b.clone()));
        Ok(Some(b))
    }

    /// The state at the current step (read back once per step).
    pub fn snapshot(&mut self) -> anyhow::Result<Rc<SphereSnapshot>> {
        let step = self.backend.steps_done();
        if let Some((s, snap)) = &self.last {
            if *s == step {
                return Ok(snap.clone());
            }
        }
        let snap = Rc::new(self.backend.read()?);
        self.last = Some((step, snap.clone()));
        Ok(snap)
    }
}

/// The driver's measures of a sphere sample.
pub fn sphere_measures(sb: &SphereBuilt, s: &SphereSnapshot) -> Measures {
    let walls = s
        .walls
        .iter()
        .map(|w| (df3_value(w.point_hi, w.point_lo), w.force.map(|x| x as f64)))
        .collect();
    let b = sample_box(&sb.measure, &s.walls);
    let on = |a: Option<u32>, alt: Option<u32>, area: f64| match a.or(alt) {
        Some(w) => wall_stress(&s.walls[w as usize], area),
        None => f64::NAN,
    };
    let solid = solid_volume(s);
    let mut m = Measures {
        walls,
        height: b.height,
        width: b.width_x,
        stress_yy: on(sb.measure.top, sb.measure.bottom, b.area),
        stress_xx: on(sb.measure.right, sb.measure.left, b.height * b.width_y),
        particle_area: solid,
        void_ratio: b.volume / solid - 1.0,
        contacts: s.contacts.len(),
        ..Default::default()
    };
    m.energies.kinetic = s
        .states
        .iter()
        .map(|st| 0.5 * st.mass as f64 * speed(st.vel).powi(2) + 0.5 * st.inertia as f64 * speed(st.omega).powi(2))
        .sum();
    m.energies.contact = s.contact_energy();
    for (i, st) in s.states.iter().enumerate() {
        let v = speed(st.vel);
        if v > m.fastest.1 {
            m.fastest = (i as u32, v);
        }
        let finite = st.pos_hi.iter().chain(&st.vel).chain(&st.omega).all(|x| x.is_finite())
            && s.forces[i].force.iter().all(|x| x.is_finite());
        if !finite && m.non_finite.is_none() {
            m.non_finite = Some(i as u32);
        }
    }
    m
}

/// Walls under `c`: the file's velocities, the stage's wall at its velocity; servo walls keep
/// the velocity their law gives them.
pub fn walls_under(current: &[PlaneWall], base: &[PlaneWall], c: &Controls) -> Vec<PlaneWall> {
    current
        .iter()
        .zip(base)
        .enumerate()
        .map(|(i, (w, b))| {
            if w.kind == WALL_SERVO {
                return *w;
            }
            let velocity = match c.wall {
                Some((id, v)) if id as usize == i => v.map(|x| x as f32),
                _ => b.velocity,
            };
            PlaneWall { velocity, ..*w }
        })
        .collect()
}

impl<B: SphereBackend> Kind for SphereKind<B> {
    fn name(&self) -> String {
        format!("{} (spheres)", self.backend.name())
    }
    fn step(&mut self, steps: u32) -> anyhow::Result<()> {
        let Some(mb) = self.built.membrane.clone() else {
            return self.backend.step(steps);
        };
        if let Some((_, sys)) = self.backend.gpu() {
            if membrane_attach::has_gpu_rims(sys) {
                // The device holds the rims (`membrane::gpu_rims`): no host write per step; while
                // σ_c ramps it is set on the host before each step's evaluations.
                let mut left = steps;
                while left > 0 {
                    self.follow_ramp()?;
                    let ramping = self.ramp.is_some_and(|r| self.sigma != r.to);
                    let n = if ramping { 1 } else { left };
                    self.backend.step(n)?;
                    left -= n;
                }
                return Ok(());
            }
        }
        // A membrane's rims follow their platens after every step.
        let x0: Vec<[f64; 3]> = mb
            .pins
            .iter()
            .map(|&(s, _)| self.built.states[s as usize].position())
            .collect();
        let w0: Vec<[f64; 3]> = self
            .built
            .walls
            .iter()
            .map(|w| df3_value(w.point_hi, w.point_lo))
            .collect();
        for _ in 0..steps {
            self.follow_ramp()?;
            self.backend.step(1)?;
            if let Some(sys) = self.backend.cpu() {
                membrane_attach::apply_pins(sys, &mb.pins, &x0, &w0);
            }
        }
        Ok(())
    }
    fn steps_done(&self) -> u64 {
        self.backend.steps_done()
    }
    fn device_bytes(&self) -> u64 {
        self.backend.device_bytes()
    }
    fn apply(&mut self, c: &Controls) -> anyhow::Result<()> {
        anyhow::ensure!(
            c.forces.is_empty() && c.stage_force.is_none(),
            "force stages act on SPD nodes; a sphere scene has none"
        );
        let g = c.gravity.map(|x| x as f32);
        if g != self.backend.gravity() {
            self.backend.set_gravity(g)?;
        }
        let current = self.backend.walls()?;
        let mut walls = walls_under(&current, &self.built.walls, c);
        if let Some(mb) = &self.built.membrane {
            // A servo top platen becomes a plane wall, for good, when a stage moves it (the
            // shear after the servo-held confinement, `membrane::triaxial::start_shear`).
            if let Some((id, v)) = c.wall {
                let w = &mut walls[id as usize];
                if id == mb.top && w.kind == WALL_SERVO {
                    w.kind = WALL_PLANE;
                    w.velocity = v.map(|x| x as f32);
                }
            }
            if let Some((k, start)) = c.confining {
                let same = self
                    .ramp
                    .is_some_and(|r| r.to == k.target && r.time == k.ramp_time && r.start == start);
                if !same {
                    self.ramp = Some(Ramp {
                        from: self.sigma,
                        to: k.target,
                        time: k.ramp_time,
                        start,
                    });
                }
            } else {
                // A stage without the key leaves σ_c where it is (an unfinished ramp stops).
                self.ramp = None;
            }
        }
        if walls != current {
            self.backend.set_walls(&walls)?;
            self.last = None;
        }
        Ok(())
    }
    fn sample(&mut self, _built: &Built) -> anyhow::Result<Sample> {
        let snap = self.snapshot()?;
        Ok(Sample {
            measures: sphere_measures(&self.built, &snap),
            ..Default::default()
        })
    }
    fn describe_point(&self, i: u32) -> String {
        self.built.describe(i)
    }
    fn export_state(&mut self) -> anyhow::Result<SavedState> {
        let s = self.backend.export()?;
        let mut out = KindBytes::tagged(TAG);
        out.array(&s.states)
            .array(&s.forces)
            .array(&s.walls)
            .array(&s.gravity)
            .array(&s.keys)
            .array(&s.history)
            .array(&s.wall_history);
        // Bead bodies: the bonds' break records, the last evaluation's bond and plane forces
        // and the evaluation count (the planes' clock).
        if let Some(b) = self.bead_state()? {
            out.array(&b.bonds.bonds)
                .array(&b.bond_force)
                .array(&b.plane_force)
                .u64(b.evaluations as u64);
        }
        if self.built.membrane.is_some() {
            let saved = if let Some(sys) = self.backend.cpu() {
                membrane_attach::read_cpu(sys).map(|m| membrane_attach::saved_history(&m))
            } else if let Some((ctx, sys)) = self.backend.gpu() {
                membrane_attach::saved_history_gpu(ctx, sys)
            } else {
                None
            };
            let (keys, hist) =
                saved.ok_or_else(|| anyhow::anyhow!("a membrane scenario without its membrane source"))?;
            out.array(&keys).array(&hist);
            // σ_c now and its ramp (from, to, time; start, 1 if any).
            let r = self.ramp.unwrap_or(Ramp {
                from: 0.0,
                to: 0.0,
                time: 0.0,
                start: 0,
            });
            out.array(&[self.sigma, r.from, r.to, r.time])
                .u64(r.start)
                .u64(self.ramp.is_some() as u64);
        }
        Ok(SavedState {
            steps: s.steps,
            kind: out.0,
            ..Default::default()
        })
    }
    fn import_state(&mut self, saved: &SavedState) -> anyhow::Result<()> {
        let mut r = KindReader::tagged(&saved.kind, TAG, "a sphere run")?;
        let n = self.built.states.len();
        let states = r.exact(n, "spheres")?;
        let forces = r.exact(n, "sphere forces")?;
        let walls = r.exact(self.built.walls.len(), "walls")?;
        let g: Vec<f32> = r.exact(3, "gravity components")?;
        let keys: Vec<[u32; 2]> = r.array()?;
        let history = r.exact(keys.len(), "pair histories")?;
        let wall_history = r.exact(n * self.built.walls.len(), "wall-contact histories")?;
        anyhow::ensure!(
            keys.iter().all(|k| k[0] < k[1] && (k[1] as usize) < n) && keys.windows(2).all(|w| w[0] < w[1]),
            "the checkpoint's contact keys are not sorted pairs i < j < {n}"
        );
        let beads = match &self.built.beads {
            None => None,
            Some(bb) => {
                let mut b = bb.forces.clone();
                b.bonds.bonds = r.exact::<Bond>(bb.forces.bonds.len(), "bonds")?;
                b.bond_force = r.exact(bb.forces.bonds.len(), "bond forces")?;
                b.plane_force = r.exact(bb.forces.planes.len(), "bead-plane forces")?;
                b.evaluations = u32::try_from(r.u64()?)?;
                Some(b)
            }
        };
        // The membrane's contact history goes in before the stepper's restore, whose rebuild
        // carries it (`membrane::attach`).
        if self.built.membrane.is_some() {
            let mkeys: Vec<[u32; 2]> = r.array()?;
            let mhist: Vec<ContactHistory> = r.exact(mkeys.len(), "membrane contact histories")?;
            let sig: Vec<f64> = r.exact(4, "confining stress and ramp")?;
            let (start, on) = (r.u64()?, r.u64()?);
            self.sigma = sig[0];
            self.ramp = (on != 0).then_some(Ramp {
                from: sig[1],
                to: sig[2],
                time: sig[3],
                start,
            });
            membrane_attach::set_sigma(self.backend.cpu(), None, self.sigma)?;
            if let Some((_, sys)) = self.backend.gpu() {
                membrane_attach::set_sigma(None, Some(sys), self.sigma)?;
            }
            if let Some(sys) = self.backend.cpu() {
                membrane_attach::restore_cpu(sys, &mkeys, &mhist)?;
            } else if let Some((ctx, sys)) = self.backend.gpu() {
                membrane_attach::restore_gpu(ctx, sys, &mkeys, &mhist)?;
            }
        }
        self.backend.import(&SphereSaved {
            states,
            forces,
            walls,
            gravity: [g[0], g[1], g[2]],
            keys,
            history,
            wall_history,
            steps: saved.steps,
            rebuilds: 0,
        })?;
        if let Some(b) = beads {
            if let Some(sys) = self.backend.cpu() {
                attach::restore_cpu(sys, &b)?;
            } else if let Some((ctx, sys)) = self.backend.gpu() {
                attach::restore_gpu(ctx, sys, &b)?;
            }
        }
        self.last = None;
        self.last_beads = None;
        Ok(())
    }
    fn confining_pressure(&self) -> Option<f64> {
        self.built.membrane.as_ref().map(|_| self.sigma)
    }
    fn spheres(&mut self) -> anyhow::Result<Option<Rc<SphereSnapshot>>> {
        self.snapshot().map(Some)
    }
    fn beads(&mut self) -> anyhow::Result<Option<Rc<BeadForces>>> {
        self.bead_state()
    }
}
