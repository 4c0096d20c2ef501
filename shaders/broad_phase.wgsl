// broad_phase.wgsl: neighbour lists from a hashed uniform grid built by counting sort; twin of
// src/cpu/broad_phase.rs. No all-pairs stage. By default a step records only `rebuild_check`;
// when it finds a rebuild due, the host redoes that step with the kernels below as direct
// dispatches. Alternatively (coupled runs, SOFTDEM_GPU_REBUILD=gpu) every step records them all
// as indirect dispatches with arguments written by `rebuild_decide` (zero when no rebuild is due).
//
// Order: rebuild_decide → segment_max → grid_clear → grid_count → scan(bucket_start) → grid_cursor →
// grid_scatter → neighbor_count → scan(nbr_count) → neighbor_fill → rebuild_commit.

#import model
#import history

@group(0) @binding(1) var<storage, read> nodes: array<NodeRecord>;
@group(0) @binding(2) var<storage, read> bodies: array<Body>;
@group(0) @binding(3) var<storage, read> pos: array<NodeState>;
@group(0) @binding(4) var<storage, read_write> bucket_start: array<atomic<u32>>;
// The buckets' fill cursors: the host binds nbr_count's memory here (used by no kernel that
// uses nbr_count, and free until neighbor_count).
@group(0) @binding(5) var<storage, read_write> cursor: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> bucket_nodes: array<u32>;
// Neighbour counts, scanned in place into the start offsets of the new list (total at [n]).
@group(0) @binding(7) var<storage, read_write> nbr_count: array<u32>;
@group(0) @binding(8) var<storage, read_write> live_start: array<u32>;
@group(0) @binding(9) var<storage, read_write> live_entries: array<Entry>;
// Contact slot of each live entry (in the pool of the step before, which holds its friction
// history); rebuild_commit moves the carried-over ones in.
@group(0) @binding(10) var<storage, read_write> live_slot_index: array<u32>;
// Neighbours of the list being built (neighbor_fill); rebuild_commit copies them into
// live_entries (the old list is not read after neighbor_fill).
@group(0) @binding(11) var<storage, read_write> new_neighbors: array<u32>;
// Slots carried over to the new list. The host binds here the slot indices that this step's
// contact_pairs will write (every one of them), unused until then.
@group(0) @binding(12) var<storage, read_write> new_slot_index: array<u32>;
// The step flags (`StepFlags`, spd_records.wgsl; their meaning there and in src/model/layout.rs).
@group(0) @binding(13) var<storage, read_write> flags: StepFlags;
@group(0) @binding(14) var<storage, read_write> x_ref: array<vec2<f32>>;
@group(0) @binding(15) var<storage, read_write> args: array<u32>;
@group(0) @binding(16) var<storage, read> args_template: array<u32>;
// The segment grid: long wall segments (segments of frozen bodies longer than the longest free
// segment) inserted in every cell that holds them (`for_each_segment_cell` of the twin), counted per bucket then scanned in place into item
// offsets (grid_buckets + 1 words, as bucket_start), and the items (segment, cell x, cell y),
// three words each. Their fill cursors are the second half of `cursor`. Order of a build:
// rebuild_decide → segment_max → grid_clear → grid_count → scan(bucket_start), scan(seg_start) →
// grid_cursor → grid_scatter → neighbor_count → scan(nbr_count) → neighbor_fill → rebuild_commit.
@group(0) @binding(17) var<storage, read_write> seg_start: array<atomic<u32>>;
@group(0) @binding(18) var<storage, read_write> seg_items: array<u32>;

// Neighbour cut-off of the list being built, also the grid cell side: the longest segment of the
// free bodies + contact_reach (twin: the CPU passes it in a copy of the parameters, `cutoff` and
// `cell_size`).
fn current_cutoff() -> f32 {
    return bitcast<f32>(atomicLoad(&flags.longest_free_segment)) + params.contact_reach;
}

fn cell_of(s: NodeState) -> vec2<i32> {
    let cell_size = current_cutoff();
    return vec2<i32>(i32(floor(s.pos_hi.x / cell_size)), i32(floor(s.pos_hi.y / cell_size)));
}

