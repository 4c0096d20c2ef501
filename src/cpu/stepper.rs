//! The CPU reference stepper: the same kernel sequence as `gpu::stepper`, each kernel a parallel
//! loop (rayon) over the per-thread twin function, or over its lane pass where one exists (the
//! twin's arithmetic on eight nodes at a time, the same bits: `core_area_lanes`, `shell_lanes`,
//! `contact_reach`, `node_lanes`). Every node writes only its own outputs, so the result does not
//! depend on the thread count.

use super::broad_phase::*;
use super::cohesive_link::cohesive_link;
use super::contact_pairs::contact_pairs;
use super::contact_reach::{contact_pairs_reached, contact_reach, entry_owners, ReachTables};
use super::core_area_lanes::core_area_run;
use super::integrate_lanes::{integrate_run, IntegrateInputs};
use super::node_lanes::{lane_mass, node_forces_run, NodeInputs};
use super::resting_walls::RestingWalls;
use super::scan::prefix_scan;
use super::shell_columns::ShellColumns;
use super::shell_lanes::{lane_bodies, shell_forces_run, ShellInputs};
use super::CHUNK;
use crate::backend::{slots_from_histories, slots_per_entry, Backend, ContactSnapshot, SavedState};
use crate::model::*;
use rayon::prelude::*;

pub struct CpuBackend {
    params: SimParams,
    /// The scene's nodes with the boundary conditions in force (what `export_state` saves).
    scene_nodes: Vec<Node>,
    /// The kernels' node records and boundary-condition table (`device_nodes`).
    nodes: Vec<NodeRecord>,
    bcs: Vec<NodeBc>,
    bodies: Vec<Body>,
    /// Per body: whether the shell pass may take it eight nodes at a time (`shell_lanes`), and
    /// the node mass where the node pass may (`node_lanes`).
    lane_ok: Vec<bool>,
    lane_mass: Vec<Option<f32>>,
    materials: Vec<Material>,
    /// Ping-pong node state: `state[side]` is step n.
    state: [Vec<NodeState>; 2],
    side: usize,
    /// `Some(largest displacement)` when the last step's node pass already ran the next step's
    /// integrate (x_{n+1}, v_{n+½} are in `state[1 - side]`), which step_begin then skips. The
    /// pass reads dt, the node records, the boundary conditions, the state and x_ref, so
    /// whatever changes one of them between steps sets this back to `None`.
    preintegrated: Option<f32>,
    body_state: Vec<BodyState>,
    /// Positions at the last neighbour-list build.
    x_ref: Vec<[f32; 2]>,
    /// Largest displacement since the last build.
    max_disp: f32,
    start: Vec<u32>,
    entries: Vec<Entry>,
    /// Pool index of each entry's contact slot, `NO_SLOT` for an entry without a contact;
    /// ping-pong like the node state: step n reads `slot_index[side]` (with the friction histories
    /// in `pool[side]`) and writes the other side.
    slot_index: [Vec<u32>; 2],
    /// Contact slots of a step's active contacts, one slot of room per list entry: chunk k's
    /// slots from its first entry `start[k * CHUNK]` on (the rest of its part is unused), so
    /// slot indices are pool-wide as the chunk writes them.
    pool: [Vec<ContactSlot>; 2],
    /// One pool per chunk of nodes, appended to by contact_pairs, then copied into the chunk's
    /// part of `pool` (kept to reuse the memory).
    chunk_pools: Vec<Vec<ContactSlot>>,
    /// Per chunk: the nodes its new slots act on, whose gather marks the stepper sets.
    chunk_gathers: Vec<Vec<u32>>,
    /// Per chunk: which of its entries pass contact_pairs' early out (`contact_reach`), and the
    /// per-node tables that test reads.
    chunk_reach: Vec<Vec<u64>>,
    reach_tables: ReachTables,
    /// The node whose list holds each entry (`entry_owners`, rebuilt with the lists).
    entry_owner: Vec<u32>,
    /// This step's marks, read by node_forces, in two halves of n/32 words: the slot marks
    /// (`has_slots`), one bit per node, written by the chunks of contact_pairs (a chunk is a
    /// whole number of words); then the gather marks (`gathers`), set from `chunk_gathers`.
    slot_marks: Vec<u32>,
    /// shell_forces output of each node, as columns (`shell_columns`).
    shell_cols: ShellColumns,
    links: Vec<Link>,
    link_laws: Vec<LinkLaw>,
    /// The contact law of every pair of contact materials (`Scene::contact_law_table`).
    contact_laws: Vec<ContactLaw>,
    link_state: Vec<LinkState>,
    link_state_new: Vec<LinkState>,
    link_force: Vec<[f32; 2]>,
    link_start: Vec<u32>,
    link_list: Vec<u32>,
    /// Wall nodes at rest, which the passes skip while nothing acts on them.
    resting: RestingWalls,
    steps: u64,
    rebuilds: u64,
}

