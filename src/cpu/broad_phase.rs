//! Twin of `shaders/broad_phase.wgsl`: the neighbour list, built without any all-pairs stage.
//!
//! 0. `segment_max`: the cut-off (and cell side) follows the longest segment at this build.
//! 1. `grid_count` / scan / `grid_scatter`: a counting sort of the nodes into the buckets of a
//!    hashed uniform grid (cell side ≥ cut-off), so the domain needs no bounds.
//! 2. `neighbor_count` / scan / `neighbor_fill`: each node visits the 3×3 cells around it and keeps
//!    the nodes that pass `is_neighbor` (symmetric), sorted by index so the list, the sums over it
//!    and therefore the whole run are deterministic whatever order the scatter produced. Each new
//!    entry takes over the contact slot of the same pair in the previous list (found by binary
//!    search), which holds its friction history. The GPU visits the candidates twice (count, then
//!    fill at the scanned offsets); the CPU visits them once (`neighbor_candidates`, the same
//!    sorted neighbours per node), then sums the counts and carries the slots over
//!    (`carry_slot_index`, the second half of the WGSL `neighbor_fill`).

use crate::model::df32::{df_sub, dot};
use crate::model::*;

/// Length of the segment starting at node i (0 at the end of an open line); the rebuild takes
/// the maximum over nodes (GPU: `segment_max`) and uses cut-off = that + `contact_reach`.
#[inline]
pub fn segment_length(i: usize, nodes: &[NodeRecord], pos: &[NodeState]) -> f32 {
    let next = nodes[i].next;
    if next == NONE {
        return 0.0;
    }
    let (a, b) = (&pos[i], &pos[next as usize]);
    let d = df_sub(b.pos_hi, b.pos_lo, a.pos_hi, a.pos_lo);
    dot(d, d).sqrt()
}

/// Cell coordinates of a position (high part is enough: binning only needs consistency).
#[inline]
pub fn cell_of(p: &SimParams, s: &NodeState) -> [i32; 2] {
    [
        (s.pos_hi[0] / p.cell_size).floor() as i32,
        (s.pos_hi[1] / p.cell_size).floor() as i32,
    ]
}

/// Bucket of a cell in the hashed grid.
#[inline]
pub fn bucket_of(p: &SimParams, cell: [i32; 2]) -> u32 {
    ((cell[0] as u32).wrapping_mul(73_856_093) ^ (cell[1] as u32).wrapping_mul(19_349_663)) & (p.grid_buckets - 1)
}

/// The 9 buckets around a cell, duplicates (hash collisions) replaced by `NONE`.
#[inline]
pub fn neighbor_buckets(p: &SimParams, cell: [i32; 2]) -> [u32; 9] {
    let mut out = [NONE; 9];
    let mut k = 0;
    for dy in -1..=1 {
        for dx in -1..=1 {
            let b = bucket_of(p, [cell[0] + dx, cell[1] + dy]);
            let mut seen = false;
            for q in out.iter().take(k) {
                if *q == b {
                    seen = true;
                }
            }
            out[k] = if seen { NONE } else { b };
            k += 1;
        }
    }
    out
}

/// Symmetric neighbour predicate: within the cut-off, not both frozen, and for the same body only
/// with self-contact enabled and farther apart along the shell than `self_exclusion`.
#[inline]
pub fn is_neighbor(p: &SimParams, nodes: &[NodeRecord], bodies: &[Body], pos: &[NodeState], x: u32, d: u32) -> bool {
    if x == d {
        return false;
    }
    // Distance first: most candidates of the 3×3 cells fail it, and it needs no node or body
    // record (a NaN distance fails it too).
    let (px, pd) = (&pos[x as usize], &pos[d as usize]);
    let r = df_sub(pd.pos_hi, pd.pos_lo, px.pos_hi, px.pos_lo);
    let within = dot(r, r) < p.cutoff * p.cutoff; // false for NaN
    if !within {
        return false;
    }
    let (nx, nd) = (nodes[x as usize], nodes[d as usize]);
    let (bx, bd) = (bodies[nx.body as usize], bodies[nd.body as usize]);
    if bx.flags & BODY_FROZEN != 0 && bd.flags & BODY_FROZEN != 0 {
        return false;
    }
    if nx.body == nd.body {
        if bx.flags & BODY_SELF_CONTACT == 0 {
            return false;
        }
        let gap = nx.local.abs_diff(nd.local);
        let ring = if bx.flags & BODY_CLOSED != 0 {
            gap.min(bx.count - gap)
        } else {
            gap
        };
        if ring <= p.self_exclusion {
            return false;
        }
    }
    true
}

