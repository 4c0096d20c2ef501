//! CPU twins of the coupling kernels (shaders/modal_spd_contact.wgsl), same names and order of
//! operations, and the CPU backend of the coupled stepper.
//!
//! Per step (see `stepper` for the order): `modal_body_update_coupled` (per modal body: its
//! modal generalized force, then its nodes' coupling slots, then the reactions of the SPD nodes of
//! its listed cells, eq 26–28; integrate eq 42–44), `modal_node_contact` (modal walls and
//! neighbours), `spd_node_vs_modal` (per SPD node), `modal_node_vs_spd` (per modal node),
//! `spd_modal_gather` (per SPD node: own slots, then lever-rule reactions of modal-node slots),
//! then the SPD node_forces with that force added.
#![allow(clippy::needless_range_loop)] // index loops mirror the WGSL kernels line by line

pub use super::backend::CoupleStatic;
use super::backend::{CoupledBackend, CoupledHost, CoupledSlots};
use super::broad_phase::CoupleLists;
use super::contact::modal_node_vs_cell;
use super::layout::SegSlot;
use super::{CELL_COUPLED, CELL_FROZEN, DIR_MODAL_NODES, DIR_SPD_NODES, MAX_CELLS, MAX_MB};
use crate::backend::Backend;
use crate::broad_phase::pool::SlotPool;
use crate::cpu::CpuBackend;
use crate::modal::contact::{body_contact_slot, point_vs_body};
use crate::modal::cpu::{
    add_node_force, add_reaction, body_frame, modal_body_pass, modal_generalized_force, modal_integrate,
    modal_node_contacts, node_arm, surface_point, Dynamic,
};
use crate::modal::layout::*;
use crate::modal::stepper::Packed;
use crate::model::NodeState;
use rayon::prelude::*;

/// SPD node x against the level sets of the modal bodies listed for its cell (twin of the
/// kernel `spd_node_vs_modal`); writes x's slots in the pool (`out`: one per listed body).
#[allow(clippy::too_many_arguments)]
pub fn spd_node_vs_modal(
    sc: &Packed,
    mstate: &[ModalState],
    cs: &CoupleStatic,
    lists: &CoupleLists,
    spd: &[NodeState],
    x: usize,
    out: &mut [ModalSlot],
) {
    let c = cs.node_cell[x] as usize;
    let cell = &cs.cells[c];
    let sx = &spd[x];
    for u in 0..out.len() {
        let b = lists.cell_mb[2 * (c * MAX_MB + u)];
        // Only free bodies' nodes query the modal level sets (a wall is seen by its segments).
        if cell.coupled & (CELL_COUPLED | CELL_FROZEN) != CELL_COUPLED || cs.params.directions & DIR_SPD_NODES == 0 {
            out[u] = ModalSlot::default();
            continue;
        }
        let sb = &mstate[b as usize];
        let d = [
            (sx.pos_hi[0] - sb.x_hi[0]) + (sx.pos_lo[0] - sb.x_lo[0]),
            (sx.pos_hi[1] - sb.x_hi[1]) + (sx.pos_lo[1] - sb.x_lo[1]),
        ];
        let o = point_vs_body(
            sc,
            b as usize,
            sb,
            d,
            spd[x].vel,
            out[u].hist,
            cell.radius,
            cell.contact_material,
        );
        out[u] = body_contact_slot(o, b);
    }
}

/// Modal surface node k against the SPD cells listed for its body (twin of `modal_node_vs_spd`);
/// writes k's coupling slots in the pool (`out`: one per listed cell).
#[allow(clippy::too_many_arguments)]
pub fn modal_node_vs_spd(
    sc: &Packed,
    mstate: &[ModalState],
    cs: &CoupleStatic,
    lists: &CoupleLists,
    spd: &[NodeState],
    k: usize,
    out: &mut [SegSlot],
) {
    let pt = surface_point(sc, mstate, k);
    let b = pt.body;
    for t in 0..out.len() {
        let c = lists.mb_cells[2 * (b * MAX_CELLS + t)];
        if cs.params.directions & DIR_MODAL_NODES == 0 {
            out[t] = SegSlot::default();
            continue;
        }
        let cell = &cs.cells[c as usize];
        out[t] = modal_node_vs_cell(
            &sc.params,
            &sc.pair_law(sc.bodies[b].contact_material, cell.contact_material),
            cell,
            c,
            spd,
            pt.x_hi,
            pt.x_lo,
            pt.vel,
            out[t].hist,
        );
    }
}

