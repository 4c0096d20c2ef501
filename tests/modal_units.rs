//! Unit checks of the modal building blocks against closed forms: modal stiffness and mass of
//! the bending mode by quadrature (eq 4, 8) against Euler–Bernoulli, the time-step criteria of
//! §3.3, and the friction law with history (stick, then Coulomb sliding).

use softdem::modal::body::beam;
use softdem::modal::contact::contact_law;
use softdem::modal::layout::ModalParams;
use softdem::modal::quadrature::Elastic;
use softdem::modal::stiffness::ModalStiffness;
use softdem::modal::timestep::critical_time_steps;
use std::f64::consts::PI;

#[test]
fn modal_quadrature_matches_euler_bernoulli() {
    let (l, t, e, rho) = (40.0, 2.0, 2.0e7, 250.0);
    let b = beam([0.0, 0.0], l, t, 0.5, 0.5, rho, Elastic { young: e, poisson: 0.0 }, 1.0);
    let k = match &b.stiffness {
        ModalStiffness::Linear(k) => k[0] as f64,
        _ => unreachable!(),
    };
    // 2D eq 51 is pure bending: E_xx = −z ε (π/L)² sin(πx/L), so K = E I π⁴ / (2 L³), I = t³/12.
    let k_exact = e * t.powi(3) / 12.0 * PI.powi(4) / (2.0 * l.powi(3));
    // M = ρ ∫ (u_x² + u_y²) = ρ [t L/2 + (π/L)² (t³/12) (L/2)].
    let m_exact = rho * (t * l / 2.0 + (PI / l).powi(2) * t.powi(3) / 12.0 * l / 2.0);
    let m = b.modal_mass[0] as f64;
    eprintln!("K {k:.2} vs {k_exact:.2}; M {m:.2} vs {m_exact:.2}");
    assert!((k / k_exact - 1.0).abs() < 5e-3, "K {k} vs {k_exact}");
    assert!((m / m_exact - 1.0).abs() < 5e-3, "M {m} vs {m_exact}");
    // With ν ≠ 0 plane stress gives E/(1 − ν²).
    let b2 = beam([0.0, 0.0], l, t, 0.5, 0.5, rho, Elastic { young: e, poisson: 0.3 }, 1.0);
    let k2 = match &b2.stiffness {
        ModalStiffness::Linear(k) => k[0] as f64,
        _ => unreachable!(),
    };
    assert!((k2 / (k_exact / (1.0 - 0.09)) - 1.0).abs() < 5e-3, "K(ν=0.3) {k2}");
}

#[test]
fn modal_time_steps_follow_section_3_3() {
    let b = beam(
        [0.0, 0.0],
        40.0,
        2.0,
        0.5,
        0.5,
        250.0,
        Elastic {
            young: 2.0e7,
            poisson: 0.0,
        },
        1.0,
    );
    let (k, m) = (
        match &b.stiffness {
            ModalStiffness::Linear(k) => k[0] as f64,
            _ => unreachable!(),
        },
        b.modal_mass[0] as f64,
    );
    let ts = critical_time_steps(std::slice::from_ref(&b), 1e7, 0.2, 0.3).unwrap();
    // Δt_deform = β_d / ω_max, ω_max = √(K/M) for one mode.
    assert!((ts.deform / (0.3 / (k / m).sqrt()) - 1.0).abs() < 1e-9, "{ts:?}");
    // Δt_rigid = β_r √(m_eff/(2 k_n)); the stiffest mass is the modal one (|Φ| = 1 at mid-span).
    assert!((ts.rigid / (0.2 * (0.5 * m / 1e7).sqrt()) - 1.0).abs() < 1e-3, "{ts:?}");
    assert_eq!(ts.dt(), ts.rigid.min(ts.deform));
}

#[test]
fn modal_friction_sticks_then_slides_at_mu_fn() {
    let p = ModalParams {
        dt: 0.01,
        n_nodes: 1,
        n_bodies: 1,
        n_walls: 1,
        slots: 7,
        k_n: 1000.0,
        c_n: 0.0,
        k_t: 500.0,
        mu: 0.5,
        opaque_zero: 0,
        gravity: [0.0, 0.0],
        n_materials: 1,
        pad: [0; 3],
    };
    let n = [0.0, 1.0];
    let gap = -0.01; // f_n = 10
    let mut hist = [0.0f32; 2];
    let mut forces = Vec::new();
    for _ in 0..20 {
        let o = contact_law(&p.wall_law(), p.dt, gap, n, [0.1, 0.0], hist);
        hist = o.hist;
        forces.push(o.force[0]);
        assert!((o.force[1] - 10.0).abs() < 1e-4);
    }
    // Stick: −k_t · v t for the first steps (0.5, 1.0, …), then capped at μ f_n = 5.
    assert!((forces[0] + 500.0 * 0.1 * 0.01).abs() < 1e-4, "{forces:?}");
    assert!((forces[1] + 500.0 * 0.1 * 0.02).abs() < 1e-4, "{forces:?}");
    assert!((forces[19] + 5.0).abs() < 1e-4, "{forces:?}");
    // Reversal: the history unloads elastically from the cap before sliding the other way.
    let o = contact_law(&p.wall_law(), p.dt, gap, n, [-0.1, 0.0], hist);
    assert!((o.force[0] + 5.0 - 500.0 * 0.1 * 0.01).abs() < 1e-3, "{:?}", o.force);
    // Separation clears the contact.
    assert_eq!(contact_law(&p.wall_law(), p.dt, 0.001, n, [0.1, 0.0], hist).active, 0);
}
