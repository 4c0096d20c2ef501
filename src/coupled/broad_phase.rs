//! Broad phase between SPD bodies (cells, beams, walls) and modal bodies: bounding circles (an SPD
//! body: centroid of its nodes, radius = farthest node + r; a modal body: X and its
//! `bound_radius`) binned in a uniform cell list of side 2·r_bin + skin (r_bin: the largest modal
//! circle or twice the median SPD circle), so each modal body looks only at the 3×3 bins around
//! its own (O(n) at bounded density); the few larger SPD circles (walls) are checked against every
//! modal body. A pair is listed when the circles are closer than the skin. Gives,
//! per modal body, its nearby cells (sorted by cell index) and, per cell, its nearby modal bodies
//! (sorted by body index), each entry with the partner's slot index of the pair (`back`), so the
//! gathers of both sides find the slots of a pair. Runs on the host on the modal schedule
//! (`rebuild_every` steps), for both backends. [`remap_spd_slots`] and [`remap_mnode_slots`]
//! move the friction history to the partner's new slot when the lists change.

use super::layout::{CellRec, SegSlot};
use super::{MAX_CELLS, MAX_MB};
use crate::modal::layout::{ModalSlot, NONE};
use crate::modal::stepper::Packed;
use std::collections::BTreeMap;

/// The coupling lists: `cell_mb[2 (c · MAX_MB + u)]` = modal body, `+ 1` = index of c in that
/// body's list; `mb_cells[2 (b · MAX_CELLS + t)]` = cell, `+ 1` = index of b in that cell's list.
/// NONE-padded.
#[derive(Clone, Debug, PartialEq)]
pub struct CoupleLists {
    pub cell_mb: Vec<u32>,
    pub mb_cells: Vec<u32>,
}

impl CoupleLists {
    pub fn empty(n_cells: usize, n_modal: usize) -> CoupleLists {
        CoupleLists {
            cell_mb: vec![NONE; 2 * n_cells * MAX_MB],
            mb_cells: vec![NONE; 2 * n_modal * MAX_CELLS],
        }
    }
}

/// Bounding circle of each SPD body (centre, radius); radius −1 for bodies that are not coupled.
pub fn cell_circles(cells: &[CellRec], pos: &[[f32; 2]]) -> Vec<([f32; 2], f32)> {
    cells
        .iter()
        .map(|c| {
            if c.coupled == 0 {
                return ([0.0; 2], -1.0);
            }
            let nodes = &pos[c.first as usize..(c.first + c.count) as usize];
            let mut m = [0.0f64; 2];
            for p in nodes {
                m[0] += p[0] as f64;
                m[1] += p[1] as f64;
            }
            let m = [(m[0] / nodes.len() as f64) as f32, (m[1] / nodes.len() as f64) as f32];
            let r = nodes
                .iter()
                .map(|p| ((p[0] - m[0]).powi(2) + (p[1] - m[1]).powi(2)).sqrt())
                .fold(0.0, f32::max);
            (m, r + c.radius)
        })
        .collect()
}

