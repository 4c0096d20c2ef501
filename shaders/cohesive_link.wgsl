// cohesive_link.wgsl: cohesive links between cells (§7, eq 41); twin of src/cpu/cohesive_link.rs
// (see there for the sign conventions). One thread per link writes the force on node a and the
// link's new state; node_forces gathers (+ on a, − on b).

#import model

@group(0) @binding(1) var<storage, read> links: array<Link>;
@group(0) @binding(2) var<storage, read> link_laws: array<LinkLaw>;
@group(0) @binding(3) var<storage, read> pos: array<NodeState>;
@group(0) @binding(5) var<storage, read> link_in: array<LinkState>;
@group(0) @binding(6) var<storage, read_write> link_out: array<LinkState>;
@group(0) @binding(7) var<storage, read_write> link_force: array<vec2<f32>>;
// flags.step: the step being computed (1-based; 0 during the dt = 0 initial force pass).
@group(0) @binding(8) var<storage, read_write> flags: StepFlags;

// |x|^α, exact for α = 1 and 2 (no pow), as the CPU twin.
fn alpha_power(x: f32, alpha: f32) -> f32 {
    let ax = abs(x);
    if (alpha == 2.0) {
        return ax * ax;
    } else if (alpha == 1.0) {
        return ax;
    }
    return pow(ax, alpha);
}

@compute @workgroup_size(64)
fn cohesive_links(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let l = linear_id(wid, lid, nwg, 64u);
    // flags.stop != 0: list or pool overflow earlier in this batch, no-op (see core_area.wgsl).
    if (l >= arrayLength(&links) || atomicLoad(&flags.stop) != 0u) {
        return;
    }
    let old = link_in[l];
    if (old.broken_step != 0u) {
        link_out[l] = old;
        link_force[l] = vec2<f32>(0.0, 0.0);
        return;
    }
    let k = links[l];
    let law = link_laws[k.law];
    let off = df_sub(pos[k.a], pos[k.b]);
    let d = sqrt(dot2(off, off));
    let n = vec2<f32>(off.x / d, off.y / d);
    let t = vec2<f32>(n.y, -n.x);
    let f_n = law.k_n * (k.d0 - d);
    let va = pos[k.a].vel;
    let vb = pos[k.b].vel;
    let du_t = dot2(vec2<f32>(va.x - vb.x, va.y - vb.y), t) * params.dt;
    let f_t = old.f_t - law.k_t * du_t;
    let normal_term = f_n / law.f_n0;
    let shear_term = alpha_power(f_t / law.f_t0, law.alpha);
    var mode = LINK_INTACT;
    if (normal_term + shear_term - 1.0 >= 0.0) {
        mode = select(LINK_BROKE_SHEAR, LINK_BROKE_TENSION, normal_term >= shear_term);
    } else if (law.g_c > 0.0) {
        var energy = f_n * f_n / (2.0 * law.k_n);
        if (law.k_t > 0.0) {
            energy += f_t * f_t / (2.0 * law.k_t);
        }
        if (energy >= law.g_c * k.interface_length) {
            mode = LINK_BROKE_ENERGY;
        }
    }
    if (mode != LINK_INTACT) {
        let step = select(0u, atomicLoad(&flags.step), params.dt > 0.0);
        link_out[l] = LinkState(f_n, f_t, step, mode);
        link_force[l] = vec2<f32>(0.0, 0.0);
        return;
    }
    link_out[l] = LinkState(f_n, f_t, 0u, mode);
    link_force[l] = vec2<f32>(f_n * n.x + f_t * t.x, f_n * n.y + f_t * t.y);
}
