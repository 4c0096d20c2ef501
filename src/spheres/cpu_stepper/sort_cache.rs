//! The cell order kept from one `CpuSpheres::steps` call to the next. Every array is in the
//! user's order between calls (`cell_order`), but the permutation and the pair list's two
//! labellings (the user's and the sorted one, each with its incident lists) do not change
//! while the list does not: the driver calls `steps(k)` once per output interval, and a call
//! without a list build would otherwise sort, relabel the list and rebuild the incident lists
//! on entry, then relabel and rebuild them again on the way out (most of a call's fixed cost,
//! and mostly sequential).
//!
//! So the stepper keeps here, at the end of a call, the permutation, the sorted labelling
//! and the maps between the two labellings' pair indices, for the user-order list it leaves
//! behind (`key`, a copy, compared in full at the next entry: any change to the list between
//! calls — a `step`, a rebuild, a checkpoint — makes it miss). On entry the stepper takes the
//! user labelling in here and puts the sorted one in place; on the way out, when no list was
//! built during the call, the reverse. Only the per-sphere and per-pair records are moved
//! (parallel gathers). The permutation of an earlier call is as good as a fresh one for the
//! results — any permutation gives the same bits (`cell_order`) — and a rebuild re-sorts when
//! the spheres have flowed (`DEGRADED`), as before.

use super::CpuSpheres;
use crate::spheres::cell_list::NeighborList;

/// A labelling of the candidate list with what `CpuSpheres::set_incident` derives from it.
#[derive(Clone, Debug, Default)]
pub struct Labelling {
    pub list: NeighborList,
    pub owner: Vec<u32>,
    pub pair_i: Vec<u32>,
    pub pair_j: Vec<u32>,
    pub incident_start: Vec<u32>,
    pub incident: Vec<u32>,
    pub low_owner: Vec<u32>,
}

impl Labelling {
    /// The stepper's labelling, moved out (the stepper's fields left empty).
    pub fn take(sys: &mut CpuSpheres) -> Labelling {
        Labelling {
            list: std::mem::take(&mut sys.list),
            owner: std::mem::take(&mut sys.owner),
            pair_i: std::mem::take(&mut sys.pair_i),
            pair_j: std::mem::take(&mut sys.pair_j),
            incident_start: std::mem::take(&mut sys.incident_start),
            incident: std::mem::take(&mut sys.incident),
            low_owner: std::mem::take(&mut sys.low_owner),
        }
    }

    /// Moved into the stepper's fields.
    pub fn put(self, sys: &mut CpuSpheres) {
        sys.list = self.list;
        sys.owner = self.owner;
        sys.pair_i = self.pair_i;
        sys.pair_j = self.pair_j;
        sys.incident_start = self.incident_start;
        sys.incident = self.incident;
        sys.low_owner = self.low_owner;
    }

    fn bytes(&self) -> usize {
        4 * (self.list.start.len()
            + self.list.partner.len()
            + self.owner.len()
            + self.pair_i.len()
            + self.pair_j.len()
            + self.incident_start.len()
            + self.incident.len()
            + self.low_owner.len())
    }
}

/// What the stepper keeps between calls for the next one's cell order.
#[derive(Clone, Debug, Default)]
pub struct SortCache {
    /// The user-order list the rest belongs to (empty: nothing kept).
    pub key: NeighborList,
    /// The permutation (storage slot → user index), its inverse and `pair_span` at the sort.
    pub order: Vec<u32>,
    pub inv: Vec<u32>,
    pub span: f64,
    /// The sorted labelling, between calls; the user labelling, inside a call.
    pub sorted: Option<Labelling>,
    pub user: Option<Labelling>,
    /// Pair maps: `to_sorted[k]` is the user-labelled index of sorted pair k, `to_user[k]` the
    /// sorted index of user pair k (records move by `cell_order::move_pairs`).
    pub to_sorted: Vec<u32>,
    pub to_user: Vec<u32>,
    /// The stepper's list builds at the entry of the current call (none since: the user
    /// labelling taken in at the entry is still the list's).
    pub rebuilds: u64,
}

impl SortCache {
    /// Whether the kept sorted labelling belongs to `list` (the user-order list of `n` spheres).
    pub fn fits(&self, list: &NeighborList, n: usize) -> bool {
        self.sorted.is_some() && self.order.len() == n && self.key == *list
    }

    /// Host memory held.
    pub fn bytes(&self) -> usize {
        4 * (self.key.start.len()
            + self.key.partner.len()
            + self.order.len()
            + self.inv.len()
            + self.to_sorted.len()
            + self.to_user.len())
            + self.sorted.as_ref().map_or(0, Labelling::bytes)
            + self.user.as_ref().map_or(0, Labelling::bytes)
    }
}
