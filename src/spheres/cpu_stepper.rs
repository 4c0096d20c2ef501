//! CPU stepper of the sphere kind: one step of translational and rotational velocity Verlet
//! (paper eq 1) with gravity, global and local damping, the pair laws of the law table, and
//! moving walls (planes, cylinders, servo planes) with their force and torque. No atomics: each pair's force is written to
//! its own record, then every sphere gathers its pairs in list order and its walls in wall order,
//! so a rerun is bit-identical. Passes, in order (each a function the GPU stepper will mirror):
//!
//!   kick(Δt/2) → drift (spheres, walls) → rebuild the list if some sphere moved > skin/2
//!   (history carried by key) → pair_pass → wall_pass → gather → wall_gather → kick(Δt/2).
//!
//! With MC-stress in the law table (`laws::mc_stress`, paper eq 9–10 and Appendix), the force
//! evaluation has the paper's two passes in front: `normal_pass` (classical f_n of every contact,
//! its l·f terms) and `stress_pass` (tr σ of every sphere, gathered in the same fixed order);
//! `pair_pass` and `wall_pass` then add the correction β ν A_ij P_ij. With MC-strain
//! (`laws::mc_strain`, eq 7–8), `strain_pass` follows `normal_pass` and the laws see the overlap
//! plus the displacements Σ δ_{k→c} of the grains' other contacts.
//!
//! Inside `steps(k)` the arrays may be stored sorted by cell (`cell_order`): pairs are then
//! evaluated with the sphere of lower user index as i (`pair_i`, `pair_j`) and gathered in the
//! partners' user index order, so the bits are those of the user's order, in which every array
//! is between calls.
//!
//! Forces depend on the half-step velocities (dashpots, damping), as in LIGGGHTS.
//! This is a stepper, not a driver: the run loop, stages and outputs belong to the shared
//! driver of issue 22.

/// The active-pair pass of `steps` (a part of this stepper: it reads and writes its arrays).
pub mod active;
/// The per-sphere tail of the active-pair sweep on SIMD lanes (a part of this stepper).
pub mod kick_lanes;
/// The cell order kept between calls of `steps` (a part of this stepper).
pub mod sort_cache;

use super::cell_list::{build_neighbor_list, carry_history, fit_grid, NeighborList};
use super::cell_order::{
    cell_order, gather_by, gather_rows, inverse, move_pairs, oriented_incident, pair_span, relabel_pairs, scatter_by,
    CELL_ORDER_MIN, CELL_ORDER_MIN_STEPS, DEGRADED, SORT_SPAN,
};
/// The pair record, `spheres::contact::PairOut` (also reached by this path).
pub use super::contact::PairOut;
use super::contact::{classical_normal_force, pair_force, sphere_pair_geometry, ContactHistory};
use super::extra_force::{Evaluation, ExtraForces};
use super::pair_lanes::{lane_law, pair_group, PairLaneInputs};
use super::pair_law::LawTable;
use super::precision::df3_add;
use super::state::{SphereForce, SphereParams, SphereState};
use super::wall::{servo_velocity, wall_candidate, wall_geometry, PlaneWall};
use super::wall_reduce::wall_reduce;
use crate::laws::mc_strain::{strain_displacement, young_from_self_pair, MC_STRAIN};
use crate::laws::mc_stress::{mc_stress_force, sphere_volume, stress_trace_term, MC_EXCLUDE_WALLS, MC_INCLUDE_SELF};
use crate::laws::vec3::{add, cross, norm, scale, sub, V3};
use crate::model::lanes::LANES;
use active::{ActivePairs, ACTIVE_MAX_NEAR};
use kick_lanes::{kick_all, KickInputs};
use rayon::prelude::*;
use sort_cache::{Labelling, SortCache};

/// Smallest piece of a pass handed to one rayon task: small systems run each pass in one task
/// (the results do not depend on the split: every item is computed alone).
const PAR_MIN: usize = 512;

/// A sphere system stepped on the CPU.
pub struct CpuSpheres {
    pub params: SphereParams,
    pub states: Vec<SphereState>,
    pub forces: Vec<SphereForce>,
    pub laws: LawTable,
    pub walls: Vec<PlaneWall>,
    /// Candidate pairs (i < j) and, per pair, history and last result.
    pub list: NeighborList,
    pub owner: Vec<u32>,
    pub history: Vec<ContactHistory>,
    pub pair_out: Vec<PairOut>,
    /// Per sphere, its pairs as (pair index << 1 | 1 when the sphere is j), in pair order.
    pub incident_start: Vec<u32>,
    pub incident: Vec<u32>,
    /// Per pair, its i and j (the force of `pair_out` is on i): `owner` and `list.partner` in
    /// the user's order; inside `steps` in cell order (`cell_order`), the sphere of lower user
    /// index and the other. Per sphere, the lowest row among its pairs' (the fused sweep).
    pub pair_i: Vec<u32>,
    pub pair_j: Vec<u32>,
    pub low_owner: Vec<u32>,
    /// Inside `steps`, when the arrays are sorted by cell: storage slot → user index (empty in
    /// the user's order, which is every array's order between calls), and `pair_span` at the
    /// sort. `steps` sorts from `cell_order_min` spheres on (`usize::MAX`: never; the same bits
    /// either way), and only when the user's order is not cell-coherent already: its pairs'
    /// mean label distance (`pair_span`) above `sort_span` cell layers (n / grid_dims[2];
    /// 0: always). A rebuild sorts again when `pair_span` grew past `resort_growth` times its
    /// value at the sort (`cell_order::DEGRADED`; 0: at every rebuild).
    order: Vec<u32>,
    span_at_sort: f64,
    /// The permutation and sorted labelling of the last call, for the next (`sort_cache`).
    sort_cache: SortCache,
    /// Cell orders computed (`steps` entries and re-sorts that did not reuse the last call's).
    pub sorts: u64,
    pub cell_order_min: usize,
    pub sort_span: f64,
    pub resort_growth: f64,
    /// `steps` without MC laws evaluates only the active pairs (`cpu_stepper::active`) until the next
    /// list build when at most this fraction of the pairs is near at the build (1: always, 0:
    /// only without near pairs; the same bits either way).
    pub active_max_near: f64,
    /// Sphere–wall history and result, index s · n_walls + w (zero where the sphere is not a
    /// candidate of the wall).
    pub wall_history: Vec<ContactHistory>,
    pub wall_out: Vec<PairOut>,
    /// The sphere–wall contacts evaluated until the next build: their slots s · n_walls + w
    /// (increasing), and per wall its candidate spheres (in sphere order).
    pub wall_slots: Vec<u32>,
    pub wall_spheres: Vec<Vec<u32>>,
    /// Per sphere, whether it is a candidate of some wall (the gather reads its wall records
    /// only then; the others are all +0).
    pub wall_any: Vec<bool>,
    /// Positions of the spheres and of the wall points at the last list build.
    pub x_ref: Vec<V3>,
    pub wall_ref: Vec<V3>,
    /// MC-stress: whether the law table uses it, the l·f terms of each pair (for i, for j) and
    /// each wall contact, and tr σ of each sphere (eq 9), all of the last force evaluation.
    pub mc: bool,
    pub pair_trace: Vec<[f32; 2]>,
    pub wall_trace: Vec<f32>,
    pub stress_trace: Vec<f32>,
    /// MC-strain (eq 7–8): whether some pair uses it, and Σ_k δ_{k→c} of each pair contact (on
    /// i's side, on j's side) and each wall contact, of the last force evaluation.
    pub strain: bool,
    pub pair_strain: Vec<[f32; 2]>,
    pub wall_strain: Vec<f32>,
    pub rebuilds: u64,
    pub steps: u64,
    /// Whether the pair pass may use SIMD lanes (`pair_lanes`; the same bits either way).
    pub use_lanes: bool,
    /// Force sources attached to the stepper (`extra_force`: bonded beads), called at every
    /// force evaluation, and the summed force and torque per sphere of the attached and lent
    /// sources of the last evaluation (empty when it had none), added in `gather`.
    pub extra: Vec<Box<dyn ExtraForces>>,
    pub extra_force: Vec<SphereForce>,
}

