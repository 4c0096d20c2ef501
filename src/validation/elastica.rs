//! Continuum references of the ring compression cases: the elastic ring's elastica (below) and
//! the stiff core's area-constrained extensible elastica ([`CoreState`], [`core_path`]).
//!
//! The continuum limit of the elastic ring (η = 0) between two frictionless rigid walls: an
//! inextensible Euler elastica of bending rigidity EI and natural curvature 1/R (the model's
//! continuum limit, EI = k_b ℓ, is what the beams of Fig. 9 calibrate). Used as a second,
//! resolution-independent reference next to the paper's eq 30 and 33 (docs/validation.md).
//!
//! By symmetry (left–right and top–bottom, no friction) each half of the ring carries only the
//! vertical force P = F/2 across its cuts, so along a quarter arc that starts at the top
//! (turning angle φ = 0, tangent parallel to the wall) and ends at the side (φ = π/2):
//!   EI dκ/ds = P cos φ  ⇒  κ² = κ_A² + q sin φ,  q = 2P/EI = F/EI,
//! with κ_A the curvature at the top. The natural curvature only shifts the moment by a
//! constant, so it does not enter the shape equation; it enters through the fixed length
//! πR/2 of the quarter arc.
//! - **Point contact** (κ_A ≥ 0): ∫₀^{π/2} dφ/κ = πR/2 fixes κ_A for each q, and
//!   b = 2∫₀^{π/2} sin φ dφ/κ.
//! - **Flat contact** (after κ_A reaches 0, at F R²/EI = 2.786, ε = 0.282): the flat part
//!   carries a uniform moment, hence no bending force, and the free arcs have κ = 0 at their
//!   ends: κ = √(q sin φ). Then b = 2 I_s/√q and L_c = πR − 2 I_c/√q with
//!   I_s = ∫₀^{π/2} √(sin φ) dφ = 1.19814 and I_c = ∫₀^{π/2} dφ/√(sin φ) = 2.62206, i.e.
//!   F R²/EI = I_s²/(1 − ε)² = 1.4355/(1 − ε)² and L_c/b0 = π/2 − (I_c/I_s)(1 − ε):
//!   L_c grows with slope I_c/I_s = 2.188 in ε (the stadium of eq 30 has π/2 because its
//!   semicircles have a curvature jump at the contact edge, which the elastica does not).

use std::f64::consts::PI;

/// ∫₀^{π/2} w(φ)/√(κ_A² + q sin φ) dφ, with φ = u² to remove the 1/√φ singularity at κ_A = 0.
fn quarter_integral(kappa_a: f64, q: f64, w: impl Fn(f64) -> f64) -> f64 {
    let n = 4000;
    let umax = (PI / 2.0).sqrt();
    let h = umax / n as f64;
    let f = |u: f64| {
        let phi = u * u;
        let den = kappa_a * kappa_a + q * phi.sin();
        if u == 0.0 {
            // limit of 2u/√(κ_A² + q u²) at u = 0
            if kappa_a > 0.0 {
                0.0
            } else {
                2.0 * w(0.0) / q.sqrt()
            }
        } else {
            2.0 * u * w(phi) / den.sqrt()
        }
    };
    // Simpson's rule
    let mut s = f(0.0) + f(umax);
    for i in 1..n {
        let c = if i % 2 == 1 { 4.0 } else { 2.0 };
        s += c * f(i as f64 * h);
    }
    s * h / 3.0
}

/// I_s = ∫₀^{π/2} √(sin φ) dφ.
pub fn i_s() -> f64 {
    quarter_integral(0.0, 1.0, |p| p.sin())
}

/// I_c = ∫₀^{π/2} dφ/√(sin φ).
pub fn i_c() -> f64 {
    quarter_integral(0.0, 1.0, |_| 1.0)
}

/// Slope d(L_c/b0)/dε of the flat-contact regime, I_c/I_s.
pub fn lc_slope() -> f64 {
    i_c() / i_s()
}

