//! The sphere steppers as the sphere kind (`engine::spheres`) drives them: the CPU twin or the
//! GPU, stepped in batches, read back only when the driver samples, with wall velocities and
//! gravity set between batches and the whole state exported and restored for checkpoints.
//!
//! A checkpoint holds the spheres, the forces of the last evaluation (the next step's first
//! half-kick uses them), the walls, the history of every pair with non-zero history (as keys
//! (i, j)) and of every wall contact, and the counters. On restore the candidate list is rebuilt
//! from the restored positions with the history carried by key. The run continues bit for bit:
//! a pair's history is cleared whenever it is apart (`contact::pair_force`), so pairs outside
//! the restored list have none, and every sum runs over pairs in (i, j) order, in which apart
//! pairs add exact zeros, so the moment of a rebuild does not change a result.

use super::cell_list::NeighborList;
use super::contact::ContactHistory;
use super::cpu_stepper::{CpuSpheres, PairOut};
use super::gpu_stepper::GpuSpheres;
use super::state::{SphereForce, SphereState};
use super::wall::PlaneWall;
use crate::gpu::context::GpuContext;

/// One contact of the last force evaluation (pairs in contact only).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SphereContact {
    pub i: u32,
    pub j: u32,
    pub out: PairOut,
}

/// A read-back state: what outputs and measures need.
#[derive(Clone, Debug, Default)]
pub struct SphereSnapshot {
    pub states: Vec<SphereState>,
    pub forces: Vec<SphereForce>,
    pub walls: Vec<PlaneWall>,
    /// Pairs in contact (i < j), in pair order.
    pub contacts: Vec<SphereContact>,
    /// Sphere–wall contacts (sphere, wall, result).
    pub wall_contacts: Vec<SphereContact>,
}

impl SphereSnapshot {
    /// Elastic energy stored in every contact (pairs and walls).
    pub fn contact_energy(&self) -> f64 {
        self.contacts
            .iter()
            .chain(&self.wall_contacts)
            .map(|c| c.out.energy as f64)
            .sum()
    }
}

/// Everything a run continues from (see the module doc).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SphereSaved {
    pub states: Vec<SphereState>,
    pub forces: Vec<SphereForce>,
    pub walls: Vec<PlaneWall>,
    pub gravity: [f32; 3],
    /// Pairs (i < j) with non-zero history, sorted, and their history.
    pub keys: Vec<[u32; 2]>,
    pub history: Vec<ContactHistory>,
    pub wall_history: Vec<ContactHistory>,
    pub steps: u64,
    /// List builds so far (diagnostics; not in checkpoints: a restored run rebuilds at other
    /// steps, with the same results).
    pub rebuilds: u64,
}