impl CpuSpheres {
    /// The names of the per-sphere, per-pair and wall arrays (states, forces, histories, pair
    /// and wall results, walls) whose bits differ from `other`'s: empty when two runs are the
    /// same to the bit (the determinism and equivalence tests compare runs with it).
    pub fn arrays_differing_in_bits(&self, other: &CpuSpheres) -> Vec<&'static str> {
        fn same<T: bytemuck::Pod>(a: &[T], b: &[T]) -> bool {
            bytemuck::cast_slice::<T, u8>(a) == bytemuck::cast_slice::<T, u8>(b)
        }
        let checks = [
            ("states", same(&self.states, &other.states)),
            ("forces", same(&self.forces, &other.forces)),
            ("histories", same(&self.history, &other.history)),
            ("pair results", same(&self.pair_out, &other.pair_out)),
            ("wall results", same(&self.wall_out, &other.wall_out)),
            ("walls", same(&self.walls, &other.walls)),
        ];
        checks
            .iter()
            .filter(|(_, equal)| !equal)
            .map(|(name, _)| *name)
            .collect()
    }
}

impl CpuSpheres {
    /// A system at rest in its initial forces (computed here, with the history left at zero).
    pub fn new(
        mut params: SphereParams,
        states: Vec<SphereState>,
        laws: LawTable,
        walls: Vec<PlaneWall>,
    ) -> CpuSpheres {
        params.n_spheres = states.len() as u32;
        params.n_walls = walls.len() as u32;
        params.n_materials = laws.n_materials as u32;
        let n = states.len();
        let nw = walls.len();
        let mut sys = CpuSpheres {
            params,
            forces: vec![SphereForce::default(); n],
            walls,
            list: NeighborList::default(),
            owner: Vec::new(),
            history: Vec::new(),
            pair_out: Vec::new(),
            incident_start: Vec::new(),
            incident: Vec::new(),
            pair_i: Vec::new(),
            pair_j: Vec::new(),
            low_owner: Vec::new(),
            order: Vec::new(),
            span_at_sort: 0.0,
            sort_cache: SortCache::default(),
            sorts: 0,
            cell_order_min: CELL_ORDER_MIN,
            sort_span: SORT_SPAN,
            resort_growth: DEGRADED,
            active_max_near: ACTIVE_MAX_NEAR,
            wall_history: vec![ContactHistory::default(); n * nw],
            wall_out: vec![PairOut::default(); n * nw],
            wall_slots: Vec::new(),
            wall_spheres: Vec::new(),
            wall_any: Vec::new(),
            x_ref: Vec::new(),
            wall_ref: Vec::new(),
            mc: laws.has_mc_stress(),
            pair_trace: Vec::new(),
            // MC arrays only with MC in the law table (the passes read them only then).
            wall_trace: vec![0.0; if laws.has_mc_stress() { n * nw } else { 0 }],
            stress_trace: vec![0.0; if laws.has_mc_stress() { n } else { 0 }],
            strain: laws.has_mc_strain(),
            pair_strain: Vec::new(),
            wall_strain: vec![0.0; if laws.has_mc_strain() { n * nw } else { 0 }],
            rebuilds: 0,
            steps: 0,
            use_lanes: true,
            extra: Vec::new(),
            extra_force: Vec::new(),
            states,
            laws,
        };
        sys.rebuild();
        let saved = (sys.history.clone(), sys.wall_history.clone());
        sys.compute_forces();
        (sys.history, sys.wall_history) = saved;
        sys
    }

    /// One time step.
    pub fn step(&mut self) {
        self.step_with(&mut []);
    }

    /// `k` time steps, the same bits as `k` calls of `step`: between two steps the closing
    /// kick of one and the kick + drift (and the spheres' rebuild check) of the next run as one
    /// pass (`kick_pass`), one pass over the spheres per step fewer. Steps one by one while a
    /// force source is attached (its `rebuild` follows the list's). From `cell_order_min`
    /// spheres and `cell_order::CELL_ORDER_MIN_STEPS` steps on, the arrays are sorted by cell for the call and put back in the user's order
    /// at its end (`cell_order`; the same bits); attached sources still see the user's order
    /// (the states mapped out and their forces mapped in at every evaluation). Without MC laws
    /// only the active pairs are evaluated and gathered (`cpu_stepper::active`; the same bits).
    pub fn steps(&mut self, k: u64) {
        if k == 0 {
            return;
        }
        // Cell order for the call (`cell_order`: the same bits).
        let n = self.states.len();
        let sorted = n >= self.cell_order_min
            && k >= CELL_ORDER_MIN_STEPS
            && pair_span(&self.list) > self.sort_span * n as f64 / self.params.grid_dims[2].max(1) as f64;
        if sorted {
            self.enter_cell_order(false);
        }
        if !self.extra.is_empty() {
            (0..k).for_each(|_| self.step());
            if sorted {
                self.leave_cell_order(true);
            }
            return;
        }
        self.drift_half(&mut []);
        let half = 0.5 * self.params.dt;
        // Without MC laws only the active pairs are evaluated (`cpu_stepper::active`, the same bits),
        // where few pairs are near (`ActivePairs::enabled`, decided at each list build).
        let mut active = (!self.mc && !self.strain).then(|| ActivePairs::new(self));
        for q in 0..k {
            let next = (q + 1 < k).then_some(Drift {
                h: half,
                dt: self.params.dt,
                lim: 0.5 * self.params.skin,
            });
            let moved = match &mut active {
                Some(act) if act.enabled => {
                    self.extra_force.clear();
                    wall_pass(self);
                    act.pair_pass(self);
                    let moved = act.gather_kick(self, half, next);
                    wall_gather(self);
                    moved
                }
                _ => self.force_passes(&mut [], true, Some(half), next),
            };
            self.steps += 1;
            if next.is_some() {
                for w in &mut self.walls {
                    w.advance(self.params.dt);
                }
                if moved || self.walls_moved() {
                    if let Some(act) = active.as_mut().filter(|a| a.enabled) {
                        act.flush(self);
                    }
                    self.rebuild();
                    if let Some(act) = &mut active {
                        act.reset(self);
                    }
                }
            }
        }
        match active.as_mut().filter(|a| a.enabled) {
            // The active pairs' histories and results go straight into the user's labels
            // (what `flush` + `write_back` + the move back give, without moving the records).
            Some(act) if sorted => {
                self.leave_cell_order(false);
                act.write_mapped(&mut self.history, &mut self.pair_out, &self.sort_cache.to_sorted);
            }
            Some(act) => {
                act.flush(self);
                act.write_back(self);
            }
            None if sorted => self.leave_cell_order(true),
            None => {}
        }
    }

