//! 3D cell list by counting sort (count → exclusive scan → scatter) and the candidate pair list
//! it yields: for each sphere i, the spheres j > i with |x_i − x_j| < r_i + r_j + skin, sorted by
//! j, as rows of a CSR list (`NeighborList`). The order is the key (i, j): deterministic whatever
//! order a cell's spheres were scattered in, and the key by which friction history is carried
//! across rebuilds (`carry_history`). Twin: `shaders/sphere_cell_list.wgsl` (not built yet).
//!
//! The grid is a dense box of cells of side ≥ 2 r_max + skin; a sphere outside it is clamped
//! into the border cells, which keeps every pair within one cell of each other (the index is
//! monotone in the coordinate) at the cost of more candidates there.

use super::contact::ContactHistory;
use super::precision::df3_sub;
use super::state::{SphereParams, SphereState};
use crate::broad_phase::history::find_sorted;
use crate::cpu::scan::prefix_scan;
use crate::laws::vec3::dot;
use crate::model::NONE;
use rayon::prelude::*;

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

/// Sets `params`' grid (origin, cell side, dims) to the bounding box of `states`: cell side
/// 2 r_max + skin (or larger, see the cell limit), one cell of margin on each side.
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
    let mut cell = if cell > 0.0 { cell } else { 1.0 };
    // At most max(8 n, 4096) cells: a sparse or scattered set gets larger cells (still exact,
    // only more candidates per cell) instead of a grid too large to allocate.
    let limit = (8 * states.len() as u64).max(4096);
    loop {
        let dims: [u64; 3] = std::array::from_fn(|k| ((hi[k] - lo[k]) / cell).floor() as u64 + 3);
        if dims[0] * dims[1] * dims[2] <= limit {
            for k in 0..3 {
                params.grid_origin[k] = lo[k] - cell;
                params.grid_dims[k] = dims[k] as u32;
            }
            params.n_cells = (dims[0] * dims[1] * dims[2]) as u32;
            params.cell_size = cell;
            return;
        }
        cell *= 1.26;
    }
}

/// Cell coordinates of a sphere, clamped into the grid.
#[inline]
pub fn cell_of(p: &SphereParams, s: &SphereState) -> [u32; 3] {
    std::array::from_fn(|k| {
        let x = (s.pos_hi[k] + s.pos_lo[k] - p.grid_origin[k]) / p.cell_size;
        x.floor().max(0.0).min((p.grid_dims[k] - 1) as f32) as u32
    })
}

#[inline]
pub fn cell_index(p: &SphereParams, c: [u32; 3]) -> u32 {
    (c[2] * p.grid_dims[1] + c[1]) * p.grid_dims[0] + c[0]
}

/// Whether spheres a and b are candidates: centre distance < r_a + r_b + skin.
#[inline]
pub fn is_candidate(p: &SphereParams, a: &SphereState, b: &SphereState) -> bool {
    let d = df3_sub(a.pos_hi, a.pos_lo, b.pos_hi, b.pos_lo);
    let reach = a.radius + b.radius + p.skin;
    dot(d, d) < reach * reach
}

/// Spheres by cell: (`cell_start`, n_cells + 1 entries, and `cell_spheres`), by count → scan →
/// scatter. Within a cell, spheres are in index order here (the GPU's order may differ; rows are
/// sorted afterwards, so the list does not depend on it).
pub fn bin_spheres(p: &SphereParams, states: &[SphereState]) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; p.n_cells as usize + 1];
    let cells: Vec<u32> = states.iter().map(|s| cell_index(p, cell_of(p, s))).collect();
    for &c in &cells {
        start[c as usize] += 1;
    }
    let n_cells = p.n_cells as usize;
    let total = prefix_scan(&mut start[..n_cells]);
    start[n_cells] = total;
    let mut cursor = start.clone();
    let mut spheres = vec![0u32; states.len()];
    for (i, &c) in cells.iter().enumerate() {
        spheres[cursor[c as usize] as usize] = i as u32;
        cursor[c as usize] += 1;
    }
    (start, spheres)
}

