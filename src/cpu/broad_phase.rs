//! Twin of `shaders/broad_phase.wgsl`: the neighbour list, built without any all-pairs stage.
//!
//! 0. `segment_max`: the grid cell side (and the distance cut-off of the node grid) follows the
//!    longest segment of the *free* bodies at this build, plus `contact_reach`. Wall segments
//!    (segments of frozen bodies) do not count, whatever their length: a box drawn as four
//!    segments costs what a box subdivided at the cells' segment length costs.
//! 1. `grid_count` / scan / `grid_scatter`: a counting sort of the nodes into the buckets of a
//!    hashed uniform grid (cell side ≥ cut-off), so the domain needs no bounds. In the same pass,
//!    every long wall segment (`is_long_wall_segment`: longer than the longest free segment) is
//!    inserted, as an item (segment, cell), in every cell it crosses
//!    (`for_each_segment_cell`: the cells whose centre lies within 0.75 of a side of it), in a
//!    second bucket array over the same hash (`seg_start`, `seg_items`).
//! 2. `neighbor_count` / scan / `neighbor_fill`: each node visits the 3×3 cells around it and keeps
//!    the nodes that pass `is_neighbor` (symmetric: within the cut-off, and one of the pair within
//!    reach of the other's segments, `near_shell`). A pair of a free node and a wall node that
//!    touch through a long wall segment may lie farther apart than the cut-off: the free node finds
//!    the segment's ends through the items in its 3×3 cells (`wall_items_of_free_node`), the wall
//!    node finds the free node in the 3×3 cells around each cell of its own segments
//!    (`free_nodes_along_wall`). Each pair is counted once: a route skips a pair that an earlier
//!    one finds (`found_in_grid`, `anchor`), so the count and fill passes need no deduplication
//!    and the list is exactly the one the cut-off of the longest segment gave (same pairs, same
//!    order). Lists are sorted by index so the list, the sums over it and therefore the whole run
//!    are deterministic whatever order the scatter produced. Each new entry takes over the
//!    contact slot of the same pair in the previous list (found by binary search), which holds
//!    its friction history. The GPU visits the candidates twice (count, then fill at the scanned
//!    offsets); the CPU visits them once (`neighbor_candidates`, the same sorted neighbours per
//!    node), then sums the counts and carries the slots over (`carry_slot_index`, the second half
//!    of the WGSL `neighbor_fill`, in the shared `crate::broad_phase::history`). The CPU searches
//!    for free nodes only and reads each wall node's list off theirs (`CpuBackend::rebuild`:
//!    lists are symmetric and never pair two wall nodes), the same lists the GPU's search gives.

use super::scan::prefix_scan;
pub use crate::broad_phase::history::carry_slot_index;
use crate::model::df32::{df_sub, dot};
use crate::model::*;

/// Length of the segment starting at node i (0 at the end of an open line).
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

/// Length of the segment starting at node i when it belongs to a free body, 0 for a wall segment
/// (frozen body) or at the end of an open line. The rebuild takes the maximum over nodes (GPU:
/// `segment_max`) and uses cut-off = cell side = that + `contact_reach`.
#[inline]
pub fn free_segment_length(i: usize, nodes: &[NodeRecord], bodies: &[Body], pos: &[NodeState]) -> f32 {
    if bodies[nodes[i].body as usize].flags & BODY_FROZEN != 0 {
        return 0.0;
    }
    segment_length(i, nodes, pos)
}

/// True when node i starts a wall segment i → next (its body is frozen): such segments go into
/// the segment grid instead of setting the cell side.
#[inline]
pub fn is_wall_segment(i: usize, nodes: &[NodeRecord], bodies: &[Body]) -> bool {
    nodes[i].next != NONE && bodies[nodes[i].body as usize].flags & BODY_FROZEN != 0
}

/// True when node i starts a *long* wall segment, one longer than the longest free segment
/// (cut-off − contact_reach): only those go into the segment grid. A free node within reach of a
/// shorter one lies within the cut-off of both its ends, so the node grid finds the pair; walls
/// subdivided at the cells' segment length thus cost what they did before the segment grid.
#[inline]
pub fn is_long_wall_segment(i: usize, p: &SimParams, nodes: &[NodeRecord], bodies: &[Body], pos: &[NodeState]) -> bool {
    is_wall_segment(i, nodes, bodies) && segment_length(i, nodes, pos) > p.cutoff - p.contact_reach
}