    /// Sorts every per-sphere and per-pair array by cell on the current grid (key: cell, user
    /// index; `cell_order`), the pair list relabelled with its records. Unless `fresh`, the
    /// permutation and sorted labelling kept from the last call are reused when they belong to
    /// this list (`sort_cache`: then only the records move).
    fn enter_cell_order(&mut self, fresh: bool) {
        debug_assert!(self.order.is_empty());
        let n = self.states.len();
        let user = Labelling::take(self);
        let mut c = std::mem::take(&mut self.sort_cache);
        if fresh || !c.fits(&user.list, n) {
            let order = cell_order(&self.params, &self.states);
            let inv = inverse(&order);
            let (list, to_sorted) = relabel_pairs(&user.list, &inv);
            c = SortCache {
                key: user.list.clone(),
                to_user: inverse(&to_sorted),
                to_sorted,
                order,
                inv,
                ..Default::default()
            };
            self.list = list;
            self.set_incident(&c.order);
            c.span = pair_span(&self.list);
            self.sorts += 1;
        } else if let Some(sorted) = c.sorted.take() {
            sorted.put(self);
        }
        c.user = Some(user);
        c.rebuilds = self.rebuilds;
        self.move_records(&c.order, &c.inv, &c.to_sorted, true, false);
        self.order = c.order.clone();
        self.span_at_sort = c.span;
        self.sort_cache = c;
    }

    /// Every array back in the user's order; the sorted labelling kept for the next call
    /// (`sort_cache`). Without a list build since the entry, the user labelling taken in at
    /// the entry comes back as it was; else the list is relabelled. Without `pair_records`,
    /// `history` and `pair_out` are left for the caller to write in the user's labels.
    fn leave_cell_order(&mut self, pair_records: bool) {
        let order = std::mem::take(&mut self.order);
        let mut c = std::mem::take(&mut self.sort_cache);
        let sorted = Labelling::take(self);
        let unchanged = c.rebuilds == self.rebuilds;
        match c.user.take().filter(|_| unchanged) {
            Some(user) => {
                debug_assert!(c.order == order);
                user.put(self);
            }
            None => {
                let (list, to_user) = relabel_pairs(&sorted.list, &order);
                c.to_sorted = inverse(&to_user);
                c.to_user = to_user;
                c.inv = inverse(&order);
                c.order = order;
                c.span = self.span_at_sort;
                c.key = list.clone();
                self.list = list;
                self.set_incident(&[]);
            }
        }
        self.move_records(&c.inv, &c.order, &c.to_user, pair_records, true);
        c.sorted = Some(sorted);
        self.sort_cache = c;
    }

    /// Moves the per-sphere records (`by`: new label → old label) and the per-pair ones
    /// (`pairs`: new pair → old pair) to the other labelling; `map` (old label → new label)
    /// relabels the wall candidates. `history` moves when `pair_records`, `pair_out` when
    /// `pair_out` too: entering the cell order it stays where it is, since every step of `steps` writes every
    /// pair record before one is read (`pair_gather`, the active pairs' `write_back`, a list
    /// build's cleared records).
    fn move_records(&mut self, by: &[u32], map: &[u32], pairs: &[u32], pair_records: bool, pair_out: bool) {
        let nw = self.walls.len();
        self.states = gather_by(&self.states, by);
        self.forces = gather_by(&self.forces, by);
        self.extra_force = gather_by(&self.extra_force, by);
        self.x_ref = gather_by(&self.x_ref, by);
        self.wall_any = gather_by(&self.wall_any, by);
        self.stress_trace = gather_by(&self.stress_trace, by);
        self.wall_trace = gather_rows(&self.wall_trace, by, nw);
        self.wall_strain = gather_rows(&self.wall_strain, by, nw);
        self.wall_history = gather_rows(&self.wall_history, by, nw);
        self.wall_out = gather_rows(&self.wall_out, by, nw);
        // A wall's candidates keep the user's order (its gather's order); the slots any.
        for ws in &mut self.wall_spheres {
            ws.iter_mut().for_each(|s| *s = map[*s as usize]);
        }
        // (No slots without walls.)
        let w = nw.max(1) as u32;
        for k in &mut self.wall_slots {
            *k = map[(*k / w) as usize] * w + *k % w;
        }
        self.wall_slots.sort_unstable();
        if pair_records {
            self.history = move_pairs(&self.history, pairs);
        }
        if pair_records && pair_out {
            self.pair_out = move_pairs(&self.pair_out, pairs);
        }
        self.pair_trace = move_pairs(&self.pair_trace, pairs);
        self.pair_strain = move_pairs(&self.pair_strain, pairs);
    }

    /// The incident lists of `self.list` under `order` (empty: the user's).
    fn set_incident(&mut self, order: &[u32]) {
        let inc = oriented_incident(&self.list, order);
        self.owner = inc.owner;
        self.pair_i = inc.pair_i;
        self.pair_j = inc.pair_j;
        self.incident_start = inc.start;
        self.incident = inc.incident;
        self.low_owner = inc.low_owner;
    }

    /// One time step with `lent` force sources besides the attached ones: sources a composing
    /// system keeps (the membrane of `MembraneSpheres`) and lends at every step, after a first
    /// `evaluate_lent`. kick(Δt/2), drift (one fused pass with the rebuild check), walls, list
    /// rebuild (the sources' `rebuild` after it), forces, kick(Δt/2).
    pub fn step_with(&mut self, lent: &mut [&mut dyn ExtraForces]) {
        self.drift_half(lent);
        self.force_passes(lent, true, Some(0.5 * self.params.dt), None);
        self.steps += 1;
    }

    /// First half of a step: kick(Δt/2), drift (one fused pass with the rebuild check), walls,
    /// list rebuild (the lent sources' `rebuild` after it; the attached ones' in `rebuild`).
    fn drift_half(&mut self, lent: &mut [&mut dyn ExtraForces]) {
        let half = 0.5 * self.params.dt;
        let lim = 0.5 * self.params.skin;
        let moved = kick_drift(&mut self.states, &self.forces, half, self.params.dt, &self.x_ref, lim);
        for w in &mut self.walls {
            w.advance(self.params.dt);
        }
        if moved || self.walls_moved() {
            self.rebuild();
            for src in lent.iter_mut() {
                src.rebuild(&self.states, self.params.skin);
            }
        }
    }

    /// Attaches an extra force source and recomputes the current forces with it (force only:
    /// histories kept, the source's `rebuild` called first).
    pub fn add_extra(&mut self, mut source: Box<dyn ExtraForces>) {
        source.rebuild(&self.states, self.params.skin);
        self.extra.push(source);
        self.force_only(&mut []);
    }

    /// The first evaluation with sources that will be lent at every step (`step_with`): their
    /// `rebuild`, then the current forces recomputed with them, force only (as `add_extra`).
    pub fn evaluate_lent(&mut self, lent: &mut [&mut dyn ExtraForces]) {
        for src in lent.iter_mut() {
            src.rebuild(&self.states, self.params.skin);
        }
        self.force_only(lent);
    }

    /// The forces of the current state, no history advanced (the stepper's nor the sources').
    fn force_only(&mut self, lent: &mut [&mut dyn ExtraForces]) {
        let saved = (self.history.clone(), self.wall_history.clone());
        self.compute_forces_with(lent, false);
        (self.history, self.wall_history) = saved;
    }

