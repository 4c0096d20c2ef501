//! The one 3D cell list of the sphere kinds, CPU twin of `shaders/grid3d.wgsl` (same names and
//! structure): a dense box of cells ([`Grid3`]), items binned by count → exclusive scan → scatter
//! ([`bin_items`]), each owner's candidates from the 27 cells around its own ([`grid_walk`]) as
//! CSR rows sorted by item ([`build_rows`]: [`cand_count`] → scan → [`cand_fill`]), and the
//! history of a row carried from the previous list by binary search ([`carry_rows`], the one
//! search [`find_sorted`]). Used by the spheres' pair list (`spheres::cell_list`: items and
//! owners the spheres) and the membrane's patch list (`membrane::patch_list`: items the patches,
//! owners the grains); what differs between them is a [`CellListKind`], the WGSL importer's hooks.
//!
//! A point outside the box is clamped into the border cells: the cell index stays monotone in
//! the coordinate, so two points closer than a cell side stay within one cell of each other and
//! the walk misses no candidate (the border cells only hold more).

use super::history::find_sorted;
use crate::cpu::scan::prefix_scan;
use crate::model::NONE;
use rayon::prelude::*;

/// The grid of a build (WGSL `Grid3`; the sphere stepper's device grid, 32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Grid3 {
    pub origin: [f32; 3],
    pub cell_size: f32,
    pub dims: [u32; 3],
    pub n_cells: u32,
}

/// A parameter record that holds a grid (`SphereParams`, `PatchListParams`).
pub trait GridParams {
    fn grid(&self) -> Grid3;
}

impl Grid3 {
    /// The grid held by `p`.
    pub fn of(p: &impl GridParams) -> Grid3 {
        p.grid()
    }

    /// WGSL `grid_fit`: the grid over the box lo..hi with one cell of margin, side `cell`
    /// (× 1.26 until at most `limit` cells: a sparse or scattered set gets larger cells, still
    /// exact, only more candidates per cell, instead of a grid too large to allocate);
    /// dims[k] = floor((hi − lo)/side) + 3.
    pub fn fit(lo: [f32; 3], hi: [f32; 3], cell: f32, limit: u64) -> Grid3 {
        let mut cell = cell;
        loop {
            let dims: [u64; 3] = std::array::from_fn(|k| ((hi[k] - lo[k]) / cell).floor() as u64 + 3);
            if dims[0] * dims[1] * dims[2] <= limit {
                return Grid3 {
                    origin: std::array::from_fn(|k| lo[k] - cell),
                    cell_size: cell,
                    dims: dims.map(|d| d as u32),
                    n_cells: (dims[0] * dims[1] * dims[2]) as u32,
                };
            }
            cell *= 1.26;
        }
    }

    /// WGSL `grid_cell_of`: cell coordinates of point x, clamped into the grid.
    #[inline]
    pub fn cell_of(&self, x: [f32; 3]) -> [u32; 3] {
        std::array::from_fn(|k| {
            ((x[k] - self.origin[k]) / self.cell_size)
                .floor()
                .max(0.0)
                .min((self.dims[k] - 1) as f32) as u32
        })
    }

    /// WGSL `grid_cell_index`.
    #[inline]
    pub fn cell_index(&self, c: [u32; 3]) -> u32 {
        (c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]
    }
}

/// What a cell list lists (the hooks a WGSL importer of grid3d provides, same names).
pub trait CellListKind: Sync {
    /// Items binned.
    fn n_items(&self) -> usize;
    /// The point item i is binned by.
    fn item_point(&self, i: usize) -> [f32; 3];
    /// Rows of the list.
    fn n_owners(&self) -> usize;
    /// The point whose 27 cells owner i visits.
    fn owner_point(&self, i: usize) -> [f32; 3];
    /// Whether owner i looks for candidates at all.
    fn has_row(&self, i: usize) -> bool;
    /// Whether item j is a candidate of owner i.
    fn is_near(&self, i: usize, j: u32) -> bool;
}

