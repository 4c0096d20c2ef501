//! Candidate patches of every grain (no all-pairs) on the one 3D cell list
//! (`broad_phase::grid3d`, as the spheres' pair list): the patches' bounding spheres binned by
//! centroid in a dense grid of cells of side ≥ r_max + R_max + skin over the vertices' box
//! ([`patch_grid`], the same grid on both backends), each grain looking at the 27 cells around
//! it. A patch is a candidate of a grain when |x − c| < r + R + skin (c the centroid, R the
//! largest centroid–vertex distance; f64 here); the list stays valid until a grain or a vertex
//! moves more than skin/2 (a point of a patch moves at most as far as its farthest vertex). Rows
//! are sorted by patch index (Table 1's tie-break needs it). With self-contact the vertices are
//! rows too (against the patches they do not belong to). GPU twin: `gpu_patch_list`
//! (`shaders/membrane_patch_list.wgsl`, grid3d's hooks there are `Patches`' methods here).

use super::records::MembranePatch;
use crate::broad_phase::grid3d::{build_rows, CellListKind, Grid3};
use crate::spheres::SphereState;

/// Candidates per sphere as CSR over all spheres (vertices only with self-contact), and, per local
/// vertex, the candidate corners touching it (candidate << 2 | corner), in candidate order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PatchList {
    pub start: Vec<u32>,
    pub patch: Vec<u32>,
    pub corner_start: Vec<u32>,
    pub corner: Vec<u32>,
}

/// Each patch's bounding sphere (centroid, largest centroid–vertex distance R), positions f64
/// (WGSL `patch_bounds` keeps it in f32 relative to vertex 0).
pub fn patch_bounds(states: &[SphereState], first: usize, patches: &[MembranePatch]) -> Vec<([f64; 3], f64)> {
    let vpos = |v: u32| states[first + v as usize].position();
    patches
        .iter()
        .map(|p| {
            let x = p.v.map(vpos);
            let c = [0, 1, 2].map(|k| (x[0][k] + x[1][k] + x[2][k]) / 3.0);
            let r = x.iter().map(|y| dist(*y, c)).fold(0.0, f64::max);
            (c, r)
        })
        .collect()
}

/// The grid of a build on both backends: cells of side ≥ r_grain + R_patch + skin (with 0.1 %
/// to spare for the f32 rounding of cell coordinates and of R on the GPU) over the vertices'
/// bounding box plus one cell, at most max(8 n_patches, 4096) cells (`Grid3::fit`: larger cells
/// beyond, still exact). A grain outside is clamped into the border cells (monotone, so every
/// candidate stays one cell away). r_grain: the largest radius of the spheres with a row.
pub fn patch_grid(
    states: &[SphereState],
    first: usize,
    n_vertices: usize,
    self_contact: bool,
    bounds: &[([f64; 3], f64)],
    skin: f64,
) -> Grid3 {
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for s in &states[first..first + n_vertices] {
        for k in 0..3 {
            let x = s.pos_hi[k] + s.pos_lo[k];
            lo[k] = lo[k].min(x);
            hi[k] = hi[k].max(x);
        }
    }
    if n_vertices == 0 {
        (lo, hi) = ([0.0; 3], [0.0; 3]);
    }
    let r_patch = bounds.iter().map(|b| b.1).fold(0.0, f64::max);
    let r_grain = states
        .iter()
        .enumerate()
        .filter(|(s, _)| self_contact || *s < first || *s >= first + n_vertices)
        .map(|(_, s)| s.radius as f64)
        .fold(0.0, f64::max);
    let cell = (((r_grain + r_patch + skin) * 1.001) as f32).max(1e-9);
    Grid3::fit(lo, hi, cell, (8 * bounds.len() as u64).max(4096))
}

/// grid3d's hooks for the patch list: the patches binned by centroid, the grains (and, with
/// self-contact, the vertices) as owners.
struct Patches<'a> {
    states: &'a [SphereState],
    first: usize,
    n_vertices: usize,
    patches: &'a [MembranePatch],
    bounds: &'a [([f64; 3], f64)],
    self_contact: bool,
    skin: f64,
}

impl Patches<'_> {
    fn is_vertex(&self, s: usize) -> bool {
        s >= self.first && s < self.first + self.n_vertices
    }
}

