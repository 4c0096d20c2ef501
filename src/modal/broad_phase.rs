//! What the modal bodies put into the shared 2D broad phase (`crate::broad_phase`), in two
//! levels, built on the host between batches for both backends (and for the modal side of
//! coupled runs):
//!
//! 1. Bodies ([`neighbour_lists`]): bounding circles (X, `bound_radius`) closer than the skin,
//!    MAX_NB partners per body (`broad_phase::circles`).
//! 2. Primitives ([`modal_candidates`]): per surface node, the partners of its body's list whose
//!    level set it can reach — |x_k − X_j| ≤ bound_j + skin (a surface node is a point, contact
//!    radius 0; `point_vs_body` finds no contact beyond bound_j) — its contact slots after its
//!    wall slots; per body, the slots of other nodes that point to it, which its generalized
//!    force gathers (`broad_phase::primitives`). A node on the far side of its body holds no slot
//!    and costs its partner's gather nothing.
//!
//! The driver checks between builds that no centre and no surface node of a body with partners
//! moved skin/2 (`broad_phase::schedule::check_moved`). The lists keep the order of the whole-body
//! loops they replaced, less pairs that can hold no contact: results are bit-identical to them.
//! [`remap_slots`] moves the friction histories to the new slots (`history::carry_pool`).

use super::cpu::surface_point;
use super::layout::{ModalSlot, ModalState};
use super::packed::Packed;
use super::MAX_NB;
use crate::broad_phase::circles::{near_lists, pad_symmetric, Circle};
use crate::broad_phase::history::{carry_pool, Csr, Plain};
use crate::broad_phase::pool::SlotPool;
use crate::broad_phase::primitives::{pack_sections, points_near_bodies, slots_per_partner};
use crate::broad_phase::schedule::check_moved;
use crate::model::NONE;

/// The bounding circle of each modal body: its centre X and `bound_radius`.
pub fn body_circles(p: &Packed, centres: &[[f32; 2]]) -> Vec<Circle> {
    centres
        .iter()
        .zip(&p.bodies)
        .map(|(c, b)| Circle {
            centre: *c,
            radius: b.bound_radius,
        })
        .collect()
}

/// The modal–modal body lists (shared broad phase, `crate::broad_phase::circles`): bounding
/// circles closer than `skin`; per body MAX_NB partners, sorted, NONE-padded.
pub fn neighbour_lists(circles: &[Circle], skin: f32) -> anyhow::Result<Vec<u32>> {
    let lists = near_lists(circles, circles, true, skin);
    pad_symmetric(&lists, MAX_NB, "modal body", "MAX_NB")
}

/// The modal side of the list schedule, shared by the modal-only driver (`stepper::ModalRun`)
/// and the coupled one: the lists of the last build and where the centres and the surface nodes
/// were then.
#[derive(Clone, Debug)]
pub struct ModalSchedule {
    pub lists: ModalLists,
    pub centres: Vec<[f32; 2]>,
    pub surface: Vec<[f32; 2]>,
}

impl ModalSchedule {
    /// Before the first build.
    pub fn empty(p: &Packed) -> ModalSchedule {
        ModalSchedule {
            lists: ModalLists::empty(p),
            centres: vec![],
            surface: vec![],
        }
    }

    /// The next build from the bodies' `states`: first the Verlet check against this one (every
    /// centre, and the surface nodes of bodies with partners or for which `also(b)`: a coupled
    /// body with listed cells), then the new lists.
    pub fn next(
        &self,
        p: &Packed,
        states: &[ModalState],
        (skin, every): (f32, u32),
        also: impl Fn(usize) -> bool,
    ) -> anyhow::Result<ModalSchedule> {
        let centres: Vec<[f32; 2]> = states
            .iter()
            .map(|s| [s.x_hi[0] + s.x_lo[0], s.x_hi[1] + s.x_lo[1]])
            .collect();
        let surface = surface_positions(p, states);
        if !self.centres.is_empty() {
            // A body or a surface node that moved more than skin/2 since the last build may have
            // missed a partner.
            check_moved("modal body", &centres, &self.centres, 0..centres.len(), skin, every)?;
            let nb = &self.lists.nb;
            let nodes = nodes_of(p, |b| nb[b * MAX_NB] != NONE || also(b));
            check_moved("modal surface node", &surface, &self.surface, nodes, skin, every)?;
        }
        Ok(ModalSchedule {
            lists: ModalLists::build(p, &centres, &surface, skin)?,
            centres,
            surface,
        })
    }
}

