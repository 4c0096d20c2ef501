// integrate_subgroup.wgsl: integrate (integrate.wgsl) with the largest displacement reduced per
// subgroup (`DisplacementMax::Subgroup`, GPUs with subgroup operations): a subgroupMax of the
// bits, then one atomicMax per subgroup, taken by its first invocation. No workgroup memory and
// no barrier. A maximum is exact and order-free: the same bits as `raise_displacement` and
// `stage_displacement`, whatever the subgroup size (lavapipe 8, NVIDIA 32, AMD 32 or 64).
//
// A module of its own: subgroup operations make a module invalid on a device without
// `Features::SUBGROUP` (naga `Capabilities::SUBGROUP`), so integrate.wgsl and node_forces.wgsl,
// which every device compiles, hold none (src/shaders.rs, NEEDS_SUBGROUPS).

#import integrate
#import subgroup

// Raises flags.max_disp with the subgroup's largest displacement (bits of d ≥ 0 or NaN: the
// integer order is the value order, NaN on top, as in `raise_displacement`). Every invocation of
// the workgroup must call it (uniform control flow), those without a node with d = 0 (bits 0,
// the identity of the maximum).
fn subgroup_displacement(d: f32) {
    let m = subgroupMax(bitcast<u32>(d));
    if (subgroup_first()) {
        raise_displacement_bits(m);
    }
}

// As `integrate`, the displacement maximum reduced per subgroup.
@compute @workgroup_size(64)
fn integrate_subgroup(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, 64u);
    var d = 0.0;
    if (i < params.n_nodes && atomicLoad(&flags.stop) == 0u) {
        d = integrate_node(i, nodes[i], state_in[i]);
    }
    subgroup_displacement(d);
}
