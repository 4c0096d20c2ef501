//! The device precision probe (src/gpu/precision.rs, shaders/precision_probe.wgsl): its verdicts
//! on the CPU twin (the reference: exact, unfused, correctly rounded), that each verdict trips on
//! an output that breaks it, and the report on the GPU adapter (lavapipe in CI).

use softdem::gpu::context::gpu_for_tests;
use softdem::gpu::precision::{evaluate, measure, precision_probe, probe_inputs, require_df32, ProbeOut};

fn cpu_outputs() -> Vec<ProbeOut> {
    probe_inputs().iter().map(precision_probe).collect()
}

#[test]
fn the_cpu_twin_is_exact_unfused_and_correctly_rounded() {
    let r = evaluate(&probe_inputs(), &cpu_outputs());
    assert_eq!(r.samples, softdem::gpu::precision::PROBE_SAMPLES);
    assert_eq!((r.two_sum_inexact, r.two_prod_inexact), (0, 0));
    assert!(!r.contracts_plain && !r.contracts_opaque);
    // IEEE division and square root are correctly rounded: at most half an ULP.
    assert!(r.div_max_ulp <= 0.5 && r.sqrt_max_ulp <= 0.5, "{r:?}");
    assert!(r.div_max_ulp > 0.0, "the samples exercise rounding");
    assert!(!r.flushes_subnormals);
    assert!(r.df32_exact());
}

#[test]
fn each_verdict_trips_on_an_output_that_breaks_it() {
    let inputs = probe_inputs();
    let good = cpu_outputs();
    let with = |k: usize, f: &dyn Fn(&mut ProbeOut)| {
        let mut o = good.clone();
        f(&mut o[k]);
        evaluate(&inputs, &o)
    };
    // A TwoSum that loses its error term (what reassociation of hi − (hi + t) + t does).
    let k = good
        .iter()
        .position(|o| o.sum_err != 0.0)
        .expect("a sum with a rounding error");
    let r = with(k, &|o| o.sum_err = 0.0);
    assert_eq!(r.two_sum_inexact, 1);
    assert!(!r.df32_exact());
    let r = with(9, &|o| o.prod_err += o.prod_err.abs().max(1e-30) * 0.5);
    assert_eq!(r.two_prod_inexact, 1);
    assert!(!r.df32_exact());
    // Sample 0 is the contraction witness: the fused value is 2^-24, the unfused 0.
    assert_eq!(good[0].plain_mad, 0.0);
    let r = with(0, &|o| o.plain_mad = 2f32.powi(-24));
    assert!(r.contracts_plain && !r.contracts_opaque && r.df32_exact());
    let r = with(0, &|o| o.opaque_mad = 2f32.powi(-24));
    assert!(r.contracts_opaque && !r.df32_exact());
    // A division one ULP off, a flushed subnormal.
    let r = with(3, &|o| o.quotient = f32::from_bits(o.quotient.to_bits() + 1));
    assert!(r.div_max_ulp > 0.5 && r.div_max_ulp <= 1.5, "{}", r.div_max_ulp);
    let r = with(2, &|o| o.halved = 0.0);
    assert!(r.flushes_subnormals);
}

/// On the GPU: the barrier holds and double-f32 is exact (the engine would refuse the device
/// otherwise); division and sqrt within WGSL's bounds (2.5 ULP; sqrt as inverseSqrt, 2 ULP, then
/// a reciprocal: 5 ULP here); the report reads back. No exact CPU == GPU equality is asserted.
#[test]
fn the_gpu_keeps_double_f32_exact() {
    let ctx = gpu_for_tests();
    let r = measure(&ctx).unwrap();
    eprintln!("{}: {}", ctx.info.name, r.lines().join("; "));
    assert_eq!((r.two_sum_inexact, r.two_prod_inexact), (0, 0), "{r:?}");
    assert!(!r.contracts_opaque, "{r:?}");
    assert!(r.div_max_ulp <= 2.5 && r.sqrt_max_ulp <= 5.0, "{r:?}");
    require_df32(&ctx).unwrap();
}