fn bucket_of(cell: vec2<i32>) -> u32 {
    return ((bitcast<u32>(cell.x) * 73856093u) ^ (bitcast<u32>(cell.y) * 19349663u)) & (params.grid_buckets - 1u);
}

// dot2 with each product rounded (`opaque`), as the CPU twin does: the same pair or cell must get
// the same answer in every kernel and call site (neighbor_count and neighbor_fill, the node grid
// and the wall routes), which a fused multiply-add in one inlined copy and not another breaks
// (seen on lavapipe: entries lost or left unwritten).
fn dot_rounded(a: vec2<f32>, b: vec2<f32>) -> f32 {
    return opaque(a.x * b.x) + opaque(a.y * b.y);
}

// |x − d| < cut-off, false for NaN (twin of within_cutoff).
fn within_cutoff(x: u32, d: u32) -> bool {
    let r = df_sub(pos[d], pos[x]);
    let cutoff = current_cutoff();
    return dot_rounded(r, r) < cutoff * cutoff;
}

// Neighbour predicate of the node grid (twin of is_neighbor).
fn is_neighbor(x: u32, d: u32) -> bool {
    if (x == d) {
        return false;
    }
    // Distance first: most candidates of the 3×3 cells fail it, and it needs no node or body
    // record (a NaN distance fails it too).
    if (!within_cutoff(x, d)) {
        return false;
    }
    return pair_listed(x, d);
}

// is_neighbor without the cut-off (twin of pair_listed): the wall routes test this.
fn pair_listed(x: u32, d: u32) -> bool {
    let nx = nodes[x];
    let nd = nodes[d];
    let bx = bodies[nx.body];
    let bd = bodies[nd.body];
    if ((bx.flags & BODY_FROZEN) != 0u && (bd.flags & BODY_FROZEN) != 0u) {
        return false;
    }
    if (nx.body == nd.body) {
        if ((bx.flags & BODY_SELF_CONTACT) == 0u) {
            return false;
        }
        let gap = max(nx.local_index, nd.local_index) - min(nx.local_index, nd.local_index);
        var ring = gap;
        if ((bx.flags & BODY_CLOSED) != 0u) {
            ring = min(gap, bx.count - gap);
        }
        if (ring <= params.self_exclusion) {
            return false;
        }
    }
    // Evaluated for the lower index first, so that (x, d) and (d, x) run the same arithmetic and
    // the lists stay symmetric bit for bit.
    let a = min(x, d);
    let b = max(x, d);
    let reach = bx.radius + bd.radius + SHELL_SKIN_MARGIN * params.skin;
    let reach2 = reach * reach;
    return near_shell(a, b, reach2) || near_shell(b, a, reach2);
}

// Skin factor of the list's contact test (twin of cpu::broad_phase::SHELL_SKIN_MARGIN): a pair is
// listed when one node is within r_C + r_D + 1.1 skin of the other's two segments.
const SHELL_SKIN_MARGIN: f32 = 1.1;

// True when node c is within sqrt(reach2) of node d or of one of d's segments prev → d, d → next
// (twin of cpu::broad_phase::near_shell).
fn near_shell(c: u32, d: u32, reach2: f32) -> bool {
    let dc = df_sub(pos[c], pos[d]);
    if (dot_rounded(dc, dc) < reach2) {
        return true;
    }
    // The two segments one after the other, not in a loop (see the loop cap above neighbor_buckets).
    let nd = nodes[d];
    return near_segment(dc, d, nd.prev, reach2) || near_segment(dc, d, nd.next, reach2);
}

// True when the point d + dc is within sqrt(reach2) of the segment d → e (e may be NONE): the
// loop body of the twin's near_shell.
fn near_segment(dc: vec2<f32>, d: u32, e: u32, reach2: f32) -> bool {
    if (e == NONE) {
        return false;
    }
    let de = df_sub(pos[e], pos[d]);
    // Closest point of the segment d → e to c: d + t (e − d), t clamped to [0, 1].
    let len2 = dot_rounded(de, de);
    var t = 0.0;
    if (len2 > 0.0) {
        t = clamp(dot_rounded(dc, de) / len2, 0.0, 1.0);
    }
    let off = vec2<f32>(dc.x - opaque(t * de.x), dc.y - opaque(t * de.y));
    return dot_rounded(off, off) < reach2;
}

