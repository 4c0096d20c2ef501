//! Cohesive links (§7, eq 41) on both backends: links driven kinematically break at the forces
//! the yield function predicts, in the predicted mode, and the CPU and GPU break the links within
//! a step of each other (GPU reruns bit-identical).

use softdem::backend::Backend;
use softdem::cpu::CpuBackend;
use softdem::gpu::context::gpu_for_tests;
use softdem::gpu::stepper::GpuBackend;
use softdem::model::*;
use std::sync::Arc;

const DT: f32 = 1e-3;
const K_N: f32 = 1000.0;
const D0: f64 = 0.1;

/// Three pairs of nodes 0.1 apart (a fixed bottom node, a top node of a driven line), linked by
/// laws with f_n^0 = −1, −2, −3 (f_t^0 = 1, α = 2, k_t = 0.1 k_n); the top line moves with
/// velocity `v` (imposed), then optionally `v2` after `switch` steps.
fn scene(v: [f32; 2]) -> Scene {
    let mut sc = Scene::default();
    let m = sc.add_material(Material {
        depth: 1.0,
        ..Default::default()
    });
    let o = BodyOptions {
        material: m,
        radius: 0.04,
        node_mass: 1.0,
        frozen: true,
        self_contact: false,
        core: Core::None,
    };
    let bottom = sc.add_line([0.0, 0.0], [2.0, 0.0], 3, o);
    let top = sc.add_line([0.0, D0], [2.0, D0], 3, o);
    for (k, f_n0) in [-1.0f32, -2.0, -3.0].into_iter().enumerate() {
        let law = sc.add_link_law(LinkLaw {
            k_n: K_N,
            k_t: 0.1 * K_N,
            f_n0,
            f_t0: 1.0,
            alpha: 2.0,
            g_c: 0.0,
            _pad0: 0.0,
            _pad1: 0.0,
        });
        let (a, b) = (
            sc.bodies[bottom as usize].first + k as u32,
            sc.bodies[top as usize].first + k as u32,
        );
        sc.add_link(a, b, law, 1.0);
    }
    sc.impose_velocity(&NodeSet::Body(top), Some(v[0]), Some(v[1]));
    sc.contact = ContactLaw {
        k_n: K_N,
        k_t: 0.0,
        mu: 0.3,
        c_n: 0.0,
    };
    sc.time_step = TimeStep::Fixed(DT);
    sc
}

fn run(be: &mut dyn Backend, steps: u32) -> Vec<LinkState> {
    be.step(steps).unwrap();
    be.read_links().unwrap()
}

fn backends(sc: &Scene) -> Vec<Box<dyn Backend>> {
    let ctx = Arc::new(gpu_for_tests());
    vec![
        Box::new(CpuBackend::new(sc).unwrap()),
        Box::new(GpuBackend::new(ctx, sc).unwrap()),
    ]
}

/// Pure tension: u_n = −v t, f_n = −k_n v t, so link k breaks at the first step with
/// k_n v t ≥ |f_n^0|, i.e. step ⌈|f_n^0| / (k_n v dt)⌉ (±1 for rounding of the distance), in
/// mode I, with |f_n| at the break within one step's increment of |f_n^0|.
#[test]
fn tension_breaks_at_f_n0_in_order_on_both_backends() {
    let v = 0.5f32;
    let sc = scene([0.0, v]);
    let mut sequences = vec![];
    for mut be in backends(&sc) {
        let links = run(&mut *be, 8000);
        for (k, (l, law)) in links.iter().zip(&sc.link_laws).enumerate() {
            let expect = (-law.f_n0 / (K_N * v * DT)).ceil() as i64;
            assert_eq!(l.mode, LINK_BROKE_TENSION, "{}: link {k} mode {}", be.name(), l.mode);
            assert!(
                (l.broken_step as i64 - expect).abs() <= 1,
                "{}: link {k} broke at step {} (expected ≈ {expect})",
                be.name(),
                l.broken_step
            );
            assert!(
                (l.f_n - law.f_n0).abs() <= K_N * v * DT * 1.01,
                "{}: f_n at break {} vs f_n0 {}",
                be.name(),
                l.f_n,
                law.f_n0
            );
        }
        assert!(links[0].broken_step < links[1].broken_step && links[1].broken_step < links[2].broken_step);
        sequences.push(links.iter().map(|l| (l.broken_step, l.mode)).collect::<Vec<_>>());
    }
    // CPU vs GPU: the same modes, each break within one step of the CPU's (a device that fuses
    // multiply-adds may cross f_n0 one step apart; lavapipe: the same steps).
    for (c, g) in sequences[0].iter().zip(&sequences[1]) {
        assert_eq!(c.1, g.1, "CPU and GPU break modes differ");
        assert!(c.0.abs_diff(g.0) <= 1, "CPU break at step {}, GPU at {}", c.0, g.0);
    }
}

