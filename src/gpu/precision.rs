//! The device's floating-point contract, measured rather than assumed.
//!
//! Double-f32 positions (TwoSum, `df_add`) and the exact area sums of `core_area` (TwoProduct)
//! are only right when every rounding the algorithm relies on happens. WGSL allows a compiler to
//! reassociate and to fuse a product into a following sum, and naga emits no `NoContraction`:
//! the engine keeps each such rounding behind `opaque()` (df32.wgsl). This module checks on the
//! device itself that this holds, with `precision_probe.wgsl` on inputs from the host:
//!
//! - TwoSum and TwoProduct error-free on every sample (s + e = a + b, p + e = a·b exactly);
//! - whether a plain `a*b + c` is contracted into a fused multiply-add (allowed: the engine does
//!   not rely on it), and whether `opaque(a*b) + c` is (not allowed: the barrier failed);
//! - the largest error of division and square root in ULPs (WGSL allows 2.5 ULP for division and
//!   the accuracy of `inverseSqrt` for `sqrt`): what bounds the CPU–GPU agreement of the laws;
//! - whether subnormal results are flushed to zero.
//!
//! [`require_df32`] refuses a device on which the double-f32 arithmetic is not exact; `softdem info`
//! prints the report. The CPU twin [`precision_probe`] is the reference the verdicts use.

use super::context::GpuContext;
use super::kernel::Kernel;
use crate::gpu::array::{dispatch_size, GpuArray};
use bytemuck::{Pod, Zeroable};

/// One probe input (twin of `ProbeIn` in precision_probe.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ProbeIn {
    pub a: f32,
    pub b: f32,
    pub c: f32,
    pub d: f32,
}

/// One probe result (twin of `ProbeOut` in precision_probe.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ProbeOut {
    pub sum: f32,
    pub sum_err: f32,
    pub prod: f32,
    pub prod_err: f32,
    pub plain_mad: f32,
    pub opaque_mad: f32,
    pub quotient: f32,
    pub root: f32,
    pub halved: f32,
    pub pad: [f32; 3],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct ProbeParams {
    n: u32,
    opaque_zero: u32,
}

/// Samples of the probe: the contraction witness first, then pseudo-random pairs over
/// magnitudes 2^-10..2^10 of both signs (sums and products exact in f64, no overflow in the
/// Veltkamp split).
pub const PROBE_SAMPLES: usize = 4096;

/// The probe's inputs, the same on every run. Sample 0 is the contraction witness:
/// a = b = 1 + 2⁻¹², c = −(1 + 2⁻¹¹). a·b = 1 + 2⁻¹¹ + 2⁻²⁴ rounds (tie to even) to 1 + 2⁻¹¹, so
/// a rounded product gives a·b + c = 0 and a fused one 2⁻²⁴. Every `d` is the smallest normal
/// f32, so d·0.5 is subnormal.
pub fn probe_inputs() -> Vec<ProbeIn> {
    let w = 1.0 + 2f32.powi(-12);
    let mut v = vec![ProbeIn {
        a: w,
        b: w,
        c: -(1.0 + 2f32.powi(-11)),
        d: f32::MIN_POSITIVE,
    }];
    // A 64-bit LCG (Knuth's MMIX constants): deterministic, no dependency.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let value = |next: &mut dyn FnMut() -> f64| {
        let mantissa = 1.0 + next();
        let exponent = (next() * 21.0).floor() as i32 - 10;
        let sign = if next() < 0.5 { -1.0 } else { 1.0 };
        (sign * mantissa * 2f64.powi(exponent)) as f32
    };
    while v.len() < PROBE_SAMPLES {
        let (a, b, c) = (value(&mut next), value(&mut next), value(&mut next));
        v.push(ProbeIn {
            a,
            b,
            c,
            d: f32::MIN_POSITIVE,
        });
    }
    v
}

/// Knuth's TwoSum (twin of df32.wgsl `two_sum`).
fn two_sum(a: f32, b: f32) -> (f32, f32) {
    crate::cpu::core_area::two_sum(a, b)
}

/// CPU twin of the `precision_probe` kernel. Rust never contracts `a * b + c`, so this is the
/// rounded-product reference.
pub fn precision_probe(x: &ProbeIn) -> ProbeOut {
    let (sum, sum_err) = two_sum(x.a, x.b);
    let (prod, prod_err) = crate::cpu::core_area::two_prod(x.a, x.b);
    ProbeOut {
        sum,
        sum_err,
        prod,
        prod_err,
        plain_mad: x.a * x.b + x.c,
        opaque_mad: x.a * x.b + x.c,
        quotient: x.a / x.b,
        root: x.a.abs().sqrt(),
        halved: x.d * 0.5,
        pad: [0.0; 3],
    }
}

/// What the probe found on one device.
#[derive(Clone, Debug, PartialEq)]
pub struct PrecisionReport {
    pub samples: usize,
    /// Samples where s + e ≠ a + b (TwoSum not error-free).
    pub two_sum_inexact: usize,
    /// Samples where p + e ≠ a·b (TwoProduct not error-free).
    pub two_prod_inexact: usize,
    /// A plain `a*b + c` was fused (allowed; the engine keeps such products behind `opaque`).
    pub contracts_plain: bool,
    /// `opaque(a*b) + c` was fused: the barrier does not hold on this device.
    pub contracts_opaque: bool,
    /// Largest error of `a / b` and `sqrt(|a|)` against the correctly rounded value, in ULPs.
    pub div_max_ulp: f64,
    pub sqrt_max_ulp: f64,
    /// Subnormal results are flushed to zero.
    pub flushes_subnormals: bool,
}

