//! Issue 7 validation cases on the CPU reference (the `modal_*` rows of `softdem validate`):
//! three-point bending with the analytic mode (slope of F̂(δ̂) = 1 within 2 %), a disk with a
//! tabulated compaction mode (wall force = table within 2 %), the 3×3 packing (wall force =
//! 3 F_int(u_w/3) within 2 %), and the pullback / precomputed level sets against the exact
//! distance of the deformed shape (within `PULLBACK_TOL_H` grid spacings).

use softdem::backend::BackendKind;
use softdem::modal::validation::*;
use softdem::validation::Extent;

fn show(r: &softdem::validation::CaseReport) {
    for c in &r.checks {
        eprintln!(
            "{}: measured {:.6} expected {:.6} tol {} pass {}",
            c.name, c.measured, c.expected, c.tolerance, c.pass
        );
    }
    eprintln!("{} took {:.2} s", r.case, r.seconds);
}

#[test]
fn modal_bending_slope_is_one() {
    let r = run_bending(BackendKind::Cpu, Extent::Full).unwrap();
    show(&r);
    r.assert_all_pass();
}

#[test]
fn modal_disk_reproduces_the_table() {
    let r = run_compaction(BackendKind::Cpu, Extent::Full, 1).unwrap();
    show(&r);
    r.assert_all_pass();
}

#[test]
fn modal_packing_matches_the_energy_balance() {
    let r = run_compaction(BackendKind::Cpu, Extent::Full, 3).unwrap();
    show(&r);
    r.assert_all_pass();
}

#[test]
fn modal_pullback_matches_the_recomputed_distance() {
    let r = run_pullback().unwrap();
    eprintln!("{}", r.setup);
    show(&r);
    r.assert_all_pass();
}

/// Writes the figures of docs/modal.md (docs/img/modal_*.png) with src/plot.rs:
/// `cargo test --release --test modal_validation -- --ignored modal_docs_images`.
#[test]
#[ignore = "regenerates the pictures in docs/img/modal_*.png; run by hand with --ignored"]
fn modal_docs_images() {
    let reports = run_all(BackendKind::Cpu).unwrap();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/img");
    for r in &reports {
        show(r);
        for f in &r.figures {
            softdem::plot::line_plot(&dir.join(&f.file), &f.spec).unwrap();
        }
    }
}

/// Case 5: the 2×2 packing with the pullback and the precomputed level-set queries: both within
/// 2 % of 2 F_int(u_w/2), and within `QUERY_AGREEMENT_TOL` of each other (u_w ≥ u_max/2). The
/// two runs must differ (the option reaches the stepper): not bit-identical force series.
#[test]
fn modal_query_methods_agree() {
    let r = run_query(BackendKind::Cpu, Extent::Full).unwrap();
    eprintln!("{}", r.setup);
    show(&r);
    let (a, b) = (&r.trace("force_pullback").values, &r.trace("force_precomputed").values);
    assert!(a != b, "the precomputed option did not change the run");
    r.assert_all_pass();
}

/// The stepper's precomputed query (`ls_query` on a body packed with precomputed level sets, the
/// CPU twin of the WGSL function) against the host-side interpolation of eq 49
/// (`PrecomputedLevelSets::query`, each field interpolated then weighted): the same linear
/// operations in another order, so they agree to f32 rounding (1e-5 h here, fields ~10); and its
/// gradient against a central difference of the host query (5e-3, the bilinear gradient is
/// piecewise constant per cell: points away from cell edges).
#[test]
fn modal_precomputed_query_matches_the_host_interpolation() {
    use softdem::modal::body::LevelSetQuery;
    use softdem::modal::contact::ls_query;
    use softdem::modal::precomputed::PrecomputedLevelSets;
    use softdem::modal::stepper::{ContactParams, ModalScene};
    let mut d = compaction_disk([0.0, 0.0]);
    d.query = LevelSetQuery::Precomputed {
        samples: QUERY_SAMPLES.to_vec(),
    };
    let host = PrecomputedLevelSets::build(&d, &QUERY_SAMPLES);
    let scene = ModalScene {
        bodies: vec![d],
        walls: vec![],
        contact: ContactParams {
            k_n: 1.0,
            c_n: 0.0,
            k_t: 1.0,
            mu: 0.0,
        },
        contact_materials: vec![],
        dt: 1.0,
        rebuild_every: 1,
        skin: 0.0,
    };
    let sc = scene.pack().unwrap();
    let h = sc.bodies[0].h;
    let (mut worst, mut worst_g, mut n) = (0.0f32, 0.0f32, 0);
    for eps in [-0.1f32, 0.0, 0.03, 0.12, 0.16, 0.3] {
        for k in 0..200 {
            let a = k as f32 * 0.0314159;
            let r = 10.0 + 0.9 * h * (k as f32 * 0.37).sin();
            let q = [r * a.cos(), r * a.sin()];
            let v = ls_query(&sc, 0, &[eps, 0.0, 0.0, 0.0], q);
            assert_eq!(v[3], 1.0, "query point off the grid");
            worst = worst.max((v[0] - host.query(q, eps)).abs() / h);
            let (gx, gy) = ((q[0] - sc.bodies[0].origin[0]) / h, (q[1] - sc.bodies[0].origin[1]) / h);
            let (fx, fy) = (gx - gx.floor(), gy - gy.floor());
            if fx.min(1.0 - fx) > 0.1 && fy.min(1.0 - fy) > 0.1 {
                let dd = 0.05 * h;
                let ddx = (host.query([q[0] + dd, q[1]], eps) - host.query([q[0] - dd, q[1]], eps)) / (2.0 * dd);
                let ddy = (host.query([q[0], q[1] + dd], eps) - host.query([q[0], q[1] - dd], eps)) / (2.0 * dd);
                worst_g = worst_g.max((v[1] - ddx).abs().max((v[2] - ddy).abs()));
                n += 1;
            }
        }
    }
    eprintln!("precomputed query vs host: max |Δφ|/h = {worst:.2e}, max |Δ∇φ| = {worst_g:.2e} ({n} points)");
    assert!(n > 100, "too few gradient points: {n}");
    assert!(worst <= 1e-5, "value differs by {worst} h");
    assert!(worst_g <= 5e-3, "gradient differs by {worst_g}");
}

