//! CPU twins of the coupling kernels (shaders/modal_spd_contact.wgsl), same names and order of
//! operations, and the CPU backend of the coupled stepper.
//!
//! Per step (see `stepper` for the order): `modal_body_update_coupled` (per modal body: its
//! modal generalized force, then its nodes' coupling slots, then the reactions of the SPD-node
//! slots that point to it, eq 26–28; integrate eq 42–44), `modal_node_contact` (modal walls and
//! neighbours), `spd_node_vs_modal` (per SPD node), `modal_node_vs_spd` (per modal node),
//! `spd_modal_gather` (per SPD node: own slots, then lever-rule reactions of modal-node slots),
//! each over its candidates (`super::broad_phase::couple_candidates`),
//! then the SPD node_forces with that force added.
#![allow(clippy::needless_range_loop)] // index loops mirror the WGSL kernels line by line

pub use super::backend::CoupleStatic;
use super::backend::{CoupledBackend, CoupledHost, CoupledSlots};
use super::broad_phase::CoupleLists;
use super::contact::modal_node_vs_cell;
use super::layout::SegSlot;
use super::{DIR_MODAL_NODES, MAX_CELLS};
use crate::backend::Backend;
use crate::broad_phase::pool::SlotPool;
use crate::cpu::CpuBackend;
use crate::modal::broad_phase::ModalLists;
use crate::modal::contact::{body_contact_slot, point_vs_body};
use crate::modal::cpu::{
    add_node_force, add_reaction, body_frame, modal_body_pass, modal_generalized_force, modal_integrate,
    modal_node_contacts, node_arm, surface_point, Dynamic,
};
use crate::modal::layout::*;
use crate::modal::stepper::Packed;
use crate::model::NodeState;
use rayon::prelude::*;

/// SPD node x against the level sets of its candidate modal bodies (twin of the kernel
/// `spd_node_vs_modal`; only nodes of free coupled cells have candidates); writes x's slots in
/// the pool (`out`: one per candidate, in order).
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
    let cand = &lists.cand;
    let cell = &cs.cells[cs.node_cell[x] as usize];
    let sx = &spd[x];
    let base = cand[x] as usize;
    for u in 0..out.len() {
        let b = cand[base + u];
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

/// Modal surface node k against the SPD cells listed for its body, each over the slot's
/// candidate segments (twin of `modal_node_vs_spd`); writes k's coupling slots in the pool (`out`:
/// one per listed cell; `first`: the pool index of the first).
#[allow(clippy::too_many_arguments)]
pub fn modal_node_vs_spd(
    sc: &Packed,
    mstate: &[ModalState],
    cs: &CoupleStatic,
    lists: &CoupleLists,
    spd: &[NodeState],
    k: usize,
    first: usize,
    out: &mut [SegSlot],
) {
    let (cand, seg_at) = (&lists.cand, cs.params.seg_at as usize);
    let pt = surface_point(sc, mstate, k);
    let b = pt.body;
    for t in 0..out.len() {
        let c = lists.mb_cells[b * MAX_CELLS + t];
        if cs.params.directions & DIR_MODAL_NODES == 0 {
            out[t] = SegSlot::default();
            continue;
        }
        let s = first + t;
        let segs = &cand[cand[seg_at + s] as usize..cand[seg_at + s + 1] as usize];
        let cell = &cs.cells[c as usize];
        out[t] = modal_node_vs_cell(
            &sc.params,
            &sc.pair_law(sc.bodies[b].contact_material, cell.contact_material),
            cell,
            c,
            segs,
            spd,
            pt.x_hi,
            pt.x_lo,
            pt.vel,
            out[t].hist,
        );
    }
}

/// The modal force on SPD node x (twin of `spd_modal_gather`): its own slots in list order, then,
/// per modal-node slot of its lever list (the slots whose candidate segments start or end at x,
/// in slot order: by modal body, then surface node), the lever-rule share of that slot when its
/// segment starts at x (weight 1 − t) or ends at x (weight t).
pub fn spd_modal_gather(
    cs: &CoupleStatic,
    lists: &CoupleLists,
    spd_slots: &SlotPool<ModalSlot>,
    mnode_slots: &SlotPool<SegSlot>,
    x: usize,
) -> [f32; 2] {
    let (cand, lever_at) = (&lists.cand, cs.params.lever_at as usize);
    let mut f = [0.0f32; 2];
    let cell = &cs.cells[cs.node_cell[x] as usize];
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
    for j in cand[lever_at + x] as usize..cand[lever_at + x + 1] as usize {
        let s = &mnode_slots.slots[cand[j] as usize];
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
    f
}

/// Modal body b: the modal generalized force (own slots, modal neighbours' reactions), then its
/// nodes' coupling slots, then the reactions of the SPD-node slots that point to it (its
/// reaction list, in node order; eq 26–28; arm R q, mode at p_ref), and the step of eq 42–44
/// (twin of `modal_body_update_coupled`).
pub fn modal_body_update_coupled(
    sc: &Packed,
    dy: &Dynamic,
    cs: &CoupleStatic,
    lists: &CoupleLists,
    spd_slots: &SlotPool<ModalSlot>,
    mnode_slots: &SlotPool<SegSlot>,
    b: usize,
) -> ModalState {
    let (cand, rx_at) = (&lists.cand, cs.params.rx_at as usize);
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
    for j in cand[rx_at + b] as usize..cand[rx_at + b + 1] as usize {
        let o = &spd_slots.slots[cand[j] as usize];
        if o.active != 0 {
            add_reaction(&mut g, sc, &fr, o);
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
    /// Coupling slot pools: per SPD node one per candidate modal body, per modal surface node
    /// one per cell listed for its body (`crate::broad_phase::pool`).
    pub spd_slots: SlotPool<ModalSlot>,
    pub mnode_slots: SlotPool<SegSlot>,
}

impl CpuCoupled {
    pub fn new(spd: CpuBackend, sc: Packed, state: Vec<ModalState>, cs: CoupleStatic) -> CpuCoupled {
        CpuCoupled {
            dy: Dynamic::new(&sc, state),
            lists: CoupleLists::empty(cs.cells.len(), sc.bodies.len(), cs.node_cell.len()),
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
            modal_node_contacts(sc, &dy.state, &dy.node_cand, dy.clock, &mut dy.pool);
            let state = &dy.state;
            let pos = v.state;
            spd_slots.par_for_each_owner(|x, _, out| spd_node_vs_modal(sc, state, cs, lists, pos, x, out));
            mnode_slots.par_for_each_owner(|k, first, out| modal_node_vs_spd(sc, state, cs, lists, pos, k, first, out));
            (0..pos.len())
                .into_par_iter()
                .with_min_len(256)
                .map(|x| spd_modal_gather(cs, lists, spd_slots, mnode_slots, x))
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
        modal: &ModalLists,
        lists: &CoupleLists,
        slots: Option<CoupledSlots>,
    ) -> anyhow::Result<()> {
        self.dy.node_cand = modal.node_cand.clone();
        self.dy.body_rx = modal.body_rx.clone();
        self.lists = lists.clone();
        if let Some((m, s, k)) = slots {
            self.dy.pool = m;
            self.spd_slots = s;
            self.mnode_slots = k;
        }
        Ok(())
    }
}