#[inline]
pub fn grid_count(i: usize, p: &SimParams, pos: &[NodeState], bucket_count: &mut [u32]) -> u32 {
    let b = bucket_of(p, cell_of(p, &pos[i]));
    bucket_count[b as usize] += 1; // atomicAdd on the GPU
    b
}

#[inline]
pub fn grid_scatter(i: usize, p: &SimParams, pos: &[NodeState], cursor: &mut [u32], bucket_nodes: &mut [u32]) {
    let b = bucket_of(p, cell_of(p, &pos[i]));
    let slot = cursor[b as usize]; // atomicAdd on the GPU
    cursor[b as usize] += 1;
    bucket_nodes[slot as usize] = i as u32;
}

/// Calls `visit(d)` for every neighbour candidate d of node x found in the 3×3 cells.
#[allow(clippy::too_many_arguments)]
fn for_each_neighbor(
    x: usize,
    p: &SimParams,
    nodes: &[NodeRecord],
    bodies: &[Body],
    pos: &[NodeState],
    bucket_start: &[u32],
    bucket_nodes: &[u32],
    mut visit: impl FnMut(u32),
) {
    for b in neighbor_buckets(p, cell_of(p, &pos[x])) {
        if b == NONE {
            continue;
        }
        for k in bucket_start[b as usize]..bucket_start[b as usize + 1] {
            let d = bucket_nodes[k as usize];
            if is_neighbor(p, nodes, bodies, pos, x as u32, d) {
                visit(d);
            }
        }
    }
}

/// Appends node x's neighbours, sorted by index, to `out`: the candidates the WGSL
/// `neighbor_count` counts and `neighbor_fill` writes, in the order it writes them.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn neighbor_candidates(
    x: usize,
    p: &SimParams,
    nodes: &[NodeRecord],
    bodies: &[Body],
    pos: &[NodeState],
    bucket_start: &[u32],
    bucket_nodes: &[u32],
    out: &mut Vec<u32>,
) {
    let base = out.len();
    for_each_neighbor(x, p, nodes, bodies, pos, bucket_start, bucket_nodes, |d| {
        // Insertion into the sorted tail out[base..].
        out.push(d);
        let mut j = out.len() - 1;
        while j > base && out[j - 1] > d {
            out[j] = out[j - 1];
            j -= 1;
        }
        out[j] = d;
    });
}

/// Index of `target` among the sorted keys `key(lo..hi)`, or `NONE` (binary search).
#[inline]
fn find_sorted(lo: u32, hi: u32, target: u32, key: impl Fn(usize) -> u32) -> u32 {
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let v = key(mid as usize);
        if v == target {
            return mid;
        }
        if v < target {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    NONE
}

/// Index of `target` in the sorted list `entries[lo..hi]`, or `NONE` (twin of WGSL `find_live` in
/// broad_phase.wgsl and `find_entry` in node_forces.wgsl).
#[inline]
pub fn find_entry(entries: &[Entry], lo: u32, hi: u32, target: u32) -> u32 {
    find_sorted(lo, hi, target, |i| entries[i].neighbor)
}

/// Contact slot (in the pool of the previous step, which holds the friction history) of node x's
/// new entries (`neighbors`, sorted), carried over from the previous list (`old_start`,
/// `old_entries`, `old_index`) by binary search; `NO_SLOT` for a new pair.
#[inline]
pub fn carry_slot_index(
    x: usize,
    old_start: &[u32],
    old_entries: &[Entry],
    old_index: &[u32],
    neighbors: &[u32],
    out_index: &mut [u32],
) {
    for (i, &d) in out_index.iter_mut().zip(neighbors) {
        let old = find_entry(old_entries, old_start[x], old_start[x + 1], d);
        *i = if old != NONE { old_index[old as usize] } else { NO_SLOT };
    }
}