/// eq 50 with two modes, read as the superposition of the modes' changes of φ0 (see
/// src/modal/precomputed.rs): the beam of case 1 with its bending mode and a second, axial
/// stretch mode Φ = (x/20, 0) (the ends move by ±ε), at (ε_bend, ε_stretch) = (0.5, 0.3), against
/// the exact distance to the deformed boundary (a 0.02-spaced polygon of p + Σ ε_α Φ_α(p)) at
/// points with |φ_exact| ≤ h, more than 2h from the deformed corners, as case 4. The cross terms
/// the superposition leaves out are of order ε_bend ε_stretch |∇Φ|; tolerance 0.1 h (the case-4
/// tolerance); the pullback (multi-mode by construction) is checked alongside.
#[test]
fn modal_precomputed_two_modes_match_the_recomputed_distance() {
    use softdem::modal::body::{rectangle_nodes, LevelSetQuery};
    use softdem::modal::contact::ls_query;
    use softdem::modal::modes::Mode;
    use softdem::modal::stepper::ModalScene;
    let bc = bending_case().unwrap();
    let mut beam = bc.scene.bodies[0].clone();
    let g = beam.level_set.grid.clone();
    beam.modes.push(Mode::tabulate(&g, |p| [p[0] / 20.0, 0.0]));
    beam.modal_mass = vec![beam.modal_mass[0], 0.0, 0.0, 1.0];
    beam.stiffness = softdem::modal::stiffness::ModalStiffness::Linear(vec![1.0, 0.0, 0.0, 1.0]);
    beam.modal_damping = vec![0.0; 4];
    let mut pre = beam.clone();
    pre.query = LevelSetQuery::Precomputed {
        samples: vec![-0.5, 0.0, 0.25, 0.5, 0.75, 1.0],
    };
    let pack = |b| {
        ModalScene {
            bodies: vec![b],
            ..bc.scene.clone()
        }
        .pack()
        .unwrap()
    };
    let (sp, sq) = (pack(beam.clone()), pack(pre));
    let eps = [0.5f32, 0.3, 0.0, 0.0];
    let deform = |p: [f64; 2]| {
        let (a, b) = (beam.modes[0].eval_f64(&g, p), beam.modes[1].eval_f64(&g, p));
        [
            p[0] + eps[0] as f64 * a[0] + eps[1] as f64 * b[0],
            p[1] + eps[0] as f64 * a[1] + eps[1] as f64 * b[1],
        ]
    };
    let poly: Vec<[f64; 2]> = rectangle_nodes(20.0, 1.0, 0.02).into_iter().map(deform).collect();
    let corners: Vec<[f64; 2]> = [[-20.0, -1.0], [20.0, -1.0], [20.0, 1.0], [-20.0, 1.0]]
        .into_iter()
        .map(deform)
        .collect();
    let h = g.h as f64;
    let (mut e_pre, mut e_pull, mut n) = (0.0f64, 0.0f64, 0);
    for_each_ls_sample(&g, &poly, &corners, |qf, exact| {
        e_pre = e_pre.max((ls_query(&sq, 0, &eps, qf)[0] as f64 - exact).abs() / h);
        e_pull = e_pull.max((ls_query(&sp, 0, &eps, qf)[0] as f64 - exact).abs() / h);
        n += 1;
    });
    eprintln!("two modes: precomputed max error {e_pre:.4} h, pullback {e_pull:.4} h over {n} points");
    assert!(n > 1000, "{n} points");
    assert!(e_pre <= PULLBACK_TOL_H, "precomputed (eq 50) off by {e_pre} h");
    assert!(e_pull <= PULLBACK_TOL_H, "pullback off by {e_pull} h");
}