    /// Every force pass and the gathers with the attached sources (contact histories advance:
    /// a caller that only wants the forces saves and restores them, as `new` does).
    pub fn compute_forces(&mut self) {
        self.compute_forces_with(&mut [], true);
    }

    /// Every force pass and the gathers, with the attached sources and `lent` ones (in that
    /// order); the sources' contact histories advance when `advance`.
    pub fn compute_forces_with(&mut self, lent: &mut [&mut dyn ExtraForces], advance: bool) {
        self.force_passes(lent, advance, None, None);
    }

    /// `compute_forces`, then `kick(h)` when `kick_h` is given and the next step's `kick_drift`
    /// when `next` is (one pass, `kick_pass`); returns the spheres' rebuild check of that drift
    /// (false without it).
    fn force_passes(
        &mut self,
        lent: &mut [&mut dyn ExtraForces],
        advance: bool,
        kick_h: Option<f32>,
        next: Option<Drift>,
    ) -> bool {
        // Extra force sources (extra_force.rs): one pass per source, before the gather.
        // In cell order the stepper maps at the seam: the sources get the states in the user's
        // order and add into a force array in that order, moved into the cell order after.
        self.extra_force.clear();
        if !self.extra.is_empty() || !lent.is_empty() {
            let states = user_states(&self.states, &self.order);
            let mut out = vec![SphereForce::default(); self.states.len()];
            let eval = Evaluation {
                dt: self.params.dt,
                advance,
            };
            for src in &mut self.extra {
                src.add_forces(&states, eval, &mut out);
            }
            for src in lent.iter_mut() {
                src.add_forces(&states, eval, &mut out);
            }
            drop(states);
            self.extra_force = if self.order.is_empty() {
                out
            } else {
                gather_by(&out, &self.order)
            };
        }
        if self.mc {
            normal_pass(self);
            stress_pass(self);
        }
        if self.strain {
            strain_pass(self);
        }
        // The wall pass reads none of the pair results: it runs first, so that the pair pass
        // and the gather can run as one sweep.
        wall_pass(self);
        match kick_h {
            Some(h) => {
                // Damping moves from the gather into the kick's lanes tail (the same bits).
                pair_gather_with(self, false);
                wall_gather(self);
                let k = KickInputs {
                    h,
                    next,
                    global_damping: self.params.global_damping,
                    local_damping: self.params.local_damping,
                    x_ref: &self.x_ref,
                    x_near: &[],
                    near_lim: 0.0,
                };
                kick_all(&k, &mut self.states, &mut self.forces, self.use_lanes)
            }
            None => {
                pair_gather(self);
                wall_gather(self);
                false
            }
        }
    }

    /// Whether some sphere or some wall point moved more than half the skin since the last
    /// build (a pair or a sphere–wall contact then closes by less than the skin). `step` gets
    /// the spheres' half from `kick_drift`.
    pub fn needs_rebuild(&self) -> bool {
        let lim = 0.5 * self.params.skin;
        self.walls_moved()
            || self
                .states
                .par_iter()
                .zip(self.x_ref.par_iter())
                .with_min_len(PAR_MIN)
                .any(|(s, r)| moved_beyond(add(s.pos_hi, s.pos_lo), *r, lim))
    }

    /// Whether some wall point moved more than half the skin since the last build.
    pub fn walls_moved(&self) -> bool {
        let lim = 0.5 * self.params.skin;
        self.walls
            .iter()
            .zip(&self.wall_ref)
            .any(|(w, r)| moved_beyond(add(w.point_hi, w.point_lo), *r, lim))
    }

    /// New candidate list, history carried by key, incident lists rebuilt.
    pub fn rebuild(&mut self) {
        fit_grid(&mut self.params, &self.states);
        let new = build_neighbor_list(&self.params, &self.states);
        self.history = carry_history(&self.list, &self.history, &new);
        self.list = new;
        self.pair_out = vec![PairOut::default(); self.list.len()];
        self.pair_trace = vec![[0.0; 2]; if self.mc { self.list.len() } else { 0 }];
        self.pair_strain = vec![[0.0; 2]; if self.strain { self.list.len() } else { 0 }];
        self.x_ref = self.states.iter().map(|s| add(s.pos_hi, s.pos_lo)).collect();
        self.wall_ref = self.walls.iter().map(|w| add(w.point_hi, w.point_lo)).collect();
        self.build_wall_candidates();
        self.rebuilds += 1;
        if !self.order.is_empty() && pair_span(&self.list) > self.resort_growth * self.span_at_sort {
            // The spheres flowed away from their cell neighbours in memory: sort again (the
            // new list relabelled with the arrays).
            self.leave_cell_order(true);
            self.enter_cell_order(true);
        } else {
            let order = std::mem::take(&mut self.order);
            self.set_incident(&order);
            self.order = order;
        }
        // The sources index spheres by the user's index (the `extra_force` seam).
        let states = user_states(&self.states, &self.order);
        for src in &mut self.extra {
            src.rebuild(&states, self.params.skin);
        }
    }

    /// The sphere–wall candidates (`wall_candidate`) and a cleared record for every other
    /// sphere–wall slot (what evaluating a contact that cannot touch would give).
    fn build_wall_candidates(&mut self) {
        let (n, nw, skin) = (self.states.len(), self.walls.len(), self.params.skin);
        let mut mask = vec![false; n * nw];
        if nw > 0 {
            let walls = &self.walls;
            mask.par_chunks_mut(nw)
                .zip(self.states.par_iter())
                .with_min_len(PAR_MIN)
                .for_each(|(m, s)| {
                    for (w, m) in m.iter_mut().enumerate() {
                        *m = wall_candidate(&walls[w], s, skin);
                    }
                });
        }
        self.wall_slots.clear();
        self.wall_spheres = vec![Vec::new(); nw];
        self.wall_any = vec![false; n];
        for i in 0..n {
            for w in 0..nw {
                let k = i * nw + w;
                if mask[k] {
                    self.wall_any[i] = true;
                    self.wall_slots.push(k as u32);
                    self.wall_spheres[w].push(i as u32);
                } else {
                    self.wall_out[k] = PairOut::default();
                    self.wall_history[k] = ContactHistory::default();
                    if self.mc {
                        self.wall_trace[k] = 0.0;
                    }
                    if self.strain {
                        self.wall_strain[k] = 0.0;
                    }
                }
            }
        }
        if !self.order.is_empty() {
            // A wall gathers its spheres in the user's order.
            let order = &self.order;
            for ws in &mut self.wall_spheres {
                ws.sort_unstable_by_key(|&s| order[s as usize]);
            }
        }
    }

    /// Host memory held per sphere: every state, list, history and output array of the stepper
    /// (allocated lengths) divided by the number of spheres.
    pub fn bytes_per_sphere(&self) -> f64 {
        fn b<T>(v: &[T]) -> usize {
            std::mem::size_of_val(v)
        }
        let bytes = b(&self.states)
            + b(&self.forces)
            + b(&self.list.start)
            + b(&self.list.partner)
            + b(&self.owner)
            + b(&self.history)
            + b(&self.pair_out)
            + b(&self.incident_start)
            + b(&self.incident)
            + b(&self.pair_i)
            + b(&self.pair_j)
            + b(&self.low_owner)
            + b(&self.order)
            + b(&self.wall_history)
            + b(&self.wall_out)
            + b(&self.wall_slots)
            + self.wall_spheres.iter().map(|w| b(w)).sum::<usize>()
            + b(&self.x_ref)
            + b(&self.wall_any)
            + b(&self.pair_trace)
            + b(&self.wall_trace)
            + b(&self.stress_trace)
            + b(&self.pair_strain)
            + b(&self.wall_strain)
            + self.sort_cache.bytes();
        bytes as f64 / self.states.len().max(1) as f64
    }