/// Items by cell: `start` (n_cells + 1 entries) and `items`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CellBins {
    pub start: Vec<u32>,
    pub items: Vec<u32>,
}

/// Twin of cell_clear → cell_count → scan → cell_cursor → cell_scatter. Within a cell, items
/// are in index order here (the GPU's order may differ; rows are sorted afterwards, so the list
/// does not depend on it).
pub fn bin_items(g: &Grid3, kind: &impl CellListKind) -> CellBins {
    let mut start = vec![0u32; g.n_cells as usize + 1];
    let cells: Vec<u32> = (0..kind.n_items())
        .map(|i| g.cell_index(g.cell_of(kind.item_point(i))))
        .collect();
    for &c in &cells {
        start[c as usize] += 1;
    }
    let n_cells = g.n_cells as usize;
    let total = prefix_scan(&mut start[..n_cells]);
    start[n_cells] = total;
    let mut cursor = start.clone();
    let mut items = vec![0u32; cells.len()];
    for (i, &c) in cells.iter().enumerate() {
        items[cursor[c as usize] as usize] = i as u32;
        cursor[c as usize] += 1;
    }
    CellBins { start, items }
}

/// Calls `f(j)` for every candidate j of owner i in the 27 cells around its own (z, y, x outer
/// to inner; unsorted).
pub fn grid_walk(g: &Grid3, bins: &CellBins, kind: &impl CellListKind, i: usize, mut f: impl FnMut(u32)) {
    let c = g.cell_of(kind.owner_point(i));
    for dz in -1i32..=1 {
        for dy in -1i32..=1 {
            for dx in -1i32..=1 {
                let q = [c[0] as i32 + dx, c[1] as i32 + dy, c[2] as i32 + dz];
                if (0..3).any(|k| q[k] < 0 || q[k] >= g.dims[k] as i32) {
                    continue;
                }
                let ci = g.cell_index([q[0] as u32, q[1] as u32, q[2] as u32]) as usize;
                for &j in &bins.items[bins.start[ci] as usize..bins.start[ci + 1] as usize] {
                    if kind.is_near(i, j) {
                        f(j);
                    }
                }
            }
        }
    }
}

/// Number of candidates of owner i (the count pass).
pub fn cand_count(g: &Grid3, bins: &CellBins, kind: &impl CellListKind, i: usize) -> u32 {
    if !kind.has_row(i) {
        return 0;
    }
    let mut n = 0;
    grid_walk(g, bins, kind, i, |_| n += 1);
    n
}