/// The modal force on SPD node x (twin of `spd_modal_gather`): its own slots in list order, then,
/// per modal body listed for its cell (list order) and per surface node of that body (node order),
/// the lever-rule share of that node's slot for this cell when the slot's segment starts at x
/// (weight 1 − t) or ends at x (weight t).
pub fn spd_modal_gather(
    sc: &Packed,
    cs: &CoupleStatic,
    lists: &CoupleLists,
    spd_slots: &SlotPool<ModalSlot>,
    mnode_slots: &SlotPool<SegSlot>,
    x: usize,
) -> [f32; 2] {
    let mut f = [0.0f32; 2];
    let c = cs.node_cell[x] as usize;
    let cell = &cs.cells[c];
    if cell.coupled == 0 {
        return f;
    }
    for sl in spd_slots.start[x] as usize..spd_slots.start[x + 1] as usize {
        let s = &spd_slots.slots[sl];
        if s.active != 0 {
            f[0] += s.force[0];
            f[1] += s.force[1];
        }
    }
    let prev = if x as u32 == cell.first {
        cell.first + cell.count - 1
    } else {
        x as u32 - 1
    };
    for u in 0..MAX_MB {
        let b = lists.cell_mb[2 * (c * MAX_MB + u)];
        if b == NONE {
            continue;
        }
        let t = lists.cell_mb[2 * (c * MAX_MB + u) + 1] as usize;
        let br = &sc.bodies[b as usize];
        for k in br.node_first as usize..(br.node_first + br.node_count) as usize {
            let s = &mnode_slots.slots[mnode_slots.start[k] as usize + t];
            if s.active == 0 {
                continue;
            }
            if s.seg == x as u32 {
                let w = 1.0 - s.t;
                f[0] -= w * s.force[0];
                f[1] -= w * s.force[1];
            }
            if s.seg == prev {
                f[0] -= s.t * s.force[0];
                f[1] -= s.t * s.force[1];
            }
        }
    }
    f
}

/// Modal body b: the modal generalized force (own slots, modal neighbours' reactions), then its
/// nodes' coupling slots, then the reactions of the SPD nodes of its listed cells (eq 26–28;
/// arm R q, mode at p_ref), and the step of eq 42–44 (twin of `modal_body_update_coupled`).
pub fn modal_body_update_coupled(
    sc: &Packed,
    dy: &Dynamic,
    cs: &CoupleStatic,
    lists: &CoupleLists,
    spd_slots: &SlotPool<ModalSlot>,
    mnode_slots: &SlotPool<SegSlot>,
    b: usize,
) -> ModalState {
    let mut g = modal_generalized_force(sc, dy, b);
    let fr = body_frame(sc, &dy.state, b);
    let br = fr.br;
    for k in br.node_first as usize..(br.node_first + br.node_count) as usize {
        let nd = &sc.nodes[k];
        let rel = node_arm(sc, &fr.st, k, fr.c, fr.s);
        for sl in mnode_slots.start[k] as usize..mnode_slots.start[k + 1] as usize {
            let o = &mnode_slots.slots[sl];
            if o.active != 0 {
                add_node_force(&mut g, &fr, nd, rel, o.force);
            }
        }
    }
    for t in 0..MAX_CELLS {
        let ci = lists.mb_cells[2 * (b * MAX_CELLS + t)];
        if ci == NONE {
            continue;
        }
        let u = lists.mb_cells[2 * (b * MAX_CELLS + t) + 1] as usize;
        let cell = &cs.cells[ci as usize];
        for x in cell.first as usize..(cell.first + cell.count) as usize {
            let o = &spd_slots.slots[spd_slots.start[x] as usize + u];
            if o.active != 0 {
                add_reaction(&mut g, sc, &fr, o);
            }
        }
    }
    // Gravity on the rigid part (∫ρ Φ = 0 is checked when the scene is prepared).
    g.f[0] += br.mass * cs.params.gravity[0];
    g.f[1] += br.mass * cs.params.gravity[1];
    modal_integrate(sc, fr.st, b, &g)
}