// lavapipe (llvmpipe's gallivm) ends every loop of an invocation once all loops of that
// invocation together have run 65535 iterations (LP_MAX_TGSI_LOOP_ITERATIONS, one counter per
// shader call, shared by every loop): an invocation past it skips work silently. A wall node
// walks its long segments' cells, so the fixed-size loops of the list build (the 3×3 cells,
// anchor, the two segments of near_shell) are written out, and every remaining loop checks that it
// ran to its end (`cut_short` sets flags.cut_short; the host then stops with an error). Real GPUs have
// no such cap.

// The 9 buckets around a cell (rows, then columns), hash-collision duplicates replaced by NONE.
fn neighbor_buckets(cell: vec2<i32>) -> array<u32, 9> {
    let b0 = bucket_of(vec2<i32>(cell.x - 1, cell.y - 1));
    let b1 = bucket_of(vec2<i32>(cell.x, cell.y - 1));
    let b2 = bucket_of(vec2<i32>(cell.x + 1, cell.y - 1));
    let b3 = bucket_of(vec2<i32>(cell.x - 1, cell.y));
    let b4 = bucket_of(cell);
    let b5 = bucket_of(vec2<i32>(cell.x + 1, cell.y));
    let b6 = bucket_of(vec2<i32>(cell.x - 1, cell.y + 1));
    let b7 = bucket_of(vec2<i32>(cell.x, cell.y + 1));
    let b8 = bucket_of(vec2<i32>(cell.x + 1, cell.y + 1));
    return array<u32, 9>(
        b0,
        select(b1, NONE, b1 == b0),
        select(b2, NONE, b2 == b0 || b2 == b1),
        select(b3, NONE, b3 == b0 || b3 == b1 || b3 == b2),
        select(b4, NONE, b4 == b0 || b4 == b1 || b4 == b2 || b4 == b3),
        select(b5, NONE, b5 == b0 || b5 == b1 || b5 == b2 || b5 == b3 || b5 == b4),
        select(b6, NONE, b6 == b0 || b6 == b1 || b6 == b2 || b6 == b3 || b6 == b4 || b6 == b5),
        select(b7, NONE, b7 == b0 || b7 == b1 || b7 == b2 || b7 == b3 || b7 == b4 || b7 == b5 || b7 == b6),
        select(b8, NONE, b8 == b0 || b8 == b1 || b8 == b2 || b8 == b3 || b8 == b4 || b8 == b5 || b8 == b6 || b8 == b7),
    );
}

// True when bucket b is one of bs (no loop).
fn holds_bucket(bs: array<u32, 9>, b: u32) -> bool {
    return bs[0] == b || bs[1] == b || bs[2] == b || bs[3] == b || bs[4] == b || bs[5] == b || bs[6] == b
        || bs[7] == b || bs[8] == b;
}

// Flags a loop that stopped before its end (see above): flags.cut_short, and the overflow flag so that
// the rest of the batch does nothing.
fn cut_short() {
    atomicStore(&flags.cut_short, 1u);
    atomicStore(&flags.stop, 1u);
}

fn is_frozen(x: u32) -> bool {
    return (bodies[nodes[x].body].flags & BODY_FROZEN) != 0u;
}

// True when node i starts a wall segment i → next (twin of is_wall_segment).
fn is_wall_segment(i: u32) -> bool {
    return nodes[i].next != NONE && is_frozen(i);
}

// True when node i starts a wall segment longer than the longest free segment: only those go into
// the segment grid (twin of is_long_wall_segment).
fn is_long_wall_segment(i: u32) -> bool {
    if (!is_wall_segment(i)) {
        return false;
    }
    let d = df_sub(pos[nodes[i].next], pos[i]);
    return sqrt(dot2(d, d)) > current_cutoff() - params.contact_reach;
}

