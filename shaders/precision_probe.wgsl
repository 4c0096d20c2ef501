// precision_probe.wgsl: the device's floating-point behaviour, measured on inputs from the host
// (so nothing can be folded at compile time); twin and verdicts: src/gpu/precision.rs.
//
// Per input (a, b, c, d): TwoSum and Dekker's TwoProduct of a and b (the error-free
// transformations double-f32 positions rest on, df32.wgsl), a·b + c written plainly and with the
// product behind `opaque` (a contraction into a fused multiply-add shows as a difference), a / b,
// sqrt(|a|), and d · 0.5 (a subnormal result when d is the smallest normal: flushed to zero or not).

#import common
#import df32

struct ProbeIn {
    a: f32,
    b: f32,
    c: f32,
    d: f32,
}

struct ProbeOut {
    sum: f32,
    sum_err: f32,
    prod: f32,
    prod_err: f32,
    plain_mad: f32,
    opaque_mad: f32,
    quotient: f32,
    root: f32,
    halved: f32,
    pad0: f32,
    pad1: f32,
    pad2: f32,
}

struct ProbeParams {
    n: u32,
    opaque_zero: u32,
}

@group(0) @binding(0) var<storage, read> probe_params: ProbeParams;
@group(0) @binding(1) var<storage, read> probe_in: array<ProbeIn>;
@group(0) @binding(2) var<storage, read_write> probe_out: array<ProbeOut>;

fn opaque_zero() -> u32 {
    return probe_params.opaque_zero;
}

@compute @workgroup_size(64)
fn precision_probe(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, 64u);
    if (i >= probe_params.n) {
        return;
    }
    let x = probe_in[i];
    let s = two_sum(x.a, x.b);
    let p = two_prod(x.a, x.b);
    var o: ProbeOut;
    o.sum = s.x;
    o.sum_err = s.y;
    o.prod = p.x;
    o.prod_err = p.y;
    o.plain_mad = x.a * x.b + x.c;
    o.opaque_mad = opaque(x.a * x.b) + x.c;
    o.quotient = x.a / x.b;
    o.root = sqrt(abs(x.a));
    o.halved = x.d * 0.5;
    probe_out[i] = o;
}