impl CellListKind for Patches<'_> {
    fn n_items(&self) -> usize {
        self.patches.len()
    }

    fn item_point(&self, k: usize) -> [f32; 3] {
        self.bounds[k].0.map(|c| c as f32)
    }

    fn n_owners(&self) -> usize {
        self.states.len()
    }

    fn owner_point(&self, s: usize) -> [f32; 3] {
        let g = &self.states[s];
        std::array::from_fn(|k| g.pos_hi[k] + g.pos_lo[k])
    }

    /// Grains always, vertices with self-contact.
    fn has_row(&self, s: usize) -> bool {
        (self.self_contact || !self.is_vertex(s)) && !self.patches.is_empty()
    }

    /// |x − c| < r + R + skin; a vertex never meets its own patches.
    fn is_near(&self, s: usize, p: u32) -> bool {
        if self.is_vertex(s) && self.patches[p as usize].v.contains(&((s - self.first) as u32)) {
            return false;
        }
        let (pc, pr) = self.bounds[p as usize];
        dist(self.states[s].position(), pc) < self.states[s].radius as f64 + pr + self.skin
    }
}

/// Builds the list (positions f64). Grains meet every patch; with `self_contact` the vertices
/// (spheres `first .. first + n_vertices`) meet the patches they do not belong to, otherwise none.
pub fn build_patch_list(
    states: &[SphereState],
    first: usize,
    patches: &[MembranePatch],
    n_vertices: usize,
    self_contact: bool,
    skin: f64,
) -> PatchList {
    let bounds = patch_bounds(states, first, patches);
    let grid = patch_grid(states, first, n_vertices, self_contact, &bounds, skin);
    let kind = Patches {
        states,
        first,
        n_vertices,
        patches,
        bounds: &bounds,
        self_contact,
        skin,
    };
    let (start, patch) = build_rows(&grid, &kind);
    // Per vertex, its candidate corners: count → scan → fill in candidate order.
    let mut count = vec![0u32; n_vertices + 1];
    for &p in &patch {
        for v in patches[p as usize].v {
            count[v as usize] += 1;
        }
    }
    let total = crate::cpu::scan::prefix_scan(&mut count[..n_vertices]);
    count[n_vertices] = total;
    let mut cursor = count.clone();
    let mut corner = vec![0u32; total as usize];
    for (c, &p) in patch.iter().enumerate() {
        for (k, v) in patches[p as usize].v.iter().enumerate() {
            corner[cursor[*v as usize] as usize] = ((c as u32) << 2) | k as u32;
            cursor[*v as usize] += 1;
        }
    }
    PatchList {
        start,
        patch,
        corner_start: count,
        corner,
    }
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wrinkled 9 × 9 sheet of vertices (128 patches) with grains of several sizes above,
    /// below and far outside it: every row equals the brute-force candidate set (all spheres ×
    /// all patches, |x − c| < r + R + skin, no vertex against its own patches), sorted, with and
    /// without self-contact; every candidate's three corners are listed once.
    #[test]
    fn rows_are_the_brute_force_candidates() {
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let (first, side, h) = (40usize, 9usize, 0.01);
        let mut states: Vec<SphereState> = (0..first)
            .map(|_| {
                let far = if rnd() < 0.1 { 0.5 } else { 0.0 };
                let x = [rnd() * 0.1 - 0.01 + far, rnd() * 0.1 - 0.01, rnd() * 0.03 - 0.015];
                SphereState::solid(x, 0.002 + 0.004 * rnd(), 1000.0, 0)
            })
            .collect();
        for i in 0..side * side {
            let x = [(i % side) as f64 * h, (i / side) as f64 * h, 0.004 * (rnd() - 0.5)];
            states.push(SphereState::solid(x, 0.001, 1000.0, 0));
        }
        states.push(SphereState::solid([0.04, 0.04, 0.003], 0.005, 1000.0, 0));
        let mut patches = Vec::new();
        for j in 0..side - 1 {
            for i in 0..side - 1 {
                let v = (j * side + i) as u32;
                let s = side as u32;
                patches.push(MembranePatch {
                    v: [v, v + 1, v + s + 1],
                    _pad: 0,
                });
                patches.push(MembranePatch {
                    v: [v, v + s + 1, v + s],
                    _pad: 0,
                });
            }
        }
        let (nv, skin) = (side * side, 0.002);
        let bounds = patch_bounds(&states, first, &patches);
        for self_contact in [false, true] {
            let list = build_patch_list(&states, first, &patches, nv, self_contact, skin);
            let mut total = 0;
            for (s, state) in states.iter().enumerate() {
                let vertex = s >= first && s < first + nv;
                let want: Vec<u32> = (0..patches.len() as u32)
                    .filter(|&p| {
                        let own = vertex && patches[p as usize].v.contains(&((s - first) as u32));
                        let (c, r) = bounds[p as usize];
                        (self_contact || !vertex) && !own && dist(state.position(), c) < state.radius as f64 + r + skin
                    })
                    .collect();
                let row = &list.patch[list.start[s] as usize..list.start[s + 1] as usize];
                assert_eq!(row, &want[..], "sphere {s}, self-contact {self_contact}");
                total += want.len();
            }
            assert!(total > 100, "a case with candidates: {total}");
            assert_eq!(list.corner.len(), 3 * total);
        }
    }
}
