//! The seam every kind of particle implements, so that one driver (`run::Driver`: stages, stop
//! conditions, servo, runaway stop, observers, checkpoints), `softdem compare` and sweeps are
//! written once. A kind owns its stepper (CPU twin or GPU) and turns what the driver decides
//! ([`Controls`]) into its own boundary conditions; the driver sees only measures
//! ([`Sample`]), checkpoint bytes (`SavedState`) and observables.
//!
//! Kinds today: [`spd::SpdKind`] (SPD cells on a `Backend`), [`modal::ModalKind`] (modal bodies
//! alone), [`coupled`] (SPD cells + modal bodies: a coupling is a kind of its own) and
//! [`spheres::SphereKind`] (3D spheres; docs/architecture.md).

pub mod coupled;
pub mod modal;
pub mod spd;
pub mod spheres;

use crate::backend::{ContactSnapshot, SavedState};
use crate::modal::layout::ModalState;
use crate::modal::stepper::Packed;
use crate::model::{BodyState, LinkState, NodeState};
use crate::run::measure::Measures;
use crate::scenario::Built;
use bytemuck::Pod;

/// What the driver imposes at a given step: recomputed at each stage change and servo update.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Controls {
    /// Body force per unit mass on every free particle ((x, y, 0) for 2D kinds).
    pub gravity: [f64; 3],
    /// Forces that outlive their stage (`persist = true`), per point.
    pub forces: Vec<(u32, [f64; 2])>,
    /// The current stage's force on a set of points (`persist = false`).
    pub stage_force: Option<(Vec<u32>, [f64; 2])>,
    /// The wall the current stage moves (an id of `Built::geometry.walls`) and its velocity
    /// ((x, y, 0) for 2D kinds).
    pub wall: Option<(u32, [f64; 3])>,
    /// The current stage's confining stress on a membrane and the step the stage began at
    /// (`[spheres.membrane]`; the kind ramps σ_c from its value then).
    pub confining: Option<(crate::scenario::stages::Confining, u64)>,
}

/// One read-back state and what the driver measures on it. `nodes`, `bodies` and `contacts` are
/// the SPD points (empty for kinds without them).
#[derive(Clone, Debug, Default)]
pub struct Sample {
    pub nodes: Vec<NodeState>,
    pub bodies: Vec<BodyState>,
    pub contacts: ContactSnapshot,
    pub measures: Measures,
}

/// A kind of particle as the driver steps it.
pub trait Kind {
    /// Human-readable name ("cpu", "gpu: <adapter>", "modal cpu", …).
    fn name(&self) -> String;
    /// Advances `steps` time steps (lists rebuilt as the kind needs).
    fn step(&mut self, steps: u32) -> anyhow::Result<()>;
    /// Steps done since the start.
    fn steps_done(&self) -> u64;
    /// Bytes of device (GPU) memory held; 0 on the CPU.
    fn device_bytes(&self) -> u64 {
        0
    }
    /// Imposes gravity, forces and the moving wall's velocity from now on.
    fn apply(&mut self, controls: &Controls) -> anyhow::Result<()>;
    /// Reads the state back and measures it (walls' positions and forces, sample size, stress,
    /// energies, the fastest point, non-finite values).
    fn sample(&mut self, built: &Built) -> anyhow::Result<Sample>;
    /// Names point `i` of `Measures::fastest` / `non_finite` in a message.
    fn describe_point(&self, i: u32) -> String;
    /// Everything needed to continue the run bit for bit (the checkpoint's content).
    fn export_state(&mut self) -> anyhow::Result<SavedState>;
    /// Restores a state from `export_state` of the same kind built from the same scenario.
    fn import_state(&mut self, saved: &SavedState) -> anyhow::Result<()>;
    /// Cohesive links of the SPD points (series, breaks); none for other kinds.
    fn read_links(&mut self) -> anyhow::Result<Vec<LinkState>> {
        Ok(vec![])
    }
    /// Modal bodies' states (modal series, outlines); none for kinds without them.
    fn modal_states(&mut self) -> anyhow::Result<Vec<ModalState>> {
        Ok(vec![])
    }
    /// Force on each modal wall.
    fn modal_wall_forces(&mut self) -> anyhow::Result<Vec<[f32; 2]>> {
        Ok(vec![])
    }
    /// Modal bodies' current outlines (snapshots, frames).
    fn modal_outlines(&mut self) -> anyhow::Result<Vec<crate::output::modal::Outline>> {
        Ok(vec![])
    }
    /// The bead bodies' bond source at the current step (`[spheres.beads]` outputs); none
    /// for kinds without bead bodies.
    fn beads(&mut self) -> anyhow::Result<Option<std::rc::Rc<crate::beads::BeadForces>>> {
        Ok(None)
    }
    /// The membrane's confining stress σ_c now (`[spheres.membrane]` outputs); none without one.
    fn confining_pressure(&self) -> Option<f64> {
        None
    }
    /// The spheres' state at the current step (sphere outputs); none for 2D kinds.
    fn spheres(&mut self) -> anyhow::Result<Option<std::rc::Rc<crate::spheres::backend::SphereSnapshot>>> {
        Ok(None)
    }
}

