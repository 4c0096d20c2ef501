// node_forces_subgroup.wgsl: `node_forces_integrate` (node_forces.wgsl) with the largest
// displacement reduced per subgroup (integrate_subgroup.wgsl, `subgroup_displacement`;
// `DisplacementMax::Subgroup`). A module of its own, compiled only on a device with subgroup
// operations (src/shaders.rs, NEEDS_SUBGROUPS).

#import node_forces
#import integrate_subgroup

// As `node_forces_integrate`, every invocation taking part in the subgroup maximum.
@compute @workgroup_size(64)
fn node_forces_integrate_subgroup(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let x = linear_id(wid, lid, nwg, 64u);
    var d = 0.0;
    if (x < params.n_nodes && atomicLoad(&flags.stop) == 0u) {
        let s = node_force_finish(x, node_force_sum(x));
        d = integrate_node(x, nodes[x], s);
    }
    subgroup_displacement(d);
}