/// Lists of nearby (cell, modal body) pairs: circles closer than `skin`.
pub fn couple_lists(cells: &[([f32; 2], f32)], modal: &[([f32; 2], f32)], skin: f32) -> anyhow::Result<CoupleLists> {
    let mut out = CoupleLists::empty(cells.len(), modal.len());
    // Bin side from the modal bodies and the typical cell (twice the median cell circle): a
    // few large circles (SPD walls, long beams) would make every bin hold everything, so those
    // are checked against every modal body instead.
    let mut radii: Vec<f32> = cells.iter().map(|c| c.1).filter(|r| *r >= 0.0).collect();
    radii.sort_by(f32::total_cmp);
    let median = radii.get(radii.len() / 2).copied().unwrap_or(0.0);
    let rbin = modal.iter().map(|c| c.1).fold(2.0 * median, f32::max);
    let side = 2.0 * rbin + skin;
    let key = |p: [f32; 2]| ((p[0] / side).floor() as i64, (p[1] / side).floor() as i64);
    let mut bins: BTreeMap<(i64, i64), Vec<usize>> = BTreeMap::new();
    let mut large = Vec::new();
    for (i, c) in cells.iter().enumerate() {
        if c.1 > rbin {
            large.push(i);
        } else if c.1 >= 0.0 {
            bins.entry(key(c.0)).or_default().push(i);
        }
    }
    let mut per_cell: Vec<Vec<u32>> = vec![vec![]; cells.len()];
    for (b, m) in modal.iter().enumerate() {
        let (kx, ky) = key(m.0);
        let mut list = Vec::new();
        for dy in -1..=1 {
            for dx in -1..=1 {
                let bin = bins.get(&(kx + dx, ky + dy)).map(|v| v.as_slice()).unwrap_or(&[]);
                // The large circles once, with the centre bin.
                let extra: &[usize] = if (dx, dy) == (0, 0) { &large } else { &[] };
                for &c in bin.iter().chain(extra) {
                    let d = ((m.0[0] - cells[c].0[0]).powi(2) + (m.0[1] - cells[c].0[1]).powi(2)).sqrt();
                    if d <= m.1 + cells[c].1 + skin {
                        list.push(c as u32);
                    }
                }
            }
        }
        list.sort_unstable();
        anyhow::ensure!(
            list.len() <= MAX_CELLS,
            "coupled broad phase (src/coupled/broad_phase.rs): modal body {b} is near {} SPD cells \
             (at most MAX_CELLS = {MAX_CELLS})",
            list.len()
        );
        for (t, &c) in list.iter().enumerate() {
            out.mb_cells[2 * (b * MAX_CELLS + t)] = c;
            out.mb_cells[2 * (b * MAX_CELLS + t) + 1] = per_cell[c as usize].len() as u32;
            // Modal bodies are visited in index order: each cell's list comes out sorted.
            per_cell[c as usize].push(b as u32);
        }
    }
    for (c, list) in per_cell.iter().enumerate() {
        anyhow::ensure!(
            list.len() <= MAX_MB,
            "coupled broad phase (src/coupled/broad_phase.rs): SPD cell {c} is near {} modal bodies \
             (at most MAX_MB = {MAX_MB})",
            list.len()
        );
        for (u, &b) in list.iter().enumerate() {
            let t = (0..MAX_CELLS)
                .find(|&t| out.mb_cells[2 * (b as usize * MAX_CELLS + t)] == c as u32)
                .expect("symmetric lists");
            out.cell_mb[2 * (c * MAX_MB + u)] = b;
            out.cell_mb[2 * (c * MAX_MB + u) + 1] = t as u32;
        }
    }
    Ok(out)
}

/// Moves each SPD node's slot (friction history included) to the slot of the same modal body in
/// the new list of its cell; slots of bodies no longer listed are emptied.
pub fn remap_spd_slots(
    cells: &[CellRec],
    old: &[ModalSlot],
    old_l: &CoupleLists,
    new_l: &CoupleLists,
) -> Vec<ModalSlot> {
    let mut out = old.to_vec();
    for (c, cell) in cells.iter().enumerate() {
        for x in cell.first as usize..(cell.first + cell.count) as usize {
            for u in 0..MAX_MB {
                let b = new_l.cell_mb[2 * (c * MAX_MB + u)];
                let from = (0..MAX_MB).find(|&v| b != NONE && old_l.cell_mb[2 * (c * MAX_MB + v)] == b);
                out[x * MAX_MB + u] = match from {
                    Some(v) => old[x * MAX_MB + v],
                    None => ModalSlot::default(),
                };
            }
        }
    }
    out
}