impl CpuBackend {
    pub fn new(scene: &Scene) -> anyhow::Result<Self> {
        scene.validate().map_err(anyhow::Error::msg)?;
        let params = scene.sim_params();
        let n = scene.nodes.len();
        let device = device_nodes(&scene.nodes);
        let (link_start, link_list) = scene.link_csr();
        let mut be = CpuBackend {
            params,
            scene_nodes: scene.nodes.clone(),
            lane_ok: lane_bodies(&device.0, &scene.bodies),
            lane_mass: vec![],
            reach_tables: ReachTables::new(&device.0, &scene.bodies),
            nodes: device.0,
            bcs: device.1,
            bodies: scene.bodies.clone(),
            materials: scene.materials.iter().map(|m| m.for_kernels()).collect(),
            state: [scene.init.clone(), scene.init.clone()],
            side: 0,
            preintegrated: None,
            body_state: vec![BodyState::default(); scene.bodies.len()],
            x_ref: vec![[0.0; 2]; n],
            max_disp: f32::INFINITY,
            start: vec![0; n + 1],
            entries: vec![],
            slot_index: [vec![], vec![]],
            pool: [vec![], vec![]],
            chunk_pools: vec![Vec::new(); n.div_ceil(CHUNK)],
            chunk_gathers: vec![Vec::new(); n.div_ceil(CHUNK)],
            chunk_reach: vec![Vec::new(); n.div_ceil(CHUNK)],
            entry_owner: vec![],
            slot_marks: vec![0; 2 * n.div_ceil(32)],
            shell_cols: ShellColumns::new(n),
            links: scene.links.clone(),
            link_laws: scene.link_laws.clone(),
            contact_laws: scene.contact_law_table(),
            link_state: vec![LinkState::default(); scene.links.len()],
            link_state_new: vec![LinkState::default(); scene.links.len()],
            link_force: vec![[0.0; 2]; scene.links.len()],
            link_start,
            link_list,
            resting: RestingWalls::default(),
            steps: 0,
            rebuilds: 0,
        };
        be.lane_mass = lane_mass(&be.nodes, &be.bodies, &be.lane_ok);
        be.classify_resting();
        // A step with dt = 0 computes f_0 without moving anything (velocity Verlet needs it).
        let dt = be.params.dt;
        be.params.dt = 0.0;
        be.one_step(false);
        be.params.dt = dt;
        Ok(be)
    }

    /// Finds the wall nodes at rest in the current state (after anything set from outside).
    fn classify_resting(&mut self) {
        self.resting.classify(
            &self.params,
            &self.nodes,
            &self.bcs,
            &self.bodies,
            &self.link_start,
            &self.link_list,
            &self.state[self.side],
            &self.x_ref,
        );
    }

    /// The passes run on every node, wall nodes at rest included (the reference that tests
    /// compare the skipping with).
    pub fn without_resting_walls(mut self) -> Self {
        self.resting.turn_off();
        self.classify_resting();
        self
    }

