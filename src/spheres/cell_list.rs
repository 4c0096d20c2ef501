//! The spheres' candidate pair list on the one 3D cell list (`broad_phase::grid3d`): for each
//! sphere i, the spheres j > i with |x_i − x_j| < r_i + r_j + skin, sorted by j, as rows of a
//! CSR list (`NeighborList`). The order is the key (i, j): deterministic whatever order a cell's
//! spheres were scattered in, and the key by which friction history is carried across rebuilds
//! (`carry_history`, `grid3d::carry_rows`). Twin: `shaders/sphere_cell_list.wgsl` (grid3d's hooks
//! there are `Spheres`' methods here).
//!
//! The grid is a dense box of cells of side ≥ 2 r_max + skin; a sphere outside it is clamped
//! into the border cells, which keeps every pair within one cell of each other (the index is
//! monotone in the coordinate) at the cost of more candidates there.

use super::contact::ContactHistory;
use super::precision::df3_sub;
use super::state::{SphereParams, SphereState};
pub use crate::broad_phase::grid3d::split_rows;
use crate::broad_phase::grid3d::{bin_items, build_rows, carry_rows, CellListKind, Grid3, GridParams};
use crate::laws::vec3::dot;

/// Candidate pairs in CSR form: the partners of sphere i are `partner[start[i]..start[i + 1]]`,
/// all > i, increasing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NeighborList {
    pub start: Vec<u32>,
    pub partner: Vec<u32>,
}

impl NeighborList {
    pub fn len(&self) -> usize {
        self.partner.len()
    }

    pub fn is_empty(&self) -> bool {
        self.partner.is_empty()
    }

    /// The pairs (i, j) in list order.
    pub fn pairs(&self) -> Vec<(u32, u32)> {
        let mut v = Vec::with_capacity(self.partner.len());
        for i in 0..self.start.len().saturating_sub(1) {
            for k in self.start[i]..self.start[i + 1] {
                v.push((i as u32, self.partner[k as usize]));
            }
        }
        v
    }
}

impl GridParams for SphereParams {
    fn grid(&self) -> Grid3 {
        Grid3 {
            origin: self.grid_origin,
            cell_size: self.cell_size,
            dims: self.grid_dims,
            n_cells: self.n_cells,
        }
    }
}

/// Sets `params`' grid (origin, cell side, dims) to the bounding box of `states`: cell side
/// 2 r_max + skin (or larger, see the cell limit of `Grid3::fit`), one cell of margin on each
/// side.
pub fn fit_grid(params: &mut SphereParams, states: &[SphereState]) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    let mut r_max = 0.0f32;
    for s in states {
        for k in 0..3 {
            let x = s.pos_hi[k] + s.pos_lo[k];
            lo[k] = lo[k].min(x);
            hi[k] = hi[k].max(x);
        }
        r_max = r_max.max(s.radius);
    }
    if states.is_empty() {
        lo = [0.0; 3];
        hi = [0.0; 3];
    }
    let cell = 2.0 * r_max + params.skin;
    let cell = if cell > 0.0 { cell } else { 1.0 };
    // At most max(8 n, 4096) cells.
    let g = Grid3::fit(lo, hi, cell, (8 * states.len() as u64).max(4096));
    params.grid_origin = g.origin;
    params.grid_dims = g.dims;
    params.n_cells = g.n_cells;
    params.cell_size = g.cell_size;
}

/// Whether spheres a and b are candidates: centre distance < r_a + r_b + skin.
#[inline]
pub fn is_candidate(p: &SphereParams, a: &SphereState, b: &SphereState) -> bool {
    let d = df3_sub(a.pos_hi, a.pos_lo, b.pos_hi, b.pos_lo);
    let reach = a.radius + b.radius + p.skin;
    dot(d, d) < reach * reach
}

/// grid3d's hooks for the spheres: items and owners both, a row holding the j > i.
struct Spheres<'a> {
    p: &'a SphereParams,
    states: &'a [SphereState],
}

impl CellListKind for Spheres<'_> {
    fn n_items(&self) -> usize {
        self.states.len()
    }

    #[inline]
    fn item_point(&self, i: usize) -> [f32; 3] {
        let s = &self.states[i];
        std::array::from_fn(|k| s.pos_hi[k] + s.pos_lo[k])
    }

    fn n_owners(&self) -> usize {
        self.states.len()
    }

    #[inline]
    fn owner_point(&self, i: usize) -> [f32; 3] {
        self.item_point(i)
    }

    #[inline]
    fn has_row(&self, _: usize) -> bool {
        true
    }

    #[inline]
    fn is_near(&self, i: usize, j: u32) -> bool {
        j as usize > i && is_candidate(self.p, &self.states[i], &self.states[j as usize])
    }
}

/// Spheres by cell: (`cell_start`, n_cells + 1 entries, and `cell_spheres`), by count → scan →
/// scatter (`grid3d::bin_items`); within a cell in index order.
pub fn bin_spheres(p: &SphereParams, states: &[SphereState]) -> (Vec<u32>, Vec<u32>) {
    let bins = bin_items(&p.grid(), &Spheres { p, states });
    (bins.start, bins.items)
}

/// The candidate list of `states` on the grid of `p` (`grid3d::build_rows`).
pub fn build_neighbor_list(p: &SphereParams, states: &[SphereState]) -> NeighborList {
    let (start, partner) = build_rows(&p.grid(), &Spheres { p, states });
    NeighborList { start, partner }
}

/// History of the new list: a pair (i, j) present in the old list keeps its record (found by
/// binary search in i's old row), a new pair starts from zero (`grid3d::carry_rows`).
pub fn carry_history(old: &NeighborList, old_history: &[ContactHistory], new: &NeighborList) -> Vec<ContactHistory> {
    carry_rows(&old.start, &old.partner, old_history, &new.start, &new.partner)
}