/// Moves each modal surface node's slot to the slot of the same cell in its body's new list.
pub fn remap_mnode_slots(p: &Packed, old: &[SegSlot], old_l: &CoupleLists, new_l: &CoupleLists) -> Vec<SegSlot> {
    let mut out = old.to_vec();
    for (k, node) in p.nodes.iter().enumerate() {
        let b = node.body as usize;
        for t in 0..MAX_CELLS {
            let c = new_l.mb_cells[2 * (b * MAX_CELLS + t)];
            let from = (0..MAX_CELLS).find(|&v| c != NONE && old_l.mb_cells[2 * (b * MAX_CELLS + v)] == c);
            out[k * MAX_CELLS + t] = match from {
                Some(v) => old[k * MAX_CELLS + v],
                None => SegSlot::default(),
            };
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// When a new partner enters a list ahead of an old one, the old partner's slot (and its
    /// friction history) moves with it; a partner that left is dropped; the new one starts empty.
    #[test]
    fn remap_moves_history_with_its_partner() {
        let cells = vec![CellRec {
            first: 0,
            count: 2,
            radius: 0.1,
            coupled: 1,
        }];
        let mut old_l = CoupleLists::empty(1, 3);
        let mut new_l = CoupleLists::empty(1, 3);
        // Cell 0 listed modal bodies [1, 2] before, [0, 1] now.
        old_l.cell_mb[0] = 1;
        old_l.cell_mb[2] = 2;
        new_l.cell_mb[0] = 0;
        new_l.cell_mb[2] = 1;
        let slot = |partner: u32, h: f32| ModalSlot {
            hist: [h, -h],
            partner,
            active: 1,
            ..ModalSlot::default()
        };
        let mut old = vec![ModalSlot::default(); 2 * MAX_MB];
        for x in 0..2 {
            old[x * MAX_MB] = slot(1, 1.0 + x as f32);
            old[x * MAX_MB + 1] = slot(2, 5.0);
        }
        let new = remap_spd_slots(&cells, &old, &old_l, &new_l);
        for x in 0..2 {
            assert_eq!(new[x * MAX_MB], ModalSlot::default(), "new partner 0 starts empty");
            assert_eq!(
                new[x * MAX_MB + 1],
                slot(1, 1.0 + x as f32),
                "history of partner 1 moved"
            );
            assert_eq!(new[x * MAX_MB + 2], ModalSlot::default(), "partner 2 dropped");
        }
    }

    #[test]
    fn lists_match_brute_force_and_are_symmetric() {
        let cells: Vec<([f32; 2], f32)> = (0..40)
            .map(|i| {
                (
                    [(i % 8) as f32 * 1.7, (i / 8) as f32 * 1.9],
                    // Not coupled, a few walls (large circles, checked by brute force), cells.
                    if i % 7 == 3 {
                        -1.0
                    } else if i % 19 == 5 {
                        2.5
                    } else {
                        0.8
                    },
                )
            })
            .collect();
        let modal: Vec<([f32; 2], f32)> = (0..6).map(|i| ([1.0 + i as f32 * 2.3, 3.1], 1.2)).collect();
        let l = couple_lists(&cells, &modal, 0.1).unwrap();
        assert!(
            l.mb_cells.chunks(2).any(|p| p[0] == 5),
            "a large circle (not binned) is listed"
        );
        for (b, m) in modal.iter().enumerate() {
            let brute: Vec<u32> = (0..cells.len())
                .filter(|&c| {
                    cells[c].1 >= 0.0 && {
                        let d = ((m.0[0] - cells[c].0[0]).powi(2) + (m.0[1] - cells[c].0[1]).powi(2)).sqrt();
                        d <= m.1 + cells[c].1 + 0.1
                    }
                })
                .map(|c| c as u32)
                .collect();
            let got: Vec<u32> = (0..MAX_CELLS)
                .map(|t| l.mb_cells[2 * (b * MAX_CELLS + t)])
                .filter(|&c| c != NONE)
                .collect();
            assert_eq!(got, brute, "modal body {b}");
            for (t, &c) in got.iter().enumerate() {
                let u = l.mb_cells[2 * (b * MAX_CELLS + t) + 1] as usize;
                assert_eq!(l.cell_mb[2 * (c as usize * MAX_MB + u)], b as u32);
                assert_eq!(l.cell_mb[2 * (c as usize * MAX_MB + u) + 1], t as u32);
            }
        }
    }
}