    /// Number of neighbour-list builds so far.
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds
    }

    pub fn params(&self) -> &SimParams {
        &self.params
    }

    /// One step; with `integrate_next`, its node pass also runs the next step's integrate.
    fn one_step(&mut self, integrate_next: bool) {
        self.step_begin();
        self.step_end(None, integrate_next);
    }

    /// One step of the coupled modal–SPD stepper (`coupled::cpu`): phases 1–5 as in `one_step`,
    /// then `couple` sees the nodes at x_{n+1} with v_{n+½} and returns each node's force from the
    /// modal bodies, which node_forces adds (WGSL `node_forces_modal`). `init` runs the dt = 0 force
    /// pass (as `new` does) and does not count a step.
    pub(crate) fn step_coupled(&mut self, init: bool, couple: impl FnOnce(SpdView<'_>) -> Vec<[f32; 2]>) {
        let dt = self.params.dt;
        if init {
            self.params.dt = 0.0;
            self.preintegrated = None;
        }
        self.step_begin();
        let view = SpdView {
            state: &self.state[1 - self.side],
        };
        let modal = couple(view);
        self.step_end(Some(&modal), false);
        self.params.dt = dt;
        if !init {
            self.steps += 1;
        }
    }

    /// Phases 1–5 of a step: everything before node_forces.
    fn step_begin(&mut self) {
        let p = self.params;
        let (lo, hi) = self.state.split_at_mut(1);
        let (old, new) = if self.side == 0 {
            (&lo[0], &mut hi[0])
        } else {
            (&hi[0], &mut lo[0])
        };
        // Slices, not `&Vec`s, copied into `move` closures: the loops below then read each
        // table's address and length once instead of through the Vec at every node.
        let (nodes, bcs) = (self.nodes.as_slice(), self.bcs.as_slice());
        let integrate_inputs = IntegrateInputs {
            skip: self.resting.skip(),
            ..IntegrateInputs::new(&p, nodes, bcs, &self.x_ref)
        };
        let old_ro: &[NodeState] = old;
        // 1. integrate: x_{n+1}, v_{n+½} (into the new state's `vel` until node_forces), unless
        //    the last step's node pass did it.
        let disp = match self.preintegrated.take() {
            Some(d) => d,
            None => new
                .par_chunks_mut(CHUNK)
                .enumerate()
                .map(move |(k, sc)| {
                    let c0 = k * CHUNK;
                    integrate_run(c0, &integrate_inputs, &old_ro[c0..c0 + sc.len()], sc)
                })
                .reduce(|| 0.0f32, f32::max),
        };
        // The skipped nodes' displacements (constant until the next build).
        let disp = disp.max(self.resting.disp);
        self.max_disp = if self.max_disp.is_finite() {
            self.max_disp.max(disp)
        } else {
            f32::INFINITY
        };
        // 2. core_area: enclosed areas and core pressures (eight terms at a time, the same bits).
        let bodies = self.bodies.as_slice();
        let materials = self.materials.as_slice();
        {
            let new_ro: &[NodeState] = new;
            self.body_state
                .par_chunks_mut(CHUNK / 32)
                .enumerate()
                .for_each(|(k, out)| core_area_run(k * (CHUNK / 32), bodies, materials, new_ro, out));
        }
        // 3. neighbour list, when some node moved more than half the skin.
        // Written so that a NaN displacement also triggers a rebuild, as in rebuild_decide.
        if self.max_disp.is_nan() || self.max_disp > 0.5 * p.skin {
            Self::rebuild(
                &p,
                nodes,
                bodies,
                new,
                &mut self.start,
                &mut self.entries,
                &mut self.slot_index[self.side],
                &mut self.x_ref,
            );
            // contact_pairs writes every entry's new slot index.
            self.slot_index[1 - self.side].resize(self.entries.len(), NO_SLOT);
            self.max_disp = 0.0;
            self.rebuilds += 1;
            entry_owners(&self.start, &mut self.entry_owner);
            self.resting.set_displacement(&p, new, &self.x_ref);
        }
        // 4. shell_forces (per node: its segment's stretch and pressure, its vertex's bending) and
        //    contact_pairs (per node C: its entries' slots, appended to the chunk's pool). Independent
        //    kernels on the GPU; here one parallel loop runs both over each chunk of nodes.
        let new_ro: &[NodeState] = new;
        let start = self.start.as_slice();
        let entries = self.entries.as_slice();
        let body_state = self.body_state.as_slice();
        let lane_ok = self.lane_ok.as_slice();
        let reach_tables = &self.reach_tables;
        let owner = self.entry_owner.as_slice();
        let laws = self.contact_laws.as_slice();
        let (index_lo, index_hi) = self.slot_index.split_at_mut(1);
        let (old_index, new_index) = if self.side == 0 {
            (&index_lo[0], &mut index_hi[0])
        } else {
            (&index_hi[0], &mut index_lo[0])
        };
        let (pool_lo, pool_hi) = self.pool.split_at_mut(1);
        let (old_pool, new_pool) = if self.side == 0 {
            (&pool_lo[0], &mut pool_hi[0])
        } else {
            (&pool_hi[0], &mut pool_lo[0])
        };
        {
            let (old_index, old_pool) = (old_index.as_slice(), old_pool.as_slice());
            let index_chunks = split_by_chunks(new_index, start, CHUNK);
            // One slot of room per entry: each chunk owns the pool from its first entry on, so
            // its slot indices are pool-wide as written, with no join of the chunks' pools.
            new_pool.resize(entries.len(), ContactSlot::default());
            let pool_chunks = split_by_chunks(new_pool, start, CHUNK);
            let words = self.slot_marks.len() / 2;
            let inputs = ShellInputs {
                nodes,
                bodies,
                materials,
                body_state,
                lane_ok,
                old: old_ro,
                pos: new_ro,
                skip: self.resting.skip(),
            };
            let n = nodes.len();
            self.shell_cols
                .par_chunks_mut()
                .zip(index_chunks.into_par_iter().zip(self.chunk_pools.par_iter_mut()))
                .zip(self.slot_marks[..words].par_chunks_mut(CHUNK / 32))
                .zip(self.chunk_gathers.par_iter_mut().zip(self.chunk_reach.par_iter_mut()))
                .zip(pool_chunks.into_par_iter())
                .enumerate()
                .for_each(move |(k, ((((cols, (si, cp)), marks), (gather, reach)), region))| {
                    let (c0, c1) = (k * CHUNK, ((k + 1) * CHUNK).min(n));
                    let base = start[c0] as usize;
                    cp.clear();
                    gather.clear();
                    marks.fill(0);
                    // shell_forces of the chunk's nodes, eight at a time (the same bits).
                    shell_forces_run(c0, c1, &inputs, cols);
                    // contact_pairs' early out for all the chunk's entries at once, on lanes
                    // where the CPU allows, then the exact tests on the entries that passed (the
                    // same slots in the same order).
                    if contact_reach(c0, c1, start, entries, owner, new_ro, reach_tables, reach) {
                        let args = (&p, laws, nodes, bodies, new_ro, entries, old_index, old_pool);
                        contact_pairs_reached(c0, base, args, owner, reach, si, cp, gather, marks);
                    } else {
                        for j in 0..c1 - c0 {
                            let c = c0 + j;
                            let (e0, e1) = (start[c] as usize - base, start[c + 1] as usize - base);
                            let has_slots = contact_pairs(
                                c,
                                &p,
                                laws,
                                nodes,
                                bodies,
                                new_ro,
                                start,
                                entries,
                                old_index,
                                old_pool,
                                &mut si[e0..e1],
                                cp,
                                gather,
                            );
                            marks[j / 32] |= (has_slots as u32) << (j % 32);
                        }
                    }
                    // The chunk's slots into its part of the pool; indices made pool-wide.
                    region[..cp.len()].copy_from_slice(cp);
                    if base > 0 && !cp.is_empty() {
                        for i in si.iter_mut().filter(|i| **i != NO_SLOT) {
                            *i += base as u32;
                        }
                    }
                });
            // Gather marks (second half): few nodes have a contact, so this is a short loop.
            let (_, gather_marks) = self.slot_marks.split_at_mut(words);
            gather_marks.fill(0);
            for &x in self.chunk_gathers.iter().flatten() {
                gather_marks[(x >> 5) as usize] |= 1 << (x & 31);
            }
        }
        // 5. cohesive_links: one thread per link (§7, eq 41). Step numbers are 1-based; the dt = 0
        //    initial force pass is step 0.
        if !self.links.is_empty() {
            let step = if p.dt > 0.0 { self.steps as u32 + 1 } else { 0 };
            let (links, laws) = (&self.links, &self.link_laws);
            let old_links = &self.link_state;
            self.link_force
                .par_iter_mut()
                .zip(self.link_state_new.par_iter_mut())
                .enumerate()
                .with_min_len(CHUNK)
                .for_each(|(l, (f, s))| {
                    let k = links[l];
                    let (a, b) = (k.a as usize, k.b as usize);
                    (*f, *s) = cohesive_link(
                        &laws[k.law as usize],
                        &k,
                        &new_ro[a],
                        &new_ro[b],
                        new_ro[a].vel,
                        new_ro[b].vel,
                        old_links[l],
                        p.dt,
                        step,
                    );
                });
            std::mem::swap(&mut self.link_state, &mut self.link_state_new);
        }
    }

    /// Phase 6 (node_forces, with the modal contact forces of the coupled stepper when given) and
    /// the swap of the ping-pong sides. With `integrate_next`, each chunk then runs phase 1 of the
    /// next step on the states it just wrote (still in cache), into the other side, whose step-n
    /// positions and velocities nothing reads any more; `preintegrated` keeps the displacement.
    fn step_end(&mut self, modal: Option<&[[f32; 2]]>, integrate_next: bool) {
        let p = self.params;
        let (lo, hi) = self.state.split_at_mut(1);
        let (old, new) = if self.side == 0 {
            (&mut lo[0], &mut hi[0])
        } else {
            (&mut hi[0], &mut lo[0])
        };
        // Slices, not `&Vec`s (see step_begin).
        let (nodes, bcs, bodies) = (self.nodes.as_slice(), self.bcs.as_slice(), self.bodies.as_slice());
        let (start, entries) = (self.start.as_slice(), self.entries.as_slice());
        // 6. node_forces: gather of shell and contact forces, second Verlet half-step.
        let (slot_index, pool) = (
            self.slot_index[1 - self.side].as_slice(),
            self.pool[1 - self.side].as_slice(),
        );
        let slot_marks = self.slot_marks.as_slice();
        let (link_start, link_list, link_force) = (
            self.link_start.as_slice(),
            self.link_list.as_slice(),
            self.link_force.as_slice(),
        );
        self.resting.prepare_node_pass(modal);
        let inputs = NodeInputs {
            p: &p,
            nodes,
            bcs,
            bodies,
            cols: &self.shell_cols,
            lane_mass: &self.lane_mass,
            start,
            entries,
            slot_index,
            pool,
            slot_marks,
            link_start,
            link_list,
            link_force,
            modal,
            rest_skip: self.resting.node_pass_skip(),
        };
        // node_forces of each chunk, eight nodes at a time where only the shell acts (the same bits).
        if integrate_next {
            let integrate_inputs = IntegrateInputs {
                skip: self.resting.skip(),
                ..IntegrateInputs::new(&p, nodes, bcs, &self.x_ref)
            };
            let disp = new
                .par_chunks_mut(CHUNK)
                .zip(old.par_chunks_mut(CHUNK))
                .enumerate()
                .map(move |(k, (sc, next))| {
                    node_forces_run(k * CHUNK, &inputs, sc);
                    integrate_run(k * CHUNK, &integrate_inputs, sc, next)
                })
                .reduce(|| 0.0f32, f32::max);
            self.preintegrated = Some(disp);
        } else {
            new.par_chunks_mut(CHUNK)
                .enumerate()
                .for_each(move |(k, sc)| node_forces_run(k * CHUNK, &inputs, sc));
        }
        let words = self.slot_marks.len() / 2;
        self.resting.after_node_pass(&self.slot_marks[words..]);
        self.side = 1 - self.side;
    }

    #[allow(clippy::too_many_arguments)]
    fn rebuild(
        p: &SimParams,
        nodes: &[NodeRecord],
        bodies: &[Body],
        pos: &[NodeState],
        start: &mut Vec<u32>,
        entries: &mut Vec<Entry>,
        slot_index: &mut Vec<u32>,
        x_ref: &mut [[f32; 2]],
    ) {
        let n = nodes.len();
        // The grids (cell side from the longest free segment now; wall segments in the segment
        // grid).
        let build = GridBuild::new(p, nodes, bodies, pos);
        let (p, grid) = (&build.params, build.grid());
        // Neighbour lists: each chunk of free nodes visits its candidates once (sorted per node),
        // then offsets by a scan, contact slots (friction histories) carried over. A wall node's
        // list holds only free nodes (`pair_listed`: never two frozen ones) and lists are
        // symmetric (`wall_routes_list_every_pair_once`), so it is read off the free nodes' lists
        // (in increasing order, as the search sorts it) instead of searched: along a finely cut
        // wall the cells around a wall node are full of other wall nodes, and the search cost
        // the build a pass over them per wall node (the GPU's `neighbor_count`/`neighbor_fill`
        // still search, the same lists).
        let frozen = |x: usize| bodies[nodes[x].body as usize].flags & BODY_FROZEN != 0;
        let chunks: Vec<(Vec<u32>, Vec<u32>)> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|k| {
                let (c0, c1) = (k * CHUNK, ((k + 1) * CHUNK).min(n));
                let mut counts = Vec::with_capacity(c1 - c0);
                let mut found = Vec::new();
                for x in c0..c1 {
                    let before = found.len();
                    if !frozen(x) {
                        neighbor_candidates(x, p, nodes, bodies, pos, &grid, &mut found);
                    }
                    counts.push((found.len() - before) as u32);
                }
                (counts, found)
            })
            .collect();
        let mut new_start: Vec<u32> = chunks.iter().flat_map(|(c, _)| c.iter().copied()).collect();
        new_start.push(0);
        // (Node x, its list) for every node, in order (wall nodes' lists empty here).
        let free_lists = || {
            chunks.iter().enumerate().flat_map(|(k, (counts, found))| {
                let mut at = 0;
                counts.iter().enumerate().map(move |(j, &c)| {
                    let list = &found[at..at + c as usize];
                    at += c as usize;
                    (k * CHUNK + j, list)
                })
            })
        };
        for (_, list) in free_lists() {
            for &d in list.iter().filter(|&&d| frozen(d as usize)) {
                new_start[d as usize] += 1;
            }
        }
        prefix_scan(&mut new_start);
        let total = new_start[n] as usize;
        let mut new_neighbors = vec![0u32; total];
        let mut wall_cursor = new_start.clone();
        for (x, list) in free_lists() {
            let at = new_start[x] as usize;
            new_neighbors[at..at + list.len()].copy_from_slice(list);
            for &d in list.iter().filter(|&&d| frozen(d as usize)) {
                new_neighbors[wall_cursor[d as usize] as usize] = x as u32;
                wall_cursor[d as usize] += 1;
            }
        }
        let mut new_index = vec![NO_SLOT; total];
        {
            let ic = split_by(&mut new_index, &new_start);
            let (old_start, old_entries, old_index) = (&*start, &*entries, &*slot_index);
            let (ns, nn) = (&new_start, &new_neighbors);
            ic.into_par_iter().enumerate().with_min_len(CHUNK).for_each(|(x, i)| {
                let own = &nn[ns[x] as usize..ns[x + 1] as usize];
                carry_slot_index(x, old_start, old_entries, old_index, own, i)
            });
        }
        *start = new_start;
        *entries = new_neighbors.iter().map(|&neighbor| Entry { neighbor }).collect();
        *slot_index = new_index;
        for (r, s) in x_ref.iter_mut().zip(pos) {
            *r = [s.pos_hi[0] + s.pos_lo[0], s.pos_hi[1] + s.pos_lo[1]];
        }
    }
}

