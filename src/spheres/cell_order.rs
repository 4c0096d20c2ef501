//! The CPU stepper's cell order: inside `CpuSpheres::steps` the per-sphere arrays are stored
//! sorted by cell (key: cell index, then the user's index), so that a pair's two spheres, its
//! record and the records its spheres gather are near each other in memory; between calls every
//! array is back in the user's order. This module owns the permutation and the relabelling of
//! the pair list; `cpu_stepper` moves the arrays (`enter_cell_order`, `leave_cell_order`).
//!
//! The order changes the speed, not the results, bit for bit: every pair is evaluated with the
//! sphere of lower *user* index as its i (`pair_i`, `pair_j`), and every sphere gathers its pairs
//! in the order of the partner's user index (`oriented_incident`), which is the unsorted
//! stepper's order (pairs where it is j, owners increasing, then its own row, partners
//! increasing). Walls gather their spheres in user order too. So a rerun, a checkpoint resume
//! (which sorts at other steps) and the GPU comparisons see the same bits as without the sort.
//!
//! Storage: sphere s of the sorted arrays is the user's sphere `order[s]`; the candidate list
//! is in storage labels (rows by the lower storage label, as the unsorted list, `cell_list`), so
//! a row's pairs, the spheres of a cell and their neighbours' records are contiguous.

use super::cell_list::{bin_spheres, split_rows, NeighborList};
use super::state::{SphereParams, SphereState};
use crate::cpu::scan::prefix_scan;
use rayon::prelude::*;

/// Fewest spheres for which `CpuSpheres::steps` sorts by cell (below, the arrays fit the cache
/// and the two relabellings of a call cost more than they save).
pub const CELL_ORDER_MIN: usize = 4096;

/// Fewest steps of a `CpuSpheres::steps` call that sorts: the sort and the way back cost about
/// 150 ms of CPU at 10⁵ spheres (mostly sequential relabelling), what ~3 steps of the random
/// packing save (66 → 21 ms of CPU per step); shorter calls keep the user's order.
pub const CELL_ORDER_MIN_STEPS: u64 = 16;

/// `CpuSpheres::steps` sorts only when the user's order is not cell-coherent: its pairs' mean
/// label distance (`pair_span`) above this many cell layers (n / grid_dims[2] spheres; a sorted
/// packing's is about half a layer, a random order's a third of all spheres). A packing
/// generated in lattice or cell order keeps its order and the user-order path (no relabelling).
pub const SORT_SPAN: f64 = 1.0;

/// Growth of the pairs' mean label distance (`pair_span`) since the last sort above which a
/// rebuild sorts again.
pub const DEGRADED: f64 = 2.0;

/// The spheres by (cell index, user index) on the grid of `p`: storage slot → user index.
pub fn cell_order(p: &SphereParams, states: &[SphereState]) -> Vec<u32> {
    // The counting sort of the cell list keeps a cell's spheres in index order.
    bin_spheres(p, states).1
}

/// The inverse of a permutation.
pub fn inverse(order: &[u32]) -> Vec<u32> {
    let mut inv = vec![0u32; order.len()];
    for (s, &u) in order.iter().enumerate() {
        inv[u as usize] = s as u32;
    }
    inv
}

/// `out[s] = v[order[s]]` (into the storage order; an empty array, one the stepper does not
/// use, stays empty).
pub fn gather_by<T: Copy + Send + Sync>(v: &[T], order: &[u32]) -> Vec<T> {
    if v.is_empty() {
        return Vec::new();
    }
    order.par_iter().with_min_len(4096).map(|&u| v[u as usize]).collect()
}

/// `out[order[s]] = v[s]` (back to the user's order).
pub fn scatter_by<T: Copy + Default>(v: &[T], order: &[u32]) -> Vec<T> {
    if v.is_empty() {
        return Vec::new();
    }
    let mut out = vec![T::default(); v.len()];
    for (x, &u) in v.iter().zip(order) {
        out[u as usize] = *x;
    }
    out
}

/// Rows of `width` records per sphere (`s · width + w`), moved as `gather_by`.
pub fn gather_rows<T: Copy + Send + Sync>(v: &[T], order: &[u32], width: usize) -> Vec<T> {
    if width == 0 || v.is_empty() {
        return v.to_vec();
    }
    order
        .par_iter()
        .with_min_len(4096)
        .flat_map_iter(|&u| v[u as usize * width..(u as usize + 1) * width].iter().copied())
        .collect()
}

/// Rows of `width` records per sphere, moved as `scatter_by`.
pub fn scatter_rows<T: Copy + Default>(v: &[T], order: &[u32], width: usize) -> Vec<T> {
    if width == 0 || v.is_empty() {
        return v.to_vec();
    }
    let mut out = vec![T::default(); v.len()];
    for (s, &u) in order.iter().enumerate() {
        let u = u as usize;
        out[u * width..(u + 1) * width].copy_from_slice(&v[s * width..(s + 1) * width]);
    }
    out
}