// A cell holds a wall segment when its centre lies within this many cell sides of it (twin of
// SEGMENT_CELL_RADIUS): more than half the diagonal, so every cell the segment crosses holds it.
const SEGMENT_CELL_RADIUS: f32 = 0.75;

// True when cell `cell` holds the segment a → b (high parts of the ends; twin of segment_in_cell).
fn segment_in_cell(a: vec2<f32>, b: vec2<f32>, cell: vec2<i32>) -> bool {
    let h = current_cutoff();
    let c = vec2<f32>(opaque((f32(cell.x) + 0.5) * h), opaque((f32(cell.y) + 0.5) * h));
    let ab = b - a;
    let ac = c - a;
    let len2 = dot_rounded(ab, ab);
    var t = 0.0;
    if (len2 > 0.0) {
        t = clamp(dot_rounded(ac, ab) / len2, 0.0, 1.0);
    }
    let off = vec2<f32>(ac.x - opaque(t * ab.x), ac.y - opaque(t * ab.y));
    let r = SEGMENT_CELL_RADIUS * h;
    return dot_rounded(off, off) <= r * r;
}

// The walk over the cells of a segment, column by column along its longer axis (twin of
// for_each_segment_cell): (u, v) = (x, y), or (y, x) when steep; columns i0 … i1.
struct SegWalk {
    steep: bool,
    u0: f32,
    v0: f32,
    u1: f32,
    slope: f32,
    i0: i32,
    i1: i32,
}

fn seg_walk(a: vec2<f32>, b: vec2<f32>) -> SegWalk {
    let h = current_cutoff();
    let steep = abs(b.y - a.y) > abs(b.x - a.x);
    var pa = a;
    var pb = b;
    if (steep) {
        pa = a.yx;
        pb = b.yx;
    }
    if (pb.x < pa.x) {
        let t = pa;
        pa = pb;
        pb = t;
    }
    let m = 0.8 * h;
    var slope = 0.0;
    if (pb.x > pa.x) {
        slope = (pb.y - pa.y) / (pb.x - pa.x);
    }
    return SegWalk(steep, pa.x, pa.y, pb.x, slope, i32(floor((pa.x - m) / h)), i32(floor((pb.x + m) / h)));
}

// Rows j0 … j1 to test in column i: the segment's v over the column widened by 0.8 of a side,
// plus 0.8 of a side.
fn seg_rows(w: SegWalk, i: i32) -> vec2<i32> {
    let h = current_cutoff();
    let m = 0.8 * h;
    let ulo = min(max(f32(i) * h - m, w.u0), w.u1);
    let uhi = max(min(f32(i + 1) * h + m, w.u1), ulo);
    let wa = w.v0 + w.slope * (ulo - w.u0);
    let wb = w.v0 + w.slope * (uhi - w.u0);
    return vec2<i32>(i32(floor((min(wa, wb) - m) / h)), i32(floor((max(wa, wb) + m) / h)));
}

fn seg_cell(w: SegWalk, i: i32, j: i32) -> vec2<i32> {
    return select(vec2<i32>(i, j), vec2<i32>(j, i), w.steep);
}

// Index of the first cell of the 3×3 around `cell` that holds a → b, or 9 (twin of anchor).
// Written out, no loop (see the loop cap above neighbor_buckets).
fn anchor(a: vec2<f32>, b: vec2<f32>, cell: vec2<i32>) -> u32 {
    if (segment_in_cell(a, b, vec2<i32>(cell.x - 1, cell.y - 1))) {
        return 0u;
    }
    if (segment_in_cell(a, b, vec2<i32>(cell.x, cell.y - 1))) {
        return 1u;
    }
    if (segment_in_cell(a, b, vec2<i32>(cell.x + 1, cell.y - 1))) {
        return 2u;
    }
    if (segment_in_cell(a, b, vec2<i32>(cell.x - 1, cell.y))) {
        return 3u;
    }
    if (segment_in_cell(a, b, cell)) {
        return 4u;
    }
    if (segment_in_cell(a, b, vec2<i32>(cell.x + 1, cell.y))) {
        return 5u;
    }
    if (segment_in_cell(a, b, vec2<i32>(cell.x - 1, cell.y + 1))) {
        return 6u;
    }
    if (segment_in_cell(a, b, vec2<i32>(cell.x, cell.y + 1))) {
        return 7u;
    }
    if (segment_in_cell(a, b, vec2<i32>(cell.x + 1, cell.y + 1))) {
        return 8u;
    }
    return 9u;
}

