// common.wgsl: helpers shared by every kernel (imported by model.wgsl, modal_lib.wgsl and
// prefix_scan.wgsl; see src/shaders.rs for `#import`).

const NONE: u32 = 0xffffffffu;

// Dispatch convention (see src/gpu/array.rs, `dispatch_size`): a kernel over n items of workgroup
// size WG is dispatched as (x, y, 1) workgroups with x <= 65535, rows y added when more workgroups
// are needed. Each invocation's item index is
//   linear_id(@builtin(workgroup_id), @builtin(local_invocation_id), @builtin(num_workgroups), WG)
// and x * y * WG may exceed n, so kernels must return early when the index is >= n.
fn linear_id(wid: vec3<u32>, lid: vec3<u32>, nwg: vec3<u32>, wg_size: u32) -> u32 {
    return (wid.x + wid.y * nwg.x) * wg_size + lid.x;
}