/// Calls `f(j)` for every candidate j > i in the 27 cells around i's (unsorted).
fn for_each_candidate(
    p: &SphereParams,
    states: &[SphereState],
    cell_start: &[u32],
    cell_spheres: &[u32],
    i: usize,
    mut f: impl FnMut(u32),
) {
    let c = cell_of(p, &states[i]);
    for dz in -1i32..=1 {
        for dy in -1i32..=1 {
            for dx in -1i32..=1 {
                let q = [c[0] as i32 + dx, c[1] as i32 + dy, c[2] as i32 + dz];
                if (0..3).any(|k| q[k] < 0 || q[k] >= p.grid_dims[k] as i32) {
                    continue;
                }
                let ci = cell_index(p, [q[0] as u32, q[1] as u32, q[2] as u32]) as usize;
                for &j in &cell_spheres[cell_start[ci] as usize..cell_start[ci + 1] as usize] {
                    if j as usize > i && is_candidate(p, &states[i], &states[j as usize]) {
                        f(j);
                    }
                }
            }
        }
    }
}

/// Number of candidates j > i of sphere i (the count pass).
pub fn candidate_count(
    p: &SphereParams,
    states: &[SphereState],
    cell_start: &[u32],
    cell_spheres: &[u32],
    i: usize,
) -> u32 {
    let mut n = 0;
    for_each_candidate(p, states, cell_start, cell_spheres, i, |_| n += 1);
    n
}

/// Writes the candidates of sphere i into `row` and sorts it (the fill pass).
pub fn candidate_fill(
    p: &SphereParams,
    states: &[SphereState],
    cell_start: &[u32],
    cell_spheres: &[u32],
    i: usize,
    row: &mut [u32],
) {
    let mut k = 0;
    for_each_candidate(p, states, cell_start, cell_spheres, i, |j| {
        row[k] = j;
        k += 1;
    });
    // Insertion sort, as the WGSL twin (rows are short).
    for a in 1..row.len() {
        let v = row[a];
        let mut b = a;
        while b > 0 && row[b - 1] > v {
            row[b] = row[b - 1];
            b -= 1;
        }
        row[b] = v;
    }
}

/// The rows `v[start[i]..start[i + 1]]` of a CSR array as separate mutable slices (so rows can
/// be filled in parallel, each by its own task).
pub fn split_rows<'a, T>(mut v: &'a mut [T], start: &[u32]) -> Vec<&'a mut [T]> {
    let mut rows = Vec::with_capacity(start.len().saturating_sub(1));
    for w in start.windows(2) {
        let (row, rest) = std::mem::take(&mut v).split_at_mut((w[1] - w[0]) as usize);
        rows.push(row);
        v = rest;
    }
    rows
}

/// The candidate list of `states` on the grid of `p`: bin → count → scan → fill (count and
/// fill in parallel over the spheres; each row is computed alone, so the split does not matter).
pub fn build_neighbor_list(p: &SphereParams, states: &[SphereState]) -> NeighborList {
    let (cell_start, cell_spheres) = bin_spheres(p, states);
    let n = states.len();
    let mut start: Vec<u32> = (0..n)
        .into_par_iter()
        .with_min_len(256)
        .map(|i| candidate_count(p, states, &cell_start, &cell_spheres, i))
        .collect();
    start.push(0);
    let total = prefix_scan(&mut start[..n]);
    start[n] = total;
    let mut partner = vec![0u32; total as usize];
    split_rows(&mut partner, &start)
        .into_par_iter()
        .enumerate()
        .with_min_len(256)
        .for_each(|(i, row)| candidate_fill(p, states, &cell_start, &cell_spheres, i, row));
    NeighborList { start, partner }
}

/// History of the new list: a pair (i, j) present in the old list keeps its record (found by
/// binary search in i's old row), a new pair starts from zero.
pub fn carry_history(old: &NeighborList, old_history: &[ContactHistory], new: &NeighborList) -> Vec<ContactHistory> {
    let mut out = vec![ContactHistory::default(); new.len()];
    split_rows(&mut out, &new.start)
        .into_par_iter()
        .enumerate()
        .with_min_len(256)
        .for_each(|(i, out_row)| {
            if i + 1 >= old.start.len() {
                return;
            }
            let new_row = &new.partner[new.start[i] as usize..new.start[i + 1] as usize];
            for (o, &j) in out_row.iter_mut().zip(new_row) {
                // The one search of a sorted history (WGSL twin in shaders/history.wgsl).
                let k = find_sorted(old.start[i], old.start[i + 1], j, |k| old.partner[k]);
                if k != NONE {
                    *o = old_history[k as usize];
                }
            }
        });
    out
}