/// Independent f64 replay of a link under imposed kinematics: node a fixed at the origin, node b
/// starting at (0, D0) and moving with velocity `phases[i].0` for `phases[i].1` steps. Returns the
/// (1-based) step at which eq 41 first gives ζ ≥ 0, and (f_n, f_t) there.
fn replay(law: &LinkLaw, phases: &[([f64; 2], u32)]) -> Option<(u32, f64, f64)> {
    let (mut b, mut f_t, mut step) = ([0.0f64, D0], 0.0f64, 0u32);
    let dt = DT as f64;
    for &(v, n) in phases {
        for _ in 0..n {
            step += 1;
            b = [b[0] + v[0] * dt, b[1] + v[1] * dt];
            let d = b[0].hypot(b[1]);
            let nrm = [-b[0] / d, -b[1] / d]; // from b towards a
            let t = [nrm[1], -nrm[0]];
            let f_n = law.k_n as f64 * (D0 - d);
            f_t -= law.k_t as f64 * (-(v[0] * t[0] + v[1] * t[1])) * dt;
            let zeta = f_n / law.f_n0 as f64 + (f_t / law.f_t0 as f64).powi(2) - 1.0;
            if zeta >= 0.0 {
                return Some((step, f_n, f_t));
            }
        }
    }
    None
}

/// Shear sideways: the growing distance adds tension, so the links break where eq 41 says, at
/// |f_t| < f_t^0, in shear mode — at the step of the f64 replay (±1) on both backends, CPU and
/// GPU within a step of each other, GPU reruns bit-identical.
#[test]
fn shear_breaks_where_eq41_says_identically_on_both_backends() {
    let v = [0.2f32, 0.0];
    let sc = scene(v);
    let mut results = vec![];
    for mut be in backends(&sc) {
        let links = run(&mut *be, 1000);
        for (k, (l, law)) in links.iter().zip(&sc.link_laws).enumerate() {
            let (step, f_n, f_t) = replay(law, &[([v[0] as f64, v[1] as f64], 1000)]).expect("the replay breaks");
            assert_eq!(l.mode, LINK_BROKE_SHEAR, "{}: link {k} mode {}", be.name(), l.mode);
            assert!(
                l.broken_step.abs_diff(step) <= 1,
                "{}: link {k} broke at {} (replay {step})",
                be.name(),
                l.broken_step
            );
            assert!(
                (l.f_t as f64 - f_t).abs() < 0.02 && (l.f_n as f64 - f_n).abs() < 0.02,
                "{}: link {k} forces at break ({}, {}) vs replay ({f_n}, {f_t})",
                be.name(),
                l.f_n,
                l.f_t
            );
        }
        results.push(links);
    }
    let ctx = Arc::new(gpu_for_tests());
    let again = run(&mut GpuBackend::new(ctx, &sc).unwrap(), 1000);
    assert_eq!(results[1], again, "two GPU runs differ");
    let steps: Vec<_> = results
        .iter()
        .map(|r| r.iter().map(|l| l.broken_step).collect::<Vec<_>>())
        .collect();
    // CPU vs GPU: each link's break step within one step of the other backend's (a break
    // decided within rounding of the yield surface may come a step apart on a device that fuses
    // multiply-adds; lavapipe gives the same steps).
    for (k, (c, g)) in steps[0].iter().zip(&steps[1]).enumerate() {
        assert!(c.abs_diff(*g) <= 1, "link {k}: CPU breaks at step {c}, GPU at {g}");
    }
}

/// Compression then shear: a link pressed to f_n > 0 holds more shear — it breaks only by shear,
/// at the step of the f64 replay of eq 41 (±1), with |f_t| above f_t^0.
#[test]
fn compressed_links_break_only_by_shear_at_the_raised_threshold() {
    let sc = scene([0.0, -0.1]);
    for mut be in backends(&sc) {
        be.step(500).unwrap(); // u_n = 0.05: f_n = +50 (compression)
        let mut nodes = sc.nodes.clone();
        for n in nodes.iter_mut().filter(|n| n.body == 1) {
            n.bc_velocity = [0.5, 0.0];
        }
        be.set_boundary_conditions(&nodes).unwrap();
        let links = run(&mut *be, 4000);
        for (k, (l, law)) in links.iter().zip(&sc.link_laws).enumerate() {
            let (step, _, f_t) = replay(law, &[([0.0, -0.1], 500), ([0.5, 0.0], 4000)]).expect("the replay breaks");
            assert_eq!(l.mode, LINK_BROKE_SHEAR, "{}", be.name());
            assert!(
                l.f_n > 0.0,
                "{}: the link was not in compression ({})",
                be.name(),
                l.f_n
            );
            assert!(
                l.f_t.abs() > law.f_t0,
                "{}: compression did not raise the shear strength",
                be.name()
            );
            assert!(
                l.broken_step.abs_diff(step) <= 1,
                "{}: link {k} broke at {} (replay {step})",
                be.name(),
                l.broken_step
            );
            assert!(
                (l.f_t as f64 - f_t).abs() < 0.1,
                "{}: |f_t| {} vs replay {f_t}",
                be.name(),
                l.f_t
            );
        }
    }
}