/// What the coupled modal–SPD stepper reads of the SPD state between phases 5 and 6 of a step.
pub(crate) struct SpdView<'a> {
    /// Node states at x_{n+1}, with v_{n+½} in `vel` (forces not yet updated).
    pub state: &'a [NodeState],
}

/// Splits `data` into one mutable chunk per node following the CSR offsets `start`.
fn split_by<'a, T>(data: &'a mut [T], start: &[u32]) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(start.len().saturating_sub(1));
    let mut rest = data;
    for w in start.windows(2) {
        let (head, tail) = rest.split_at_mut((w[1] - w[0]) as usize);
        out.push(head);
        rest = tail;
    }
    out
}

/// Splits `data` (CSR over the nodes by `start`) into one mutable chunk per `chunk` nodes.
fn split_by_chunks<'a, T>(data: &'a mut [T], start: &[u32], chunk: usize) -> Vec<&'a mut [T]> {
    let n = start.len() - 1;
    let mut out = Vec::with_capacity(n.div_ceil(chunk));
    let mut rest = data;
    let mut c0 = 0;
    while c0 < n {
        let c1 = (c0 + chunk).min(n);
        let (head, tail) = rest.split_at_mut((start[c1] - start[c0]) as usize);
        out.push(head);
        rest = tail;
        c0 = c1;
    }
    out
}