/// World positions of the surface nodes (x_hi + x_lo of `surface_point`).
pub fn surface_positions(p: &Packed, states: &[ModalState]) -> Vec<[f32; 2]> {
    (0..p.nodes.len())
        .map(|k| {
            let pt = surface_point(p, states, k);
            [pt.x_hi[0] + pt.x_lo[0], pt.x_hi[1] + pt.x_lo[1]]
        })
        .collect()
}

/// The surface nodes of the bodies for which `listed(b)` (bodies with partners: the nodes the
/// Verlet check must cover, since their candidates were measured from where they were).
pub fn nodes_of<'a>(p: &'a Packed, listed: impl Fn(usize) -> bool + 'a) -> impl Iterator<Item = usize> + 'a {
    p.nodes
        .iter()
        .enumerate()
        .filter(move |(_, n)| listed(n.body as usize))
        .map(|(k, _)| k)
}

/// The modal–modal lists of one build: bodies, then the surface nodes' candidates.
#[derive(Clone, Debug, PartialEq)]
pub struct ModalLists {
    /// Per body MAX_NB partners, sorted, NONE-padded ([`neighbour_lists`]).
    pub nb: Vec<u32>,
    /// Per surface node its candidate partners (`Dynamic::node_cand`).
    pub node_cand: Vec<u32>,
    /// Per body the slots that point to it (`Dynamic::body_rx`).
    pub body_rx: Vec<u32>,
}

impl ModalLists {
    /// No pair listed.
    pub fn empty(p: &Packed) -> ModalLists {
        ModalLists {
            nb: vec![NONE; p.bodies.len() * MAX_NB],
            node_cand: pack_sections(&[&vec![vec![]; p.nodes.len()]]),
            body_rx: pack_sections(&[&vec![vec![]; p.bodies.len()]]),
        }
    }

    /// The lists of a build from the centres and surface node positions (module doc).
    pub fn build(p: &Packed, centres: &[[f32; 2]], surface: &[[f32; 2]], skin: f32) -> anyhow::Result<ModalLists> {
        let nb = neighbour_lists(&body_circles(p, centres), skin)?;
        let group = |k: usize| Some(p.nodes[k].body as usize);
        let reach = |_: usize, j: u32| p.bodies[j as usize].bound_radius as f64;
        let near = points_near_bodies(surface, group, &Plain(&nb, MAX_NB), centres, reach, skin as f64);
        let rx = slots_per_partner(&near, p.params.n_walls as usize, p.bodies.len());
        Ok(ModalLists {
            node_cand: pack_sections(&[&near]),
            body_rx: pack_sections(&[&rx]),
            nb,
        })
    }
}

/// The slot pool for the new candidates: each node keeps its wall slots, and its body-contact
/// slots (history included) follow their partners into the new lists (the shared pool and
/// history remap, `crate::broad_phase::{pool, history}`).
pub fn remap_slots(p: &Packed, old: &SlotPool<ModalSlot>, old_cand: &[u32], new_cand: &[u32]) -> SlotPool<ModalSlot> {
    let owners = (0..p.nodes.len()).map(|k| (k, k));
    let fixed = p.params.n_walls as usize;
    carry_pool(old, owners, fixed, &Csr(old_cand, 0), &Csr(new_cand, 0))
}
