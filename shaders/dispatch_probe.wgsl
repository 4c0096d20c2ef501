// dispatch_probe.wgsl: an empty kernel, dispatched many times by src/gpu/report.rs to measure
// the cost of one dispatch (direct and indirect) on a device, apart from any work.

@compute @workgroup_size(64)
fn empty() {}