// Index of cell c in the 3×3 around `cell`, or 9 (twin of index_in_3x3).
fn index_in_3x3(cell: vec2<i32>, c: vec2<i32>) -> u32 {
    let dx = c.x - cell.x;
    let dy = c.y - cell.y;
    if (abs(dx) > 1 || abs(dy) > 1) {
        return 9u;
    }
    return u32((dy + 1) * 3 + dx + 1);
}

// True when the node grid's visit of x's 3×3 cells finds d (twin of found_in_grid); bs: x's
// neighbor_buckets, computed once by the caller.
fn found_in_grid(x: u32, bs: array<u32, 9>, d: u32) -> bool {
    return holds_bucket(bs, bucket_of(cell_of(pos[d]))) && within_cutoff(x, d);
}

// Adds neighbour d to node x's k entries: only counts it, or (fill) inserts it into the sorted
// prefix of x's entries at `base`.
fn add_neighbor(fill: bool, base: u32, k: u32, d: u32) -> u32 {
    if (fill) {
        var j = k;
        while (j > 0u && new_neighbors[base + j - 1u] > d) {
            new_neighbors[base + j] = new_neighbors[base + j - 1u];
            j--;
        }
        if (j > 0u && new_neighbors[base + j - 1u] > d) {
            cut_short();
        }
        new_neighbors[base + j] = d;
    }
    return k + 1u;
}

// The nodes of bucket b: [start, end) of bucket_nodes.
fn bucket_range(b: u32) -> vec2<u32> {
    return vec2<u32>(atomicLoad(&bucket_start[b]), atomicLoad(&bucket_start[b + 1u]));
}

// Wall node x, long segment sa → sb of its two: the free nodes of the 3×3 cells around each cell
// of the segment, from the segment's anchor cell around each one's cell only; through x − 1 → x
// (`via_prev`) only when x → x+1 is short or does not reach the node's cells (twin of the loop
// body of free_nodes_along_wall). bs_x: x's neighbor_buckets. Returns the new count k.
fn free_nodes_along_segment(x: u32, bs_x: array<u32, 9>, sa: u32, sb: u32, via_prev: bool, next_long: bool, fill: bool, base: u32, k_in: u32) -> u32 {
    var k = k_in;
    let pa = pos[sa].pos_hi;
    let pb = pos[sb].pos_hi;
    let w = seg_walk(pa, pb);
    var i = w.i0;
    for (; i <= w.i1; i++) {
        let r = seg_rows(w, i);
        var j = r.x;
        for (; j <= r.y; j++) {
            let c = seg_cell(w, i, j);
            if (!segment_in_cell(pa, pb, c)) {
                continue;
            }
            let cb = neighbor_buckets(c);
            var q = 0u;
            for (; q < 9u; q++) {
                let b = cb[q];
                if (b == NONE) {
                    continue;
                }
                let range = bucket_range(b);
                var kk = range.x;
                for (; kk < range.y; kk++) {
                    let d = bucket_nodes[kk];
                    if (is_frozen(d)) {
                        continue;
                    }
                    let cd = cell_of(pos[d]);
                    let qd = index_in_3x3(cd, c);
                    if (qd == 9u || anchor(pa, pb, cd) != qd) {
                        continue;
                    }
                    if (via_prev && next_long) {
                        if (anchor(pos[x].pos_hi, pos[nodes[x].next].pos_hi, cd) < 9u) {
                            continue;
                        }
                    }
                    if (!found_in_grid(x, bs_x, d) && pair_listed(x, d)) {
                        k = add_neighbor(fill, base, k, d);
                    }
                }
                if (kk < range.y) {
                    cut_short();
                }
            }
            if (q < 9u) {
                cut_short();
            }
        }
        if (j <= r.y) {
            cut_short();
        }
    }
    if (i <= w.i1) {
        cut_short();
    }
    return k;
}

