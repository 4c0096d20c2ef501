//! `core_area` (src/cpu/core_area.rs and shaders/core_area.wgsl) resolves area changes far
//! below one f32 ulp of the area, on both backends, for a polygon anywhere and in any
//! orientation (eq 4 with the paper's η ≃ 10⁵ needs ΔV/V0 to ~10⁻⁹).
//!
//! The reference is the 64-gon of the stiff-core case (R = 1, K_Ω = 10⁵ K_∂Ω). Each input maps
//! it by an affine map x ↦ c + Q(θ) diag(a, b) x with a b = (1 + λ)², so ΔA/A0 = (1 + λ)² − 1
//! exactly (the map scales every triangle of the shoelace sum alike); λ = ±5×10⁻⁸ makes
//! |ΔA|/A0 = 10⁻⁷, under two f32 ulps of A0. The engine's pressure must equal −K_Ω ΔA/A0 within
//! 0.1 % (measured: 3×10⁻⁸ to 8×10⁻⁸, the f32 rounding of p itself). The former f32 sum, emulated
//! on these four inputs, is off by 24 % to 176 % (one ulp of V is 0.015 F*/(sℓ), p is 0.020).
//!
//! CPU: the `core_area` function and a new `CpuBackend`; GPU: a new `GpuBackend` (both
//! constructors run the dt = 0 step that computes f_0, core_area included), read back with
//! `read_bodies`.
//! The same 0.1 % holds for `BodyState::area_change` (|A| − A0, used by the core energies).
//! The twins round identically (no FMA, opaque() on the GPU): the GPU's pressure must equal the
//! CPU's within 10⁻⁶ of |p| (in practice bit for bit).

use softdem::backend::Backend;
use softdem::cpu::core_area::core_area;
use softdem::cpu::CpuBackend;
use softdem::gpu::context::gpu_for_tests;
use softdem::gpu::stepper::GpuBackend;
use softdem::model::*;
use softdem::validation::ring_compression::{Params, Variant};
use std::sync::Arc;

const N: usize = 64;

/// One deformation of the reference ring centred at `c`.
struct Case {
    name: &'static str,
    c: [f64; 2],
    theta: f64,
    /// Axis ratio before the (1 + λ) scaling: a = ratio (1 + λ), b = (1 + λ)/ratio.
    ratio: f64,
    lambda: f64,
}

/// The reference ring (body 0, undrained core) at `c` and the deformed node states.
fn scene_and_nodes(p: &Params, case: &Case) -> (Scene, Vec<NodeState>) {
    let mut sc = Scene::default();
    let m = sc.add_material(Material {
        k_s: p.k_s() as f32,
        f_s_yield: f32::INFINITY,
        k_b: p.k_b() as f32,
        m_b_yield: f32::INFINITY,
        k_core: p.k_core() as f32,
        depth: 1.0,
        ..Default::default()
    });
    sc.add_ring(
        case.c,
        1.0,
        N,
        BodyOptions {
            material: m,
            radius: (0.5 * p.h()) as f32,
            node_mass: 1.0,
            frozen: false,
            self_contact: false,
            core: Core::Undrained { p0: 0.0 },
        },
    );
    sc.time_step = TimeStep::FractionOfCritical(0.5);
    let (a, b) = (case.ratio * (1.0 + case.lambda), (1.0 + case.lambda) / case.ratio);
    let (s, co) = case.theta.sin_cos();
    let mut nodes = sc.init.clone();
    for (k, st) in nodes.iter_mut().enumerate() {
        let phi = 2.0 * std::f64::consts::PI * k as f64 / N as f64;
        let (x, y) = (a * phi.cos(), b * phi.sin());
        let q = [case.c[0] + co * x - s * y, case.c[1] + s * x + co * y];
        for (d, &qd) in q.iter().enumerate() {
            st.pos_hi[d] = qd as f32;
            st.pos_lo[d] = (qd - st.pos_hi[d] as f64) as f32;
        }
    }
    (sc, nodes)
}