impl Backend for CpuBackend {
    fn name(&self) -> String {
        format!("cpu ({} threads)", rayon::current_num_threads())
    }

    fn step(&mut self, steps: u32) -> anyhow::Result<()> {
        // The steps run on a thread of rayon's pool (`rayon::scope` enters it), so each parallel
        // loop of a step starts from a worker, instead of the calling thread handing it to the
        // pool and sleeping until it is done, five times a step.
        rayon::scope(|_| {
            for _ in 0..steps {
                self.one_step(true);
                self.steps += 1;
            }
        });
        Ok(())
    }

    fn steps_done(&self) -> u64 {
        self.steps
    }

    fn read_nodes(&mut self) -> anyhow::Result<Vec<NodeState>> {
        Ok(self.state[self.side].clone())
    }

    fn read_bodies(&mut self) -> anyhow::Result<Vec<BodyState>> {
        Ok(self.body_state.clone())
    }

    fn read_contacts(&mut self) -> anyhow::Result<ContactSnapshot> {
        Ok(ContactSnapshot {
            start: self.start.clone(),
            entries: self.entries.clone(),
            slots: slots_per_entry(&self.slot_index[self.side], &self.pool[self.side]),
        })
    }

    fn read_links(&mut self) -> anyhow::Result<Vec<LinkState>> {
        Ok(self.link_state.clone())
    }