// Every neighbour of node x, once (twin of for_each_neighbor): the nodes of the 3×3 cells
// around x within the cut-off, then the wall routes. Returns the count; with `fill`, also
// writes them, sorted, at `base`.
fn visit_neighbors(x: u32, fill: bool, base: u32) -> u32 {
    let cx = cell_of(pos[x]);
    let bs = neighbor_buckets(cx);
    var k = 0u;
    var q = 0u;
    for (; q < 9u; q++) {
        let b = bs[q];
        if (b == NONE) {
            continue;
        }
        let range = bucket_range(b);
        var kk = range.x;
        for (; kk < range.y; kk++) {
            let d = bucket_nodes[kk];
            if (is_neighbor(x, d)) {
                k = add_neighbor(fill, base, k, d);
            }
        }
        if (kk < range.y) {
            cut_short();
        }
    }
    if (q < 9u) {
        cut_short();
    }
    if (!is_frozen(x)) {
        // Free node: the ends of the wall segments its 3×3 cells hold (twin of
        // wall_items_of_free_node).
        var q2 = 0u;
        for (; q2 < 9u; q2++) {
            let b = bs[q2];
            if (b == NONE) {
                continue;
            }
            let hi = atomicLoad(&seg_start[b + 1u]);
            var kk = atomicLoad(&seg_start[b]);
            for (; kk < hi; kk++) {
                let s = seg_items[3u * kk];
                let c = vec2<i32>(bitcast<i32>(seg_items[3u * kk + 1u]), bitcast<i32>(seg_items[3u * kk + 2u]));
                let qi = index_in_3x3(cx, c);
                if (qi == 9u) {
                    continue;
                }
                let s1 = nodes[s].next;
                if (anchor(pos[s].pos_hi, pos[s1].pos_hi, cx) != qi) {
                    continue;
                }
                // The segment's two ends, written out (see the loop cap above neighbor_buckets): s, then s1 unless it is
                // taken through its next segment s1 → e.
                if (!found_in_grid(x, bs, s) && pair_listed(x, s)) {
                    k = add_neighbor(fill, base, k, s);
                }
                let e = nodes[s1].next;
                var via_next = false;
                if (e != NONE) {
                    via_next = is_long_wall_segment(s1) && anchor(pos[s1].pos_hi, pos[e].pos_hi, cx) < 9u;
                }
                if (!via_next && !found_in_grid(x, bs, s1) && pair_listed(x, s1)) {
                    k = add_neighbor(fill, base, k, s1);
                }
            }
            if (kk < hi) {
                cut_short();
            }
        }
        if (q2 < 9u) {
            cut_short();
        }
    } else {
        // Wall node with a long segment: the free nodes near its long segments (twin of
        // free_nodes_along_wall): x → x+1, then x−1 → x.
        let nx = nodes[x];
        let next_long = is_long_wall_segment(x);
        var prev_long = false;
        if (nx.prev != NONE) {
            prev_long = is_long_wall_segment(nx.prev);
        }
        if (next_long) {
            k = free_nodes_along_segment(x, bs, x, nx.next, false, next_long, fill, base, k);
        }
        if (prev_long) {
            k = free_nodes_along_segment(x, bs, nx.prev, x, true, next_long, fill, base, k);
        }
    }
    return k;
}

// The list `find_sorted` (history.wgsl) searches here: the live list, for the history remap.
fn sorted_key(i: u32) -> u32 {
    return live_entries[i].neighbor;
}

// What every step's first broad-phase kernel does: counts the step (flags.step) and empties the
// contact-slot pool, which fills anew in every step (contact_pairs).
fn step_begins() {
    if (params.dt > 0.0) {
        atomicAdd(&flags.step, 1u);
    }
    atomicStore(&flags.pool_used, 0u);
}