    /// Elastic energy stored in all contacts (pairs and walls) at the last force evaluation.
    pub fn contact_energy(&self) -> f64 {
        self.pair_out
            .iter()
            .chain(&self.wall_out)
            .map(|o| o.energy as f64)
            .sum()
    }

    /// Translational + rotational kinetic energy.
    pub fn kinetic_energy(&self) -> f64 {
        self.states
            .iter()
            .map(|s| {
                let v2 = (s.vel[0] * s.vel[0] + s.vel[1] * s.vel[1] + s.vel[2] * s.vel[2]) as f64;
                let w2 = (s.omega[0] * s.omega[0] + s.omega[1] * s.omega[1] + s.omega[2] * s.omega[2]) as f64;
                0.5 * s.mass as f64 * v2 + 0.5 * s.inertia as f64 * w2
            })
            .sum()
    }
}

/// Owner i of every pair of `list`, and per sphere its pairs in pair order as CSR
/// (`start`, entries pair << 1 | 1 when the sphere is the pair's j), by count → scan → fill
/// (`cell_order::oriented_incident` in the user's order).
pub fn incident_lists(list: &NeighborList) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let inc = oriented_incident(list, &[]);
    (inc.owner, inc.start, inc.incident)
}

/// The states in the user's order: borrowed in it, a copy from the cell `order`.
fn user_states<'a>(states: &'a [SphereState], order: &[u32]) -> std::borrow::Cow<'a, [SphereState]> {
    if order.is_empty() {
        std::borrow::Cow::Borrowed(states)
    } else {
        std::borrow::Cow::Owned(scatter_by(states, order))
    }
}

/// v += h f/m, ω += h τ/I (half of velocity Verlet, eq 1).
pub fn kick(states: &mut [SphereState], forces: &[SphereForce], h: f32) {
    states
        .par_iter_mut()
        .zip(forces.par_iter())
        .with_min_len(PAR_MIN)
        .for_each(|(s, f)| {
            s.vel = add(s.vel, scale(f.force, h / s.mass));
            s.omega = add(s.omega, scale(f.torque, h / s.inertia));
        });
}

/// |x − x_ref| > lim.
#[inline]
pub(super) fn moved_beyond(x: V3, x_ref: V3, lim: f32) -> bool {
    let d = sub(x, x_ref);
    d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > lim * lim
}

/// `kick` then `drift`, fused into one pass over the spheres (the same operations); returns
/// whether some sphere is now farther than `lim` from its `x_ref` (the rebuild check).
pub fn kick_drift(states: &mut [SphereState], forces: &[SphereForce], h: f32, dt: f32, x_ref: &[V3], lim: f32) -> bool {
    states
        .par_iter_mut()
        .zip(forces.par_iter())
        .zip(x_ref.par_iter())
        .with_min_len(PAR_MIN)
        .map(|((s, f), r)| {
            s.vel = add(s.vel, scale(f.force, h / s.mass));
            s.omega = add(s.omega, scale(f.torque, h / s.inertia));
            let (hi, lo) = df3_add(s.pos_hi, s.pos_lo, scale(s.vel, dt));
            s.pos_hi = hi;
            s.pos_lo = lo;
            moved_beyond(add(hi, lo), *r, lim)
        })
        .reduce(|| false, |a, b| a | b)
}

/// x += Δt v in double-f32.
pub fn drift(states: &mut [SphereState], dt: f32) {
    states.par_iter_mut().with_min_len(PAR_MIN).for_each(|s| {
        let (hi, lo) = df3_add(s.pos_hi, s.pos_lo, scale(s.vel, dt));
        s.pos_hi = hi;
        s.pos_lo = lo;
    });
}

/// MC-stress pass 1 (eq 9): the classical normal force of every contact and its l·f terms,
/// −(r − δ/2) f_n for each sphere of a pair and for the sphere of a wall contact.
pub fn normal_pass(sys: &mut CpuSpheres) {
    let (states, laws, walls) = (&sys.states, &sys.laws, &sys.walls);
    let (pair_i, pair_j) = (&sys.pair_i, &sys.pair_j);
    sys.pair_trace
        .par_iter_mut()
        .enumerate()
        .with_min_len(PAR_MIN)
        .for_each(|(k, t)| {
            let (a, b) = (&states[pair_i[k] as usize], &states[pair_j[k] as usize]);
            let (g, _, _) = sphere_pair_geometry(a, b);
            *t = if g.delta > 0.0 {
                let law = laws.get(a.material, b.material);
                let f = classical_normal_force(law, &g);
                [
                    stress_trace_term(law.mc.options, a.radius, g.delta, f),
                    stress_trace_term(law.mc.options, b.radius, g.delta, f),
                ]
            } else {
                [0.0; 2]
            };
        });
    let nw = walls.len();
    if nw == 0 {
        return;
    }
    let traces: Vec<f32> = sys
        .wall_slots
        .par_iter()
        .with_min_len(PAR_MIN / 8)
        .map(|&k| {
            let (s, w) = (&states[k as usize / nw], &walls[k as usize % nw]);
            let law = laws.get(s.material, w.material);
            let (g, _, _) = wall_geometry(w, s);
            if g.delta > 0.0 && (law.mc.options & MC_EXCLUDE_WALLS) == 0 {
                stress_trace_term(law.mc.options, s.radius, g.delta, classical_normal_force(law, &g))
            } else {
                0.0
            }
        })
        .collect();
    for (&k, t) in sys.wall_slots.iter().zip(traces) {
        sys.wall_trace[k as usize] = t;
    }
}

/// MC-stress: tr σ_i = (1/V_i) Σ l·f over i's pairs (list order) and walls (wall order).
pub fn stress_pass(sys: &mut CpuSpheres) {
    let nw = sys.walls.len();
    let (states, pair_trace, wall_trace) = (&sys.states, &sys.pair_trace, &sys.wall_trace);
    let (start, incident) = (&sys.incident_start, &sys.incident);
    sys.stress_trace
        .par_iter_mut()
        .enumerate()
        .with_min_len(PAR_MIN)
        .for_each(|(i, tr)| {
            let mut sum = 0.0f32;
            for &e in &incident[start[i] as usize..start[i + 1] as usize] {
                sum += pair_trace[(e >> 1) as usize][(e & 1) as usize];
            }
            for t in &wall_trace[i * nw..(i + 1) * nw] {
                sum += *t;
            }
            *tr = sum / sphere_volume(states[i].radius);
        });
}