/// The pairs of `list` under new sphere labels (`map`: old label → new label): rows by the
/// lower new label, partners increasing (the list's own form), and for each new pair the index
/// of the same pair in `list` (to move the per-pair records).
pub fn relabel_pairs(list: &NeighborList, map: &[u32]) -> (NeighborList, Vec<u32>) {
    let n = list.start.len().saturating_sub(1);
    let m = list.len();
    let mut lo = vec![0u32; m];
    let mut hi = vec![0u32; m];
    for i in 0..n {
        for k in list.start[i] as usize..list.start[i + 1] as usize {
            let (a, b) = (map[i], map[list.partner[k] as usize]);
            (lo[k], hi[k]) = (a.min(b), a.max(b));
        }
    }
    let mut start = vec![0u32; n + 1];
    for &a in &lo {
        start[a as usize] += 1;
    }
    let total = prefix_scan(&mut start[..n]);
    start[n] = total;
    let mut cursor = start.clone();
    let mut partner = vec![0u32; m];
    let mut src = vec![0u32; m];
    for k in 0..m {
        let a = lo[k] as usize;
        let c = cursor[a] as usize;
        partner[c] = hi[k];
        src[c] = k as u32;
        cursor[a] += 1;
    }
    split_rows(&mut partner, &start)
        .into_par_iter()
        .zip(split_rows(&mut src, &start))
        .with_min_len(256)
        .for_each(|(row, src)| {
            // Insertion sort of the row by partner, carrying the source index (rows are short).
            for a in 1..row.len() {
                let (v, sv) = (row[a], src[a]);
                let mut b = a;
                while b > 0 && row[b - 1] > v {
                    row[b] = row[b - 1];
                    src[b] = src[b - 1];
                    b -= 1;
                }
                row[b] = v;
                src[b] = sv;
            }
        });
    (NeighborList { start, partner }, src)
}

/// Per-pair records moved to a relabelled list (`src` from `relabel_pairs`).
pub fn move_pairs<T: Copy + Send + Sync>(v: &[T], src: &[u32]) -> Vec<T> {
    if v.is_empty() {
        return Vec::new();
    }
    src.par_iter().with_min_len(4096).map(|&k| v[k as usize]).collect()
}

/// What the passes read about the pairs of a list, in storage labels.
#[derive(Clone, Debug, Default)]
pub struct Incident {
    /// Row (storage label) of every pair: the lower label of its two spheres.
    pub owner: Vec<u32>,
    /// The pair's i and j: the sphere of lower user index and the other (the force of the
    /// pair's record is on i, −force on j).
    pub pair_i: Vec<u32>,
    pub pair_j: Vec<u32>,
    /// Per sphere, its pairs as (pair << 1 | 1 when the sphere is the pair's j), ordered by the
    /// partner's user index: the j entries first, then the i entries (CSR).
    pub start: Vec<u32>,
    pub incident: Vec<u32>,
    /// Per sphere, the lowest row among its pairs' (its own label when none is lower).
    pub low_owner: Vec<u32>,
}

/// The `Incident` lists of `list`, whose labels are storage slots of `order` (slot → user
/// index; empty: the labels are the user's indices). By count → scan → fill in pair order, then
/// every sphere's entries sorted by the partner's user index (in the user's order the fill
/// already is: the pairs where a sphere is j come from lower rows, its own row follows).
pub fn oriented_incident(list: &NeighborList, order: &[u32]) -> Incident {
    let n = list.start.len().saturating_sub(1);
    let m = list.len();
    let user = |s: u32| if order.is_empty() { s } else { order[s as usize] };
    let mut owner = vec![0u32; m];
    let mut pair_i = vec![0u32; m];
    let mut pair_j = vec![0u32; m];
    let mut count = vec![0u32; n + 1];
    for s in 0..n {
        for k in list.start[s] as usize..list.start[s + 1] as usize {
            let t = list.partner[k];
            owner[k] = s as u32;
            let (i, j) = if user(s as u32) < user(t) {
                (s as u32, t)
            } else {
                (t, s as u32)
            };
            pair_i[k] = i;
            pair_j[k] = j;
            count[s] += 1;
            count[t as usize] += 1;
        }
    }
    let total = prefix_scan(&mut count[..n]);
    count[n] = total;
    let mut cursor = count.clone();
    let mut incident = vec![0u32; total as usize];
    for k in 0..m {
        let (i, j) = (pair_i[k] as usize, pair_j[k] as usize);
        incident[cursor[i] as usize] = (k as u32) << 1;
        cursor[i] += 1;
        incident[cursor[j] as usize] = ((k as u32) << 1) | 1;
        cursor[j] += 1;
    }
    if !order.is_empty() {
        let other = |e: u32| {
            let k = (e >> 1) as usize;
            user(if e & 1 == 1 { pair_i[k] } else { pair_j[k] })
        };
        split_rows(&mut incident, &count)
            .into_par_iter()
            .with_min_len(256)
            .for_each(|row| {
                for a in 1..row.len() {
                    let v = row[a];
                    let key = other(v);
                    let mut b = a;
                    while b > 0 && other(row[b - 1]) > key {
                        row[b] = row[b - 1];
                        b -= 1;
                    }
                    row[b] = v;
                }
            });
    }
    let low_owner = (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .map(|s| {
            incident[count[s] as usize..count[s + 1] as usize]
                .iter()
                .map(|&e| owner[(e >> 1) as usize])
                .fold(s as u32, u32::min)
        })
        .collect();
    Incident {
        owner,
        pair_i,
        pair_j,
        start: count,
        incident,
        low_owner,
    }
}

/// Mean label distance of the pairs of `list` (partner − row): about one cell layer right
/// after a sort, a third of the spheres in a random order. A rebuild re-sorts when it has grown
/// past `DEGRADED` times its value at the last sort (spheres that flowed away from their cell
/// neighbours in memory); a packing that deforms slowly keeps its order, whatever the grid's
/// refit does to the cell indices.
pub fn pair_span(list: &NeighborList) -> f64 {
    let n = list.start.len().saturating_sub(1);
    let sum: u64 = (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .map(|s| {
            list.partner[list.start[s] as usize..list.start[s + 1] as usize]
                .iter()
                .map(|&t| (t as u64).saturating_sub(s as u64))
                .sum::<u64>()
        })
        .sum();
    sum as f64 / list.len().max(1) as f64
}
