//! Shared scenes, runners and physics checks of the engine acceptance tests.
//!
//! Every acceptance case is a module with
//! - `scene(..)`: the `Scene` (identical for both backends),
//! - `run(backend: &mut dyn Backend, ..) -> Measurements`: drives the case through the `Backend`
//!   trait only, so the very same code runs on the CPU reference and on the GPU,
//! - `check(&Measurements)`: the assertions against the paper / analytic results, with the
//!   tolerances stated next to them.
//!
//! `tests/engine_cpu.rs` runs every case on `CpuBackend`; `tests/engine_gpu.rs` runs the same cases
//! (or a stated prefix of them) on `GpuBackend`, applies the same `check` and compares with the CPU.
//!
//! Units: lengths in units of the cell radius R = 1, node mass m = 1, depth s = 1.
#![allow(dead_code)]

use softdem::backend::{Backend, ContactSnapshot};
use softdem::cpu::CpuBackend;
use softdem::diagnostics;
use softdem::gpu::context::{gpu_for_tests, GpuContext};
use softdem::gpu::stepper::GpuBackend;
use softdem::model::*;
use std::sync::{Arc, OnceLock};

// ---------------------------------------------------------------------------------------------
// Backends and small helpers
// ---------------------------------------------------------------------------------------------

/// The CPU reference backend for a scene.
pub fn cpu_backend(scene: &Scene) -> Box<dyn Backend> {
    Box::new(CpuBackend::new(scene).expect("CpuBackend::new"))
}

/// One GPU context shared by all the GPU tests of a test binary (device creation is slow on
/// lavapipe). Panics with a clear message when no adapter exists.
pub fn gpu_context() -> Arc<GpuContext> {
    static CTX: OnceLock<Arc<GpuContext>> = OnceLock::new();
    CTX.get_or_init(|| Arc::new(gpu_for_tests())).clone()
}

/// The GPU backend for a scene.
pub fn gpu_backend(scene: &Scene) -> Box<dyn Backend> {
    Box::new(GpuBackend::new(gpu_context(), scene).expect("GpuBackend::new"))
}

/// Deterministic SplitMix64 generator (no `rand` dependency; the scenes must be reproducible).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in [a, b).
    pub fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.uniform()
    }
}

/// A purely elastic material (no thresholds, no dashpots), depth s = 1.
pub fn elastic(k_s: f32, k_b: f32, k_core: f32) -> Material {
    Material {
        k_s,
        f_s_yield: f32::INFINITY,
        c_s: 0.0,
        k_b,
        m_b_yield: f32::INFINITY,
        c_b: 0.0,
        k_core,
        depth: 1.0,
    }
}

/// Options of a free body.
pub fn free_body(material: u32, radius: f32, core: Core) -> BodyOptions {
    BodyOptions {
        material,
        radius,
        node_mass: 1.0,
        frozen: false,
        self_contact: false,
        core,
    }
}

/// Options of a frozen (rigid, driven) wall body.
pub fn wall_body(material: u32, radius: f32) -> BodyOptions {
    BodyOptions {
        material,
        radius,
        node_mass: 1.0,
        frozen: true,
        self_contact: false,
        core: Core::None,
    }
}

/// Largest node-position difference between two states (f64 positions).
pub fn max_position_diff(a: &[NodeState], b: &[NodeState]) -> f64 {
    assert_eq!(a.len(), b.len(), "states of different sizes");
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let (p, q) = (x.pos(), y.pos());
            ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt()
        })
        .fold(0.0, f64::max)
}

/// True when every field of every node state is finite.
pub fn all_finite(nodes: &[NodeState]) -> bool {
    nodes.iter().all(|s| {
        s.pos_hi
            .iter()
            .chain(&s.pos_lo)
            .chain(&s.vel)
            .chain(&s.force)
            .chain([&s.seg_rest, &s.theta_p])
            .all(|v| v.is_finite())
    })
}

/// Sum of the normal forces of the active contacts (segment and cap) of a snapshot.
pub fn total_normal_force(c: &ContactSnapshot) -> f64 {
    c.slots
        .iter()
        .map(|s| {
            let mut f = 0.0;
            if s.flags & SLOT_SEG != 0 {
                f += s.seg_fn as f64;
            }
            if s.flags & SLOT_CAP != 0 {
                f += s.cap_fn as f64;
            }
            f
        })
        .sum()
}

/// Mean velocity of a body (its momentum over its mass).
pub fn body_velocity(scene: &Scene, nodes: &[NodeState], body: u32) -> [f64; 2] {
    let b = scene.bodies[body as usize];
    let (mut p, mut m) = ([0.0f64; 2], 0.0f64);
    for i in b.first..b.first + b.count {
        let (nd, s) = (&scene.nodes[i as usize], &nodes[i as usize]);
        p[0] += nd.mass as f64 * s.vel[0] as f64;
        p[1] += nd.mass as f64 * s.vel[1] as f64;
        m += nd.mass as f64;
    }
    [p[0] / m, p[1] / m]
}

fn sub(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

fn norm(a: [f64; 2]) -> f64 {
    (a[0] * a[0] + a[1] * a[1]).sqrt()
}

/// Largest step-to-step change of a sampled series.
pub fn max_jump(series: &[f64]) -> f64 {
    series.windows(2).map(|w| (w[1] - w[0]).abs()).fold(0.0, f64::max)
}

// ---------------------------------------------------------------------------------------------
// The acceptance cases, one file each (`tests/common/<case>.rs`: scene, run, check).
// ---------------------------------------------------------------------------------------------

/// Case 2: undamped head-on collision of two rings.
pub mod collision;
/// Case 3a: stick / slip of a block-like cell on an inclined wall.
pub mod friction_slope;
/// Case 3b: a node dragged over a joint of a frozen polyline.
pub mod joint_drag;
/// Case 7: a large scene without any quadratic stage.
pub mod large;
/// Case 5: random polydisperse packing in a box.
pub mod packing;
/// Case 4b: bending plasticity at a vertex (eq 3).
pub mod plastic_bending;
/// Case 4a: stretch plasticity of a single segment (eq 1–2).
pub mod plastic_segment;
/// Case 6: sub-ulp displacements far from the origin (double-f32 positions).
pub mod precision;
/// Case 1b: ring inflated by a drained core pressure, eq 21–25.
pub mod ring_inflation;
/// Case 1a: a relaxed ring stays at rest.
pub mod ring_rest;
/// Self-contact keeps a flattened ring's sides apart.
pub mod self_contact;
/// Case 3c: contact on a stretched segment.
pub mod stretched_segment;
