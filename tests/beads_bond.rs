//! One Kelvin–Voigt bond (Sahputra et al. §2.2.1, Figs 2–4) on the CPU sphere stepper: bead 0
//! held, bead 1 (m = 10⁻⁵ kg) pulled by F = 1 N, k = 0.2 N/m.
//! - creep against eq 4, X = F/k (1 − e^{−kt/b}), within 1 % of F/k for b = 0.02, 0.1, 0.2 N s/m,
//!   and against the f64 RK4 solution of m ẍ + b ẋ + k x = F within 2e-4 F/k (inertia included);
//! - creep then recovery after the force is removed at 6 s (Fig. 3, b = 0.2): recovery against
//!   X(6 s) e^{−k(t − 6)/b} within 1 % of F/k;
//! - sinusoidal force (Fig. 4, b = 0.2, ω = 2 rad/s): steady-state amplitude within 1 % and phase
//!   lag within 0.01 rad of the solution of m ẍ + b ẋ + k x = F sin ωt.

use softdem::beads::scenes::{single_bond_scene, BeadRun};
use softdem::beads::LoadProfile;
use softdem::laws::kelvin_voigt::{creep_displacement, sine_steady_state};
use softdem::validation::beads_kv::sine_fit;

const M: f64 = 1e-5;
const K: f64 = 0.2;
const F: f64 = 1.0;

/// X(t) of the stepper, sampled every step: (time, extension).
fn simulate(b: f64, profile: LoadProfile, dt: f64, t_end: f64) -> Vec<(f64, f64)> {
    let mut run = BeadRun::cpu(single_bond_scene(K, b, M, F, profile, dt));
    let steps = (t_end / dt).round() as usize;
    let mut out = Vec::with_capacity(steps);
    for s in 1..=steps {
        run.step(None).unwrap();
        let st = run.states(None);
        out.push((s as f64 * dt, st[1].position()[0] - st[0].position()[0] - 10.0));
    }
    out
}

/// f64 RK4 of m ẍ + b ẋ + k x = f(t) from rest, at the sample times.
fn reference(b: f64, f: impl Fn(f64) -> f64, times: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    let (mut x, mut v, mut t) = (0.0f64, 0.0f64, 0.0f64);
    let acc = |t: f64, x: f64, v: f64| (f(t) - b * v - K * x) / M;
    let mut out = Vec::with_capacity(times.len());
    for &ts in times {
        while t < ts - 0.5 * h {
            let hh = h.min(ts - t);
            (x, v) = softdem::validation::ode::rk4_step(acc, t, x, v, hh);
            t += hh;
        }
        out.push(x);
    }
    out
}

#[test]
fn creep_follows_eq_4_for_several_dashpots() {
    for (b, dt) in [(0.02, 2e-5), (0.1, 2e-5)] {
        let t_end = 3.0 * b / K;
        let step = LoadProfile::Step {
            on: 0.0,
            off: f64::INFINITY,
        };
        let x = simulate(b, step, dt, t_end);
        let times: Vec<f64> = x.iter().map(|p| p.0).collect();
        let exact = reference(b, |_| F, &times);
        let (mut e4, mut ode) = (0.0f64, 0.0f64);
        for ((t, xs), xr) in x.iter().zip(&exact) {
            e4 = e4.max((xs - creep_displacement(F, K, b, *t)).abs());
            ode = ode.max((xs - xr).abs());
        }
        println!(
            "b = {b}: max |X − eq 4| = {:.2e} F/k, max |X − ODE| = {:.2e} F/k",
            e4 * K / F,
            ode * K / F
        );
        assert!(e4 * K / F < 0.01, "b = {b}: eq 4 off by {e4}");
        assert!(ode * K / F < 2e-4, "b = {b}: ODE off by {ode}");
        let last = x.last().unwrap();
        assert!((last.1 - creep_displacement(F, K, b, last.0)).abs() < 0.01 * F / K);
    }
}

#[test]
fn creep_and_recovery_after_release_at_6_s() {
    let b = 0.2;
    let prof = LoadProfile::Step { on: 0.0, off: 6.0 };
    let x = simulate(b, prof, 1e-5, 12.0);
    let times: Vec<f64> = x.iter().map(|p| p.0).collect();
    let exact = reference(b, |t| if t < 6.0 { F } else { 0.0 }, &times);
    let x6 = creep_displacement(F, K, b, 6.0);
    let (mut creep, mut recovery, mut ode) = (0.0f64, 0.0f64, 0.0f64);
    for ((t, xs), xr) in x.iter().zip(&exact) {
        if *t <= 6.0 {
            creep = creep.max((xs - creep_displacement(F, K, b, *t)).abs());
        } else {
            recovery = recovery.max((xs - x6 * (-K * (t - 6.0) / b).exp()).abs());
        }
        ode = ode.max((xs - xr).abs());
    }
    println!(
        "creep {:.2e}, recovery {:.2e}, ODE {:.2e} (F/k)",
        creep * K / F,
        recovery * K / F,
        ode * K / F
    );
    assert!(
        creep * K / F < 0.01 && recovery * K / F < 0.01,
        "creep {creep}, recovery {recovery}"
    );
    assert!(ode * K / F < 2e-4, "ODE {ode}");
    // Recovers towards zero: at 12 s, X(6) e^{−6} ≈ 0.0124 m.
    assert!(x.last().unwrap().1 < 0.02);
}

#[test]
fn sinusoidal_force_amplitude_and_phase_lag() {
    let (b, omega) = (0.2, 2.0);
    let period = 2.0 * std::f64::consts::PI / omega;
    let t0 = 12.0;
    let x = simulate(b, LoadProfile::Sine { omega }, 2e-5, t0 + 2.0 * period);
    let times: Vec<f64> = x.iter().map(|p| p.0).collect();
    let exact = reference(b, |t| F * (omega * t).sin(), &times);
    let ode = x.iter().zip(&exact).map(|(p, e)| (p.1 - e).abs()).fold(0.0, f64::max);
    println!("max |X − ODE| = {ode:.3e} m");
    assert!(ode < 1e-3, "ODE {ode}");
    // Least squares x ≈ c + A sin(ωt − φ) over two periods after the transient (e^{−12}).
    let (amp, lag) = sine_fit(&x, omega, t0);
    let (amp_ref, lag_ref) = sine_steady_state(F, M, K, b, omega);
    println!("amplitude {amp:.6} vs {amp_ref:.6}, lag {lag:.6} vs {lag_ref:.6} rad");
    assert!((amp - amp_ref).abs() < 0.01 * amp_ref);
    assert!((lag - lag_ref).abs() < 0.01);
}
