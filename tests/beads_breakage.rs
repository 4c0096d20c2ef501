//! Bond breakage and the no-contact rule of bead bodies (CPU).
//! - A KV bond (k = 0.2 N/m, b = 0.1 N s/m, l₀ = 10 m) pulled by 1 N with a break stretch of 0.2
//!   breaks once, when X = 2 m: at t* = −(b/k) ln(1 − 0.2 l₀ k/F) = 0.2554 s by eq 4 (within 1 %);
//!   the log has that one event; afterwards the bead accelerates freely (a = F/m within 1e-4).
//! - Beads of one body do not touch: on a lattice block squeezed by 5 % (neighbours overlap by
//!   5 % of l) every bead's force is exactly its bond force.

use softdem::beads::scenes::{single_bond_scene, BeadRun};
use softdem::beads::{build_body, no_contact_table, BeadForces, BodyShape, BodySpec, LoadProfile};
use softdem::spheres::cpu_stepper::CpuSpheres;
use softdem::spheres::precision::df3_split;
use softdem::spheres::SphereParams;

#[test]
fn a_stretched_bond_breaks_once_at_the_stated_stretch() {
    let (k, b, m, f, dt) = (0.2, 0.1, 1e-5, 1.0, 2e-5);
    let mut scene = single_bond_scene(
        k,
        b,
        m,
        f,
        LoadProfile::Step {
            on: 0.0,
            off: f64::INFINITY,
        },
        dt,
    );
    scene.forces.break_stretch = 0.2;
    let mut run = BeadRun::cpu(scene);
    let steps = (0.4 / dt) as usize;
    let mut v_after = Vec::new();
    for s in 1..=steps {
        run.step(None).unwrap();
        if run.host().bonds.intact() == 0 {
            v_after.push((s as f64 * dt, run.states(None)[1].vel[0] as f64));
        }
    }
    let log = run.host().bonds.break_log();
    assert_eq!(log.len(), 1, "{log:?}");
    let e = log[0];
    let t_break = BeadForces::time_of(e.evaluation, dt as f32);
    let t_star = -(b / k) * (1.0 - 0.2 * 10.0 * k / f).ln();
    println!(
        "break at t = {t_break:.5} s (eq 4: {t_star:.5} s), stretch {:.6}",
        e.stretch
    );
    assert!((t_break / t_star - 1.0).abs() < 0.01);
    assert!(e.stretch > 0.2 && e.stretch < 0.2 + 1e-3);
    assert_eq!((e.bond, e.i, e.j), (0, 0, 1));
    assert!(e.csv_row(dt).starts_with(&format!("{},", e.evaluation)));
    // Free flight: dv/dt = F/m.
    let (a, z) = (v_after[10], v_after[v_after.len() - 1]);
    let acc = (z.1 - a.1) / (z.0 - a.0);
    assert!((acc / (f / m) - 1.0).abs() < 1e-4, "a = {acc}");
}

#[test]
fn bonded_beads_feel_only_their_bonds() {
    let l = 12.5e-6;
    let spec = BodySpec {
        shape: BodyShape::CubicBlock { n: [5, 5, 5] },
        spacing: l,
        k: 200.0,
        b: 0.0,
        shell: None,
        bead_mass: 2e-12,
        contact_radius: 0.5 * 12.5e-6,
        material: 0,
        center: [0.0; 3],
    };
    let body = build_body(&spec);
    let mut states = body.states.clone();
    for s in &mut states {
        let p = s.position();
        (s.pos_hi, s.pos_lo) = df3_split(p.map(|x| 0.95 * x));
    }
    let params = SphereParams {
        dt: 1e-9,
        skin: (0.5 * l) as f32,
        ..Default::default()
    };
    let mut sys = CpuSpheres::new(params, states, no_contact_table(1), Vec::new());
    let overlapping = sys.list.len();
    sys.add_extra(Box::new(BeadForces::new(
        body.bonds.clone(),
        Vec::new(),
        Vec::new(),
        f32::INFINITY,
    )));
    assert!(
        overlapping >= body.bonds.len(),
        "the neighbours are contact candidates ({overlapping})"
    );
    let src = sys.extra[0].as_any().downcast_ref::<BeadForces>().unwrap();
    let mut nonzero = 0;
    for (i, f) in sys.forces.iter().enumerate() {
        assert_eq!(f.force, sys.extra_force[i].force, "bead {i}");
        nonzero += (f.force != [0.0; 3]) as usize;
    }
    assert!(nonzero > 50, "the squeezed block is loaded ({nonzero})");
    assert!(src.bond_force.iter().all(|f| f[0].is_finite()));
}
