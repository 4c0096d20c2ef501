// subgroup.wgsl: helpers of the subgroup kernels (integrate_subgroup.wgsl,
// contact_pairs_subgroup.wgsl). Valid only with subgroup operations (src/shaders.rs,
// NEEDS_SUBGROUPS). naga 30 rejects the WGSL directive `enable subgroups;` (not implemented): the
// device feature `Features::SUBGROUP` (naga `Capabilities::SUBGROUP`) is what gates them.

// True in the first active invocation of the subgroup: the one whose exclusive count of active
// invocations is 0 (WGSL has no subgroupElect; the subgroup size varies: lavapipe 8, NVIDIA 32,
// AMD 32 or 64). Every invocation of the subgroup must call it, in uniform control flow.
fn subgroup_first() -> bool {
    return subgroupExclusiveAdd(1u) == 0u;
}