    fn export_state(&mut self) -> anyhow::Result<SavedState> {
        Ok(SavedState {
            steps: self.steps,
            nodes: self.state[self.side].clone(),
            node_bc: self.scene_nodes.clone(),
            start: self.start.clone(),
            entries: self.entries.clone(),
            hist: slots_per_entry(&self.slot_index[self.side], &self.pool[self.side])
                .iter()
                .map(|s| s.hist)
                .collect(),
            x_ref: self.x_ref.clone(),
            max_disp_bits: self.max_disp.to_bits(),
            links: self.link_state.clone(),
            kind: Vec::new(),
        })
    }

    fn import_state(&mut self, saved: &SavedState) -> anyhow::Result<()> {
        let n = self.nodes.len();
        anyhow::ensure!(
            saved.nodes.len() == n && saved.start.len() == n + 1 && saved.x_ref.len() == n,
            "saved state has {} nodes, this scene {n}",
            saved.nodes.len()
        );
        self.set_boundary_conditions(&saved.node_bc)?;
        self.preintegrated = None;
        self.steps = saved.steps;
        self.state[self.side] = saved.nodes.clone();
        self.start = saved.start.clone();
        self.entries = saved.entries.clone();
        entry_owners(&self.start, &mut self.entry_owner);
        let (index, pool) = slots_from_histories(&saved.hist);
        self.slot_index = [index.clone(), index];
        self.pool = [pool.clone(), pool];
        self.x_ref = saved.x_ref.clone();
        self.max_disp = f32::from_bits(saved.max_disp_bits);
        anyhow::ensure!(
            saved.links.len() == self.links.len(),
            "saved state has {} links, this scene {}",
            saved.links.len(),
            self.links.len()
        );
        self.link_state = saved.links.clone();
        // (Only this side holds the saved state: nothing is skipped until both are written.)
        self.classify_resting();
        Ok(())
    }

    fn set_gravity(&mut self, g: [f32; 2]) -> anyhow::Result<()> {
        self.params.gravity = g;
        Ok(())
    }

