// sphere_law_batch.wgsl: `pair_force_batch`, one thread per contact of a batch of geometries:
// the laws of sphere_contact.wgsl evaluated on the GPU for the comparison with the CPU twin
// (src/spheres/gpu_contact.rs, tests/gpu_sphere.rs).
// Includes sphere_state, hertz, mindlin, linear_spring_dashpot, rolling_resistance, sphere_contact.

#import sphere_contact

@group(0) @binding(1) var<storage, read> laws: array<PairLaw>;
@group(0) @binding(2) var<storage, read> geometry: array<ContactGeometry>;
@group(0) @binding(3) var<storage, read> law_index: array<u32>;
@group(0) @binding(4) var<storage, read_write> history: array<ContactHistory>;
@group(0) @binding(5) var<storage, read_write> result: array<PairForce>;

const PAIR_WG: u32 = 64u;

// One contact per thread: result[k] and the new history[k] (twin: contact::pair_force).
@compute @workgroup_size(64)
fn pair_force_batch(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(wid, lid, nwg, PAIR_WG);
    if (k >= sp.n_items) {
        return;
    }
    let out = pair_force(laws[law_index[k]], geometry[k], sp.dt, history[k], 0.0);
    result[k] = out.force;
    history[k] = out.history;
}