/// Strain at which the flat contact starts: 1 − π/(2 I_c/I_s).
pub fn eps_flat() -> f64 {
    1.0 - PI / (2.0 * lc_slope())
}

/// One state of the elastica ring (R = 1, EI = 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct State {
    /// ε = 1 − b/b0.
    pub eps: f64,
    /// F R²/EI (total wall force).
    pub force: f64,
    /// L_c/b0 (length of the flat contact with one wall).
    pub lc_b0: f64,
}

/// The point-contact state with q = F R²/EI (0 ≤ q ≤ q at the flat onset).
fn point_state(q: f64) -> State {
    // κ_A from the length condition (the integral decreases with κ_A).
    let len = |k: f64| quarter_integral(k, q, |_| 1.0) - PI / 2.0;
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..80 {
        let m = 0.5 * (lo + hi);
        if len(m) > 0.0 {
            lo = m;
        } else {
            hi = m;
        }
    }
    let k = 0.5 * (lo + hi);
    let b = 2.0 * quarter_integral(k, q, |p| p.sin());
    State {
        eps: 1.0 - b / 2.0,
        force: q,
        lc_b0: 0.0,
    }
}

/// The elastica's force and contact length at strain ε (0 ≤ ε < 1).
pub fn at_strain(eps: f64) -> State {
    let (is, ic) = (i_s(), i_c());
    let e0 = 1.0 - PI * is / (2.0 * ic);
    if eps >= e0 {
        let one = 1.0 - eps;
        return State {
            eps,
            force: is * is / (one * one),
            lc_b0: PI / 2.0 - ic / is * one,
        };
    }
    // Point contact: ε(q) increases with q from 0 to e0 at q0 = (2 I_c/π)²; bisection on q.
    let q0 = (2.0 * ic / PI).powi(2);
    let (mut lo, mut hi) = (0.0, q0);
    for _ in 0..60 {
        let m = 0.5 * (lo + hi);
        if point_state(m).eps < eps {
            lo = m;
        } else {
            hi = m;
        }
    }
    State {
        eps,
        force: 0.5 * (lo + hi),
        lc_b0: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_reduces_to_elastica() {
        // With p = 0 and EA → ∞ the shooting must accept the closed-form flat regime of the
        // elastica: θ = −π/2 and y = 0 at S (the area residual is not used here).
        let ring = CoreRing { ea: 1e12, area: 0.0 };
        for eps in [0.3, 0.35] {
            let st = at_strain(eps);
            let h = 1.0 - eps;
            let c = st.lc_b0; // L_c/b0 = 2c/(2R)
            let (r, _) = core_shoot(&ring, h, [c, 0.5 * st.force, 0.0]);
            assert!(r[0].abs() < 1e-6 && r[1].abs() < 1e-6, "{eps}: {r:?}");
        }
    }

    /// Energy balance, independent of the force balance that the shooting imposes: with the area
    /// held, the walls' work −F db = −2F dh is the whole change of elastic energy, so
    /// F = −½ dU/dh (central difference, dh = 10⁻³ R; tolerance 0.1 %, measured 3×10⁻⁵).
    #[test]
    fn core_force_is_energy_slope() {
        let ring = CoreRing { ea: 415.0, area: PI };
        for h in [0.85, 0.75, 0.68] {
            let dh = 1e-3;
            let p = core_path(&ring, &[h + dh, h, h - dh]).unwrap();
            let slope = -0.5 * (p[2].energy - p[0].energy) / (-2.0 * dh);
            let f = p[1].force;
            eprintln!("h = {h}: F R²/EI = {f:.6}, −½ dU/dh = {slope:.6}");
            assert!((slope / f - 1.0).abs() < 1e-3, "h = {h}: F = {f}, −½ dU/dh = {slope}");
        }
    }

    #[test]
    fn core_circle_and_stadium_limits() {
        // Undeformed ring: zero residuals at h = 1 with W = p = 0, κ_E = −1, area π.
        let ring = CoreRing { ea: 400.0, area: PI };
        let (r, _) = core_shoot(&ring, 1.0, [-1.0, 0.0, 0.0]);
        assert!(r.iter().all(|x| x.abs() < 1e-9), "{r:?}");
        // Compressed: the area is kept, the force and pressure grow, the flat forms.
        let hs: Vec<f64> = (1..=35).map(|i| 1.0 - 0.01 * i as f64).collect();
        let path = core_path(&ring, &hs).unwrap();
        let last = path.last().unwrap();
        assert!(last.flat > 0.5 && last.pressure > 0.0 && last.force > 0.0, "{last:?}");
        for w in path.windows(2) {
            assert!(w[1].force >= w[0].force && w[1].flat >= w[0].flat, "{w:?}");
        }
    }

    #[test]
    fn constants() {
        // ∫₀^{π/2} √sin = 2√(2π³)/Γ(1/4)², ∫₀^{π/2} 1/√sin = Γ(1/4)²/(2√(2π)).
        let g = 3.625_609_908_221_908_f64; // Γ(1/4)
        assert!((i_s() - 2.0 * (2.0 * PI.powi(3)).sqrt() / (g * g)).abs() < 1e-6);
        assert!((i_c() - g * g / (2.0 * (2.0 * PI).sqrt())).abs() < 1e-5);
        assert!((lc_slope() - 2.18844).abs() < 1e-4);
        assert!((eps_flat() - 0.28223).abs() < 1e-4);
    }

    #[test]
    fn point_and_flat_regimes_join() {
        let e0 = eps_flat();
        let a = at_strain(e0 - 1e-6);
        let b = at_strain(e0 + 1e-6);
        assert!((a.force - b.force).abs() < 1e-3, "{a:?} {b:?}");
        // Small strains: the linear ring, F R²/EI = ε b0 R² /(R³ (π/4 − 2/π)) / 2 … checked as
        // the slope dF/dε at ε → 0 against the classical diametral stiffness of a ring,
        // δ = (π/4 − 2/π) F R³/EI for the change of diameter.
        let e = 1e-4;
        let s = at_strain(e);
        let expect = 2.0 * e / (PI / 4.0 - 2.0 / PI);
        assert!((s.force / expect - 1.0).abs() < 2e-3, "{} vs {}", s.force, expect);
    }
}

/// The stiff core (η ≈ 10⁵) in its continuum limit (issue 19): an **extensible** elastica of
/// bending rigidity EI = k_b ℓ0 and stretch rigidity EA = k_s ℓ0 (the discrete spring k_s acts on
/// ℓ − ℓ0), natural curvature 1/R, whose enclosed area is held at A0 (the incompressible core;
/// ΔV/V0 ≈ 10⁻⁶ in the simulation). The core pressure p is the Lagrange multiplier of the area
/// constraint: it enters as a uniform outward load p per unit current length.
///
/// Quarter of the ring (R = 1, EI = 1), from the middle of the flat contact A = (0, h) through the
/// contact edge E = (c, h) to the side S = (x_S, 0), traversed clockwise, reference arc length σ,
/// tangent angle θ (0 at E, −π/2 at S). The force that the rest of the ring (beyond σ) exerts on
/// the part [A, σ] follows from the equilibrium of that part, loaded by the flat's tension at A
/// (T0 = p h, by horizontal balance), the wall's total force on the half flat W (per half wall:
/// F = 2W) and the resultant of the pressure on the chord from A:
///   n = (p y, W − p x).
/// On the flat (0 < x < c), n = (p h, 0): no shear, so the wall presses each interior point with
/// exactly p (interior contact nodes carry p s ℓ: the plateau of Fig. 25 is p, not F* + p s ℓ),
/// and the rest of W is a point force at E. Along the free arc (Kirchhoff rod, m the moment
/// exerted by the part beyond σ):
///   x' = λ cos θ,  y' = λ sin θ,  θ' = κ0 + m/EI,  m' = −λ (n_y cos θ − n_x sin θ),
///   λ = 1 + (n_x cos θ + n_y sin θ)/EA,  κ0 = −1/R,
/// the area of the quarter accumulates ½(y x' − x y') (plus ½ h c for the flat). With a flat
/// contact the curvature is continuous at E: m_E = −EI κ0. Unknowns (c, W, p); conditions at S
/// (σ = π/2 − c/λ0, λ0 = 1 + p h/EA): θ = −π/2, y = 0 and area = A0/4. Before the flat forms
/// the contact is a point (c = 0) and the curvature κ_E at the top is the third unknown instead.
/// With p = 0 and EA = ∞ this is the elastica of [`at_strain`] (test `core_reduces_to_elastica`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoreState {
    /// Half-distance of the walls' node lines, h = b/2 (R = 1).
    pub h: f64,
    /// F R²/EI (total force of one wall).
    pub force: f64,
    /// Current length of the flat contact with one wall, 2c/R.
    pub flat: f64,
    /// Reference (unstretched) length of the flat, 2c/(λ0 R): the number of shell segments on it
    /// times ℓ0.
    pub flat_ref: f64,
    /// Core pressure p s R³/EI.
    pub pressure: f64,
    /// Point force at each contact edge over W (the rest, p c, is spread over the flat).
    pub edge_share: f64,
    /// Stretch of the flat, λ0 = 1 + p h/EA: an interior contact node carries p s ℓ0 λ0.
    pub stretch: f64,
    /// Elastic energy of the whole ring, ∫ (m²/2EI + τ²/2EA) dσ, in units of EI/R. At constant
    /// area the pressure does no work, so F = −½ dU/dh (test `core_force_is_energy_slope`).
    pub energy: f64,
}

