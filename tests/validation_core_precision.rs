//! Regression test of an engine precision limit found by the stiff-core validation case (issue 4,
//! docs/validation.md, "Engine notes"): `core_area` (src/cpu/core_area.rs and its WGSL twin)
//! used to accumulate the shoelace sum and V − V0 in f32. For an undrained core with
//! K_Ω = 10⁵ K_∂Ω (the paper's η = ∞), one f32 ulp of V (2.4×10⁻⁷ at V ≈ π) is a pressure step of
//! K_Ω·ulp/V0 ≈ 0.015 F*/(sℓ), and the rounding of the 62-term sum moved p by several such
//! steps, whereas the physical ΔV/V0 of the whole compression is only ~3×10⁻⁶. `core_area` now
//! sums the area in double-f32 and forms |A| − A0 against a double-f32 reference area.
//!
//! The test scales the initial 64-gon of the stiff-core case uniformly by 1 + λ (λ = 0 … 4×10⁻⁷,
//! so ΔV/V0 = 2λ + λ²) and compares the engine's core pressure with −K_Ω ΔV/V0 evaluated in f64.
//! It asserts the precision the stiff-core check needs: pressure error ≤ 5 % of the largest |p|
//! of the scan (with f32 sums the error was 0.062 against 0.160 F*/(sℓ), 39 %). The CPU and GPU
//! twins are compared on the same polygons in `tests/core_area.rs`.

use softdem::cpu::core_area::core_area;
use softdem::validation::ring_compression::{scene, Params, Variant};

#[test]
fn undrained_core_pressure_resolves_small_volume_changes() {
    let p = Params::new(Variant::StiffCore);
    let sc = scene(&p);
    let b = &sc.bodies[0];
    let k_core = p.k_core();
    let p_unit = p.f_star() / p.ell(); // F*/(s ℓ)
    let mut worst: f64 = 0.0;
    let mut largest: f64 = 0.0;
    for i in 0..=40 {
        let lambda = i as f64 * 1e-8;
        let mut nodes = sc.init.clone();
        for s in nodes[b.first as usize..(b.first + b.count) as usize].iter_mut() {
            for d in 0..2 {
                let x = (s.pos_hi[d] as f64 + s.pos_lo[d] as f64) * (1.0 + lambda);
                s.pos_hi[d] = x as f32;
                s.pos_lo[d] = (x - s.pos_hi[d] as f64) as f32;
            }
        }
        let engine = core_area(0, &sc.bodies, &sc.materials, &nodes).pressure as f64;
        // Exact for the scaled polygon: V = (1 + λ)² V0.
        let exact = -k_core * ((1.0 + lambda).powi(2) - 1.0);
        eprintln!(
            "λ = {lambda:.1e}: p s ℓ/F* engine {:+.4}, exact {:+.4}",
            engine / p_unit,
            exact / p_unit
        );
        worst = worst.max((engine - exact).abs());
        largest = largest.max(exact.abs());
    }
    eprintln!(
        "worst pressure error {:.2e} F*/(sℓ) against a largest |p| of {:.3} ({:.1e} of it; tolerance 5 %)",
        worst / p_unit,
        largest / p_unit,
        worst / largest
    );
    assert!(
        worst <= 0.05 * largest,
        "core pressure error {:.3} F*/(sℓ) against a largest pressure of {:.3} F*/(sℓ)",
        worst / p_unit,
        largest / p_unit
    );
}