    fn set_boundary_conditions(&mut self, nodes: &[Node]) -> anyhow::Result<()> {
        anyhow::ensure!(nodes.len() == self.nodes.len(), "node count changed");
        for (a, b) in self.scene_nodes.iter_mut().zip(nodes) {
            a.bc_mode = b.bc_mode;
            a.bc_velocity = b.bc_velocity;
            a.bc_force = b.bc_force;
        }
        (self.nodes, self.bcs) = device_nodes(&self.scene_nodes);
        self.lane_mass = lane_mass(&self.nodes, &self.bodies, &self.lane_ok);
        self.preintegrated = None;
        self.classify_resting();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenes::{compaction_bench, packing_in_box, PackingSpec};

    /// The falling packing of the tests: 4 × 3 cells of 24 nodes in a box.
    const FALLING: PackingSpec = PackingSpec {
        columns: 4,
        rows: 3,
        radius: 1.0,
        spread: 0.2,
        nodes_per_cell: 24,
        seed: 5,
    };

    fn bytes(v: &[NodeState]) -> Vec<u8> {
        bytemuck::cast_slice(v).to_vec()
    }

    /// `k` steps that each integrate first (never `preintegrated`): the reference.
    fn integrate_first(be: &mut CpuBackend, k: usize) {
        for _ in 0..k {
            be.one_step(false);
            be.steps += 1;
        }
    }

    /// Steps whose node pass already ran the next step's integrate give the bits of steps that
    /// integrate first, also across a change of boundary conditions and the loading of a saved
    /// state, after which the pre-integrated positions are stale (the top wall's imposed
    /// velocity changes fivefold). Scenes: the bench's compaction and a falling packing whose
    /// neighbour lists are rebuilt during the run.
    #[test]
    fn fused_integrate_equals_integrate_first() {
        let spec = FALLING;
        for (sc, walls) in [compaction_bench(9), packing_in_box(spec, 10.0)] {
            let top = sc.bodies[walls.top as usize];
            let mut faster = sc.nodes.clone();
            for nd in &mut faster[top.first as usize..(top.first + top.count) as usize] {
                nd.bc_mode = BC_VX | BC_VY;
                nd.bc_velocity = [0.0, -0.25];
            }
            let mut first = CpuBackend::new(&sc).unwrap();
            integrate_first(&mut first, 150);
            let saved = first.export_state().unwrap();
            first.set_boundary_conditions(&faster).unwrap();
            integrate_first(&mut first, 150);
            let want = bytes(&first.read_nodes().unwrap());

            let mut fused = CpuBackend::new(&sc).unwrap();
            fused.step(150).unwrap();
            fused.set_boundary_conditions(&faster).unwrap();
            fused.step(150).unwrap();
            assert_eq!(bytes(&fused.read_nodes().unwrap()), want);
            assert_eq!(fused.rebuilds(), first.rebuilds());
            // Back to step 150 from the saved state (its own boundary conditions), then as above.
            fused.import_state(&saved).unwrap();
            fused.set_boundary_conditions(&faster).unwrap();
            fused.step(150).unwrap();
            assert_eq!(bytes(&fused.read_nodes().unwrap()), want);
        }
        // The falling packing's lists were rebuilt on the way (the displacement is carried too).
        let (sc, _) = packing_in_box(spec, 10.0);
        let mut be = CpuBackend::new(&sc).unwrap();
        be.step(300).unwrap();
        assert!(be.rebuilds() > 2, "{} builds", be.rebuilds());
    }

    /// Skipping the wall nodes at rest changes no bit. Scenes: the deposit bench with its box cut
    /// at 0.01 (many wall nodes at rest, the top coming down) and a packing falling onto the floor
    /// of its box (contacts on wall nodes at rest). Phases: as built; then the top stopped and the
    /// floor raised (nodes join and leave the rest); then a save loaded into fresh backends (only
    /// one side of the state is loaded). Node states, saved states (lists, histories, build
    /// positions, the largest displacement) and build counts equal those of a backend that skips
    /// nothing (node states after every step, the rest after every phase), and the resumed run
    /// equals the uninterrupted one. The runs
    /// must skip nodes, and contacts must act on nodes the step could have skipped (the path
    /// that then runs them).
    #[test]
    fn skipping_resting_wall_nodes_changes_no_bit() {
        let spec = FALLING;
        let deposit = crate::scenes::deposit_bench(60, Some(0.01));
        let (falling, walls) = packing_in_box(spec, 10.0);
        let (mut skipped, mut touched) = (0u64, 0u64);
        let mut run = |a: &mut CpuBackend, b: &mut CpuBackend, steps: usize, phase: &str| {
            for _ in 0..steps {
                let skip = a.resting.skip().to_vec();
                a.step(1).unwrap();
                b.step(1).unwrap();
                // Nodes the step could skip, and those of them a contact then acted on.
                let words = a.slot_marks.len() / 2;
                for (s, m) in skip.iter().zip(&a.slot_marks[words..]) {
                    skipped += s.count_ones() as u64;
                    touched += (s & m).count_ones() as u64;
                }
                // Every step: a wall node's force is read by the outputs, not by the next step.
                let step = a.steps;
                assert_eq!(
                    bytes(&a.read_nodes().unwrap()),
                    bytes(&b.read_nodes().unwrap()),
                    "{phase}: step {step}"
                );
            }
            let (sa, sb) = (a.export_state().unwrap(), b.export_state().unwrap());
            assert_eq!(sa.max_disp_bits, sb.max_disp_bits, "{phase}: largest displacement");
            let raw = |v: &[[f32; 2]]| bytemuck::cast_slice::<_, u8>(v).to_vec();
            assert_eq!(raw(&sa.x_ref), raw(&sb.x_ref), "{phase}: build positions");
            assert_eq!((sa.start, sa.entries), (sb.start, sb.entries), "{phase}: lists");
            assert_eq!(raw(&sa.hist), raw(&sb.hist), "{phase}: histories");
            assert_eq!(a.rebuilds(), b.rebuilds(), "{phase}: builds");
        };
        for (name, sc, top, floor) in [
            ("deposit", &deposit, None, None),
            ("falling", &falling, Some(walls.top), Some(walls.bottom)),
        ] {
            // The deposit's top: its moving wall; its floor: the body of the lowest wall node.
            let frozen = |x: usize| sc.bodies[sc.nodes[x].body as usize].flags & BODY_FROZEN != 0;
            let top = top.unwrap_or_else(|| sc.nodes.iter().find(|nd| nd.bc_velocity[1] < 0.0).expect("top").body);
            let lowest = (0..sc.nodes.len())
                .filter(|&x| frozen(x))
                .min_by(|&a, &b| sc.init[a].pos()[1].total_cmp(&sc.init[b].pos()[1]))
                .expect("walls");
            let floor = floor.unwrap_or(sc.nodes[lowest].body);
            let mut moved = sc.nodes.clone();
            for nd in moved.iter_mut() {
                if nd.body == top {
                    nd.bc_velocity = [0.0, 0.0];
                } else if nd.body == floor {
                    nd.bc_velocity = [0.0, 0.05];
                }
            }
            let mut skipping = CpuBackend::new(sc).unwrap();
            let mut reference = CpuBackend::new(sc).unwrap().without_resting_walls();
            run(&mut skipping, &mut reference, 500, &format!("{name}, as built"));
            skipping.set_boundary_conditions(&moved).unwrap();
            reference.set_boundary_conditions(&moved).unwrap();
            run(
                &mut skipping,
                &mut reference,
                300,
                &format!("{name}, top stopped, floor raised"),
            );
            let saved = skipping.export_state().unwrap();
            run(&mut skipping, &mut reference, 200, &format!("{name}, after the save"));
            let mut resumed = CpuBackend::new(sc).unwrap();
            resumed.import_state(&saved).unwrap();
            let mut resumed_reference = CpuBackend::new(sc).unwrap().without_resting_walls();
            resumed_reference.import_state(&saved).unwrap();
            run(&mut resumed, &mut resumed_reference, 200, &format!("{name}, resumed"));
            assert_eq!(
                bytes(&resumed.read_nodes().unwrap()),
                bytes(&skipping.read_nodes().unwrap()),
                "{name}: resumed against uninterrupted"
            );
        }
        assert!(
            skipped > 100_000 && touched >= 10,
            "{skipped} node-steps skipped, {touched} with a contact"
        );
    }

    /// The largest displacement counts the skipped nodes' (`RestingWalls::disp`), also after a
    /// build: a wall far from the origin, where its nodes' build positions (x_hi + x_lo rounded to
    /// f32) leave residues |x − x_ref| up to 3·10⁻⁵, and a cell near the origin drifting by 10⁻⁵
    /// a step (no gravity), so that for a few steps after each build the skipped wall holds the
    /// largest displacement. Compared with a backend that skips nothing at every step (this
    /// test fails without the fold of `disp` into the step's displacement).
    #[test]
    fn resting_walls_count_in_the_largest_displacement() {
        let mut sc = Scene::default();
        let m = sc.add_material(crate::cpu::elastic_test_material());
        let opts = |frozen| BodyOptions {
            material: m,
            radius: 0.05,
            node_mass: 1.0,
            frozen,
            self_contact: false,
            core: Core::None,
        };
        let cell = sc.add_ring([0.0, 0.0], 0.5, 16, opts(false));
        sc.set_initial_velocity(&NodeSet::Body(cell), [1e-5 / sc.dt(), 0.0]);
        sc.add_line([1000.1, 1000.3], [1010.7, 1000.3], 200, opts(true));
        let mut skipping = CpuBackend::new(&sc).unwrap();
        let mut reference = CpuBackend::new(&sc).unwrap().without_resting_walls();
        let mut wall_decides = 0;
        for step in 1..=6000 {
            skipping.step(1).unwrap();
            reference.step(1).unwrap();
            let (a, b) = (skipping.max_disp, reference.max_disp);
            assert_eq!(a.to_bits(), b.to_bits(), "step {step}: {a} against {b}");
            wall_decides += (skipping.resting.disp == b && skipping.resting.skip().iter().any(|&w| w != 0)) as usize;
        }
        assert!(skipping.rebuilds() > 3, "{} builds", skipping.rebuilds());
        assert!(
            wall_decides > 0,
            "the walls never held the largest displacement while skipped"
        );
    }

    /// The build's lists, wall nodes' read off the free nodes' lists, are each node's own search
    /// (`neighbor_candidates`, the GPU's lists) entry for entry: the deposit bench scene settled
    /// for 600 steps, its box drawn as one segment per side (long wall segments: the segment
    /// grid's routes) and cut at 0.01 (many wall nodes per cell).
    #[test]
    fn wall_lists_read_off_the_free_lists_are_the_searched_ones() {
        for cut in [None, Some(0.01)] {
            let sc = crate::scenes::deposit_bench(60, cut);
            let mut be = CpuBackend::new(&sc).unwrap();
            be.step(600).unwrap();
            let pos = be.state[be.side].clone();
            let (mut start, mut entries, mut slots) =
                (be.start.clone(), be.entries.clone(), be.slot_index[be.side].clone());
            let mut x_ref = be.x_ref.clone();
            CpuBackend::rebuild(
                &be.params,
                &be.nodes,
                &be.bodies,
                &pos,
                &mut start,
                &mut entries,
                &mut slots,
                &mut x_ref,
            );
            let build = GridBuild::new(&be.params, &be.nodes, &be.bodies, &pos);
            let mut wall_entries = 0;
            for x in 0..be.nodes.len() {
                let mut searched = vec![];
                neighbor_candidates(
                    x,
                    &build.params,
                    &be.nodes,
                    &be.bodies,
                    &pos,
                    &build.grid(),
                    &mut searched,
                );
                let listed: Vec<u32> = entries[start[x] as usize..start[x + 1] as usize]
                    .iter()
                    .map(|e| e.neighbor)
                    .collect();
                assert_eq!(listed, searched, "walls cut at {cut:?}: list of node {x}");
                if be.bodies[be.nodes[x].body as usize].flags & BODY_FROZEN != 0 {
                    wall_entries += listed.len();
                }
            }
            assert!(
                wall_entries > 100,
                "walls cut at {cut:?}: {wall_entries} entries in wall nodes' lists"
            );
        }
    }
}