/// Branch vector l and classical f_n (pass 1) of contact `q` of sphere i: q < incident count is
/// incident entry q (pair << 1 | side), then the walls in order. f_n = −(l·f)/|l| of `normal_pass`.
fn strain_contact(sys: &CpuSpheres, i: usize, q: usize) -> (V3, f32) {
    let (start, nw) = (sys.incident_start[i] as usize, sys.walls.len());
    let n_inc = sys.incident_start[i + 1] as usize - start;
    let s = &sys.states[i];
    if q < n_inc {
        let e = sys.incident[start + q];
        let k = (e >> 1) as usize;
        let (a, b) = (&sys.states[sys.pair_i[k] as usize], &sys.states[sys.pair_j[k] as usize]);
        let (g, l_i, l_j) = sphere_pair_geometry(a, b);
        if g.delta <= 0.0 {
            return ([0.0; 3], 0.0);
        }
        let side = (e & 1) as usize;
        let l = if side == 0 { l_i } else { l_j };
        (l, -sys.pair_trace[k][side] / norm(l))
    } else {
        let w = q - n_inc;
        let (g, l, _) = wall_geometry(&sys.walls[w], s);
        if g.delta <= 0.0 {
            return ([0.0; 3], 0.0);
        }
        (l, -sys.wall_trace[i * nw + w] / norm(l))
    }
}

/// MC-strain (eq 7): per sphere i, for each of its contacts c, Σ_{k ≠ c} δ_{k→c} over its other
/// contacts (incident order, then walls), with E, ν, γ of i's material (its self pair). Written
/// to the pair's slot for i's side, or to the wall contact's.
pub fn strain_pass(sys: &mut CpuSpheres) {
    let n = sys.states.len();
    let nw = sys.walls.len();
    let mut pair_strain = std::mem::take(&mut sys.pair_strain);
    let mut wall_strain = std::mem::take(&mut sys.wall_strain);
    let sums: Vec<Vec<f32>> = (0..n)
        .into_par_iter()
        .with_min_len(PAR_MIN)
        .map(|i| {
            let n_inc = (sys.incident_start[i + 1] - sys.incident_start[i]) as usize;
            let m = sys.states[i].material;
            let law = sys.laws.get(m, m);
            let nc = n_inc + nw;
            if law.mc.beta == 0.0 || (law.mc.options & MC_STRAIN) == 0 {
                return vec![0.0; nc];
            }
            let skip_walls = (law.mc.options & MC_EXCLUDE_WALLS) != 0;
            let young = young_from_self_pair(law.hertz.e_star, law.mc.nu);
            let contacts: Vec<(V3, f32)> = (0..nc).map(|q| strain_contact(sys, i, q)).collect();
            (0..nc)
                .map(|c| {
                    let mut sum = 0.0f32;
                    if contacts[c].1 <= 0.0 || (skip_walls && c >= n_inc) {
                        return 0.0;
                    }
                    for (k, &(l_k, f_k)) in contacts.iter().enumerate() {
                        if k != c && !(skip_walls && k >= n_inc) {
                            sum += strain_displacement(law.mc.beta, young, law.mc.nu, f_k, l_k, contacts[c].0);
                        }
                    }
                    sum
                })
                .collect()
        })
        .collect();
    for (i, s) in sums.iter().enumerate() {
        let start = sys.incident_start[i] as usize;
        let n_inc = sys.incident_start[i + 1] as usize - start;
        for (q, &e) in sys.incident[start..start + n_inc].iter().enumerate() {
            pair_strain[(e >> 1) as usize][(e & 1) as usize] = s[q];
        }
        wall_strain[i * nw..(i + 1) * nw].copy_from_slice(&s[n_inc..]);
    }
    sys.pair_strain = pair_strain;
    sys.wall_strain = wall_strain;
}

/// What the pair pass reads: the stepper's fields, borrowed one by one so that the pair
/// results, histories and forces can be written at the same time.
pub(super) struct PairInputs<'a> {
    pub(super) states: &'a [SphereState],
    pub(super) laws: &'a LawTable,
    pub(super) dt: f32,
    pub(super) pair_i: &'a [u32],
    pub(super) pair_j: &'a [u32],
    pub(super) mc: bool,
    pub(super) trace: &'a [f32],
    pub(super) pair_trace: &'a [[f32; 2]],
    pub(super) pair_strain: &'a [[f32; 2]],
    pub(super) use_lanes: bool,
}

impl PairInputs<'_> {
    /// Pair k alone.
    pub(super) fn one_pair(&self, k: usize, out: &mut PairOut, hist: &mut ContactHistory) {
        let (states, laws, trace, pair_trace) = (self.states, self.laws, self.trace, self.pair_trace);
        let (i, j) = (self.pair_i[k] as usize, self.pair_j[k] as usize);
        let (a, b) = (&states[i], &states[j]);
        let (mut g, l_i, l_j) = sphere_pair_geometry(a, b);
        let law = laws.get(a.material, b.material);
        let mut f_mc = 0.0;
        if self.mc && law.mc.beta != 0.0 && g.delta > 0.0 && (law.mc.options & MC_STRAIN) != 0 {
            // Eq 8: the overlap plus the displacements of both grains' other contacts.
            g.delta = (g.delta + self.pair_strain[k][0] + self.pair_strain[k][1]).max(0.0);
        } else if self.mc && law.mc.beta != 0.0 && g.delta > 0.0 {
            let (mut t_i, mut t_j) = (trace[i], trace[j]);
            if (law.mc.options & MC_INCLUDE_SELF) == 0 {
                t_i -= pair_trace[k][0] / sphere_volume(a.radius);
                t_j -= pair_trace[k][1] / sphere_volume(b.radius);
            }
            f_mc = mc_stress_force(&law.mc, g.r_star, g.delta, t_i, t_j);
        }
        let (pf, h) = pair_force(law, &g, self.dt, hist, f_mc);
        *hist = h;
        *out = PairOut {
            force: pf.force,
            torque_i: add(cross(l_i, pf.force), pf.rolling_torque),
            torque_j: sub(cross(l_j, scale(pf.force, -1.0)), pf.rolling_torque),
            f_n: pf.f_n,
            energy: pf.energy,
            _pad: 0.0,
        };
    }

    /// Pairs k0 … k0 + outs.len() − 1: each group of eight under one lane law on SIMD lanes,
    /// the others pair by pair (the same bits either way, so the grouping does not matter).
    fn range(&self, k0: usize, outs: &mut [PairOut], hists: &mut [ContactHistory]) {
        let (states, owner, partner) = (self.states, self.pair_i, self.pair_j);
        let law_of = |k: usize| (states[owner[k] as usize].material, states[partner[k] as usize].material);
        let lanes = PairLaneInputs {
            states,
            owner,
            partner,
            dt: self.dt,
        };
        for (g, (outs, hists)) in outs.chunks_mut(LANES).zip(hists.chunks_mut(LANES)).enumerate() {
            let k = k0 + g * LANES;
            if self.use_lanes && outs.len() == LANES {
                let m = law_of(k);
                let law = self.laws.get(m.0, m.1);
                if lane_law(law, self.mc) && (1..LANES).all(|q| law_of(k + q) == m) {
                    pair_group(&lanes, k, law, outs, hists);
                    continue;
                }
            }
            for (q, (out, hist)) in outs.iter_mut().zip(hists.iter_mut()).enumerate() {
                self.one_pair(k + q, out, hist);
            }
        }
    }
}