/// Writes the candidates of owner i into `row` and sorts it (the fill pass).
pub fn cand_fill(g: &Grid3, bins: &CellBins, kind: &impl CellListKind, i: usize, row: &mut [u32]) {
    if !kind.has_row(i) {
        return;
    }
    let mut k = 0;
    grid_walk(g, bins, kind, i, |j| {
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

/// The candidate list on grid `g` as CSR (`start`, n_owners + 1 entries; `cand`): bin → count →
/// scan → fill (count and fill in parallel over the owners; each row is computed alone, so the
/// split does not matter).
pub fn build_rows(g: &Grid3, kind: &impl CellListKind) -> (Vec<u32>, Vec<u32>) {
    let bins = bin_items(g, kind);
    let n = kind.n_owners();
    let mut start: Vec<u32> = (0..n)
        .into_par_iter()
        .with_min_len(256)
        .map(|i| cand_count(g, &bins, kind, i))
        .collect();
    start.push(0);
    let total = prefix_scan(&mut start[..n]);
    start[n] = total;
    let mut cand = vec![0u32; total as usize];
    split_rows(&mut cand, &start)
        .into_par_iter()
        .enumerate()
        .with_min_len(256)
        .for_each(|(i, row)| cand_fill(g, &bins, kind, i, row));
    (start, cand)
}

/// Twin of WGSL `cand_carry`: the history of the new list (`new_start`, `new_cand`), a
/// candidate found in the same row of the old list (`old_start`, `old_cand`, by
/// [`find_sorted`]) keeping its record, a new one (or a row past the old list) starting from
/// `H::default()`.
pub fn carry_rows<H: Copy + Default + Send + Sync>(
    old_start: &[u32],
    old_cand: &[u32],
    old_history: &[H],
    new_start: &[u32],
    new_cand: &[u32],
) -> Vec<H> {
    let mut out = vec![H::default(); new_cand.len()];
    split_rows(&mut out, new_start)
        .into_par_iter()
        .enumerate()
        .with_min_len(256)
        .for_each(|(i, out_row)| {
            if i + 1 >= old_start.len() {
                return;
            }
            let new_row = &new_cand[new_start[i] as usize..new_start[i + 1] as usize];
            for (o, &j) in out_row.iter_mut().zip(new_row) {
                let k = find_sorted(old_start[i], old_start[i + 1], j, |k| old_cand[k]);
                if k != NONE {
                    *o = old_history[k as usize];
                }
            }
        });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points on a line, each owner's candidates the items within `reach` (all pairs, by brute
    /// force, against the grid's rows).
    struct Line {
        x: Vec<f32>,
        reach: f32,
    }

    impl CellListKind for Line {
        fn n_items(&self) -> usize {
            self.x.len()
        }
        fn item_point(&self, i: usize) -> [f32; 3] {
            [self.x[i], 0.5 * self.x[i], 0.0]
        }
        fn n_owners(&self) -> usize {
            self.x.len()
        }
        fn owner_point(&self, i: usize) -> [f32; 3] {
            self.item_point(i)
        }
        fn has_row(&self, i: usize) -> bool {
            i % 5 != 4
        }
        fn is_near(&self, i: usize, j: u32) -> bool {
            let (a, b) = (self.item_point(i), self.item_point(j as usize));
            let d2: f32 = (0..3).map(|k| (a[k] - b[k]).powi(2)).sum();
            j as usize != i && d2 < self.reach * self.reach
        }
    }

    /// The rows equal the brute-force candidate sets, sorted, whatever the cell growth (a cell
    /// limit far below the box's forces larger cells); owners without a row have none.
    #[test]
    fn rows_are_the_brute_force_candidates_sorted() {
        let x: Vec<f32> = (0..200).map(|i| ((i * 37) % 200) as f32 * 0.13 - 3.0).collect();
        let kind = Line { x, reach: 0.5 };
        for limit in [4096u64, 30] {
            let g = Grid3::fit([-3.0, -1.5, 0.0], [23.0, 11.5, 0.0], kind.reach, limit);
            assert!(g.n_cells as u64 <= limit);
            let (start, cand) = build_rows(&g, &kind);
            for i in 0..kind.n_owners() {
                let want: Vec<u32> = (0..kind.n_items() as u32)
                    .filter(|&j| kind.has_row(i) && kind.is_near(i, j))
                    .collect();
                assert_eq!(&cand[start[i] as usize..start[i + 1] as usize], &want[..], "owner {i}");
            }
        }
    }

    /// A point outside the grid is clamped into the border cell.
    #[test]
    fn cell_of_clamps_into_the_grid() {
        let g = Grid3::fit([0.0; 3], [1.0; 3], 0.5, 4096);
        assert_eq!(g.dims, [5, 5, 5]);
        assert_eq!(g.cell_of([-10.0, 0.2, 10.0]), [0, 1, 4]);
        assert_eq!(g.cell_index([1, 2, 3]), (3 * 5 + 2) * 5 + 1);
    }

    /// A candidate still listed keeps its record, a new one starts empty, rows past the old
    /// list are new.
    #[test]
    fn carry_rows_follows_the_candidate() {
        let (old_start, old_cand, old_h) = (vec![0, 2, 3], vec![4, 7, 1], vec![10.0f32, 20.0, 30.0]);
        let (new_start, new_cand) = (vec![0, 2, 3, 4], vec![2, 7, 1, 1]);
        let h = carry_rows(&old_start, &old_cand, &old_h, &new_start, &new_cand);
        assert_eq!(h, vec![0.0, 20.0, 30.0, 0.0]);
    }
}