/// A cell holds a wall segment when the cell's centre lies within this many cell sides of it:
/// more than half the diagonal (0.707), so every cell the segment crosses holds it, whatever the
/// rounding.
pub const SEGMENT_CELL_RADIUS: f32 = 0.75;

/// True when cell `cell` holds the segment a → b (high parts of the ends): its centre lies within
/// `SEGMENT_CELL_RADIUS` cell sides of the segment.
#[inline]
pub fn segment_in_cell(p: &SimParams, a: [f32; 2], b: [f32; 2], cell: [i32; 2]) -> bool {
    let h = p.cell_size;
    let c = [(cell[0] as f32 + 0.5) * h, (cell[1] as f32 + 0.5) * h];
    let ab = [b[0] - a[0], b[1] - a[1]];
    let ac = [c[0] - a[0], c[1] - a[1]];
    let len2 = dot(ab, ab);
    let t = if len2 > 0.0 {
        (dot(ac, ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let off = [ac[0] - t * ab[0], ac[1] - t * ab[1]];
    let r = SEGMENT_CELL_RADIUS * h;
    dot(off, off) <= r * r
}

/// Calls `visit(cell)` for every cell that holds the segment a → b (`segment_in_cell`), column by
/// column along its longer axis: per column, the rows the segment spans over the column widened
/// by 0.8 of a side, plus 0.8 of a side, are tested (a superset of the cells whose centre lies
/// within 0.75 of a side), so the work is proportional to the segment's length in cells.
#[inline]
pub fn for_each_segment_cell(p: &SimParams, a: [f32; 2], b: [f32; 2], mut visit: impl FnMut([i32; 2])) {
    let h = p.cell_size;
    let steep = (b[1] - a[1]).abs() > (b[0] - a[0]).abs();
    // (u, v) = (x, y), or (y, x) for a steep segment; u0 ≤ u1.
    let (ua, va, ub, vb) = if steep {
        (a[1], a[0], b[1], b[0])
    } else {
        (a[0], a[1], b[0], b[1])
    };
    let (u0, v0, u1, v1) = if ua <= ub { (ua, va, ub, vb) } else { (ub, vb, ua, va) };
    let m = 0.8 * h;
    let slope = if u1 > u0 { (v1 - v0) / (u1 - u0) } else { 0.0 };
    let i0 = ((u0 - m) / h).floor() as i32;
    let i1 = ((u1 + m) / h).floor() as i32;
    for i in i0..=i1 {
        let ulo = (i as f32 * h - m).max(u0).min(u1);
        let uhi = ((i + 1) as f32 * h + m).min(u1).max(ulo);
        let (wa, wb) = (v0 + slope * (ulo - u0), v0 + slope * (uhi - u0));
        let j0 = ((wa.min(wb) - m) / h).floor() as i32;
        let j1 = ((wa.max(wb) + m) / h).floor() as i32;
        for j in j0..=j1 {
            let cell = if steep { [j, i] } else { [i, j] };
            if segment_in_cell(p, a, b, cell) {
                visit(cell);
            }
        }
    }
}

/// Index q (0 … 8, rows then columns as `neighbor_buckets`) of the first cell of the 3×3 around
/// `cell` that holds the segment a → b, or 9 when none does. A pair found through a wall segment
/// is kept only from this cell, so several cells of one segment do not count it twice.
#[inline]
pub fn anchor(p: &SimParams, a: [f32; 2], b: [f32; 2], cell: [i32; 2]) -> u32 {
    let mut q = 0u32;
    for dy in -1..=1 {
        for dx in -1..=1 {
            if segment_in_cell(p, a, b, [cell[0] + dx, cell[1] + dy]) {
                return q;
            }
            q += 1;
        }
    }
    9
}

/// Index q of cell `c` in the 3×3 around `cell` (as `anchor`), or 9 when it is not in it.
#[inline]
pub fn index_in_3x3(cell: [i32; 2], c: [i32; 2]) -> u32 {
    let (dx, dy) = (c[0] - cell[0], c[1] - cell[1]);
    if dx.abs() > 1 || dy.abs() > 1 {
        return 9;
    }
    ((dy + 1) * 3 + dx + 1) as u32
}

/// True when the node grid's visit of x's 3×3 cells (`is_neighbor` with the cut-off) finds d:
/// the other routes skip such a pair.
#[inline]
pub fn found_in_grid(p: &SimParams, pos: &[NodeState], x: u32, d: u32) -> bool {
    let b = bucket_of(p, cell_of(p, &pos[d as usize]));
    if !neighbor_buckets(p, cell_of(p, &pos[x as usize])).contains(&b) {
        return false;
    }
    within_cutoff(p, pos, x, d)
}

/// |x − d| < cut-off (false for NaN).
#[inline]
pub fn within_cutoff(p: &SimParams, pos: &[NodeState], x: u32, d: u32) -> bool {
    let (px, pd) = (&pos[x as usize], &pos[d as usize]);
    let r = df_sub(pd.pos_hi, pd.pos_lo, px.pos_hi, px.pos_lo);
    dot(r, r) < p.cutoff * p.cutoff
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

/// Symmetric neighbour predicate of the node grid: within the cut-off, not both frozen, and for the same body only
/// with self-contact enabled and farther apart along the shell than `self_exclusion`.
#[inline]
pub fn is_neighbor(p: &SimParams, nodes: &[NodeRecord], bodies: &[Body], pos: &[NodeState], x: u32, d: u32) -> bool {
    if x == d {
        return false;
    }
    // Distance first: most candidates of the 3×3 cells fail it, and it needs no node or body
    // record (a NaN distance fails it too).
    if !within_cutoff(p, pos, x, d) {
        return false;
    }
    pair_listed(p, nodes, bodies, pos, x, d)
}

/// `is_neighbor` without the cut-off (x ≠ d): not both frozen, the self-contact rule, and one
/// node within reach of the other's segments. The wall routes, whose pairs may lie farther apart
/// than the cut-off, test this.
#[inline]
pub fn pair_listed(p: &SimParams, nodes: &[NodeRecord], bodies: &[Body], pos: &[NodeState], x: u32, d: u32) -> bool {
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
    // Evaluated for the lower index first, so that (x, d) and (d, x) run the same arithmetic and
    // the lists stay symmetric bit for bit.
    let (a, b) = (x.min(d), x.max(d));
    let reach = bx.radius + bd.radius + SHELL_SKIN_MARGIN * p.skin;
    let reach2 = reach * reach;
    near_shell(nodes, pos, a, b, reach2) || near_shell(nodes, pos, b, a, reach2)
}

/// Skin factor of the list's contact test: the list holds a pair when one node is within
/// r_C + r_D + 1.1 skin of the other's two segments. Until the next build every node stays within
/// skin/2 of where it was, and a segment within skin/2 of its old place (its ends are), so a pair
/// that touches before then is in the list; the extra 0.1 skin covers the rounding of the
/// displacement test and of this one.
pub const SHELL_SKIN_MARGIN: f32 = 1.1;

/// True when node c is within √`reach2` of node d or of one of d's segments (d's *hat*: prev → d
/// and d → next). Node c then may touch segment d → next (the entry's segment contact), node d
/// (its cap contact) or segment prev → d (the contact whose reaction on d, as that segment's end,
/// node_forces finds through this entry of d's list).
#[inline]
pub fn near_shell(nodes: &[NodeRecord], pos: &[NodeState], c: u32, d: u32, reach2: f32) -> bool {
    let (pc, pd) = (&pos[c as usize], &pos[d as usize]);
    let dc = df_sub(pc.pos_hi, pc.pos_lo, pd.pos_hi, pd.pos_lo);
    if dot(dc, dc) < reach2 {
        return true;
    }
    let nd = nodes[d as usize];
    for e in [nd.prev, nd.next] {
        if e != NONE {
            let pe = &pos[e as usize];
            let de = df_sub(pe.pos_hi, pe.pos_lo, pd.pos_hi, pd.pos_lo);
            // Closest point of the segment d → e to c: d + t (e − d), t clamped to [0, 1].
            let len2 = dot(de, de);
            let t = if len2 > 0.0 {
                (dot(dc, de) / len2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let off = [dc[0] - t * de[0], dc[1] - t * de[1]];
            if dot(off, off) < reach2 {
                return true;
            }
        }
    }
    false
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

/// Inserts long wall segment i → next (if node i starts one) into every cell that holds it:
/// counts per bucket (GPU: in `grid_count`, atomicAdd).
#[inline]
pub fn segment_grid_count(
    i: usize,
    p: &SimParams,
    nodes: &[NodeRecord],
    bodies: &[Body],
    pos: &[NodeState],
    seg_count: &mut [u32],
) {
    if !is_long_wall_segment(i, p, nodes, bodies, pos) {
        return;
    }
    let (a, b) = (pos[i].pos_hi, pos[nodes[i].next as usize].pos_hi);
    for_each_segment_cell(p, a, b, |c| seg_count[bucket_of(p, c) as usize] += 1);
}

/// Second half of `segment_grid_count`: writes the items (segment i, cell) at the buckets'
/// cursors (GPU: in `grid_scatter`).
#[inline]
pub fn segment_grid_scatter(
    i: usize,
    p: &SimParams,
    nodes: &[NodeRecord],
    bodies: &[Body],
    pos: &[NodeState],
    cursor: &mut [u32],
    seg_items: &mut [[u32; 3]],
) {
    if !is_long_wall_segment(i, p, nodes, bodies, pos) {
        return;
    }
    let (a, b) = (pos[i].pos_hi, pos[nodes[i].next as usize].pos_hi);
    for_each_segment_cell(p, a, b, |c| {
        let k = bucket_of(p, c) as usize;
        seg_items[cursor[k] as usize] = [i as u32, c[0] as u32, c[1] as u32];
        cursor[k] += 1;
    });
}

/// The two hashed grids of a build: nodes per bucket, and wall-segment items (segment, cell x,
/// cell y) per bucket.
pub struct Grid<'a> {
    pub bucket_start: &'a [u32],
    pub bucket_nodes: &'a [u32],
    pub seg_start: &'a [u32],
    pub seg_items: &'a [[u32; 3]],
}

/// Calls `visit(d)` once for every neighbour d of node x: the nodes of the 3×3 cells around x
/// within the cut-off, then (free x) the ends of wall segments held by those cells, or (wall
/// node x) the free nodes around the cells of its two segments.
#[allow(clippy::too_many_arguments)]
fn for_each_neighbor(
    x: usize,
    p: &SimParams,
    nodes: &[NodeRecord],
    bodies: &[Body],
    pos: &[NodeState],
    grid: &Grid,
    probe: &mut impl FnMut(),
    mut visit: impl FnMut(u32),
) {
    let cx = cell_of(p, &pos[x]);
    for b in neighbor_buckets(p, cx) {
        if b == NONE {
            continue;
        }
        for k in grid.bucket_start[b as usize]..grid.bucket_start[b as usize + 1] {
            let d = grid.bucket_nodes[k as usize];
            probe();
            if is_neighbor(p, nodes, bodies, pos, x as u32, d) {
                visit(d);
            }
        }
    }
    if bodies[nodes[x].body as usize].flags & BODY_FROZEN == 0 {
        wall_items_of_free_node(x, p, nodes, bodies, pos, grid, probe, &mut visit);
    } else {
        free_nodes_along_wall(x, p, nodes, bodies, pos, grid, probe, &mut visit);
    }
}

/// Free node x: the ends of the long wall segments held by the 3×3 cells around x that the node
/// grid did not find (`found_in_grid`). A segment counts from its `anchor` cell only; an end D is
/// taken through its next segment D → D+1 when that one is long and also reaches x's cells,
/// else through its previous one.
#[allow(clippy::too_many_arguments)]
fn wall_items_of_free_node(
    x: usize,
    p: &SimParams,
    nodes: &[NodeRecord],
    bodies: &[Body],
    pos: &[NodeState],
    grid: &Grid,
    probe: &mut impl FnMut(),
    visit: &mut impl FnMut(u32),
) {
    let cx = cell_of(p, &pos[x]);
    for b in neighbor_buckets(p, cx) {
        if b == NONE {
            continue;
        }
        for k in grid.seg_start[b as usize]..grid.seg_start[b as usize + 1] {
            let [s, ix, iy] = grid.seg_items[k as usize];
            probe();
            let q = index_in_3x3(cx, [ix as i32, iy as i32]);
            if q == 9 {
                continue;
            }
            let s1 = nodes[s as usize].next;
            if anchor(p, pos[s as usize].pos_hi, pos[s1 as usize].pos_hi, cx) != q {
                continue;
            }
            for d in [s, s1] {
                if d == s1 {
                    let e = nodes[d as usize].next;
                    if e != NONE
                        && is_long_wall_segment(d as usize, p, nodes, bodies, pos)
                        && anchor(p, pos[d as usize].pos_hi, pos[e as usize].pos_hi, cx) < 9
                    {
                        continue;
                    }
                }
                if !found_in_grid(p, pos, x as u32, d) && pair_listed(p, nodes, bodies, pos, x as u32, d) {
                    visit(d);
                }
            }
        }
    }
}

/// Wall node x: the free nodes of the 3×3 cells around each cell of its long segments x → x+1,
/// then x−1 → x, that the node grid did not find. A free node D counts from the `anchor` cell of
/// the segment around D's cell only, and through x − 1 → x only when x → x+1 is short or does
/// not reach D's cells.
#[allow(clippy::too_many_arguments)]
fn free_nodes_along_wall(
    x: usize,
    p: &SimParams,
    nodes: &[NodeRecord],
    bodies: &[Body],
    pos: &[NodeState],
    grid: &Grid,
    probe: &mut impl FnMut(),
    visit: &mut impl FnMut(u32),
) {
    let nx = nodes[x];
    let next_long = is_long_wall_segment(x, p, nodes, bodies, pos);
    for (a, b) in [(x as u32, nx.next), (nx.prev, x as u32)] {
        if a == NONE || b == NONE || !is_long_wall_segment(a as usize, p, nodes, bodies, pos) {
            continue;
        }
        let via_prev = b == x as u32;
        let (pa, pb) = (pos[a as usize].pos_hi, pos[b as usize].pos_hi);
        for_each_segment_cell(p, pa, pb, |c| {
            for bk in neighbor_buckets(p, c) {
                if bk == NONE {
                    continue;
                }
                for k in grid.bucket_start[bk as usize]..grid.bucket_start[bk as usize + 1] {
                    let d = grid.bucket_nodes[k as usize];
                    probe();
                    if bodies[nodes[d as usize].body as usize].flags & BODY_FROZEN != 0 {
                        continue;
                    }
                    let cd = cell_of(p, &pos[d as usize]);
                    let q = index_in_3x3(cd, c);
                    if q == 9 || anchor(p, pa, pb, cd) != q {
                        continue;
                    }
                    if via_prev && next_long && anchor(p, pos[x].pos_hi, pos[nx.next as usize].pos_hi, cd) < 9 {
                        continue;
                    }
                    if !found_in_grid(p, pos, x as u32, d) && pair_listed(p, nodes, bodies, pos, x as u32, d) {
                        visit(d);
                    }
                }
            }
        });
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
    grid: &Grid,
    out: &mut Vec<u32>,
) {
    let base = out.len();
    for_each_neighbor(x, p, nodes, bodies, pos, grid, &mut || {}, |d| {
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

/// Number of candidates node x examines (node-grid candidates, wall-segment items, nodes around
/// its wall cells): the work of its list build, for the test that bounds it.
pub fn candidates_examined(
    x: usize,
    p: &SimParams,
    nodes: &[NodeRecord],
    bodies: &[Body],
    pos: &[NodeState],
    grid: &Grid,
) -> u64 {
    let mut n = 0u64;
    for_each_neighbor(x, p, nodes, bodies, pos, grid, &mut || n += 1, |_| {});
    n
}

/// The grids of a build from positions `pos` (what the stepper's rebuild does before the lists):
/// the cell side and cut-off in `params`, the nodes' and the wall segments' counting sorts.
pub struct GridBuild {
    pub params: SimParams,
    pub bucket_start: Vec<u32>,
    pub bucket_nodes: Vec<u32>,
    pub seg_start: Vec<u32>,
    pub seg_items: Vec<[u32; 3]>,
}

impl GridBuild {
    pub fn new(p: &SimParams, nodes: &[NodeRecord], bodies: &[Body], pos: &[NodeState]) -> GridBuild {
        let n = nodes.len();
        // Cut-off and cell side from the longest free segment now (stretched shells keep their
        // contacts); wall segments go into the segment grid instead.
        let longest = (0..n)
            .map(|i| free_segment_length(i, nodes, bodies, pos))
            .fold(0.0f32, f32::max);
        let cutoff = longest + p.contact_reach;
        let p = SimParams {
            cutoff,
            cell_size: cutoff,
            ..*p
        };
        // Counting sort of the nodes, and of the wall segments' cells, into the hashed grid.
        let mut bucket_start = vec![0u32; p.grid_buckets as usize + 1];
        let mut seg_start = vec![0u32; p.grid_buckets as usize + 1];
        for i in 0..n {
            grid_count(i, &p, pos, &mut bucket_start);
            segment_grid_count(i, &p, nodes, bodies, pos, &mut seg_start);
        }
        prefix_scan(&mut bucket_start);
        prefix_scan(&mut seg_start);
        let mut cursor = bucket_start.clone();
        let mut seg_cursor = seg_start.clone();
        let mut bucket_nodes = vec![0u32; n];
        let mut seg_items = vec![[0u32; 3]; seg_start[p.grid_buckets as usize] as usize];
        for i in 0..n {
            grid_scatter(i, &p, pos, &mut cursor, &mut bucket_nodes);
            segment_grid_scatter(i, &p, nodes, bodies, pos, &mut seg_cursor, &mut seg_items);
        }
        GridBuild {
            params: p,
            bucket_start,
            bucket_nodes,
            seg_start,
            seg_items,
        }
    }

    pub fn grid(&self) -> Grid<'_> {
        Grid {
            bucket_start: &self.bucket_start,
            bucket_nodes: &self.bucket_nodes,
            seg_start: &self.seg_start,
            seg_items: &self.seg_items,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::df32::df_split;

    /// Distance in f64 from point c to the closed segment a–b.
    fn segment_distance(c: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
        let (ab, ac) = ([b[0] - a[0], b[1] - a[1]], [c[0] - a[0], c[1] - a[1]]);
        let len2 = ab[0] * ab[0] + ab[1] * ab[1];
        let t = if len2 > 0.0 {
            ((ac[0] * ab[0] + ac[1] * ab[1]) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        (ac[0] - t * ab[0]).hypot(ac[1] - t * ab[1])
    }

    /// The skin guarantee of the list: two jittered 16-node rings, far from the origin, side by
    /// side (gap from −0.1 to +0.15 of their radius). A pair left out of the list must not be able
    /// to touch before the next build — node C against node D, segment D → D+1 (the entry's
    /// contacts) or segment D−1 → D (whose reaction on D node_forces finds through D's entry for
    /// C) — even when they move straight towards each other by skin/2 each. Lists must be
    /// symmetric, and narrower than the cut-off circle (or the shell test would not be tested).
    /// With `SHELL_SKIN_MARGIN` at 0.95 instead of 1.1 this test fails.
    #[test]
    fn list_holds_every_contact_until_the_next_build() {
        let mut rng = crate::scenes::SplitMix(0x2545_F491_4F6C_DD1D);
        let mut rnd = move || rng.next_f64();
        const N: usize = 16;
        let ring = |body: u32| -> Vec<NodeRecord> {
            (0..N as u32)
                .map(|k| NodeRecord {
                    body,
                    prev: body * N as u32 + (k + N as u32 - 1) % N as u32,
                    next: body * N as u32 + (k + 1) % N as u32,
                    local: k,
                    mass: 1.0,
                    bc: NONE,
                })
                .collect()
        };
        let nodes: Vec<NodeRecord> = ring(0).into_iter().chain(ring(1)).collect();
        let (mut near, mut narrowed) = (0, 0);
        for _ in 0..1000 {
            let radius = (0.03 + 0.07 * rnd()) as f32;
            let body = |first: u32| Body {
                first,
                count: N as u32,
                flags: BODY_CLOSED,
                radius,
                ..Default::default()
            };
            let bodies = [body(0), body(N as u32)];
            let o = [2e3 * (rnd() - 0.5), 2e3 * (rnd() - 0.5)];
            let ang = std::f64::consts::TAU * rnd();
            let gap = 2.0 + 2.0 * radius as f64 + (-0.1 + 0.25 * rnd());
            let centres = [o, [o[0] + gap * ang.cos(), o[1] + gap * ang.sin()]];
            let x: Vec<[f64; 2]> = (0..2 * N)
                .map(|i| {
                    let (c, phi) = (centres[i / N], std::f64::consts::TAU * (i % N) as f64 / N as f64);
                    let r = 1.0 + 0.05 * (rnd() - 0.5);
                    [c[0] + r * phi.cos(), c[1] + r * phi.sin()]
                })
                .collect();
            let ell = 2.0 * std::f64::consts::PI / N as f64;
            let skin = (0.2 * ell) as f32;
            let longest = (0..2 * N)
                .map(|i| {
                    let j = nodes[i].next as usize;
                    (x[j][0] - x[i][0]).hypot(x[j][1] - x[i][1]) as f32
                })
                .fold(0.0f32, f32::max);
            let contact_reach = 2.0 * radius + 2.0 * skin;
            let p = SimParams {
                skin,
                cutoff: longest + contact_reach,
                contact_reach,
                ..Default::default()
            };
            let state = |x: &[[f64; 2]]| -> Vec<NodeState> {
                x.iter()
                    .map(|&xi| {
                        let (pos_hi, pos_lo) = df_split(xi);
                        NodeState {
                            pos_hi,
                            pos_lo,
                            ..Default::default()
                        }
                    })
                    .collect()
            };
            let built = state(&x);
            let listed = |c: usize, d: usize| is_neighbor(&p, &nodes, &bodies, &built, c as u32, d as u32);
            for c in 0..2 * N {
                for d in 0..2 * N {
                    assert_eq!(listed(c, d), listed(d, c), "list not symmetric for ({c}, {d})");
                    let r = (x[d][0] - x[c][0]).hypot(x[d][1] - x[c][1]);
                    if c / N != d / N && r < p.cutoff as f64 && !listed(c, d) {
                        narrowed += 1;
                    }
                }
            }
            // Worst case until the next build: node C and one of D's segments (or D itself) move
            // straight towards each other by skin/2 each (the rebuild test allows that much, less
            // a little: it compares in f32), closing the gap by skin. An unlisted pair must stay
            // out of contact even then. `near` counts unlisted pairs that end within 0.5 skin of
            // touching, so that the test does probe the margin.
            let r_sum = 2.0 * radius as f64;
            let closing = 2.0 * 0.4999 * skin as f64;
            for c in 0..2 * N {
                for d in (0..2 * N).filter(|d| d / N != c / N && !listed(c, *d)) {
                    let (prev, next) = (nodes[d].prev as usize, nodes[d].next as usize);
                    for (a, b) in [(d, d), (prev, d), (d, next)] {
                        let gap = segment_distance(x[c], x[a], x[b]) - closing;
                        assert!(
                            gap >= r_sum,
                            "unlisted pair ({c}, {d}) can touch: {a}→{b} at {gap} < {r_sum}"
                        );
                        if gap < r_sum + 0.5 * skin as f64 {
                            near += 1;
                        }
                    }
                }
            }
        }
        assert!(near > 1000, "only {near} unlisted pairs near the limit");
        assert!(
            narrowed > 1000,
            "the shell test dropped only {narrowed} pairs of the cut-off circle"
        );
    }

    /// The wall routes list exactly the pairs of the brute-force predicate, each once, and those
    /// are the pairs the old cut-off (longest segment of any body + contact_reach) listed: 30
    /// random scenes far from the origin, 24 jittered 16-node rings (some with self-contact)
    /// among frozen walls drawn with 1 to 40 segments — a floor below them, a diagonal and a
    /// steep line through them — and a frozen 5-gon with long sides.
    #[test]
    fn wall_routes_list_every_pair_once() {
        let mut rng = crate::scenes::SplitMix(0x51ED_2701);
        let mut rnd = move || rng.next_f64();
        let (mut far_pairs, mut wall_pairs) = (0, 0);
        for round in 0..30 {
            let mut sc = Scene::default();
            let m = sc.add_material(crate::cpu::elastic_test_material());
            let o = [2e3 * (rnd() - 0.5), 2e3 * (rnd() - 0.5)];
            let free = |self_contact: bool| BodyOptions {
                material: m,
                radius: 0.04,
                node_mass: 1.0,
                frozen: false,
                self_contact,
                core: Core::None,
            };
            let wall = BodyOptions {
                frozen: true,
                ..free(false)
            };
            for i in 0..6 {
                for j in 0..4 {
                    let c = [
                        o[0] + 1.05 * i as f64 + 0.1 * rnd(),
                        o[1] + 1.05 * j as f64 + 0.1 * rnd(),
                    ];
                    sc.add_ring(c, 0.5, 16, free((i + j) % 5 == 0));
                }
            }
            let segments = [1, 2, 3, 7, 40][round % 5];
            let lo = -0.58 - 0.03 * rnd();
            sc.add_line([o[0] - 1.0, o[1] + lo], [o[0] + 6.5, o[1] + lo], segments + 1, wall);
            sc.add_line(
                [o[0] - 0.7, o[1] + 0.3],
                [o[0] + 5.9, o[1] + 3.2 + rnd()],
                segments.div_ceil(2) + 1,
                wall,
            );
            sc.add_line([o[0] + 2.6, o[1] - 0.5], [o[0] + 2.9 + rnd(), o[1] + 3.7], 2, wall);
            sc.add_ring([o[0] + 4.2, o[1] + 1.6], 1.3, 5, wall);
            let p = sc.sim_params();
            let (nodes, _) = device_nodes(&sc.nodes);
            let mut pos = sc.init.clone();
            for s in pos.iter_mut() {
                s.pos_hi = [
                    s.pos_hi[0] + (0.04 * (rnd() - 0.5)) as f32,
                    s.pos_hi[1] + (0.04 * (rnd() - 0.5)) as f32,
                ];
            }
            let build = GridBuild::new(&p, &nodes, &sc.bodies, &pos);
            let q = &build.params;
            let longest = (0..nodes.len())
                .map(|i| segment_length(i, &nodes, &pos))
                .fold(0.0f32, f32::max);
            let old = SimParams {
                cutoff: longest + p.contact_reach,
                ..*q
            };
            assert!(
                longest > 2.0 * (q.cutoff - q.contact_reach),
                "round {round}: no long wall segment"
            );
            for x in 0..nodes.len() {
                let mut found = vec![];
                neighbor_candidates(x, q, &nodes, &sc.bodies, &pos, &build.grid(), &mut found);
                let brute: Vec<u32> = (0..nodes.len() as u32)
                    .filter(|&d| d != x as u32 && pair_listed(q, &nodes, &sc.bodies, &pos, x as u32, d))
                    .collect();
                assert_eq!(found, brute, "round {round}: list of node {x}");
                for &d in &brute {
                    assert!(is_neighbor(&old, &nodes, &sc.bodies, &pos, x as u32, d));
                    let frozen = |i: u32| sc.bodies[nodes[i as usize].body as usize].flags & BODY_FROZEN != 0;
                    if frozen(x as u32) != frozen(d) {
                        wall_pairs += 1;
                        far_pairs += !within_cutoff(q, &pos, x as u32, d) as usize;
                    }
                }
                let old_list = (0..nodes.len() as u32)
                    .filter(|&d| is_neighbor(&old, &nodes, &sc.bodies, &pos, x as u32, d))
                    .count();
                assert_eq!(old_list, brute.len(), "round {round}: node {x}");
            }
        }
        // Pairs of a free node and a wall node, and those the node grid alone would miss.
        assert!(
            wall_pairs > 3000 && far_pairs > 500,
            "{wall_pairs} wall pairs, {far_pairs} beyond the cut-off"
        );
    }

    /// No cliff: the candidates a list build examines per free node, on the deposit bench scene
    /// (100 cells), with the box walls drawn as one segment per side are at most 1.1× those with
    /// the walls subdivided at the cells' segment length. The same walls made free bodies (so that
    /// their segments set the cell side, as every segment did before the segment grid) break the
    /// bound many times over, so the bound does test the cell side.
    #[test]
    fn long_wall_segments_do_not_inflate_the_candidates() {
        let per_free_node = |sc: &Scene| -> f64 {
            let (nodes, _) = device_nodes(&sc.nodes);
            let build = GridBuild::new(&sc.sim_params(), &nodes, &sc.bodies, &sc.init);
            let total: u64 = (0..nodes.len())
                .map(|x| candidates_examined(x, &build.params, &nodes, &sc.bodies, &sc.init, &build.grid()))
                .sum();
            let free = nodes
                .iter()
                .filter(|n| sc.bodies[n.body as usize].flags & BODY_FROZEN == 0)
                .count();
            total as f64 / free as f64
        };
        let long = crate::scenes::deposit_bench(100, None);
        let short = crate::scenes::deposit_bench(100, Some(0.0));
        let (a, b) = (per_free_node(&long), per_free_node(&short));
        assert!(
            a <= 1.1 * b,
            "{a:.2} candidates per free node with one-segment walls, {b:.2} subdivided"
        );
        let mut unfrozen = long.clone();
        for body in unfrozen.bodies.iter_mut() {
            body.flags &= !BODY_FROZEN;
        }
        let c = per_free_node(&unfrozen);
        eprintln!("candidates per free node: {a:.2} one-segment walls, {b:.2} subdivided, {c:.2} long free segments");
        assert!(
            c > 10.0 * b,
            "long free segments: {c:.2} candidates per free node, {b:.2} subdivided walls"
        );
    }
}