impl SphereSaved {
    /// The saved pairs as a candidate list of `n` spheres (the key of the history carry).
    pub fn list(&self, n: usize) -> NeighborList {
        let mut start = vec![0u32; n + 1];
        for k in &self.keys {
            start[k[0] as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        NeighborList {
            start,
            partner: self.keys.iter().map(|k| k[1]).collect(),
        }
    }
}

/// Pairs of `list` with non-zero history, as keys.
fn saved_pairs(list: &NeighborList, history: &[ContactHistory]) -> (Vec<[u32; 2]>, Vec<ContactHistory>) {
    let mut keys = vec![];
    let mut kept = vec![];
    for i in 0..list.start.len().saturating_sub(1) {
        for k in list.start[i]..list.start[i + 1] {
            let h = history[k as usize];
            if h != ContactHistory::default() {
                keys.push([i as u32, list.partner[k as usize]]);
                kept.push(h);
            }
        }
    }
    (keys, kept)
}

/// Contacts of a read-back: pairs with a positive overlap's force, in pair order, then walls.
fn contacts(
    list: &NeighborList,
    pair_out: &[PairOut],
    wall_out: &[PairOut],
    n_walls: usize,
) -> (Vec<SphereContact>, Vec<SphereContact>) {
    let mut pairs = vec![];
    for i in 0..list.start.len().saturating_sub(1) {
        for k in list.start[i]..list.start[i + 1] {
            let out = pair_out[k as usize];
            if out != PairOut::default() {
                pairs.push(SphereContact {
                    i: i as u32,
                    j: list.partner[k as usize],
                    out,
                });
            }
        }
    }
    let walls = wall_out
        .iter()
        .enumerate()
        .filter(|(_, o)| **o != PairOut::default())
        .map(|(k, o)| SphereContact {
            i: (k / n_walls.max(1)) as u32,
            j: (k % n_walls.max(1)) as u32,
            out: *o,
        })
        .collect();
    (pairs, walls)
}

/// A sphere stepper as the sphere kind drives it.
pub trait SphereBackend {
    fn name(&self) -> String;
    fn step(&mut self, steps: u32) -> anyhow::Result<()>;
    fn steps_done(&self) -> u64;
    fn device_bytes(&self) -> u64 {
        0
    }
    fn read(&mut self) -> anyhow::Result<SphereSnapshot>;
    fn walls(&mut self) -> anyhow::Result<Vec<PlaneWall>>;
    /// Replaces the walls (the kind changes velocities only).
    fn set_walls(&mut self, walls: &[PlaneWall]) -> anyhow::Result<()>;
    fn gravity(&self) -> [f32; 3];
    fn set_gravity(&mut self, g: [f32; 3]) -> anyhow::Result<()>;
    fn export(&mut self) -> anyhow::Result<SphereSaved>;
    fn import(&mut self, saved: &SphereSaved) -> anyhow::Result<()>;
    /// The CPU stepper, for the state of its extra force sources (`beads::attach`).
    fn cpu(&mut self) -> Option<&mut CpuSpheres> {
        None
    }
    /// The GPU stepper and its context, for the same.
    fn gpu(&self) -> Option<(&GpuContext, &GpuSpheres)> {
        None
    }
}

/// The CPU twin (rayon).
pub struct CpuSphereBackend(pub CpuSpheres);

impl SphereBackend for CpuSphereBackend {
    fn name(&self) -> String {
        format!("cpu ({} threads)", rayon::current_num_threads())
    }
    fn step(&mut self, steps: u32) -> anyhow::Result<()> {
        self.0.steps(steps as u64);
        Ok(())
    }
    fn steps_done(&self) -> u64 {
        self.0.steps
    }
    fn read(&mut self) -> anyhow::Result<SphereSnapshot> {
        let s = &self.0;
        let (contacts, wall_contacts) = contacts(&s.list, &s.pair_out, &s.wall_out, s.walls.len());
        Ok(SphereSnapshot {
            states: s.states.clone(),
            forces: s.forces.clone(),
            walls: s.walls.clone(),
            contacts,
            wall_contacts,
        })
    }
    fn walls(&mut self) -> anyhow::Result<Vec<PlaneWall>> {
        Ok(self.0.walls.clone())
    }
    fn set_walls(&mut self, walls: &[PlaneWall]) -> anyhow::Result<()> {
        anyhow::ensure!(walls.len() == self.0.walls.len(), "wall count changed");
        self.0.walls = walls.to_vec();
        Ok(())
    }
    fn gravity(&self) -> [f32; 3] {
        self.0.params.gravity
    }
    fn set_gravity(&mut self, g: [f32; 3]) -> anyhow::Result<()> {
        self.0.params.gravity = g;
        Ok(())
    }
    fn export(&mut self) -> anyhow::Result<SphereSaved> {
        let s = &self.0;
        let (keys, history) = saved_pairs(&s.list, &s.history);
        Ok(SphereSaved {
            states: s.states.clone(),
            forces: s.forces.clone(),
            walls: s.walls.clone(),
            gravity: s.params.gravity,
            keys,
            history,
            wall_history: s.wall_history.clone(),
            steps: s.steps,
            rebuilds: s.rebuilds,
        })
    }
    fn import(&mut self, saved: &SphereSaved) -> anyhow::Result<()> {
        let s = &mut self.0;
        let n = s.states.len();
        anyhow::ensure!(
            saved.states.len() == n,
            "the checkpoint has {} spheres, this scenario {n}",
            saved.states.len()
        );
        anyhow::ensure!(
            saved.walls.len() == s.walls.len(),
            "the checkpoint has {} walls, this scenario {}",
            saved.walls.len(),
            s.walls.len()
        );
        s.states = saved.states.clone();
        s.forces = saved.forces.clone();
        s.walls = saved.walls.clone();
        s.params.gravity = saved.gravity;
        s.wall_history = saved.wall_history.clone();
        s.list = saved.list(n);
        s.history = saved.history.clone();
        s.rebuild();
        s.steps = saved.steps;
        s.rebuilds = saved.rebuilds;
        Ok(())
    }
    fn cpu(&mut self) -> Option<&mut CpuSpheres> {
        Some(&mut self.0)
    }
}

/// The GPU stepper with its context.
pub struct GpuSphereBackend {
    pub ctx: GpuContext,
    pub sys: GpuSpheres,
}

impl SphereBackend for GpuSphereBackend {
    fn name(&self) -> String {
        format!("gpu: {}", self.ctx.info.name)
    }
    fn step(&mut self, steps: u32) -> anyhow::Result<()> {
        self.sys.steps_batched(&self.ctx, steps)
    }
    fn steps_done(&self) -> u64 {
        self.sys.steps
    }
    fn device_bytes(&self) -> u64 {
        (self.sys.bytes_per_sphere() * self.sys.params.n_spheres as f64) as u64
    }
    fn read(&mut self) -> anyhow::Result<SphereSnapshot> {
        let (ctx, s) = (&self.ctx, &self.sys);
        let walls = s.walls(ctx);
        let (contacts, wall_contacts) = contacts(&s.list(ctx), &s.pair_out(ctx), &s.wall_out(ctx), walls.len());
        Ok(SphereSnapshot {
            states: s.states(ctx),
            forces: s.forces(ctx),
            walls,
            contacts,
            wall_contacts,
        })
    }
    fn walls(&mut self) -> anyhow::Result<Vec<PlaneWall>> {
        Ok(self.sys.walls(&self.ctx))
    }
    fn set_walls(&mut self, walls: &[PlaneWall]) -> anyhow::Result<()> {
        anyhow::ensure!(walls.len() == self.sys.params.n_walls as usize, "wall count changed");
        self.sys.set_walls(&self.ctx, walls);
        Ok(())
    }
    fn gravity(&self) -> [f32; 3] {
        self.sys.params.gravity
    }
    fn set_gravity(&mut self, g: [f32; 3]) -> anyhow::Result<()> {
        self.sys.set_gravity(&self.ctx, g);
        Ok(())
    }
    fn export(&mut self) -> anyhow::Result<SphereSaved> {
        let (ctx, s) = (&self.ctx, &self.sys);
        let (keys, history) = saved_pairs(&s.list(ctx), &s.history(ctx));
        Ok(SphereSaved {
            states: s.states(ctx),
            forces: s.forces(ctx),
            walls: s.walls(ctx),
            gravity: s.params.gravity,
            keys,
            history,
            wall_history: s.wall_history(ctx),
            steps: s.steps,
            rebuilds: s.rebuilds,
        })
    }
    fn import(&mut self, saved: &SphereSaved) -> anyhow::Result<()> {
        let n = self.sys.params.n_spheres as usize;
        anyhow::ensure!(
            saved.states.len() == n,
            "the checkpoint has {} spheres, this scenario {n}",
            saved.states.len()
        );
        self.sys.set_gravity(&self.ctx, saved.gravity);
        self.sys.restore(
            &self.ctx,
            &saved.states,
            &saved.forces,
            &saved.walls,
            saved.list(n),
            &saved.history,
            &saved.wall_history,
            saved.steps,
            saved.rebuilds,
        )
    }
    fn gpu(&self) -> Option<(&GpuContext, &GpuSpheres)> {
        Some((&self.ctx, &self.sys))
    }
}
