// prefix_scan.wgsl: exclusive prefix sum over u32 (wrapping), multi-level "reduce then scan".
// Driven by src/gpu/scan.rs (PrefixScan), which documents the algorithm; CPU twin: src/cpu/scan.rs.
//
// A block is SCAN_BLOCK = 1024 elements, handled by one workgroup of 256 invocations (4 each).
// Blocks are numbered linearly over a 2-D dispatch (see linear_id in common.wgsl).
//   reduce_blocks: sums[b] = sum of data[b*1024 .. (b+1)*1024) (masked to < n)
//   scan_blocks:   data[i] = exclusive prefix of data[i] within its block, plus sums[b] when
//                  params.with_offsets != 0 (sums already scanned); the last block also writes the
//                  grand total to data[n] (so data holds n + 1 elements).
// u32 addition wraps, so results are exact and independent of the summation order.

#import common

const SCAN_WG: u32 = 256u;
const SCAN_PER_THREAD: u32 = 4u;
const SCAN_BLOCK: u32 = 1024u; // SCAN_WG * SCAN_PER_THREAD

struct ScanParams {
    n: u32,
    with_offsets: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> params: ScanParams;
@group(0) @binding(1) var<storage, read_write> sums: array<u32>;
@group(1) @binding(0) var<storage, read_write> data: array<u32>;

var<workgroup> tile: array<u32, SCAN_BLOCK>;
var<workgroup> part: array<u32, SCAN_WG>;

// Number of blocks for n elements (at least one, so that n = 0 still writes data[0] = 0).
fn scan_num_blocks(n: u32) -> u32 {
    return max(1u, n / SCAN_BLOCK + select(0u, 1u, n % SCAN_BLOCK != 0u));
}

@compute @workgroup_size(256)
fn reduce_blocks(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let n = params.n;
    let block = linear_id(wid, vec3<u32>(0u), nwg, 1u); // workgroup index
    if (block >= scan_num_blocks(n)) {
        return;
    }
    let base = block * SCAN_BLOCK;
    var s = 0u;
    for (var j = 0u; j < SCAN_PER_THREAD; j++) {
        let i = base + j * SCAN_WG + lid.x;
        if (i < n) {
            s += data[i];
        }
    }
    part[lid.x] = s;
    workgroupBarrier();
    for (var stride = SCAN_WG / 2u; stride > 0u; stride >>= 1u) {
        if (lid.x < stride) {
            part[lid.x] += part[lid.x + stride];
        }
        workgroupBarrier();
    }
    if (lid.x == 0u) {
        sums[block] = part[0];
    }
}

@compute @workgroup_size(256)
fn scan_blocks(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let n = params.n;
    let nb = scan_num_blocks(n);
    let block = linear_id(wid, vec3<u32>(0u), nwg, 1u); // workgroup index
    if (block >= nb) {
        return;
    }
    let base = block * SCAN_BLOCK;

    // Coalesced load: element j * 256 + lid of the block.
    for (var j = 0u; j < SCAN_PER_THREAD; j++) {
        let k = j * SCAN_WG + lid.x;
        var v = 0u;
        if (base + k < n) {
            v = data[base + k];
        }
        tile[k] = v;
    }
    workgroupBarrier();

    // Each invocation owns 4 consecutive elements of the block.
    let t = lid.x * SCAN_PER_THREAD;
    let a0 = tile[t];
    let a1 = tile[t + 1u];
    let a2 = tile[t + 2u];
    let a3 = tile[t + 3u];
    let own = a0 + a1 + a2 + a3;
    part[lid.x] = own;
    workgroupBarrier();

    // Inclusive Hillis-Steele scan of the 256 per-invocation sums.
    for (var off = 1u; off < SCAN_WG; off <<= 1u) {
        var v = part[lid.x];
        if (lid.x >= off) {
            v += part[lid.x - off];
        }
        workgroupBarrier();
        part[lid.x] = v;
        workgroupBarrier();
    }

    var offset = 0u;
    if (params.with_offsets != 0u) {
        offset = sums[block];
    }
    let excl = offset + part[lid.x] - own;
    tile[t] = excl;
    tile[t + 1u] = excl + a0;
    tile[t + 2u] = excl + a0 + a1;
    tile[t + 3u] = excl + a0 + a1 + a2;
    workgroupBarrier();

    for (var j = 0u; j < SCAN_PER_THREAD; j++) {
        let k = j * SCAN_WG + lid.x;
        if (base + k < n) {
            data[base + k] = tile[k];
        }
    }
    // Grand total. No invocation reads or writes data[n] otherwise (all accesses are < n).
    if (block == nb - 1u && lid.x == SCAN_WG - 1u) {
        data[n] = offset + part[SCAN_WG - 1u];
    }
}
