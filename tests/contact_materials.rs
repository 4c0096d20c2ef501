//! The 2D contact law table (`model::contact_table`): two contact materials mix as the stated rule
//! says (k_n harmonic mean, μ arithmetic mean), on the CPU and on the GPU (lavapipe in CI), and
//! the scenario's `[contact_materials.NAME]` / `contact_material` keys reach the bodies.
//!
//! The GPU part fails (never skips) when no adapter exists (`gpu_for_tests` panics with a hint).

use softdem::backend::Backend;
use softdem::cpu::CpuBackend;
use softdem::gpu::context::gpu_for_tests;
use softdem::gpu::stepper::GpuBackend;
use softdem::model::*;
use std::sync::Arc;

/// Half-thickness r, overlap δ of the free line on the wall, sliding speed v.
const R: f32 = 0.1;
const DELTA: f64 = 0.01;
const V: f32 = 100.0;

/// Material A: k_n = 100, μ = 0.2; B: k_n = 300, μ = 0.6 (k_t = k_n/2, no dashpot). Mixed
/// (A, B): k_n = 2·100·300/400 = 150, μ = (0.2 + 0.6)/2 = 0.4.
const A: ContactLaw = ContactLaw {
    k_n: 100.0,
    k_t: 50.0,
    mu: 0.2,
    c_n: 0.0,
};
const B: ContactLaw = ContactLaw {
    k_n: 300.0,
    k_t: 150.0,
    mu: 0.6,
    c_n: 0.0,
};

/// A frozen wall line y = 0 of contact material `wall` and a free two-node line of material
/// `free` lying on it with overlap δ, sliding along it at speed v: two node–segment contacts
/// (the free nodes against the wall's interior), no cap contacts (the nodes are ≥ 0.5 apart).
fn scene(wall: u32, free: u32) -> Scene {
    let mut sc = Scene {
        contact: A,
        time_step: TimeStep::Fixed(1e-3),
        ..Default::default()
    };
    assert_eq!(sc.add_contact_material(B), 1);
    let m = sc.add_material(Material {
        k_s: 10.0,
        depth: 1.0,
        f_s_yield: f32::INFINITY,
        m_b_yield: f32::INFINITY,
        ..Default::default()
    });
    let opts = |frozen| BodyOptions {
        material: m,
        radius: R,
        node_mass: 1.0,
        frozen,
        self_contact: false,
        core: Core::None,
    };
    let w = sc.add_line([-1.0, 0.0], [1.0, 0.0], 2, opts(true));
    let h = 2.0 * R as f64 - DELTA;
    let f = sc.add_line([-0.5, h], [0.5, h], 2, opts(false));
    sc.bodies[w as usize].contact_material = wall;
    sc.bodies[f as usize].contact_material = free;
    for i in sc.bodies[f as usize].first..sc.bodies[f as usize].first + 2 {
        sc.init[i as usize].vel = [V, 0.0];
    }
    sc
}

/// The law the rule gives for materials (i, j), by hand: A–A, B–B their own, A–B mixed.
fn expected(i: u32, j: u32) -> (f32, f32) {
    match (i, j) {
        (0, 0) => (100.0, 0.2),
        (1, 1) => (300.0, 0.6),
        _ => (150.0, 0.4),
    }
}

/// Checks the contacts of `be` for the pair (wall, free): after the dt = 0 force pass f_n = k_n δ
/// on both contacts; after one step at speed v (k_t v dt ≫ μ f_n) the friction has saturated:
/// f_t = −μ f_n.
fn check(be: &mut dyn Backend, wall: u32, free: u32, what: &str) {
    let (k_n, mu) = expected(wall, free);
    let seg = |be: &mut dyn Backend| -> Vec<ContactSlot> {
        let c = be.read_contacts().unwrap();
        c.slots.into_iter().filter(|s| s.flags & SLOT_SEG != 0).collect()
    };
    let slots = seg(be);
    assert_eq!(slots.len(), 2, "{what}: two node–segment contacts");
    for s in &slots {
        let want = k_n as f64 * DELTA;
        // δ is formed in f32 from positions near 0.2: relative rounding ≤ ~2e-6 of f_n.
        assert!(
            (s.seg_fn as f64 - want).abs() <= 1e-4 * want,
            "{what}: f_n = {} but k_n δ = {want} (k_n = {k_n})",
            s.seg_fn
        );
    }
    be.step(1).unwrap();
    let slots = seg(be);
    assert_eq!(slots.len(), 2, "{what}: still two contacts after one step");
    for s in &slots {
        let (f_n, f_t) = (s.seg_fn as f64, s.hist[0] as f64);
        assert!(
            (f_n - k_n as f64 * DELTA).abs() <= 1e-3 * k_n as f64 * DELTA,
            "{what}: f_n = {f_n} after one step"
        );
        // f_t = clamp(−k_t v dt, ±μ f_n) = −μ f_n, one f32 rounding of μ f_n.
        assert!(
            (f_t + mu as f64 * f_n).abs() <= 1e-6 * f_n,
            "{what}: f_t = {f_t}, −μ f_n = {} (μ = {mu})",
            -mu as f64 * f_n
        );
    }
}

const PAIRS: [(u32, u32); 4] = [(0, 0), (1, 1), (0, 1), (1, 0)];

#[test]
fn two_materials_mix_by_the_rule_on_the_cpu() {
    for (wall, free) in PAIRS {
        let sc = scene(wall, free);
        let mut be = CpuBackend::new(&sc).unwrap();
        check(&mut be, wall, free, &format!("CPU, wall {wall}, free {free}"));
    }
}

#[test]
fn two_materials_mix_by_the_rule_on_the_gpu() {
    let ctx = Arc::new(gpu_for_tests());
    for (wall, free) in PAIRS {
        let sc = scene(wall, free);
        let mut be = GpuBackend::new(ctx.clone(), &sc).unwrap();
        check(&mut be, wall, free, &format!("GPU, wall {wall}, free {free}"));
    }
}

/// The scenario keys: `[contact]` is material 0, `[contact_materials.NAME]` 1, 2, … in name order;
/// `contact_material` sets every body of its entry; the table is the rule's.
#[test]
fn scenario_contact_materials_reach_the_bodies() {
    let text = r#"
[contact]
k_n = 100.0
k_t = 50.0
mu = 0.2

[contact_materials.stiff]
k_n = 300.0
k_t = 150.0
mu = 0.6

[materials.shell]
k_s = 1.0e3
k_b = 1.0
node_mass = 0.05

[[bodies]]
kind = "ring"
material = "shell"
center = [0.0, 0.0]
radius = 1.0
nodes = 16

[[bodies]]
kind = "ring"
material = "shell"
contact_material = "stiff"
center = [3.0, 0.0]
radius = 1.0
nodes = 16
"#;
    let sc =
        softdem::scenario::Scenario::from_text(text, "inline.toml", std::path::Path::new("."), "inline", &[]).unwrap();
    let scene = sc.build().unwrap().scene;
    assert_eq!(scene.n_contact_materials(), 2);
    assert_eq!(scene.bodies[0].contact_material, 0);
    assert_eq!(scene.bodies[1].contact_material, 1);
    let t = scene.contact_law_table();
    assert_eq!(t[0], A);
    assert_eq!(t[3], B);
    let mixed = ContactLaw {
        k_n: 150.0,
        k_t: 75.0,
        mu: 0.4,
        c_n: 0.0,
    };
    assert_eq!((t[1], t[2]), (mixed, mixed));
}