/// Every candidate pair: geometry, law (with the MC-stress correction when on), torques l × f
/// (plus rolling torques), new history. Groups of eight pairs under one plain Hertz–Mindlin law
/// run on SIMD lanes (`pair_lanes`, the same bits), the others pair by pair. (A step runs it
/// fused with the gather: `pair_gather`.)
pub fn pair_pass(sys: &mut CpuSpheres) {
    let inp = PairInputs {
        states: &sys.states,
        laws: &sys.laws,
        dt: sys.params.dt,
        pair_i: &sys.pair_i,
        pair_j: &sys.pair_j,
        mc: sys.mc,
        trace: &sys.stress_trace,
        pair_trace: &sys.pair_trace,
        pair_strain: &sys.pair_strain,
        use_lanes: sys.use_lanes,
    };
    sys.pair_out
        .par_chunks_mut(LANES)
        .zip(sys.history.par_chunks_mut(LANES))
        .enumerate()
        .with_min_len(PAR_MIN / LANES)
        .for_each(|(g, (outs, hists))| inp.range(g * LANES, outs, hists));
}

/// Spheres per block of `pair_gather`: the block's pair results are still in cache when its
/// spheres gather them.
const GATHER_BLOCK: usize = 256;

/// `pair_pass` and `gather` in one sweep, the same results: the spheres are cut into regions
/// (two per thread), each swept in blocks of `GATHER_BLOCK` spheres: the pairs owned by the
/// block's spheres, then the block's gathers while those results are in cache. A sphere's
/// pairs are owned by itself and by spheres of lower index (i < j), so its gather can run in
/// its region once the region's pairs up to its own row are done, unless one of its pairs is
/// owned in an earlier region: such spheres gather after the sweep. Only the forces are
/// written (the states are read-only here; the kicks follow in `kick_pass`).
pub fn pair_gather(sys: &mut CpuSpheres) {
    pair_gather_with(sys, true);
}

/// `pair_gather`, the forces damped when `damped`, else left undamped for a kick that damps
/// (`kick_lanes::kick_all`: the same operations in the same order).
fn pair_gather_with(sys: &mut CpuSpheres, damped: bool) {
    let n = sys.states.len();
    let inp = PairInputs {
        states: &sys.states,
        laws: &sys.laws,
        dt: sys.params.dt,
        pair_i: &sys.pair_i,
        pair_j: &sys.pair_j,
        mc: sys.mc,
        trace: &sys.stress_trace,
        pair_trace: &sys.pair_trace,
        pair_strain: &sys.pair_strain,
        use_lanes: sys.use_lanes,
    };
    let gat = GatherInputs {
        p: sys.params,
        nw: sys.walls.len(),
        wall_out: &sys.wall_out,
        wall_any: &sys.wall_any,
        start: &sys.incident_start,
        incident: &sys.incident,
        low_owner: &sys.low_owner,
        own_rows: sys.order.is_empty().then_some(&sys.list.start[..]),
        extra: &sys.extra_force,
        damped,
    };
    let threads = rayon::current_num_threads();
    let regions = if threads > 1 && n >= 4 * PAR_MIN {
        2 * threads
    } else {
        1
    };
    let len = n.div_ceil(regions).max(1);
    let start = &sys.list.start;
    // Each region's spheres [s, e), its pairs [start[s], start[e]), its forces.
    let (mut outs, mut hists, mut forces) = (&mut sys.pair_out[..], &mut sys.history[..], &mut sys.forces[..]);
    let mut parts = Vec::with_capacity(regions);
    for r in 0..regions {
        let (s, e) = ((r * len).min(n), ((r + 1) * len).min(n));
        let pairs = (start[e] - start[s]) as usize;
        let (o, rest) = std::mem::take(&mut outs).split_at_mut(pairs);
        outs = rest;
        let (h, rest) = std::mem::take(&mut hists).split_at_mut(pairs);
        hists = rest;
        let (f, rest) = std::mem::take(&mut forces).split_at_mut(e - s);
        forces = rest;
        parts.push((s, e, o, h, f));
    }
    let deferred: Vec<Vec<usize>> = parts
        .into_par_iter()
        .map(|(s, e, outs, hists, forces)| {
            let k0 = start[s] as usize;
            let mut later = Vec::new();
            for b in (s..e).step_by(GATHER_BLOCK) {
                let be = (b + GATHER_BLOCK).min(e);
                let (ka, kb) = (start[b] as usize - k0, start[be] as usize - k0);
                inp.range(k0 + ka, &mut outs[ka..kb], &mut hists[ka..kb]);
                for i in b..be {
                    if gat.first_owner(i) < s {
                        later.push(i);
                    } else {
                        forces[i - s] = gat.force(i, &inp.states[i], outs, k0);
                    }
                }
            }
            later
        })
        .collect();
    let (states, pair_out) = (&sys.states, &sys.pair_out);
    let late: Vec<(usize, SphereForce)> = deferred
        .par_iter()
        .flat_map_iter(|d| d.iter().map(|&i| (i, gat.force(i, &states[i], pair_out, 0))))
        .collect();
    for (i, f) in late {
        sys.forces[i] = f;
    }
}

/// Every sphere against its candidate walls (the other slots stay cleared).
pub fn wall_pass(sys: &mut CpuSpheres) {
    let nw = sys.walls.len();
    if nw == 0 {
        return;
    }
    let states = &sys.states;
    let walls = &sys.walls;
    let laws = &sys.laws;
    let dt = sys.params.dt;
    let (mc, trace, wall_trace) = (sys.mc, &sys.stress_trace, &sys.wall_trace);
    let wall_strain = &sys.wall_strain;
    let wall_history = &sys.wall_history;
    let results: Vec<(PairOut, ContactHistory)> = sys
        .wall_slots
        .par_iter()
        .with_min_len(PAR_MIN / 8)
        .map(|&k| {
            let (k, i) = (k as usize, k as usize / nw);
            let (s, w) = (&states[i], &walls[k % nw]);
            let (mut g, l_i, c) = wall_geometry(w, s);
            let law = laws.get(s.material, w.material);
            let mut f_mc = 0.0;
            let on = mc && law.mc.beta != 0.0 && g.delta > 0.0 && (law.mc.options & MC_EXCLUDE_WALLS) == 0;
            if on && (law.mc.options & MC_STRAIN) != 0 {
                // Eq 8: a rigid wall does not deform; only the sphere's other contacts count.
                g.delta = (g.delta + wall_strain[k]).max(0.0);
            } else if on {
                // A wall has no stress of its own: P comes from the sphere's alone.
                let mut t = trace[i];
                if (law.mc.options & MC_INCLUDE_SELF) == 0 {
                    t -= wall_trace[k] / sphere_volume(s.radius);
                }
                f_mc = mc_stress_force(&law.mc, g.r_star, g.delta, t, 0.0);
            }
            let (pf, h) = pair_force(law, &g, dt, &wall_history[k], f_mc);
            let out = PairOut {
                force: pf.force,
                torque_i: add(cross(l_i, pf.force), pf.rolling_torque),
                // Torque of the sphere on the wall about the wall's point.
                torque_j: sub(cross(c, scale(pf.force, -1.0)), pf.rolling_torque),
                f_n: pf.f_n,
                energy: pf.energy,
                _pad: 0.0,
            };
            (out, h)
        })
        .collect();
    for (&k, (out, h)) in sys.wall_slots.iter().zip(results) {
        sys.wall_out[k as usize] = out;
        sys.wall_history[k as usize] = h;
    }
}