fn cases() -> Vec<Case> {
    let mut v = vec![];
    for lambda in [5e-8, -5e-8] {
        v.push(Case {
            name: "scaled at the origin",
            c: [0.0, 0.0],
            theta: 0.0,
            ratio: 1.0,
            lambda,
        });
        v.push(Case {
            name: "ellipse 1.3 : 1/1.3, rotated 0.7 rad, at (100.3, −57.1)",
            c: [100.3, -57.1],
            theta: 0.7,
            ratio: 1.3,
            lambda,
        });
    }
    v
}

/// Body 0's state as a new backend computes it: its constructor runs one step with dt = 0 (for
/// f_0), whose core_area pass sees the initial positions.
fn at_start(be: &mut dyn Backend) -> BodyState {
    be.read_bodies().unwrap()[0]
}

#[test]
fn core_area_resolves_area_changes_of_1e_7_cpu_and_gpu() {
    let p = Params::new(Variant::StiffCore);
    let p_unit = p.f_star() / p.ell(); // F*/(s ℓ)
    let ctx = Arc::new(gpu_for_tests());
    for case in cases() {
        let (mut sc, nodes) = scene_and_nodes(&p, &case);
        let exact = -p.k_core() * ((1.0 + case.lambda).powi(2) - 1.0);
        let direct = core_area(0, &sc.bodies, &sc.materials, &nodes);
        sc.init = nodes;
        let cpu = at_start(&mut CpuBackend::new(&sc).unwrap());
        let gpu = at_start(&mut GpuBackend::new(ctx.clone(), &sc).unwrap());
        println!(
            "{} (λ = {:+.0e}): p s ℓ/F* exact {:+.6}, core_area {:+.6}, CPU backend {:+.6}, GPU backend {:+.6}",
            case.name,
            case.lambda,
            exact / p_unit,
            direct.pressure as f64 / p_unit,
            cpu.pressure as f64 / p_unit,
            gpu.pressure as f64 / p_unit
        );
        let a0 = sc.bodies[0].core_a0_hi as f64 + sc.bodies[0].core_a0_lo as f64;
        let exact_da = a0 * ((1.0 + case.lambda).powi(2) - 1.0);
        for (what, got) in [("core_area", direct), ("CPU backend", cpu), ("GPU backend", gpu)] {
            let rel = (got.pressure as f64 - exact).abs() / exact.abs();
            let rel_da = (got.area_change as f64 - exact_da).abs() / exact_da.abs();
            println!("  {what}: relative pressure error {rel:.1e}, relative |A| − A0 error {rel_da:.1e}");
            assert!(
                rel_da <= 1e-3,
                "{} (λ = {:e}), {what}: |A| − A0 = {} against {exact_da} (tolerance 0.1 %)",
                case.name,
                case.lambda,
                got.area_change
            );
            assert!(
                rel <= 1e-3,
                "{} (λ = {:e}), {what}: pressure {} against −K_Ω ΔA/A0 = {exact} ({:.2} % off; tolerance 0.1 %)",
                case.name,
                case.lambda,
                got.pressure,
                100.0 * rel
            );
        }
        assert_eq!(direct, cpu, "{}: core_area and the CPU backend differ", case.name);
        println!("  GPU bit-identical to CPU: {}", gpu == cpu);
        let dev = (gpu.pressure as f64 - cpu.pressure as f64).abs();
        assert!(
            dev <= 1e-6 * exact.abs(),
            "{}: GPU pressure {} vs CPU {} (tolerance 1e-6 |p|)",
            case.name,
            gpu.pressure,
            cpu.pressure
        );
        let da = (gpu.area as f64 - cpu.area as f64).abs();
        assert!(
            da <= 1e-6 * cpu.area.abs() as f64,
            "{}: GPU area {} vs CPU {}",
            case.name,
            gpu.area,
            cpu.area
        );
    }
}