/// The constrained extensible elastica's parameters: EA R²/EI and the area to keep, A0/R².
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoreRing {
    pub ea: f64,
    pub area: f64,
}

/// Residuals at S for the unknowns u = (c or κ_E, W, p) at half-height h; also returns the state.
fn core_shoot(ring: &CoreRing, h: f64, u: [f64; 3]) -> ([f64; 3], CoreState) {
    let (c, kappa_e) = if u[0] >= 0.0 { (u[0], 0.0) } else { (0.0, u[0]) };
    let (w, p) = (u[1], u[2]);
    let ea = ring.ea;
    let kappa0 = -1.0;
    let lambda0 = 1.0 + p * h / ea;
    let len = PI / 2.0 - c / lambda0;
    // y = (x, y, θ, m, area, energy)
    let rhs = |s: &[f64; 6]| -> [f64; 6] {
        let (x, y, th, m) = (s[0], s[1], s[2], s[3]);
        let (nx, ny) = (p * y, w - p * x);
        let (ct, st) = (th.cos(), th.sin());
        let tension = nx * ct + ny * st;
        let lam = 1.0 + tension / ea;
        let (dx, dy) = (lam * ct, lam * st);
        [
            dx,
            dy,
            kappa0 + m,
            -lam * (ny * ct - nx * st),
            0.5 * (y * dx - x * dy),
            0.5 * m * m + 0.5 * tension * tension / ea,
        ]
    };
    let steps = 1500;
    let hstep = len / steps as f64;
    // The flat: curvature 0 (moment −EI κ0), tension p h, over its reference length c/λ0.
    let flat_energy = (0.5 * kappa0 * kappa0 + 0.5 * (p * h).powi(2) / ea) * c / lambda0;
    let mut s = [c, h, 0.0, kappa_e - kappa0, 0.5 * h * c, flat_energy];
    for _ in 0..steps {
        let k1 = rhs(&s);
        let add = |a: &[f64; 6], k: &[f64; 6], f: f64| {
            let mut r = *a;
            for i in 0..6 {
                r[i] += f * k[i];
            }
            r
        };
        let k2 = rhs(&add(&s, &k1, 0.5 * hstep));
        let k3 = rhs(&add(&s, &k2, 0.5 * hstep));
        let k4 = rhs(&add(&s, &k3, hstep));
        for i in 0..6 {
            s[i] += hstep / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    let res = [s[2] + PI / 2.0, s[1], s[4] - ring.area / 4.0];
    let state = CoreState {
        h,
        force: 2.0 * w,
        flat: 2.0 * c,
        flat_ref: 2.0 * c / lambda0,
        pressure: p,
        edge_share: if w != 0.0 { (w - p * c) / w } else { 0.0 },
        stretch: lambda0,
        energy: 4.0 * s[5],
    };
    (res, state)
}

/// Newton's method on the three residuals from the guess `u` (finite-difference Jacobian,
/// step halving). Returns the solution or None when it does not converge to 1e-10.
fn core_solve(ring: &CoreRing, h: f64, mut u: [f64; 3]) -> Option<([f64; 3], CoreState)> {
    let norm = |r: &[f64; 3]| r.iter().map(|x| x * x).sum::<f64>().sqrt();
    let (mut r, _) = core_shoot(ring, h, u);
    for _ in 0..60 {
        if norm(&r) < 1e-10 {
            let (r2, st) = core_shoot(ring, h, u);
            return (norm(&r2) < 1e-10).then_some((u, st));
        }
        let mut jac = [[0.0; 3]; 3];
        for j in 0..3 {
            let d = 1e-7 * u[j].abs().max(1e-3);
            let mut v = u;
            v[j] += d;
            // One-sided derivatives of u[0] across the kink at 0 (flat ↔ point contact): step
            // away from it.
            if j == 0 && u[0] < 0.0 && v[0] >= 0.0 {
                v[0] = u[0] - d;
            }
            let (rj, _) = core_shoot(ring, h, v);
            for i in 0..3 {
                jac[i][j] = (rj[i] - r[i]) / (v[j] - u[j]);
            }
        }
        let du = solve3(jac, [-r[0], -r[1], -r[2]])?;
        let mut t = 1.0;
        loop {
            let v = [u[0] + t * du[0], u[1] + t * du[1], u[2] + t * du[2]];
            let (rv, _) = core_shoot(ring, h, v);
            if norm(&rv) < norm(&r) || t < 1e-4 {
                u = v;
                r = rv;
                break;
            }
            t *= 0.5;
        }
    }
    None
}

/// Cramer's rule for a 3×3 system.
fn solve3(a: [[f64; 3]; 3], b: [f64; 3]) -> Option<[f64; 3]> {
    let det = |m: [[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(a);
    if d == 0.0 || !d.is_finite() {
        return None;
    }
    let mut x = [0.0; 3];
    for (k, xk) in x.iter_mut().enumerate() {
        let mut m = a;
        for i in 0..3 {
            m[i][k] = b[i];
        }
        *xk = det(m) / d;
    }
    Some(x)
}

/// The constrained elastica at each half-height of `hs` (decreasing, below the undeformed
/// h = R = 1), solved by continuation in steps of at most 0.002 R from the circle.
pub fn core_path(ring: &CoreRing, hs: &[f64]) -> anyhow::Result<Vec<CoreState>> {
    // Start: the undeformed ring, W = p = 0, κ_E = κ0 = −1.
    let mut u = [-1.0, 0.0, 0.0];
    let mut out = Vec::with_capacity(hs.len());
    let mut h_prev = 1.0;
    for &h in hs {
        // Continuation in small steps of h (the first step starts near the circle).
        let sub = ((h_prev - h).abs() / 2e-3).ceil().max(1.0) as usize;
        let mut st = None;
        for k in 1..=sub {
            let hk = h_prev + (h - h_prev) * k as f64 / sub as f64;
            let (v, s) = core_solve(ring, hk, u)
                .ok_or_else(|| anyhow::anyhow!("constrained elastica: no convergence at h = {hk:.4}"))?;
            u = v;
            st = Some(s);
        }
        h_prev = h;
        out.push(st.expect("at least one step"));
    }
    Ok(out)
}