// A rebuild is due: some node moved more than half the skin, or the host forced it (flags.force_rebuild).
// The largest displacement's bits (≥ +0, +∞ before the first build, or NaN) against half the
// skin's, as integers: the same as the CPU twin's `d.is_nan() || d > skin / 2`, without a float
// comparison that a fast-math compiler could fold for NaN or +∞.
fn rebuild_due() -> bool {
    return atomicLoad(&flags.max_disp) > bitcast<u32>(0.5 * params.skin) || atomicLoad(&flags.force_rebuild) != 0u;
}

// Single thread, host-driven rebuilds (GpuBackend's default): the steps record no broad-phase
// kernel but this one. When a rebuild is due it stops the batch as an overflow does (flags.stop,
// every later kernel of the batch does nothing) and sets flags.rebuild_due: the host redoes this step
// with the build recorded as direct dispatches (rebuild_decide first) and goes on from there.
@compute @workgroup_size(1)
fn rebuild_check() {
    if (atomicLoad(&flags.stop) != 0u) {
        return;
    }
    step_begins();
    if (rebuild_due()) {
        atomicStore(&flags.rebuild_due, 1u);
        atomicStore(&flags.stop, 1u);
    }
}

// Single thread: rebuild when some node moved more than half the skin (or when forced). Writes
// the x workgroup counts of every indirect dispatch of the rebuild: the template or zero.
@compute @workgroup_size(1)
fn rebuild_decide() {
    let n = arrayLength(&args_template) / 3u;
    if (atomicLoad(&flags.stop) != 0u) {
        // A list or the slot pool overflowed earlier in this batch: the rest of the batch does
        // nothing, so the state stays at the start of the overflowing step for the host to redo it.
        for (var i = 0u; i < n; i++) {
            args[3u * i] = 0u;
        }
        return;
    }
    step_begins();
    let rebuild = rebuild_due();
    for (var i = 0u; i < n; i++) {
        args[3u * i] = select(0u, args_template[3u * i], rebuild);
        args[3u * i + 1u] = args_template[3u * i + 1u];
        args[3u * i + 2u] = args_template[3u * i + 2u];
    }
    if (rebuild) {
        atomicStore(&flags.max_disp, 0u);
        atomicStore(&flags.force_rebuild, 0u);
        atomicAdd(&flags.rebuilds, 1u);
        atomicStore(&flags.longest_free_segment, 0u);
    }
}

// Longest free segment now (twin of free_segment_length + max): atomicMax on the f32 bits (non-negative, so
// bit order is value order) after a reduction in the workgroup, one atomic per workgroup.
@compute @workgroup_size(64)
fn segment_max(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, 64u);
    var len = 0.0;
    if (i < params.n_nodes) {
        let next = nodes[i].next;
        if (next != NONE && !is_frozen(i)) {
            let d = df_sub(pos[next], pos[i]);
            len = sqrt(dot2(d, d));
        }
    }
    let wg = workgroup_max(lid.x, len);
    if (lid.x == 0u) {
        atomicMax(&flags.longest_free_segment, bitcast<u32>(wg));
    }
}

@compute @workgroup_size(64)
fn grid_clear(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = linear_id(wid, lid, nwg, 64u);
    if (b > params.grid_buckets) {
        return;
    }
    atomicStore(&bucket_start[b], 0u);
    atomicStore(&seg_start[b], 0u);
}

@compute @workgroup_size(64)
fn grid_count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, 64u);
    if (i >= params.n_nodes) {
        return;
    }
    atomicAdd(&bucket_start[bucket_of(cell_of(pos[i]))], 1u);
    // Long wall segment i → next: one item per cell that holds it (twin of segment_grid_count).
    if (is_long_wall_segment(i)) {
        let pa = pos[i].pos_hi;
        let pb = pos[nodes[i].next].pos_hi;
        let w = seg_walk(pa, pb);
        for (var ci = w.i0; ci <= w.i1; ci++) {
            let r = seg_rows(w, ci);
            for (var j = r.x; j <= r.y; j++) {
                let c = seg_cell(w, ci, j);
                if (segment_in_cell(pa, pb, c)) {
                    atomicAdd(&seg_start[bucket_of(c)], 1u);
                }
            }
        }
    }
}