/// The CPU backend of the coupled stepper: the SPD CPU backend, the modal arrays and the coupling
/// slots.
pub struct CpuCoupled {
    /// The SPD CPU backend, the packed modal scene and the coupling statics.
    pub host: CoupledHost<CpuBackend>,
    pub dy: Dynamic,
    pub lists: CoupleLists,
    /// Coupling slot pools: per SPD node one per modal body listed for its cell, per modal
    /// surface node one per cell listed for its body (`crate::broad_phase::pool`).
    pub spd_slots: SlotPool<ModalSlot>,
    pub mnode_slots: SlotPool<SegSlot>,
}

impl CpuCoupled {
    pub fn new(spd: CpuBackend, sc: Packed, state: Vec<ModalState>, cs: CoupleStatic) -> CpuCoupled {
        CpuCoupled {
            dy: Dynamic::new(&sc, state),
            lists: CoupleLists::empty(cs.cells.len(), sc.bodies.len()),
            spd_slots: SlotPool::with_counts(cs.node_cell.iter().map(|_| 0)),
            mnode_slots: SlotPool::with_counts(sc.nodes.iter().map(|_| 0)),
            host: CoupledHost { sc, cs, spd },
        }
    }

    /// One coupled step (or, with `init`, the dt = 0 force pass).
    fn step_once(&mut self, init: bool) {
        let CpuCoupled {
            host: CoupledHost { sc, cs, spd },
            dy,
            lists,
            spd_slots,
            mnode_slots,
        } = self;
        spd.step_coupled(init, |v| {
            if !init {
                // Modal bodies: forces of state n (slots of the previous pass), then eq 42–44.
                modal_body_pass(sc, dy, |dy, b| {
                    modal_body_update_coupled(sc, dy, cs, lists, spd_slots, mnode_slots, b)
                });
            }
            modal_node_contacts(sc, &dy.state, &dy.nb, dy.clock, &mut dy.pool);
            let state = &dy.state;
            let pos = v.state;
            spd_slots
                .per_owner_mut()
                .into_par_iter()
                .enumerate()
                .with_min_len(256)
                .for_each(|(x, out)| spd_node_vs_modal(sc, state, cs, lists, pos, x, out));
            mnode_slots
                .per_owner_mut()
                .into_par_iter()
                .enumerate()
                .for_each(|(k, out)| modal_node_vs_spd(sc, state, cs, lists, pos, k, out));
            (0..pos.len())
                .into_par_iter()
                .with_min_len(256)
                .map(|x| spd_modal_gather(sc, cs, lists, spd_slots, mnode_slots, x))
                .collect()
        });
    }
}

impl CoupledBackend for CpuCoupled {
    fn host(&self) -> &CoupledHost<dyn Backend> {
        &self.host
    }
    fn host_mut(&mut self) -> &mut CoupledHost<dyn Backend> {
        &mut self.host
    }
    fn init_forces(&mut self) -> anyhow::Result<()> {
        self.step_once(true);
        Ok(())
    }
    fn step(&mut self, n: u32) -> anyhow::Result<()> {
        for _ in 0..n {
            self.step_once(false);
        }
        Ok(())
    }
    fn modal_states(&mut self) -> anyhow::Result<Vec<ModalState>> {
        Ok(self.dy.state.clone())
    }
    fn modal_wall_forces(&mut self) -> anyhow::Result<Vec<[f32; 2]>> {
        Ok(self.dy.wall_force.clone())
    }
    fn slots(&mut self) -> anyhow::Result<CoupledSlots> {
        Ok((self.dy.pool.clone(), self.spd_slots.clone(), self.mnode_slots.clone()))
    }
    fn modal_dynamic(&mut self) -> anyhow::Result<Dynamic> {
        Ok(self.dy.clone())
    }
    fn set_modal_dynamic(&mut self, dy: &Dynamic) -> anyhow::Result<()> {
        self.dy = dy.clone();
        Ok(())
    }
    fn set_lists(
        &mut self,
        nb: &[u32],
        nb_back: &[u32],
        lists: &CoupleLists,
        slots: Option<CoupledSlots>,
    ) -> anyhow::Result<()> {
        self.dy.nb = nb.to_vec();
        self.dy.nb_back = nb_back.to_vec();
        self.lists = lists.clone();
        if let Some((m, s, k)) = slots {
            self.dy.pool = m;
            self.spd_slots = s;
            self.mnode_slots = k;
        }
        Ok(())
    }
}