/// Little-endian writer of a kind's checkpoint bytes (`SavedState::kind`): `Pod` arrays with
/// their lengths, each padded to 8 bytes.
#[derive(Default)]
pub struct KindBytes(pub Vec<u8>);

impl KindBytes {
    /// A kind's bytes, begun with its tag (read back by [`KindReader::tagged`]).
    pub fn tagged(tag: u64) -> KindBytes {
        let mut b = KindBytes::default();
        b.u64(tag);
        b
    }
    pub fn u64(&mut self, x: u64) -> &mut Self {
        self.0.extend_from_slice(&x.to_le_bytes());
        self
    }
    pub fn array<T: Pod>(&mut self, v: &[T]) -> &mut Self {
        self.u64(v.len() as u64);
        self.0.extend_from_slice(bytemuck::cast_slice(v));
        while !self.0.len().is_multiple_of(8) {
            self.0.push(0);
        }
        self
    }
}

/// Reader of [`KindBytes`].
pub struct KindReader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> KindReader<'a> {
    pub fn new(b: &'a [u8]) -> KindReader<'a> {
        KindReader { b, at: 0 }
    }
    /// A reader of a kind's bytes after their tag, refusing bytes of another kind (or none): "the
    /// checkpoint is not of {what}".
    pub fn tagged(b: &'a [u8], tag: u64, what: &str) -> anyhow::Result<KindReader<'a>> {
        let mut r = KindReader::new(b);
        anyhow::ensure!(!b.is_empty() && r.u64()? == tag, "the checkpoint is not of {what}");
        Ok(r)
    }
    pub fn u64(&mut self) -> anyhow::Result<u64> {
        let s = self
            .b
            .get(self.at..self.at + 8)
            .ok_or_else(|| anyhow::anyhow!("the checkpoint's kind state is truncated"))?;
        self.at += 8;
        Ok(u64::from_le_bytes(s.try_into().unwrap()))
    }
    pub fn array<T: Pod>(&mut self) -> anyhow::Result<Vec<T>> {
        let n = self.u64()? as usize;
        let len = n
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| anyhow::anyhow!("bad array length in the checkpoint's kind state"))?;
        let s = self
            .b
            .get(self.at..self.at + len)
            .ok_or_else(|| anyhow::anyhow!("the checkpoint's kind state is truncated"))?;
        self.at += len.div_ceil(8) * 8;
        Ok(bytemuck::pod_collect_to_vec(s))
    }
    /// An array of exactly `n` records (named `what` in the error).
    pub fn exact<T: Pod>(&mut self, n: usize, what: &str) -> anyhow::Result<Vec<T>> {
        let v: Vec<T> = self.array()?;
        anyhow::ensure!(v.len() == n, "the checkpoint has {} {what}, this scenario {n}", v.len());
        Ok(v)
    }
}

/// Rigid-body kinetic energy ½ M |V|² + ½ I ω² summed over modal bodies, plus the fastest body
/// and the first non-finite one (the driver's `Measures` of modal bodies).
pub fn modal_measures(p: &Packed, states: &[ModalState], m: &mut Measures) {
    for (b, s) in states.iter().enumerate() {
        let br = &p.bodies[b];
        let v = (s.v[0] as f64).hypot(s.v[1] as f64);
        m.energies.kinetic += 0.5 * br.mass as f64 * v * v + 0.5 * br.inertia as f64 * (s.omega as f64).powi(2);
        let finite = s.x_hi.iter().chain(&s.x_lo).chain(&s.v).all(|x| x.is_finite())
            && s.theta.is_finite()
            && s.omega.is_finite()
            && s.eps.iter().chain(&s.eps_dot).all(|x| x.is_finite());
        if !finite && m.non_finite.is_none() {
            m.non_finite = Some(b as u32);
        }
    }
}
