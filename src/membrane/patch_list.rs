//! Candidate patches of every grain (no all-pairs): the patches' bounding spheres binned by
//! centroid in a hashed grid of cells of side ≥ r_max + R_max + skin, each grain looking at the 27
//! cells around it, as `spheres::cell_list` does for spheres. A patch is a candidate of a grain
//! when |x − c| < r + R + skin (c the centroid, R the largest centroid–vertex distance); the list
//! stays valid until a grain or a vertex moves more than skin/2 (a point of a patch moves at most
//! as far as its farthest vertex). Rows are sorted by patch index (Table 1's tie-break needs it).
//! With self-contact the vertices are rows too (against the patches they do not belong to).
//! GPU twin: `gpu_patch_list` (`shaders/membrane_patch_list.wgsl`).

use super::records::MembranePatch;
use crate::spheres::SphereState;
use rayon::prelude::*;
use std::collections::HashMap;

/// Candidates per sphere as CSR over all spheres (vertices only with self-contact), and, per local
/// vertex, the candidate corners touching it (candidate << 2 | corner), in candidate order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PatchList {
    pub start: Vec<u32>,
    pub patch: Vec<u32>,
    pub corner_start: Vec<u32>,
    pub corner: Vec<u32>,
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
    let is_vertex = |s: usize| s >= first && s < first + n_vertices;
    let is_grain = |s: usize| self_contact || !is_vertex(s);
    // A vertex never meets its own patches.
    let excluded = |s: usize, p: u32| is_vertex(s) && patches[p as usize].v.contains(&((s - first) as u32));
    let vpos = |v: u32| states[first + v as usize].position();
    let bounds: Vec<([f64; 3], f64)> = patches
        .iter()
        .map(|p| {
            let x = p.v.map(vpos);
            let c = [0, 1, 2].map(|k| (x[0][k] + x[1][k] + x[2][k]) / 3.0);
            let r = x.iter().map(|y| dist(*y, c)).fold(0.0, f64::max);
            (c, r)
        })
        .collect();
    let r_patch = bounds.iter().map(|b| b.1).fold(0.0, f64::max);
    let r_grain = (0..states.len())
        .filter(|&s| is_grain(s))
        .map(|s| states[s].radius as f64)
        .fold(0.0, f64::max);
    let h = (r_grain + r_patch + skin).max(1e-12);
    let cell = |x: [f64; 3]| x.map(|c| (c / h).floor() as i64);
    let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
    for (k, b) in bounds.iter().enumerate() {
        grid.entry(cell(b.0)).or_default().push(k as u32);
    }
    let rows: Vec<Vec<u32>> = (0..states.len())
        .into_par_iter()
        .map(|s| {
            if !is_grain(s) || patches.is_empty() {
                return Vec::new();
            }
            let x = states[s].position();
            let r = states[s].radius as f64;
            let c = cell(x);
            let mut row = Vec::new();
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        if let Some(ps) = grid.get(&[c[0] + dx, c[1] + dy, c[2] + dz]) {
                            row.extend(ps.iter().copied().filter(|&p| {
                                let (pc, pr) = bounds[p as usize];
                                dist(x, pc) < r + pr + skin && !excluded(s, p)
                            }));
                        }
                    }
                }
            }
            row.sort_unstable();
            row
        })
        .collect();
    let mut start = Vec::with_capacity(states.len() + 1);
    let mut patch = Vec::new();
    start.push(0u32);
    for row in rows {
        patch.extend(row);
        start.push(patch.len() as u32);
    }
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