/// Per sphere: m g + its pairs in list order + its walls in order, then damping. (A step runs
/// it fused with the pair pass: `pair_gather`.)
pub fn gather(sys: &mut CpuSpheres) {
    let gat = GatherInputs {
        p: sys.params,
        nw: sys.walls.len(),
        wall_out: &sys.wall_out,
        wall_any: &sys.wall_any,
        start: &sys.incident_start,
        incident: &sys.incident,
        low_owner: &sys.low_owner,
        own_rows: sys.order.is_empty().then_some(&sys.list.start[..]),
        extra: &sys.extra_force,
        damped: true,
    };
    let (states, pair_out) = (&sys.states, &sys.pair_out);
    sys.forces
        .par_iter_mut()
        .enumerate()
        .with_min_len(PAR_MIN)
        .for_each(|(i, out)| *out = gat.force(i, &states[i], pair_out, 0));
}

/// The end of a sphere's gather, after its pairs (both gathers: `GatherInputs::force` and the
/// active pairs' `Gather`): its wall records in wall order (or the +0 terms a sphere with no wall
/// candidate adds, so the sums keep their bits), then the extra sources' force and torque.
#[inline(always)]
pub(super) fn add_walls_and_extra(
    wall_out: &[PairOut],
    wall_any: &[bool],
    extra: &[SphereForce],
    nw: usize,
    i: usize,
    mut f: V3,
    mut t: V3,
) -> (V3, V3) {
    if wall_any[i] {
        for o in &wall_out[i * nw..(i + 1) * nw] {
            f = add(f, o.force);
            t = add(t, o.torque_i);
        }
    } else if nw > 0 {
        f = add(f, [0.0; 3]);
        t = add(t, [0.0; 3]);
    }
    if let Some(x) = extra.get(i) {
        f = add(f, x.force);
        t = add(t, x.torque);
    }
    (f, t)
}

/// What the gather reads.
struct GatherInputs<'a> {
    p: SphereParams,
    nw: usize,
    wall_out: &'a [PairOut],
    wall_any: &'a [bool],
    start: &'a [u32],
    incident: &'a [u32],
    low_owner: &'a [u32],
    /// In the user's order, the list's row starts: a sphere's i entries are then its own row,
    /// contiguous in the pair arrays (read without the incident list; the same sums).
    own_rows: Option<&'a [u32]>,
    extra: &'a [SphereForce],
    /// Whether `force` damps (else the kick's lanes tail does, `kick_lanes`).
    damped: bool,
}

impl GatherInputs<'_> {
    /// The lowest row among sphere i's pairs' (i itself when none is lower).
    #[inline]
    fn first_owner(&self, i: usize) -> usize {
        self.low_owner[i] as usize
    }

    /// Force and torque on sphere i (state `s`), its pair results read from `pair_out`, which
    /// holds the pairs from index `base` on.
    ///
    /// A sphere that is no wall's candidate has only +0 records in `wall_out` (cleared at the
    /// build); adding them changes a sum only when it is −0, to +0, and adding one +0 or several
    /// gives the same bits ((x + 0) + 0 = x + 0), so such a sphere adds +0 once instead of
    /// reading its records (the same bits as the loop; 96 bytes per sphere less with two walls).
    #[inline]
    fn force(&self, i: usize, s: &SphereState, pair_out: &[PairOut], base: usize) -> SphereForce {
        let (p, nw) = (self.p, self.nw);
        let mut f = scale(p.gravity, s.mass);
        let mut t = [0.0f32; 3];
        // Incident order = the partners' user index: first the pairs where i is j, then
        // those where it is i (two loops, no branch on the side; `cell_order`).
        let inc = &self.incident[self.start[i] as usize..self.start[i + 1] as usize];
        if let Some(rows) = self.own_rows {
            let own = rows[i] as usize - base..rows[i + 1] as usize - base;
            for &e in &inc[..inc.len() - own.len()] {
                let o = &pair_out[(e >> 1) as usize - base];
                f = sub(f, o.force);
                t = add(t, o.torque_j);
            }
            for o in &pair_out[own] {
                f = add(f, o.force);
                t = add(t, o.torque_i);
            }
        } else {
            let split = inc.iter().take_while(|&&e| e & 1 == 1).count();
            for &e in &inc[..split] {
                let o = &pair_out[(e >> 1) as usize - base];
                f = sub(f, o.force);
                t = add(t, o.torque_j);
            }
            for &e in &inc[split..] {
                let o = &pair_out[(e >> 1) as usize - base];
                f = add(f, o.force);
                t = add(t, o.torque_i);
            }
        }
        (f, t) = add_walls_and_extra(self.wall_out, self.wall_any, self.extra, nw, i, f, t);
        if self.damped {
            f = damp(f, s.vel, p.global_damping * s.mass, p.local_damping);
            t = damp(t, s.omega, p.global_damping * s.inertia, p.local_damping);
        }
        SphereForce {
            force: f,
            torque: t,
            ..Default::default()
        }
    }
}

/// The first half of the next step, run by `kick_pass`: `kick_drift(h, dt, lim)`.
#[derive(Clone, Copy, Debug)]
pub struct Drift {
    pub h: f32,
    pub dt: f32,
    pub lim: f32,
}

/// `kick(h)` (the closing half-kick of a step), then with `next` the next step's `kick_drift`,
/// in one pass over the spheres (the same operations; returns that drift's rebuild check,
/// false without `next`).
pub fn kick_pass(
    states: &mut [SphereState],
    forces: &[SphereForce],
    h: f32,
    next: Option<Drift>,
    x_ref: &[V3],
) -> bool {
    states
        .par_iter_mut()
        .zip(forces.par_iter())
        .enumerate()
        .with_min_len(PAR_MIN)
        .map(|(i, (s, f))| {
            s.vel = add(s.vel, scale(f.force, h / s.mass));
            s.omega = add(s.omega, scale(f.torque, h / s.inertia));
            next.is_some_and(|d| {
                s.vel = add(s.vel, scale(f.force, d.h / s.mass));
                s.omega = add(s.omega, scale(f.torque, d.h / s.inertia));
                let (hi, lo) = df3_add(s.pos_hi, s.pos_lo, scale(s.vel, d.dt));
                s.pos_hi = hi;
                s.pos_lo = lo;
                moved_beyond(add(hi, lo), x_ref[i], d.lim)
            })
        })
        .reduce(|| false, |a, b| a | b)
}

/// Global damping −c v and local (Cundall) damping −α |f_k| sign(v_k) on a force or torque.
#[inline]
pub fn damp(f: V3, v: V3, c: f32, alpha: f32) -> V3 {
    let mut out = sub(f, scale(v, c));
    for k in 0..3 {
        if v[k] != 0.0 {
            out[k] -= alpha * out[k].abs() * v[k].signum();
        }
    }
    out
}

/// Per wall (in parallel): minus the sum of its candidate spheres' contacts, in sphere order,
/// reduced in wall_reduce.rs's fixed order (the other spheres' records are zero); then the servo law.
pub fn wall_gather(sys: &mut CpuSpheres) {
    let nw = sys.walls.len();
    let (wall_out, wall_spheres) = (&sys.wall_out, &sys.wall_spheres);
    sys.walls.par_iter_mut().enumerate().for_each(|(w, wall)| {
        // Its candidates in its gather order, as a fixed-order reduction (wall_reduce.rs).
        let ws = &wall_spheres[w];
        let (f, t) = wall_reduce(ws.len(), |r| {
            let o = &wall_out[ws[r] as usize * nw + w];
            (o.force, o.torque_j)
        });
        wall.force = f;
        wall.torque = t;
        // Servo walls: the velocity of the next drift from the stress just measured.
        wall.velocity = servo_velocity(wall);
    });
}