@compute @workgroup_size(64)
fn grid_cursor(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = linear_id(wid, lid, nwg, 64u);
    if (b >= params.grid_buckets) {
        return;
    }
    atomicStore(&cursor[b], atomicLoad(&bucket_start[b]));
    atomicStore(&cursor[params.grid_buckets + b], atomicLoad(&seg_start[b]));
}

@compute @workgroup_size(64)
fn grid_scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, 64u);
    if (i >= params.n_nodes) {
        return;
    }
    let slot = atomicAdd(&cursor[bucket_of(cell_of(pos[i]))], 1u);
    bucket_nodes[slot] = i;
    // Twin of segment_grid_scatter.
    if (is_long_wall_segment(i)) {
        let pa = pos[i].pos_hi;
        let pb = pos[nodes[i].next].pos_hi;
        let w = seg_walk(pa, pb);
        let capacity = arrayLength(&seg_items) / 3u;
        for (var ci = w.i0; ci <= w.i1; ci++) {
            let r = seg_rows(w, ci);
            for (var j = r.x; j <= r.y; j++) {
                let c = seg_cell(w, ci, j);
                if (segment_in_cell(pa, pb, c)) {
                    let k = atomicAdd(&cursor[params.grid_buckets + bucket_of(c)], 1u);
                    if (k < capacity) {
                        seg_items[3u * k] = i;
                        seg_items[3u * k + 1u] = bitcast<u32>(c.x);
                        seg_items[3u * k + 2u] = bitcast<u32>(c.y);
                    } else {
                        atomicStore(&flags.grid_overflow, 1u);
                        atomicStore(&flags.stop, 1u);
                    }
                }
            }
        }
    }
}

@compute @workgroup_size(64)
fn neighbor_count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let x = linear_id(wid, lid, nwg, 64u);
    if (x >= params.n_nodes) {
        return;
    }
    // Segment grid overflow: the items are incomplete, the build is redone.
    if (atomicLoad(&flags.grid_overflow) != 0u) {
        nbr_count[x] = 0u;
        return;
    }
    nbr_count[x] = visit_neighbors(x, false, 0u);
}

@compute @workgroup_size(64)
fn neighbor_fill(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let x = linear_id(wid, lid, nwg, 64u);
    if (x >= params.n_nodes || atomicLoad(&flags.grid_overflow) != 0u) {
        return;
    }
    if (nbr_count[params.n_nodes] > params.max_entries) {
        atomicStore(&flags.stop, 1u);
        return;
    }
    let base = nbr_count[x];
    let k = visit_neighbors(x, true, base);
    for (var j = 0u; j < k; j++) {
        let old = find_sorted(live_start[x], live_start[x + 1u], new_neighbors[base + j]);
        if (old != NONE) {
            new_slot_index[base + j] = live_slot_index[old];
        } else {
            new_slot_index[base + j] = NO_SLOT;
        }
    }
}

// Makes the new list live (its neighbours, the carried-over slot indices and the offsets) and
// records the reference positions of the skin test. neighbor_fill, the last reader of the old
// list, has finished.
@compute @workgroup_size(64)
fn rebuild_commit(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let x = linear_id(wid, lid, nwg, 64u);
    if (x >= params.n_nodes || atomicLoad(&flags.stop) != 0u) {
        return;
    }
    for (var e = nbr_count[x]; e < nbr_count[x + 1u]; e++) {
        live_entries[e] = Entry(new_neighbors[e]);
        live_slot_index[e] = new_slot_index[e];
    }
    live_start[x] = nbr_count[x];
    if (x + 1u == params.n_nodes) {
        live_start[x + 1u] = nbr_count[x + 1u];
    }
    let s = pos[x];
    x_ref[x] = vec2<f32>(s.pos_hi.x + s.pos_lo.x, s.pos_hi.y + s.pos_lo.y);
}