/// |r − exact| in units of the spacing of f32 at the correctly rounded value.
fn ulp_error(r: f32, exact: f64) -> f64 {
    let rounded = exact as f32;
    let spacing = f32::from_bits(rounded.abs().to_bits() + 1) as f64 - rounded.abs() as f64;
    (r as f64 - exact).abs() / spacing
}

/// The verdicts from the probe's outputs (GPU or CPU) on [`probe_inputs`]-like inputs.
pub fn evaluate(inputs: &[ProbeIn], outputs: &[ProbeOut]) -> PrecisionReport {
    assert_eq!(inputs.len(), outputs.len());
    let mut r = PrecisionReport {
        samples: inputs.len(),
        two_sum_inexact: 0,
        two_prod_inexact: 0,
        contracts_plain: false,
        contracts_opaque: false,
        div_max_ulp: 0.0,
        sqrt_max_ulp: 0.0,
        flushes_subnormals: false,
    };
    for (x, o) in inputs.iter().zip(outputs) {
        let (a, b) = (x.a as f64, x.b as f64);
        r.two_sum_inexact += usize::from(o.sum as f64 + o.sum_err as f64 != a + b);
        r.two_prod_inexact += usize::from(o.prod as f64 + o.prod_err as f64 != a * b);
        // The product rounded to f32, then the sum rounded (Rust does not fuse them).
        let unfused = x.a * x.b + x.c;
        r.contracts_plain |= o.plain_mad != unfused;
        r.contracts_opaque |= o.opaque_mad != unfused;
        r.div_max_ulp = r.div_max_ulp.max(ulp_error(o.quotient, a / b));
        r.sqrt_max_ulp = r.sqrt_max_ulp.max(ulp_error(o.root, a.abs().sqrt()));
        r.flushes_subnormals |= x.d == f32::MIN_POSITIVE && o.halved == 0.0;
    }
    r
}

impl PrecisionReport {
    /// Double-f32 positions and the exact area sums are right on this device.
    pub fn df32_exact(&self) -> bool {
        self.two_sum_inexact == 0 && self.two_prod_inexact == 0 && !self.contracts_opaque
    }

    /// The report as lines for `softdem info` and the GPU report.
    pub fn lines(&self) -> Vec<String> {
        let yes = |b: bool| if b { "yes" } else { "no" };
        vec![
            format!(
                "TwoSum error-free: {} ({} of {} samples inexact)",
                yes(self.two_sum_inexact == 0),
                self.two_sum_inexact,
                self.samples
            ),
            format!(
                "TwoProduct error-free: {} ({} of {} samples inexact)",
                yes(self.two_prod_inexact == 0),
                self.two_prod_inexact,
                self.samples
            ),
            format!(
                "a*b + c contracted to a fused multiply-add: plain {}, behind opaque() {}",
                yes(self.contracts_plain),
                yes(self.contracts_opaque)
            ),
            format!(
                "largest error: division {:.2} ULP, sqrt {:.2} ULP (0.5 = correctly rounded)",
                self.div_max_ulp, self.sqrt_max_ulp
            ),
            format!("subnormal results flushed to zero: {}", yes(self.flushes_subnormals)),
            format!(
                "double-f32 positions: {}",
                if self.df32_exact() {
                    "exact (engine runs)"
                } else {
                    "NOT exact (engine refuses this device)"
                }
            ),
        ]
    }
}

/// Runs the probe on `ctx`'s device.
pub fn measure(ctx: &GpuContext) -> anyhow::Result<PrecisionReport> {
    let inputs = probe_inputs();
    let params = [ProbeParams {
        n: inputs.len() as u32,
        opaque_zero: 0,
    }];
    let params = GpuArray::new(ctx, "probe_params", &params)?;
    let input = GpuArray::new(ctx, "probe_in", &inputs)?;
    let output: GpuArray<ProbeOut> = GpuArray::zeroed(ctx, "probe_out", inputs.len())?;
    let kernel = Kernel::new(ctx, "precision_probe", "precision_probe")?;
    let group = kernel.bind(ctx, &[(0, params.buffer()), (1, input.buffer()), (2, output.buffer())]);
    let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("precision_probe"),
    });
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("precision_probe"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&kernel.pipeline);
        pass.set_bind_group(0, &group, &[]);
        let (x, y) = dispatch_size(inputs.len() as u32, 64);
        pass.dispatch_workgroups(x, y, 1);
    }
    ctx.queue.submit([encoder.finish()]);
    Ok(evaluate(&inputs, &output.read(ctx)))
}

/// Errors unless double-f32 arithmetic is exact on `ctx`'s device (measured once per adapter
/// and driver in a process).
pub fn require_df32(ctx: &GpuContext) -> anyhow::Result<()> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static MEASURED: OnceLock<Mutex<HashMap<String, PrecisionReport>>> = OnceLock::new();
    let key = format!("{}|{}|{}", ctx.info.name, ctx.info.driver, ctx.info.driver_info);
    let cached = MEASURED
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .get(&key)
        .cloned();
    let report = match cached {
        Some(r) => r,
        None => {
            let r = measure(ctx)?;
            MEASURED
                .get_or_init(Default::default)
                .lock()
                .unwrap()
                .insert(key, r.clone());
            r
        }
    };
    anyhow::ensure!(
        report.df32_exact(),
        "the GPU {:?} ({:?}) does not keep double-f32 arithmetic exact, so positions would lose \
         precision:\n  {}\nuse `--backend cpu` or another adapter (WGPU_ADAPTER_NAME)",
        ctx.info.name,
        ctx.info.backend,
        report.lines().join("\n  ")
    );
    Ok(())
}
